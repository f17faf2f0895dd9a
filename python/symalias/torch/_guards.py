"""symalias's run-time guards, installed as Dynamo lambda guards.

* ``PartitionCheck`` (H2) checks the fact torch's ``StorageOverlap`` guard
  checks -- which members of a storage group overlap -- with symalias's exact
  checker; its failure reads as torch's does:
  ``check_overlapping(overlapping=[a, b], non_overlapping=[c, d])``.
* ``PinCheck`` pins what a compiled graph bakes in and torch guards nowhere:
  integer storage offsets and, for static shapes, the synthetic base's layout.
* ``CrossStorageCheck`` (H3): no mutated input shares its storage with an
  input that was in another storage at compile time.

Each check is memoised on the layouts it reads; a failure is counted in
``stats`` and its detail logged (INFO, logger ``symalias.torch``).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from .. import OverlapResult, _native
from .._tensors import storage_key
from . import _state
from ._state import lock, log, stats


def source_name(source: Any) -> str:
    """A Dynamo source's name, as torch prints it in guards."""
    n = source.name
    return str(n() if callable(n) else n)


def add_lambda_guard(tc: Any, sources: Sequence[Any], check: Callable[..., bool], verbose: str) -> None:
    """A Dynamo lambda guard calling ``check`` on the sources' values;
    ``verbose`` is its one verbose code part (the recompile reason)."""
    import torch

    fn_name = f"___symalias_check_{next(_state.counter)}"
    code = f"{fn_name}({', '.join(source_name(s) for s in sources)})"

    def create_fn(builder: Any, guard: Any) -> None:
        builder.add_python_lambda_leaf_guard_to_root(
            [code], [verbose], closure_vars={fn_name: check}
        )

    tc.guards_context.dynamo_guards.add(torch._guards.Guard(sources[0], create_fn))


def _count(ok: bool) -> None:
    # Paid on every call of a compiled frame: the check count is a plain
    # increment (the GIL keeps it from tearing; concurrent frames may lose a
    # count), failures are rare and counted under the lock.
    stats.guard_checks += 1
    if not ok:
        with lock:
            stats.guard_failures += 1


def _pattern(tensors: Sequence[Any]) -> Tuple[int, ...]:
    """Which tensors share a storage: each one's first tensor of its storage."""
    first: Dict[int, int] = {}
    return tuple(first.setdefault(storage_key(t), i) for i, t in enumerate(tensors))


def _layouts(tensors: Sequence[Any]) -> Tuple[Any, ...]:
    return tuple(
        (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.element_size()) for t in tensors
    )


def base_signature(t: Any) -> Tuple[Any, ...]:
    """What a static synthetic base bakes in: the autograd base's layout, or
    the storage's size when there is none."""
    b = t._base
    if b is not None:
        return ("base", tuple(b.shape), tuple(b.stride()), b.storage_offset(), b.dtype)
    return ("storage", t.untyped_storage().nbytes())


