"""The decisions and the facts are values: the core (``_decision``,
``_facts``, ``_layout``) computes them without side effects -- the same
inputs give equal values and change no state -- and ``Compile.adopt``, the
one door, applies them (the facts join the frame's check, layouts are
recorded for the reinplace pass, the decision is counted and reported)."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator

import pytest

torch = pytest.importorskip("torch")

from torch._dynamo.source import LocalSource
from torch._guards import TracingContext, tracing

from symalias.torch import _compile, _decision, _facts, _layout, _state

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick


def _snapshot(c: _compile.Compile, tc: TracingContext) -> tuple[object, ...]:
    """Everything a decision or a fact could change."""
    return (
        copy.deepcopy({k: v for k, v in vars(_state.stats).items() if k != "reports"}),
        list(_state.stats.reports),
        c.facts(),
        list(c.disjoint_layouts),
        list(tc.guards_context.aotautograd_guards),
        dict(_state.frame_words),
        copy.copy(vars(_state.lifetime)),
        dict(_state.parked),
        dict(_state.orphans),
    )


@contextlib.contextmanager
def compiling() -> Iterator[tuple[_compile.Compile, TracingContext]]:
    """A compile record open under a tracing context of its own."""
    tc = TracingContext(None)
    c = _compile.begin()
    try:
        with tracing(tc):
            yield c, tc
    finally:
        _compile.end(c)


GROUPS = {
    # (members as slices of one 10-element buffer, the overlapping ones)
    "merged": ([(0, 4), (2, 6), (6, 10)], (0, 1)),
    "split": ([(0, 4), (6, 10)], ()),
}


def _group(spans):
    x = torch.zeros(10)
    tensors = [x[i:j] for i, j in spans]
    sources = [LocalSource(f"t{k}") for k in range(len(tensors))]
    labels = [f"input {k}" for k in range(len(tensors))]
    return x, tensors, sources, labels


def _constructors(x, tensors, sources, labels):
    """Every value the core makes, by name: a call each."""
    mutated = [True] + [False] * (len(tensors) - 1)
    other = torch.zeros(3)
    return {
        "decide_group": lambda: _decision.decide_group(tensors, sources, labels),
        "decide_group(byte_base)": lambda: _decision.decide_group(tensors, sources, labels, byte_base=True),
        "decide_group(from_cache)": lambda: _decision.decide_group(tensors, None, labels, from_cache=True),
        "self_overlap": lambda: _decision.self_overlap(tensors, mutated),
        "group_key": lambda: _decision.group_key(tensors, labels),
        "baked": lambda: _decision.baked(tensors),
        "overlapping_for_all_shapes": lambda: _decision.overlapping_for_all_shapes(tensors),
        "cross_storage_fact": lambda: _facts.cross_storage_fact(
            [*sources, LocalSource("o")], [*tensors, other], [*mutated, False]
        ),
        "no_self_overlap_fact": lambda: _facts.no_self_overlap_fact(sources[:1], [0]),
        "PartitionFact": lambda: _facts.PartitionFact(sources, labels, None, True, False, False),
        "PinFact": lambda: _facts.PinFact(sources, labels, [(0, 0)], _layout.base_signature(tensors[0])),
        "CrossStorageFact": lambda: _facts.CrossStorageFact(sources, [0, 1], [True, False]),
        "NoSelfOverlapFact": lambda: _facts.NoSelfOverlapFact(sources, labels),
        "AddressFact": lambda: _facts.AddressFact(sources[:2], "data_ptr", False),
        "storage_groups": lambda: _layout.storage_groups([*tensors, other]),
        "layout_key": lambda: _layout.layout_key(tensors[0]),
    }


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_every_value_of_the_core_twice_is_equal_and_changes_nothing(name):
    spans, _want = GROUPS[name]
    x, tensors, sources, labels = _group(spans)
    with compiling() as (c, tc):
        before = _snapshot(c, tc)
        for what, make in _constructors(x, tensors, sources, labels).items():
            first, second = make(), make()
            assert first == second, what
            assert first is not None, what
            assert _snapshot(c, tc) == before, f"{what} changed the state"


def test_facts_differ_where_their_inputs_do():
    """Equality is not vacuous: a fact about other sources, or another
    classification, is another fact."""
    _, tensors, sources, labels = _group(GROUPS["merged"][0])
    a = _facts.PartitionFact(sources, labels, None, True, False, False)
    assert a != _facts.PartitionFact(sources[::-1], labels, None, True, False, False)
    assert a != _facts.PartitionFact(sources, labels, None, False, False, False)
    assert _facts.AddressFact(sources[:2], "data_ptr", False) != _facts.AddressFact(sources[:2], "data_ptr", True)
    assert _decision.decide_group(tensors, sources, labels) != _decision.decide_group(
        tensors[:2], sources[:2], labels[:2]
    )


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_adopt_is_where_a_decision_takes_effect(name, monkeypatch):
    spans, want = GROUPS[name]
    _, tensors, sources, labels = _group(spans)
    with compiling() as (c, tc):
        first = _decision.decide_group(tensors, sources, labels)
        assert first.overlapping == want
        decisions = _state.stats.decisions
        c.adopt(first)
        assert _state.stats.decisions == decisions + 1
        assert _state.stats.reports[-1].overlapping == list(want)
        assert c.facts() == first.facts() and len(c.facts()) > 0
        if name == "split":  # the check holds the split: the pass may rely on it
            assert c.disjoint_layouts == [first.disjoint_layouts]
        else:
            assert c.disjoint_layouts == []
        # (No compiled frame: the process's lifetime counts stay as they are.)
        monkeypatch.setattr(_state, "lifetime", _state.Lifetime())
        guards = tc.guards_context.aotautograd_guards
        before = len(guards)
        c.seal(tc)
        assert [type(g).__name__ for g in guards[before:]] == ["FrameFacts"] and c.facts() == []


def test_the_cache_key_and_the_pins_read_one_rule():
    """What a merged static group's graph bakes in is pinned by its facts
    and carried by its cache key -- both from ``_decision.baked`` -- so a
    member at another offset changes both."""
    x = torch.zeros(12)
    a, b = [x[0:4], x[2:6]], [x[0:4], x[3:7]]
    labels = ["a", "b"]
    sources = [LocalSource("a"), LocalSource("b")]
    for group in (a, b):
        d = _decision.decide_group(group, sources, labels)
        baked = _decision.baked(group, d.native)
        assert d.pin.pins == [(i, o) for i, o in enumerate(baked.offsets) if o is not None]
        assert d.pin.base == baked.base
        assert _decision.group_key(group, labels)[2] == [list(baked.offsets), str(baked.base)]
    assert _decision.group_key(a, labels) != _decision.group_key(b, labels)


def test_an_undecidable_group_is_a_value_too(caplog):
    """A group the engine cannot decide is all overlapping, its reason in
    the value; deciding it logs and counts nothing."""
    x = torch.zeros(10)
    tensors = [x[0:4], x[6:10]]
    before = _state.stats.decisions
    d = _decision.decide_group(tensors, None, ["a", "b"])
    assert d.fallback is None and d.overlapping == ()
    bad = _decision.decide_group([x[0:4], torch.zeros(3)], None, ["a", "b"])
    assert bad.fallback is not None and "DifferentStoragesError" in bad.fallback
    assert bad.overlapping == (0, 1)
    assert _state.stats.decisions == before
    assert not [r for r in caplog.records if r.name == "symalias.torch"]
