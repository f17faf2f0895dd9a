"""``explain``: compile a function with symalias installed and report the
storage groups it decided."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

from . import _torch
from ._hooks import enabled
from ._state import GroupReport, stats


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
            cached = " (restored for an AOTAutograd cache hit)" if g.from_cache else ""
            lines.append(f"storage group {k}: {', '.join(g.sources)}{cached}")
            if g.fallback:
                lines.append(f"  undecided ({g.fallback}): all treated as overlapping")
            ov = [g.sources[i] for i in g.overlapping]
            lines.append(f"  overlapping: {', '.join(ov) if ov else 'none'}")
            if g.result is not None:
                for p in g.result.pairs:
                    if not p.overlap:
                        continue
                    w = p.witness
                    where = (
                        f" at byte {w.address} ({g.sources[p.a]}{list(w.index_a)}, {g.sources[p.b]}{list(w.index_b)})"
                        if w
                        else ""
                    )
                    lines.append(f"  {g.sources[p.a]} overlaps {g.sources[p.b]}{where}")
                if g.symbolic:
                    verdict = {
                        True: "proved for all shapes",
                        False: "refuted (depends on the shapes)",
                        None: "undecided",
                    }[g.result.invariant]
                    lines.append(f"  verdict: {verdict}")
                    if g.result.counterexample:
                        lines.append(f"  counterexample: {g.result.counterexample}")
                else:
                    lines.append("  verdict: static shapes")
                for gd in g.result.guards:
                    lines.append(f"  symalias guard: {gd.text}")
                if g.result.guards and g.result.symbols:
                    where = ", ".join(f"{k} = {v}" for k, v in sorted(g.result.symbols.items()))
                    lines.append(f"  where {where}")
            lines.append(f"  run-time guard: {'; '.join(g.guard) if g.guard else 'none'}")
        for reason in self.fallback_reasons:
            lines.append(f"frame ran eagerly: {reason}")
        return "\n".join(lines)


def explain(
    fn: Callable[..., Any], *args: Any, dynamic: bool | None = None, backend: str = "aot_eager", **kwargs: Any
) -> Explanation:
    """Compiles ``fn`` with symalias installed, calls it once on ``args``
    and reports the aliased storage groups it met (print the result)."""

    with enabled():
        before = len(stats.reports)
        reasons = len(stats.fallback_reasons)
        _torch.reset_dynamo()
        torch.compile(fn, backend=backend, dynamic=dynamic)(*args, **kwargs)
        return Explanation(
            groups=list(stats.reports[before:]),
            eager_fallbacks=len(stats.fallback_reasons) - reasons,
            fallback_reasons=list(stats.fallback_reasons[reasons:]),
        )
