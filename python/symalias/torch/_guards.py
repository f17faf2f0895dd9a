"""symalias's run-time guards: facts checked by one native call per frame.

A *fact* is what a compile decided and the compiled graph relies on; its
*check* is the native, typed object (``symalias._native``) that tests it on
a call, over the frame's tensors by slot:

* ``PartitionFact`` (H2), checked by ``PartitionCheck`` (or, for a merged
  group that needs no more, ``OneStorageCheck``): the fact torch's
  ``StorageOverlap`` guard checks -- which members of a storage group
  overlap -- with symalias's exact checker; its failure reads as torch's
  does: ``check_overlapping(overlapping=[a, b], non_overlapping=[c, d])``.
* ``PinFact`` / ``PinCheck`` pins what a compiled graph bakes in and torch
  guards nowhere: integer storage offsets and, for static shapes, the
  synthetic base's layout.
* ``CrossStorageFact`` / ``CrossStorageCheck`` (H3): no mutated input
  shares its storage with an input that was in another storage at compile
  time.
* ``AddressFact`` / ``AddressCheck`` (``_address``): two inputs' addresses
  compare as user code compared them when the frame was compiled.
* ``NoSelfOverlapFact`` / ``NoSelfOverlapCheck``: no mutated input overlaps
  itself where that was not proved for all shapes.

``FrameGuards`` gathers a compile's facts and hands their checks to torch
as one ``FrameFacts``, an AOTAutograd guard
(``torch._guards.GuardEnvExpr``) appended where AOTAutograd appends its
``StorageOverlap`` and ``DuplicateInputs``: ``tracing_context.guards_context
.aotautograd_guards``. torch builds those after a user's ``guard_filter_fn``
has run, so no filter drops them (``skip_all_guards_unsafe`` filters
Dynamo's guards, not the facts the compiled graph's correctness rests on);
they are saved with the frame's guards (``aot_compile``, precompile) and
rebuilt on load. torch's guard builder knows only its own two kinds, so
``compile_check_fn`` (wrapped, ``_hooks``) takes symalias's out of that
list for its loop and installs each as one epilogue lambda guard calling
``_native.FrameCheck``, which reads each tensor once (storage identity,
offset; whole layouts only for symbolic groups), decides in Rust, memoises
partitions on what it read, counts its calls, failures and time
(``stats``), and never raises: a fact it cannot read on a call (a tensor
became ``None``, a list got shorter) fails. A frame with one fact has that
fact's wording as its recompile reason; with several, each fact is a
verbose part torch evaluates on failure (``why``), so the reason names the
fact that failed, in the same words.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Sequence
from typing import Any, Callable, Literal

from .. import _native
from . import _state, _torch

#: A fact's native check (the classes of ``symalias._native``).
Check = Any


def source_name(source: Any) -> str:
    """A Dynamo source's name, as torch prints it in guards."""
    n = source.name
    return str(n() if callable(n) else n)


#: The name ``why`` has where torch evaluates a failed guard's words for its
#: recompile reason (the guard manager's closure variables, to which
#: ``wrap_compile_check_fn`` adds it).
WHY = "___symalias_why"


def why(frame: int, k: int, locals: Any, *tensors: Any) -> Any:
    """Fact ``k`` of frame check ``frame`` on the frame's values: True when
    it holds, else its words (torch evaluates this as a recompile reason)."""
    entry = _state.frame_words.get(frame)
    check = entry[0]() if entry is not None else None
    if entry is None or check is None:
        return True
    return True if check.check_holds(k, locals, *tensors) else entry[1][k]


@dataclasses.dataclass(frozen=True)
class FrameFacts(_torch.guard_env_expr()):  # type: ignore[misc]
    """Every symalias fact of one compiled frame, as an AOTAutograd guard:
    the sources of the tensors they name, each fact's native check (it
    pickles with a saved artifact), and each fact's words (its recompile
    reason)."""

    sources: list[Any]
    #: Per fact: its check while the frame keeps its ShapeEnv guards (None:
    #: nothing), and the check instead where a guard filter dropped them
    #: (None: the same) -- a proof for all shapes assumes the ShapeEnv's
    #: guards (its ranges, its replacements: duck-sized offsets), so
    #: without them its partition is checked.
    facts: list[Check | None]
    premised: list[Check | None]
    words: list[str]

    def chosen(self, shape_env_kept: bool) -> tuple[list[Check], list[str]]:
        """The facts to check and their words."""
        out, words = [], []
        for f, p, w in zip(self.facts, self.premised, self.words):
            fact = f if shape_env_kept or p is None else p
            if fact is not None:
                out.append(fact)
                words.append(w)
        return out, words

    def install(self, builder: Any, shape_env_kept: bool) -> None:
        """Adds the frame's check to ``builder``'s guard manager, as one
        epilogue lambda guard (run after every other guard of the frame)."""
        facts, words = self.chosen(shape_env_kept)
        if not facts:
            return
        if not all(isinstance(f, _CHECKS) for f in facts):
            # Saved by a symalias whose checks were of another form.
            builder.add_python_lambda_leaf_guard_to_root(["False"], [OUTDATED], closure_vars={})
            return
        names = [source_name(s) for s in self.sources]
        paths = [_torch.path(s) for s in self.sources]
        check = _native.FrameCheck(paths, facts)
        args = ", ".join(["L"] + [n for n, p in zip(names, paths) if p is None])
        if len(words) == 1:
            verbose = words
        else:
            frame = next(_state.counter)
            _state.frame_words[frame] = (weakref.ref(check, lambda _: _state.frame_words.pop(frame, None)), words)
            verbose = [f"{WHY}({frame}, {k}, {args})" for k in range(len(words))]
        fn_name = f"___symalias_check_{next(_state.counter)}"
        builder.add_python_lambda_leaf_guard_to_root([f"{fn_name}({args})"], verbose, closure_vars={fn_name: check})


