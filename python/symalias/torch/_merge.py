"""Around AOTAutograd's synthetic-base step and Dynamo's backend call.

``merge_view_inputs`` (wrapped) records what the compile mutates (the
recipe a cache hit needs), adds the cross-storage guard (H3), holds view
replay off for frames with a synthetic base (pytorch#198095: an output
view of a merged input came back at the wrong storage offset), and turns
AOTAutograd's refusals for aliased mutated inputs into an eager fallback.

``call_user_compiler`` (wrapped) opens the compile record and runs a frame
eagerly -- one warning, counted in ``stats`` -- where AOTAutograd cannot
build a right graph for it: views of different dtypes that cannot be
merged at byte level (``_bytes``), views made through ``.detach()``/``.data``,
a mutated input that overlaps itself, or any failure while compiling a frame
whose mutated inputs share a storage with another input. Eager raises none
of these; ``gm.forward`` runs the captured graph as eager would, and the
frame stays cached under its guards.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from . import _bytes, _compile, _selfwrites, _state
from ._compile import EagerFallback
from ._decision import self_overlap
from ._inputs import adopt_mutation_facts
from ._layout import source_list, storage_groups
from ._state import lock, log, stats
from ._torch import gateway

#: AOTAutograd's messages for aliased mutated inputs it cannot merge.
_REFUSALS = (
    ("different dtypes", True),
    ("non-differentiable view input mutations", False),
)


def _aliased_mutation(fwd_inputs: list[Any], mutated: list[bool]) -> bool:
    """Some storage holds a mutated tensor input and another tensor input."""
    return any(any(mutated[i] for i in g) for g in storage_groups(fwd_inputs))


def _record(c: _compile.Compile | None, fwd_inputs: list[Any], mutated: list[bool]) -> None:
    """Mutation flags by flat-argument position, for the cache entry."""
    if c is None:
        return
    n = len(c.flat_args) if c.flat_args is not None else len(fwd_inputs)
    flags = [False] * n
    for i, m in enumerate(mutated):
        p = c.position(fwd_inputs, i)
        if p < n:
            flags[p] = flags[p] or m
    if c.flat_args is not None:
        # A duplicate removed by AOTAutograd shares the kept input's flags.
        first: dict[int, int] = {}
        for p, a in enumerate(c.flat_args):
            q = first.setdefault(id(a), p)
            flags[p] = flags[q]
    c.recipe.mutated = flags


def _before_merge(c: _compile.Compile | None, fwd_inputs: list[Any], mutated: list[bool]) -> list[int]:
    """What runs before the merge of a frame with mutations: the eager
    fallback for a mutated input that overlaps itself, the recipe, the mark
    of an aliased mutation; the mutated inputs whose non-overlap with
    themselves needs a run-time check."""
    own = self_overlap(fwd_inputs, mutated)
    if own.eager is not None:
        raise EagerFallback(own.eager)
    _record(c, fwd_inputs, mutated)
    if c is not None and _aliased_mutation(fwd_inputs, mutated):
        c.aliased_mutation = True
    return list(own.guarded)


def _mutation_guards(
    c: _compile.Compile | None, aot_config: Any, fwd_inputs: list[Any], mutated: list[bool], guarded: list[int]
) -> None:
    """H3 and the self-overlap check, on the frame's tensor inputs."""
    idx = [i for i, t in enumerate(fwd_inputs) if isinstance(t, torch.Tensor)]
    positions = [c.position(fwd_inputs, i) if c else i for i in idx]
    sources = source_list(aot_config, positions)
    if sources is None:
        return
    adopt_mutation_facts(idx, sources, [fwd_inputs[i] for i in idx], [mutated[i] for i in idx], guarded)


def _record_bases(c: _compile.Compile, out: Any) -> None:
    """The synthetic bases a merge made, in the compile's record: their
    count (torch's convention: the bases come first, then the others, the
    int entries of the calling convention), torch's members, bases at a
    storage offset; view replay held off for the compile."""
    c.recipe.bases = len(out[0]) - sum(isinstance(e, int) for e in out[2])
    c.bytes.torch_members.update(id(e[1]) for e in out[2] if not isinstance(e, int))
    for k, base in enumerate(out[0][: c.recipe.bases]):
        off = base.storage_offset()
        if not (isinstance(off, int) and off == 0):
            c.bytes.offset_bases[k] = off
            c.recipe.unsaved = "a synthetic base at a storage offset"
    _compile.hold_view_replay_off(c)


