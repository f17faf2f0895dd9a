"""A view's symbolic storage offset, as Inductor lowers it (H13).

AOTAutograd's ``auto_functionalized_v2`` regenerates a mutated view of a
graph input as ``as_strided(base, size, stride, sym_storage_offset(v))``
(Inductor's ``decompose_auto_functionalized``). Inductor has a lowering for
``sym_size`` and ``sym_stride`` but none for ``sym_storage_offset``: its
implicit fallback reads the offset of the IR view, 0 for ``select``, and a
custom op that writes ``cache[7]`` of a dynamic-shape input writes row 0
(stock torch 2.15; static shapes fold the offset to a constant and are
right). ``catframes.py`` meets it on a decode step's cache row.

symalias answers ``sym_storage_offset`` the way Inductor answers its two
siblings: the node's own value (its SymInt's expression, or its int), read
where the graph is lowered (``GraphLowering.call_function``); every other
op goes to torch's. The counter is ``stats.offsets_lowered``.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from ._state import lock, stats
from ._torch import gateway


def wrap_call_function(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``GraphLowering.call_function``: ``sym_storage_offset`` answered
    from the node's value."""
    target_op = torch.ops.aten.sym_storage_offset.default

    def call_function(self: Any, target: Any, args: Any, kwargs: Any) -> Any:
        if target is target_op:
            val = gateway.lowering_node(self).meta.get("val")
            if isinstance(val, (int, torch.SymInt)) and not isinstance(val, bool):
                with lock:
                    stats.offsets_lowered += 1
                return gateway.sym_expr(val)
        return orig(self, target, args, kwargs)

    call_function.__wrapped__ = orig  # type: ignore[attr-defined]
    return call_function
