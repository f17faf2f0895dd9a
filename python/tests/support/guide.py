"""The guide's and the README's code blocks, as the tests read them.

A block is a fenced block (```` ```lang attrs ````) of a page. What happens
to it is decided by its language:

- ``python``: run, the page's blocks in order in one namespace (one fresh
  process per page). A block followed by a ``text`` block (nothing but blank
  lines between) must print that text (``…`` stands for any run of
  characters within a line).
- ``sh``: run with bash from the checkout's root, the ``symalias`` binary
  first on ``PATH`` (``cargo run [-q] [--release] --`` is that binary). In a
  block with ``$ `` prompts each prompt's command must print the lines under
  it (``…`` as above); in one without, every command must succeed.
- ``console``: commands that are documented but not run by the tests (the
  set-up itself, benchmarks, fuzzers, hour-long generators): every file they
  name must exist, and a Python script's flags must be in its ``--help``.
- ``rust``: rustdoc runs them (``cargo test --doc``: ``src/lib.rs``
  includes each page that has one).
- ``c``: the C API's tests build and run them (``capi/tests/c_example.rs``).
- ``text``, ``json…``, ``toml``: not code (``docs/FORMATS.md``'s ``json``
  blocks are run by ``tests/integration/docs_formats.rs``).
"""

from __future__ import annotations

import dataclasses
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"

#: Languages and what the tests do with each.
RUN = {"python", "sh"}
CHECKED = {"console", "rust", "c"}
NOT_CODE = {"text", "json", "toml"}


@dataclasses.dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    attrs: tuple[str, ...]
    text: str
    #: The text block right after it (a python block's expected output).
    output: str | None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def summary_pages() -> list[str]:
    """The pages SUMMARY.md links, in its order (paths under docs/)."""
    return re.findall(r"\]\(([^)#]+\.md)\)", (DOCS / "SUMMARY.md").read_text())


def pages() -> list[pathlib.Path]:
    """The README and every page of the guide (ARCHITECTURE.md is one: the
    guide includes it)."""
    out = [ROOT / "README.md", ROOT / "ARCHITECTURE.md"]
    out += [DOCS / p for p in summary_pages() if p != "architecture.md"]
    return out


def blocks(path: pathlib.Path) -> list[Block]:
    lines = path.read_text().splitlines()
    found: list[tuple[int, str, tuple[str, ...], str]] = []
    i = 0
    while i < len(lines):
        m = re.match(r"^```(.*)$", lines[i])
        if not m:
            i += 1
            continue
        info = m.group(1).split()
        start = i + 1
        j = start
        while j < len(lines) and lines[j] != "```":
            j += 1
        lang = info[0] if info else ""
        found.append((start, lang, tuple(info[1:]), "\n".join(lines[start:j]) + "\n"))
        i = j + 1
    name = str(path.relative_to(ROOT))
    out = []
    for k, (start, lang, attrs, text) in enumerate(found):
        output = None
        if k + 1 < len(found) and found[k + 1][1] == "text":
            between = lines[start + text.count("\n") : found[k + 1][0] - 1]
            if all(not line.strip() for line in between[1:]):
                output = found[k + 1][3]
        out.append(Block(name, start, lang, attrs, text, output))
    return out


def all_blocks() -> list[Block]:
    return [b for p in pages() for b in blocks(p)]


def matches(expected: str, got: str) -> bool:
    """``got`` is ``expected``, ``…`` standing for any run of characters
    within a line; trailing blank lines aside."""
    lines = expected.rstrip().splitlines()
    pattern = "\n".join(".*?".join(re.escape(part) for part in line.split("…")) for line in lines)
    return re.fullmatch(pattern, got.rstrip()) is not None
