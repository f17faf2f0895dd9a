"""The decisions, as values: a storage group's (``decide_group`` → a
``GroupDecision``), a mutated input's self-overlap, the cache key's part of
a group, the pair questions of Inductor's passes. The one Python caller of
the engine's decisions (``_native.decide``,
``_native.overlapping_for_all_shapes``).

Part of the pure core: nothing here installs, counts or logs.
``_compile.Compile.adopt`` applies a decision -- its facts join the
frame's check, it is counted and reported. The entrances that decide
(AOTAutograd's hook, wrapper subclasses, a byte-level merge, an
AOTAutograd cache hit) all call the two, so a hit carries the same facts
as a compile. Layouts are read from SymInt nodes and the ShapeEnv's
tables: no decision adds a ShapeEnv guard.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import _native
from ._facts import PartitionFact, PinFact, names_of
from ._layout import base_signature, by_storage, inner_members, inner_tensors, is_symbolic, layout_key
from ._torch import gateway


def overlapping_for_all_shapes(ts: list[Any], *, time_limit_ms: int | None = None) -> frozenset[int]:
    """The tensors (views of one storage) that may overlap another for some
    allowed shape, never guarding: exact for concrete layouts; for symbolic
    ones all of them as soon as the hints overlap (an allowed shape where
    they do) or the disjointness at the hints is not proved for every
    allowed shape (within ``time_limit_ms``). Unbacked sizes are read with
    their ranges. One native call reads the layouts once. Raises what
    ``_native`` raises (callers answer "overlap")."""
    return frozenset(_native.overlapping_for_all_shapes(ts, time_limit_ms=time_limit_ms))


def may_overlap(a: Any, b: Any) -> bool:
    """Whether two views of one storage may share a byte for some allowed
    shape (``overlapping_for_all_shapes`` on the pair); an error counts as
    overlapping."""
    try:
        return bool(overlapping_for_all_shapes([a, b]))
    except Exception:
        return True


@dataclass(frozen=True)
class Baked:
    """What a synthetic-base graph of a storage group bakes in and torch's
    guards and cache key leave out: each member's integer storage offset
    (None where symbolic) and, for static layouts, the base's layout. The
    one statement of the rule: ``decide_group`` pins from it (``PinFact``)
    and the cache key carries it (``group_key``)."""

    offsets: tuple[int | None, ...]
    base: dict[str, Any] | None


def baked(tensors: Sequence[Any], native: Any = None) -> Baked:
    """``Baked`` of a group's ``tensors`` (its integer offsets, and whether
    it is symbolic, as the native decision read them when there is one)."""
    if native is not None:
        offsets = tuple(native.offsets)
        symbolic = bool(native.symbolic)
    else:
        offsets = tuple(
            None if isinstance(t.storage_offset(), torch.SymInt) else int(t.storage_offset()) for t in tensors
        )
        symbolic = is_symbolic(tensors)
    return Baked(offsets, None if symbolic else base_signature(tensors[0]))


@dataclass(frozen=True)
class GroupDecision:
    """One storage group decided -- a value, made by ``decide_group``
    without side effects and applied by ``_compile.Compile.adopt``: what
    AOTAutograd needs (``overlapping``), the facts that keep it true, and
    what the report says. A group with wrapper subclasses is decided per
    storage of their inner tensors (``parts``), its ``overlapping`` by
    member."""

    names: tuple[str, ...]
    #: Dynamo sources of the members (None: unknown, nothing is guarded).
    sources: tuple[Any, ...] | None
    #: Indices of the members that overlap another member.
    overlapping: tuple[int, ...]
    symbolic: bool
    #: Why the conservative answer was used (unbacked symbol, error), if it was.
    fallback: str | None
    #: Decided again for an AOTAutograd cache hit.
    from_cache: bool
    #: The facts that keep the answer true at run time.
    partition: PartitionFact
    pin: PinFact
    #: The layouts of the members the partition check holds disjoint (for
    #: Inductor's reinplace pass), when the group was split and is checked.
    disjoint_layouts: frozenset[tuple[Any, ...]] | None
    #: The native decision (``_native.Decision``; None when undecided).
    native: Any = field(compare=False)
    #: Time the decision took.
    seconds: float = field(compare=False, default=0.0)
    parts: tuple[GroupDecision, ...] = ()

    def facts(self) -> list[PartitionFact | PinFact]:
        """The facts to install, in order (the partition first: when both
        fail, torch's wording is the recompile reason); none without
        sources."""
        if self.sources is None:
            return []
        return [f for f in (self.partition, self.pin) if f.needed()]


def decide_group(
    tensors: list[Any],
    sources: list[Any] | None,
    labels: list[str],
    *,
    from_cache: bool = False,
    byte_base: bool = False,
) -> GroupDecision:
    """The decision for one storage group (``tensors``, named by ``sources``
    or else ``labels``), without side effects: nothing installed, nothing
    counted. The layouts are read and decided natively (``_native.decide``:
    exact at the hints, proved for all shapes); an undecidable group
    (unbacked symbols, engine errors) counts as all overlapping.
    ``byte_base``: a merge makes a byte-level base (``_bytes``), which bakes
    in nothing of the members' autograd base or storage. A group with
    traceable wrapper subclasses is decided on their inner tensors
    (``_decide_wrappers``)."""
    if any(gateway.is_wrapper_subclass(t) for t in tensors):
        return _decide_wrappers(tensors, sources, labels, from_cache=from_cache)
    start = time.perf_counter()
    names = names_of(sources, labels)
    decision: Any = None
    fallback = None
    try:
        decision = _native.decide(tensors, names, prove=True)
        local = list(decision.overlapping)
        symbolic = bool(decision.symbolic)
    except Exception as e:  # unbacked symbols, engine errors: be conservative
        fallback = f"{type(e).__name__}: {e}"
        local = list(range(len(tensors)))
        symbolic = is_symbolic(tensors)
    merged = len(local) > 1
    proved = decision is not None and decision.invariant is True and (symbolic or merged)
    partition = PartitionFact(sources, names, decision, merged, proved, symbolic)
    # What the graph may bake in (Dynamo does not guard it): integer offsets
    # pinned when the group was merged, or when the verdict is a proof over
    # the layout (which assumed them); static shapes, merged: the synthetic
    # base's layout too. (A byte-level base holds the members' bytes only:
    # their layouts, which Dynamo and the pins guard, are all it bakes in.)
    # (Read only where something is pinned: the base's layout costs reads.)
    b = baked(tensors, decision) if merged or (proved and symbolic) else None
    pins = []
    if b is not None and decision is not None:
        pins = [(i, off) for i, off in enumerate(b.offsets) if off is not None]
    base = b.base if b is not None and merged and not byte_base else None
    layouts = None
    if decision is not None and sources is not None and not from_cache and not merged and partition.needed():
        # The check holds this partition on every call of the graph: its
        # non-overlapping members are disjoint there (recorded only where a
        # check is installed, which needs the sources).
        layouts = frozenset(layout_key(tensors[i]) for i in decision.non_overlapping)
    return GroupDecision(
        names=tuple(names),
        sources=tuple(sources) if sources is not None else None,
        overlapping=tuple(local),
        symbolic=symbolic,
        fallback=fallback,
        from_cache=from_cache,
        partition=partition,
        pin=PinFact(sources, names, pins, base),
        disjoint_layouts=layouts,
        native=decision,
        seconds=time.perf_counter() - start,
    )


def _decide_wrappers(
    tensors: list[Any], sources: list[Any] | None, labels: list[str], *, from_cache: bool = False
) -> GroupDecision:
    """The decision for a group with wrapper subclasses: two members overlap
    where an inner tensor of one overlaps an inner tensor of the other
    (decided, and guarded, per storage of inner tensors -- the ``parts`` --
    each named through Dynamo's source chain: ``AttrSource(L['a'], 'a')``).
    Inner tensors of one member that overlap each other count too
    (conservative: the member is merged)."""
    inner: list[tuple[int, Any, Any, str]] = []
    for k, t in enumerate(tensors):
        for path, x in inner_members(t):
            src = sources[k] if sources is not None else None
            for a in path:
                src = gateway.attr_source(src, a) if src is not None else None
            inner.append((k, x, src, ".".join([labels[k], *path])))
    over: set[int] = set()
    parts = []
    for g in by_storage([x for _, x, _, _ in inner]):
        if len({inner[i][0] for i in g}) < 2:
            continue
        part = decide_group(
            [inner[i][1] for i in g],
            [inner[i][2] for i in g] if sources is not None else None,
            [inner[i][3] for i in g],
            from_cache=from_cache,
        )
        parts.append(part)
        over |= {inner[g[i]][0] for i in part.overlapping}
    names = names_of(sources, labels)
    return GroupDecision(
        names=tuple(names),
        sources=tuple(sources) if sources is not None else None,
        overlapping=tuple(sorted(over)),
        symbolic=any(p.symbolic for p in parts),
        fallback=None,
        from_cache=from_cache,
        partition=PartitionFact(sources, names, None, False, False, False),
        pin=PinFact(sources, names, [], None),
        disjoint_layouts=None,
        native=None,
        parts=tuple(parts),
    )


@dataclass(frozen=True)
class SelfOverlap:
    """The mutated inputs' overlap with themselves: why the frame must run
    eagerly (one overlaps itself at the hints: two of its own indices reach
    one element, eager writes it once per index, a functionalized graph
    once), else None; and the mutated inputs with a symbolic layout that do
    not overlap themselves at the hints but are not proved never to
    (unknown, or refuted at another allowed shape) -- a run-time check
    keeps them so."""

    eager: str | None
    guarded: tuple[int, ...]


def self_overlap(fwd_inputs: Sequence[Any], mutated: Sequence[bool]) -> SelfOverlap:
    """``SelfOverlap`` of a frame's inputs. Each mutated tensor is decided
    alone (no pairs: the storage groups are decided and proved by
    ``decide_group``)."""
    guarded: list[int] = []
    for i, (t, m) in enumerate(zip(fwd_inputs, mutated)):
        if not (m and isinstance(t, torch.Tensor)):
            continue
        name = f"input {i}"
        inner = inner_tensors(t)
        try:
            decisions = [_native.decide([x], [name], prove=True) for x in inner]
        except Exception as e:  # unbacked symbols, engine errors: eager is right
            return SelfOverlap(f"cannot decide whether mutated {name} overlaps itself ({type(e).__name__}: {e})", ())
        for decision in decisions:
            for _k, over, proof in decision.self_overlap:
                if over:
                    return SelfOverlap(f"mutated {name} overlaps itself (two of its indices reach one element)", ())
                # (A subclass's inner tensors have no source of their own
                # here: unguarded, as stock torch leaves every input.)
                if decision.symbolic and proof != "proved" and inner == [t]:
                    guarded.append(i)
    return SelfOverlap(None, tuple(guarded))


def _plainly_injective(sizes: list[int], strides: list[int]) -> bool:
    """A concrete layout no two of whose indices reach one element by the
    sufficient test (dims by increasing stride, each stride beyond the
    reach of the smaller ones); False is "ask the engine"."""
    if 0 in sizes:
        return True
    reach = 0
    for st, sz in sorted((abs(st), sz) for sz, st in zip(sizes, strides) if sz > 1):
        if st <= reach:
            return False
        reach += st * (sz - 1)
    return True


def overlaps_itself(t: Any) -> str | None:
    """Why a tensor (a view written in a frame) may overlap itself -- two
    of its indices reach one element at the hints, or that they never do
    is not proved for every allowed shape -- or None when it never does."""
    if not is_symbolic([t]) and _plainly_injective([int(n) for n in t.shape], [int(n) for n in t.stride()]):
        return None
    try:
        decisions = [_native.decide([x], ["written"], prove=True) for x in inner_tensors(t)]
    except Exception as e:  # unbacked symbols, engine errors: count as overlapping
        return f"may overlap itself (undecided: {type(e).__name__})"
    for decision in decisions:
        for _k, over, proof in decision.self_overlap:
            if over:
                return "overlaps itself"
            if decision.symbolic and proof != "proved":
                return "may overlap itself at another allowed shape"
    return None


class TooManyPairs(Exception):
    """A storage group has more pairs than the engine lists."""


def group_key(tensors: list[Any], labels: list[str]) -> list[Any]:
    """The cache key's part for one storage group: every overlapping pair
    at the hints (which fixes the decision for any subset of mutated
    members) and what a synthetic-base graph bakes in (``baked``); a group
    the engine cannot decide is keyed as undecided (its decision is
    conservative, and so is this). Raises ``TooManyPairs`` for a group too
    large for every pair to be listed."""
    try:
        native = _native.decide(tensors, labels, prove=False)
        result = native.result()
    except Exception as e:
        return [labels, f"undecided: {type(e).__name__}"]
    if result.pairs_left_out:
        raise TooManyPairs(f"symalias: a storage group of {len(tensors)} inputs has more pairs than it lists")
    pairs = sorted([labels[q.a], labels[q.b], q.overlap] for q in result.pairs)
    b = baked(tensors, native)
    return [labels, pairs, [list(b.offsets), None if b.base is None else str(b.base)]]


def picture(tensors: Sequence[Any], names: list[str]) -> str:
    """The picture of views of one storage (SVG text), decided at the hints
    within 200 ms (for the structured trace)."""
    return str(_native.decide(list(tensors), names, time_limit_ms=200).svg())
