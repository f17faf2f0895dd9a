"""Overlap cases (FORMATS.md §3) from torch tensors, real or fake.

Reads layouts without guarding: a SymInt's expression comes from its node,
the symbols' hints, ranges and sources from the ShapeEnv's tables (never a
comparison on a SymInt, which would add a guard).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class UnbackedSymbolError(ValueError):
    """A layout uses a data-dependent (unbacked) symbol: no hint to decide at."""


class DifferentStoragesError(ValueError):
    """The tensors are not all views of one storage."""

    @staticmethod
    def at(other: int) -> DifferentStoragesError:
        """The error for ``tensors[other]`` in another storage than ``tensors[0]``."""
        return DifferentStoragesError(
            f"tensors[0] and tensors[{other}] are views of different storages; "
            "compute_overlapping_tensors compares views of one storage "
            "(group the tensors by storage first)"
        )


def storage_key(t: Any) -> int:
    """Identity of a tensor's storage (its StorageImpl)."""
    return int(t.untyped_storage()._cdata)


def _source_name(src: Any) -> str:
    n = src.name
    return str(n() if callable(n) else n)


def _bound(v: Any) -> int | None:
    if getattr(v, "is_Integer", False) or isinstance(v, int):
        return int(v)  # the common case: no sympy comparison
    try:
        import sympy  # type: ignore[import-untyped]

        if v is None or v in (sympy.oo, -sympy.oo):
            return None
        from torch.utils._sympy.numbers import int_oo

        if v in (int_oo, -int_oo):
            return None
    except ImportError:  # pragma: no cover - torch ships sympy
        pass
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):
        return None


class _Symbols:
    """The symbols met while converting, with their ShapeEnv facts."""

    def __init__(self) -> None:
        self.docs: dict[str, dict[str, Any]] = {}
        #: Each expression's text, printed once (sympy's printer is slow).
        self.text: dict[Any, str] = {}

    def field(self, x: Any, symbolic: bool) -> Any:
        import torch

        if not isinstance(x, torch.SymInt):
            return int(x)
        node = x.node
        hint = node.maybe_as_int() if hasattr(node, "maybe_as_int") else None
        if hint is not None:
            return int(hint)
        expr = node.expr
        if not symbolic:
            return self._value_at_hints(node, expr)
        text = self.text.get(expr)
        if text is None:
            shape_env = node.shape_env
            if expr.is_Symbol:
                self._declare(shape_env, expr)
                text = expr.name
            else:
                for s in sorted(expr.free_symbols, key=lambda s: s.name):
                    self._declare(shape_env, s)
                text = str(expr)
            self.text[expr] = text
        return text

    def _hints(self, shape_env: Any) -> Any:
        return getattr(shape_env, "backed_var_to_val", None) or shape_env.var_to_val

    def _declare(self, shape_env: Any, s: Any) -> None:
        name = s.name
        if name in self.docs:
            return
        hints = self._hints(shape_env)
        if s not in hints:
            raise UnbackedSymbolError(f"symbol {name} is data-dependent (unbacked): it has no example value")
        doc: dict[str, Any] = {"hint": int(hints[s])}
        vr = shape_env.var_to_range.get(s)
        if vr is not None:
            doc["min"] = _bound(vr.lower)
            doc["max"] = _bound(vr.upper)
        sources = shape_env.var_to_sources.get(s) or []
        if sources:
            doc["source"] = _source_name(sources[0])
        self.docs[name] = doc

    def _value_at_hints(self, node: Any, expr: Any) -> int:
        shape_env = node.shape_env
        hints = self._hints(shape_env)
        missing = [str(s) for s in expr.free_symbols if s not in hints]
        if missing:
            raise UnbackedSymbolError(f"symbols {', '.join(sorted(missing))} are data-dependent (unbacked)")
        return int(expr.xreplace({s: hints[s] for s in expr.free_symbols}))


def check_sequence(tensors: Any) -> list[Any]:
    """``tensors`` as a list, or a ``TypeError``: one tensor, a string or a
    non-iterable is not a sequence of tensors."""
    import torch

    if isinstance(tensors, (torch.Tensor, str, bytes)) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"tensors must be a sequence of torch.Tensor, not {type(tensors).__name__}")
    return list(tensors)


def check_one(t: Any, i: int) -> None:
    """Refuses, with a ``TypeError`` naming ``tensors[i]``, what has no
    strided storage read through its own sizes and strides: non-tensors,
    sparse and nested tensors, wrapper subclasses (their memory is in their
    inner tensors). Meta tensors and FakeTensors are answered: a layout is
    metadata, and storages are compared by identity."""
    import torch
    from torch.utils._python_dispatch import is_traceable_wrapper_subclass

    if not isinstance(t, torch.Tensor):
        raise TypeError(f"tensors[{i}] is {type(t).__name__}, not a torch.Tensor")
    if t.is_nested:
        raise TypeError(f"tensors[{i}] is a nested tensor: it has no single strided layout")
    if t.layout != torch.strided:
        raise TypeError(
            f"tensors[{i}] has layout {t.layout}: only strided tensors have sizes and strides over a storage"
        )
    if is_traceable_wrapper_subclass(t):
        raise TypeError(
            f"tensors[{i}] is a {type(t).__name__}, a wrapper subclass: its memory lives in its "
            "inner tensors (pass those)"
        )


def check_tensors(tensors: Any) -> list[Any]:
    """``tensors`` as a list of strided torch tensors (``check_one`` each)."""
    out = check_sequence(tensors)
    for i, t in enumerate(out):
        check_one(t, i)
    return out


def case_of(tensors: Sequence[Any], *, symbolic: bool = True, sources: Sequence[str] | None = None) -> dict[str, Any]:
    """The overlap case of ``tensors`` (all views of one storage)."""
    tensors = check_tensors(tensors)
    if sources is not None and len(sources) != len(tensors):
        raise ValueError(f"{len(sources)} sources for {len(tensors)} tensors")
    keys = [storage_key(t) for t in tensors]
    if len(set(keys)) > 1:
        first = keys[0]
        other = next(i for i, k in enumerate(keys) if k != first)
        raise DifferentStoragesError.at(other)
    syms = _Symbols()
    docs: list[dict[str, Any]] = []
    for i, t in enumerate(tensors):
        doc = {
            "sizes": [syms.field(x, symbolic) for x in t.shape],
            "strides": [syms.field(x, symbolic) for x in t.stride()],
            "storage_offset": syms.field(t.storage_offset(), symbolic),
            "itemsize": int(t.element_size()),
            "source": sources[i] if sources is not None else f"tensors[{i}]",
        }
        docs.append(doc)
    return {
        "id": "compute_overlapping_tensors",
        "symbols": syms.docs,
        "assumptions": [],
        "tensors": docs,
    }
