"""symalias inside torch.compile.

``install()`` puts symalias in place of AOTAutograd's overlap decision and
adds symalias's own run-time guards (PYTORCH_REFERENCE.md §9, hook points
measured on torch 2.15):

* **H1, the decision**: ``runtime_wrappers.compute_overlapping_inputs`` is
  replaced: the exact overlapping indices (bytes, not elements: views of
  different dtypes are compared exactly), decided at the hints and, for
  symbolic layouts, proved for every allowed shape. Never adds a guard to the
  ShapeEnv (layouts are read from SymInt nodes and the ShapeEnv's tables).
* **H2, the group guard**: torch's ``StorageOverlap`` guard re-checks with its
  own faulty test, so none is appended; instead a Dynamo lambda guard per
  storage group checks, with symalias's checker, that the members still
  share one storage and keep their classification -- nothing when the verdict
  was proved, the partition otherwise -- also for static shapes (where torch
  guards nothing), and pins what the synthetic-base graph bakes in (integer
  offsets, the base's size).
* **H3, cross-storage aliasing**: a lambda guard that no mutated input shares
  its storage with an input that was in another storage at compile time.
* **H4, views of different dtypes**: AOTAutograd cannot merge them into a
  synthetic base; the frame runs eagerly (one warning line) instead of raising.

``explain(fn, *args)`` compiles ``fn`` with symalias installed and reports the
storage groups it saw: which inputs overlap, a witness byte per pair, whether
each verdict is proved for all shapes, and the guards.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from . import OverlapResult, _answer_case, _native
from ._tensors import case_of, storage_key

log = logging.getLogger("symalias.torch")

__all__ = [
    "HookError",
    "install",
    "uninstall",
    "installed",
    "enabled",
    "explain",
    "GroupReport",
    "Explanation",
    "stats",
]


class HookError(RuntimeError):
    """A torch hook point symalias needs is missing or changed shape."""


class _DtypeFallback(Exception):
    """Raised inside AOTAutograd to make Dynamo run a frame eagerly."""


@dataclass
class GroupReport:
    """One storage group as symalias decided it during a compile."""

    sources: List[str]
    #: Indices (into ``sources``) that overlap another member.
    overlapping: List[int]
    #: True proved for all shapes, False refuted, None undecided / static.
    invariant: Optional[bool]
    symbolic: bool
    result: Optional[OverlapResult]
    #: What the run-time guard checks, in words.
    guard: List[str]
    #: Why the conservative answer was used (unbacked symbol, error), if it was.
    fallback: Optional[str] = None


@dataclass
class _Stats:
    decisions: int = 0
    decision_seconds: float = 0.0
    guard_checks: int = 0
    guard_failures: int = 0
    dtype_fallbacks: int = 0
    reports: List[GroupReport] = field(default_factory=list)


_lock = threading.RLock()
_saved: Dict[str, Any] = {}
_counter = itertools.count()
stats = _Stats()
"""Counters since the last ``install()``: decisions and the time they took,
run-time guard checks and failures, eager fallbacks, and the group reports."""

_EXPECTED_COI = ["aot_config", "fwd_inputs", "aliased_input_indices"]
_EXPECTED_MVI = ["aot_config", "fwd_inputs", "fwd_inputs_descs", "mutated_input_info"]
_EXPECTED_CUC = ["self", "gm", "example_inputs"]
_EXPECTED_LAMBDA = ["self", "code_parts", "verbose_code_parts", "closure_vars"]


def _hooks() -> Dict[str, Any]:
    """The hook points, checked: raises ``HookError`` naming what moved."""
    try:
        import torch
        import torch._dynamo  # noqa: F401  (before runtime_wrappers: circular import)
        import torch._guards as tg
        from torch._dynamo import guards as dg
        from torch._dynamo import output_graph as og
        from torch._functorch._aot_autograd import runtime_wrappers as rw
    except ImportError as e:  # pragma: no cover - exercised without torch
        raise HookError(f"symalias.torch needs torch >= 2.15: {e}") from e
    problems = []

    def need(obj: Any, attr: str, what: str) -> Any:
        v = getattr(obj, attr, None)
        if v is None:
            problems.append(f"{what}.{attr} is missing")
        return v

    coi = need(rw, "compute_overlapping_inputs", "torch._functorch._aot_autograd.runtime_wrappers")
    mvi = need(rw, "merge_view_inputs", "torch._functorch._aot_autograd.runtime_wrappers")
    cuc = need(og.OutputGraph, "call_user_compiler", "torch._dynamo.output_graph.OutputGraph")
    need(tg, "Guard", "torch._guards")
    need(tg, "TracingContext", "torch._guards")
    lam = need(
        dg.GuardBuilder, "add_python_lambda_leaf_guard_to_root", "torch._dynamo.guards.GuardBuilder"
    )
    for fn, expected in (
        (coi, _EXPECTED_COI),
        (mvi, _EXPECTED_MVI),
        (cuc, _EXPECTED_CUC),
        (lam, _EXPECTED_LAMBDA),
    ):
        if fn is None:
            continue
        params = list(inspect.signature(fn).parameters)[: len(expected)]
        if params != expected:
            problems.append(
                f"{fn.__module__}.{fn.__name__} takes {params}, symalias expects {expected}"
            )
    if problems:
        raise HookError(
            f"symalias cannot hook this torch ({torch.__version__}): " + "; ".join(problems)
        )
    return {"torch": torch, "rw": rw, "og": og, "tg": tg}


def installed() -> bool:
    """Whether symalias is installed in torch.compile."""
    return bool(_saved)


def install() -> None:
    """Puts symalias in place of AOTAutograd's overlap analysis (idempotent).
    Raises ``HookError`` when a hook point moved in this torch version."""
    with _lock:
        if _saved:
            return
        h = _hooks()
        rw, og = h["rw"], h["og"]
        _saved["coi"] = rw.compute_overlapping_inputs
        _saved["mvi"] = rw.merge_view_inputs
        _saved["cuc"] = og.OutputGraph.call_user_compiler
        stats.__init__()  # type: ignore[misc]
        rw.compute_overlapping_inputs = _compute_overlapping_inputs
        rw.merge_view_inputs = _wrap_merge_view_inputs(_saved["mvi"])
        og.OutputGraph.call_user_compiler = _wrap_call_user_compiler(_saved["cuc"])


def uninstall() -> None:
    """Restores torch's own functions (idempotent)."""
    with _lock:
        if not _saved:
            return
        h = _hooks()
        rw, og = h["rw"], h["og"]
        rw.compute_overlapping_inputs = _saved.pop("coi")
        rw.merge_view_inputs = _saved.pop("mvi")
        og.OutputGraph.call_user_compiler = _saved.pop("cuc")


