"""The native run-time check of ``symalias.torch`` (``_native.FrameCheck``)
against plain-Python statements of each fact, on random tensors, and the
paths that fetch a frame's tensors from its locals."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st
from symalias import _native
from symalias.torch import _guards


def storage(t: Any) -> int:
    return int(t.untyped_storage()._cdata)


def random_frame(rng: random.Random, n: int) -> list[Any]:
    """n tensors, some sharing one of a few buffers."""
    bufs = [torch.zeros(64) for _ in range(rng.randint(1, 4))]
    out = []
    for _ in range(n):
        if rng.random() < 0.3:
            out.append(torch.zeros(rng.randint(0, 8)))
        else:
            b = rng.choice(bufs)
            start = rng.randint(0, 56)
            out.append(b[start : start + rng.randint(0, 8)])
    return out


def cross_reference(ts: list[Any], groups: list[int], mutated: list[bool]) -> bool:
    by: dict[int, set] = {}
    for t, g in zip(ts, groups):
        by.setdefault(storage(t), set()).add(g)
    return not any(len(gs) > 1 and any(mutated[g] for g in gs) for gs in by.values())


def test_cross_storage_fact_agrees_with_its_statement():
    rng = random.Random(7)
    for _ in range(2000):
        n = rng.randint(1, 7)
        ts = random_frame(rng, n)
        groups = [rng.randint(0, n - 1) for _ in range(n)]
        mutated = [rng.random() < 0.5 for _ in range(n)]
        check = _native.FrameCheck([None] * n, [("cross", list(range(n)), groups, mutated)])
        assert check({}, *ts) == cross_reference(ts, groups, mutated)


def test_one_storage_and_pins_agree_with_their_statements():
    rng = random.Random(11)
    for _ in range(2000):
        n = rng.randint(1, 6)
        ts = random_frame(rng, n)
        one = _native.FrameCheck([None] * n, [("one_storage", list(range(n)))])
        assert one({}, *ts) == (len({storage(t) for t in ts}) == 1)
        pins = [(i, rng.randint(0, 3) + ts[i].storage_offset() - 1) for i in range(n) if rng.random() < 0.7]
        pin = _native.FrameCheck([None] * n, [("pins", pins, None)])
        assert pin({}, *ts) == all(ts[i].storage_offset() == o for i, o in pins)


def test_static_base_signature_is_pinned():
    x = torch.zeros(10)
    a = x[2:5]
    sig = _guards.base_signature(a)
    check = _native.FrameCheck([None], [("pins", [], (0, sig))])
    assert check({}, a)
    assert check({}, torch.zeros(10)[2:5])  # another buffer, same base layout
    assert not check({}, torch.zeros(12)[2:5])  # the base's size differs
    assert not check({}, torch.zeros(10, dtype=torch.float64)[2:5])  # its dtype differs
    fresh = torch.zeros(3)
    own = _native.FrameCheck([None], [("pins", [], (0, _guards.base_signature(fresh)))])
    assert own({}, torch.zeros(3)) and not own({}, torch.zeros(4)) and not own({}, torch.zeros(9)[:3])


def test_partition_fact_follows_its_guard_and_memo():
    """Two views of one buffer guarded to stay disjoint: the answer changes
    with the offsets and the storages, also once the memo has seen them."""
    guards = [{"kind": "storage_overlap", "overlapping": [], "non_overlapping": ["L['a']", "L['b']"]}]
    fact = ("partition", [0, 1], False, False, ["L['a']", "L['b']"], json.dumps(guards))
    check = _native.FrameCheck([None, None], [fact])
    x = torch.zeros(20)
    for _ in range(2):
        assert check({}, x[0:5], x[5:10])
        assert not check({}, x[0:5], x[4:9])
        # The group left its one storage: the partition is not the one
        # compiled for; the frame recompiles (conservative).
        assert not check({}, x[0:5], torch.zeros(20)[4:9])


def test_counters_count_every_call_and_its_time():
    _native.reset_check_counters()
    ts = [torch.zeros(2), torch.zeros(2)]
    check = _native.FrameCheck([None, None], [("cross", [0, 1], [0, 1], [True, False])])
    for _ in range(5):
        assert check({}, *ts)
    x = torch.zeros(4)
    assert not check({}, x[:2], x[1:3])
    calls, failures, nanos = _native.check_counters()
    assert (calls, failures) == (6, 1) and nanos > 0


@pytest.mark.parametrize(
    ("name", "steps"),
    [
        ("L['a']", [("item", "a")]),
        ("L['params'][3]", [("item", "params"), ("item", 3)]),
        ("L['self'].w", [("item", "self"), ("attr", "w")]),
        (
            "L['self']._modules['lin']._parameters['weight']",
            [("item", "self"), ("attr", "_modules"), ("item", "lin"), ("attr", "_parameters"), ("item", "weight")],
        ),
        ("G['x']", None),
        ("L['a'][1:2]", None),
        ("f(L['a'])", None),
        ("L", None),
    ],
)
def test_paths_from_the_frame_locals(name, steps):
    assert _guards.path(name) == steps


def test_paths_fetch_what_the_names_evaluate_to():
    class M:
        pass

    m = M()
    m.w = torch.zeros(3)  # type: ignore[attr-defined]
    locals_ = {"params": [torch.zeros(2), torch.zeros(2)], "self": m}
    names = ["L['params'][1]", "L['self'].w"]
    paths = [_guards.path(n) for n in names]
    # The same tensor twice by two paths: one storage.
    check = _native.FrameCheck([*paths, None], [("one_storage", [0, 2]), ("cross", [0, 1], [0, 1], [True, True])])
    assert check(locals_, locals_["params"][1])
    assert check.failing(locals_, locals_["params"][0]) == 0


@pytest.mark.parametrize(
    "changed",
    [
        {},  # every name is gone
        {"params": [torch.zeros(2)], "self": None},  # a shorter list; None for a module
        {"params": [torch.zeros(2), 3], "self": 7},  # ints where tensors were
        {"params": "ab", "self": object()},  # a string; an object without the attribute
    ],
    ids=["gone", "shorter", "ints", "other_types"],
)
def test_a_changed_frame_fails_the_fact_and_never_raises(changed):
    """A guard never raises: where a later call changed the frame's
    structure, the facts that read the changed values fail (a recompile
    whose reason names the fact), counted as failures."""
    names = ["L['params'][1]", "L['self'].w"]
    check = _native.FrameCheck(
        [_guards.path(n) for n in names],
        [("cross", [0, 1], [0, 1], [True, True]), ("no_self_overlap", [1])],
    )
    _native.reset_check_counters()
    assert check(changed) is False
    assert check.failing(changed) == 0
    assert not check.fact_holds(0, changed) and not check.fact_holds(1, changed)
    assert _native.check_counters()[:2] == (1, 1)


def test_why_names_the_failed_fact_of_a_changed_frame():
    """The recompile reason of a multi-fact frame, evaluated as torch does on
    a frame whose tensor became ``None``: the words of the fact that reads it."""
    facts = _guards.FrameFacts(
        [_Src("L['a']"), _Src("L['b']")],
        [("one_storage", [0, 1]), ("no_self_overlap", [1])],
        [None, None],
        ["first fact", "second fact"],
    )
    builder = _Builder()
    facts.install(builder, True)
    (code,), verbose, closure = builder.added
    ok = {"a": torch.zeros(2), "b": torch.zeros(2)}
    ok["b"] = ok["a"][:1]
    assert eval(code, dict(closure), {"L": ok})
    changed = {"a": ok["a"], "b": None}
    assert not eval(code, dict(closure), {"L": changed})
    said = [eval(v, {}, {"L": changed}) for v in verbose]
    assert said == ["first fact", "second fact"]
    assert [eval(v, {}, {"L": {**ok, "b": ok["a"].as_strided((2,), (0,))}}) for v in verbose] == [True, "second fact"]


class _Src:
    """A source as torch's guard builder sees it: a name."""

    def __init__(self, name: str) -> None:
        self.name = name


