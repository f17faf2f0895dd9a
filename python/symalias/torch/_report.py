"""A storage group as symalias decided it during a compile, in the words
and picture ``explain``, the log and the structured trace give it. Part of
the pure core: a value, built by ``_compile.Compile.adopt`` from a
``GroupDecision``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import OverlapResult


@dataclass
class GroupReport:
    """One storage group as symalias decided it during a compile."""

    sources: list[str]
    #: Indices (into ``sources``) that overlap another member.
    overlapping: list[int]
    #: True proved for all shapes, False refuted, None undecided / static.
    invariant: bool | None
    symbolic: bool
    #: The native decision (``_native.Decision``), None when undecided.
    decision: Any
    #: What the run-time guard checks, in words.
    guard: list[str]
    #: Why the conservative answer was used (unbacked symbol, error), if it was.
    fallback: str | None = None
    #: True when the decision was restored for an AOTAutograd cache hit.
    from_cache: bool = False

    @property
    def result(self) -> OverlapResult | None:
        """The whole typed result (pairs, witnesses, guards), built on first use."""
        if self.decision is None:
            return None
        cached: OverlapResult | None = self.__dict__.get("_result")
        if cached is None:
            cached = self.decision.result()
            self.__dict__["_result"] = cached
        return cached

    def describe(self, k: int = 0) -> list[str]:
        """The group (the ``k``-th) in words: its sources, what overlaps, the
        witnesses, the verdict, the guards."""
        lines: list[str] = []
        cached = " (restored for an AOTAutograd cache hit)" if self.from_cache else ""
        lines.append(f"storage group {k}: {', '.join(self.sources)}{cached}")
        if self.fallback:
            lines.append(f"  undecided ({self.fallback}): all treated as overlapping")
        ov = [self.sources[i] for i in self.overlapping]
        lines.append(f"  overlapping: {', '.join(ov) if ov else 'none'}")
        if self.result is not None:
            for p in self.result.pairs:
                if not p.overlap:
                    continue
                w = p.witness
                where = (
                    f" at byte {w.address} ({self.sources[p.a]}{list(w.index_a)}, {self.sources[p.b]}{list(w.index_b)})"
                    if w
                    else ""
                )
                lines.append(f"  {self.sources[p.a]} overlaps {self.sources[p.b]}{where}")
            if self.symbolic:
                verdict = {
                    True: "proved for all shapes",
                    False: "refuted (depends on the shapes)",
                    None: "undecided",
                }[self.result.invariant]
                lines.append(f"  verdict: {verdict}")
                if self.result.counterexample:
                    lines.append(f"  counterexample: {self.result.counterexample}")
            else:
                lines.append("  verdict: static shapes")
            for gd in self.result.guards:
                lines.append(f"  symalias guard: {gd.text}")
            if self.result.guards and self.result.symbols:
                where = ", ".join(f"{n} = {v}" for n, v in sorted(self.result.symbols.items()))
                lines.append(f"  where {where}")
        lines.append(f"  run-time guard: {'; '.join(self.guard) if self.guard else 'none'}")
        return lines

    def svg(self) -> str | None:
        """The picture of the group's memory (SVG text), None when undecided."""
        return None if self.decision is None else str(self.decision.svg())
