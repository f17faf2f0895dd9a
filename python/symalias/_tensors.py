"""The package's side of reading torch tensors: the argument check of
``compute_overlapping_tensors`` and the errors the
native readers raise (defined in Rust, ``symalias._native``). Layouts,
SymInts and the ShapeEnv's tables are read in Rust (``_native.decide``):
one reader, which never compares a SymInt (that would add a guard)."""

from __future__ import annotations

from typing import Any

from ._native import DifferentStoragesError, UnbackedSymbolError

__all__ = ["DifferentStoragesError", "UnbackedSymbolError", "check_sequence"]


def check_sequence(tensors: Any) -> list[Any]:
    """``tensors`` as a list, or a ``TypeError``: one tensor, a string or a
    non-iterable is not a sequence of tensors."""
    if isinstance(tensors, (str, bytes)) or not hasattr(tensors, "__iter__") or _is_tensor(tensors):
        raise TypeError(f"tensors must be a sequence of torch.Tensor, not {type(tensors).__name__}")
    return list(tensors)


def _is_tensor(x: Any) -> bool:
    import torch

    return isinstance(x, torch.Tensor)
