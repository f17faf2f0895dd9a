"""Type stubs of the Rust extension module ``symalias._native``.

Every function takes a FORMATS.md document as JSON text and returns the
answer as JSON text; ``symalias`` wraps them in typed objects."""

from typing import Any, List, Optional, Sequence, Tuple

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

def analyze(
    program: str,
    *,
    time_limit_ms: Optional[int] = None,
    max_intermediate_bases: Optional[int] = None,
) -> str:
    """One analysis program (FORMATS.md §5) -> its result document."""

def simplify(case: str, *, time_limit_ms: Optional[int] = None) -> str:
    """One expression case (FORMATS.md §4) -> its result line (with ``stop``)."""

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

    def __init__(self, result: str) -> None: ...
    def check(self, call: str) -> str:
        """One call (FORMATS.md §6) -> ``{"pass": true}`` or the failing guard."""
    def __len__(self) -> int: ...

class FrameCheck:
    """Every run-time fact of one compiled frame, checked in one native call
    (``symalias.torch``). Facts are tuples naming tensors by index:
    ``("one_storage", members)``,
    ``("partition", members, merged, symbolic, names, guards_json)``,
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
