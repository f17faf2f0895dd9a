"""The typed core API: overlap, analyze, simplify, parse, GuardSet."""

import copy
import itertools
import json
import pathlib
import pickle
import re
import subprocess
import threading
import time

import pytest
from binary import cli

import symalias
from symalias import Symbol, TensorLayout

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

ROOT = pathlib.Path(__file__).resolve().parents[3]


def footprint(sizes, strides, offset, itemsize=1):
    """Every byte a view reaches (brute force)."""
    out = set()
    for idx in itertools.product(*[range(n) for n in sizes]):
        e = offset + sum(i * s for i, s in zip(idx, strides))
        out.update(range(e * itemsize, (e + 1) * itemsize))
    return out


def test_b0_overlap_is_found_with_a_real_witness():
    # PyTorch's bug B0: torch calls these two views disjoint.
    a = TensorLayout(sizes=[4, 4], strides=[9, 1], storage_offset=0, source="L['a']")
    b = TensorLayout(sizes=[4, 4], strides=[9, 1], storage_offset=9, source="L['b']")
    r = symalias.overlap([a, b])
    assert r.overlapping == (0, 1)
    # Proved: the list is only fast paths before the exact guards (it stands
    # alone); a checker that pins layouts itself needs none.
    assert r.invariant is True
    assert [g.kind for g in r.guards] == [
        "layout",
        "storage_overlap",
        "layout",
        "self_overlap",
    ]
    assert symalias.overlap([a, b], layouts_pinned=True).guards == ()
    (pair,) = r.pairs
    w = pair.witness
    assert w is not None
    assert w.address in footprint([4, 4], [9, 1], 0) & footprint([4, 4], [9, 1], 9)
    assert w.address == sum(i * s for i, s in zip(w.index_a, [9, 1]))
    assert w.address == 9 + sum(i * s for i, s in zip(w.index_b, [9, 1]))


def test_itemsizes_compare_bytes():
    # float32 element 2 is bytes 8..12; a uint8 view of bytes 8..11 meets it.
    f32 = TensorLayout(sizes=[1], strides=[1], storage_offset=2, itemsize=4)
    u8 = TensorLayout(sizes=[4], strides=[1], storage_offset=8, itemsize=1)
    u8_next = TensorLayout(sizes=[4], strides=[1], storage_offset=12, itemsize=1)
    assert symalias.overlap([f32, u8]).overlapping == (0, 1)
    assert symalias.overlap([f32, u8_next]).overlapping == ()


def test_symbolic_column_split_is_proved_disjoint():
    s = {"s0": Symbol(hint=4, min=2, source="L['x'].size()[0]")}
    a = TensorLayout(sizes=["s0", 4], strides=[8, 1], storage_offset=0, itemsize=4)
    b = TensorLayout(sizes=["s0", 4], strides=[8, 1], storage_offset=4, itemsize=4)
    r = symalias.overlap([a, b], s, layouts_pinned=True)
    assert r.overlapping == () and r.non_overlapping == (0, 1)
    assert r.invariant is True
    assert r.guards == ()


def test_refuted_verdict_comes_with_a_real_counterexample_and_a_guard():
    # b starts at s1: disjoint at the hint, overlapping when s1 < 4.
    s = {
        "s1": Symbol(hint=8, min=2, max=100, source="L['b'].storage_offset()"),
    }
    a = TensorLayout(sizes=[4], strides=[1], storage_offset=0, source="L['a']")
    b = TensorLayout(sizes=[4], strides=[1], storage_offset="s1", source="L['b']")
    r = symalias.overlap([a, b], s)
    assert r.overlapping == ()
    assert r.invariant is False
    assert any(g.kind == "storage_overlap" for g in r.guards)
    cx = r.counterexample
    assert cx is not None
    at = symalias.overlap([a, TensorLayout([4], [1], cx["s1"])])
    assert at.overlapping != r.overlapping
    # The guard set keeps the classification: a disjoint call passes, an
    # overlapping one fails, naming the StorageOverlap guard.
    gs = symalias.GuardSet(r)
    ok = gs.check(
        {
            "L['a']": {"object": "a", "storage": "S", "sizes": [4], "strides": [1], "storage_offset": 0},
            "L['b']": {"object": "b", "storage": "S", "sizes": [4], "strides": [1], "storage_offset": 20},
        }
    )
    assert ok.passed and bool(ok)
    bad = gs.check(
        {
            "L['a']": {"object": "a", "storage": "S", "sizes": [4], "strides": [1], "storage_offset": 0},
            "L['b']": {"object": "b", "storage": "S", "sizes": [4], "strides": [1], "storage_offset": 2},
        }
    )
    assert not bad.passed
    assert bad.failed is not None and bad.reason


