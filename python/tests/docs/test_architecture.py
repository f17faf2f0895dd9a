"""ARCHITECTURE.md is a map, not an encyclopedia: at most 300 lines, every
name it shows in code spans exists in the code, and every invariant names
the test that keeps it (a test file or an integration-test topic that
exists)."""

from __future__ import annotations

import pathlib
import re

import pytest

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

ROOT = pathlib.Path(__file__).resolve().parents[3]
MAP = ROOT / "ARCHITECTURE.md"
#: Where names are looked for: the code, its tests, CI and the docs' file names.
CODE_DIRS = ["src", "solver", "python", "capi", "tests", "benches", "fuzz", "examples", ".ci"]
CODE_SUFFIXES = {".rs", ".py", ".pyi", ".c", ".h", ".toml", ".sh", ""}


def code_text() -> str:
    parts = []
    for d in CODE_DIRS:
        for p in (ROOT / d).rglob("*"):
            if p == pathlib.Path(__file__).resolve() or "target" in p.parts:
                continue
            if p.is_file() and p.suffix in CODE_SUFFIXES and p.stat().st_size < 2_000_000:
                try:
                    parts.append(p.read_text())
                except UnicodeDecodeError:
                    continue
    return "\n".join(parts)


def spans(text: str) -> list[str]:
    """The inline code spans of ``text`` (fenced blocks aside)."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.findall(r"`([^`\n]+)`", prose)


def missing(text: str, code: str) -> list[str]:
    """The code spans of ``text`` naming something that exists nowhere: a
    path (with ``/`` or a file suffix) that is no file or folder, or an
    identifier the code never spells."""
    out = []
    for span in spans(text):
        if span.startswith(("bash ", "symalias ")) or (" " in span.strip() and "/" not in span):
            # A command or a phrase: its words are checked one by one below.
            words = re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", span)
            out += [f"{span} ({w})" for w in words if w not in code and w not in COMMON]
            continue
        if "/" in span or re.search(r"\.(py|rs|md|toml|h|c)$", span):
            if not path_exists(span.rstrip("/")):
                out.append(span)
            continue
        for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span):
            if len(w) > 2 and w not in code and w not in COMMON:
                out.append(f"{span} ({w})")
    return out


#: Words of prose or of other projects a span may hold.
COMMON = {"true", "false", "egg", "quick"}
#: Files of other projects the map names.
ELSEWHERE = {"architecture.md"}  # rust-analyzer's


def path_exists(path: str) -> bool:
    """A path from the root, from ``src/``, ``docs/`` or the torch package;
    a bare file name anywhere in the repository."""
    if path in ELSEWHERE:
        return True
    for base in ("", "src", "docs", "python", "python/symalias/torch"):
        if (ROOT / base / path).exists():
            return True
    if "/" in path:
        return False
    return any(p.name == path for d in [*CODE_DIRS, "docs"] for p in (ROOT / d).rglob(path) if "target" not in p.parts)


def test_the_map_is_short():
    assert len(MAP.read_text().splitlines()) <= 300


def test_every_name_on_the_map_exists():
    assert missing(MAP.read_text(), code_text()) == []


def test_the_name_check_finds_a_name_that_does_not_exist():
    code = code_text()
    assert missing("`Compile.adopt` and `FrameGuards`", code) == ["FrameGuards (FrameGuards)"]
    assert missing("`python/symalias/torch/_hooks.py`", code) == ["python/symalias/torch/_hooks.py"]


def invariants(text: str) -> list[str]:
    """The numbered items of the map's Invariants section."""
    section = text.split("## Invariants", 1)[1].split("\n## ", 1)[0]
    return [m.strip() for m in re.split(r"\n(?=\d+\. )", section) if re.match(r"\d+\. ", m.strip())]


def named_tests(item: str) -> list[str]:
    """The tests an invariant names: Python test files, Rust test files,
    integration-test topics."""
    names = []
    for span in spans(item):
        test_file = re.fullmatch(r"test_\w+\.py", span) or re.fullmatch(r"\w+\.rs", span)
        topic = re.fullmatch(r"[a-z_]+", span) and (ROOT / "tests" / "integration" / f"{span}.rs").exists()
        if test_file or topic:
            names.append(span)
    return names


def exists(name: str) -> bool:
    if name.endswith(".py"):
        return any((ROOT / "python" / "tests").rglob(name))
    if name.endswith(".rs"):
        return any(p for d in ("tests", "capi/tests") for p in (ROOT / d).rglob(name))
    return (ROOT / "tests" / "integration" / f"{name}.rs").exists()


def test_every_invariant_names_an_existing_test():
    items = invariants(MAP.read_text())
    assert len(items) >= 10, "the map's invariants were not found"
    for item in items:
        named = named_tests(item)
        assert named, f"an invariant names no test: {item[:80]}"
        assert all(exists(n) for n in named), [n for n in named if not exists(n)]


@pytest.mark.parametrize(
    ("item", "ok"),
    [
        ("1. **Sound.** Disjoint means disjoint (`overlap_differential`).", True),
        ("2. **Sound.** Disjoint means disjoint.", False),
        ("3. **Sound.** Disjoint means disjoint (`test_nothing_here.py`).", False),
    ],
)
def test_the_invariant_check_finds_one_without_a_test(item, ok):
    named = named_tests(item)
    assert (bool(named) and all(exists(n) for n in named)) == ok