class PartitionCheck:
    """Which members of a storage group overlap (and, for a merged group,
    that they still share one storage), checked at run time."""

    _CACHE_LIMIT = 4096

    def __init__(
        self, names: List[str], result: Optional[OverlapResult], merged: bool, proved: bool, symbolic: bool
    ) -> None:
        self.names = names
        self.merged = merged
        # Static layouts: Dynamo's tensor-match guard pins sizes, strides and
        # dtype, so a call's layouts differ from another's only in offsets.
        self.static = not symbolic
        overlapping = list(result.overlapping) if result is not None else list(range(len(names)))
        self.overlapping = overlapping
        self.cache: Dict[Any, bool] = {}
        # The classification itself: nothing when proved for all shapes
        # (pinned layouts keep the proof's premises); symalias's partition
        # guard otherwise. A conservative (undecided) merge is right for any
        # pattern, so it only needs the one storage.
        self.guards: Optional[_native.GuardSet] = None
        if result is not None and not proved:
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

    def needed(self) -> bool:
        # A split group in two storages stays disjoint: the one-storage
        # check matters only for a merged group.
        return self.merged or self.guards is not None

    def verbose(self) -> str:
        """torch's wording of the same fact (its StorageOverlap guard)."""
        ov = set(self.overlapping)
        return "check_overlapping(overlapping=[{}], non_overlapping=[{}])".format(
            ", ".join(self.names[i] for i in sorted(ov)),
            ", ".join(n for i, n in enumerate(self.names) if i not in ov),
        )

    def describe(self) -> List[str]:
        words = []
        if self.merged:
            words.append(f"{', '.join(self.names)} share one storage")
        if self.guards is not None:
            ov = [self.names[i] for i in self.overlapping]
            words.append(f"StorageOverlap(overlapping=[{', '.join(ov)}]) by symalias")
        return words

    def __call__(self, *tensors: Any) -> bool:
        if self.guards is None:
            # Only "still one storage" (a merged group proved, or undecided).
            first = storage_key(tensors[0])
            ok = True
            for t in tensors:
                if storage_key(t) != first:
                    ok = False
                    log.info("symalias: %s failed: %s no longer share one storage", self.verbose(), ", ".join(self.names))
                    break
            _count(ok)
            return ok
        pattern = _pattern(tensors)
        layouts = None if self.static else _layouts(tensors)
        if layouts is None:
            key: Any = (pattern, tuple([t.storage_offset() for t in tensors]))
        else:
            key = (pattern, layouts)
        hit = self.cache.get(key)
        if hit is None:
            hit, detail = self._check(self.guards, pattern, layouts or _layouts(tensors))
            if not hit:
                log.info("symalias: %s failed: %s", self.verbose(), detail)
            if len(self.cache) >= self._CACHE_LIMIT:
                self.cache.clear()
            self.cache[key] = hit
        _count(hit)
        return hit

    def _check(
        self, guards: _native.GuardSet, pattern: Tuple[int, ...], layouts: Tuple[Any, ...]
    ) -> Tuple[bool, str]:
        if self.merged and any(p != 0 for p in pattern):
            return False, f"{', '.join(self.names)} no longer share one storage"
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
        outcome = json.loads(guards.check(json.dumps({"inputs": inputs})))
        return bool(outcome["pass"]), str(outcome.get("reason") or "")


class PinCheck:
    """Integer storage offsets (and a static synthetic base's layout) that a
    compiled graph bakes in; torch guards neither."""

    def __init__(self, names: List[str], pins: List[Tuple[int, int]], base: Optional[Tuple[Any, ...]]) -> None:
        self.names = names
        self.pins = pins
        self.base = base

    def needed(self) -> bool:
        return bool(self.pins) or self.base is not None

    def describe(self) -> List[str]:
        words = []
        if self.pins:
            words.append(
                "storage offsets " + ", ".join(f"{self.names[i]}={v}" for i, v in self.pins)
            )
        if self.base is not None:
            words.append(f"synthetic base {self.base}")
        return words

    def verbose(self) -> str:
        return "symalias: " + "; ".join(self.describe())

    def __call__(self, *tensors: Any) -> bool:
        ok = True
        for i, off in self.pins:
            if tensors[i].storage_offset() != off:
                ok = False
                break
        if ok and self.base is not None:
            ok = base_signature(tensors[0]) == self.base
        _count(ok)
        return ok


class CrossStorageCheck:
    """No mutated input shares its storage with an input that was in another
    storage at compile time."""

    VERBOSE = "symalias: no mutated input aliases an input of another storage"

    def __init__(self, groups: List[int], mutated: List[bool]) -> None:
        self.groups = groups
        self.mutated_groups = {g for g, m in zip(groups, mutated) if m}

    def __call__(self, *tensors: Any) -> bool:
        # The compile-time groups each run-time storage holds; a storage
        # holding two of them fails only when one was mutated.
        by_key: Dict[int, Set[int]] = {}
        shared = False
        for t, g in zip(tensors, self.groups):
            gs = by_key.setdefault(storage_key(t), set())
            gs.add(g)
            shared = shared or len(gs) > 1
        ok = not shared or not any(len(gs) > 1 and gs & self.mutated_groups for gs in by_key.values())
        _count(ok)
        return ok
