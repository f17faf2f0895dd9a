"""H1: AOTAutograd's overlap decision, and the facts about mutated inputs.

``compute_overlapping_inputs`` is replaced: the exact overlapping indices
(bytes, not elements), decided at the hints and, for symbolic layouts,
proved for every allowed shape (``_decision.decide_group``), adopted by the
compile in progress. It never adds a ShapeEnv guard. ``adopt_mutation_facts``
adds H3's cross-storage fact and the self-overlap fact, for a compile
(``_merge``) and for a cache hit (``_cache``) alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from . import _compile
from ._decision import decide_group
from ._facts import cross_storage_fact, no_self_overlap_fact
from ._layout import source_list
from ._torch import gateway


def compute_overlapping_inputs(aot_config: Any, fwd_inputs: list[Any], aliased_input_indices: list[int]) -> set[int]:
    """Replacement of ``runtime_wrappers.compute_overlapping_inputs``."""
    c = _compile.current()
    positions = [c.position(fwd_inputs, i) if c else i for i in aliased_input_indices]
    d = decide_group(
        [fwd_inputs[i] for i in aliased_input_indices],
        source_list(aot_config, positions),
        [f"input {i}" for i in aliased_input_indices],
    )
    if c is None and gateway.tracing_context() is None:
        # torch <= 2.12 runs ``merge_view_inputs`` again at every call (the
        # synthetic base's run-time wrapper): an answer for that call, not a
        # compile's decision to record, guard or report.
        return {aliased_input_indices[i] for i in d.overlapping}
    _compile.record().adopt(d)
    return {aliased_input_indices[i] for i in d.overlapping}


def wrap_compute_overlapping_inputs(_orig: Callable[..., Any]) -> Callable[..., Any]:
    """H1: symalias's decision in place of AOTAutograd's (torch's is not
    called)."""
    return compute_overlapping_inputs


def adopt_mutation_facts(
    positions: Sequence[int],
    sources: Sequence[Any],
    tensors: Sequence[Any],
    mutated: Sequence[bool],
    guarded: Sequence[int],
) -> None:
    """H3's cross-storage fact over a frame's ``tensors`` (at input
    ``positions``, named by ``sources``), and the self-overlap fact on the
    mutated inputs at positions ``guarded``, for the compile in progress --
    when there is a tracing context."""
    if gateway.tracing_context() is None:
        return
    c = _compile.record()
    cross = cross_storage_fact(sources, tensors, mutated)
    if cross is not None:
        c.adopt(cross)
    slot = {p: k for k, p in enumerate(positions)}
    own = no_self_overlap_fact([sources[slot[p]] for p in guarded], guarded)
    if own is not None:
        c.adopt(own)
