"""H1, the overlap decision, and the guards that keep it true.

``compute_overlapping_inputs`` replaces AOTAutograd's: the exact overlapping
indices (bytes, not elements), decided at the hints and, for symbolic
layouts, proved for every allowed shape. It never adds a ShapeEnv guard
(layouts are read from SymInt nodes and the ShapeEnv's tables).

``decide`` is the decision as a value (a ``GroupDecision``: no side
effects); ``_compile.Compile.adopt`` applies it. The four entrances --
AOTAutograd's hook here, wrapper subclasses (``_decide_wrappers``), a
byte-level merge (``_bytes``) and an AOTAutograd cache hit (``_cache``) --
call the two, so a hit carries the same guards as a compile.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import _native
from . import _compile, _torch
from ._guards import (
    CrossStorageFact,
    NoSelfOverlapFact,
    PartitionFact,
    PinFact,
    base_signature,
    source_name,
)


def source_list(aot_config: Any, positions: Sequence[int]) -> list[Any] | None:
    """The Dynamo sources of flat-argument ``positions``, or None when
    AOTAutograd does not know them all (no guard can name the inputs)."""
    pos_to_source = aot_config.aot_autograd_arg_pos_to_source
    if not pos_to_source:
        return None
    out = []
    for p in positions:
        if p >= len(pos_to_source) or pos_to_source[p] is None:
            return None
        out.append(pos_to_source[p])
    return out


def tensor_positions(args: Sequence[Any]) -> list[int]:
    """Positions of the tensor arguments, each tensor object once (AOTAutograd
    removes repeated objects before deciding)."""

    seen = set()
    out = []
    for p, a in enumerate(args):
        if isinstance(a, torch.Tensor) and id(a) not in seen:
            seen.add(id(a))
            out.append(p)
    return out


def by_storage(tensors: Sequence[Any]) -> list[list[int]]:
    """Indices of ``tensors`` (plain tensors) by storage, in order of first
    appearance: every storage, with one tensor or more."""
    out: dict[int, list[int]] = {}
    for i, t in enumerate(tensors):
        out.setdefault(_torch.storage_id(t), []).append(i)
    return list(out.values())


def storage_groups(args: Sequence[Any]) -> list[list[int]]:
    """Positions of tensor arguments that share a storage, groups of two or
    more: a wrapper subclass is in the storage of each of its inner tensors
    (two wrappers over views of one pair of buffers share both)."""
    groups: list[list[int]] = []
    at: dict[int, int] = {}  # storage -> index in groups
    for p in tensor_positions(args):
        keys = {_torch.storage_id(x) for x in inner_tensors(args[p])}
        hit = sorted({at[k] for k in keys if k in at})
        if not hit:
            g = len(groups)
            groups.append([p])
        else:  # joins (and joins together) the groups it shares a storage with
            g = hit[0]
            for h in hit[1:]:
                groups[g] += groups[h]
                groups[h] = []
                at.update({k: g for k, v in at.items() if v == h})
            groups[g].append(p)
        at.update({k: g for k in keys})
    return [sorted(g) for g in groups if len(g) > 1]


def is_symbolic(tensors: Sequence[Any]) -> bool:
    """Some size, stride or offset of these tensors is a SymInt."""

    return any(isinstance(x, torch.SymInt) for t in tensors for x in (*t.shape, *t.stride(), t.storage_offset()))


def _expr(x: Any) -> Any:
    """An int, or a SymInt's sympy expression (read, never compared as a
    SymInt: no guard; not printed: printing costs tens of µs)."""
    return x.node.expr if isinstance(x, torch.SymInt) else int(x)


def layout_key(t: Any) -> tuple[Any, ...]:
    """A view's layout as plain data: sizes, strides and storage offset (a
    SymInt by its expression, equal and hashed structurally) and itemsize --
    what fixes the bytes it reaches in its storage. Keys of one ShapeEnv's
    tensors compare."""
    return (
        tuple(_expr(x) for x in t.size()),
        tuple(_expr(x) for x in t.stride()),
        _expr(t.storage_offset()),
        int(t.element_size()),
    )


def overlapping_for_all_shapes(ts: list[Any], *, time_limit_ms: int | None = None) -> frozenset[int]:
    """The tensors (views of one storage) that may overlap another for some
    allowed shape, never guarding: exact for concrete layouts; for symbolic
    ones all of them as soon as the hints overlap (an allowed shape where
    they do) or the disjointness at the hints is not proved for every
    allowed shape (within ``time_limit_ms``). Unbacked sizes are read with
    their ranges. One native call (``_native.overlapping_for_all_shapes``)
    reads the layouts once. Raises what ``_native`` raises (callers answer
    "overlap")."""
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
class GroupDecision:
    """One storage group decided -- a value, made by ``decide`` without side
    effects and applied by ``_compile.Compile.adopt``: what AOTAutograd
    needs (``overlapping``), the facts that keep it true, and what the
    report says. A group with wrapper subclasses is decided per storage of
    their inner tensors (``parts``), its ``overlapping`` by member."""

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


def decide(
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
    exact at the hints, proved for all shapes; no documents); an undecidable
    group (unbacked symbols, engine errors) counts as all overlapping.
    ``byte_base``: a merge makes a byte-level base (``_bytes``), which bakes
    in nothing of the members' autograd base or storage. A group with
    traceable wrapper subclasses is decided on their inner tensors
    (``_decide_wrappers``)."""
    if any(_torch.is_wrapper_subclass(t) for t in tensors):
        return _decide_wrappers(tensors, sources, labels, from_cache=from_cache)
    start = time.perf_counter()
    names = [source_name(s) for s in sources] if sources else labels
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
    partition = PartitionFact(names, decision, merged, proved, symbolic)
    # Integer offsets the graph may bake in (Dynamo does not guard them):
    # pinned when the group was merged, or when the verdict is a proof over
    # the layout (which assumed them). Static shapes, merged: the synthetic
    # base's size is baked in too.
    pins = []
    if decision is not None and (merged or (proved and symbolic)):
        pins = [(i, off) for i, off in enumerate(decision.offsets) if off is not None]
    # (A byte-level base holds the members' bytes only: their layouts, which
    # Dynamo and the pins guard, are all it bakes in.)
    base = base_signature(tensors[0]) if merged and not symbolic and not byte_base else None
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
        pin=PinFact(names, pins, base),
        disjoint_layouts=layouts,
        native=decision,
        seconds=time.perf_counter() - start,
    )


