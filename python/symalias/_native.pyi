"""Type stubs of the Rust extension module ``symalias._native``.

The document functions take a FORMATS.md document as JSON text and return
JSON text (``overlap_doc``, ``GuardSet.check_doc``, ``Decision.doc`` take and
give the same documents as Python objects, converted natively); torch
tensors are read natively (``overlapping_tensors``, ``decide``,
``FrameCheck``). ``symalias`` wraps them in typed objects."""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__version__: str

class InputError(ValueError):
    """Bad input; the message names the case and the field, as the CLI's does."""

def overlap(
    case: str,
    *,
    prove: bool = True,
    simplify: bool = True,
    time_limit_ms: Optional[int] = None,
    budget: Optional[int] = None,
    max_listed_pairs: Optional[int] = None,
) -> str:
    """One overlap case (FORMATS.md §3) -> its result line."""

def overlap_doc(
    case: Mapping[str, Any],
    *,
    prove: bool = True,
    simplify: bool = True,
    time_limit_ms: Optional[int] = None,
    budget: Optional[int] = None,
    max_listed_pairs: Optional[int] = None,
) -> Dict[str, Any]:
    """One overlap case as Python objects -> its result line as Python
    objects, converted natively (no JSON text)."""

def analyze(
    program: str,
    *,
    time_limit_ms: Optional[int] = None,
    max_intermediate_bases: Optional[int] = None,
) -> str:
    """One analysis program (FORMATS.md §5) -> its result document."""

def simplify(case: str, *, time_limit_ms: Optional[int] = None) -> str:
    """One expression case (FORMATS.md §4) -> its result line (with ``stop``)."""

def warm_up() -> None:
    """Starts an idle analysis thread now (``symalias.torch.install`` does)."""

def parse(expr: str) -> str:
    """An expression -> its canonical text."""

def overlapping_tensors(tensors: Sequence[Any]) -> Optional[Tuple[List[int], Optional[int]]]:
    """Concrete torch tensors of one storage -> ``(overlapping indices, None)``,
    ``([], i)`` when ``tensors[i]`` is in another storage than ``tensors[0]``,
    or ``None`` when a layout holds a SymInt (take the symbolic path).
    Raises ``TypeError`` naming the index of a tensor without a strided
    storage, ``InputError`` for an invalid layout."""

class GuardSet:
    """The guards of a result document, prepared once."""

    def __init__(self, result: Union[str, Mapping[str, Any]]) -> None:
        """A result document: JSON text, or Python objects (converted natively)."""
    def check(self, call: str) -> str:
        """One call (FORMATS.md §6) -> ``{"pass": true}`` or the failing guard."""
    def check_doc(self, call: Mapping[str, Any]) -> Dict[str, Any]:
        """``check`` on Python objects, converted natively (no JSON text)."""
    def __len__(self) -> int: ...

class FrameCheck:
    """Every run-time fact of one compiled frame, checked in one native call
    (``symalias.torch``). Facts are tuples naming tensors by index:
    ``("one_storage", members)``,
    ``("partition", members, merged, symbolic, names, guards)`` (a ``Decision``
    or a JSON list of guards),
    ``("pins", [(index, offset)], base)``,
    ``("cross", members, groups, mutated_by_group)``."""

    def __init__(
        self, paths: Sequence[Optional[Sequence[Tuple[str, Any]]]], facts: Sequence[Tuple[Any, ...]]
    ) -> None:
        """``paths``: per tensor, its ``("item", key)`` / ``("attr", name)``
        steps from the frame's locals, or None for a tensor passed in the call."""
    def __call__(self, locals: Any, *tensors: Any) -> bool:
        """True when every fact holds; counted in ``check_counters``."""
    def failing(self, locals: Any, *tensors: Any) -> Optional[int]:
        """The first fact that fails, or None; not counted."""
    def fact_holds(self, k: int, locals: Any, *tensors: Any) -> bool:
        """Whether fact ``k`` alone holds; not counted."""
    def __len__(self) -> int: ...

def check_counters() -> Tuple[int, int, int]:
    """Run-time checks since the last reset: ``(calls, failures, nanoseconds)``."""

def reset_check_counters() -> None:
    """Sets the run-time check counters to zero."""

class Decision:
    """The overlap decision of one storage group read from torch tensors."""

    @property
    def overlapping(self) -> List[int]: ...
    @property
    def non_overlapping(self) -> List[int]: ...
    @property
    def invariant(self) -> Optional[bool]: ...
    @property
    def self_overlap(self) -> List[Tuple[int, bool, str]]:
        """``(tensor, overlaps itself at the hints, proof)`` for each tensor
        that overlaps itself at the hints or whose verdict is not proved for
        all shapes (``proved``, ``refuted``, ``hint_only``, ``unknown``)."""
    @property
    def symbolic(self) -> bool:
        """Some size, stride or offset was a SymInt."""
    @property
    def offsets(self) -> List[Optional[int]]:
        """Each tensor's storage offset when it is an integer."""
    @property
    def micros(self) -> int:
        """The engine's time (loading and analysis)."""
    def json(self) -> str:
        """The result line (FORMATS.md §3) as JSON text."""
    def doc(self) -> Dict[str, Any]:
        """The result line as Python objects, built natively."""

def decide(tensors: Sequence[Any], sources: Sequence[str], *, prove: bool = True) -> Decision:
    """One storage group of torch tensors (real or fake; SymInt layouts read
    without guarding) decided natively. Raises ``TypeError`` for what is not
    a strided tensor, ``DifferentStoragesError`` / ``UnbackedSymbolError``
    (``symalias._tensors``), ``InputError`` for an invalid layout."""
