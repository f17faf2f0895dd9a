"""Type stubs of the Rust extension module ``symalias._native``.

The document functions take a FORMATS.md document (JSON text, or the same
document as Python objects, converted natively) and return typed result
objects built natively from the engine's result documents; torch tensors are
read natively (``overlapping_tensors``, ``decide``, ``FrameCheck``).
``symalias`` re-exports the result classes. The run-time checks of
``symalias.torch`` are typed classes with keyword constructors
(``OneStorageCheck``, ``PartitionCheck``, ``PinCheck``,
``CrossStorageCheck``, ``NoSelfOverlapCheck``, ``AddressCheck``), which
``FrameCheck`` takes."""

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Self, TypeAlias, final

__all__ = [
    "AddressCheck",
    "CrossStorageCheck",
    "Decision",
    "DifferentStoragesError",
    "FrameCheck",
    "Guard",
    "GuardSet",
    "InputError",
    "NoSelfOverlapCheck",
    "OneStorageCheck",
    "Outcome",
    "OverlapResult",
    "Pair",
    "PartitionCheck",
    "PinCheck",
    "ProgramResult",
    "SelfOverlap",
    "SimplifyResult",
    "TooHardError",
    "UnbackedSymbolError",
    "Witness",
    "__version__",
    "analyze",
    "array_internal_overlap",
    "check_counters",
    "cli",
    "decide",
    "may_share_memory",
    "overlap",
    "overlapping_for_all_shapes",
    "overlapping_tensors",
    "parse",
    "reader_disable",
    "reader_enable",
    "reader_enabled",
    "rebuild",
    "render_guards",
    "reset_check_counters",
    "restore",
    "shares_memory",
    "simplify",
    "tensor_counters",
    "z3_version",
]

__version__: str
# The libz3 the extension runs (`major.minor.build.revision`): the
# z3-solver package it depends on.
z3_version: str

class InputError(ValueError):
    """Bad input. ``str(e)`` is the engine's located message (the case and
    the field, as the CLI's); the parts are attributes."""

    #: What is wrong.
    message: str
    #: The field path (``tensors[1].sizes[0]``, ``symbols.s0``), when known.
    field: str | None
    #: The document's ``id``, when known.
    case_id: str | None
    def __init__(self, message: str, field: str | None = None, case_id: str | None = None, /) -> None:
        """Positional only, as ``ValueError``'s."""

class TooHardError(RuntimeError):
    """The work bound (``max_work``) was reached before an answer. Raised as
    a class that is also numpy's ``TooHardError`` when numpy is loaded."""

class UnbackedSymbolError(ValueError):
    """A layout uses a data-dependent (unbacked) symbol: no hint to decide at."""

class DifferentStoragesError(ValueError):
    """The tensors are not all views of one storage."""

@final
class Witness:
    """A byte both tensors of a pair reach, and the indices reaching it."""

    @property
    def address(self) -> int:
        """The shared byte address (storage offset in bytes)."""
    @property
    def index_a(self) -> tuple[int, ...]:
        """The index into the first tensor."""
    @property
    def index_b(self) -> tuple[int, ...]:
        """The index into the second tensor."""

@final
class Pair:
    """One listed pair: overlapping at the hints (or undecided), and how
    sure: ``proved``, ``refuted``, ``hint_only`` or ``unknown``."""

    @property
    def a(self) -> int: ...
    @property
    def b(self) -> int: ...
    @property
    def overlap(self) -> bool: ...
    @property
    def proof(self) -> str: ...
    @property
    def witness(self) -> Witness | None: ...

@final
class SelfOverlap:
    """One tensor's overlap with itself (two of its own indices reach one
    byte): at the hints, and how sure for all shapes (``proved``,
    ``refuted``, ``hint_only``, ``unknown``). Both indices of the witness
    index this tensor."""

    @property
    def tensor(self) -> int: ...
    @property
    def overlap(self) -> bool: ...
    @property
    def proof(self) -> str: ...
    @property
    def witness(self) -> Witness | None: ...
    @property
    def counterexample(self) -> dict[str, int] | None: ...