def compute_overlapping_inputs(aot_config: Any, fwd_inputs: list[Any], aliased_input_indices: list[int]) -> set[int]:
    """Replacement of ``runtime_wrappers.compute_overlapping_inputs``."""
    c = _compile.current()
    positions = [c.position(fwd_inputs, i) if c else i for i in aliased_input_indices]
    d = decide(
        [fwd_inputs[i] for i in aliased_input_indices],
        source_list(aot_config, positions),
        [f"input {i}" for i in aliased_input_indices],
    )
    if c is None and _torch.tracing_context() is None:
        # torch <= 2.12 runs ``merge_view_inputs`` again at every call (the
        # synthetic base's run-time wrapper): an answer for that call, not a
        # compile's decision to record, guard or report.
        return {aliased_input_indices[i] for i in d.overlapping}
    _compile.record().adopt(d)
    return {aliased_input_indices[i] for i in d.overlapping}


def cross_storage_guard(tc: Any, sources: list[Any], tensors: list[Any], mutated: list[bool]) -> None:
    """H3: installs ``CrossStorageFact`` when some input is mutated and the
    tensors span two storages or more."""
    if tc is None or len(tensors) < 2 or not any(mutated):
        return
    group_of: dict[int, int] = {}
    groups = [group_of.setdefault(_torch.storage_id(t), len(group_of)) for t in tensors]
    if len(group_of) < 2:
        return
    _compile.record().adopt_fact(tc, sources, CrossStorageFact(groups, mutated))