#: The native check classes.
_CHECKS = (
    _native.OneStorageCheck,
    _native.PartitionCheck,
    _native.PinCheck,
    _native.CrossStorageCheck,
    _native.NoSelfOverlapCheck,
    _native.AddressCheck,
)

#: Why a saved artifact whose checks this symalias cannot read never passes.
OUTDATED = (
    "symalias: this compiled artifact was saved by another symalias version, whose aliasing checks this "
    "one cannot read; compile or save it again"
)


#: The mark of a guard set built with symalias installed, where it has no
#: fact to check (saved with it, so a load can tell).
STAMP = FrameFacts([], [], [], [])


def _adopt(output_graph: Any, guards: list[Any]) -> None:
    """The guards a ``CheckFunctionManager`` builds from ``output_graph``:
    a live capture's orphaned facts (by its ShapeEnv) join them, and a
    ``STAMP`` where there is no fact, so that a saved artifact says it was
    made with symalias (``wrap_load_guard_manager``). A loaded artifact's
    guard state has facts or a stamp already; its ShapeEnv is a fresh one,
    with no orphans."""
    guards += _state.orphans.pop(output_graph.shape_env, [])
    pending = _state.take_pending(guards)
    if pending:
        # A frame whose address checks met no compile (no graph to compile).
        alone = FrameGuards()
        for sources, fact in pending:
            alone.add(sources, fact)
        guards.append(alone.facts_value())
    if not any(isinstance(g, FrameFacts) for g in guards):
        guards.append(STAMP)


#: Why a saved artifact made without symalias never passes its guards.
UNSTAMPED = (
    "symalias: this compiled artifact was saved without symalias installed, so it carries no check that "
    "its inputs alias as when it was compiled; compile or save it again with symalias.torch.install()"
)


@dataclasses.dataclass(frozen=True)
class Unstamped(FrameFacts):
    """The guard a loaded artifact made without symalias gets: it never
    passes, with ``UNSTAMPED`` as its reason."""

    def install(self, builder: Any, shape_env_kept: bool) -> None:
        builder.add_python_lambda_leaf_guard_to_root(["False"], [UNSTAMPED], closure_vars={})