@final
class Guard:
    """A guard of a result: ``kind`` (``storage_overlap``, ``shape``,
    ``layout``, ``duplicate_input``, ...), its text in PyTorch's form
    (rendered by the engine: ``check_overlapping(...)``, ``L['a'] is L['b']``,
    the shape expression), its fields, and why the analysis depends on it."""

    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def reason(self) -> str: ...

@final
class OverlapResult:
    """The answer for one group of views of one storage (FORMATS.md §3)."""

    def svg(self) -> str | None:
        """The picture of the case's memory (SVG text); None when the result
        was not made from a case."""
    def _repr_svg_(self) -> str | None: ...
    @property
    def id(self) -> str: ...
    @property
    def overlapping(self) -> tuple[int, ...]:
        """Tensor indices whose footprint meets another's, at the hints (sorted)."""
    @property
    def non_overlapping(self) -> tuple[int, ...]: ...
    @property
    def invariant(self) -> bool | None:
        """True: proved for every allowed shape; False: refuted; None: undecided."""
    @property
    def guards(self) -> tuple[Guard, ...]:
        """What keeps the classification true at run time (empty when proved)."""
    @property
    def pairs(self) -> tuple[Pair, ...]:
        """Every overlapping (or undecided) pair; pairs not listed are disjoint."""
    @property
    def pairs_left_out(self) -> int: ...
    @property
    def time_limit_hit(self) -> bool:
        """The time limit (the wall-clock backstop) stopped some of the work:
        still sound, but an idler machine may decide more. False: the answer
        is a function of the case and the options alone."""
    @property
    def counterexample(self) -> dict[str, int] | None: ...
    @property
    def symbols(self) -> dict[str, str]:
        """Symbol -> run-time source, for the symbols the guards use."""
    @property
    def micros(self) -> int: ...
    @property
    def self_overlapping(self) -> tuple[int, ...]:
        """Tensors that overlap themselves at the hints (sorted)."""
    @property
    def self_overlap(self) -> tuple[SelfOverlap, ...]:
        """Each tensor that overlaps itself at the hints or whose verdict is
        not proved for all shapes."""
    @property
    def json(self) -> str:
        """The result line as JSON text (what the CLI prints)."""

@final
class ProgramResult:
    """The result document of ``analyze`` (FORMATS.md §5)."""

    def svgs(self) -> dict[str, str] | None:
        """The pictures of the program's storage groups (SVG text by
        storage); None when the result was not made from a program."""
    def _repr_html_(self) -> str | None: ...
    @property
    def id(self) -> str: ...
    @property
    def dedupe(self) -> dict[str, Any]:
        """Duplicate-input removal: ``strategy``, ``keep_arg_mask``, ``add_dupe_map``."""
    @property
    def synthetic_bases(self) -> dict[str, Any] | None:
        """Synthetic-base merging (None when no group needed one)."""
    @property
    def overlap(self) -> tuple[dict[str, Any], ...]:
        """One overlap result document per storage group that was asked."""
    @property
    def meta(self) -> dict[str, Any]: ...
    @property
    def signature(self) -> dict[str, Any] | None: ...
    @property
    def guards(self) -> tuple[Guard, ...]: ...
    @property
    def errors(self) -> tuple[str, ...]:
        """What a compiler would raise (e.g. aliased mutated inputs under export)."""
    @property
    def json(self) -> str:
        """The result document as JSON text (what the CLI prints)."""

@final
class SimplifyResult:
    """A simplified expression (FORMATS.md §4) and why the rewriting stopped."""

    @property
    def id(self) -> str: ...
    @property
    def expr(self) -> str: ...
    @property
    def size_in(self) -> int: ...
    @property
    def size_out(self) -> int: ...
    @property
    def stop(self) -> str: ...
    @property
    def micros(self) -> int: ...

@final
class Outcome:
    """A guard check: pass, or the first failing guard and why."""

    @property
    def passed(self) -> bool: ...
    @property
    def failed(self) -> str | None: ...
    @property
    def reason(self) -> str | None: ...
    def __bool__(self) -> bool: ...

