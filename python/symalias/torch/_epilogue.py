"""Reinplacing into a graph input asks about later reads of the result.

Inductor's reinplace pass lets a scatter (or another op of its
``inplaceable_ops``) write straight into a mutated graph input ``x`` when no
view of ``x`` is read between the op and the epilogue's ``x.copy_(...)``
(``can_inplace``). It does not ask whether the op's *result* is read after
that copy: reinplaced, the result lives in ``x``'s memory, and an epilogue
that copies something else into ``x`` overwrites it.
``y = torch.slice_scatter(x, src, 0, 1, 3); x.zero_(); return y`` returns
zeros under stock inductor (pytorch#198096; the same class: #197408,
#195451, #198131).

Before the pass runs, symalias finds each such op -- its mutated argument a
graph input whose first epilogue copy's source is another node, and its
result (or a view of it) read at or after that copy, the graph's output
included -- and gives the op a clone of the input to write into instead:
what the functional op does when not reinplaced (one copy, as stock's own
refusal costs). Ops whose result is the epilogue's source, or is read only
before it, are left to the pass: no copy added where the answer was right.
"""

from __future__ import annotations

from typing import Any

import torch

from ._state import lock, stats
from ._torch import gateway

_INPUTS = ("placeholder", "get_attr")


def _first_copies(nodes: list[Any]) -> dict[Any, Any]:
    """Each graph input's first epilogue copy (``aten.copy_`` into it)."""
    aten = torch.ops.aten
    first: dict[Any, Any] = {}
    for n in nodes:
        if n.op == "call_function" and n.target is aten.copy_.default:
            dst = n.args[0]
            if isinstance(dst, torch.fx.Node) and dst.op in _INPUTS:
                first.setdefault(dst, n)
    return first


def _read_from(node: Any, at: int, order: dict[Any, int]) -> bool:
    """Whether ``node``'s value -- itself or through views of it -- is read
    by a node at position ``at`` or later (the output node included)."""
    seen = {node}
    todo = [node]
    while todo:
        n = todo.pop()
        for user in n.users:
            if order[user] >= at:
                return True
            if user not in seen and gateway.is_view_op(user.target):
                seen.add(user)
                todo.append(user)
    return False


def clone_before(graph: Any, node: Any, arg: Any) -> Any:
    """A new ``clone`` of ``arg``, placed right before ``node``, with its
    fake value."""
    with graph.inserting_before(node):
        clone = graph.call_function(torch.ops.aten.clone.default, (arg,))
    clone.meta["val"] = arg.meta["val"].clone()
    return clone


def protect(graph: Any) -> int:
    """Gives every op that would be reinplaced into a graph input whose
    epilogue then overwrites the op's still-read result a clone of that
    input (see the module doc); returns how many."""
    nodes = list(graph.nodes)
    order = {n: i for i, n in enumerate(nodes)}
    copies = _first_copies(nodes)
    ops = gateway.inplaceable_ops()
    made = 0
    for node in nodes:
        op = ops.get(node.target) if node.op == "call_function" else None
        if op is None:
            continue
        for i in op.mutated_args:
            arg: Any = node.args[i] if i < len(node.args) else None
            copy = copies.get(arg)
            if copy is None or copy.args[1] is node or "val" not in arg.meta:
                continue
            if not _read_from(node, order[copy], order):
                continue
            node.update_arg(i, clone_before(graph, node, arg))
            made += 1
    if made:
        with lock:
            stats.reinplace_protected += made
    return made