@contextlib.contextmanager
def enabled() -> Iterator[None]:
    """``with symalias.torch.enabled(): ...`` installs for the block."""
    was = installed()
    install()
    try:
        yield
    finally:
        if not was:
            uninstall()


# ---- H1: the decision --------------------------------------------------------


def _source_names(aot_config: Any, indices: Sequence[int]) -> Optional[List[Any]]:
    pos_to_source = getattr(aot_config, "aot_autograd_arg_pos_to_source", None)
    if not pos_to_source:
        return None
    out = []
    for i in indices:
        if i >= len(pos_to_source) or pos_to_source[i] is None:
            return None
        out.append(pos_to_source[i])
    return out


def _name(source: Any) -> str:
    n = source.name
    return str(n() if callable(n) else n)


def _compute_overlapping_inputs(
    aot_config: Any, fwd_inputs: List[Any], aliased_input_indices: List[int]
) -> Set[int]:
    import time

    import torch

    start = time.perf_counter()
    tensors = [fwd_inputs[i] for i in aliased_input_indices]
    sources = _source_names(aot_config, aliased_input_indices)
    names = [_name(s) for s in sources] if sources else [f"input {i}" for i in aliased_input_indices]
    symbolic = any(
        isinstance(x, torch.SymInt)
        for t in tensors
        for x in (*t.shape, *t.stride(), t.storage_offset())
    )
    result: Optional[OverlapResult] = None
    fallback = None
    case = None
    try:
        case = case_of(tensors, symbolic=True, sources=names)
        result = _answer_case(case, prove=True)
        local = list(result.overlapping)
    except Exception as e:  # unbacked symbols, engine errors: be conservative
        fallback = f"{type(e).__name__}: {e}"
        log.warning(
            "symalias: cannot decide the overlap of %s (%s); treating them as overlapping",
            ", ".join(names),
            fallback,
        )
        local = list(range(len(tensors)))
    merged = len(local) > 1
    overlapping = {aliased_input_indices[i] for i in local}
    guard_words: List[str] = []
    tc = torch._guards.TracingContext.try_get()
    if tc is not None and sources is not None:
        check = _GroupCheck(names, tensors, case, result, merged, symbolic)
        guard_words = check.describe()
        if check.needed():
            _add_lambda_guard(tc, sources, check, "; ".join(guard_words))
    with _lock:
        stats.decisions += 1
        stats.decision_seconds += time.perf_counter() - start
        stats.reports.append(
            GroupReport(
                sources=names,
                overlapping=local,
                invariant=result.invariant if (result is not None and symbolic) else None,
                symbolic=symbolic,
                result=result,
                guard=guard_words,
                fallback=fallback,
            )
        )
    return overlapping