def overlap(
    case: str | Mapping[str, Any],
    *,
    prove: bool = True,
    simplify: bool = True,
    time_limit_ms: int | None = None,
    budget: int | None = None,
    max_listed_pairs: int | None = None,
    layouts_pinned: bool = False,
) -> OverlapResult:
    """One overlap case (FORMATS.md §3; JSON text or Python objects) -> its result.
    Its guards stand alone unless ``layouts_pinned`` says the checker pins
    every tensor's layout and symbol values itself (FORMATS.md §3.1)."""

def analyze(
    program: str | Mapping[str, Any],
    *,
    time_limit_ms: int | None = None,
    max_intermediate_bases: int | None = None,
) -> ProgramResult:
    """One analysis program (FORMATS.md §5) -> its result."""

def simplify(case: str | Mapping[str, Any], *, time_limit_ms: int | None = None) -> SimplifyResult:
    """One expression case (FORMATS.md §4) -> the simplified expression and the stop reason."""

def parse(expr: str) -> str:
    """An expression -> its canonical text."""

def restore(kind: str, state: str) -> Any:
    """Rebuilds a result object from what its ``__reduce__`` gave (pickle, ``copy``)."""

def overlapping_tensors(tensors: Sequence[Any]) -> list[int] | None:
    """Concrete torch tensors of one storage -> the overlapping indices, or
    ``None`` when a layout holds a SymInt (take the symbolic path). Raises
    ``DifferentStoragesError`` when ``tensors[i]`` is in another storage
    than ``tensors[0]``, ``TypeError`` naming the index of a tensor without
    a strided storage, ``InputError`` for an invalid layout."""

def cli(argv: list[str]) -> int:
    """The ``symalias`` command line on ``argv`` (the program's name first):
    its exit code. Writes to the process's stdout and stderr."""

def shares_memory(a: Any, b: Any, /, max_work: int | None = None) -> bool:
    """Whether ``a`` and ``b`` share a byte: numpy's ``shares_memory`` for
    numpy arrays and anything exposing the buffer protocol,
    ``__array_interface__``, ``__cuda_array_interface__`` or ``__dlpack__``.
    ``max_work``: ``None`` or ``-1`` exact, ``0`` extents only, a positive
    budget of search nodes; past it ``TooHardError`` (numpy's too when
    numpy is loaded)."""

def may_share_memory(a: Any, b: Any, /, max_work: int | None = None) -> bool:
    """numpy's ``may_share_memory``: the extents by default (``max_work``
    as in ``shares_memory``); "too hard" reads as ``True``."""

def array_internal_overlap(a: Any) -> bool:
    """Whether two different indices of array ``a`` reach one byte, exactly."""

def render_guards(guards: Sequence[Mapping[str, Any]], symbols: Mapping[str, str] | None = None) -> list[str]:
    """Each guard of a result's ``guards`` as text, in PyTorch's form
    (``check_overlapping(...)``, ``L['a'] is L['b']``, the shape expression
    with each symbol of ``symbols`` printed as its source)."""

@final
class GuardSet:
    """The guards of a result document, prepared once."""

    def __new__(cls, result: OverlapResult | ProgramResult | str | Mapping[str, Any]) -> GuardSet:
        """A result, or a result document: JSON text, or Python objects (converted natively)."""
    def check(self, call: str | Mapping[str, Any]) -> Outcome:
        """One call (FORMATS.md §6; JSON text or ``{"inputs": [...]}``) -> pass, or the failing guard."""
    def __len__(self) -> int: ...

class _MembersCheck:
    """A check whose only field is its (non-empty) members: frame slots."""

    def __new__(cls, *, members: Sequence[int]) -> Self: ...
    @property
    def members(self) -> list[int]: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class OneStorageCheck(_MembersCheck):
    """The members share one storage."""

