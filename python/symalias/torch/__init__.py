"""symalias inside torch.compile.

``install()`` puts symalias in place of AOTAutograd's overlap decision, adds
symalias's own run-time guards, and keeps torch's compile caches from
serving a graph made under another decision (hook points measured on torch
2.15; ARCHITECTURE.md, "The torch.compile integration"):

* **H1, the decision** (``_decision``): ``runtime_wrappers.compute_overlapping_inputs``
  is replaced: the exact overlapping indices (bytes, not elements), decided
  at the hints and, for symbolic layouts, proved for every allowed shape.
  Never adds a guard to the ShapeEnv.
* **H2, the group guards** (``_guards``): torch's ``StorageOverlap`` guard
  re-checks with its own faulty test, so none is appended; a Dynamo lambda
  guard checks the same fact exactly (its recompile reason reads as torch's,
  ``check_overlapping(overlapping=[...], non_overlapping=[...])``), also for
  static shapes, and another pins what the synthetic-base graph bakes in
  (integer offsets, the base's layout).
* **H3, cross-storage aliasing**: a lambda guard that no mutated input shares
  its storage with an input that was in another storage at compile time.
* **Byte-level synthetic bases** (``_bytes``): mutated overlapping views of
  different dtypes (H4), which AOTAutograd refuses, are merged into a
  ``uint8`` base over their bytes and regenerated in their own dtypes.
* **Eager fallback** (``_merge``): frames AOTAutograd cannot build right --
  views made through ``.detach()``/``.data``, a byte-level group whose
  members require grad, a mutated input that overlaps itself, any failure
  compiling a frame of aliased mutated inputs -- run eagerly, one warning
  each, counted in ``stats``. An output view of a merged input is
  regenerated from sizes, strides and offset (pytorch#198095).
* **Caches** (``_cache``): AOTAutograd's cache key carries symalias's
  decision for frames whose inputs share a storage; a hit restores the
  decision and re-installs the guards. Every AOTAutograd and FX graph
  cache key made while installed carries symalias's reinplace mark.
* **H5, Inductor's reinplace pass** (``_reinplace``): mutated arguments
  disjoint in bytes -- for every allowed shape where the layouts are
  symbolic -- are each reinplaced where torch clones all but one per
  storage or refuses a list sharing a storage; the pair test is exact
  (never B0's "disjoint"), data-dependent sizes are read with their
  ranges, and no guard is added. Part of ``install()``.
* **H6, higher-order ops** (``_hop``): an input of ``while_loop``/``scan``
  that overlaps a tensor the subgraph mutates is refused with torch's
  aliasing error; disjoint views of that storage stay accepted. Inputs of
  one storage are accepted by the op's aliasing checks when read-only or
  disjoint in bytes for every allowed shape (torch refuses any two).
* **H10, concatenation** (``_concat``): an input of a ``cat`` is copied
  only when a later write touches it or the result it would live in.
* **H11, alias checks in user code** (``_address``): ``data_ptr``
  comparisons, ``is_set_to`` and ``_is_alias_of`` on frame inputs are
  constants backed by a run-time check, not graph breaks.
* **H12, the user's clone of an input** (``_clones``): kept for the op
  that mutates it, so Inductor's reinplace pass writes it in place.

``explain(fn, *args)`` compiles ``fn`` with symalias installed and reports the
storage groups it saw: which inputs overlap, a witness byte per pair, whether
each verdict is proved for all shapes, and the guards.
"""

from __future__ import annotations

from ._explain import Explanation, explain
from ._hooks import enabled, features, install, installed, uninstall
from ._state import GroupReport, Stats, stats
from ._torch import HookError

__all__ = [
    "Explanation",
    "GroupReport",
    "HookError",
    "Stats",
    "enabled",
    "explain",
    "features",
    "install",
    "installed",
    "stats",
    "uninstall",
]
