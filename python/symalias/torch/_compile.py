"""The record of the backend compile in progress (one per
``OutputGraph.call_user_compiler`` call, per thread) and the one place a
decision takes effect (``Compile.adopt``).

A decision is a value (``_decision.decide`` computes a ``GroupDecision``
without side effects); ``Compile.adopt`` applies it: the facts that keep it
true join the compile's frame check, the layouts the check holds disjoint
are recorded for Inductor's reinplace pass, and the decision is counted and
reported. Every entrance that decides (AOTAutograd's hook, wrapper
subclasses, byte-level merges, an AOTAutograd cache hit) calls the two.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import _torch, _trace
from ._guards import FrameGuards
from ._state import GroupReport, lock, log, stats

if TYPE_CHECKING:
    from ._decision import GroupDecision

#: Version of what a cache entry's recipe means; bump when the decision or
#: the guards derived from it change, so entries of older versions miss.
RECIPE_VERSION = 2


class EagerFallback(Exception):
    """Raised inside AOTAutograd to make Dynamo run a frame eagerly; carries
    the reason (one line)."""

    def __init__(self, reason: str, *, dtypes: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.dtypes = dtypes


@dataclass
class Recipe:
    """What symalias needs to re-install its guards for a compiled graph,
    by position in AOTAutograd's flat arguments: which inputs the graph
    mutates (``None``: none, or the merge step did not run) and how many
    synthetic bases the merge made (they come first among the graph's
    inputs)."""

    mutated: list[bool] | None = None
    bases: int = 0
    #: Why this compile must not be saved in AOTAutograd's cache ("": it
    #: may be): a byte-level base (a hit would rebuild torch's run-time
    #: wrapper, not symalias's), or an output that runs eagerly when
    #: compiled (the entry is saved before that is found).
    unsaved: str = ""

    @property
    def merged(self) -> bool:
        """Some storage group was merged into a synthetic base."""
        return self.bases > 0

    def to_doc(self) -> dict[str, Any]:
        return {"version": RECIPE_VERSION, "mutated": self.mutated, "bases": self.bases}

    @staticmethod
    def from_doc(doc: Any) -> Recipe | None:
        """The recipe of a cache entry, or None when it was not made by this
        recipe version."""
        if not isinstance(doc, dict) or doc.get("version") != RECIPE_VERSION:
            return None
        mutated = doc.get("mutated")
        if mutated is not None and not (isinstance(mutated, list) and all(isinstance(m, bool) for m in mutated)):
            return None
        bases = doc.get("bases")
        if not isinstance(bases, int) or isinstance(bases, bool) or bases < 0:
            return None
        return Recipe(mutated=mutated, bases=bases)


@dataclass
class ByteBases:
    """What the byte-level merge (``_bytes``) made in one compile: the
    synthetic bases it built and the members regenerated from them."""

    #: base index -> whether its bytes start at the storage's first
    byte_bases: dict[int, bool] = field(default_factory=dict)
    #: member id -> the first byte of its base (``_bytes.hull``)
    byte_members: dict[int, Any] = field(default_factory=dict)
    #: ids of members regenerated from their group's float autograd base in
    #: its units (``_regenerate.regenerate``: groups with gradients)
    unit_members: set[int] = field(default_factory=set)
    #: indices of the bases that are such a group's autograd base
    unit_bases: set[int] = field(default_factory=set)
    #: ids of members of torch's own (one-dtype) synthetic bases, which
    #: symalias regenerates at their own offset (``_regenerate.regenerate_member``)
    torch_members: set[int] = field(default_factory=set)
    #: synthetic bases (by index) at a storage offset other than 0, and that
    #: offset (an output viewing one runs eagerly: ``_bytes``)
    offset_bases: dict[int, Any] = field(default_factory=dict)


class Compile:
    """The compile in progress on this thread (``orphan``: a record for
    decisions made with no backend compile open, whose facts install at
    once)."""

    def __init__(self, *, orphan: bool = False) -> None:
        self.orphan = orphan
        #: AOTAutograd's flat arguments, when the cache path showed them.
        self.flat_args: Sequence[Any] | None = None
        self.recipe = Recipe()
        #: A storage group with a mutated member and another input was seen.
        self.aliased_mutation = False
        #: The user's ``view_replay_for_aliased_outputs``, while symalias
        #: holds it off for this compile's outputs of merged inputs.
        self.saved_view_replay: bool | None = None
        #: torch configs patched for the rest of this compile (``hold``).
        self._held = contextlib.ExitStack()
        #: The recipe of the cache entry being loaded (a hit in progress).
        self.loaded: Recipe | None = None
        self._positions: dict[int, int] | None = None
        #: The run-time facts adopted so far, installed as one guard when
        #: the compile succeeds (``_merge``).
        self.guards = FrameGuards()
        self.outer: Compile | None = None
        #: What the byte-level merge made (``_bytes``).
        self.bytes = ByteBases()
        #: Per storage group whose partition this compile's run-time check
        #: holds (or proved), the layouts (``_decision.layout_key``) of its
        #: non-overlapping members: disjoint on every call that runs the
        #: graph (read by Inductor's reinplace pass, ``_reinplace``).
        self.disjoint_layouts: list[frozenset[tuple[Any, ...]]] = []

    def position(self, fwd_inputs: Sequence[Any], i: int) -> int:
        """The flat-argument position of ``fwd_inputs[i]`` (AOTAutograd's
        deduplicated inputs): by identity when the flat arguments are known,
        else ``i`` (no duplicates were removed)."""
        if self.flat_args is None:
            return i
        if self._positions is None:
            self._positions = {}
            for p, a in enumerate(self.flat_args):
                self._positions.setdefault(id(a), p)
        return self._positions.get(id(fwd_inputs[i]), i)

    def adopt(self, d: GroupDecision) -> None:
        """Applies a group's decision -- the one place one takes effect: its
        facts join the frame's check (when there is a tracing context and
        the sources are known), the layouts its check holds disjoint are
        recorded for the reinplace pass, and it is counted and reported.
        A wrapper-subclass decision applies each of its storages' parts."""
        for part in d.parts:
            self.adopt(part)
        if d.parts:
            return
        if d.fallback is not None:
            log.warning(
                "symalias: cannot decide the overlap of %s (%s); treating them as overlapping",
                ", ".join(d.names),
                d.fallback,
            )
        tc = _torch.tracing_context()
        # Facts need a tracing context to join and sources to name.
        sources = d.sources if tc is not None else None
        if sources is not None:
            # The partition first: when both fail, torch's wording is the reason.
            for fact in (d.partition, d.pin):
                if fact.needed():
                    self.adopt_fact(tc, sources, fact)
            if d.disjoint_layouts is not None and not self.orphan:
                self.disjoint_layouts.append(d.disjoint_layouts)
        report = GroupReport(
            sources=list(d.names),
            overlapping=list(d.overlapping),
            invariant=d.native.invariant if (d.native is not None and d.symbolic) else None,
            symbolic=d.symbolic,
            decision=d.native,
            guard=d.partition.describe() + d.pin.describe() if sources is not None else [],
            fallback=d.fallback,
            from_cache=d.from_cache,
        )
        with lock:
            stats.decisions += 1
            stats.decision_seconds += d.seconds
            if d.native is not None and d.native.time_limit_hit:
                stats.time_limit_hits += 1
            stats.reports.append(report)
        _trace.group(report)

    def adopt_fact(self, tc: Any, sources: Sequence[Any], fact: Any) -> None:
        """Adds a run-time fact about the tensors at ``sources`` to the
        frame's check; an orphan record installs it at once."""
        if tc is None:
            return
        self.guards.add(sources, fact)
        if self.orphan:
            self.guards.install(tc, orphan=True)


