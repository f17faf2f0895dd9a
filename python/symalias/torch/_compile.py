"""The record of the backend compile in progress (one per
``OutputGraph.call_user_compiler`` call, per thread), and the one door
through which facts reach a frame.

A decision is a value (``_decision.decide_group`` computes a
``GroupDecision`` without side effects, ``_facts`` builds the other facts);
``Compile.adopt`` applies it -- the one writer of a frame's facts
(``test_torch_layers.py`` keeps it so): the facts that keep it true join
the compile's frame check, the layouts the check holds disjoint are
recorded for Inductor's reinplace pass, and the decision is counted and
reported. ``Compile.seal`` hands the facts to torch as one ``FrameFacts``
when the compile ends. Facts found with no compile open -- user code's
address checks while Dynamo traces (``park``), compiles under a
``TracingContext`` of their own (``aot_compile``: orphans) -- wait in
``_state`` until their frame's compile or check takes them
(``unpark``, ``close_frame``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _state, _trace
from ._decision import GroupDecision
from ._facts import Fact
from ._guards import STAMP, UNSTAMPED, FrameFacts, Unstamped
from ._layout import source_name
from ._recipe import Recipe
from ._report import GroupReport
from ._state import lock, log, stats
from ._torch import gateway


class EagerFallback(Exception):
    """Raised inside the backend (AOTAutograd, Inductor's passes) to make
    Dynamo run a frame eagerly; carries the reason (one line) and its class
    (``kind``: ``dtypes`` for views of different dtypes, ``merge`` for a
    storage group AOTAutograd cannot build, or the torch bug avoided), by
    which ``stats.fallback_kinds`` counts."""

    def __init__(self, reason: str, *, dtypes: bool = False, kind: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.dtypes = dtypes
        self.kind = kind if kind is not None else "dtypes" if dtypes else "merge"


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
        #: The facts adopted so far, over the union of their sources (by
        #: name), sealed into one guard when the compile ends (``seal``).
        self.sources: list[Any] = []
        self._slot: dict[str, int] = {}
        self._facts: list[tuple[Fact, list[int]]] = []
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

    def adopt(self, item: GroupDecision | Fact) -> None:
        """The one door: applies a group's decision or adds a fact.

        A fact joins the frame's check over the tensors its sources name
        (an orphan record seals it at once; a fact with unknown sources is
        dropped: nothing can name its tensors). A decision takes effect --
        the one place one does: where there is a tracing context and the
        sources are known, its facts join, the layouts its check holds
        disjoint are recorded for the reinplace pass; it is counted and
        reported. A wrapper-subclass decision applies each of its storages'
        parts."""
        if isinstance(item, Fact):
            if item.sources is None:
                return
            self._facts.append((item, self._slots(item.sources)))
            if self.orphan:
                tc = gateway.tracing_context()
                if tc is not None:
                    self.seal(tc, orphan=True)
            return
        d = item
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
        # Facts need a tracing context to join and sources to name.
        installed = gateway.tracing_context() is not None and d.sources is not None
        if installed:
            for fact in d.facts():
                self.adopt(fact)
            if d.disjoint_layouts is not None and not self.orphan:
                self.disjoint_layouts.append(d.disjoint_layouts)
        report = GroupReport(
            sources=list(d.names),
            overlapping=list(d.overlapping),
            invariant=d.native.invariant if (d.native is not None and d.symbolic) else None,
            symbolic=d.symbolic,
            decision=d.native,
            guard=d.partition.describe() + d.pin.describe() if installed else [],
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

    def _slots(self, sources: Sequence[Any]) -> list[int]:
        """The frame slots of ``sources`` (by name; new ones appended)."""
        idx = []
        for s in sources:
            name = source_name(s)
            if name not in self._slot:
                self._slot[name] = len(self.sources)
                self.sources.append(s)
            idx.append(self._slot[name])
        return idx

    def facts(self) -> list[Fact]:
        """The facts adopted and not yet sealed, in order."""
        return [f for f, _ in self._facts]

    def frame_facts(self) -> FrameFacts:
        """The facts adopted, as one ``FrameFacts`` (nothing is handed over)."""
        return FrameFacts(
            list(self.sources),
            [f.check(idx) for f, idx in self._facts],
            [f.premised(idx) for f, idx in self._facts],
            [f.verbose() for f, _ in self._facts],
        )

    def seal(self, tc: Any, *, orphan: bool = False) -> None:
        """Hands the facts adopted so far to torch, as one ``FrameFacts``
        among the compile's AOTAutograd guards (none when there is no
        fact), and counts the frame as guarded. ``orphan``: no Dynamo
        compile is open; the tracing context may not be the capture's, so
        the facts also wait for its check (``close_frame``) by the ShapeEnv
        they share."""
        if not self._facts or tc is None:
            return
        facts = self.frame_facts()
        tc.guards_context.aotautograd_guards.append(facts)
        if orphan and tc.fake_mode is not None and tc.fake_mode.shape_env is not None:
            with lock:
                _state.orphans.setdefault(tc.fake_mode.shape_env, []).append(facts)
        grouped = any(f.grouped for f, _ in self._facts)
        with lock:
            stats.frames_guarded += 1
            _state.lifetime.frames_guarded += 1
            _state.lifetime.frames_group_guarded += int(grouped)
        self._facts = []


def park(tc: Any, fact: Fact) -> None:
    """A fact found while Dynamo traces (user code's address checks), before
    any compile opens: it waits for the frame's compile (``unpark``) or,
    where no graph is compiled, the frame's check (``close_frame``)."""
    with lock:
        _state.parked.setdefault(tc, []).append(fact)


def unpark(guards: list[Any]) -> list[Fact]:
    """The facts parked by the capture whose AOTAutograd guard list is
    ``guards`` (taken: each is adopted once)."""
    with lock:
        for tc in list(_state.parked.keys()):
            if tc.guards_context.aotautograd_guards is guards:
                return list(_state.parked.pop(tc))
    return []


def close_frame(shape_env: Any, guards: list[Any]) -> None:
    """When a frame's check is built from its AOTAutograd ``guards``: a live
    capture's orphaned facts (by its ShapeEnv) join them; facts parked for
    a frame no compile took are sealed there; and a ``STAMP`` where there
    is no fact, so that a saved artifact says it was made with symalias. A
    loaded artifact's guard state has facts or a stamp already; its
    ShapeEnv is a fresh one, with no orphans."""
    with lock:
        guards += _state.orphans.pop(shape_env, [])
    parked = unpark(guards)
    if parked:
        # A frame that met no compile: its facts join its guards as they
        # are (it is not counted as a compiled frame).
        alone = Compile()
        for fact in parked:
            alone.adopt(fact)
        guards.append(alone.frame_facts())
    if not any(isinstance(g, FrameFacts) for g in guards):
        guards.append(STAMP)


def refuse_unstamped(guards: list[Any]) -> None:
    """A loaded artifact's guards, saved without symalias (no
    ``FrameFacts``): an ``Unstamped`` guard that never passes joins them."""
    if not any(isinstance(g, FrameFacts) for g in guards):
        guards.append(Unstamped([], [], [], [UNSTAMPED]))


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
        c.saved_view_replay = gateway.view_replay()
        hold(c, gateway.patch_view_replay(False))