# ---- H2: the group's run-time guard ----------------------------------------------


def _base_signature(t: Any) -> Tuple[Any, ...]:
    b = t._base
    if b is not None:
        return ("base", tuple(b.shape), tuple(b.stride()), b.storage_offset(), b.dtype)
    return ("storage", t.untyped_storage().nbytes())


class _GroupCheck:
    """Run-time check of one storage group (memoised on the layouts)."""

    _CACHE_LIMIT = 4096

    def __init__(
        self,
        names: List[str],
        tensors: List[Any],
        case: Optional[Dict[str, Any]],
        result: Optional[OverlapResult],
        merged: bool,
        symbolic: bool,
    ) -> None:
        self.names = names
        self.merged = merged
        self.cache: Dict[Any, bool] = {}
        # Integer offsets the graph may bake in (Dynamo does not guard them):
        # pinned when the group was merged, or when the verdict is a proof
        # over the layout (which assumed them).
        offsets = case["tensors"] if case is not None else []
        proved = result is not None and result.invariant is True
        self.pins: List[Tuple[int, int]] = []
        if merged or (proved and symbolic):
            self.pins = [
                (i, t["storage_offset"])
                for i, t in enumerate(offsets)
                if isinstance(t["storage_offset"], int)
            ]
        # Static shapes, merged: the synthetic base's size is baked in too.
        self.base: Optional[Tuple[Any, ...]] = None
        if merged and not symbolic:
            self.base = _base_signature(tensors[0])
        # The classification: nothing when proved (symbolic) or pinned
        # (static, merged); symalias's partition guard otherwise. A
        # conservative (undecided) merge is right for any pattern.
        self.guards: Optional[Any] = None
        self.expected: Optional[List[int]] = None
        if result is not None and not (proved and (symbolic or merged)):
            overlap_guards = [
                {"kind": g.kind, **g.fields} for g in result.guards if g.kind == "storage_overlap"
            ]
            if not overlap_guards:
                overlap_guards = [
                    {
                        "kind": "storage_overlap",
                        "overlapping": [names[i] for i in result.overlapping],
                        "non_overlapping": [names[i] for i in result.non_overlapping],
                    }
                ]
            self.guards = _native.GuardSet(json.dumps({"guards": overlap_guards}))
            self.expected = list(result.overlapping)

    def needed(self) -> bool:
        # The one-storage check matters only for a merged group (a split
        # group in two storages stays disjoint).
        return self.merged or bool(self.pins) or self.guards is not None

    def describe(self) -> List[str]:
        words = []
        if self.merged:
            words.append(f"{', '.join(self.names)} share one storage")
        if self.pins:
            words.append(
                "storage offsets " + ", ".join(f"{self.names[i]}={v}" for i, v in self.pins)
            )
        if self.base is not None:
            words.append(f"synthetic base {self.base}")
        if self.guards is not None:
            ov = [self.names[i] for i in self.expected or []]
            words.append(f"StorageOverlap(overlapping=[{', '.join(ov)}]) by symalias")
        return words

    def __call__(self, *tensors: Any) -> bool:
        keys = [storage_key(t) for t in tensors]
        first: Dict[int, int] = {}
        pattern = tuple(first.setdefault(k, i) for i, k in enumerate(keys))
        layouts = tuple(
            (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.element_size())
            for t in tensors
        )
        base = _base_signature(tensors[0]) if self.base is not None else None
        key = (pattern, layouts, base)
        hit = self.cache.get(key)
        if hit is None:
            hit = self._check(pattern, layouts, base)
            if len(self.cache) >= self._CACHE_LIMIT:
                self.cache.clear()
            self.cache[key] = hit
        with _lock:
            stats.guard_checks += 1
            if not hit:
                stats.guard_failures += 1
        return hit

    def _check(self, pattern: Tuple[int, ...], layouts: Tuple[Any, ...], base: Optional[Tuple[Any, ...]]) -> bool:
        if self.merged and any(p != 0 for p in pattern):
            return False
        for i, off in self.pins:
            if layouts[i][2] != off:
                return False
        if self.base is not None and base != self.base:
            return False
        if self.guards is None:
            return True
        inputs = [
            {
                "source": self.names[i],
                "tensor": {
                    "object": str(i),
                    "storage": str(pattern[i]),
                    "sizes": list(sz),
                    "strides": list(st),
                    "storage_offset": off,
                    "itemsize": isz,
                },
            }
            for i, (sz, st, off, isz) in enumerate(layouts)
        ]
        outcome = json.loads(self.guards.check(json.dumps({"inputs": inputs})))
        return bool(outcome["pass"])


