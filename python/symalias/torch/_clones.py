"""The user's own clone of an input, kept for the reinplace pass.

``buf = x.clone(); op(buf[:4], buf[4:])`` with ``op`` mutating both
blocks: functionalization makes ``buf``'s clone the base of one
``auto_functionalized_v2``. Inductor's ``remove_noop_ops`` (post-grad,
before the reinplace pass) then drops that clone as a no-op -- the op is
functional on paper -- and the reinplace pass meets a graph input as the
base: nothing may write it, so it clones it again (the whole storage span
the base reaches, ``clone_preserve_strides``) and counts the copy as a
missed reinplacing (torch's ``missed_bytes``, 512 on an (8, 16) float
input). Under dynamic shapes the folded graph fails Inductor's pattern
matcher ("graph node count mismatch").

symalias gives the op its clone back (``keep``, a value computed before
the pass; applied after it): a base of an ``auto_functionalized_v2`` that
was a ``clone`` of a graph input which no node of the graph writes, and
that the pass removed, is cloned again right before the op, from the same
source. The reinplace pass then writes the clone in place: the user's one
copy, no second one, no miss. Where the input is written by the graph (a
``copy_`` epilogue: the op may then write the input itself), torch's way
stands.
"""

from __future__ import annotations

from typing import Any

import torch

from ._state import lock, stats
from ._torch import gateway


class Kept:
    """One base to give back: the op, the base's index, the clone node and
    what it was made of (an erased node loses its arguments)."""

    def __init__(self, op: Any, index: int, clone: Any) -> None:
        self.op, self.index, self.clone = op, index, clone
        self.args, self.kwargs, self.meta = tuple(clone.args), dict(clone.kwargs), dict(clone.meta)


def keep(graph: Any) -> list[Kept]:
    """Each base of an ``auto_functionalized_v2`` that is a clone of a
    graph input no node writes."""
    written = gateway.graph_written_storages(graph)
    if written is None:
        return []
    out = []
    for node in graph.nodes:
        if node.op != "call_function" or node.target is not torch.ops.higher_order.auto_functionalized_v2:
            continue
        for i, base in enumerate(node.kwargs["_all_bases"]):
            if (
                not isinstance(base, torch.fx.Node)
                or base.op != "call_function"
                or base.target is not torch.ops.aten.clone.default
            ):
                continue
            src = base.args[0] if base.args else None
            if not isinstance(src, torch.fx.Node) or src.op != "placeholder":
                continue
            if gateway.fx_node_storage(src) in written:
                continue
            out.append(Kept(node, i, base))
    return out


def restore(graph: Any, kept: list[Kept]) -> int:
    """Clones again each kept base the pass removed; returns how many."""
    alive = set(graph.nodes)
    made = 0
    for k in kept:
        if k.clone in alive or k.op not in alive:
            continue
        bases = list(k.op.kwargs["_all_bases"])
        if bases[k.index] is not k.args[0]:
            continue
        with graph.inserting_before(k.op):
            new = graph.call_function(torch.ops.aten.clone.default, k.args, k.kwargs)
        new.meta.update(k.meta)
        bases[k.index] = new
        k.op.update_kwarg("_all_bases", bases)
        made += 1
    if made:
        with lock:
            stats.clones_kept += made
    return made