@final
class PartitionCheck:
    """Which members of one storage group overlap, as ``decision`` (a
    ``Decision``: its partition guards, taken as they are) or ``guards``
    (their JSON text, what a pickled check carries) states it -- one of the
    two; ``merged``: they must also share one storage; ``symbolic``: whole
    layouts are read and memoised; ``names``: the members' sources, as the
    guards name them."""

    def __new__(
        cls,
        *,
        members: Sequence[int],
        merged: bool,
        symbolic: bool,
        names: Sequence[str],
        decision: Decision | None = None,
        guards: str | None = None,
    ) -> PartitionCheck: ...
    @property
    def members(self) -> list[int]: ...
    @property
    def merged(self) -> bool: ...
    @property
    def symbolic(self) -> bool: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def guards(self) -> str: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class PinCheck:
    """Integer storage offsets (``(slot, offset)`` pairs) and, for a static
    synthetic base at slot ``base_member``, its storage's size
    (``storage_nbytes``, no autograd base) or its autograd base's layout
    (all four ``base_*`` keywords)."""

    def __new__(
        cls,
        *,
        offsets: Sequence[tuple[int, int]],
        base_member: int | None = None,
        storage_nbytes: int | None = None,
        base_sizes: Sequence[int] | None = None,
        base_strides: Sequence[int] | None = None,
        base_offset: int | None = None,
        base_dtype: Any = None,
    ) -> PinCheck: ...
    @property
    def offsets(self) -> list[tuple[int, int]]: ...
    @property
    def base_member(self) -> int | None: ...
    @property
    def storage_nbytes(self) -> int | None: ...
    @property
    def base_sizes(self) -> list[int] | None: ...
    @property
    def base_strides(self) -> list[int] | None: ...
    @property
    def base_offset(self) -> int | None: ...
    @property
    def base_dtype(self) -> Any: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class AddressCheck:
    """Two members' addresses compare at a call as user code compared them
    at compile time: ``relation`` is ``data_ptr``, ``storage_data_ptr``,
    ``set_to`` or ``alias_of``; ``expected`` what it gave."""

    def __new__(
        cls,
        *,
        members: Sequence[int],
        relation: Literal["data_ptr", "storage_data_ptr", "set_to", "alias_of"],
        expected: bool,
    ) -> AddressCheck: ...
    @property
    def members(self) -> list[int]: ...
    @property
    def relation(self) -> str: ...
    @property
    def expected(self) -> bool: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class CrossStorageCheck:
    """No member of a mutated group shares its storage with a member of
    another group (``groups``: each member's compile-time group;
    ``mutated``: per group, whether one of its members is mutated)."""

    def __new__(
        cls, *, members: Sequence[int], groups: Sequence[int], mutated: Sequence[bool]
    ) -> CrossStorageCheck: ...
    @property
    def members(self) -> list[int]: ...
    @property
    def groups(self) -> list[int]: ...
    @property
    def mutated(self) -> list[bool]: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class NoSelfOverlapCheck(_MembersCheck):
    """No member overlaps itself (decided exactly from its sizes and strides)."""

#: Any run-time check.
_Check: TypeAlias = OneStorageCheck | PartitionCheck | PinCheck | CrossStorageCheck | NoSelfOverlapCheck | AddressCheck
#: One step from a frame's locals to a value.
_Step: TypeAlias = tuple[Literal["item", "attr"], Any]

def rebuild(cls: type[Any], kwargs: Mapping[str, Any]) -> Any:
    """Makes a check class from what its ``__reduce__`` gave (pickle, ``copy``)."""