def self_overlapping_mutation(fwd_inputs: list[Any], mutated: list[bool]) -> tuple[str | None, list[int]]:
    """Whether a mutated input must run eagerly, and which must be guarded.

    The first: why, when one overlaps itself at the hints (two of its own
    indices reach one element: eager writes it once per index, a
    functionalized graph once). The second: the mutated inputs with a
    symbolic layout that do not overlap themselves at the hints but are
    not proved never to (unknown, or refuted at another allowed shape) --
    the run-time check keeps them so. Each mutated tensor is decided alone
    (no pairs: the hook decides and proves the storage groups itself)."""

    guarded: list[int] = []
    for i, (t, m) in enumerate(zip(fwd_inputs, mutated)):
        if not (m and isinstance(t, torch.Tensor)):
            continue
        name = f"input {i}"
        inner = inner_tensors(t)
        try:
            decisions = [_native.decide([x], [name], prove=True) for x in inner]
        except Exception as e:  # unbacked symbols, engine errors: eager is right
            return f"cannot decide whether mutated {name} overlaps itself ({type(e).__name__}: {e})", []
        for decision in decisions:
            for _k, over, proof in decision.self_overlap:
                if over:
                    return f"mutated {name} overlaps itself (two of its indices reach one element)", []
                # (A subclass's inner tensors have no source of their own
                # here: unguarded, as stock torch leaves every input.)
                if decision.symbolic and proof != "proved" and inner == [t]:
                    guarded.append(i)
    return None, guarded


def inner_members(t: Any) -> list[tuple[list[str], Any]]:
    """The tensors holding ``t``'s memory, each with its attribute path from
    ``t``: ``t`` itself (an empty path), or for a traceable wrapper subclass
    (DTensor, TwoTensor) its inner tensors, recursively, as its
    ``__tensor_flatten__`` names them -- the names whose values are tensors
    (torch 2.15 names opaque members too: DTensor's ``device_mesh``)."""
    if not _torch.is_wrapper_subclass(t):
        return [([], t)]
    attrs, _ = t.__tensor_flatten__()
    out = []
    for a in attrs:
        m = getattr(t, a)
        if isinstance(m, torch.Tensor):
            out += [([a, *path], x) for path, x in inner_members(m)]
    return out


def inner_tensors(t: Any) -> list[Any]:
    """The tensors of :func:`inner_members`, without their paths."""
    return [x for _, x in inner_members(t)]


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
                src = _torch.attr_source(src, a) if src is not None else None
            inner.append((k, x, src, ".".join([labels[k], *path])))
    over: set[int] = set()
    parts = []
    for g in by_storage([x for _, x, _, _ in inner]):
        if len({inner[i][0] for i in g}) < 2:
            continue
        part = decide(
            [inner[i][1] for i in g],
            [inner[i][2] for i in g] if sources is not None else None,
            [inner[i][3] for i in g],
            from_cache=from_cache,
        )
        parts.append(part)
        over |= {inner[g[i]][0] for i in part.overlapping}
    names = [source_name(s) for s in sources] if sources else labels
    nothing = PartitionFact(names, None, False, False, False)
    return GroupDecision(
        names=tuple(names),
        sources=tuple(sources) if sources is not None else None,
        overlapping=tuple(sorted(over)),
        symbolic=any(p.symbolic for p in parts),
        fallback=None,
        from_cache=from_cache,
        partition=nothing,
        pin=PinFact(names, [], None),
        disjoint_layouts=None,
        native=None,
        parts=tuple(parts),
    )


def self_overlap_guard(tc: Any, sources: list[Any], positions: list[int]) -> None:
    """Installs ``NoSelfOverlapFact`` on the mutated inputs at ``sources``
    (flat positions ``positions``, for the wording) when there are any."""
    if tc is None or not sources:
        return
    _compile.record().adopt_fact(tc, sources, NoSelfOverlapFact([f"input {i}" for i in positions]))
