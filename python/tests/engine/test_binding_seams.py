"""The binding drives the engine's typed API: on the path a torch compile
takes -- the decision (``decide.rs``), the run-time checks
(``checks.rs``, ``check_kinds.rs``), the tensor reader (``tensors.rs``) and
the package's modules that call them -- no document is built and no JSON
text is written or parsed. Documents stay at the file edge
(``document.rs``: user documents, a pickled check's state)."""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parents[2]
#: The decide/check path of the binding, and of the package.
RUST = ["decide.rs", "symints.rs", "checks.rs", "check_kinds.rs", "tensors.rs"]
PYTHON = ["torch/_decision.py", "torch/_guards.py", "torch/_compile.py", "torch/_reinplace.py", "torch/_hop.py"]
#: What a text round trip across the seam looks like.
FORBIDDEN = re.compile(r"\b(from_json|to_json|serde_json|run_overlap_case|run_disjoint_case|OverlapCase)\b|\w+_json\(")


def seam_words(text: str) -> list[str]:
    """The forbidden words in ``text``, comments and doc comments aside."""
    code = "\n".join(line.split("//")[0] for line in text.splitlines() if not line.lstrip().startswith("#"))
    return [m.group(0) for m in FORBIDDEN.finditer(code)]


@pytest.mark.parametrize("name", RUST)
def test_no_document_on_the_binding_path(name):
    assert seam_words((ROOT / "src" / name).read_text()) == []


@pytest.mark.parametrize("name", PYTHON)
def test_no_document_on_the_package_path(name):
    text = (ROOT / "symalias" / name).read_text()
    code = "\n".join(line.split("#")[0] for line in text.splitlines())
    assert [m.group(0) for m in FORBIDDEN.finditer(code)] == []


def test_the_scan_finds_a_round_trip():
    """The scan itself: each kind of round trip is found."""
    for line in [
        "let case = OverlapCase { id, symbols, assumptions, tensors, expect };",
        "run_overlap_case(&case, &mut analyzer, false)",
        "let docs: Vec<GuardDoc> = serde_json::from_str(&text)?;",
        "PyProgramResult::from_json(crate::to_json(&doc))",
        "guards=decision.partition_guards_json()",
    ]:
        assert seam_words(line) != [], line
    assert seam_words("// a comment about OverlapCase\nlet x = 1;") == []