class _Builder:
    """What ``FrameFacts.install`` calls on torch's guard builder."""

    def add_python_lambda_leaf_guard_to_root(self, code, verbose, closure_vars):
        self.added = (code, verbose, closure_vars)


def test_bad_facts_are_refused_naming_the_fact():
    with pytest.raises(_native.InputError, match="out of range"):
        _native.FrameCheck([None], [("one_storage", [0, 1])])
    with pytest.raises(_native.InputError, match="unknown kind"):
        _native.FrameCheck([None], [("nope", [0])])
    # The guard's code passing the wrong count is no frame's value: the
    # check fails (a guard never raises).
    assert _native.FrameCheck([None, None], [("one_storage", [0, 1])])({}, torch.zeros(1)) is False


def test_stats_count_the_cross_storage_check(fresh_torch):
    """A frame without any shared storage but with mutation gets the
    cross-storage check: counted, with its time."""

    def f(a, b):
        a.add_(1)
        return b * 2

    st.install()
    g = torch.compile(f, backend="aot_eager")
    for _ in range(3):
        g(torch.zeros(4), torch.zeros(4))
    assert st.stats.frames_guarded == 1 and st.stats.frames_compiled == 1
    assert st.stats.guard_checks >= 2 and st.stats.guard_check_seconds > 0
    x = torch.zeros(8)
    g(x[:4], x[2:6])  # now aliased: the check fails, the frame recompiles
    assert st.stats.guard_failures >= 1 and st.stats.frames_compiled == 2
