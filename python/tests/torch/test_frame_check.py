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
from symalias.torch._layout import base_signature

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick


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
        cross = _native.CrossStorageCheck(members=list(range(n)), groups=groups, mutated=mutated)
        check = _native.FrameCheck([None] * n, [cross])
        assert check({}, *ts) == cross_reference(ts, groups, mutated)


def test_one_storage_and_pins_agree_with_their_statements():
    rng = random.Random(11)
    for _ in range(2000):
        n = rng.randint(1, 6)
        ts = random_frame(rng, n)
        one = _native.FrameCheck([None] * n, [_native.OneStorageCheck(members=list(range(n)))])
        assert one({}, *ts) == (len({storage(t) for t in ts}) == 1)
        pins = [(i, rng.randint(0, 3) + ts[i].storage_offset() - 1) for i in range(n) if rng.random() < 0.7]
        pin = _native.FrameCheck([None] * n, [_native.PinCheck(offsets=pins)])
        assert pin({}, *ts) == all(ts[i].storage_offset() == o for i, o in pins)


def test_static_base_signature_is_pinned():
    x = torch.zeros(10)
    a = x[2:5]
    sig = base_signature(a)
    check = _native.FrameCheck([None], [_native.PinCheck(offsets=[], base_member=0, **sig)])
    assert check({}, a)
    assert check({}, torch.zeros(10)[2:5])  # another buffer, same base layout
    assert not check({}, torch.zeros(12)[2:5])  # the base's size differs
    assert not check({}, torch.zeros(10, dtype=torch.float64)[2:5])  # its dtype differs
    fresh = torch.zeros(3)
    own = _native.FrameCheck([None], [_native.PinCheck(offsets=[], base_member=0, **base_signature(fresh))])
    assert own({}, torch.zeros(3)) and not own({}, torch.zeros(4)) and not own({}, torch.zeros(9)[:3])


def test_partition_fact_follows_its_guard_and_memo():
    """Two views of one buffer guarded to stay disjoint: the answer changes
    with the offsets and the storages, also once the memo has seen them."""
    guards = [{"kind": "storage_overlap", "overlapping": [], "non_overlapping": ["L['a']", "L['b']"]}]
    partition = _native.PartitionCheck(
        members=[0, 1], merged=False, symbolic=False, names=["L['a']", "L['b']"], guards=json.dumps(guards)
    )
    check = _native.FrameCheck([None, None], [partition])
    x = torch.zeros(20)
    for _ in range(2):
        assert check({}, x[0:5], x[5:10])
        assert not check({}, x[0:5], x[4:9])
        # The group left its one storage: the partition is not the one
        # compiled for; the frame recompiles (conservative).
        assert not check({}, x[0:5], torch.zeros(20)[4:9])


def test_partition_check_takes_the_decision_as_it_is():
    """``PartitionCheck(decision=...)`` takes a ``Decision``'s partition
    guards as they are (no JSON between them): it checks what the one made
    from the same guards' text checks, pickles to that text, and the two
    ways of giving the guards exclude each other."""
    import pickle

    x = torch.zeros(20)
    names = ["L['a']", "L['b']", "L['c']"]
    decision = _native.decide([x[0:5], x[5:10], x[9:14]], names)
    assert decision.overlapping == [1, 2]
    typed = _native.PartitionCheck(members=[0, 1, 2], merged=False, symbolic=False, names=names, decision=decision)
    text = _native.PartitionCheck(members=[0, 1, 2], merged=False, symbolic=False, names=names, guards=typed.guards)
    assert json.loads(typed.guards) == [
        {"kind": "storage_overlap", "overlapping": ["L['b']", "L['c']"], "non_overlapping": ["L['a']"]}
    ]
    again = pickle.loads(pickle.dumps(typed))
    calls = [(x[0:5], x[5:10], x[9:14]), (x[0:5], x[4:9], x[9:14]), (x[0:5], x[6:11], x[12:17])]
    for check in (typed, text, again):
        frame = _native.FrameCheck([None, None, None], [check])
        assert [frame({}, *c) for c in calls] == [True, False, False]
    with pytest.raises(_native.InputError, match=r"PartitionCheck.decision"):
        _native.PartitionCheck(members=[0], merged=False, symbolic=False, names=["a"], decision=decision, guards="[]")
    with pytest.raises(_native.InputError, match=r"PartitionCheck.decision"):
        _native.PartitionCheck(members=[0], merged=False, symbolic=False, names=["a"])


def test_counters_count_every_call_and_its_time():
    _native.reset_check_counters()
    ts = [torch.zeros(2), torch.zeros(2)]
    check = _native.FrameCheck(
        [None, None], [_native.CrossStorageCheck(members=[0, 1], groups=[0, 1], mutated=[True, False])]
    )
    for _ in range(5):
        assert check({}, *ts)
    x = torch.zeros(4)
    assert not check({}, x[:2], x[1:3])
    calls, failures, nanos = _native.check_counters()
    assert (calls, failures) == (6, 1) and nanos > 0


