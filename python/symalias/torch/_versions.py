"""Autograd's version check on a saved view of an input (pytorch#197887).

Eager autograd raises "one of the variables needed for gradient
computation has been modified by an inplace operation" when a tensor saved
for backward -- or a view of it -- is written between forward and
backward: a view shares its base's version counter. A compiled forward
that saves a view of a graph input (``x @ w`` saves ``x`` transposed)
returns it from Inductor as ``reinterpret_tensor(x, ...)``: the same bytes
with a version counter of its own. ``x.copy_(next_batch)`` before
``backward()`` then goes unnoticed and the gradient is computed from the
new batch (stock torch 2.14-2.15, Inductor; aot_eager keeps the view).

symalias wraps the compiled forward AOTAutograd generates
(``_codegen_compiled_forward``): each tensor saved with a version check
that is not a graph input itself, not a view, and lives in a graph input's
storage is replaced, before it is saved, by the same window taken as a
view of that input (``as_strided`` with its sizes, strides and offset):
same bytes, the input's version counter. The pairs (saved index, input
index) are found on the first call and checked on each later call by
storage identity (two lookups a pair); a forward that saves no such tensor
costs one test a call after the first.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from ._state import lock, stats
from ._torch import gateway

_UNKNOWN = None


def _pairs(fw_outs: list[Any], args: Any, saved: range, is_input: list[bool]) -> tuple[tuple[int, int], ...]:
    """(saved output index, argument index) of each saved tensor that is a
    fresh alias (no view) of an argument's storage."""
    where: dict[int, int] = {}
    for j, a in enumerate(args):
        if isinstance(a, torch.Tensor) and a.layout == torch.strided and not gateway.is_wrapper_subclass(a):
            where.setdefault(gateway.storage_id(a), j)
    out = []
    for k, i in enumerate(saved):
        x = fw_outs[i]
        if (k < len(is_input) and is_input[k]) or not isinstance(x, torch.Tensor):
            continue
        if x.layout != torch.strided or gateway.is_wrapper_subclass(x) or gateway.autograd_base(x) is not None:
            continue
        src = where.get(gateway.storage_id(x))
        if src is not None and args[src] is not x and args[src].dtype == x.dtype:
            out.append((i, src))
    return tuple(out)


def _tie(fw_outs: list[Any], args: Any, pairs: tuple[tuple[int, int], ...]) -> int:
    tied = 0
    with torch.no_grad():
        for i, j in pairs:
            x, a = fw_outs[i], args[j]
            if gateway.autograd_base(x) is not None or gateway.storage_id(x) != gateway.storage_id(a):
                continue
            fw_outs[i] = a.as_strided(x.size(), x.stride(), x.storage_offset())
            tied += 1
    return tied


def tied_forward(fn: Callable[..., Any], meta: Any) -> Callable[..., Any]:
    """AOTAutograd's generated forward ``fn``, saving views of inputs as
    views (the module doc)."""
    window = meta.tensors_saved_for_backwards_with_vc_check_slice
    is_input = list(meta.saved_tensor_is_graph_input)
    known: list[Any] = [_UNKNOWN]

    def _compiled_forward(ctx: Any, args: Any, rng_add: Any, save: Any, finalize: Any, compiled_fw: Any) -> Any:
        pairs = known[0]
        if pairs == ():
            return fn(ctx, args, rng_add, save, finalize, compiled_fw)

        def save_tied(ctx: Any, fw_outs: Any) -> Any:
            nonlocal pairs
            if pairs is _UNKNOWN:
                try:
                    saved = range(*window.indices(len(fw_outs)))
                    pairs = _pairs(fw_outs, args, saved, is_input)
                except Exception:  # what this forward saves cannot be read: torch's way
                    pairs = ()
                known[0] = pairs
            if pairs:
                fw_outs = list(fw_outs)
                tied = _tie(fw_outs, args, pairs)
                if tied:
                    with lock:
                        stats.saved_views_tied += tied
            return save(ctx, fw_outs)

        return fn(ctx, args, rng_add, save_tied, finalize, compiled_fw)

    _compiled_forward.__wrapped__ = fn  # type: ignore[attr-defined]
    return _compiled_forward


def wrap_codegen_forward(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``runtime_wrappers._codegen_compiled_forward``: the forward it
    generates, wrapped by :func:`tied_forward`."""

    def _codegen_compiled_forward(fw_metadata: Any, *args: Any, **kwargs: Any) -> Any:
        fn = orig(fw_metadata, *args, **kwargs)
        try:
            return tied_forward(fn, fw_metadata)
        except Exception:  # metadata of another shape: torch's forward
            return fn

    _codegen_compiled_forward.__wrapped__ = orig  # type: ignore[attr-defined]
    return _codegen_compiled_forward
