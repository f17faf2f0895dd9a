"""Decisions in the structured trace (``TORCH_TRACE``, read by tlparse).

Each storage-group decision (also one restored for a cache hit), each
answer symalias gives Inductor's reinplace pass and each higher-order op's
check of inputs of one storage is written as two artifacts of the compile
that made it: its text (``symalias_*``) and its picture
(``symalias_*_memory_map``, SVG). Nothing is built -- no text, no picture,
no closure -- unless a trace is being written (``gateway.tracing_structured``).
A picture that cannot be drawn leaves its text alone: tracing never changes
a compile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from ._decision import picture
from ._report import GroupReport
from ._state import feature_on, log
from ._torch import gateway


def _writing() -> bool:
    """A structured trace is being written and the ``trace_artifacts``
    feature runs."""
    return feature_on("trace_artifacts") and gateway.tracing_structured()


def _artifact(name: str, payload: Callable[[], str]) -> None:
    def safe() -> str:
        try:
            return payload()
        except Exception as e:  # a picture failing must not fail the compile
            log.debug("symalias: no %s artifact (%s: %s)", name, type(e).__name__, e)
            return f"symalias: could not draw this decision ({type(e).__name__}: {e})"

    gateway.trace_artifact(name, safe)


def group(report: GroupReport) -> None:
    """A storage group's decision: its explanation and its picture."""
    if not _writing():
        return
    _artifact("symalias_storage_group", lambda: "\n".join(report.describe()))
    decision = report.decision
    if decision is not None:
        _artifact("symalias_storage_group_memory_map", lambda: str(decision.svg()))


def _picture(tensors: Sequence[Any], names: list[str]) -> str:
    return picture(tensors, names)


def reinplace(tensors: Sequence[Any], overlapping: frozenset[int]) -> None:
    """The reinplace pass's question: views of one storage, and which may
    overlap another for some allowed shape."""
    if not _writing():
        return
    names = [f"arg{i}" for i in range(len(tensors))]
    answer = ", ".join(names[i] for i in sorted(overlapping)) or "none"

    def text() -> str:
        shapes = "; ".join(f"{n}: size {tuple(t.shape)} stride {t.stride()}" for n, t in zip(names, tensors))
        return f"reinplace pass: {len(tensors)} views of one storage ({shapes})\n  may overlap another: {answer}"

    _artifact("symalias_reinplace", text)
    _artifact("symalias_reinplace_memory_map", lambda: _picture(tensors, names))


def hop_inputs(
    values: Sequence[Any],
    names: list[str],
    groups: list[list[int]],
    written: set[int],
    conflict: tuple[int, int] | None,
) -> None:
    """A higher-order op's inputs of one storage: accepted (read-only or
    disjoint) or refused (a written one may overlap another)."""
    if not _writing():
        return

    def text() -> str:
        lines = ["higher-order op: inputs sharing a storage"]
        for g in groups:
            lines.append("  " + ", ".join(f"{names[i]}{' (written)' if i in written else ''}" for i in g))
        if conflict is None:
            lines.append("  accepted: no written input may share a byte with another")
        else:
            lines.append(
                f"  refused: {names[conflict[0]]} and {names[conflict[1]]} may share a byte and one is written"
            )
        return "\n".join(lines)

    _artifact("symalias_hop_inputs", text)
    for g in groups:
        members = [values[i] for i in g]
        labels = [names[i] for i in g]
        _artifact("symalias_hop_inputs_memory_map", _drawing(members, labels))


def _drawing(tensors: list[Any], names: list[str]) -> Callable[[], str]:
    """The picture of ``tensors``, drawn when called."""
    return lambda: _picture(tensors, names)
