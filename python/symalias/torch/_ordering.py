"""An Inductor post-grad pass that orders reads of dtype views of a
synthetic base before later writes of its bytes.

Inductor lowers ``view(dtype)`` between itemsizes to a fallback whose output
aliases its input, and its scheduler does not order that alias's readers
before a later write of the input. A frame with a byte-level base
(``_bytes``) reads its members through exactly such views, so while it
compiles this pass runs after the user's own post-grad passes
(:func:`hold_ordering_pass`, undone when the compile ends). It is a
``CustomGraphPass``: its ``uuid`` keys inductor's FX graph cache.
"""

from __future__ import annotations

import functools
from typing import Any

import torch

from . import _compile
from ._torch import gateway


def _bits(dtype: Any) -> int:
    return int(dtype.itemsize) * 8


def clone_dtype_view_inputs(graph: Any) -> None:
    """Inductor's lowering of ``view(dtype)`` between itemsizes is a fallback
    whose output aliases its input, and its scheduler does not order that
    alias's readers before a later write of the input: after reinplacing, a
    read of a member through it can move past a write of the same bytes
    through another member (stock torch 2.15 does the same to a user's
    ``x.as_strided(...).view(torch.int64)`` read before ``x.fill_``). On
    the functional graph (before reinplacing) the ``as_strided`` input of
    every such ``view(dtype)`` becomes a copy, made where the graph reads
    it -- a direct read of the base, which the scheduler orders. It copies
    the member's bytes (the base's span where the member's strides are not
    dense) per read."""

    aten = torch.ops.aten
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten.view.dtype:
            continue
        src = node.args[0]
        if not isinstance(src, torch.fx.Node) or src.target is not aten.as_strided.default:
            continue
        val = src.meta.get("val")  # (absent on a node no fake run reached)
        if val is None:
            continue
        if _bits(val.dtype) == _bits(node.args[1]):
            continue  # inductor's own dtype view, followed by its scheduler
        dense, base = val.is_contiguous(), src.args[0]
        if not (dense or isinstance(base, torch.fx.Node)):
            continue
        with graph.inserting_before(node):
            if dense:
                copy = graph.call_function(aten.clone.default, (src,))
                copy.meta["val"] = val.clone()
            else:  # the strides stay: the view of a copy of its base
                whole = graph.call_function(aten.clone.default, (base,))
                whole.meta["val"] = base.meta["val"].clone()  # type: ignore[union-attr]
                copy = graph.call_function(aten.as_strided.default, (whole, *src.args[1:]), dict(src.kwargs))
                copy.meta["val"] = val
        node.replace_input_with(src, copy)
    graph.lint()


@functools.cache
def _ordering_pass() -> Any:
    """:func:`clone_dtype_view_inputs` as an inductor ``CustomGraphPass``
    (its ``uuid`` keys inductor's FX graph cache), made once."""

    class CloneDtypeViewInputs(gateway.custom_graph_pass()):  # type: ignore[misc]
        def __call__(self, graph: Any) -> None:
            clone_dtype_view_inputs(graph)

        def uuid(self) -> Any:
            return "symalias.clone_dtype_view_inputs.v1"

    return CloneDtypeViewInputs()


def hold_ordering_pass(c: _compile.Compile) -> None:
    """Runs :func:`clone_dtype_view_inputs` after the user's own post-grad
    passes for the rest of compile ``c`` (a frame with a byte-level base)."""

    ours = _ordering_pass()
    theirs = gateway.post_grad_passes()
    listed = list(theirs) if isinstance(theirs, (list, tuple)) else ([theirs] if theirs else [])
    if ours not in listed:  # (a nested compile holds it already)
        _compile.hold(c, gateway.patch_post_grad_passes([*listed, ours]))
