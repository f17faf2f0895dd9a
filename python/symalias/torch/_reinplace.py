"""symalias's answer in Inductor's reinplace pass
(``torch._inductor.fx_passes.reinplace``, torch 2.15).

The pass turns a functionalized mutation (``auto_functionalized``,
``auto_functionalized_v2``, user Triton kernels, in-placeable aten and
foreach ops) back into an in-place op where it can show no later reader
sees the write; otherwise the mutated argument is cloned. torch decides
aliasing there in three places, each coarser than the bytes:

1. ``can_inplace``'s ``_overlap`` asks ``compute_overlapping_tensors``
   (conservative on interleaves, unsound on bug B0's layouts) and answers
   "overlap" on any data-dependent size;
2. ``tensor_with_same_storage_already_reinplaced``: once one mutated
   argument of a storage is reinplaced, every other one on that storage is
   cloned (torch's "TODO this logic can be made more precise using
   ``_overlap``");
3. a list-valued mutated argument whose tensors share a storage is never
   reinplaced ("TODO Using ``_overlap`` here causes a several issues").

symalias keeps torch's pass and changes what those three questions read,
through three names of the pass's module, and only while the pass runs
(``reinplace_inplaceable_ops_core`` wrapped; elsewhere each name behaves
as torch's):

* ``compute_overlapping_tensors`` -> ``overlapping``: the exact answer in
  bytes; for symbolic layouts a proof for every allowed shape (unbacked
  sizes read with their ranges), otherwise "overlap". Never a guard added:
  two graph inputs with the layouts of two non-overlapping members of a
  storage group whose partition symalias's own run-time check holds for
  this graph (``Compile.disjoint_layouts``) are disjoint on every call
  that runs it, proved or not.
* ``get_node_storage`` -> a ``NodeStorage``: torch's storage key (hashed
  and compared as torch's, so the pass's per-storage buckets and
  same-storage tests are unchanged) carrying the node's fake tensor.
* ``OrderedSet`` -> ``OverlapSet``: torch's ordered set, except that a
  ``NodeStorage`` is "in" it when it overlaps one already added. That makes
  (2) "a reinplaced argument overlaps this one" and (3) "two tensors of the
  list overlap", which is what the TODOs ask for.

Disjoint mutated arguments of one storage are then each reinplaced;
overlapping ones are cloned as before. ``install()`` checks that the pass
still contains the sites symalias changes (``gateway.REINPLACE_SITES``).
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Any, Callable

from .. import _native
from . import _compile, _epilogue, _inline, _state, _trace
from ._decision import overlapping_for_all_shapes
from ._layout import layout_key
from ._state import lock, log, stats

#: Wall-clock bound of one symbolic proof in the pass (then: "overlap").
PROOF_MS = 2


_local = _state.reinplace_run


def _active() -> dict[Hashable, frozenset[int]] | None:
    """The memo of the pass run in progress on this thread, or None."""
    return _local.memo


def overlapping(tensors: Sequence[Any], symbolic: bool = True) -> set[int]:
    """``compute_overlapping_tensors`` with symalias's answer: the indices of
    the tensors (views of one storage) that overlap another in bytes. A
    symbolic group counts as disjoint only where that is proved for every
    allowed shape; an undecidable one (an error, an unbounded data-dependent
    size) counts as all overlapping.

    A pair is answered by its two layouts (``layout_key``: they fix the
    bytes each view reaches), once per run of the pass: the pass asks the
    same two layouts through several nodes (an input, the op's output for
    it, their views). The same layout twice is the same bytes: "overlap"."""
    t0 = time.perf_counter()
    ts = list(tensors)
    memo = _active()
    keys = _layouts(ts) if len(ts) == 2 else None
    # A pair's answer is both or neither: one entry for either order.
    key: Hashable = frozenset(keys) if keys else tuple(id(t) for t in ts)
    if memo is not None and key in memo:
        with lock:
            stats.reinplace_seconds += time.perf_counter() - t0
        return set(memo[key])
    try:
        if keys and keys[0] == keys[1]:
            out: frozenset[int] = frozenset(range(2))
        elif keys and _held_disjoint(*keys):
            out = frozenset()
            with lock:
                stats.reinplace_held += 1
        elif _local.budget <= 0:  # proofs spent: concrete layouts only
            concrete = _native.overlapping_tensors(ts)
            out = frozenset(concrete) if concrete is not None else frozenset(range(len(ts)))
        else:
            start = time.perf_counter()
            out = overlapping_for_all_shapes(ts, time_limit_ms=PROOF_MS)
            _local.budget -= time.perf_counter() - start
    except Exception as e:  # never weaker than torch: undecided is "overlap"
        log.debug("symalias: reinplace overlap undecided (%s: %s)", type(e).__name__, e)
        out = frozenset(range(len(ts)))
    with lock:
        stats.reinplace_decisions += 1
        stats.reinplace_seconds += time.perf_counter() - t0
    if memo is not None:
        memo[key] = out
    _trace.reinplace(ts, out)
    return set(out)


def _layouts(ts: list[Any]) -> tuple[Any, ...] | None:
    """Each tensor's ``layout_key``, or None where one cannot be read."""
    try:
        return tuple(layout_key(t) for t in ts)
    except Exception:
        return None


