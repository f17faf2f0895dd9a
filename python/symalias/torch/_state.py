"""State shared by the hooks: counters, reports, and the record of the
compile in progress (one per ``OutputGraph.call_user_compiler`` call, per
thread)."""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import OverlapResult, _native
from . import _torch

log = logging.getLogger("symalias.torch")

#: Version of what a cache entry's recipe means; bump when the decision or
#: the guards derived from it change, so entries of older versions miss.
RECIPE_VERSION = 2
#: Version of symalias's answer in Inductor's reinplace pass, in every
#: cache key made while installed; bump when that answer changes.
REINPLACE_VERSION = 1


class EagerFallback(Exception):
    """Raised inside AOTAutograd to make Dynamo run a frame eagerly; carries
    the reason (one line)."""

    def __init__(self, reason: str, *, dtypes: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.dtypes = dtypes


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
    #: AOTAutograd cache keys that carry symalias's decision.
    cache_keys: int = 0
    #: AOTAutograd cache hits on which symalias restored its decision and guards.
    cache_hits: int = 0
    #: Cache entries found but not made under this symalias decision (missed).
    cache_rejected: int = 0
    #: Compiles that bypassed the AOTAutograd cache because of symalias.
    cache_bypassed: int = 0
    #: Runs of Inductor's reinplace pass with symalias's answer
    #: (``_reinplace``), the overlap questions it asked, and their time.
    reinplace_passes: int = 0
    reinplace_decisions: int = 0
    reinplace_seconds: float = 0.0
    #: Of the decisions, pairs answered "disjoint" from the compile's own
    #: run-time check (two non-overlapping members of a checked group).
    reinplace_held: int = 0
    #: Higher-order ops whose subgraphs mutate a tensor, checked (``_hop``),
    #: and of those, refused for an input that overlaps it.
    hop_checks: int = 0
    hop_refusals: int = 0
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


def reset_stats() -> None:
    """The one reset (``install()``): ``stats`` and the native run-time
    check counters start from zero. ``lifetime`` is never reset."""
    with lock:
        stats.__init__()  # type: ignore[misc]
        _native.reset_check_counters()


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


class Compile:
    """The compile in progress on this thread."""

    def __init__(self) -> None:
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
        #: The run-time facts decided so far (``_guards.FrameGuards``),
        #: installed as one guard when the compile succeeds.
        self.guards: Any = None
        self.outer: Compile | None = None
        #: Synthetic bases (by index) made at byte level, and the ids of the
        #: member tensors regenerated from them (``_bytes``).
        #: (base index -> whether its bytes start at the storage's first)
        self.byte_bases: dict[int, bool] = {}
        #: member id -> the first byte of its base (``_bytes.hull``)
        self.byte_members: dict[int, Any] = {}
        #: ids of members regenerated from their group's float autograd
        #: base in its units (``_bytes.regenerate``: groups with
        #: gradients)
        self.unit_members: set[int] = set()
        #: indices of the bases that are such a group's autograd base
        self.unit_bases: set[int] = set()
        #: ids of members of torch's own (one-dtype) synthetic bases, which
        #: symalias regenerates at their own offset (``_bytes.regenerate_member``)
        self.torch_members: set[int] = set()
        #: synthetic bases (by index) at a storage offset other than 0, and
        #: that offset (an output viewing one runs eagerly: ``_bytes``)
        self.offset_bases: dict[int, Any] = {}
        #: Per storage group whose partition this compile's run-time check
        #: holds (or proved), the layouts (``_decision.layout_key``) of its
        #: non-overlapping members: disjoint on every call that runs the
        #: graph (read by Inductor's reinplace pass, ``_reinplace``).
        self.disjoint_layouts: list[set[tuple[Any, ...]]] = []

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


_local = threading.local()


def current() -> Compile | None:
    """The compile in progress on this thread, if any."""
    c: Compile | None = getattr(_local, "compile", None)
    return c


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
    if getattr(_local, "compile", None) is c:
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