def test_guardset_rejects_a_call_missing_a_source():
    s = {"s1": Symbol(hint=8, min=2, max=100, source="L['b'].storage_offset()")}
    r = symalias.overlap(
        [
            TensorLayout([4], [1], 0, source="L['a']"),
            TensorLayout([4], [1], "s1", source="L['b']"),
        ],
        s,
    )
    gs = symalias.GuardSet(r)
    with pytest.raises(symalias.InputError, match=r"L\['b'\]"):
        gs.check({"L['a']": {"object": "a", "storage": "S", "sizes": [4], "strides": [1]}})


def test_guardset_takes_documents_as_objects_or_text_alike():
    """A result and a call given as Python objects (converted natively) are
    answered as their JSON text is; malformed ones name what is wrong."""
    s = {"s1": Symbol(hint=8, min=2, max=100, source="L['b'].storage_offset()")}
    r = symalias.overlap([TensorLayout([4], [1], 0, source="L['a']"), TensorLayout([4], [1], "s1", source="L['b']")], s)
    call = {
        "inputs": [
            {
                "source": "L['a']",
                "tensor": {"object": "a", "storage": "S", "sizes": [4], "strides": [1], "storage_offset": 0},
            },
            {
                "source": "L['b']",
                "tensor": {"object": "b", "storage": "S", "sizes": [4], "strides": [1], "storage_offset": 2},
            },
        ]
    }
    by_object = symalias.GuardSet(json.loads(r.json)).check(call)
    by_text = symalias.GuardSet(r.json).check(json.dumps(call))
    assert by_object == by_text and not by_object.passed
    with pytest.raises(symalias.InputError, match="result"):
        symalias.GuardSet({"guards": [{"kind": "no_such_guard"}]})
    with pytest.raises(symalias.InputError, match="call"):
        symalias.GuardSet(r).check({"inputs": [{"source": 3}]})


@pytest.mark.parametrize(
    ("tensors", "field"),
    [
        ([{"sizes": ["s0+"], "strides": [1]}], "tensors[0].sizes[0]"),
        ([{"sizes": [2], "strides": [1]}, {"sizes": [-1], "strides": [1]}], "tensors[1].sizes[0]"),
        ([{"sizes": [2], "strides": ["1//0"]}], "tensors[0].strides[0]"),
        ([{"sizes": [2], "strides": [1], "storage_offset": "Foo(1)"}], "tensors[0].storage_offset"),
        ([{"sizes": [2**62], "strides": [2**62]}], "tensors[0]"),
    ],
)
def test_bad_input_raises_the_clis_located_message(tensors, field):
    case = {"id": "bad", "symbols": {}, "assumptions": [], "tensors": tensors}
    with pytest.raises(symalias.InputError) as info:
        symalias.overlap(tensors, id="bad")
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert f"field `{field}" in message
    out = subprocess.run([cli(), "overlap", "-"], input=json.dumps(case), capture_output=True, text=True)
    assert out.returncode != 0
    err = json.loads(out.stdout.splitlines()[0])["error"]
    assert err == "line 1, " + message


def test_hint_outside_its_range_is_bad_input():
    with pytest.raises(symalias.InputError, match="s0"):
        symalias.overlap([TensorLayout(["s0"], [1])], {"s0": Symbol(hint=1, min=2)})


def test_the_gil_is_released_during_analysis():
    line = (ROOT / "tests/data/repro/01_hang_z3_h4.jsonl").read_text().splitlines()[0]
    case = json.loads(line)
    done = threading.Event()
    span = {}

    def work():
        # The case ends on its work bounds in a few tens of ms (issue 60):
        # analysed again and again for 0.2 s, so there is a span to watch.
        span["start"] = time.perf_counter()
        while time.perf_counter() - span["start"] < 0.2:
            symalias.overlap(case["tensors"], case.get("symbols"), case.get("assumptions", []), time_limit_ms=600)
        span["end"] = time.perf_counter()
        done.set()

    t = threading.Thread(target=work)
    ticks = []
    t.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    inside = [x for x in ticks if span["start"] < x < span["end"]]
    assert span["end"] - span["start"] > 0.05
    # With the GIL held during each analysis the main thread could run only
    # between them (a few ticks); released, it ticks about every 1 ms.
    assert len(inside) >= 50, len(inside)


