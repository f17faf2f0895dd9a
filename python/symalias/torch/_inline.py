"""A mutating op's argument computed from the bytes the op writes.

``s = x * 2; r = add_read(x, s); s.add_(1); return s, r`` with
``add_read`` a custom op that writes ``x`` and reads ``s``: functionalized,
the op is an ``auto_functionalized`` node; the reinplace pass lets it write
``x`` itself. Inductor hands the op a realized copy of ``s``, but ``s``
itself stays an unrealized pointwise expression of ``x`` until the op's
mutation realizes it -- *after* the op in Inductor's operation order. The
later ``s + 1`` then reads ``x`` as the op left it: ``2(x + 1) + 1`` where
eager gives ``2x + 1`` (stock torch 2.15, Inductor only; aot_eager is
right).

Before the reinplace pass (``_reinplace.wrap_core``) symalias finds each
such op -- a functionalized mutating op one of whose arguments is (a view
of) a computed value that reads, directly or through other computed values,
the storage the op writes, and that value read again after the op -- and
gives the op a clone of the written argument to write instead: the op's
functional meaning, unchanged, and the write no longer lands under the
pending read. One copy per such op, counted in ``stats.inline_protected``;
ops without the hazard are left to the pass.
"""

from __future__ import annotations

from typing import Any

import torch

from ._compile import EagerFallback
from ._epilogue import clone_before
from ._state import lock, stats
from ._torch import gateway


def _storage(node: Any) -> Any:
    v = node.meta.get("val")
    if not isinstance(v, torch.Tensor):
        return None
    return gateway.fx_node_storage(node)


def _written(node: Any) -> list[tuple[str, int | None, Any]]:
    """The arguments a functionalized op writes: ``(kwarg, index, node)``,
    ``index`` into ``_all_bases`` for ``auto_functionalized_v2``."""
    hop = torch.ops.higher_order
    if node.target is hop.auto_functionalized_v2:
        return [
            ("_all_bases", i, b)
            for i, b in enumerate(node.kwargs.get("_all_bases", ()))
            if isinstance(b, torch.fx.Node)
        ]
    if node.target is hop.auto_functionalized:
        op = node.args[0]
        names = gateway.mutable_args_of_schema(gateway.op_schema(op))
        return [(n, None, node.kwargs[n]) for n in names if isinstance(node.kwargs.get(n), torch.fx.Node)]
    return []


def _computed_from(arg: Any, storages: set[Any], is_view: Any) -> Any:
    """The computed value ``arg`` is (or views) if that value reads one of
    ``storages`` through computed values; else None."""
    node = arg
    while node.op == "call_function" and is_view(node.target) and node.args and isinstance(node.args[0], torch.fx.Node):
        node = node.args[0]
    if node.op != "call_function" or _storage(node) in storages:
        return None
    seen = {node}
    todo = [node]
    while todo:
        n = todo.pop()
        for a in n.all_input_nodes:
            if _storage(a) in storages:
                return node
            if a not in seen and a.op == "call_function" and _storage(a) is not None:
                seen.add(a)
                todo.append(a)
    return None


def _read_after(value: Any, op: Any, order: dict[Any, int], is_view: Any) -> bool:
    """Whether ``value`` (or a view of it) is read after ``op``."""
    seen = {value}
    todo = [value]
    while todo:
        n = todo.pop()
        for u in n.users:
            if u is not op and order[u] > order[op]:
                return True
            if u not in seen and u.op == "call_function" and is_view(u.target):
                seen.add(u)
                todo.append(u)
    return False


def protect(graph: Any) -> int:
    """Gives each functionalized mutating op whose argument is a pending
    computation over the bytes it writes, read again after it, a clone of
    the written argument (the module doc); returns how many."""
    functionalized = gateway.functionalized_mutation_ops()
    ops = [n for n in graph.nodes if n.op == "call_function" and n.target in functionalized]
    if not ops:
        return 0
    order = {n: i for i, n in enumerate(graph.nodes)}
    is_view = gateway.is_view_op
    made = 0
    for op in ops:
        written = _written(op)
        storages = {_storage(w) for _, _, w in written} - {None}
        if not storages:
            continue
        hazard = False
        for a in op.all_input_nodes:
            value = _computed_from(a, storages, is_view)
            if value is not None and _read_after(value, op, order, is_view):
                hazard = True
                break
        if not hazard:
            continue
        for _, _, w in written:
            v = w.meta.get("val")
            if not isinstance(v, torch.Tensor) or not v.is_contiguous() or v.storage_offset() != 0:
                # a plain clone would not keep the layout the op's views
                # are regenerated from
                raise EagerFallback(
                    "inductor would read a value computed from the bytes a custom op writes after the op"
                    " (a strided argument)",
                    kind="inline",
                )
        for name, index, w in written:
            clone = clone_before(graph, op, w)
            if index is None:
                op.update_kwarg(name, clone)
            else:
                bases = list(op.kwargs[name])
                bases[index] = clone
                op.update_kwarg(name, bases)
            made += 1
    if made:
        with lock:
            stats.inline_protected += made
    return made
