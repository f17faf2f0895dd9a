"""Alias checks in user code: constants backed by a run-time check.

torch 2.15 breaks the graph on the four ways user code asks whether two
tensors share memory -- ``a.data_ptr() == b.data_ptr()`` (unless both are
one traced tensor), ``a.untyped_storage().data_ptr() == ...`` (no such
method traced), ``a.is_set_to(b)`` and ``torch._C._is_alias_of(a, b)``
("torch.* op returned non-Tensor") -- with ``fullgraph=True`` an error.

Installed, where both tensors are inputs of the frame (graph
placeholders with a source the guard can read), still laid out as they
came in (no metadata changed in the frame before the question), symalias
answers the question on the frame's real inputs at compile time, gives
Dynamo the answer as a constant, and adds an ``AddressCheck`` to the
frame's checks: the same comparison, made on each call's inputs by
torch's own methods, must give the same answer, or the frame is compiled
again. Anything else keeps torch's graph break.

``answer`` is the decision (a value: the constant, or None); the wrappers
apply it.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import torch

from . import _compile
from ._facts import AddressFact, Relation
from ._state import lock, stats
from ._torch import gateway


def evaluate(relation: Relation, a: Any, b: Any) -> bool:
    """The comparison user code makes, on real tensors."""
    if relation == "data_ptr":
        return bool(a.data_ptr() == b.data_ptr())
    if relation == "storage_data_ptr":
        return bool(a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())
    if relation == "set_to":
        return bool(a.is_set_to(b))
    return bool(gateway.alias_of_function()(a, b))


def _input(tx: Any, vt: Any) -> tuple[Any, Any] | None:
    """The frame's real input behind a tensor variable and its fake value,
    or None: it must be
    a graph placeholder with a source reachable from the frame's locals
    (an argument, a module's attribute or parameter), no wrapper subclass,
    laid out as its fake value is now."""
    if not gateway.is_tensor_variable(vt) or vt.source is None:
        return None
    node = vt.as_proxy().node
    if node.op != "placeholder":
        return None
    steps = gateway.path(vt.source)
    if steps is None:
        return None
    value: Any = gateway.frame_locals(tx)
    try:
        for kind, key in steps:
            value = value[key] if kind == "item" else getattr(value, key)
    except (KeyError, IndexError, AttributeError, TypeError):
        return None
    fake = node.meta.get("example_value")
    if not isinstance(value, torch.Tensor) or gateway.is_wrapper_subclass(value) or not isinstance(fake, torch.Tensor):
        return None
    same = (
        [gateway.int_hint(s) for s in fake.size()] == list(value.size())
        and [gateway.int_hint(s) for s in fake.stride()] == list(value.stride())
        and gateway.int_hint(fake.storage_offset()) == value.storage_offset()
        and fake.dtype == value.dtype
    )
    return (value, fake) if same else None


def answer(tx: Any, relation: Relation, a_vt: Any, b_vt: Any) -> bool | None:
    """The compile-time answer of ``relation`` on two frame inputs, or None
    where symalias cannot back it with a check (torch's graph break)."""
    ia, ib = _input(tx, a_vt), _input(tx, b_vt)
    if ia is None or ib is None:
        return None
    (a, fake_a), (b, fake_b) = ia, ib
    try:
        # The frame's fake inputs alias as the real ones do (Dynamo fakeifies
        # one storage once); anything else and the graph would not match.
        if (gateway.storage_id(fake_a) == gateway.storage_id(fake_b)) != (
            gateway.storage_id(a) == gateway.storage_id(b)
        ):
            return None
        return evaluate(relation, a, b)
    except Exception:
        return None


def _constant(tx: Any, relation: Relation, a_vt: Any, b_vt: Any) -> bool | None:
    """``answer``, its fact waiting for the frame's check."""
    tc = gateway.tracing_context()
    got = answer(tx, relation, a_vt, b_vt) if tc is not None else None
    if got is None:
        return None
    # Joins the frame's one check (parked until its compile takes it).
    _compile.park(tc, AddressFact([a_vt.source, b_vt.source], relation, got))
    with lock:
        stats.address_constants += 1
    return got


# ---- The wrappers: each applies ``_constant`` or leaves torch's way ----


def wrap_data_ptr_compare(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``DataPtrVariable.tp_richcompare_impl``: ``==``/``!=`` of two data
    pointers of frame inputs (tensors', or storages')."""

    def tp_richcompare_impl(self: Any, tx: Any, other: Any, op: str) -> Any:
        if op in ("__eq__", "__ne__") and gateway.is_data_ptr_variable(other):
            storage = _is_storage_ptr(self)
            # Two tensors' pointers torch answers itself when they are one
            # traced tensor's; a tensor's beside a storage's stays torch's.
            if storage == _is_storage_ptr(other) and (storage or not gateway.same_traced_data_ptr(self, other)):
                got = _constant(tx, "storage_data_ptr" if storage else "data_ptr", self.from_tensor, other.from_tensor)
                if got is not None:
                    return gateway.constant_variable(got == (op == "__eq__"))
        return orig(self, tx, other, op)

    tp_richcompare_impl.__wrapped__ = orig  # type: ignore[attr-defined]
    return tp_richcompare_impl


@functools.cache
def _storage_ptr_class() -> type:
    """Dynamo's ``DataPtrVariable`` for a storage's ``data_ptr()`` (compared
    by ``wrap_data_ptr_compare``), rebuilt as
    ``t.untyped_storage().data_ptr()`` where it leaves the graph."""

    class StorageDataPtrVariable(gateway.data_ptr_variable_class()):  # type: ignore[misc]
        def reconstruct(self, codegen: Any) -> None:
            codegen(self.from_tensor)
            codegen.load_method("untyped_storage")
            codegen.call_method(0)
            codegen.load_method("data_ptr")
            codegen.call_method(0)

    return StorageDataPtrVariable


def _is_storage_ptr(v: Any) -> bool:
    """A storage's pointer, not a tensor's."""
    return isinstance(v, _storage_ptr_class())


def wrap_storage_methods(orig: dict[str, Any]) -> dict[str, Any]:
    """``UntypedStorageVariable.tp_methods`` with ``data_ptr``."""

    def data_ptr(self: Any, tx: Any, args: Any, kwargs: Any) -> Any:
        return _storage_ptr_class()(self.from_tensor)

    return {**orig, "data_ptr": gateway.dynamo_method(data_ptr)}


def wrap_tensor_methods(orig: dict[str, Any]) -> dict[str, Any]:
    """``TensorVariable.tp_methods`` with ``is_set_to`` (declines -- torch's
    way -- where symalias cannot answer)."""

    def is_set_to(self: Any, tx: Any, other: Any) -> Any:
        got = _constant(tx, "set_to", self, other)
        return None if got is None else gateway.constant_variable(got)

    return {**orig, "is_set_to": gateway.dynamo_method(is_set_to)}


def wrap_torch_call(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``TorchInGraphFunctionVariable.call_function``: ``torch._C
    ._is_alias_of(a, b)`` of two frame inputs."""

    def call_function(self: Any, tx: Any, args: Any, kwargs: Any, *rest: Any, **kw: Any) -> Any:
        if self.value is gateway.alias_of_function() and len(args) == 2 and not kwargs:
            got = _constant(tx, "alias_of", args[0], args[1])
            if got is not None:
                return gateway.constant_variable(got)
        return orig(self, tx, args, kwargs, *rest, **kw)

    call_function.__wrapped__ = orig  # type: ignore[attr-defined]
    return call_function