def wrap_load_guard_manager(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``torch._dynamo.package.load_guard_manager``, which builds the guards
    of a saved artifact (``load_compiled_function``, precompile). One saved
    without symalias has no ``FrameFacts``: it carries no check that its
    inputs alias as when it was compiled, so its guard state gets an
    ``Unstamped`` guard that never passes -- precompile then compiles the
    frame afresh, under symalias; a loaded ``aot_compile`` function refuses
    each call with ``UNSTAMPED`` as the reason (torch's guard failure).
    Raising here instead breaks torch's own recovery (2.15: "CompilePackage
    is already initialized")."""

    def load_guard_manager(guards_state: Any, *args: Any, **kwargs: Any) -> Any:
        guards = guards_state.output_graph.aotautograd_guards
        if not any(isinstance(g, FrameFacts) for g in guards):
            guards.append(Unstamped([], [], [], [UNSTAMPED]))
        return orig(guards_state, *args, **kwargs)

    load_guard_manager.__wrapped__ = orig  # type: ignore[attr-defined]
    return load_guard_manager


def wrap_compile_check_fn(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``CheckFunctionManager.compile_check_fn``: installs the frame's
    ``FrameFacts`` (a compile's, an ``aot_compile``'s, or a loaded
    artifact's) and hides them from torch's loop over AOTAutograd guards,
    which knows only its own kinds."""

    def compile_check_fn(
        self: Any, builder: Any, guards_out: Any, guard_fail_fn: Any, *args: Any, **kwargs: Any
    ) -> Any:
        guards = self.output_graph.aotautograd_guards
        _adopt(self.output_graph, guards)
        ours = [g for g in guards if isinstance(g, FrameFacts)]
        saved = list(guards)
        guards[:] = [g for g in saved if not isinstance(g, FrameFacts)]
        # ``guards_out``: Dynamo's guards that the filter kept.
        kept = any(g.create_fn_name() == "SHAPE_ENV" for g in guards_out)
        try:
            for g in ours:
                g.install(builder, kept)
            out = orig(self, builder, guards_out, guard_fail_fn, *args, **kwargs)
        finally:
            guards[:] = saved
        if ours:
            _torch.add_reason_function(self, WHY, why)
        return out

    compile_check_fn.__wrapped__ = orig  # type: ignore[attr-defined]
    return compile_check_fn


class FrameGuards:
    """The facts of one compile, over the union of their sources."""

    def __init__(self) -> None:
        self.sources: list[Any] = []
        self._slot: dict[str, int] = {}
        self.facts: list[tuple[Any, list[int]]] = []

    def add(self, sources: Sequence[Any], fact: Any) -> None:
        """Adds a fact about the tensors at ``sources``."""
        idx = []
        for s in sources:
            name = source_name(s)
            if name not in self._slot:
                self._slot[name] = len(self.sources)
                self.sources.append(s)
            idx.append(self._slot[name])
        self.facts.append((fact, idx))

    def facts_value(self) -> FrameFacts:
        """The facts gathered, as one ``FrameFacts``."""
        return FrameFacts(
            list(self.sources),
            [f.check(idx) for f, idx in self.facts],
            [f.premised(idx) if isinstance(f, PartitionFact) else None for f, idx in self.facts],
            [f.verbose() for f, _ in self.facts],
        )

    def install(self, tc: Any, orphan: bool = False) -> None:
        """The facts gathered, as one ``FrameFacts`` among the compile's
        AOTAutograd guards (none when there is none). ``orphan``: no Dynamo
        compile is open; the tracing context may not be the capture's."""
        if not self.facts or tc is None:
            return
        facts = self.facts_value()
        tc.guards_context.aotautograd_guards.append(facts)
        if orphan and tc.fake_mode is not None and tc.fake_mode.shape_env is not None:
            _state.orphans.setdefault(tc.fake_mode.shape_env, []).append(facts)
        grouped = any(not isinstance(f, (CrossStorageFact, AddressFact)) for f, _ in self.facts)
        with _state.lock:
            _state.stats.frames_guarded += 1
            _state.lifetime.frames_guarded += 1
            _state.lifetime.frames_group_guarded += int(grouped)
        self.facts = []


def base_signature(t: Any) -> dict[str, Any]:
    """What a static synthetic base bakes in, as ``PinCheck``'s keywords: the
    autograd base's layout, or the storage's size when there is none."""
    b = _torch.autograd_base(t)
    if b is not None:
        return {
            "base_sizes": list(b.shape),
            "base_strides": list(b.stride()),
            "base_offset": b.storage_offset(),
            "base_dtype": b.dtype,
        }
    return {"storage_nbytes": t.untyped_storage().nbytes()}


class PartitionFact:
    """Which members of a storage group overlap (and, for a merged group,
    that they still share one storage)."""

    def __init__(self, names: list[str], decision: Any, merged: bool, proved: bool, symbolic: bool) -> None:
        self.names = names
        self.merged = merged
        self.symbolic = symbolic
        self.overlapping = list(decision.overlapping) if decision is not None else list(range(len(names)))
        # The classification itself: nothing when proved for all shapes
        # (pinned layouts keep the proof's premises); symalias's partition
        # guard otherwise (the decision's StorageOverlap guards, or its
        # partition by source). A conservative (undecided) merge is right
        # for any pattern, so it only needs the one storage.
        self.decision: Any = decision if (decision is not None and not proved) else None
        #: A proof for all shapes over symbolic layouts: it assumes the
        #: ShapeEnv's guards, so it is checked where a filter drops them.
        self.proof: Any = decision if (decision is not None and proved and symbolic) else None

    def __eq__(self, other: object) -> bool:
        """The same fact: the same members and classification, checked the
        same way (by a decision's guards, by a proof's, or not at all)."""
        return isinstance(other, PartitionFact) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[Any, ...]:
        # What ``describe`` and the checks are made of (no native call).
        has = (self.decision is not None, self.proof is not None)
        return (tuple(self.names), self.merged, self.symbolic, tuple(self.overlapping), has)

    def needed(self) -> bool:
        # A split group in two storages stays disjoint: the one-storage
        # check matters only for a merged group.
        return self.merged or self.decision is not None or self.proof is not None

    def verbose(self) -> str:
        """torch's wording of the same fact (its StorageOverlap guard),
        rendered by the engine."""
        ov = set(self.overlapping)
        guard = {
            "kind": "storage_overlap",
            "overlapping": [self.names[i] for i in sorted(ov)],
            "non_overlapping": [n for i, n in enumerate(self.names) if i not in ov],
        }
        return str(_native.render_guards([guard])[0])

    def describe(self) -> list[str]:
        words = []
        if self.merged:
            words.append(f"{', '.join(self.names)} share one storage")
        if self.decision is not None:
            words.append(f"{self.verbose()} by symalias")
        if self.proof is not None:
            words.append(f"{self.verbose()} by symalias where a guard filter drops the ShapeEnv's guards")
        return words

    def check(self, idx: list[int]) -> Check | None:
        """The check, members at frame slots ``idx`` (None: nothing to check
        while the ShapeEnv's guards hold)."""
        if self.decision is not None:
            return self._partition(idx, self.decision)
        return _native.OneStorageCheck(members=idx) if self.merged else None

    def premised(self, idx: list[int]) -> Check | None:
        """What replaces ``check`` where a guard filter dropped the
        ShapeEnv's guards (None: the same)."""
        return self._partition(idx, self.proof) if self.proof is not None else None

    def _partition(self, idx: list[int], decision: Any) -> Check:
        return _native.PartitionCheck(
            members=idx,
            merged=self.merged,
            symbolic=self.symbolic,
            names=self.names,
            decision=decision,
        )


class PinFact:
    """Integer storage offsets (and a static synthetic base's layout) that a
    compiled graph bakes in; torch guards neither."""

    def __init__(self, names: list[str], pins: list[tuple[int, int]], base: dict[str, Any] | None) -> None:
        self.names = names
        self.pins = pins
        self.base = base

    def __eq__(self, other: object) -> bool:
        """The same fact: the same members, offsets and base."""
        return isinstance(other, PinFact) and self.describe() == other.describe() and self.names == other.names

    def __hash__(self) -> int:
        return hash((tuple(self.names), tuple(self.describe())))

    def needed(self) -> bool:
        return bool(self.pins) or self.base is not None

    def describe(self) -> list[str]:
        words = []
        if self.pins:
            words.append("storage offsets " + ", ".join(f"{self.names[i]}={v}" for i, v in self.pins))
        if self.base is not None:
            words.append(f"synthetic base {self.base}")
        return words

    def verbose(self) -> str:
        return "symalias: " + "; ".join(self.describe())

    def check(self, idx: list[int]) -> Check:
        """The check, members at frame slots ``idx``."""
        offsets = [(idx[i], off) for i, off in self.pins]
        if self.base is None:
            return _native.PinCheck(offsets=offsets)
        return _native.PinCheck(offsets=offsets, base_member=idx[0], **self.base)


class CrossStorageFact:
    """No mutated input shares its storage with an input that was in another
    storage at compile time."""

    VERBOSE = "symalias: no mutated input aliases an input of another storage"

    def __init__(self, groups: list[int], mutated: list[bool]) -> None:
        self.groups = groups
        flags = [False] * (max(groups) + 1 if groups else 0)
        for g, m in zip(groups, mutated):
            flags[g] = flags[g] or m
        self.mutated_groups = flags

    def verbose(self) -> str:
        return self.VERBOSE

    def check(self, idx: list[int]) -> Check:
        """The check, members at frame slots ``idx``."""
        return _native.CrossStorageCheck(members=idx, groups=self.groups, mutated=self.mutated_groups)


class NoSelfOverlapFact:
    """Mutated inputs that do not overlap themselves at the hints, where
    that was not proved for every shape: none overlaps itself at the call
    (else eager would write an element once per index, the graph once)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def verbose(self) -> str:
        return f"symalias: no self-overlap of mutated {', '.join(self.names)}"

    def check(self, idx: list[int]) -> Check:
        """The check, members at frame slots ``idx``."""
        return _native.NoSelfOverlapCheck(members=idx)


#: How user code compared two inputs' addresses (``_address``).
Relation = Literal["data_ptr", "storage_data_ptr", "set_to", "alias_of"]


class AddressFact:
    """Two inputs' addresses compare as they did at compile time."""

    def __init__(self, relation: Relation, expected: bool) -> None:
        self.relation = relation
        self.expected = expected

    def check(self, idx: list[int]) -> Any:
        return _native.AddressCheck(members=idx, relation=self.relation, expected=self.expected)

    def verbose(self) -> str:
        op = {"data_ptr": "data_ptr()", "storage_data_ptr": "untyped_storage().data_ptr()"}
        what = (
            f"the inputs' {op[self.relation]} {'equal' if self.expected else 'differ'}"
            if self.relation in op
            else f"{'is_set_to' if self.relation == 'set_to' else '_is_alias_of'} is {self.expected}"
        )
        return f"symalias: {what}, as when the frame was compiled"
