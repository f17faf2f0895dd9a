"""The binding drives the engine's typed API: on the path a torch compile
takes -- the decision (``decide.rs``), the run-time checks
(``checks.rs``, ``check_kinds.rs``), the tensor reader (``tensors.rs``) and
the package's modules that call them -- and on the C ABI's
(``capi/src/lib.rs``), no document type is named, no document is built and
no JSON text is written or parsed: a partition check holds the engine's
compiled guards. Documents stay at the file edge (``document.rs``: user
documents, a pickled check's state, a decision's result on demand)."""

from __future__ import annotations

import pathlib
import re

import pytest

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

ROOT = pathlib.Path(__file__).parents[2]
#: The decide/check path of the binding, and of the package.
RUST = [
    "src/decide.rs",
    "src/symints.rs",
    "src/checks.rs",
    "src/check_kinds.rs",
    "src/tensors.rs",
    "../capi/src/lib.rs",
]
PYTHON = [
    "torch/_decision.py",
    "torch/_facts.py",
    "torch/_guards.py",
    "torch/_compile.py",
    "torch/_reinplace.py",
    "torch/_hop.py",
]
#: What a text round trip across the seam looks like.
FORBIDDEN = re.compile(
    r"\b(from_json|to_json|serde_json|run_overlap_case|run_disjoint_case|OverlapCase|OverlapResult|GuardDoc"
    r"|GuardKindDoc|prepare_guards|load_guards)\b|\w+_json\("
)


def seam_words(text: str) -> list[str]:
    """The forbidden words in ``text``, comments and doc comments aside."""
    code = "\n".join(line.split("//")[0] for line in text.splitlines() if not line.lstrip().startswith("#"))
    return [m.group(0) for m in FORBIDDEN.finditer(code)]


#: Where a document is the answer asked for, at the edge, never read back:
#: ``Decision.json()`` (the §3 line, made by ``document.rs``) and the C
#: ABI's guards (FORMATS §4 JSON by its contract, ``symalias_result_guard``).
ASKED = {"src/decide.rs": ["decision_json("], "../capi/src/lib.rs": ["guard_json("]}


@pytest.mark.parametrize("name", RUST)
def test_no_document_on_the_binding_path(name):
    assert seam_words((ROOT / name).read_text()) == ASKED.get(name, [])


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
        "fn document(&self) -> symalias::io::OverlapResult {",
        "let docs: Vec<GuardKindDoc> = vec![];",
    ]:
        assert seam_words(line) != [], line
    assert seam_words("// a comment about OverlapCase\nlet x = 1;") == []
    assert seam_words("fn result(&self) -> PyResult<crate::results::PyOverlapResult> {") == []
