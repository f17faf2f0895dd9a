"""The run-time wrapper of a frame with a byte-level base:
``AOTSyntheticBaseWrapper.post_compile`` wrapped.

At run time the graph's base is a ``uint8`` tensor over a slice of the
members' storage (:func:`span_alias`): it *shares* those bytes, so nothing
is copied in, and the mutation AOTAutograd applies to the base after the
call lands in the user's buffer. A storage of its own matters: the
functionalized scatters clone their input's whole storage
(``clone_preserve_strides``), which for a plain view of the user's buffer
would be the whole buffer (measured: 166 ms per call at 64 MiB). Bytes
copied per call (``python/benches/bench_decode.py``, profiler): none by
the wrapper; inductor's kernels write the mutated members in place;
``aot_eager``'s functional graph copies the span per scatter -- never the
rest of the buffer.

Frames without such a base keep torch's wrapper; an output that is a view
of a merged base runs the frame eagerly (``EagerFallback``).
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from . import _compile, _state
from ._bytes import hull, whole_storage
from ._compile import EagerFallback
from ._torch import gateway


def span_alias(member: Any, first: int, end: int) -> Any:
    """The storage's bytes ``[first, end)`` as a ``uint8`` tensor of a
    storage of its own that *shares* those bytes (a slice of the untyped
    storage: no copy). The graph's scatters clone their input's whole
    storage (``clone_preserve_strides``): of this tensor, that is the
    span, not the user's buffer; and the mutation AOTAutograd applies to
    the base after the call lands in the user's bytes directly."""

    t = torch.empty((0,), dtype=torch.uint8, device=member.device)
    return t.set_(member.untyped_storage()[first:end])


def wrap_post_compile(orig: Callable[..., Any]) -> Callable[..., Any]:
    def post_compile(self: Any, compiled_fn: Callable[..., Any], aot_config: Any, *args: Any, **kwargs: Any) -> Any:
        c = _compile.current()
        if c is None or not self.needs_post_compile:
            return orig(self, compiled_fn, aot_config, *args, **kwargs)
        kinds = gateway.output_types()
        views = (kinds.alias_of_input, kinds.is_input)
        meta = kwargs["runtime_metadata"]
        for k, out in enumerate(meta.output_info):
            if out.output_type not in views:
                continue
            if out.base_idx in c.bytes.byte_bases or out.base_idx in c.bytes.unit_bases:
                raise EagerFallback(f"output {k} is a view of inputs merged into a byte-level base", dtypes=True)
            if out.base_idx in c.bytes.offset_bases:
                # torch 2.15 regenerates such an output with the base's
                # offset added to its own (``gen_alias_from_base``, its
                # storages differ): the view would land that far off.
                raise EagerFallback(
                    f"output {k} is a view of inputs merged into a synthetic base at a storage offset "
                    f"({c.bytes.offset_bases[out.base_idx]}), which torch regenerates at the wrong offset"
                )
        if not (c.bytes.byte_bases or c.bytes.unit_bases):
            return orig(self, compiled_fn, aot_config, *args, **kwargs)
        if not _state.feature_on("byte_bases"):
            # This torch's wrapper keeps its groups in other fields: the
            # frame runs eagerly rather than through a wrapper built blind.
            raise EagerFallback("a byte-level synthetic base needs torch >= 2.13 (feature byte_bases)", dtypes=True)
        return _runtime_wrapper(
            compiled_fn,
            {k: list(v) for k, v in self.base_groups.items()},
            list(self.other_arg_indices),
            dict(c.bytes.byte_bases),
            set(c.bytes.unit_bases),
            list(self.aliased_arg_idx_with_metadata_mutations),
        )

    post_compile.__wrapped__ = orig  # type: ignore[attr-defined]
    return post_compile


def _runtime_wrapper(
    compiled_fn: Callable[..., Any],
    base_groups: dict[int, list[int]],
    others: list[int],
    byte: dict[int, bool],
    units: set[int],
    meta_mutated: list[int],
) -> Callable[..., Any]:
    """torch's synthetic-base run-time wrapper, with byte bases where the
    compile made them. Follows torch 2.15's ``AOTSyntheticBaseWrapper
    .post_compile`` (``runtime_wrappers.py``: bases from the groups, the
    other arguments after them, metadata mutations replayed with
    ``as_strided_`` on the outputs' tail); it differs in three ways: a byte
    base spans the members' bytes (``hull``), rounded spans past the
    storage's end run on a copy written back after the call, and a group of
    members that require grad takes their autograd base (``units``)."""

    order = sorted(base_groups)

    def run(args: list[Any]) -> Any:
        bases = []
        copies: list[tuple[Any, Any]] = []
        for b in order:
            group = base_groups[b]
            lead = args[group[0]]
            if b in byte:
                members = [args[i] for i in group]
                span = hull(members, from_zero=byte[b])
                if span is None:  # every member empty now: a stand-in
                    bases.append(torch.empty((0,), dtype=torch.uint8, device=lead.device))
                    continue
                first, end = span
                have = lead.untyped_storage().nbytes()
                if end <= have:
                    bases.append(span_alias(lead, first, end))
                    continue
                # The span rounded to whole wide elements passes the
                # storage's end: a copy of those bytes, written back.
                user = span_alias(lead, first, have)
                tmp = torch.zeros((end - first,), dtype=torch.uint8, device=lead.device)
                tmp[: have - first].copy_(user)
                copies.append((user, tmp))
                bases.append(tmp)
                continue
            if b in units:  # the autograd base of the members that require grad
                grad = next(args[i] for i in group if args[i].requires_grad)
                bases.append(gateway.autograd_root(grad))
                continue
            autograd = next((b for i in group if (b := gateway.autograd_base(args[i])) is not None), None)
            bases.append(whole_storage(lead) if autograd is None else autograd)
        inputs_meta = [args[i] for i in meta_mutated]
        new_args = bases + [args[i] for i in others]
        args.clear()
        outs = compiled_fn(new_args)
        for user, tmp in copies:
            user.copy_(tmp[: user.numel()])
        if not meta_mutated:
            return outs
        n = len(meta_mutated)
        for inp, mi in zip(inputs_meta, outs[-n:]):
            inp.as_strided_(mi.size(), mi.stride(), mi.storage_offset())
        return outs[:-n]

    run._boxed_call = True  # type: ignore[attr-defined]
    return run
