"""The torch releases symalias.torch supports (issue 51): ``install()``
succeeds, ``features()`` names what runs, and the guide's table
(docs/torch/turning-on.md) says the same for the release this suite runs
on (``.ci/releases`` runs this file on 2.11-2.14, the full suite runs on
2.15)."""

from __future__ import annotations

import pathlib

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st
from symalias.torch._torch import points

TABLE_PAGE = pathlib.Path(__file__).resolve().parents[3] / "docs" / "torch" / "turning-on.md"


def release() -> str:
    return ".".join(torch.__version__.split("+")[0].split(".")[:2])


def guide_table() -> dict[str, dict[str, bool]]:
    text = TABLE_PAGE.read_text()
    start = text.index("<!-- releases:")
    lines = []
    for ln in text[start:].splitlines()[1:]:
        if not ln.startswith("|"):
            break
        lines.append(ln)
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        rows[cells[0]] = {name: cell == "on" for name, cell in zip(header[1:], cells[1:])}
    return rows


def test_install_succeeds_and_features_name_what_runs():
    st.uninstall()
    try:
        st.install()
        on = st.features()
        assert set(on) == {f.name for f in points.FEATURES}
        # Each feature that runs has its hook points replaced, and only those.
        from symalias.torch._state import saved_hooks

        for f in points.FEATURES:
            for h in f.hooks:
                assert (f"{h.owner}.{h.attr}" in saved_hooks) == on[f.name], (f.name, h)
    finally:
        st.uninstall()


def test_the_guide_table_matches_this_release():
    table = guide_table()
    assert set(table) == {"2.11", "2.12", "2.13", "2.14", "2.15"}
    assert release() in table, f"torch {torch.__version__} is not in the guide's table"
    assert table[release()] == st.features()
    # Newer releases never run fewer features.
    order = sorted(table, key=lambda r: tuple(map(int, r.split("."))))
    for old, new in zip(order, order[1:]):
        assert all(table[new][f] or not table[old][f] for f in table[old]), (old, new)