def _sources():
    from torch._dynamo import source as S

    L = S.LocalSource
    return [
        (L("a"), [("item", "a")]),
        (S.GetItemSource(L("params"), 3), [("item", "params"), ("item", 3)]),
        (S.ListGetItemSource(L("params"), 3), [("item", "params"), ("item", 3)]),
        (S.AttrSource(L("self"), "w"), [("item", "self"), ("attr", "w")]),
        (
            S.DictGetItemSource(
                S.AttrSource(S.DictGetItemSource(S.AttrSource(L("self"), "_modules"), "lin"), "_parameters"), "weight"
            ),
            [("item", "self"), ("attr", "_modules"), ("item", "lin"), ("attr", "_parameters"), ("item", "weight")],
        ),
        (S.AttrSource(S.NNModuleSource(L("self")), "w"), [("item", "self"), ("attr", "w")]),
        (S.GlobalSource("x"), None),
        (S.GetItemSource(L("a"), slice(1, 2)), None),
        (S.GetItemSource(L("a"), 1.5), None),
        (S.TensorPropertySource(L("a"), S.TensorProperty.SIZE, 0), None),
    ]


@pytest.mark.parametrize("k", range(len(_sources())))
def test_paths_walk_the_source_chain(k):
    """A source's steps from the frame's locals come from its chain (never
    from its printed name); a link that is no plain item or attribute step
    leaves the value to the guard's code."""
    from symalias.torch._torch import gateway

    source, steps = _sources()[k]
    assert gateway.path(source) == steps


def test_paths_fetch_what_the_sources_evaluate_to():
    from torch._dynamo import source as S

    from symalias.torch._torch import gateway

    class M:
        pass

    m = M()
    m.w = torch.zeros(3)  # type: ignore[attr-defined]
    locals_ = {"params": [torch.zeros(2), torch.zeros(2)], "self": m}
    sources = [S.GetItemSource(S.LocalSource("params"), 1), S.AttrSource(S.LocalSource("self"), "w")]
    paths = [gateway.path(s) for s in sources]
    # The same tensor twice by two paths: one storage.
    check = _native.FrameCheck(
        [*paths, None],
        [
            _native.OneStorageCheck(members=[0, 2]),
            _native.CrossStorageCheck(members=[0, 1], groups=[0, 1], mutated=[True, True]),
        ],
    )
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
    check = _native.FrameCheck(
        [[("item", "params"), ("item", 1)], [("item", "self"), ("attr", "w")]],
        [
            _native.CrossStorageCheck(members=[0, 1], groups=[0, 1], mutated=[True, True]),
            _native.NoSelfOverlapCheck(members=[1]),
        ],
    )
    _native.reset_check_counters()
    assert check(changed) is False
    assert check.failing(changed) == 0
    assert not check.check_holds(0, changed) and not check.check_holds(1, changed)
    assert _native.check_counters()[:2] == (1, 1)


