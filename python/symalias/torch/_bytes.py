"""Byte-level synthetic bases: mutated aliased views of different dtypes.

AOTAutograd merges the inputs of a storage group with a mutated member
into one *synthetic base* and regenerates each member from it inside the
graph -- but only when every member (and its autograd base) has one dtype;
otherwise it refuses ("does not yet handle input mutations on views with
different dtypes"). For such a group symalias builds the base itself, at
byte level: a ``uint8`` tensor holding the bytes the members span (from
the first byte of one to the last of another; from the storage's first
byte when a member's offset is symbolic), each member regenerated from it
as

    base.as_strided(sizes + [k], [s*k for s in strides] + [1], offset*k - first)
        .view(dtype).select(-1, 0)

(``k`` the member's itemsize). ``as_strided`` comes first in that chain:
functionalization refuses a mutation through a view chain with
``as_strided`` anywhere else. Any member layout is expressible so (offsets
and strides count the member's own elements, so its bytes are aligned for
its dtype).

At run time the graph gets a *copy* of those bytes and the wrapper writes
it back after the call: functionalized scatters clone the whole storage
of their input (``clone_preserve_strides``), which would be the user's
whole buffer for a view of it. Bytes copied per call: the span, twice,
plus what the graph itself copies of its base -- never the rest of the
buffer (``python/benches/bench_decode.py`` measures it).

Three hook points, checked at ``install()`` like the others:
``merge_view_inputs`` (``_merge`` calls :func:`byte_merge` for frames with
such a group), ``gen_alias_from_base`` (the regeneration, for the members
of a byte base only) and ``AOTSyntheticBaseWrapper.post_compile`` (the
run-time wrapper, for frames with a byte base only). Groups of one dtype
keep torch's own rules, also in a frame that has a byte base.

Not handled (the frame runs eagerly, one warning, ``stats.dtype_fallbacks``):
members that require grad (a ``uint8`` base carries no gradient), members
whose metadata the frame mutates, and outputs that are views of merged
members (they would be views of the copy). A compile with a byte base is
not saved in AOTAutograd's cache (a hit would rebuild torch's wrapper).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from .._tensors import storage_key
from . import _state
from ._decision import decide_group, source_list
from ._state import EagerFallback


def _dtypes(t: Any) -> Tuple[Any, ...]:
    """The dtypes torch's same-dtype test looks at: the tensor's and its
    autograd base's."""
    b = t._base
    return (t.dtype,) if b is None else (t.dtype, b.dtype)


def _mixed(fwd_inputs: List[Any], group: List[int]) -> bool:
    """The members of ``group`` (or their autograd bases) have more than one
    dtype: torch refuses to merge them."""
    return len({d for i in group for d in _dtypes(fwd_inputs[i])}) > 1


def _groups(fwd_inputs: List[Any]) -> List[List[int]]:
    """Tensor inputs by storage, in order of first appearance."""
    import torch

    by_storage: Dict[int, List[int]] = {}
    for i, t in enumerate(fwd_inputs):
        if isinstance(t, torch.Tensor):
            by_storage.setdefault(storage_key(t), []).append(i)
    return list(by_storage.values())


def needs_byte_base(fwd_inputs: List[Any], mutated: List[bool]) -> bool:
    """Some storage group has a mutated member and members of different
    dtypes (by torch's test: the tensors' or their autograd bases')."""
    return any(
        len(g) > 1
        and any(mutated[i] for i in g)
        and _mixed(fwd_inputs, g)
        for g in _groups(fwd_inputs)
    )


def _torch_base(group: List[Any]) -> Any:
    """torch's synthetic base for a one-dtype group: the members' common
    autograd base, or a tensor over the storage in the first member's dtype."""
    import torch

    bases = [t._base for t in group if t._base is not None]
    if not bases:
        ex = group[0]
        b = torch.empty((0,), dtype=ex.dtype, device=ex.device)
        b.set_(ex.untyped_storage())
        return b
    base = bases[0]
    if any(b is not base for b in bases) or any(t._base is None and t is not base for t in group):
        raise EagerFallback("aliased mutated inputs with different autograd bases", dtypes=False)
    return base


def _extent(t: Any) -> Tuple[Any, Any]:
    """The bytes ``[first, end)`` that a non-empty ``t`` spans."""
    k = t.element_size()
    last = t.storage_offset() + sum((n - 1) * s for n, s in zip(t.size(), t.stride()))
    return t.storage_offset() * k, (last + 1) * k


