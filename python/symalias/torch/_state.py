"""The integration's state: every mutable value that outlives one
decision -- counters, reports, the saved hooks, cache recipes in waiting,
the words of frame checks, and the per-thread state of a run of Inductor's
reinplace pass and of a higher-order op being traced. The record of the
compile in progress is ``_compile``'s."""

from __future__ import annotations

import itertools
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import OverlapResult, _native

if TYPE_CHECKING:
    from ._compile import Recipe

log = logging.getLogger("symalias.torch")

#: Version of what symalias changes in Inductor's graphs (the reinplace
#: pass's answers, ``_epilogue``, ``_functionalized``), in every cache key
#: made while installed; bump when any of it changes.
REINPLACE_VERSION = 2


@dataclass
class GroupReport:
    """One storage group as symalias decided it during a compile."""

    sources: list[str]
    #: Indices (into ``sources``) that overlap another member.
    overlapping: list[int]
    #: True proved for all shapes, False refuted, None undecided / static.
    invariant: bool | None
    symbolic: bool
    #: The native decision (``_native.Decision``), None when undecided.
    decision: Any
    #: What the run-time guard checks, in words.
    guard: list[str]
    #: Why the conservative answer was used (unbacked symbol, error), if it was.
    fallback: str | None = None
    #: True when the decision was restored for an AOTAutograd cache hit.
    from_cache: bool = False

    @property
    def result(self) -> OverlapResult | None:
        """The whole typed result (pairs, witnesses, guards), built on first use."""
        if self.decision is None:
            return None
        cached: OverlapResult | None = self.__dict__.get("_result")
        if cached is None:
            cached = self.decision.result()
            self.__dict__["_result"] = cached
        return cached

    def describe(self, k: int = 0) -> list[str]:
        """The group (the ``k``-th) in words: its sources, what overlaps, the
        witnesses, the verdict, the guards."""
        lines: list[str] = []
        cached = " (restored for an AOTAutograd cache hit)" if self.from_cache else ""
        lines.append(f"storage group {k}: {', '.join(self.sources)}{cached}")
        if self.fallback:
            lines.append(f"  undecided ({self.fallback}): all treated as overlapping")
        ov = [self.sources[i] for i in self.overlapping]
        lines.append(f"  overlapping: {', '.join(ov) if ov else 'none'}")
        if self.result is not None:
            for p in self.result.pairs:
                if not p.overlap:
                    continue
                w = p.witness
                where = (
                    f" at byte {w.address} ({self.sources[p.a]}{list(w.index_a)}, {self.sources[p.b]}{list(w.index_b)})"
                    if w
                    else ""
                )
                lines.append(f"  {self.sources[p.a]} overlaps {self.sources[p.b]}{where}")
            if self.symbolic:
                verdict = {
                    True: "proved for all shapes",
                    False: "refuted (depends on the shapes)",
                    None: "undecided",
                }[self.result.invariant]
                lines.append(f"  verdict: {verdict}")
                if self.result.counterexample:
                    lines.append(f"  counterexample: {self.result.counterexample}")
            else:
                lines.append("  verdict: static shapes")
            for gd in self.result.guards:
                lines.append(f"  symalias guard: {gd.text}")
            if self.result.guards and self.result.symbols:
                where = ", ".join(f"{n} = {v}" for n, v in sorted(self.result.symbols.items()))
                lines.append(f"  where {where}")
        lines.append(f"  run-time guard: {'; '.join(self.guard) if self.guard else 'none'}")
        return lines

    def svg(self) -> str | None:
        """The picture of the group's memory (SVG text), None when undecided."""
        return None if self.decision is None else str(self.decision.svg())