def test_why_names_the_failed_fact_of_a_changed_frame():
    """The recompile reason of a multi-fact frame, evaluated as torch does on
    a frame whose tensor became ``None``: the words of the fact that reads it."""
    facts = _guards.FrameFacts(
        [_Src("L['a']"), _Src("L['b']")],
        [_native.OneStorageCheck(members=[0, 1]), _native.NoSelfOverlapCheck(members=[1])],
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
    scope = {_guards.WHY: _guards.why}  # what torch adds to its closure variables
    said = [eval(v, {}, {"L": changed, **scope}) for v in verbose]
    assert said == ["first fact", "second fact"]
    moved = {"L": {**ok, "b": ok["a"].as_strided((2,), (0,))}, **scope}
    assert [eval(v, {}, moved) for v in verbose] == [True, "second fact"]


class _Src:
    """A source as torch's guard builder sees it: a name."""

    def __init__(self, name: str) -> None:
        self.name = name


class _Builder:
    """What ``FrameFacts.install`` calls on torch's guard builder."""

    def add_python_lambda_leaf_guard_to_root(self, code, verbose, closure_vars):
        self.added = (code, verbose, closure_vars)


def test_bad_checks_are_refused_naming_the_class_and_field():
    with pytest.raises(_native.InputError, match=r"OneStorageCheck.members.*out of range"):
        _native.FrameCheck([None], [_native.OneStorageCheck(members=[0, 1])])
    with pytest.raises(_native.InputError, match=r"OneStorageCheck.members.*no members"):
        _native.OneStorageCheck(members=[])
    with pytest.raises(_native.InputError, match=r"PartitionCheck.names"):
        _native.PartitionCheck(members=[0, 1], merged=False, symbolic=False, names=["a"], guards="[]")
    with pytest.raises(_native.InputError, match=r"PartitionCheck.guards"):
        _native.PartitionCheck(members=[0], merged=False, symbolic=False, names=["a"], guards='[{"kind": "x"}]')
    with pytest.raises(_native.InputError, match=r"PinCheck.base_member"):
        _native.PinCheck(offsets=[], base_member=0)
    with pytest.raises(_native.InputError, match=r"CrossStorageCheck.groups"):
        _native.CrossStorageCheck(members=[0, 1], groups=[0, 2], mutated=[True, False])
    with pytest.raises(TypeError):
        _native.FrameCheck([None], [("one_storage", [0])])  # no positional tuples
    with pytest.raises(TypeError):
        _native.OneStorageCheck([0])  # keywords only
    # The guard's code passing the wrong count is no frame's value: the
    # check fails (a guard never raises).
    assert _native.FrameCheck([None, None], [_native.OneStorageCheck(members=[0, 1])])({}, torch.zeros(1)) is False


def test_checks_pickle_as_what_they_were_made_of():
    """A saved artifact carries its checks: each kind pickles to an equal
    check (its fields) that checks the same."""
    import pickle

    checks = [
        _native.OneStorageCheck(members=[0, 1]),
        _native.PartitionCheck(
            members=[0, 1],
            merged=True,
            symbolic=False,
            names=["a", "b"],
            guards=json.dumps([{"kind": "storage_overlap", "overlapping": [], "non_overlapping": ["a", "b"]}]),
        ),
        _native.PinCheck(offsets=[(0, 3)], base_member=1, **base_signature(torch.zeros(8)[2:4])),
        _native.PinCheck(offsets=[], base_member=0, storage_nbytes=32),
        _native.CrossStorageCheck(members=[0, 1], groups=[0, 1], mutated=[True, False]),
        _native.NoSelfOverlapCheck(members=[1]),
    ]
    import inspect

    def fields(c):
        """The check's fields: its class's native getters."""
        return [n for n, v in vars(type(c)).items() if inspect.isgetsetdescriptor(v) and not n.startswith("__")]

    assert len(fields(checks[3])) == 7  # PinCheck: offsets, base member, storage size, base layout
    for c in checks:
        back = pickle.loads(pickle.dumps(c))
        assert type(back) is type(c)
        assert fields(c), c
        for f in fields(c):
            assert getattr(back, f) == getattr(c, f), (c, f)
    x = torch.zeros(8)
    args = (x[3:4], x[2:4])
    for c in checks:
        assert _native.FrameCheck([None, None], [c])({}, *args) == _native.FrameCheck(
            [None, None], [pickle.loads(pickle.dumps(c))]
        )({}, *args)


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


def test_checks_of_another_form_never_pass():
    """A saved artifact whose checks are not this symalias's classes (an
    older version's tuples) gets a guard that never passes, with the
    reason why -- never an unchecked frame, never an error at load."""
    facts = _guards.FrameFacts([_Src("L['a']")], [("one_storage", [0])], [None], ["old words"])
    builder = _Builder()
    facts.install(builder, True)
    code, verbose, closure = builder.added
    assert code == ["False"] and verbose == [_guards.OUTDATED] and closure == {}


def test_recorders_hand_over_this_evaluation_s_tensors_and_never_stale_ones():
    """A recorder's tensor is taken only in the evaluation it was recorded
    in (``begin`` opens one); a slot its recorder skipped is fetched --
    here through the thunk of passed tensors, evaluated only then."""
    a, b = torch.zeros(4), torch.zeros(4)
    check = _native.FrameCheck(
        [None, [("item", "y")]],
        [_native.CrossStorageCheck(members=[0, 1], groups=[0, 1], mutated=[True, True])],
        lazy=True,
    )
    begin, rec0, rec1 = check.begin(), check.recorder(0), check.recorder(1)
    thunked = []

    def thunk(t: Any) -> Any:
        return lambda L: thunked.append(t) or (t,)

    # Both recorded: the check reads them, the thunk is never called.
    assert begin(None) is True and rec0(a) is True and rec1(b) is True
    assert check({"y": b}, thunk(a)) and check.recorded == 2 and thunked == []
    # Recorded a[1:] and a (aliased), yet the locals say otherwise: the
    # recorded ones are what this evaluation read.
    begin(None), rec0(a), rec1(a[1:])
    assert not check({"y": b}, thunk(a)) and check.recorded == 2
    # A recorder left stale by a failed evaluation (no check ran after it),
    # then skipped: the slot is fetched, never the stale tensor.
    begin(None), rec0(a)
    begin(None), rec1(b)
    assert check({"y": b}, thunk(torch.zeros(2))) and check.recorded == 1 and len(thunked) == 1
    assert not check({"y": b}, thunk(b)) and check.recorded == 0
    with pytest.raises(ValueError, match="no tensor 2"):
        check.recorder(2)


def test_a_compiled_frame_reads_every_tensor_where_dynamo_reads_it(fresh_torch):
    """An optimizer step (its momentum buffers keyed by parameter: sources
    no path reaches) takes every tensor from Dynamo's guard tree; a changed
    aliasing still fails the check and recompiles."""
    st.install()
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(2, 4)

    def step():
        model(x).sum().backward()
        opt.step()
        opt.zero_grad(set_to_none=False)

    g = torch.compile(step, backend="aot_eager")
    for _ in range(4):
        g()
    rec0, fetched0 = _native.tensor_counters()
    calls0 = st.stats.guard_checks
    for _ in range(5):
        g()
    rec, fetched = _native.tensor_counters()
    assert st.stats.guard_checks > calls0
    assert fetched == fetched0 and rec - rec0 >= 5 * 12  # params, grads, buffers
    assert st.stats.guard_tensors_recorded == rec and st.stats.guard_tensors_fetched == fetched
    # One momentum buffer now shares a parameter's storage (the same
    # tensor object, sizes and strides: only symalias's check sees it).
    failures = st.stats.guard_failures
    p0 = next(iter(model.parameters()))
    buf = opt.state[p0]["momentum_buffer"]
    with torch.no_grad():
        buf.set_(p0.untyped_storage(), p0.storage_offset(), p0.shape, p0.stride())
    g()
    assert st.stats.guard_failures > failures


def test_another_thread_s_evaluation_never_hands_over_its_tensors():
    """Each thread's evaluation has its own number: a tensor another
    thread recorded in the same slot (its evaluation failing before its
    check ran, or the GIL passing between guards) is fetched, not taken."""
    import threading

    a, b = torch.zeros(4), torch.zeros(4)
    check = _native.FrameCheck(
        [None, None],
        [_native.CrossStorageCheck(members=[0, 1], groups=[0, 1], mutated=[True, True])],
        lazy=True,
    )
    begin, rec0, rec1 = check.begin(), check.recorder(0), check.recorder(1)
    begin(None), rec1(b)
    other = threading.Thread(target=lambda: (begin(None), rec0(b)))
    other.start()
    other.join()
    # Slot 0 holds b, stamped by the other thread: this check fetches a.
    assert check({}, lambda L: (a, b)) and check.recorded == 1


def test_the_epilogue_builtin_fails_a_passed_tensor_that_was_not_recorded():
    """The check as Dynamo's epilogue leaf takes the locals alone: a
    tensor reached by path is fetched when not recorded, a passed one
    (no path, no thunk) fails the check instead of being guessed."""
    a = torch.zeros(4)
    check = _native.FrameCheck(
        [None, [("item", "y")]],
        [_native.CrossStorageCheck(members=[0, 1], groups=[0, 1], mutated=[True, True])],
        lazy=True,
    )
    begin, rec0, epilogue = check.begin(), check.recorder(0), check.epilogue()
    begin(None), rec0(a)
    assert epilogue({"y": torch.zeros(4)}) is True and check.recorded == 1
    begin(None), rec0(a)
    assert epilogue({"y": a[1:]}) is False
    begin(None)
    calls, failures, _ = _native.check_counters()
    assert epilogue({"y": torch.zeros(4)}) is False
    assert _native.check_counters()[:2] == (calls + 1, failures + 1)


def test_what_recorders_read_gives_the_answers_of_reading_at_the_check():
    """Recorders read each tensor's storage and offset as Dynamo's tree
    hands it over; on 500 random frames the check's answers from those
    reads equal its answers reading the same tensors itself."""
    rng = random.Random(11)
    for _ in range(500):
        ts = random_frame(rng, rng.randint(2, 6))
        n = len(ts)
        groups = [rng.randrange(n) for _ in range(n)]
        mutated = [rng.random() < 0.5 for _ in range(n)]
        checks = [
            _native.CrossStorageCheck(members=list(range(n)), groups=groups, mutated=mutated),
            _native.OneStorageCheck(members=list(range(n))),
            _native.PinCheck(offsets=[(k, t.storage_offset() + rng.randint(0, 1)) for k, t in enumerate(ts)]),
        ]
        check = _native.FrameCheck([None] * n, checks, lazy=True)
        epilogue, begin = check.epilogue(), check.begin()
        recorders = [check.recorder(k) for k in range(n)]
        begin(None)
        for r, t in zip(recorders, ts):
            r(t)
        expected = check.failing({}, *ts) is None
        assert epilogue({}) is expected and check.recorded == n