def hull(members: List[Any], from_zero: bool = False) -> Optional[Tuple[Any, Any]]:
    """The bytes ``[first, end)`` from the first byte of one member to the
    last of another; None when every member is empty. ``first`` is always
    an integer: where a member's offset is symbolic (or ``from_zero``), 0
    -- the graph computes member offsets from it, and a SymInt made here
    would be one the graph's tracer does not know."""
    spans = [_extent(t) for t in members if t.numel() != 0]
    if not spans:
        return None
    starts = [a for a, _ in spans]
    first = 0 if from_zero or not all(isinstance(a, int) for a in starts) else min(starts)
    ends = [b for _, b in spans]
    if all(isinstance(b, int) for b in ends):
        return first, max(ends)
    # Symbolic: the end of the member that ends last at the hints (a
    # ``Max`` would be a new symbol the graph's tracer cannot follow).
    # Asking whether it ends last for every shape guards it (shape guards
    # of Dynamo), so at run time the largest end is that member's.
    last = max(ends, key=_hint)
    for b in ends:
        if b is not last and not bool(last >= b):
            raise EagerFallback("the byte span of the merged views changes order", dtypes=True)
    return first, last


def _hint(x: Any) -> int:
    """The example value of an int or SymInt."""
    node = getattr(x, "node", None)
    return int(node.hint) if node is not None and node.hint is not None else int(x)


