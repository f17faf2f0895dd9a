"""Reading the frame's tensors: storage groups, wrapper subclasses' inner
tensors, layouts as plain data, and the Dynamo sources that name inputs.

Part of the pure core: it imports only the gateway, holds no state and
decides nothing (``_decision`` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ._torch import gateway


def source_name(source: Any) -> str:
    """A Dynamo source's name, as torch prints it in guards."""
    n = source.name
    return str(n() if callable(n) else n)


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
        out.setdefault(gateway.storage_id(t), []).append(i)
    return list(out.values())


def storage_groups(args: Sequence[Any]) -> list[list[int]]:
    """Positions of tensor arguments that share a storage, groups of two or
    more: a wrapper subclass is in the storage of each of its inner tensors
    (two wrappers over views of one pair of buffers share both)."""
    groups: list[list[int]] = []
    at: dict[int, int] = {}  # storage -> index in groups
    for p in tensor_positions(args):
        keys = {gateway.storage_id(x) for x in inner_tensors(args[p])}
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


def inner_members(t: Any) -> list[tuple[list[str], Any]]:
    """The tensors holding ``t``'s memory, each with its attribute path from
    ``t``: ``t`` itself (an empty path), or for a traceable wrapper subclass
    (DTensor, TwoTensor) its inner tensors, recursively, as its
    ``__tensor_flatten__`` names them -- the names whose values are tensors
    (torch 2.15 names opaque members too: DTensor's ``device_mesh``)."""
    if not gateway.is_wrapper_subclass(t):
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


def base_signature(t: Any) -> dict[str, Any]:
    """What a static synthetic base bakes in, as ``PinCheck``'s keywords: the
    autograd base's layout, or the storage's size when there is none."""
    b = gateway.autograd_base(t)
    if b is not None:
        return {
            "base_sizes": list(b.shape),
            "base_strides": list(b.stride()),
            "base_offset": b.storage_offset(),
            "base_dtype": b.dtype,
        }
    return {"storage_nbytes": t.untyped_storage().nbytes()}
