"""Functionalized mutating ops keep eager's reads: a read-only argument
that overlaps a mutated one sees the op's writes.

torch functionalizes a custom op that mutates some arguments -- and a
higher-order op whose subgraph mutates an input (``torch.cond`` under
``no_grad``) -- as ``auto_functionalized_v2``: each mutated argument is
regenerated from a clone of its base (``_generate_new_op_kwargs_from_bases``
in ``torch._higher_order_ops.auto_functionalize``), the op runs on those,
and the clones are copied back. Every other argument is passed as it was:
a view of the *original* base. A read-only argument that shares bytes with
a mutated one therefore reads them as they were before the op's writes,
where eager -- both views of one buffer -- reads them after. ``wr(a, b)``
doing ``a.add_(1); return b.clone()`` called as ``wr(x[0:4], x[2:6])``:
eager returns ``[3, 4, 4, 5]``, stock ``aot_eager`` ``[2, 3, 4, 5]``.

symalias wraps that function; it runs in the op's dense kernel (at run time
under ``aot_eager``) and in Inductor's decomposition of the op (traced at
compile time). A read-only tensor argument in the storage of a base that was
cloned, and that may overlap (in bytes, for some allowed shape: for symbolic
layouts only a proof for every allowed shape counts as disjoint) an argument
regenerated from that clone, is itself regenerated from the clone at its own
storage offset -- so the op reads through the memory it writes, as in
eager. Disjoint arguments are passed as they were: no copy, no view. A base
the reinplace pass did not clone is the user's buffer already: nothing to
do. The clone spans the base's storage from element 0 to the base's end
(``clone_preserve_strides``); an argument reaching past it fails torch's own
check (``torch._check``, deferred to run time when symbolic), never reads
stale bytes. An argument of another dtype than its base is regenerated in
the base's units (``_regenerate.regenerate``), or, misaligned, refused.

A higher-order op is different: its subgraph was functionalized on its own,
its writes to an operand moved to the end (``copy_``), so a regenerated
operand would still be read before the write. Where a read-only operand may
overlap a mutated one, the frame runs eagerly (``EagerFallback``, raised
while AOTAutograd traces it): the op then runs its subgraph on the user's
tensors, as eager does.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import torch

from . import _compile
from ._bytes import misaligned
from ._compile import EagerFallback
from ._decision import may_overlap
from ._regenerate import regenerate
from ._state import lock, stats
from ._torch import gateway


def _required_length(t: Any) -> Any:
    """Elements of its storage that ``t`` needs (from element 0)."""
    return gateway.required_storage_length(t)


def _on_clone(arg: Any, base: Any, clone: Any) -> Any:
    """``arg``, a view of ``base``'s storage, as the same view of
    ``clone`` (``base`` cloned from its storage's element 0 on)."""
    gateway.deferred_check(
        _required_length(arg) <= _required_length(base),
        lambda: (
            "symalias: a read-only argument of a functionalized op reaches past the base "
            "its overlapping mutated argument was cloned from"
        ),
    )
    if arg.dtype == clone.dtype:
        return clone.as_strided(arg.size(), arg.stride(), arg.storage_offset())
    if _compile.current() is not None:
        # (a dtype view in the graph differs between Inductor's two traces
        # of the decomposition: the frame runs eagerly instead)
        raise EagerFallback(
            f"a read-only {arg.dtype} argument of a functionalized op overlaps a mutated argument "
            f"of a {clone.dtype} base"
        )
    why = misaligned(arg, clone)
    if why is not None:
        raise RuntimeError(
            f"symalias: a read-only {arg.dtype} argument of a functionalized op overlaps a mutated "
            f"argument and is not whole elements of their {clone.dtype} base: {why}"
        )
    return regenerate(clone, arg)


def _reread(value: Any, bases: list[Any], clones: list[Any], mutated: list[Any], hop: bool) -> Any:
    """``value`` (a read-only argument: a tensor, a list of them, or
    anything else) with each tensor that may overlap a mutated argument
    regenerated from its base's clone -- or, for a higher-order op traced
    in a symalias compile (``hop``), the frame refused to eager."""
    if isinstance(value, (list, tuple)):
        return type(value)(_reread(v, bases, clones, mutated, hop) for v in value)
    if not isinstance(value, torch.Tensor):
        return value
    for base, clone in zip(bases, clones):
        if base is None or clone is base or gateway.storage_id(value) != gateway.storage_id(base):
            continue
        cloned = gateway.storage_id(clone)
        peers = [m for m in mutated if isinstance(m, torch.Tensor) and gateway.storage_id(m) == cloned]
        with gateway.untraced():
            hit = any(_peer_overlap(value, _on_base(m, base)) for m in peers)
        if hit:
            if hop and _compile.current() is not None:
                raise EagerFallback(
                    "a higher-order op's subgraph mutates an operand that another operand overlaps "
                    "(its functionalized subgraph would read that operand before the write)"
                )
            with lock:
                stats.functional_rereads += 1
            return _on_clone(value, base, clone)
    return value


def _peer_overlap(value: Any, peer: Any) -> bool:
    """``may_overlap``, with a peer that could not be placed on the base
    (None) counting as overlapping."""
    return peer is None or may_overlap(value, peer)


def _on_base(m: Any, base: Any) -> Any:
    """A mutated argument ``m`` (regenerated from the clone of ``base``) as
    the same view of ``base``'s storage; None where the dtypes differ (then
    it counts as overlapping)."""
    if m.dtype != base.dtype:
        return None
    return base.as_strided(m.size(), m.stride(), m.storage_offset())


def _tensors(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return [value] if isinstance(value, torch.Tensor) else []


def _uncloned_overlaps(bases: list[Any], new_bases: list[Any], mutated: list[Any], readers: list[Any]) -> set[int]:
    """Indices of the bases left uncloned (the reinplace pass's verdict)
    that a read-only argument shares with an overlapping mutated one."""
    out = set()
    for i, (base, new) in enumerate(zip(bases, new_bases)):
        if base is None or new is not base:
            continue
        key = gateway.storage_id(base)
        peers = [m for m in mutated if gateway.storage_id(m) == key]
        for r in readers:
            if gateway.storage_id(r) == key and any(r is not m and may_overlap(r, m) for m in peers):
                out.add(i)
    return out


def wrap_generate_op_kwargs(orig: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`_wrap_generate_op_kwargs`, adapted to a torch whose function
    has no ``_is_out`` (before 2.13: no ``out=`` form, so ``_is_out`` is
    False throughout)."""
    if "_is_out" in inspect.signature(orig).parameters:
        return _wrap_generate_op_kwargs(orig)

    def with_is_out(schema: Any, kwargs: Any, all_bases: Any, only: Any, _is_out: Any, *args: Any, **kw: Any) -> Any:
        return orig(schema, kwargs, all_bases, only, *args, **kw)

    inner = _wrap_generate_op_kwargs(with_is_out)

    def _generate_new_op_kwargs_from_bases(
        schema: Any, kwargs: Any, all_bases: Any, only: Any, *args: Any, **kw: Any
    ) -> Any:
        return inner(schema, kwargs, all_bases, only, False, *args, **kw)

    _generate_new_op_kwargs_from_bases.__wrapped__ = orig  # type: ignore[attr-defined]
    return _generate_new_op_kwargs_from_bases


def _wrap_generate_op_kwargs(orig: Callable[..., Any]) -> Callable[..., Any]:
    """Around ``_generate_new_op_kwargs_from_bases``. A base the reinplace
    pass left uncloned is cloned after all where a read-only argument
    overlaps a mutated one: Inductor materializes the views of an unrealized
    base as buffers of their own (``add_read(y[7:8], y[7:8])`` of a
    scattered ``y`` read a copy: random seed 47), while a clone is one buffer
    both are views of. That is decided on a probe of torch's function that
    no trace records. Then the read-only arguments are regenerated from the
    clones."""

    def _generate_new_op_kwargs_from_bases(
        schema: Any, kwargs: Any, all_bases: Any, _only_clone_these_bases: Any, _is_out: Any, *args: Any, **kw: Any
    ) -> Any:
        # (``orig`` pops the view metadata out of ``kwargs``: each call a copy)
        if _is_out or not all_bases:
            return orig(schema, kwargs, all_bases, _only_clone_these_bases, _is_out, *args, **kw)
        hop = gateway.is_hop_schema(schema)
        mutable = set(gateway.mutable_args_of_schema(schema))
        clone = _only_clone_these_bases
        if clone is not None and not hop and len(set(clone)) < len(all_bases):
            with gateway.untraced():
                probe, probe_bases = orig(schema, dict(kwargs), all_bases, clone, _is_out, *args, **kw)
                mutated = [t for name in mutable for t in _tensors(probe.get(name))]
                readers = [t for a in schema.arguments if a.name not in mutable for t in _tensors(probe.get(a.name))]
                extra = _uncloned_overlaps(list(all_bases), list(probe_bases), mutated, readers)
            if extra:
                clone = tuple(sorted(set(clone) | extra))
        new_kwargs, bases_new = orig(schema, dict(kwargs), all_bases, clone, _is_out, *args, **kw)
        if all(n is b for n, b in zip(bases_new, all_bases)):
            return new_kwargs, bases_new
        mutated = [t for name in mutable for t in _tensors(new_kwargs.get(name))]
        for arg in schema.arguments:
            if arg.name in mutable or arg.name not in new_kwargs:
                continue
            new_kwargs[arg.name] = _reread(new_kwargs[arg.name], list(all_bases), list(bases_new), mutated, hop)
        return new_kwargs, bases_new

    _generate_new_op_kwargs_from_bases.__wrapped__ = orig  # type: ignore[attr-defined]
    return _generate_new_op_kwargs_from_bases
