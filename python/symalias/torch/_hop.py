"""Higher-order ops (``while_loop``, ``scan``): an input of the op that
overlaps a tensor its subgraph mutates is refused with torch's own aliasing
error; disjoint views of that storage stay accepted.

torch 2.15 lets these subgraphs mutate a captured tensor under
``torch.no_grad()`` and maps the mutation back to the op's inputs by
storage (``subgraph_mutated_input_storages`` then
``parent_mutated_input_indices``, in
``torch._dynamo.variables.higher_order_ops``): every input of a mutated
storage is marked mutated, and nothing checks whether a carried input
overlaps the captured one the body writes. ``while_loop`` with ``buf[:6]``
carried and ``buf[4:]`` captured and mutated compiles, and ``aot_eager``
then returns what eager does not (the functionalized body reads the
carried values before the captured write, eager after).

symalias keeps torch's mapping (every input of a mutated storage is still
marked, which functionalization needs) and adds the check: the tensors the
subgraphs mutate are recorded where torch reads their storages, and each
other input of the op in one of those storages is decided against them in
bytes (``_native.decide``; for symbolic layouts only a proof for every
allowed shape counts as disjoint). An overlap is torch's graph break,
"Encountered aliasing during higher order op tracing" -- with
``fullgraph=True`` an error. Never a guard added.

The other way round, torch refuses any two inputs of a subgraph that share
a storage (below): symalias accepts them when read-only, or disjoint in
bytes for every allowed shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Callable

import torch

from . import _state, _trace
from ._decision import may_overlap
from ._state import lock, stats
from ._torch import gateway

_local = _state.hop_mutations


def _value(inp: Any) -> Any:
    """A HOP input's example value (a VariableTracker or a Proxy)."""
    if isinstance(inp, torch.fx.Proxy):
        return inp.node.meta.get("example_value", inp.node.meta.get("val"))
    if hasattr(inp, "is_tensor") and inp.is_tensor():
        return inp.as_proxy().node.meta.get("example_value")
    return None


def conflict(inputs: Sequence[Any], mutated: Sequence[Any]) -> tuple[int, Any] | None:
    """The first input (index, value) that overlaps a mutated tensor it is
    not, or None."""
    for i, inp in enumerate(inputs):
        v = _value(inp)
        if not isinstance(v, torch.Tensor):
            continue
        try:
            key = gateway.storage_id(v)
        except Exception:
            continue
        for m in mutated:
            if m is v or gateway.storage_id(m) != key:
                continue
            if may_overlap(v, m):
                return i, v
    return None


