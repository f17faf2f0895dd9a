"""Members regenerated from a synthetic base while AOTAutograd traces:
``gen_alias_from_base`` and ``create_synthetic_base_metadata`` wrapped.

For the members of a byte-level base or of a mixed-dtype group's autograd
base (``_bytes``), :func:`regenerate` views the base through
``as_strided`` in the base's units, then ``view(dtype)``:

    base.as_strided(sizes + [k], [s*k for s in strides] + [1], offset*k - first)
        .view(dtype).select(-1, 0)

(``k`` the member's itemsize over the base's; for ``k = 1`` without the
extra dimension). ``as_strided`` comes first in that chain: functionalization
refuses a mutation through a view chain with ``as_strided`` anywhere else.

For the members of torch's own one-dtype bases, :func:`regenerate_member`
works around torch 2.15 adding the base's storage offset twice.
Members of no such base keep torch's own regeneration. Which members are
which, the compile's ``ByteBases`` record says (``_compile``).
"""

from __future__ import annotations

from typing import Any, Callable

from . import _compile


def regenerate(base: Any, member: Any, first: Any = 0) -> Any:
    """``member``'s view of ``base``, a tensor over the same storage from its
    element ``first`` on: a ``uint8`` byte base (any member; see the module
    docstring) or a group's autograd base of another dtype (members that
    passed :func:`misaligned`), through ``as_strided`` in the base's units,
    then ``view(dtype)``."""
    # No arithmetic that leaves a SymInt as it is (``x * 1``, ``x - 0``):
    # the tracer would record the result as computed from itself.
    k, big = member.element_size(), base.element_size()
    sizes, strides = list(member.size()), list(member.stride())
    # (an empty member's offset may lie outside the base: it reaches nothing)
    offset = member.storage_offset() if member.numel() != 0 else 0
    if k > big:  # each element is r of the base's, along a new last dimension
        r = k // big
        sizes, strides, offset = [*sizes, r], [s * r for s in strides] + [1], offset * r
    elif k < big:  # r elements per base element, along the last dimension
        r = big // k
        sizes[-1] = sizes[-1] // r
        strides, offset = [s // r for s in strides[:-1]] + [1], offset // r
    if first != 0 and member.numel() != 0:
        offset = offset - first
    raw = base.as_strided(sizes, strides, offset)
    if k > big:
        return raw.view(member.dtype).select(-1, 0)
    return raw if raw.dtype == member.dtype else raw.view(member.dtype)


def regenerate_member(base: Any, member: Any, requires_grad: bool) -> Any:
    """A member of torch's own synthetic base (one dtype), regenerated while
    AOTAutograd traces it: ``as_strided`` at the member's own storage offset.
    torch 2.15's ``gen_alias_from_base`` adds the base's storage offset where
    the two tensors' storages differ -- which they always do while tracing
    (the member is the caller's fake, the base the graph's input) -- so a
    base at a non-zero offset with no ``_base`` of its own (``x[4:].detach()``,
    ``set_``) had its members written that many elements too far."""
    out = base.as_strided(member.size(), member.stride(), member.storage_offset())
    if base.requires_grad and not requires_grad:
        return out.detach()
    if not base.requires_grad and requires_grad:
        return out.requires_grad_(True)
    return out


def wrap_gen_alias_from_base(orig: Callable[..., Any]) -> Callable[..., Any]:
    def gen_alias_from_base(
        aliased_base_tensor: Any, target_meta_tensor: Any, target_requires_grad: bool, *args: Any, **kwargs: Any
    ) -> Any:
        c = _compile.current()
        if c is not None and id(target_meta_tensor) in c.bytes.byte_members:
            first = c.bytes.byte_members[id(target_meta_tensor)]
            return regenerate(aliased_base_tensor, target_meta_tensor, first)
        if c is not None and id(target_meta_tensor) in c.bytes.unit_members:
            return regenerate(aliased_base_tensor, target_meta_tensor)
        if c is not None and id(target_meta_tensor) in c.bytes.torch_members:
            return regenerate_member(aliased_base_tensor, target_meta_tensor, target_requires_grad)
        return orig(aliased_base_tensor, target_meta_tensor, target_requires_grad, *args, **kwargs)

    gen_alias_from_base.__wrapped__ = orig  # type: ignore[attr-defined]
    return gen_alias_from_base


def wrap_synthetic_base_metadata(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``create_synthetic_base_metadata`` asserts that a base's members are
    all leaves or none: a view in another dtype of a tensor that requires
    grad is a leaf (``view(dtype)`` is not differentiable) beside
    non-leaf members. Such a member is regenerated from the non-leaf
    autograd base: it counts as a non-leaf here."""

    def create_synthetic_base_metadata(
        m: Any, synthetic_base_info: Any, outer_args: Any, *args: Any, **kwargs: Any
    ) -> Any:
        c = _compile.current()
        if c is not None and c.bytes.unit_members:
            import copy
            import dataclasses

            infos = list(m.input_info)
            for i, t in enumerate(outer_args):
                if id(t) in c.bytes.unit_members:
                    infos[i] = dataclasses.replace(infos[i], is_leaf=False)
            m = copy.copy(m)
            m.input_info = infos
        return orig(m, synthetic_base_info, outer_args, *args, **kwargs)

    create_synthetic_base_metadata.__wrapped__ = orig  # type: ignore[attr-defined]
    return create_synthetic_base_metadata