def test_time_bound_is_honoured():
    line = (ROOT / "tests/data/repro/01_hang_z3_h4.jsonl").read_text().splitlines()[0]
    case = json.loads(line)
    start = time.perf_counter()
    r = symalias.overlap(case["tensors"], case.get("symbols"), case.get("assumptions", []), time_limit_ms=200)
    elapsed = time.perf_counter() - start
    assert elapsed < 5.0, elapsed
    # Whatever was not proved in time is not claimed.
    if r.invariant is not True:
        assert r.guards


def test_simplify_and_parse():
    r = symalias.simplify("Mod(4*s0 + 8, 4)", {"s0": Symbol(hint=3, min=2)})
    assert r.expr == "0"
    assert r.size_out <= r.size_in
    assert symalias.parse("2*s0 + s0") == "3*s0"
    with pytest.raises(symalias.InputError, match="column"):
        symalias.parse("s0 +")


def test_analyze_matches_the_cli():
    path = ROOT / "tests/programs/41-b0-overlap-missed-by-pytorch.json"
    text = path.read_text()
    r = symalias.analyze(text)
    out = subprocess.run([cli(), "analyze", str(path)], capture_output=True, text=True)
    expected = json.loads(out.stdout)
    got = json.loads(r.json)
    for d in (expected, got):
        for g in d.get("overlap", []):
            g.pop("micros", None)
    assert got == expected
    assert r.synthetic_bases is not None
    assert r.errors == tuple(expected.get("errors", []))


def test_analyze_bad_program_names_the_programs_field():
    doc = json.loads((ROOT / "tests/programs/41-b0-overlap-missed-by-pytorch.json").read_text())
    doc["inputs"][0]["tensor"]["strides"][0] = -5
    with pytest.raises(symalias.InputError, match=r"inputs\[0\]\.tensor"):
        symalias.analyze(doc)