def wrap_subgraph_storages(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``subgraph_mutated_input_storages``: torch's answer, and the mutated
    tensors recorded for the check."""

    def subgraph_mutated_input_storages(subgraph: Any, mutated_input_indices: Iterable[int]) -> Any:
        indices = list(mutated_input_indices)
        out = orig(subgraph, indices)
        placeholders = [n for n in subgraph.nodes if n.op == "placeholder"]
        for i in indices:
            if i < len(placeholders):
                v = placeholders[i].meta.get("example_value", placeholders[i].meta.get("val"))
                if isinstance(v, torch.Tensor):
                    _local.tensors.append(v)
        return out

    subgraph_mutated_input_storages.__wrapped__ = orig  # type: ignore[attr-defined]
    return subgraph_mutated_input_storages


def wrap_parent_indices(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``parent_mutated_input_indices``: torch's answer, after refusing an
    input that overlaps a mutated tensor."""

    def parent_mutated_input_indices(parent_inputs: Sequence[Any], mutated_input_storages: Any) -> Any:
        mutated, _local.tensors = _local.tensors, []
        if mutated:
            with lock:
                stats.hop_checks += 1
            hit = conflict(parent_inputs, mutated)
            if hit is not None:
                with lock:
                    stats.hop_refusals += 1
                gateway.graph_break(
                    gb_type="Encountered aliasing during higher order op tracing",
                    context=f"input {hit[0]} overlaps a tensor the subgraph mutates (symalias)",
                    explanation="Higher order ops do not support aliasing. Found an input that "
                    "overlaps a mutated tensor",
                    hints=["Pass a `.clone()` of the input, or views that do not overlap the mutated tensor."],
                )
        return orig(parent_inputs, mutated_input_storages)

    parent_mutated_input_indices.__wrapped__ = orig  # type: ignore[attr-defined]
    return parent_mutated_input_indices


# ---- Input-input aliasing: read-only, or disjoint in bytes ----
#
# torch refuses any two inputs of a higher-order op's subgraph on one
# storage (Dynamo's ``SubgraphTracer.has_aliasing``; the functionalization's
# ``_check_alias_and_mutation``), so ``attn(*t.chunk(3, -1))`` into a
# ``nested_compile_region`` is an error. Two inputs conflict only when one
# is written and they may share a byte for some allowed shape; the
# input-output and output-output rules stay torch's.


def shared_groups(values: Sequence[Any]) -> list[list[int]]:
    """The positions of the tensors among ``values`` that share a storage
    with another, one list per storage."""
    groups: dict[int, list[int]] = {}
    for i, v in enumerate(values):
        if isinstance(v, torch.Tensor):
            groups.setdefault(gateway.storage_id(v), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def shared_input_conflict(values: Sequence[Any], groups: list[list[int]], written: set[int]) -> tuple[int, int] | None:
    """The first pair of positions in one of ``groups`` that conflicts
    (one written, may overlap the other), or None. Pairs of read-only
    inputs never conflict."""
    for group in groups:
        for k, i in enumerate(group):
            for j in group[k + 1 :]:
                if (i in written or j in written) and may_overlap(values[i], values[j]):
                    return i, j
    return None


def wrap_has_aliasing(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``SubgraphTracer.has_aliasing``: torch's input-output and
    output-output checks; two inputs of one storage refused only when one is
    written and they may overlap."""

    def has_aliasing(self: Any, *, allow_input_input_aliasing: bool = False) -> Any:
        info = orig(self, allow_input_input_aliasing=True)
        if info.has_aliasing or allow_input_input_aliasing:
            return info
        placeholders = gateway.hop_placeholders(self)
        values = [v for _node, v in placeholders]
        groups = shared_groups(values)
        if not groups:
            return info
        written = gateway.hop_written(self)
        hit = shared_input_conflict(values, groups, written)
        _trace.hop_inputs(values, [str(node) for node, _v in placeholders], groups, written, hit)
        if hit is not None:
            return gateway.aliasing_info(
                True,
                f"Input-to-input aliasing detected at nodes {placeholders[hit[0]][0]} and {placeholders[hit[1]][0]}: "
                "one is written and they may share a byte (symalias)",
            )
        with lock:
            stats.hop_shared_inputs += 1
        return info

    has_aliasing.__wrapped__ = orig  # type: ignore[attr-defined]
    return has_aliasing


def wrap_check_alias_and_mutation(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``_check_alias_and_mutation`` (a subgraph functionalized before
    lowering): torch's errors, except where its only finding is inputs
    sharing a storage in a subgraph that writes none of its inputs."""

    def _check_alias_and_mutation(graph_module: Any, inputs_fake: Any, name: str, pre_dispatch: bool) -> Any:
        try:
            return orig(graph_module, inputs_fake, name, pre_dispatch)
        except RuntimeError:
            found = gateway.hop_input_findings(graph_module, inputs_fake, pre_dispatch)
            if not isinstance(found, tuple):
                raise
            (input_input, input_output, output_output), mutated = found
            if not input_input or input_output or output_output or mutated:
                raise
            values = list(inputs_fake)
            names = [f"{name} input {i}" for i in range(len(values))]
            _trace.hop_inputs(values, names, shared_groups(values), set(), None)
            with lock:
                stats.hop_shared_inputs += 1
            return None

    _check_alias_and_mutation.__wrapped__ = orig  # type: ignore[attr-defined]
    return _check_alias_and_mutation