@final
class FrameCheck:
    """Every run-time check of one compiled frame, decided in one native
    call (``symalias.torch``), over the frame's tensors by slot."""

    def __new__(
        cls, paths: Sequence[Sequence[_Step] | None], checks: Sequence[_Check], lazy: bool = False
    ) -> FrameCheck:
        """``paths``: per slot, its ``("item", key)`` / ``("attr", name)``
        steps from the frame's locals, or None for a tensor passed in the call
        (``lazy``: all of them as one function of the locals returning their tuple)."""
    def __call__(self, locals: Any, *tensors: Any) -> bool:
        """True when every check holds; counted in ``check_counters``. Takes
        the tensors recorded in this guard evaluation, and fetches the
        others (by path, or from the passed tensors or thunk)."""
    def begin(self) -> Any:
        """A builtin of one argument returning True that opens a guard
        evaluation (a leaf on Dynamo's root)."""
    def epilogue(self) -> Any:
        """The check as a builtin of one argument (the frame's locals), for
        Dynamo's epilogue leaf: counted like a call; a passed tensor not
        recorded in the evaluation fails it."""
    def recorder(self, k: int) -> Any:
        """A builtin of one argument (tensor ``k``) returning True that
        records it for this evaluation (a leaf on its guard manager)."""
    @property
    def recorded(self) -> int:
        """How many tensors the last counted call took from recorders."""
    def failing(self, locals: Any, *tensors: Any) -> int | None:
        """The first check that fails, or None; not counted."""
    def check_holds(self, k: int, locals: Any, *tensors: Any) -> bool:
        """Whether check ``k`` alone holds; not counted."""
    def __len__(self) -> int: ...

def check_counters() -> tuple[int, int, int]:
    """Run-time checks since the last reset: ``(calls, failures, nanoseconds)``."""

def tensor_counters() -> tuple[int, int]:
    """Tensors the counted checks took from recorders and fetched themselves."""

def reset_check_counters() -> None:
    """Sets the run-time check counters to zero."""

def reader_enable(
    library: str,
    types: Sequence[type],
    probes: Sequence[Any],
    expected: Sequence[tuple[int, int, Sequence[int], Sequence[int], int]],
) -> None:
    """Verifies the native tensor reader on the loaded torch (``library``:
    its ``libtorch_cpu``; ``probes``: tensors of ``types`` with what torch's
    Python methods read of them) and turns it on; once verified in a
    process, turns it back on. Raises ``ValueError`` naming what did not hold."""

def reader_disable() -> None:
    """Turns the native tensor reader off: the checks read through Python."""

def reader_enabled() -> bool:
    """Whether the native tensor reader is on."""

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
    def time_limit_hit(self) -> bool:
        """The time limit (the wall-clock backstop) stopped some of the work:
        still sound, but an idler machine may decide more. False: the
        decision is a function of the tensors' layouts and the options."""
    @property
    def offsets(self) -> list[int | None]:
        """Each tensor's storage offset when it is an integer."""
    @property
    def micros(self) -> int:
        """The engine's time (loading and analysis)."""
    def json(self) -> str:
        """The result line (FORMATS.md §3) as JSON text."""
    def result(self) -> OverlapResult:
        """The whole typed result (pairs, witnesses, guards), built natively."""
    def svg(self) -> str:
        """The picture of the group's memory (SVG text), drawn only when asked for."""

def decide(
    tensors: Sequence[Any],
    sources: Sequence[str],
    *,
    prove: bool = True,
    hints_only: bool = False,
    unbacked: bool = False,
    time_limit_ms: int | None = None,
) -> Decision:
    """One storage group of torch tensors (real or fake; SymInt layouts read
    without guarding) decided natively; ``hints_only``: each SymInt read as
    its value at the hints; ``unbacked``: a symbol without a hint is read
    with its range, its hint made from the range's bound (only a proof,
    ``invariant is True``, then means anything); ``time_limit_ms`` bounds
    the proof's wall clock. Raises ``TypeError`` for what is not a strided
    tensor, ``DifferentStoragesError`` / ``UnbackedSymbolError``,
    ``InputError`` for an invalid layout."""

def overlapping_for_all_shapes(tensors: Sequence[Any], *, time_limit_ms: int | None = None) -> list[int]:
    """The tensors (views of one storage) that may overlap another for some
    allowed shape, ascending, never guarding: exact for concrete layouts;
    for symbolic ones none when they are proved pairwise disjoint for every
    allowed shape within ``time_limit_ms``, else all of them. Unbacked
    sizes are read with their ranges. Raises as ``decide``."""