@dataclass
class Stats:
    """Counters since the last ``install()``."""

    #: Overlap decisions made (compiles and AOTAutograd cache hits).
    decisions: int = 0
    decision_seconds: float = 0.0
    #: Compiled frames given a symalias run-time check (one native call
    #: per frame call), and frames compiled while installed.
    frames_guarded: int = 0
    frames_compiled: int = 0
    #: Frames run eagerly because AOTAutograd cannot build them (all reasons).
    eager_fallbacks: int = 0
    #: Of those, frames of mutated overlapping views of different dtypes
    #: that could not be merged at byte level (``_bytes``: members that
    #: require grad, metadata mutations, outputs viewing merged members).
    dtype_fallbacks: int = 0
    #: One line per eager fallback: why.
    fallback_reasons: list[str] = field(default_factory=list)
    #: Decisions that the time limit (the wall-clock backstop), not a work
    #: bound, cut short: sound, but a faster or idler rank may have decided
    #: more, so compiled guards may differ between machines. Zero is the
    #: normal case; anything else is worth a look (issue 60).
    time_limit_hits: int = 0
    #: AOTAutograd cache keys that carry symalias's decision.
    cache_keys: int = 0
    #: AOTAutograd cache hits on which symalias restored its decision and guards.
    cache_hits: int = 0
    #: Cache entries found but not made under this symalias decision (missed).
    cache_rejected: int = 0
    #: Compiles that bypassed the AOTAutograd cache because of symalias.
    cache_bypassed: int = 0
    #: Runs of Inductor's reinplace pass with symalias's answer
    #: (``_reinplace``), the overlap questions it asked, and symalias's
    #: time in the pass (the questions, memo hits included, and the
    #: epilogue check, ``_epilogue``).
    reinplace_passes: int = 0
    reinplace_decisions: int = 0
    reinplace_seconds: float = 0.0
    #: Of the decisions, pairs answered "disjoint" from the compile's own
    #: run-time check (two non-overlapping members of a checked group).
    reinplace_held: int = 0
    #: Ops given a clone of the graph input they would have been reinplaced
    #: into, as their result is read after the epilogue overwrites that
    #: input (``_epilogue``).
    reinplace_protected: int = 0
    #: Higher-order ops whose subgraphs mutate a tensor, checked (``_hop``),
    #: and of those, refused for an input that overlaps it.
    hop_checks: int = 0
    hop_refusals: int = 0
    #: Higher-order op subgraphs whose inputs share a storage, accepted as
    #: read-only or disjoint in bytes for every allowed shape where torch
    #: refuses any two inputs of one storage (``_hop``).
    hop_shared_inputs: int = 0
    #: Concatenations whose inputs symalias computes into the result where
    #: torch copies each (no later write touches them), and where it copies
    #: them where torch does not (the result is written later and an input
    #: is read again) (``_concat``).
    concat_uncopied: int = 0
    concat_copied: int = 0
    #: symalias's time deciding them.
    concat_seconds: float = 0.0
    #: Alias checks in user code answered as constants, each backed by an
    #: ``AddressCheck`` (``_address``).
    address_constants: int = 0
    #: The user's clones of inputs given back to the ops that mutate them
    #: after Inductor's no-op removal (``_clones``).
    clones_kept: int = 0
    #: Read-only arguments of a functionalized mutating op regenerated from
    #: the clone of their base, as overlapping a mutated argument
    #: (``_functionalized``; counted where the op's kernel or its
    #: decomposition runs).
    functional_rereads: int = 0
    #: In-place pointwise ops refused while traced with eager's
    #: partial-overlap error (``_overlap_errors``).
    partial_overlap_errors: int = 0
    reports: list[GroupReport] = field(default_factory=list)

    @property
    def guard_checks(self) -> int:
        """Calls of symalias's run-time checks (every kind: partition, pins,
        cross-storage -- one call per call of a guarded frame)."""
        return _native.check_counters()[0]

    @property
    def guard_failures(self) -> int:
        """Of those, how many failed (each a recompile or a cache miss)."""
        return _native.check_counters()[1]

    @property
    def guard_check_seconds(self) -> float:
        """Time spent in them."""
        return _native.check_counters()[2] * 1e-9


@dataclass
class Lifetime:
    """Counts since the process started (never reset)."""

    #: Frames compiled while installed.
    frames_compiled: int = 0
    #: Of those, frames given a run-time check.
    frames_guarded: int = 0
    #: Of those, frames whose check covers an aliased storage group (the
    #: others check only that no new aliasing across storages appeared).
    frames_group_guarded: int = 0


# ---- The integration's state: every mutable module-level value, here. ----

lock = threading.RLock()
counter = itertools.count()
stats = Stats()
lifetime = Lifetime()
#: torch's functions replaced by ``install()``, by dotted name (empty:
#: not installed).
saved_hooks: dict[str, Any] = {}
#: Recipes of compiles in progress, by AOTAutograd cache key, until their
#: entry is saved (a training graph's entry is saved after its backward
#: compiles, later); at most ``PENDING_LIMIT``, oldest dropped first.
pending_recipes: OrderedDict[str, Recipe] = OrderedDict()
PENDING_LIMIT = 256
#: Frame checks with several facts, for the recompile reason
#: (``_guards.why``): id -> (the check, each fact's words); an entry
#: leaves with its check.
frame_words: dict[int, tuple[weakref.ReferenceType[Any], list[str]]] = {}
#: Facts of compiles that ran under a ``TracingContext`` of their own, by
#: the ShapeEnv they share with the capture (``_guards._adopt``).
orphans: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()

#: Facts about user code's address checks made while Dynamo traces
#: (``_address``), waiting for the frame's one check, by the capture's
#: tracing context (weakly: an abandoned trace leaves nothing behind). The
#: compile's facts absorb them (``_merge``); a frame with no compile
#: installs them alone when its guards are built (``_guards._adopt``).
pending_facts: weakref.WeakKeyDictionary[Any, list[tuple[list[Any], Any]]] = weakref.WeakKeyDictionary()


def add_pending(tc: Any, sources: list[Any], fact: Any) -> None:
    with lock:
        pending_facts.setdefault(tc, []).append((sources, fact))


def take_pending(guards: list[Any]) -> list[tuple[list[Any], Any]]:
    """The waiting facts of the capture whose AOTAutograd guard list is
    ``guards``."""
    with lock:
        for tc in list(pending_facts.keys()):
            if tc.guards_context.aotautograd_guards is guards:
                return pending_facts.pop(tc)
    return []


def reset_stats() -> None:
    """The one reset (``install()``): ``stats`` and the native run-time
    check counters start from zero. ``lifetime`` is never reset."""
    with lock:
        stats.__init__()  # type: ignore[misc]
        _native.reset_check_counters()


#: What one run of Inductor's reinplace pass may spend on symbolic proofs
#: in all; past it, symbolic pairs are answered "overlap" (torch's own).
PASS_BUDGET_S = 0.25


class ReinplaceRun(threading.local):
    """The run of Inductor's reinplace pass in progress on this thread
    (``_reinplace``): its memo of answers (None outside a run) and what is
    left of its proof budget."""

    memo: dict[Hashable, frozenset[int]] | None = None
    budget: float = PASS_BUDGET_S


reinplace_run = ReinplaceRun()


class HopMutations(threading.local):
    """The tensors the subgraphs of the higher-order op being traced on this
    thread mutate, until ``parent_mutated_input_indices`` reads them
    (``_hop``)."""

    tensors: list[Any]

    def __init__(self) -> None:
        self.tensors = []


hop_mutations = HopMutations()
