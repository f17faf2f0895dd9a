"""The table of hook points (``_torch/points.py``) is the one answer to
"which torch function, which file, why": every row names a function that
exists, every replacing function of the package is in a row, and the
guide's page (docs/torch/hooks.md) is the table rendered
(``SYMALIAS_BLESS=1`` rewrites it)."""

from __future__ import annotations

import ast
import inspect
import os
import pathlib

import pytest

pytest.importorskip("torch")

from symalias.torch import _install
from symalias.torch._torch import gateway, points

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

PACKAGE = pathlib.Path(__file__).parents[2] / "symalias" / "torch"
PAGE = pathlib.Path(__file__).parents[3] / "docs" / "torch" / "hooks.md"


def replacing_functions(sources: dict[str, str]) -> set[str]:
    """The ``module.function`` names of the package's replacing functions:
    module-level functions named ``wrap_*`` (given torch's function, they
    return its replacement) and ``hold_*`` (they patch a torch config for
    the rest of a compile)."""
    out = set()
    for module, text in sources.items():
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith(("wrap_", "hold_")):
                out.add(f"{module}.{node.name}")
    return out


def package_sources() -> dict[str, str]:
    return {p.stem: p.read_text() for p in PACKAGE.glob("_*.py")}


def test_every_row_names_a_function_that_exists():
    for row in points.POINTS:
        fn = _install.replacing_function(row)
        assert inspect.isfunction(fn), row.by
        params = list(inspect.signature(fn).parameters)
        assert params, f"{row.by} takes torch's function (or the compile record)"
    assert gateway.resolve("symalias.torch._merge.wrap_merge_view_inputs") is not None


def test_a_row_naming_a_missing_function_fails():
    row = points.Hook("torch.nn", "Module", None, "H1", "_merge.wrap_nothing_here", "a typo")
    with pytest.raises(AttributeError, match="wrap_nothing_here"):
        _install.replacing_function(row)


def test_every_replacing_function_is_in_the_table():
    named = {row.by for row in points.POINTS}
    found = replacing_functions(package_sources())
    assert found, "the scan found nothing: it is broken"
    assert found - named == set(), "replacing functions in no row of points.py"
    # (Helpers of the same shape that replace nothing: none.)


def test_the_scan_finds_a_replacing_function_added():
    sources = package_sources()
    sources["_merge"] += "\n\ndef wrap_something_new(orig):\n    return orig\n"
    named = {row.by for row in points.POINTS}
    assert replacing_functions(sources) - named == {"_merge.wrap_something_new"}


def test_every_row_says_why_and_where():
    for row in points.POINTS:
        assert row.why and len(row.why) <= 120 and "\n" not in row.why, row.name
        assert row.part in {f"H{k}" for k in range(1, 14)} | {"guards", "caches", "fallback", "artifacts", "replay"}
        assert row.feature is None or row.feature in {f.name for f in points.FEATURES}, row.name
    assert len({(r.owner, r.attr) for r in points.POINTS}) == len(points.POINTS), "a torch name in two rows"
    for f in points.FEATURES:
        assert f.hooks or f.reads, f"feature {f.name} has neither a row nor a name read"


def render() -> str:
    """The table as the guide shows it."""
    lines = [
        "# Hook points",
        "",
        "<!-- Rendered from python/symalias/torch/_torch/points.py by",
        "     python/tests/torch/test_torch_points.py (SYMALIAS_BLESS=1 rewrites it). -->",
        "",
        "Every torch function `symalias.torch.install()` replaces and every torch",
        "config it patches for part of a compile: the part of the design (H1-H13",
        "are [What PyTorch does](../PYTORCH.md), section 9), the torch name, the",
        "function of `symalias.torch` that replaces it, the optional feature it",
        "belongs to (none: the core, which fails closed), and why.",
        "",
        "| part | torch name | replaced by | feature | why |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in points.POINTS:
        kind = " (config)" if isinstance(row, points.Patch) else ""
        lines.append(f"| {row.part} | `{row.name}`{kind} | `{row.by}` | {row.feature or '—'} | {row.why} |")
    return "\n".join(lines) + "\n"


def test_the_guide_page_is_the_table():
    text = render()
    if os.environ.get("SYMALIAS_BLESS"):
        PAGE.write_text(text)
    assert PAGE.read_text() == text, "SYMALIAS_BLESS=1 rewrites docs/torch/hooks.md from points.py"
