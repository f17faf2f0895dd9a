"""Writes through a view functionalization cannot invert: the frame runs
eagerly.

AOTAutograd functionalizes a write through a view by writing the view's
new value back into its base with the view's inverse (``*_scatter``, or a
view's reverse function). That inverse is wrong where the view is not a
plain window of its base (stock torch 2.15, both backends, static and
dynamic):

* the view overlaps itself -- two of its indices reach one element
  (``x[0:1].expand(4).fill_(7)`` gives ``x[0] == 37`` (pytorch#197448); an
  overlapping ``as_strided`` of a clone then ``add_`` (#174371); an
  overlapping ``unfold`` then ``abs_`` is refused for internal overlap,
  which eager runs (#183888, #165409));
* an ``unfold`` whose step exceeds its size: the write zeroes the base
  elements no window covers (#198102).

Before the backend compiles a frame, symalias reads Dynamo's graph
(:func:`eager_reason`, a value): each in-place write (a ``*_`` method or
function, ``setitem``) whose written tensor overlaps itself -- decided by
the engine at the hints and proved for every allowed shape, else counted as
overlapping -- or is a view reached through such an ``unfold``. Such a
frame runs eagerly (``EagerFallback``, class ``functionalization``): one
warning, ``stats.fallback_kinds``. Writes through plain windows (slices,
steps, transposes, ``as_strided`` without overlap) are left to torch,
which gets them right.
"""

from __future__ import annotations

import operator
from typing import Any

import torch

from ._decision import overlaps_itself
from ._torch import gateway


def _written(node: Any) -> Any:
    """The node whose tensor an in-place node writes, or None."""
    if node.op == "call_method" and isinstance(node.target, str):
        name = node.target
        if name.endswith("_") and not name.startswith("_") and node.args:
            return node.args[0]
        return None
    if node.op == "call_function":
        if node.target is operator.setitem and node.args:
            return node.args[0]
        name = getattr(node.target, "__name__", "")
        if isinstance(name, str) and name.endswith("_") and not name.startswith("_") and node.args:
            return node.args[0]
        out = node.kwargs.get("out")
        if isinstance(out, torch.fx.Node):
            return out
    return None


def _value(node: Any) -> Any:
    v = node.meta.get("example_value") if isinstance(node, torch.fx.Node) else None
    return v if isinstance(v, torch.Tensor) else None


def _is_unfold(node: Any) -> bool:
    if node.op == "call_method":
        return bool(node.target == "unfold")
    return node.op == "call_function" and node.target in (torch.Tensor.unfold, torch.ops.aten.unfold.default)


def _gapped_unfold(node: Any) -> bool:
    """An ``unfold(dim, size, step)`` with ``step > size`` (unknown: yes)."""
    args = list(node.args[1:]) + [node.kwargs.get(k) for k in ("dimension", "size", "step") if k in node.kwargs]
    if len(args) < 3:
        return True
    size, step = args[1], args[2]
    if isinstance(size, int) and isinstance(step, int):
        return step > size
    return True


def _through_gapped_unfold(node: Any) -> bool:
    """Whether ``node``'s tensor is a view reached through a gapped
    ``unfold`` (walking back through the nodes whose values share its
    storage)."""
    v = _value(node)
    if v is None:
        return False
    storage = gateway.storage_id(v)
    seen = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if _is_unfold(n) and _gapped_unfold(n):
            return True
        for a in n.all_input_nodes:
            av = _value(a)
            if av is not None and gateway.storage_id(av) == storage:
                todo.append(a)
    return False


def eager_reason(gm: Any) -> str | None:
    """Why Dynamo's graph ``gm`` must run eagerly (the module doc), or None.
    Pure: reads the graph and its example values."""
    checked: set[Any] = set()
    for node in gm.graph.nodes:
        w = _written(node)
        if not isinstance(w, torch.fx.Node) or w in checked or w.op == "placeholder":
            # (an input that overlaps itself is H3's: ``self_overlap``
            # decides it, with a run-time check where not proved)
            continue
        checked.add(w)
        v = _value(w)
        if v is None:
            continue
        why = overlaps_itself(v)
        if why is not None:
            return f"a write through a view that {why} ({node.name})"
        if _through_gapped_unfold(w):
            return f"a write through an unfold whose step exceeds its size ({node.name})"
    return None
