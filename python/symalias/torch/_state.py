"""The integration's state: every mutable value that outlives one call --
counters, reports, the saved hooks and the features on, cache recipes in
waiting, facts parked until their frame's check is built, the words of
frame checks, memos of Inductor's passes, and the per-thread state of a run
of Inductor's reinplace pass and of a higher-order op being traced. The
record of the compile in progress is ``_compile``'s (per thread). No other
module of the package keeps module-level mutable state
(``test_torch_layers.py`` scans for it)."""

from __future__ import annotations

import itertools
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from .. import _native
from ._recipe import Recipe
from ._report import GroupReport

log = logging.getLogger("symalias.torch")


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
    #: Eager fallbacks by class (``EagerFallback.kind``).
    fallback_kinds: dict[str, int] = field(default_factory=dict)
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
    #: Nodes Inductor's no-op removal was kept from removing: their operand
    #: is written before a reader, or they would return an input (``_noops``).
    noops_kept: int = 0
    #: Functionalized mutating ops given a clone of what they write, as an
    #: argument of theirs is a pending computation over it read again after
    #: them (``_inline``).
    inline_protected: int = 0
    #: Tensors saved for backward that alias a graph input, saved as views
    #: of it so autograd's version check holds (``_versions``).
    saved_views_tied: int = 0
    #: ``sym_storage_offset`` nodes Inductor lowered to their value
    #: (``_offsets``).
    offsets_lowered: int = 0
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

    @property
    def guard_tensors_recorded(self) -> int:
        """Tensors those checks took as Dynamo's guard tree read them (a
        recorder leaf on each tensor's guard manager)."""
        return _native.tensor_counters()[0]

    @property
    def guard_tensors_fetched(self) -> int:
        """Tensors they fetched themselves (no recorder, or a recorder
        Dynamo did not run in that evaluation): by path from the frame's
        locals, or through the guard's code."""
        return _native.tensor_counters()[1]


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
    #: Frames run eagerly by an ``EagerFallback`` (any class).
    frames_eager: int = 0


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

#: Why the native tensor reader is off, or None when ``install()`` verified
#: it (``_reader``; not reset: the verification holds for the process).
reader_off: list[str | None] = ["not installed"]
#: Facts of compiles that ran under a ``TracingContext`` of their own, by
#: the ShapeEnv they share with the capture, until the capture's check is
#: built (``_compile.close_frame``).
orphans: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()
#: Facts found while Dynamo traces, before any compile opens (user code's
#: address checks, ``_address``), by the capture's tracing context (weakly:
#: an abandoned trace leaves nothing behind), until the frame's compile or
#: its check takes them (``_compile.park`` / ``_compile.unpark``).
parked: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()
#: Which optional features this process runs with (``points.FEATURES``),
#: set by ``install()``.
features_on: dict[str, bool] = {}


def feature_on(name: str) -> bool:
    """Whether feature ``name`` runs (``install()`` decided it)."""
    return features_on.get(name, False)


#: Inductor's concatenation (``_concat``): the order of the graph being
#: lowered, computed once per graph (the last one kept).
concat_orders: dict[int, tuple[Any, int, Any]] = {}
#: The fake-tensor dispatch (``_overlap_errors``): op -> whether it is an
#: in-place pointwise op (its first argument written).
inplace_pointwise: dict[Any, bool] = {}


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
