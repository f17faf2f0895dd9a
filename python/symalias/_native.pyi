"""Type stubs of the Rust extension module ``symalias._native``.

The document functions take a FORMATS.md document as JSON text and return
JSON text (``overlap_doc``, ``GuardSet.check_doc``, ``Decision.doc`` take and
give the same documents as Python objects, converted natively); torch
tensors are read natively (``overlapping_tensors``, ``decide``,
``FrameCheck``). ``symalias`` wraps them in typed objects."""

from collections.abc import Mapping, Sequence
from typing import Any, final

__all__ = [
    "Decision",
    "FrameCheck",
    "GuardSet",
    "InputError",
    "__version__",
    "analyze",
    "check_counters",
    "decide",
    "overlap",
    "overlap_doc",
    "overlapping_tensors",
    "parse",
    "render_guards",
    "reset_check_counters",
    "simplify",
    "warm_up",
]

__version__: str

@final
class InputError(ValueError):
    """Bad input. ``str(e)`` is the engine's located message (the case and
    the field, as the CLI's); the parts are attributes."""

    def __new__(cls, message: str, field: str | None = None, case_id: str | None = None, /) -> InputError:
        """Positional only (``ValueError.__init__`` takes no keywords)."""
    @property
    def message(self) -> str:
        """What is wrong."""
    @property
    def field(self) -> str | None:
        """The field path (``tensors[1].sizes[0]``, ``symbols.s0``), when known."""
    @property
    def case_id(self) -> str | None:
        """The document's ``id``, when known."""

def overlap(
    case: str,
    *,
    prove: bool = True,
    simplify: bool = True,
    time_limit_ms: int | None = None,
    budget: int | None = None,
    max_listed_pairs: int | None = None,
) -> str:
    """One overlap case (FORMATS.md §3) -> its result line."""

def overlap_doc(
    case: Mapping[str, Any],
    *,
    prove: bool = True,
    simplify: bool = True,
    time_limit_ms: int | None = None,
    budget: int | None = None,
    max_listed_pairs: int | None = None,
) -> dict[str, Any]:
    """One overlap case as Python objects -> its result line as Python
    objects, converted natively (no JSON text)."""

def analyze(
    program: str,
    *,
    time_limit_ms: int | None = None,
    max_intermediate_bases: int | None = None,
) -> str:
    """One analysis program (FORMATS.md §5) -> its result document."""

def simplify(case: str, *, time_limit_ms: int | None = None) -> str:
    """One expression case (FORMATS.md §4) -> its result line (with ``stop``)."""

def warm_up() -> None:
    """Starts an idle analysis thread now (``symalias.torch.install`` does)."""

def parse(expr: str) -> str:
    """An expression -> its canonical text."""

def overlapping_tensors(tensors: Sequence[Any]) -> tuple[list[int], int | None] | None:
    """Concrete torch tensors of one storage -> ``(overlapping indices, None)``,
    ``([], i)`` when ``tensors[i]`` is in another storage than ``tensors[0]``,
    or ``None`` when a layout holds a SymInt (take the symbolic path).
    Raises ``TypeError`` naming the index of a tensor without a strided
    storage, ``InputError`` for an invalid layout."""

def render_guards(guards: Sequence[Mapping[str, Any]], symbols: Mapping[str, str] | None = None) -> list[str]:
    """Each guard of a result's ``guards`` as text, in PyTorch's form
    (``check_overlapping(...)``, ``L['a'] is L['b']``, the shape expression
    with each symbol of ``symbols`` printed as its source)."""

@final
class GuardSet:
    """The guards of a result document, prepared once."""

    def __new__(cls, result: str | Mapping[str, Any]) -> GuardSet:
        """A result document: JSON text, or Python objects (converted natively)."""
    def check(self, call: str) -> str:
        """One call (FORMATS.md §6) -> ``{"pass": true}`` or the failing guard."""
    def check_doc(self, call: Mapping[str, Any]) -> dict[str, Any]:
        """``check`` on Python objects, converted natively (no JSON text)."""
    def __len__(self) -> int: ...

@final
class FrameCheck:
    """Every run-time fact of one compiled frame, checked in one native call
    (``symalias.torch``). Facts are tuples naming tensors by index:
    ``("one_storage", members)``,
    ``("partition", members, merged, symbolic, names, guards)`` (a ``Decision``
    or a JSON list of guards),
    ``("pins", [(index, offset)], base)``,
    ``("cross", members, groups, mutated_by_group)``."""

    def __new__(cls, paths: Sequence[Sequence[tuple[str, Any]] | None], facts: Sequence[tuple[Any, ...]]) -> FrameCheck:
        """``paths``: per tensor, its ``("item", key)`` / ``("attr", name)``
        steps from the frame's locals, or None for a tensor passed in the call."""
    def __call__(self, locals: Any, *tensors: Any) -> bool:
        """True when every fact holds; counted in ``check_counters``."""
    def failing(self, locals: Any, *tensors: Any) -> int | None:
        """The first fact that fails, or None; not counted."""
    def fact_holds(self, k: int, locals: Any, *tensors: Any) -> bool:
        """Whether fact ``k`` alone holds; not counted."""
    def __len__(self) -> int: ...

def check_counters() -> tuple[int, int, int]:
    """Run-time checks since the last reset: ``(calls, failures, nanoseconds)``."""

def reset_check_counters() -> None:
    """Sets the run-time check counters to zero."""

@final
class Decision:
    """The overlap decision of one storage group read from torch tensors."""

    @property
    def overlapping(self) -> list[int]: ...
    @property
    def non_overlapping(self) -> list[int]: ...
    @property
    def invariant(self) -> bool | None: ...
    @property
    def self_overlap(self) -> list[tuple[int, bool, str]]:
        """``(tensor, overlaps itself at the hints, proof)`` for each tensor
        that overlaps itself at the hints or whose verdict is not proved for
        all shapes (``proved``, ``refuted``, ``hint_only``, ``unknown``)."""
    @property
    def symbolic(self) -> bool:
        """Some size, stride or offset was a SymInt."""
    @property
    def offsets(self) -> list[int | None]:
        """Each tensor's storage offset when it is an integer."""
    @property
    def micros(self) -> int:
        """The engine's time (loading and analysis)."""
    def json(self) -> str:
        """The result line (FORMATS.md §3) as JSON text."""
    def doc(self) -> dict[str, Any]:
        """The result line as Python objects, built natively."""

def decide(tensors: Sequence[Any], sources: Sequence[str], *, prove: bool = True) -> Decision:
    """One storage group of torch tensors (real or fake; SymInt layouts read
    without guarding) decided natively. Raises ``TypeError`` for what is not
    a strided tensor, ``DifferentStoragesError`` / ``UnbackedSymbolError``
    (``symalias._tensors``), ``InputError`` for an invalid layout."""