def _add_lambda_guard(tc: Any, sources: List[Any], check: Callable[..., bool], words: str) -> None:
    """A Dynamo lambda guard calling ``check`` on the sources' values."""
    import torch

    fn_name = f"___symalias_check_{next(_counter)}"
    code = f"{fn_name}({', '.join(_name(s) for s in sources)})"
    verbose = [f"symalias: {words}"]

    def create_fn(builder: Any, guard: Any) -> None:
        builder.add_python_lambda_leaf_guard_to_root(
            [code], verbose, closure_vars={fn_name: check}
        )

    tc.guards_context.dynamo_guards.add(torch._guards.Guard(sources[0], create_fn))


# ---- H3 and H4: around merge_view_inputs --------------------------------------------


class _CrossStorageCheck:
    """No mutated input shares its storage with an input that was in another
    storage at compile time."""

    def __init__(self, groups: List[int], mutated: List[bool]) -> None:
        self.groups = groups
        self.mutated_groups = {g for g, m in zip(groups, mutated) if m}

    def __call__(self, *tensors: Any) -> bool:
        # The compile-time groups each run-time storage holds; a storage
        # holding two of them fails only when one was mutated.
        by_key: Dict[int, Set[int]] = {}
        for t, g in zip(tensors, self.groups):
            by_key.setdefault(storage_key(t), set()).add(g)
        for gs in by_key.values():
            if len(gs) > 1 and gs & self.mutated_groups:
                with _lock:
                    stats.guard_failures += 1
                return False
        return True