def hull_view(members: List[Any], first: Any, end: Any) -> Any:
    """The storage's bytes ``[first, end)`` as a ``uint8`` view, made from
    the member with the smallest itemsize (all itemsizes are powers of two,
    so it divides every member's byte offsets)."""
    import torch

    ex = min(members, key=lambda t: t.element_size())
    k = ex.element_size()
    raw = ex.as_strided(((end - first) // k,), (1,), first // k)
    return raw if raw.dtype == torch.uint8 else raw.view(torch.uint8)


def byte_merge(
    aot_config: Any,
    fwd_inputs: List[Any],
    descs: Optional[List[Any]],
    mutated_input_info: List[Any],
) -> Tuple[List[Any], List[Any], Optional[List[Any]]]:
    """``merge_view_inputs`` for a frame with a group of mixed dtypes:
    (new inputs, their descriptors, the inner calling convention), in
    torch's conventions (bases first, then the other inputs in order)."""
    from torch._functorch._aot_autograd.descriptors import (
        DummyAOTInput,
        SyntheticBaseAOTInput,
        ViewBaseAOTInput,
    )

    if descs is None:
        descs = [DummyAOTInput(i) for i in range(len(fwd_inputs))]
    c = _state.current()
    if c is None:
        raise EagerFallback("views of different dtypes outside a symalias compile", dtypes=True)
    meta: List[Any] = [None] * len(fwd_inputs)
    bases: List[Any] = []
    base_descs: List[Any] = []
    merged = set()
    for g in _groups(fwd_inputs):
        if len(g) < 2 or not any(mutated_input_info[i].mutates_data for i in g):
            continue
        positions = [c.position(fwd_inputs, i) for i in g]
        mixed = _mixed(fwd_inputs, g)
        local = decide_group(
            [fwd_inputs[i] for i in g],
            source_list(aot_config, positions),
            [f"input {i}" for i in g],
            byte_base=mixed,
        )
        if len(local) < 2:
            continue
        members = [fwd_inputs[i] for i in g]
        if mixed:
            for i in g:
                if fwd_inputs[i].requires_grad:
                    raise EagerFallback(
                        f"input {i} of a storage with views of different dtypes requires grad "
                        "(a byte-level base carries no gradient)",
                        dtypes=True,
                    )
                if getattr(mutated_input_info[i], "mutates_metadata", False):
                    raise EagerFallback(
                        f"the frame changes the metadata of input {i}, a view of a storage with "
                        "views of different dtypes",
                        dtypes=True,
                    )
            span = hull(members)
            if span is None:
                continue  # every member is empty: nothing to merge
            first, end = span
            # A tensor of its own, as the run-time copy of those bytes will
            # be (storage offset 0: compilers address views from it).
            import torch

            bases.append(torch.empty((end - first,), dtype=torch.uint8, device=members[0].device))
            base_descs.append(SyntheticBaseAOTInput(descs[g[0]]))
            c.byte_bases[len(bases) - 1] = first == 0
            c.byte_members.update((id(t), first) for t in members)
        else:
            base = _torch_base(members)
            bases.append(base)
            has_base = [i for i in g if fwd_inputs[i]._base is not None]
            base_descs.append(
                ViewBaseAOTInput(descs[has_base[0]]) if has_base else SyntheticBaseAOTInput(descs[g[0]])
            )
        for i in g:
            meta[i] = (len(bases) - 1, fwd_inputs[i])
            merged.add(i)
    if not bases:
        return fwd_inputs, descs, None
    import torch

    # torch's order of the other inputs: non-tensors first, then tensors by storage group.
    others = [i for i, t in enumerate(fwd_inputs) if not isinstance(t, torch.Tensor)]
    others += [i for g in _groups(fwd_inputs) for i in g if i not in merged]
    for k, i in enumerate(others):
        meta[i] = len(bases) + k
    c.recipe.byte = True
    return (
        bases + [fwd_inputs[i] for i in others],
        base_descs + [descs[i] for i in others],
        meta,
    )


def regenerate(base: Any, member: Any, first: Any) -> Any:
    """``member``'s view of the byte ``base``, which holds the storage's
    bytes from ``first`` on (see the module docstring)."""
    # No arithmetic that leaves a SymInt as it is (``x * 1``, ``x - 0``):
    # the tracer would record the result as computed from itself.
    k = member.element_size()

    def times(x: Any) -> Any:
        return x if k == 1 else x * k

    offset = times(member.storage_offset()) if member.numel() != 0 else 0
    if first != 0 and member.numel() != 0:
        offset = offset - first
    raw = base.as_strided(
        list(member.size()) + [k],
        [times(s) for s in member.stride()] + [1],
        offset,
    )
    return raw.view(member.dtype).select(-1, 0)


def wrap_gen_alias_from_base(orig: Callable[..., Any]) -> Callable[..., Any]:
    def gen_alias_from_base(
        aliased_base_tensor: Any, target_meta_tensor: Any, target_requires_grad: bool, *args: Any, **kwargs: Any
    ) -> Any:
        c = _state.current()
        if c is not None and id(target_meta_tensor) in c.byte_members:
            first = c.byte_members[id(target_meta_tensor)]
            return regenerate(aliased_base_tensor, target_meta_tensor, first)
        return orig(aliased_base_tensor, target_meta_tensor, target_requires_grad, *args, **kwargs)

    gen_alias_from_base.__wrapped__ = orig  # type: ignore[attr-defined]
    return gen_alias_from_base


def wrap_post_compile(orig: Callable[..., Any]) -> Callable[..., Any]:
    def post_compile(self: Any, compiled_fn: Callable[..., Any], aot_config: Any, *args: Any, **kwargs: Any) -> Any:
        c = _state.current()
        if c is None or not c.byte_bases or not self.needs_post_compile:
            return orig(self, compiled_fn, aot_config, *args, **kwargs)
        from torch._functorch._aot_autograd.schemas import OutputType

        views = (OutputType.alias_of_input, OutputType.is_input)
        meta = kwargs.get("runtime_metadata")
        for k, out in enumerate(getattr(meta, "output_info", None) or []):
            if out.output_type in views and out.base_idx in c.byte_bases:
                raise EagerFallback(
                    f"output {k} is a view of inputs merged into a byte-level base", dtypes=True
                )
        return _runtime_wrapper(
            compiled_fn,
            {k: list(v) for k, v in self.base_groups.items()},
            list(self.other_arg_indices),
            dict(c.byte_bases),
            list(self.aliased_arg_idx_with_metadata_mutations),
        )

    post_compile.__wrapped__ = orig  # type: ignore[attr-defined]
    return post_compile


def _runtime_wrapper(
    compiled_fn: Callable[..., Any],
    base_groups: Dict[int, List[int]],
    others: List[int],
    byte: Dict[int, bool],
    meta_mutated: List[int],
) -> Callable[..., Any]:
    """torch's synthetic-base run-time wrapper, with byte bases where the
    compile made them."""
    import torch

    order = sorted(base_groups)

    def run(args: List[Any]) -> Any:
        bases = []
        write_back = []
        for b in order:
            group = base_groups[b]
            first = args[group[0]]
            if b in byte:
                members = [args[i] for i in group]
                span = hull(members, from_zero=byte[b])
                if span is None:  # every member empty now: a stand-in
                    bases.append(torch.empty((0,), dtype=torch.uint8, device=first.device))
                    continue
                # The graph works on a copy of the members' bytes (its
                # scatters clone their input's whole storage: that is the
                # copy's, not the user's buffer), written back after.
                view = hull_view(members, *span)
                copy = view.clone()
                write_back.append((view, copy))
                bases.append(copy)
                continue
            autograd = next((args[i]._base for i in group if args[i]._base is not None), None)
            if autograd is None:
                t = torch.empty((0,), dtype=first.dtype, device=first.device)
                t.set_(first.untyped_storage())
                autograd = t
            bases.append(autograd)
        inputs_meta = [args[i] for i in meta_mutated]
        new_args = bases + [args[i] for i in others]
        args.clear()
        outs = compiled_fn(new_args)
        for view, copy in write_back:
            view.copy_(copy)
        if not meta_mutated:
            return outs
        n = len(meta_mutated)
        for inp, mi in zip(inputs_meta, outs[-n:]):
            inp.as_strided_(mi.size(), mi.stride(), mi.storage_offset())
        return outs[:-n]

    run._boxed_call = True  # type: ignore[attr-defined]
    return run