class _Current(threading.local):
    """The compile in progress on this thread (None: none)."""

    compile: Compile | None = None


_local = _Current()


def current() -> Compile | None:
    """The compile in progress on this thread, if any."""
    return _local.compile


def record() -> Compile:
    """The compile in progress, or an orphan record (facts install at once)."""
    return current() or Compile(orphan=True)


def begin() -> Compile:
    """Opens the record of a backend compile (nested compiles stack)."""
    c = Compile()
    c.outer = current()
    _local.compile = c
    return c


def end(c: Compile) -> None:
    """Closes it: every config held for it is back, the outer record current."""
    c._held.close()
    c.saved_view_replay = None
    if _local.compile is c:
        _local.compile = c.outer


def hold(c: Compile, patch: Any) -> None:
    """Holds a torch config patch (``config.patch(...)``, a context
    manager) for the rest of compile ``c``."""
    c._held.enter_context(patch)


def hold_view_replay_off(c: Compile) -> None:
    """AOTAutograd replays an aliased output's recorded view steps on its base;
    for an input merged into a synthetic base that lands at the wrong storage
    offset (pytorch#198095). Regenerating from sizes, strides and offset
    (torch's own ``view_replay_for_aliased_outputs=False`` path) is right:
    held for the rest of this compile. Outputs of inputs that were not
    merged keep the user's setting (``_merge.wrap_alias_of_input``): there the
    replay is what keeps eager's strides."""

    if c.saved_view_replay is None:
        c.saved_view_replay = _torch.view_replay()
        hold(c, _torch.patch_view_replay(False))
