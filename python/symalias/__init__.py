"""symalias: exact, symbolic-shape-aware alias and overlap analysis.

The engine is Rust (``symalias._native``); this package builds its input
documents (FORMATS.md) from typed Python arguments and returns the engine's
typed result objects (``OverlapResult``, ``ProgramResult``,
``SimplifyResult``, ``Outcome``: native classes, built from the result
documents in Rust). ``symalias.torch`` plugs it into ``torch.compile``.

>>> import symalias
>>> r = symalias.overlap([
...     symalias.TensorLayout(sizes=[4, 4], strides=[9, 1], storage_offset=0),
...     symalias.TensorLayout(sizes=[4, 4], strides=[9, 1], storage_offset=9),
... ])
>>> r.overlapping, r.invariant
((0, 1), True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from . import _native, _tensors
from ._native import (
    Guard,
    InputError,
    Outcome,
    OverlapResult,
    Pair,
    ProgramResult,
    SelfOverlap,
    SimplifyResult,
    TooHardError,
    Witness,
    may_share_memory,
    shares_memory,
)

__all__ = [
    "MAY_SHARE_BOUNDS",
    "MAY_SHARE_EXACT",
    "Guard",
    "GuardSet",
    "InputError",
    "Outcome",
    "OverlapResult",
    "Pair",
    "ProgramResult",
    "SelfOverlap",
    "SimplifyResult",
    "Symbol",
    "TensorLayout",
    "TooHardError",
    "Witness",
    "analyze",
    "compute_overlapping_tensors",
    "has_internal_overlap",
    "may_share_memory",
    "overlap",
    "overlap_tensors",
    "parse",
    "shares_memory",
    "simplify",
]

#: numpy's ``max_work`` constants: compare extents only, or decide exactly.
MAY_SHARE_BOUNDS = 0
MAY_SHARE_EXACT = -1

__version__: str = _native.__version__

#: An integer, or an expression in FORMATS.md §1 text (``"s0*4 + 2"``).
Dim = Union[int, str]


@dataclass(frozen=True)
class Symbol:
    """A shape symbol: its example value, inclusive range and run-time source."""

    hint: int
    min: int | None = None
    max: int | None = None
    source: str | None = None

    def _doc(self) -> dict[str, Any]:
        d: dict[str, Any] = {"hint": self.hint, "min": self.min, "max": self.max}
        if self.source is not None:
            d["source"] = self.source
        return d


@dataclass(frozen=True)
class TensorLayout:
    """One view of the storage: sizes, strides and offset in elements
    (integers or expressions), ``itemsize`` in bytes, and its source."""

    sizes: Sequence[Dim]
    strides: Sequence[Dim]
    storage_offset: Dim = 0
    itemsize: int = 1
    source: str | None = None

    def _doc(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "sizes": list(self.sizes),
            "strides": list(self.strides),
            "storage_offset": self.storage_offset,
            "itemsize": self.itemsize,
        }
        if self.source is not None:
            d["source"] = self.source
        return d


def _symbols_doc(symbols: Mapping[str, Symbol | Mapping[str, Any]] | None) -> dict[str, Any]:
    if symbols is not None and not isinstance(symbols, Mapping):
        raise TypeError(f"symbols must be a mapping of names to Symbol, not {type(symbols).__name__}")
    out: dict[str, Any] = {}
    for name, s in (symbols or {}).items():
        if isinstance(s, Symbol):
            out[name] = s._doc()
        elif isinstance(s, Mapping):
            out[name] = dict(s)
        else:
            raise TypeError(f"symbols[{name!r}] is {type(s).__name__}, not a Symbol or a mapping")
    return out


def _layout_doc(t: TensorLayout | Mapping[str, Any], i: int) -> dict[str, Any]:
    if isinstance(t, TensorLayout):
        return t._doc()
    if isinstance(t, Mapping):
        return dict(t)
    raise TypeError(f"tensors[{i}] is {type(t).__name__}, not a TensorLayout or a mapping")


def _sequence(xs: Any, what: str) -> Sequence[Any]:
    """``xs`` as a list, or a ``TypeError`` naming the argument."""
    if isinstance(xs, (str, bytes, Mapping)) or not isinstance(xs, Iterable):
        raise TypeError(f"{what} must be a sequence, not {type(xs).__name__}")
    return list(xs)


def overlap(
    tensors: Sequence[TensorLayout | Mapping[str, Any]],
    symbols: Mapping[str, Symbol | Mapping[str, Any]] | None = None,
    assumptions: Iterable[str] = (),
    *,
    id: str = "case",
    prove: bool = True,
    simplify: bool = True,
    time_limit_ms: int | None = None,
    max_listed_pairs: int | None = None,
    layouts_pinned: bool = False,
) -> OverlapResult:
    """Which of these views of ONE storage overlap: exact at the hints, then
    (for symbolic layouts) proved or refuted for every allowed shape, with the
    guards that keep the answer true. Raises ``InputError`` on bad input,
    its parts as attributes.

    The guards stand alone: every call ``GuardSet(r)`` passes has this
    partition and these self-overlaps (fast paths start with the layouts,
    itemsize included, and the symbols' ranges). A checker that pins every
    tensor's layout and symbol values itself, as torch's Dynamo does, asks
    for the lighter list with ``layouts_pinned=True``.

    A slice of ``s0`` elements before 4 elements at offset 8: disjoint at
    the hint ``s0 = 6``, not for every ``s0`` up to 16 (refuted: from
    ``s0 = 9`` on they meet, and a counterexample is moved towards the lower
    bounds while it stays one), so a shape guard and the exact guard keep the
    answer:

    >>> x = Symbol(hint=6, min=2, max=16, source="L['x'].size()[0]")
    >>> r = overlap(
    ...     [TensorLayout(["s0"], [1], 0, source="L['x']"), TensorLayout([4], [1], 8, source="L['y']")],
    ...     {"s0": x},
    ... )
    >>> r.overlapping, r.invariant, r.counterexample
    ((), False, {'s0': 9})
    >>> [g.kind for g in r.guards]
    ['layout', 'shape', 'storage_overlap', 'layout', 'shape', 'self_overlap']
    >>> [g.text for g in r.guards[1:3]]
    ['(2 <= s0) & (s0 <= 8)', "check_overlapping(overlapping=[], non_overlapping=[L['x'], L['y']])"]
    >>> views = [TensorLayout(["s0"], [1], 0, source="L['x']"), TensorLayout([4], [1], 8, source="L['y']")]
    >>> [g.text for g in overlap(views, {"s0": x}, layouts_pinned=True).guards]
    ['s0 <= 8', "check_overlapping(overlapping=[], non_overlapping=[L['x'], L['y']])"]
    >>> try:
    ...     overlap([TensorLayout([2, -1], [1, 1])], id="neg")
    ... except InputError as e:
    ...     print(e)
    ...     print(e.case_id, e.field)
    case "neg", field `tensors[0].sizes[1]`: size of dimension 1 is negative
    neg tensors[0].sizes[1]
    """
    case = {
        "id": id,
        "symbols": _symbols_doc(symbols),
        "assumptions": list(_sequence(assumptions, "assumptions")),
        "tensors": [_layout_doc(t, i) for i, t in enumerate(_sequence(tensors, "tensors"))],
    }
    return _native.overlap(
        case,
        prove=prove,
        simplify=simplify,
        time_limit_ms=time_limit_ms,
        max_listed_pairs=max_listed_pairs,
        layouts_pinned=layouts_pinned,
    )


def analyze(
    program: str | Mapping[str, Any],
    *,
    time_limit_ms: int | None = None,
    max_intermediate_bases: int | None = None,
) -> ProgramResult:
    """Runs the AOT metadata passes on a program (FORMATS.md §5: a mapping or
    its JSON text): duplicate removal, synthetic bases, overlap, signature,
    guards. Raises ``InputError`` on bad input."""
    return _native.analyze(program, time_limit_ms=time_limit_ms, max_intermediate_bases=max_intermediate_bases)


def simplify(
    expr: str,
    symbols: Mapping[str, Symbol | Mapping[str, Any]] | None = None,
    assumptions: Iterable[str] = (),
    *,
    time_limit_ms: int | None = None,
) -> SimplifyResult:
    """Simplifies an expression under the symbols' ranges and the assumptions.

    >>> simplify("(8*s0)//8 + 0*s1", {"s0": Symbol(hint=4, min=1), "s1": Symbol(hint=3)}).expr
    's0'
    """
    case = {
        "id": "expr",
        "symbols": _symbols_doc(symbols),
        "assumptions": list(assumptions),
        "expr": expr,
    }
    return _native.simplify(case, time_limit_ms=time_limit_ms)


def parse(expr: str) -> str:
    """Parses an expression and prints it in canonical form.

    >>> parse("2*s0 + s0*1 - 0")
    '3*s0'
    """
    return _native.parse(expr)


class GuardSet:
    """The guards of a result, prepared once, checked on many calls.

    A call maps sources to concrete tensors, given as mappings with
    ``object``, ``storage``, ``sizes``, ``strides``, ``storage_offset``,
    ``itemsize`` (FORMATS.md §6), or to integer values.

    The guards of ``overlap``'s example (``s0`` elements, then 4 at offset
    8): a call with ``s0 = 7`` keeps them disjoint; with ``s0 = 12`` the
    shape guard fails, the exact guard decides, and the views now meet:

    >>> x = Symbol(hint=6, min=2, max=16, source="L['x'].size()[0]")
    >>> views = [TensorLayout(["s0"], [1], 0, source="L['x']"), TensorLayout([4], [1], 8, source="L['y']")]
    >>> guards = GuardSet(overlap(views, {"s0": x}))
    >>> def view(name, size, offset):
    ...     layout = {"sizes": [size], "strides": [1], "storage_offset": offset, "itemsize": 1}
    ...     return {"object": name, "storage": "S", **layout}
    >>> guards.check({"L['x']": view("x", 7, 0), "L['y']": view("y", 4, 8)}).passed
    True
    >>> out = guards.check({"L['x']": view("x", 12, 0), "L['y']": view("y", 4, 8)})
    >>> out.passed, out.failed
    (False, "check_overlapping(overlapping=[], non_overlapping=[L['x'], L['y']])")
    """

    def __init__(self, result: OverlapResult | ProgramResult | str | Mapping[str, Any]):
        self._set = _native.GuardSet(result)

    def __len__(self) -> int:
        return len(self._set)

    def check(self, call: str | Mapping[str, Any]) -> Outcome:
        """Checks every guard on one call; ``InputError`` when the call is
        malformed or lacks a source a guard reads."""
        if isinstance(call, str) or "inputs" in call:
            return self._set.check(call)
        inputs = []
        for source, v in call.items():
            if isinstance(v, int):
                inputs.append({"source": source, "value": v})
            else:
                inputs.append({"source": source, "tensor": dict(v)})
        return self._set.check({"inputs": inputs})


def overlap_tensors(
    tensors: Sequence[Any], *, prove: bool = True, symbolic: bool = True, sources: Sequence[str] | None = None
) -> OverlapResult:
    """``overlap`` on torch tensors (real or fake) of one storage: layouts,
    element sizes and, for SymInt layouts, symbols with their hints, ranges and
    sources read from the ShapeEnv (without adding guards); with
    ``symbolic=False`` each SymInt is read as its value at the hints."""
    tensors = _tensors.check_sequence(tensors)
    names = list(sources) if sources is not None else [f"tensors[{i}]" for i in range(len(tensors))]
    return _native.decide(tensors, names, prove=prove, hints_only=not symbolic).result()


def compute_overlapping_tensors(tensors: Sequence[Any], symbolic: bool = True) -> set[int]:
    """Drop-in for ``torch._C._dynamo.guards.compute_overlapping_tensors``:
    the indices of the tensors whose memory overlaps another's, exactly (at
    the hints for SymInt layouts). Tensors of different storages are refused
    (``DifferentStoragesError``, a ``ValueError``): torch's function assumes
    one storage without checking. Concrete layouts are read and decided
    natively (no documents)."""
    if type(tensors) is not list and type(tensors) is not tuple:
        tensors = _tensors.check_sequence(tensors)
    native = _native.overlapping_tensors(tensors)
    if native is None:  # a SymInt layout: the symbolic path
        return set(overlap_tensors(tensors, prove=False, symbolic=symbolic).overlapping)
    return set(native)


def has_internal_overlap(tensor: Any) -> bool:
    """Whether two different indices of one view reach the same byte (ATen's
    ``has_internal_overlap``, numpy's ``internal_overlap``, answered exactly:
    never "too hard"). Takes a ``torch.Tensor`` (real, meta or fake; a SymInt
    layout is answered at its hints, without adding a guard), a
    ``TensorLayout`` / §3 tensor mapping (expressions answered at the
    symbols' hints via ``overlap``: pass the symbols there for a proof for
    all shapes), or any array ``shares_memory`` reads (numpy, the buffer
    protocol, ``__array_interface__``, ``__cuda_array_interface__``,
    DLPack). Raises ``TypeError`` for anything else, ``InputError`` for an
    invalid layout.

    Windows of 3 elements every 2 overlap themselves; rows of 3 every 3 do not:

    >>> has_internal_overlap(TensorLayout([4, 3], [2, 1]))
    True
    >>> has_internal_overlap(TensorLayout([4, 3], [3, 1]))
    False
    """
    if isinstance(tensor, (TensorLayout, dict)):
        return bool(overlap([tensor], prove=False).self_overlapping)
    if type(tensor).__module__.startswith("torch") or hasattr(tensor, "untyped_storage"):
        decision = _native.decide([tensor], ["tensor"], prove=False)
        return any(over for _, over, _ in decision.self_overlap)
    return _native.array_internal_overlap(tensor)
