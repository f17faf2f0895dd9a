"""Eager's partial-overlap error, raised when the frame is traced.

Eager refuses an in-place pointwise op whose written-to tensor and an input
share some but not all of their memory (TensorIterator's
``assert_no_partial_overlap``): ``a.add_(b)`` with ``a, b = x[2:6], x[0:4]``
raises "unsupported operation: some elements of the input tensor and the
written-to tensor refer to a single memory location". Compiled, the op runs
on fake tensors, whose meta kernels check only internal overlap, and stock
torch returns numbers for it.

symalias wraps ``FakeTensorMode.dispatch``: for an in-place op tagged
pointwise (the ops TensorIterator runs) and ``copy_``, each tensor argument in the
written-to tensor's storage is classified as eager does
(``at::get_overlap_status``): the same tensor, or an empty one, is fine; two
tensors that are not both non-overlapping and dense are "too hard" (eager
lets them through, so does symalias); otherwise their byte ranges are equal
(full overlap: fine), disjoint (fine) or partially shared -- then eager's
error, with eager's words, raised where Dynamo runs the op (the compile
fails as the eager call does).

Symbolic layouts are classified at the hints: the error is raised where the
call being compiled would raise in eager. No guard is added, so a later call
whose shapes make the ranges partially overlap runs the compiled graph
(which then computes the functional result) where eager would raise.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from . import _state
from ._state import lock, stats
from ._torch import gateway

MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation."
)


def _checked(func: Any) -> bool:
    known = _state.inplace_pointwise.get(func)
    if known is None:
        schema = gateway.op_schema(func)
        args = schema.arguments if schema is not None else []
        alias = args[0].alias_info if args else None
        pointwise = schema is not None and (torch.Tag.pointwise in func.tags or func is torch.ops.aten.copy_.default)
        known = bool(alias is not None and alias.is_write and pointwise)
        _state.inplace_pointwise[func] = known
    return known


def _hint(x: Any) -> int:
    if isinstance(x, torch.SymInt):
        return int(x.node.hint) if x.node.hint is not None else -1
    return int(x)


def _dense(sizes: list[int], strides: list[int]) -> bool:
    """torch's ``is_non_overlapping_and_dense`` on concrete values."""
    dims = sorted((st, sz) for sz, st in zip(sizes, strides) if sz != 1)
    expected = 1
    for st, sz in dims:
        if st != expected:
            return False
        expected *= sz
    return True


def _span(t: Any) -> tuple[int, int] | None:
    """``t``'s bytes ``[first, end)`` at the hints when it is non-empty,
    non-overlapping and dense (eager's test); None otherwise."""
    sizes = [_hint(s) for s in t.size()]
    strides = [_hint(s) for s in t.stride()]
    offset = _hint(t.storage_offset())
    if min([*sizes, *strides, offset], default=0) < 0:
        return None  # a size without a hint: not classified
    numel = 1
    for s in sizes:
        numel *= s
    if numel == 0 or not _dense(sizes, strides):
        return None
    k = t.element_size()
    return offset * k, (offset + numel) * k


def partial_overlap(written: Any, others: list[Any]) -> bool:
    """Whether some tensor of ``others`` shares part, not all, of
    ``written``'s memory (eager's PARTIAL), at the hints."""
    mine = None
    for t in others:
        if not isinstance(t, torch.Tensor) or t is written:
            continue
        if gateway.storage_id(t) != gateway.storage_id(written):
            continue
        if mine is None:
            mine = _span(written)
            if mine is None:
                return False
        theirs = _span(t)
        if theirs is None or theirs == mine:
            continue
        if theirs[0] < mine[1] and mine[0] < theirs[1]:
            return True
    return False


def _tensors(args: Any, kwargs: Any) -> list[Any]:
    out = [a for a in args[1:] if isinstance(a, torch.Tensor)]
    out.extend(v for v in kwargs.values() if isinstance(v, torch.Tensor))
    return out


def wrap_fake_dispatch(orig: Callable[..., Any]) -> Callable[..., Any]:
    def dispatch(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None, *rest: Any) -> Any:
        if _checked(func) and args and isinstance(args[0], torch.Tensor):
            others = _tensors(args, kwargs or {})
            if others and partial_overlap(args[0], others):
                with lock:
                    stats.partial_overlap_errors += 1
                raise RuntimeError(MESSAGE)
        return orig(self, func, types, args, kwargs if kwargs is not None else {}, *rest)

    dispatch.__wrapped__ = orig  # type: ignore[attr-defined]
    return dispatch