def _held_disjoint(ka: tuple[Any, ...], kb: tuple[Any, ...]) -> bool:
    """Whether two views with these layouts are two non-overlapping members
    of a storage group whose partition this compile's run-time check holds
    (``Compile.disjoint_layouts``): disjoint on every call that runs the
    graph, whatever the ranges prove. The layout fixes the bytes a view
    reaches, so any two views of one storage with those layouts are."""
    c = _compile.current()
    if c is None or not c.disjoint_layouts:
        return False
    return ka != kb and any(ka in s and kb in s for s in c.disjoint_layouts)


class NodeStorage:
    """A node's storage key while the pass runs: torch's key (``storage``),
    with the node's fake tensor (``val``). Hashed and compared as the key
    alone, so torch's buckets and same-storage tests are unchanged; only a
    ``OverlapSet`` looks at the bytes."""

    __slots__ = ("storage", "val")

    def __init__(self, storage: int, val: Any) -> None:
        self.storage = storage
        self.val = val

    def __hash__(self) -> int:
        return hash(self.storage)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeStorage) and other.storage == self.storage

    def overlaps(self, other: NodeStorage) -> bool:
        """Whether the two views may share a byte (for some allowed shape)."""
        if other.storage != self.storage:
            return False
        if other.val is self.val:
            return True
        return bool(overlapping([self.val, other.val]))

    def __repr__(self) -> str:
        return f"NodeStorage({self.storage})"


class OverlapSet:
    """torch's ``OrderedSet`` inside the pass: insertion-ordered, and a
    ``NodeStorage`` is a member when it overlaps a footprint already added
    (adding one that does is a no-op). Other items are plain members."""

    def __class_getitem__(cls, item: Any) -> type[OverlapSet]:
        return cls

    def __init__(self, iterable: Iterable[Any] | None = None) -> None:
        self._plain: dict[Any, None] = {}
        self._prints: list[NodeStorage] = []
        for x in iterable or ():
            self.add(x)

    def add(self, x: Any) -> None:
        """Adds ``x`` unless it is (or, for a footprint, overlaps) a member."""
        if isinstance(x, NodeStorage):
            if x not in self:
                self._prints.append(x)
        else:
            self._plain[x] = None

    def __contains__(self, x: object) -> bool:
        if isinstance(x, NodeStorage):
            return any(x.overlaps(p) for p in self._prints)
        return x in self._plain

    def __len__(self) -> int:
        return len(self._plain) + len(self._prints)

    def __iter__(self) -> Iterator[Any]:
        yield from self._plain
        yield from self._prints

    def __bool__(self) -> bool:
        return len(self) > 0


def wrap_core(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``reinplace_inplaceable_ops_core``: the pass, with symalias's answers
    switched on for its duration (on this thread; one memo per run)."""

    def reinplace_inplaceable_ops_core(graph: Any, *args: Any, **kwargs: Any) -> Any:
        outer = _local.memo, _local.budget
        _local.memo, _local.budget = {}, _state.PASS_BUDGET_S
        try:
            with lock:
                stats.reinplace_passes += 1
            t0 = time.perf_counter()
            _epilogue.protect(graph)
            _inline.protect(graph)
            with lock:
                stats.reinplace_seconds += time.perf_counter() - t0
            return orig(graph, *args, **kwargs)
        finally:
            _local.memo, _local.budget = outer

    reinplace_inplaceable_ops_core.__wrapped__ = orig  # type: ignore[attr-defined]
    return reinplace_inplaceable_ops_core


def wrap_get_node_storage(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``get_node_storage``: a ``NodeStorage`` while the pass runs."""

    def get_node_storage(node: Any) -> Any:
        key = orig(node)
        if key is None or _active() is None:
            return key
        return NodeStorage(key, node.meta["val"])

    get_node_storage.__wrapped__ = orig  # type: ignore[attr-defined]
    return get_node_storage


def wrap_ordered_set(orig: Any) -> Any:
    """``OrderedSet`` in the pass's module: an ``OverlapSet`` made while the
    pass runs, torch's own set otherwise (``OrderedSet[T](...)`` too)."""

    class OrderedSet:
        def __class_getitem__(cls, item: Any) -> type[OrderedSet]:
            return cls

        def __new__(cls, iterable: Iterable[Any] | None = None) -> Any:
            return OverlapSet(iterable) if _active() is not None else orig(iterable)

    OrderedSet.__wrapped__ = orig  # type: ignore[attr-defined]
    return OrderedSet


def wrap_compute_overlapping(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``compute_overlapping_tensors`` in the pass's module: symalias's
    answer while the pass runs, torch's otherwise."""

    def compute_overlapping_tensors(tensors: Sequence[Any], symbolic: bool = True) -> set[int]:
        if _active() is None:
            out: set[int] = orig(tensors, symbolic)
            return out
        return overlapping(tensors, symbolic)

    compute_overlapping_tensors.__wrapped__ = orig  # type: ignore[attr-defined]
    return compute_overlapping_tensors
