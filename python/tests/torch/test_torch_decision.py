"""The decision is a value: ``_decision.decide`` computes a
``GroupDecision`` without side effects, ``Compile.adopt`` applies it (the
one place facts join the frame's check, layouts are recorded for the
reinplace pass and the decision is counted)."""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")

from torch._dynamo.source import LocalSource
from torch._guards import TracingContext, tracing

from symalias.torch import _compile, _decision, _state


def _snapshot(c: _compile.Compile, tc: TracingContext) -> tuple[object, ...]:
    """Everything a decision could change."""
    return (
        copy.deepcopy({k: v for k, v in vars(_state.stats).items() if k != "reports"}),
        list(_state.stats.reports),
        list(c.guards.facts),
        list(c.disjoint_layouts),
        list(tc.guards_context.aotautograd_guards),
        dict(_state.frame_words),
        copy.copy(vars(_state.lifetime)),
    )


GROUPS = {
    # (members as slices of one 10-element buffer, the overlapping ones)
    "merged": ([(0, 4), (2, 6), (6, 10)], (0, 1)),
    "split": ([(0, 4), (6, 10)], ()),
}


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_decide_twice_is_equal_and_changes_nothing(name):
    spans, want = GROUPS[name]
    x = torch.zeros(10)
    tensors = [x[i:j] for i, j in spans]
    sources = [LocalSource(f"t{k}") for k in range(len(tensors))]
    labels = [f"input {k}" for k in range(len(tensors))]
    tc = TracingContext(None)
    c = _compile.begin()
    try:
        with tracing(tc):
            before = _snapshot(c, tc)
            first = _decision.decide(tensors, sources, labels)
            second = _decision.decide(tensors, sources, labels)
            assert first == second
            assert first.overlapping == want
            assert _snapshot(c, tc) == before, "decide changed the state"
            # adopt is where it takes effect: the facts, the report, the layouts.
            decisions = _state.stats.decisions
            c.adopt(first)
            assert _state.stats.decisions == decisions + 1
            assert _state.stats.reports[-1].overlapping == list(want)
            assert len(c.guards.facts) == int(first.partition.needed()) + int(first.pin.needed()) > 0
            if name == "split":  # the check holds the split: the pass may rely on it
                assert c.disjoint_layouts == [first.disjoint_layouts]
            else:
                assert c.disjoint_layouts == []
    finally:
        _compile.end(c)


def test_an_undecidable_group_is_a_value_too(caplog):
    """A group the engine cannot decide is all overlapping, its reason in
    the value; deciding it logs and counts nothing."""
    x = torch.zeros(10)
    tensors = [x[0:4], x[6:10]]
    before = _state.stats.decisions
    d = _decision.decide(tensors, None, ["a", "b"])
    assert d.fallback is None and d.overlapping == ()
    bad = _decision.decide([x[0:4], torch.zeros(3)], None, ["a", "b"])
    assert bad.fallback is not None and "DifferentStoragesError" in bad.fallback
    assert bad.overlapping == (0, 1)
    assert _state.stats.decisions == before
    assert not [r for r in caplog.records if r.name == "symalias.torch"]
