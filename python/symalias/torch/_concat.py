"""Inductor's concatenation (``ConcatKernel.create``): which inputs may be
computed straight into the concatenation's storage.

torch 2.15 computes an input of a ``cat`` (a matmul, a reduction: a buffer
of its own) into its slice of the result, unless the storage of *any* input
of the ``cat`` is written *anywhere* in the graph -- then every input gets a
buffer of its own and a copy kernel. A decode step that writes one cache
row after concatenating another therefore copies each computed input. And
the rule looks at the inputs only: when the concatenation's *result* is
written later (an in-place op reinplaced onto it), an input computed into
it and read after that write reads the written bytes -- stock torch returns
what eager does not (``y = x @ w; c = cat([y, z]); op_(c); y * 2``).

symalias decides with the graph's order (``computed_into_result``, a value computed from
the FX graph alone; ``wrap_create`` applies it by the one set torch's rule
reads): an input may be computed into the result when no node after the
``cat`` writes its storage, and, when a later node writes the result's
storage, the ``cat`` is its only user. Inputs on a graph input's storage
are never computed into the result (torch copies them whatever the rule
says) and do not count. Storages torch finds written where symalias cannot
place the write count as written after. Never a guard.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from . import _state
from ._state import lock, stats
from ._torch import gateway


class _Answer:
    """What torch's rule asks of ``mutated_storages``: ``storage in it``."""

    def __init__(self, written: bool) -> None:
        self.written = written

    def __contains__(self, _storage: object) -> bool:
        return self.written


class _Order:
    """One FX graph's writes by position: for each storage, the index of
    the last node that writes it; the indices of the nodes."""

    def __init__(self, graph: Any) -> None:
        self.index: dict[Any, int] = {}
        self.last_write: dict[int, int] = {}
        self.inputs: set[int] = set()
        for i, node in enumerate(graph.nodes):
            self.index[node] = i
            if node.op in ("placeholder", "get_attr"):
                s = gateway.fx_node_storage(node)
                if s is not None:
                    self.inputs.add(s)
            for written in gateway.fx_written_nodes(node):
                s = gateway.fx_node_storage(written)
                if s is not None:
                    self.last_write[s] = i


def computed_into_result(order: _Order, node: Any, stock_written: Any) -> bool:
    """Whether the inputs of ``node`` (a ``cat``) may be computed into its
    result: no input storage (but a graph input's) written after it; if its
    result is written after it, no input read by another node."""
    at = order.index.get(node)
    if at is None:
        return False

    def written_after(s: int | None) -> bool:
        if s is None:
            return True
        if s in order.last_write:
            return order.last_write[s] > at
        return s in stock_written

    result_written = written_after(gateway.fx_node_storage(node))
    for n in node.all_input_nodes:
        s = gateway.fx_node_storage(n)
        if s is not None and s in order.inputs:
            continue
        if written_after(s):
            return False
        if result_written and any(u is not node for u in n.users):
            return False
    return True


def _order(graph: Any) -> _Order:
    """``graph``'s order, computed once per graph lowered (the last one
    kept: a lowering asks about one graph, its ``cat`` nodes in turn)."""
    size = len(graph.nodes)
    hit = _state.concat_orders.get(id(graph))
    if hit is None or hit[0] is not graph or hit[1] != size:
        _state.concat_orders.clear()
        hit = (graph, size, _Order(graph))
        _state.concat_orders[id(graph)] = hit
    return hit[2]


def wrap_create(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``ConcatKernel.create``: torch's lowering, its aliasing rule answered
    by ``computed_into_result``."""

    def create(cls: Any, inputs: Any, dim: Any) -> Any:
        t0 = time.perf_counter()
        lowering = gateway.inductor_graph()
        node = lowering.current_node
        stock = lowering.mutated_storages
        try:
            allow = computed_into_result(_order(node.graph), node, stock)
        except Exception:
            return orig(cls, inputs, dim)
        stock_allows = not any(gateway.fx_node_storage(n) in stock for n in node.all_input_nodes)
        with lock:
            stats.concat_uncopied += allow and not stock_allows
            stats.concat_copied += stock_allows and not allow
            stats.concat_seconds += time.perf_counter() - t0
        lowering.mutated_storages = _Answer(not allow)
        try:
            return orig(cls, inputs, dim)
        finally:
            lowering.mutated_storages = stock

    create.__wrapped__ = orig  # type: ignore[attr-defined]
    return create