def _wrap_merge_view_inputs(orig: Callable[..., Any]) -> Callable[..., Any]:
    def merge_view_inputs(
        aot_config: Any,
        fwd_inputs: List[Any],
        fwd_inputs_descs: Any,
        mutated_input_info: List[Any],
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        _cross_storage_guard(aot_config, fwd_inputs, mutated_input_info)
        try:
            return orig(aot_config, fwd_inputs, fwd_inputs_descs, mutated_input_info, *args, **kwargs)
        except AssertionError as e:
            if "different dtypes" in str(e):
                raise _DtypeFallback(str(e)) from e
            raise

    merge_view_inputs.__wrapped__ = orig  # type: ignore[attr-defined]
    return merge_view_inputs


def _cross_storage_guard(aot_config: Any, fwd_inputs: List[Any], mutated_input_info: List[Any]) -> None:
    import torch

    if not any(getattr(m, "mutates_data", False) for m in mutated_input_info):
        return
    tc = torch._guards.TracingContext.try_get()
    if tc is None:
        return
    idx = [i for i, t in enumerate(fwd_inputs) if isinstance(t, torch.Tensor)]
    if len(idx) < 2:
        return
    sources = _source_names(aot_config, idx)
    if sources is None:
        return
    group_of: Dict[int, int] = {}
    groups = [group_of.setdefault(storage_key(fwd_inputs[i]), len(group_of)) for i in idx]
    if len(group_of) < 2:
        return
    mutated = [bool(mutated_input_info[i].mutates_data) for i in idx]
    check = _CrossStorageCheck(groups, mutated)
    _add_lambda_guard(tc, sources, check, "no mutated input aliases an input of another storage")


def _wrap_call_user_compiler(orig: Callable[..., Any]) -> Callable[..., Any]:
    def call_user_compiler(self: Any, gm: Any, example_inputs: Any) -> Any:
        try:
            return orig(self, gm, example_inputs)
        except Exception as e:
            inner = getattr(e, "inner_exception", None)
            if isinstance(e, _DtypeFallback) or isinstance(inner, _DtypeFallback):
                with _lock:
                    stats.dtype_fallbacks += 1
                log.warning(
                    "symalias: overlapping mutated inputs of different dtypes cannot be "
                    "merged by AOTAutograd; running frame %s eagerly",
                    getattr(gm, "_get_name", lambda: "graph")(),
                )
                return gm.forward
            raise

    call_user_compiler.__wrapped__ = orig  # type: ignore[attr-defined]
    return call_user_compiler


# ---- explain ---------------------------------------------------------------


@dataclass
class Explanation:
    """What ``explain`` saw: one report per aliased storage group."""

    groups: List[GroupReport]
    eager_fallbacks: int

    def __str__(self) -> str:
        lines: List[str] = []
        if not self.groups:
            lines.append("no storage group with a mutated input was analysed")
        for k, g in enumerate(self.groups):
            lines.append(f"storage group {k}: {', '.join(g.sources)}")
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
                        f" at byte {w.address} ({g.sources[p.a]}{list(w.index_a)}, "
                        f"{g.sources[p.b]}{list(w.index_b)})"
                        if w
                        else ""
                    )
                    lines.append(f"  {g.sources[p.a]} overlaps {g.sources[p.b]}{where}")
                if g.symbolic:
                    verdict = {True: "proved for all shapes", False: "refuted (depends on the shapes)", None: "undecided"}[
                        g.result.invariant
                    ]
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
        if self.eager_fallbacks:
            lines.append(f"{self.eager_fallbacks} frame(s) ran eagerly (views of different dtypes)")
        return "\n".join(lines)


def explain(fn: Callable[..., Any], *args: Any, dynamic: Optional[bool] = None, backend: str = "aot_eager", **kwargs: Any) -> Explanation:
    """Compiles ``fn`` with symalias installed, calls it once on ``args``
    and reports the aliased storage groups it met (print the result)."""
    import torch

    with enabled():
        before = len(stats.reports)
        fallbacks = stats.dtype_fallbacks
        torch._dynamo.reset()
        with _no_compile_caches():
            torch.compile(fn, backend=backend, dynamic=dynamic)(*args, **kwargs)
        return Explanation(
            groups=list(stats.reports[before:]),
            eager_fallbacks=stats.dtype_fallbacks - fallbacks,
        )


@contextlib.contextmanager
def _no_compile_caches() -> Iterator[None]:
    import torch

    cfg = torch.compiler.config
    old = cfg.force_disable_caches
    cfg.force_disable_caches = True
    try:
        yield
    finally:
        cfg.force_disable_caches = old
