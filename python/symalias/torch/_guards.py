"""A frame's facts as one AOTAutograd guard, and its native check.

``FrameFacts`` (a ``torch._guards.GuardEnvExpr``) carries every fact of one
compiled frame (``_facts``): the sources of the tensors they name, each
fact's native check and its words. ``_compile`` appends it where
AOTAutograd appends its ``StorageOverlap`` and ``DuplicateInputs``
(``tracing_context.guards_context.aotautograd_guards``): torch builds
those after a user's ``guard_filter_fn`` has run, so no filter drops them,
and they are saved with the frame's guards (``aot_compile``, precompile)
and rebuilt on load -- this module's path and class names are in saved
artifacts. torch's guard builder knows only its own two kinds, so
``compile_check_fn`` (``_checks``) installs each ``FrameFacts`` as one
epilogue lambda guard calling ``_native.FrameCheck``, which reads each
tensor once (storage identity, offset; whole layouts only for symbolic
groups), decides in Rust, memoises partitions on what it read, counts its
calls, failures and time (``stats``), and never raises: a fact it cannot
read on a call (a tensor became ``None``, a list got shorter) fails. A
frame with one fact has that fact's words as its recompile reason; with
several, each fact is a verbose part torch evaluates on failure (``why``),
so the reason names the fact that failed, in the same words.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any

from .. import _native
from . import _state
from ._facts import CHECKS, Check
from ._layout import source_name
from ._torch import gateway

#: The name ``why`` has where torch evaluates a failed guard's words for its
#: recompile reason (the guard manager's closure variables, to which
#: ``_checks.wrap_compile_check_fn`` adds it).
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
class FrameFacts(gateway.guard_env_expr()):  # type: ignore[misc]
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
        if not all(isinstance(f, CHECKS) for f in facts):
            # Saved by a symalias whose checks were of another form.
            builder.add_python_lambda_leaf_guard_to_root(["False"], [OUTDATED], closure_vars={})
            return
        names = [source_name(s) for s in self.sources]
        paths = [gateway.path(s) for s in self.sources]
        passed = [n for n, p in zip(names, paths) if p is None]
        check = _native.FrameCheck(paths, facts, lazy=True)
        # Each tensor is recorded where Dynamo's own guards read it (a leaf
        # on its guard manager, after a leaf on the root opens the
        # evaluation); the check takes what was recorded in this
        # evaluation and fetches the rest itself: by path, or through the
        # thunk of the passed tensors (evaluated only then).
        recorded = [False] * len(names)
        if gateway.add_leaf(builder, None, check.begin(), ["symalias: a guard evaluation begins"]):
            recorded = [
                gateway.add_leaf(builder, s, check.recorder(k), [f"symalias: records {names[k]}"])
                for k, s in enumerate(self.sources)
            ]
        thunk = f"lambda L: ({', '.join(passed)},)" if passed else None
        call = ", ".join(["L"] + ([thunk] if thunk else []))
        args = ", ".join(["L", *passed])
        if len(words) == 1:
            verbose = words
        else:
            frame = next(_state.counter)
            _state.frame_words[frame] = (weakref.ref(check, lambda _: _state.frame_words.pop(frame, None)), words)
            verbose = [f"{WHY}({frame}, {k}, {args})" for k in range(len(words))]
        # Every tensor the guard's code would pass has a recorder: the check
        # itself is the epilogue leaf (no guard code, no Python frame); a
        # passed tensor Dynamo did not record in an evaluation then fails it.
        if all(r for r, p in zip(recorded, paths) if p is None) and gateway.add_epilogue(
            builder, check.epilogue(), verbose
        ):
            return
        fn_name = f"___symalias_check_{next(_state.counter)}"
        builder.add_python_lambda_leaf_guard_to_root([f"{fn_name}({call})"], verbose, closure_vars={fn_name: check})


#: Why a saved artifact whose checks this symalias cannot read never passes.
OUTDATED = (
    "symalias: this compiled artifact was saved by another symalias version, whose aliasing checks this "
    "one cannot read; compile or save it again"
)

#: The mark of a guard set built with symalias installed, where it has no
#: fact to check (saved with it, so a load can tell).
STAMP = FrameFacts([], [], [], [])

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
