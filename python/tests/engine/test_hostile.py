"""Hostile input through the Python package: the reproducers that crashed or
ran away in the binary answer here with an exception or a bounded answer,
never by taking the interpreter down (the files in tests/data/repro of this
repository)."""

import json
import pathlib
import resource
import threading
import time

import pytest

import symalias

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

REPRO = pathlib.Path(__file__).resolve().parents[3] / "tests" / "data" / "repro"


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_deep_parentheses_are_a_located_error():
    text = (REPRO / "02_stack_paren5000.txt").read_text().strip()
    with pytest.raises(symalias.InputError, match="nested deeper"):
        symalias.parse(text)


def test_long_sum_parses_in_linear_time():
    text = (REPRO / "02b_stack_sum40k.txt").read_text().strip()
    start = time.perf_counter()
    printed = symalias.parse(text)
    assert time.perf_counter() - start < 5
    assert symalias.parse(printed) == printed


def test_deep_division_is_refused_and_what_prints_reads_back():
    # 2,000 nested FloorDivs: deeper than the limit, a located error.
    text = (REPRO / "02c_roundtrip_fdiv2000.txt").read_text().strip()
    with pytest.raises(symalias.InputError, match="nested deeper than"):
        symalias.parse(text)
    # At the limit's edge, what prints reads back unchanged.
    deep = "s0"
    for _ in range(900):
        deep = f"FloorDiv({deep}, 2)"
    printed = symalias.parse(deep)
    assert symalias.parse(printed) == printed


def test_deep_guard_is_bad_input_not_a_crash():
    result = (REPRO / "02d_result_deepguard.json").read_text()
    call = (REPRO / "02d_call.json").read_text()
    with pytest.raises(symalias.InputError, match="nested deeper than"):
        symalias.GuardSet(result).check(call)


def test_deep_overlap_batch_lines_each_answer():
    lines = [s for s in (REPRO / "02e_overlap_batch_deep.jsonl").read_text().splitlines() if s.strip()]
    answered = errors = 0
    for line in lines:
        case = json.loads(line)
        try:
            symalias.overlap(case["tensors"], case.get("symbols"), case.get("assumptions", []))
            answered += 1
        except symalias.InputError:
            errors += 1
    assert answered >= 1 and errors >= 1


def test_huge_intermediate_base_count_is_refused_before_allocation():
    doc = (REPRO / "03_analyze_num_ib_1e6.json").read_text()
    before = rss_mb()
    with pytest.raises(symalias.InputError, match="num_intermediate_bases"):
        symalias.analyze(doc)
    assert rss_mb() - before < 200


def test_two_thousand_identical_views_stay_bounded():
    case = json.loads((REPRO / "03c_overlap_2k_same.jsonl").read_text().splitlines()[0])
    before = rss_mb()
    r = symalias.overlap(case["tensors"], case.get("symbols"), case.get("assumptions", []))
    assert len(r.overlapping) == len(case["tensors"])
    assert r.pairs_left_out > 0
    assert rss_mb() - before < 500


def test_garbage_fields_in_a_program_are_located():
    doc = (REPRO / "05_analyze_garbage_accepted.json").read_text()
    with pytest.raises(symalias.InputError, match=r"inputs\[\d+\]\.tensor"):
        symalias.analyze(doc)


# ---- bad input at the Python boundary: the argument is named ----------------


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"symbols": {"s": symalias.Symbol(hint=float("nan"))}}, "symbols.s.hint"),
        ({"symbols": {"s": {"hint": 4, "max": float("inf")}}}, "symbols.s.max"),
    ],
)
def test_a_number_json_cannot_carry_names_its_field(value, field):
    with pytest.raises(symalias.InputError, match=f"field `{field}`: (nan|inf) is not a number"):
        symalias.overlap([symalias.TensorLayout(sizes=["s"], strides=[1])], **value)


def test_a_non_finite_offset_names_its_tensor():
    with pytest.raises(symalias.InputError, match=r"field `tensors\[0\].storage_offset`"):
        symalias.overlap([{"sizes": [2], "strides": [1], "storage_offset": float("inf")}])


