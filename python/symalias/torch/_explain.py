"""``explain``: compile a function with symalias installed and report the
storage groups it decided."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

from ._install import enabled
from ._report import GroupReport
from ._state import stats
from ._torch import gateway


@dataclass
class Explanation:
    """What ``explain`` saw: one report per aliased storage group."""

    groups: list[GroupReport]
    eager_fallbacks: int
    #: Why each frame that ran eagerly did.
    fallback_reasons: list[str]

    def __str__(self) -> str:
        lines: list[str] = []
        if not self.groups:
            lines.append("no storage group with a mutated input was analysed")
        for k, g in enumerate(self.groups):
            lines.extend(g.describe(k))
        for reason in self.fallback_reasons:
            lines.append(f"frame ran eagerly: {reason}")
        return "\n".join(lines)

    def _repr_svg_(self) -> str | None:
        """What a notebook shows: the first decided group's picture (each
        group's: ``GroupReport.svg()``)."""
        for g in self.groups:
            if g.decision is not None:
                return str(g.decision.svg())
        return None


def explain(
    fn: Callable[..., Any], *args: Any, dynamic: bool | None = None, backend: str = "aot_eager", **kwargs: Any
) -> Explanation:
    """Compiles ``fn`` with symalias installed, calls it once on ``args``
    and reports the aliased storage groups it met (print the result)."""

    with enabled():
        before = len(stats.reports)
        reasons = len(stats.fallback_reasons)
        gateway.reset_dynamo()
        torch.compile(fn, backend=backend, dynamic=dynamic)(*args, **kwargs)
        return Explanation(
            groups=list(stats.reports[before:]),
            eager_fallbacks=len(stats.fallback_reasons) - reasons,
            fallback_reasons=list(stats.fallback_reasons[reasons:]),
        )
