"""The facts: what a compiled graph relies on about its inputs, each about
the tensors its Dynamo ``sources`` name, each with the native check that
tests it on a call (``check``) and its words (``verbose``, the recompile
reason when it fails).

* ``PartitionFact`` (H2): which members of a storage group overlap -- the
  fact torch's ``StorageOverlap`` guard checks, with symalias's exact
  checker (``PartitionCheck``; ``OneStorageCheck`` for a merged group that
  needs no more); its failure reads as torch's:
  ``check_overlapping(overlapping=[a, b], non_overlapping=[c, d])``.
* ``PinFact``: what a compiled graph bakes in and torch guards nowhere --
  integer storage offsets and a static synthetic base's layout.
* ``CrossStorageFact`` (H3): no mutated input shares its storage with an
  input that was in another storage at compile time.
* ``NoSelfOverlapFact``: no mutated input overlaps itself where that was
  not proved for all shapes.
* ``AddressFact`` (H11): two inputs' addresses compare as user code
  compared them when the frame was compiled.

Part of the pure core: values, built without side effects (equal inputs
make equal facts); ``_compile.Compile.adopt`` is where one joins a frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from .. import _native
from ._layout import source_name
from ._torch import gateway

#: A fact's native check (the classes of ``symalias._native``).
Check = Any

#: The native check classes (a saved artifact holding another is outdated).
CHECKS = (
    _native.OneStorageCheck,
    _native.PartitionCheck,
    _native.PinCheck,
    _native.CrossStorageCheck,
    _native.NoSelfOverlapCheck,
    _native.AddressCheck,
)


class Fact:
    """What every fact has: the sources it is about (None: unknown, it
    cannot be checked and is not installed), its check and its words."""

    sources: tuple[Any, ...] | None
    #: About a storage group (counted in ``lifetime.frames_group_guarded``).
    grouped = True

    def check(self, idx: list[int]) -> Check | None:
        """The check, members at frame slots ``idx`` (None: nothing to check
        while the ShapeEnv's guards hold)."""
        raise NotImplementedError

    def premised(self, idx: list[int]) -> Check | None:
        """What replaces ``check`` where a guard filter dropped the
        ShapeEnv's guards (None: the same)."""
        return None

    def verbose(self) -> str:
        raise NotImplementedError

    def _key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fact) and type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.verbose()!r})"


def _sources(sources: Sequence[Any] | None) -> tuple[Any, ...] | None:
    return tuple(sources) if sources is not None else None


class PartitionFact(Fact):
    """Which members of a storage group overlap (and, for a merged group,
    that they still share one storage)."""

    def __init__(
        self,
        sources: Sequence[Any] | None,
        names: list[str],
        decision: Any,
        merged: bool,
        proved: bool,
        symbolic: bool,
    ) -> None:
        self.sources = _sources(sources)
        self.names = names
        self.merged = merged
        self.symbolic = symbolic
        self.overlapping = list(decision.overlapping) if decision is not None else list(range(len(names)))
        # The classification itself: nothing when proved for all shapes
        # (pinned layouts keep the proof's premises); symalias's partition
        # guard otherwise (the decision's StorageOverlap guards, or its
        # partition by source). A conservative (undecided) merge is right
        # for any pattern, so it only needs the one storage.
        self.decision: Any = decision if (decision is not None and not proved) else None
        #: A proof for all shapes over symbolic layouts: it assumes the
        #: ShapeEnv's guards, so it is checked where a filter drops them.
        self.proof: Any = decision if (decision is not None and proved and symbolic) else None

    def _key(self) -> tuple[Any, ...]:
        # What ``describe`` and the checks are made of (no native call).
        has = (self.decision is not None, self.proof is not None)
        return (self.sources, tuple(self.names), self.merged, self.symbolic, tuple(self.overlapping), has)

    def needed(self) -> bool:
        # A split group in two storages stays disjoint: the one-storage
        # check matters only for a merged group.
        return self.merged or self.decision is not None or self.proof is not None

    def verbose(self) -> str:
        """torch's wording of the same fact (its StorageOverlap guard),
        rendered by the engine."""
        ov = set(self.overlapping)
        guard = {
            "kind": "storage_overlap",
            "overlapping": [self.names[i] for i in sorted(ov)],
            "non_overlapping": [n for i, n in enumerate(self.names) if i not in ov],
        }
        return str(_native.render_guards([guard])[0])

    def describe(self) -> list[str]:
        words = []
        if self.merged:
            words.append(f"{', '.join(self.names)} share one storage")
        if self.decision is not None:
            words.append(f"{self.verbose()} by symalias")
        if self.proof is not None:
            words.append(f"{self.verbose()} by symalias where a guard filter drops the ShapeEnv's guards")
        return words

    def check(self, idx: list[int]) -> Check | None:
        if self.decision is not None:
            return self._partition(idx, self.decision)
        return _native.OneStorageCheck(members=idx) if self.merged else None

    def premised(self, idx: list[int]) -> Check | None:
        return self._partition(idx, self.proof) if self.proof is not None else None

    def _partition(self, idx: list[int], decision: Any) -> Check:
        return _native.PartitionCheck(
            members=idx,
            merged=self.merged,
            symbolic=self.symbolic,
            names=self.names,
            decision=decision,
        )