@pytest.mark.parametrize(
    ("call", "field", "case_id", "message"),
    [
        # the engine's located error
        (
            lambda: symalias.overlap([{"sizes": [2, -1], "strides": [1, 1]}], id="neg"),
            "tensors[0].sizes[1]",
            "neg",
            "size of dimension 1 is negative",
        ),
        # a value JSON cannot carry, found in Python
        (
            lambda: symalias.overlap([{"sizes": [2], "strides": [1], "storage_offset": float("nan")}], id="nan"),
            "tensors[0].storage_offset",
            "nan",
            "nan is not a number the engine can take",
        ),
        # a call the binding converts itself
        (lambda: symalias._native.GuardSet('{"guards": [{"kind": "nope"}]}'), "result", None, None),
        # an expression: no field
        (lambda: symalias.parse("1 +"), None, None, "at column 4: expected an operand, found end of input"),
    ],
)
def test_input_errors_carry_their_parts(call, field, case_id, message):
    """Like pydantic-core's errors: the text for people, the parts for
    programs; the text is the engine's rendering of the parts."""
    with pytest.raises(symalias.InputError) as info:
        call()
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.field, e.case_id) == (field, case_id)
    if message is not None:
        assert e.message == message
    assert e.message in str(e) and (field is None or field in str(e))


def test_an_input_error_made_in_python_renders_as_the_engines():
    e = symalias.InputError("bad value", "tensors[2].strides[0]", "c7")
    assert str(e) == 'case "c7", field `tensors[2].strides[0]`: bad value'
    assert (e.message, e.field, e.case_id) == ("bad value", "tensors[2].strides[0]", "c7")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: symalias.overlap(3), "tensors must be a sequence, not int"),
        (lambda: symalias.overlap([3]), r"tensors\[0\] is int, not a TensorLayout or a mapping"),
        (lambda: symalias.overlap([{"sizes": ["s"], "strides": [1]}], symbols={"s": 4}), r"symbols\['s'\] is int"),
        (lambda: symalias.overlap([], symbols=[1]), "symbols must be a mapping"),
    ],
)
def test_wrong_types_name_the_argument(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_tensors_that_have_no_strided_storage_are_refused_on_purpose():
    torch = pytest.importorskip("torch")
    from torch.testing._internal.two_tensor import TwoTensor

    x = torch.zeros(4, 4)
    cases = [
        (5, "tensors must be a sequence of torch.Tensor, not int"),
        (x, "not Tensor"),
        ([x, 3], r"tensors\[1\] is int, not a torch.Tensor"),
        ([x.to_sparse(), x], r"tensors\[0\] has layout torch.sparse_coo"),
        (
            [x, torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)], layout=torch.jagged)],
            r"tensors\[1\] is a nested tensor",
        ),
        ([TwoTensor(torch.zeros(4), torch.zeros(4))], r"tensors\[0\] is a TwoTensor, a wrapper subclass"),
    ]
    for tensors, message in cases:
        with pytest.raises(TypeError, match=message):
            symalias.compute_overlapping_tensors(tensors)


def test_meta_tensors_and_parameters_are_answered():
    torch = pytest.importorskip("torch")
    m = torch.zeros(8, device="meta")
    assert symalias.compute_overlapping_tensors([m[:4], m[2:6], m[6:]]) == {0, 1}
    p = torch.nn.Parameter(torch.zeros(8))
    assert symalias.compute_overlapping_tensors([p[:4], p[4:]]) == set()


def test_a_small_python_thread_stack_does_not_bound_an_analysis():
    """An analysis runs on the calling thread's stack only when 4 MB of it
    are left, else on a 64 MB segment of its own: the deepest accepted
    expression is parsed, simplified and used as a size from a thread of
    256 KiB (and from this thread, below)."""
    chain = "s0" + "//2" * 999
    out: dict[str, object] = {}

    def work() -> None:
        out["parsed"] = symalias.parse(chain)
        out["simplified"] = symalias.simplify(chain, {"s0": symalias.Symbol(hint=3, min=1)})
        views = [symalias.TensorLayout([chain], [1], 0), symalias.TensorLayout([4], [1], 8)]
        out["overlap"] = symalias.overlap(views, {"s0": symalias.Symbol(hint=3, min=1, max=10**6)})

    old = threading.stack_size(256 * 1024)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert symalias.parse(str(out["parsed"])) == out["parsed"]
    simplified = out["simplified"]
    assert isinstance(simplified, symalias.SimplifyResult) and simplified.size_out <= simplified.size_in
    result = out["overlap"]
    assert isinstance(result, symalias.OverlapResult)
    # s0 // 2**999 is 0 for every allowed s0: the first view is empty.
    assert result.overlapping == () and result.invariant is True
    work()
    again = out["overlap"]
    assert isinstance(again, symalias.OverlapResult) and again is not result
    assert (again.overlapping, again.invariant) == ((), True)