def test_results_are_built_natively_and_mirror_their_document():
    """The result classes are the engine's (``symalias._native``): frozen,
    every attribute equal to the result document's field (sequences as
    tuples), guard text from the engine's renderer, ``json`` the document."""
    s = {"s1": Symbol(hint=8, min=2, max=100, source="L['b'].storage_offset()")}
    views = [
        TensorLayout([4, 4], [9, 1], 0, source="L['a']"),
        TensorLayout([4, 4], [9, 1], 9, source="L['c']"),
        TensorLayout([4], [1], "s1", source="L['b']"),
    ]
    r = symalias.overlap(views, s)
    assert type(r).__module__ == "symalias._native" and isinstance(r, symalias.OverlapResult)
    doc = json.loads(r.json)
    assert (r.id, r.overlapping) == (doc["id"], tuple(doc["overlapping"]))
    assert r.non_overlapping == tuple(doc["non_overlapping"])
    assert (r.invariant, r.counterexample, r.symbols, r.micros) == (
        doc["invariant"],
        doc.get("counterexample"),
        doc.get("symbols", {}),
        doc["micros"],
    )
    assert len(r.pairs) == len(doc["pairs"]) >= 1
    for p, d in zip(r.pairs, doc["pairs"]):
        assert (p.a, p.b, p.overlap, p.proof) == (d["a"], d["b"], d["overlap"], d["proof"])
        w = d.get("witness")
        assert (p.witness is None) == (w is None)
        if p.witness is not None:
            assert (p.witness.address, p.witness.index_a, p.witness.index_b) == (
                w["address"],
                tuple(w["index_a"]),
                tuple(w["index_b"]),
            )
    assert [g.text for g in r.guards] == symalias._native.render_guards(doc["guards"])
    for g, d in zip(r.guards, doc["guards"]):
        rest = {k: v for k, v in d.items() if k not in ("kind", "reason", "fast_path")}
        assert (g.kind, g.reason, g.fields) == (d["kind"], d.get("reason", ""), rest)
    # Frozen, compared by value, shown like the dataclasses they replace.
    with pytest.raises(AttributeError):
        r.id = "other"  # type: ignore[misc]
    again = symalias.overlap(views, s)
    assert again.pairs == r.pairs and again.guards == r.guards
    # Value-like results hash (a set of pairs); those holding dicts do not.
    assert len({*r.pairs, *again.pairs}) == len(r.pairs)
    with pytest.raises(TypeError):
        hash(r.guards[0])
    assert repr(r.pairs[0]).startswith("Pair(a=0, b=1, overlap=True, proof='proved', witness=Witness(address=")
    # A program's result: its sub-documents as dicts, its guards typed.
    text = (ROOT / "tests/programs/41-b0-overlap-missed-by-pytorch.json").read_text()
    pr = symalias.analyze(text)
    pdoc = json.loads(pr.json)
    assert pr.dedupe == pdoc["dedupe"] and pr.meta == pdoc["meta"]
    assert pr.overlap == tuple(pdoc["overlap"]) and pr.signature == pdoc.get("signature")
    assert [g.kind for g in pr.guards] == [d["kind"] for d in pdoc["guards"]]
    assert len(symalias.GuardSet(pr)) == len(symalias.GuardSet(pr.json)) == len(pdoc["guards"])
    out = symalias.simplify("Mod(4*s0 + 8, 4)", {"s0": Symbol(hint=3, min=2)})
    assert repr(out).startswith("SimplifyResult(id='expr', expr='0', size_in=")
    # Picklable and copyable, as the dataclasses were (a worker process can
    # send results back): equal after the round trip, JSON text unchanged.
    sy = {"s1": Symbol(hint=8, min=2, max=100, source="L['y'].storage_offset()")}
    xy = [TensorLayout([4], [1], 0, source="L['x']"), TensorLayout([4], [1], "s1", source="L['y']")]
    r2 = symalias.overlap(xy, sy)
    view = {"storage": "S", "sizes": [4], "strides": [1]}
    outcome = symalias.GuardSet(r2).check(
        {"L['x']": {"object": "x", **view, "storage_offset": 0}, "L['y']": {"object": "y", **view, "storage_offset": 2}}
    )
    assert not outcome.passed and outcome.failed
    for x in (r, pr, out, outcome, *r.pairs, *r.guards, *r.self_overlap, r.pairs[0].witness):
        back = pickle.loads(pickle.dumps(x))
        assert type(back) is type(x) and back == x and repr(back) == repr(x)
        assert copy.deepcopy(x) == x
    assert pickle.loads(pickle.dumps(pr)).json == pr.json and pickle.loads(pickle.dumps(r)).json == r.json


def test_the_binding_imports_nothing_from_the_package():
    """``_native`` never calls back into ``symalias``: the only modules its
    Rust imports are torch's and its own (for pickling)."""
    import pathlib
    import re

    src = pathlib.Path(__file__).parents[2] / "src"
    imported = set()
    for path in src.glob("*.rs"):
        imported |= set(re.findall(r'\.import\("([^"]+)"\)', path.read_text()))
    assert imported, "the scan found no import: it is broken"
    assert imported <= {"torch", "symalias._native"}, imported


def test_one_z3_pin_for_the_build_the_package_and_the_process():
    """The libz3 the extension runs is the z3-solver wheel that .ci/setup
    unpacks for the Rust build: one pin. The package depends on no
    z3-solver (the wheel carries its libz3, .ci/wheel); an installed wheel
    loads it from inside itself (``symalias.libs``), whatever else is
    installed."""
    setup = re.search(r'^Z3_SOLVER="([^"]+)"$', (ROOT / ".ci/setup").read_text(), re.M)
    assert setup, ".ci/setup pins Z3_SOLVER"
    import tomllib

    project = tomllib.loads((ROOT / "python/pyproject.toml").read_text())["project"]
    assert project["dependencies"] == []
    assert symalias._native.z3_version == setup[1]
    package = pathlib.Path(symalias.__file__).resolve().parent
    if (package.parent / "symalias.libs").is_dir():  # installed from the wheel
        loaded = {
            pathlib.Path(line.split()[-1]).resolve()
            for line in pathlib.Path("/proc/self/maps").read_text().splitlines()
            if "libz3" in line and "symalias.libs" in line
        }
        assert loaded, "the wheel's own libz3 is not the one loaded"
