"""Inductor's no-op removal, asked about the bytes (H13).

Two Inductor passes replace a node by one of its operands when the op
computes nothing: ``joint_graph.remove_no_ops`` (``v * 1``, ``v + 0``,
``v - 0``, ``v / 1``) and ``post_grad.remove_noop_ops`` (a ``clone``, a
``copy``, an ``alias``, a full ``slice``, ...). Each user of the node then
reads the operand's memory *where the user runs*, not where the node ran,
and the graph may return the operand itself. Both are wrong when

1. *a write to the operand's bytes is ordered between the node and one of
   its readers*: ``y = x[1:3] * 1.0; x.zero_(); return y + 0`` returns
   zeros under stock Inductor (pytorch#198131): the functional graph's
   epilogue ``copy_`` into ``x`` runs before the output is read. torch only
   asks whether a direct user of the operand mutates it, not a write to its
   base or another view;
2. *the node is returned and the operand lives in a graph input (or in
   another output)*: ``return x * 1`` returns ``x`` itself (#197893); the
   caller's in-place update of the result then changes its input;
3. *a write lands on the node's own memory*: with the node gone, the write
   goes to the operand.

The decision (:func:`pinned`) is a value computed before the pass: each
candidate node of the pass (by target) whose removal could do one of the
three. Overlap of a write with an operand is decided in bytes by the engine
when both are views of one storage (``x[1:3] * 1`` is removed when only
``x[5:]`` is written); where the operand's memory is known only through
another removable no-op, or a functionalized op the reinplace pass may
later write into its input, the storage counts as a whole. The pass then
runs with each pinned node hidden from it (:func:`hidden`: its target
swapped for a stand-in the pass does not know, restored after), so torch's
own pass decides everything else. The counter is ``stats.noops_kept``.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Iterator
from typing import Any, Callable

import torch

from . import _clones, _state
from ._decision import may_overlap
from ._state import lock, stats
from ._torch import gateway

_INPUTS = ("placeholder", "get_attr")


def joint_noop(zeros: Any, ones: Any) -> Callable[[Any], bool]:
    """Whether a node is one ``joint_graph.remove_no_ops`` may replace by an
    operand: ``+ 0``, ``- 0``, ``* 1``, ``/ 1`` (a zero or one as a scalar
    or a node of the pass's ``zeros`` / ``ones``)."""
    aten = torch.ops.aten

    def scalar(e: Any, v: int) -> bool:
        return isinstance(e, (int, float)) and not isinstance(e, bool) and e == v

    def zero(e: Any) -> bool:
        return scalar(e, 0) or (isinstance(e, torch.fx.Node) and e in zeros)

    def one(e: Any) -> bool:
        return scalar(e, 1) or (isinstance(e, torch.fx.Node) and e in ones)

    def test(node: Any) -> bool:
        if node.op != "call_function" or len(node.args) != 2:
            return False
        t, (a, b) = node.target, node.args
        if t is aten.add.Tensor:
            return zero(a) or zero(b)
        if t is aten.sub.Tensor:
            return zero(b)
        if t is aten.mul.Tensor:
            return one(a) or one(b)
        if t is aten.div.Tensor:
            return one(b)
        return False

    return test


class _Hidden:
    """A pinned node's target while the pass runs: the same op under a name
    the pass does not look for."""

    __slots__ = ("op",)

    def __init__(self, op: Any) -> None:
        self.op = op

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.op(*args, **kwargs)

    @property
    def __name__(self) -> str:
        return f"symalias_kept_{self.op}"

    def __repr__(self) -> str:
        return f"kept({self.op!r})"


def _val(node: Any) -> Any:
    v = node.meta.get("val")
    return v if isinstance(v, torch.Tensor) else None


class _Graph:
    """What the decision reads of a graph: order, storages, which storages
    a value may end up living in, writes, last readers, outputs."""

    def __init__(self, graph: Any, is_noop: Callable[[Any], bool]) -> None:
        self.nodes = list(graph.nodes)
        self.order = {n: i for i, n in enumerate(self.nodes)}
        self.candidates = [n for n in self.nodes if n.op == "call_function" and is_noop(n)]
        self.is_candidate = set(self.candidates)
        self.storage: dict[Any, Any] = {}
        for n in self.nodes:
            s = gateway.fx_node_storage(n) if _val(n) is not None else None
            self.storage[n] = s if s is not None else ("node", n)
        self.lives = self._all_lives()
        self.inputs = {self.storage[n] for n in self.nodes if n.op in _INPUTS and not gateway.is_tangent_placeholder(n)}
        self.writes = [
            (self.order[n], a) for n in self.nodes if n.op == "call_function" for a in gateway.fx_written_nodes(n)
        ]
        out = self.nodes[-1]
        self.outputs = list(out.all_input_nodes) if out.op == "output" else []
        self.last, self.returned = self._readers()

    def _all_lives(self) -> dict[Any, set[Any]]:
        """Storage -> the storages its bytes may turn out to be: a removable
        no-op's, its operands' too; a functionalized op's result, its
        inputs' too (the reinplace pass may write them in place)."""
        lives: dict[Any, set[Any]] = {}
        functionalized = gateway.functionalized_mutation_ops()
        for n in self.nodes:
            s = self.storage[n]
            here = lives.setdefault(s, {s})
            src = n.args[0] if n.op == "call_function" and n.target is operator.getitem else None
            if n in self.is_candidate:
                feeds = n.all_input_nodes
            elif isinstance(src, torch.fx.Node) and src.target in functionalized:
                feeds = src.all_input_nodes
            else:
                continue
            for a in feeds:
                here |= lives.get(self.storage[a], {self.storage[a]})
        return lives

    def _readers(self) -> tuple[dict[Any, int], dict[Any, bool]]:
        """Each node's last reader (through views and removable no-ops) and
        whether its value reaches the output, computed backwards."""
        last: dict[Any, int] = {}
        returned: dict[Any, bool] = {}
        out_set = set(self.outputs)
        for n in reversed(self.nodes):
            at = self.order[n]
            ret = n in out_set
            for u in n.users:
                at = max(at, self.order[u])
                if self._transparent(n, u):
                    at = max(at, last.get(u, self.order[u]))
                    ret = ret or returned.get(u, False)
            last[n] = at
            returned[n] = ret
        return last, returned

    def lives_of(self, n: Any) -> set[Any]:
        s = self.storage[n]
        return self.lives.get(s, {s})

    def _transparent(self, n: Any, u: Any) -> bool:
        """Whether a user's value is ``n``'s memory (a view), or may become
        it (a removable no-op over it)."""
        return u in self.is_candidate or (u.op == "call_function" and self.storage.get(u) == self.storage[n])

    def overlaps(self, written: Any, operand: Any) -> bool:
        """Whether a write to ``written`` may touch ``operand``'s bytes once
        removable no-ops are gone."""
        common = self.lives_of(written) & self.lives_of(operand)
        if not common:
            return False
        s = self.storage[operand]
        if common == {s} and self.storage[written] == s:
            a, b = _val(written), _val(operand)
            if a is not None and b is not None:
                return may_overlap(a, b)
        return True


def _written_why(g: _Graph, n: Any, operands: list[Any]) -> str | None:
    """Reasons 1 and 3 of the module doc, for no-op ``n``."""
    here = g.order[n]
    for at, w in g.writes:
        if at <= here:
            continue
        if g.storage[w] == g.storage[n]:
            return "a later write lands on its result"
        if at < g.last[n] and any(g.overlaps(w, a) for a in operands):
            return "its operand is written before a reader"
    return None


def _returned_why(g: _Graph, n: Any, operands: list[Any]) -> str | None:
    """Reason 2 of the module doc, for no-op ``n``."""
    if not g.returned[n]:
        return None
    for a in operands:
        lives = g.lives_of(a)
        if lives & g.inputs:
            return "returned, its operand lives in a graph input"
        if any(lives & g.lives_of(o) for o in g.outputs if g.storage[o] != g.storage[n]):
            return "returned, its operand lives in another output"
    return None


def pinned(graph: Any, is_noop: Callable[[Any], bool]) -> dict[Any, str]:
    """The no-ops (``is_noop``: the pass's own test) the pass must keep,
    each with why (the module doc's three reasons). Pure: reads the graph,
    changes nothing."""
    g = _Graph(graph, is_noop)
    out: dict[Any, str] = {}
    for n in g.candidates:
        operands = [a for a in n.all_input_nodes if a is not n]
        if any(g.storage[a] == g.storage[n] for a in operands):
            continue  # a view of its operand: removing it moves no read
        why = _written_why(g, n, operands) or _returned_why(g, n, operands)
        if why is not None:
            out[n] = why
    return out


@contextlib.contextmanager
def hidden(nodes: dict[Any, str]) -> Iterator[None]:
    """Each node's target swapped for a stand-in the pass does not look
    for, for the block; restored after, whatever happens."""
    swapped = []
    try:
        for n in nodes:
            op = n.target
            n.target = _Hidden(op)
            swapped.append((n, op))
        yield
    finally:
        for n, op in swapped:
            n.target = op


def _decide(graph: Any, is_noop: Callable[[Any], bool]) -> dict[Any, str]:
    try:
        keep = pinned(graph, is_noop)
    except Exception as e:  # an unreadable graph: keep every no-op
        _state.log.debug("symalias: no-op decision failed (%s); keeping every no-op", e)
        keep = {}
        for n in graph.nodes:
            try:
                if is_noop(n):
                    keep[n] = "the graph could not be read"
            except Exception:
                keep[n] = "the graph could not be read"
    if keep:
        with lock:
            stats.noops_kept += len(keep)
    return keep


def wrap_remove_no_ops(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``joint_graph.remove_no_ops``: torch's pass, with the no-ops whose
    removal would change a value hidden from it."""

    def remove_no_ops(gm: Any, zeros: Any, ones: Any, *args: Any, **kwargs: Any) -> Any:
        with hidden(_decide(gm.graph, joint_noop(zeros, ones))):
            return orig(gm, zeros, ones, *args, **kwargs)

    remove_no_ops.__wrapped__ = orig  # type: ignore[attr-defined]
    return remove_no_ops


def wrap_remove_noop_ops(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``post_grad.remove_noop_ops``: torch's pass, with the no-ops whose
    removal would change a value hidden from it; then (feature
    ``input_clones``) the user's clones of inputs given back to the ops
    that write them (``_clones``)."""

    def remove_noop_ops(graph: Any, *args: Any, **kwargs: Any) -> Any:
        kept: list[Any] = []
        if _state.feature_on("input_clones"):
            try:
                kept = _clones.keep(graph)
            except Exception:
                kept = []
        with hidden(_decide(graph, gateway.is_post_grad_noop)):
            out = orig(graph, *args, **kwargs)
        if kept:
            _clones.restore(graph, kept)
        return out

    remove_noop_ops.__wrapped__ = orig  # type: ignore[attr-defined]
    return remove_noop_ops