class PinFact(Fact):
    """Integer storage offsets (and a static synthetic base's layout) that a
    compiled graph bakes in; torch guards neither."""

    def __init__(
        self,
        sources: Sequence[Any] | None,
        names: list[str],
        pins: list[tuple[int, int]],
        base: dict[str, Any] | None,
    ) -> None:
        self.sources = _sources(sources)
        self.names = names
        self.pins = pins
        self.base = base

    def _key(self) -> tuple[Any, ...]:
        return (self.sources, tuple(self.names), tuple(self.describe()))

    def needed(self) -> bool:
        return bool(self.pins) or self.base is not None

    def describe(self) -> list[str]:
        words = []
        if self.pins:
            words.append("storage offsets " + ", ".join(f"{self.names[i]}={v}" for i, v in self.pins))
        if self.base is not None:
            words.append(f"synthetic base {self.base}")
        return words

    def verbose(self) -> str:
        return "symalias: " + "; ".join(self.describe())

    def check(self, idx: list[int]) -> Check:
        offsets = [(idx[i], off) for i, off in self.pins]
        if self.base is None:
            return _native.PinCheck(offsets=offsets)
        return _native.PinCheck(offsets=offsets, base_member=idx[0], **self.base)


class CrossStorageFact(Fact):
    """No mutated input shares its storage with an input that was in another
    storage at compile time."""

    VERBOSE = "symalias: no mutated input aliases an input of another storage"
    grouped = False

    def __init__(self, sources: Sequence[Any] | None, groups: list[int], mutated: list[bool]) -> None:
        self.sources = _sources(sources)
        self.groups = groups
        flags = [False] * (max(groups) + 1 if groups else 0)
        for g, m in zip(groups, mutated):
            flags[g] = flags[g] or m
        self.mutated_groups = flags

    def _key(self) -> tuple[Any, ...]:
        return (self.sources, tuple(self.groups), tuple(self.mutated_groups))

    def verbose(self) -> str:
        return self.VERBOSE

    def check(self, idx: list[int]) -> Check:
        return _native.CrossStorageCheck(members=idx, groups=self.groups, mutated=self.mutated_groups)


class NoSelfOverlapFact(Fact):
    """Mutated inputs that do not overlap themselves at the hints, where
    that was not proved for every shape: none overlaps itself at the call
    (else eager would write an element once per index, the graph once)."""

    def __init__(self, sources: Sequence[Any] | None, names: list[str]) -> None:
        self.sources = _sources(sources)
        self.names = names

    def _key(self) -> tuple[Any, ...]:
        return (self.sources, tuple(self.names))

    def verbose(self) -> str:
        return f"symalias: no self-overlap of mutated {', '.join(self.names)}"

    def check(self, idx: list[int]) -> Check:
        return _native.NoSelfOverlapCheck(members=idx)


#: How user code compared two inputs' addresses (``_address``).
Relation = Literal["data_ptr", "storage_data_ptr", "set_to", "alias_of"]


class AddressFact(Fact):
    """Two inputs' addresses compare as they did at compile time."""

    grouped = False

    def __init__(self, sources: Sequence[Any] | None, relation: Relation, expected: bool) -> None:
        self.sources = _sources(sources)
        self.relation = relation
        self.expected = expected

    def _key(self) -> tuple[Any, ...]:
        return (self.sources, self.relation, self.expected)

    def check(self, idx: list[int]) -> Check:
        return _native.AddressCheck(members=idx, relation=self.relation, expected=self.expected)

    def verbose(self) -> str:
        op = {"data_ptr": "data_ptr()", "storage_data_ptr": "untyped_storage().data_ptr()"}
        what = (
            f"the inputs' {op[self.relation]} {'equal' if self.expected else 'differ'}"
            if self.relation in op
            else f"{'is_set_to' if self.relation == 'set_to' else '_is_alias_of'} is {self.expected}"
        )
        return f"symalias: {what}, as when the frame was compiled"


def cross_storage_fact(
    sources: Sequence[Any], tensors: Sequence[Any], mutated: Sequence[bool]
) -> CrossStorageFact | None:
    """H3's fact for a frame's tensors, when some input is mutated and they
    span two storages or more; else None (nothing to keep)."""
    if len(tensors) < 2 or not any(mutated):
        return None
    group_of: dict[int, int] = {}
    groups = [group_of.setdefault(gateway.storage_id(t), len(group_of)) for t in tensors]
    if len(group_of) < 2:
        return None
    return CrossStorageFact(sources, groups, list(mutated))


def no_self_overlap_fact(sources: Sequence[Any], positions: Sequence[int]) -> NoSelfOverlapFact | None:
    """The self-overlap fact on the mutated inputs at ``sources`` (flat
    positions ``positions``, for the wording), when there are any."""
    if not sources:
        return None
    return NoSelfOverlapFact(sources, [f"input {i}" for i in positions])


def names_of(sources: Sequence[Any] | None, labels: Sequence[str]) -> list[str]:
    """The members' names: their sources', else the labels."""
    return [source_name(s) for s in sources] if sources else list(labels)