def wrap_merge_view_inputs(orig: Callable[..., Any]) -> Callable[..., Any]:
    def merge_view_inputs(
        aot_config: Any,
        fwd_inputs: list[Any],
        fwd_inputs_descs: Any,
        mutated_input_info: list[Any],
        *args: Any,
        **kwargs: Any,
    ) -> Any:

        c = _compile.current()
        mutated = [bool(m.mutates_data) for m in mutated_input_info]
        any_mutated = any(mutated)
        guarded: list[int] = []
        if any_mutated:
            guarded = _before_merge(c, fwd_inputs, mutated)
        try:
            # Decides each mutated storage group (H1, H2 guards first: when
            # both fail, torch's wording is the recompile reason). Views of
            # different dtypes: a byte-level base (``_bytes``).
            if any_mutated and _bytes.needs_byte_base(fwd_inputs, mutated):
                out = _bytes.byte_merge(aot_config, fwd_inputs, fwd_inputs_descs, mutated_input_info)
            else:
                out = orig(aot_config, fwd_inputs, fwd_inputs_descs, mutated_input_info, *args, **kwargs)
        except AssertionError as e:
            for words, dtypes in _REFUSALS:
                if words in str(e):
                    raise EagerFallback(str(e).splitlines()[0], dtypes=dtypes) from e
            raise
        if any_mutated:
            _mutation_guards(c, aot_config, fwd_inputs, mutated, guarded)
        if out[2] is not None and c is not None:
            _record_bases(c, out)
        return out

    merge_view_inputs.__wrapped__ = orig  # type: ignore[attr-defined]
    return merge_view_inputs


def wrap_alias_of_input(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``AliasOfInputHandler.__init__``: an output that is a view of an input
    *not* merged into a synthetic base keeps the user's view replay (eager's
    strides, also of size-1 dimensions) while symalias holds it off for the
    outputs of merged inputs. Its ``base_idx`` counts the graph's inputs,
    the synthetic bases first."""

    def __init__(self: Any, info: Any, runtime_metadata: Any, trace_joint: bool, *args: Any, **kwargs: Any) -> None:
        orig(self, info, runtime_metadata, trace_joint, *args, **kwargs)
        c = _compile.current()
        if c is None or c.saved_view_replay is None:
            return
        recipe = c.loaded if c.loaded is not None else c.recipe
        if info.base_idx >= recipe.bases:
            self.replay_views = c.saved_view_replay

    __init__.__wrapped__ = orig  # type: ignore[attr-defined]
    return __init__


def _fallback(e: BaseException, c: _compile.Compile) -> EagerFallback | None:
    """The eager fallback an exception from the backend calls for, if any."""

    failed, inner = gateway.backend_failure(e)
    for x in (e, inner):
        if isinstance(x, EagerFallback):
            return x
    what = inner if inner is not None else e
    line = (str(what).strip().splitlines() or [""])[0]
    if c.aliased_mutation and failed:
        return EagerFallback(
            f"AOTAutograd cannot build this frame of aliased mutated inputs ({type(what).__name__}: {line})"
        )
    if failed and _compiler_assertion(inner):
        # An assertion inside the compiler is torch's bug, never the user's
        # (the user's errors raise again when the frame runs eagerly).
        return EagerFallback(f"the backend's own assertion failed ({type(what).__name__}: {line})", kind="compiler")
    return None


def _compiler_assertion(e: BaseException | None) -> bool:
    """Whether a backend failure is (or wraps: Dynamo's and Inductor's
    wrappers, or a cause) an ``AssertionError``."""
    for _ in range(6):
        if e is None:
            return False
        if isinstance(e, AssertionError):
            return True
        wrapper, inner = gateway.backend_failure(e)
        e = inner if wrapper else e.__cause__
    return False


def _seal(c: _compile.Compile) -> None:
    """The compile's facts, with those its capture parked, as one guard of
    the frame."""
    with lock:
        stats.frames_compiled += 1
        _state.lifetime.frames_compiled += 1
    tc = gateway.tracing_context()
    if tc is not None:
        for fact in _compile.unpark(tc.guards_context.aotautograd_guards):
            c.adopt(fact)
    c.seal(tc)


def wrap_call_user_compiler(orig: Callable[..., Any]) -> Callable[..., Any]:
    def call_user_compiler(self: Any, gm: Any, example_inputs: Any) -> Any:

        c = _compile.begin()
        try:
            why = _selfwrites.eager_reason(gm)
            if why is not None:
                raise EagerFallback(why, kind="functionalization")
            out = orig(self, gm, example_inputs)
            _seal(c)
            return out
        except Exception as e:
            fb = _fallback(e, c)
            if fb is None:
                raise
            with lock:
                stats.eager_fallbacks += 1
                stats.dtype_fallbacks += int(fb.dtypes)
                stats.fallback_reasons.append(fb.reason)
                stats.fallback_kinds[fb.kind] = stats.fallback_kinds.get(fb.kind, 0) + 1
                _state.lifetime.frames_eager += 1
            log.warning(
                "symalias: running frame %s eagerly (%s): %s",
                gateway.graph_name(gm),
                fb.kind,
                fb.reason,
            )
            _seal(c)
            return gm.forward
        finally:
            _compile.end(c)

    call_user_compiler.__wrapped__ = orig  # type: ignore[attr-defined]
    return call_user_compiler
