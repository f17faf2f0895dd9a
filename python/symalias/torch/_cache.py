"""AOTAutograd's cache with symalias installed.

On a hit, AOTAutograd rebuilds a compiled graph from its cache entry without
running ``merge_view_inputs`` or ``compute_overlapping_inputs``: symalias's
decision is not made and its guards are not added. Three wrappers keep the
cache right (ARCHITECTURE.md, "torch's caches"):

* the **key** (``autograd_cache_key``): a frame whose tensor inputs share a
  storage gets symalias's fingerprint appended -- its version and, per
  storage group, every overlapping pair at the hints (which fixes the
  decision for any subset of mutated members) and what a synthetic-base
  graph bakes in that torch's key leaves out (integer storage offsets, a
  static base's layout). Entries made by stock torch,
  by another symalias version, or for another aliasing pattern have other
  keys. A group too large to list every pair bypasses the cache. Frames
  without shared storages keep torch's key, and their hits;
* the **entry** (``AOTAutogradCache.save``): a recipe rides in the entry --
  which inputs the graph mutates, whether it merged a synthetic base;
* the **hit** (``_lookup`` and ``try_load``): an entry is used only with a
  recipe of this version (or, for a frame without shared storages, the
  mutation flags of its own metadata); symalias then decides each mutated
  storage group again and re-installs the same guards a compile installs,
  and holds view replay off where the graph has a synthetic base.

``torch.compiler.save_cache_artifacts``/``load_cache_artifacts`` move these
same entries under the same keys; the FX graph cache is keyed on the graph
AOTAutograd produced, after the decision.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Callable

from .. import __version__
from . import _compile, _state
from ._compile import EagerFallback
from ._decision import TooManyPairs, decide_group, group_key, self_overlap
from ._inputs import adopt_mutation_facts
from ._layout import by_storage, inner_members, source_list, storage_groups, tensor_positions
from ._recipe import RECIPE_VERSION, REINPLACE_VERSION, Recipe
from ._state import lock, log, stats
from ._torch import gateway

#: The attribute of a cache entry that holds symalias's recipe.
ATTR = "symalias_recipe"
#: What a fingerprinted key carries after torch's own key.
KEY_MARK = "-symalias"


def reinplace_mark() -> str:
    """What every AOTAutograd and FX graph cache key carries while installed:
    the graphs were compiled with symalias's answer in Inductor's reinplace
    pass (``_reinplace``), so an entry compiled without it is never served
    to an installed process, nor one compiled with it to stock torch."""
    return f"-symalias-reinplace{REINPLACE_VERSION}.{__version__}"


def fingerprint(args: Sequence[Any]) -> str | None:
    """symalias's part of the cache key: None when no two tensor arguments
    share a storage. Raises ``BypassAOTAutogradCache`` when a group is too
    large for every overlapping pair to be listed."""
    parts: list[Any] = []
    for g in storage_groups(args):
        # Wrapper subclasses by their inner tensors, in the storages they share.
        inner = [(f"arg{p}", path, x) for p in g for path, x in inner_members(args[p])]
        for sub in [[inner[i] for i in g] for g in by_storage([x for *_, x in inner]) if len(g) > 1]:
            tensors = [x for _, _, x in sub]
            labels = [".".join([name, *path]) for name, path, _ in sub]
            # Decided at the hints through the core (the key fixes the
            # pattern; the facts installed with the graph keep it).
            try:
                parts.append(group_key(tensors, labels))
            except TooManyPairs as e:
                raise gateway.bypass_cache(str(e)) from e
    if not parts:
        return None
    doc = json.dumps({"symalias": __version__, "recipe": RECIPE_VERSION, "groups": parts})
    return hashlib.sha256(doc.encode()).hexdigest()[:32]


def wrap_key(orig: Callable[..., tuple[str, list[str]]]) -> Callable[..., tuple[str, list[str]]]:
    def autograd_cache_key(
        mod: Any, example_inputs: Sequence[Any], config: Any, *args: Any, **kwargs: Any
    ) -> tuple[str, list[str]]:
        key, lines = orig(mod, example_inputs, config, *args, **kwargs)
        try:
            fp = fingerprint(example_inputs)
        except Exception:
            with lock:
                stats.cache_bypassed += 1
            raise
        mark = reinplace_mark()
        lines = [*lines, f"[symalias] reinplace decision: {mark}"]
        if fp is None:
            return f"{key}{mark}", lines
        with lock:
            stats.cache_keys += 1
        return f"{key}{KEY_MARK}{fp}{mark}", [*lines, f"[symalias] aliasing decision: {fp}"]

    autograd_cache_key.__wrapped__ = orig  # type: ignore[attr-defined]
    return autograd_cache_key


def wrap_fx_graph_hash(orig: Callable[..., tuple[str, list[str]]]) -> Callable[..., tuple[str, list[str]]]:
    """Inductor's FX graph cache key: the reinplace mark appended."""

    def compiled_fx_graph_hash(
        gm: Any, example_inputs: Sequence[Any], fx_kwargs: Any, inputs_to_check: Sequence[int]
    ) -> tuple[str, list[str]]:
        key, lines = orig(gm, example_inputs, fx_kwargs, inputs_to_check)
        mark = reinplace_mark()
        return f"{key}{mark}", [*lines, f"[symalias] reinplace decision: {mark}"]

    compiled_fx_graph_hash.__wrapped__ = orig  # type: ignore[attr-defined]
    return compiled_fx_graph_hash


def _recipe_of(entry: Any, key: str, args: Sequence[Any]) -> Recipe | None:
    """The recipe a hit restores, or None when the entry was not made under
    this symalias decision."""
    recipe = Recipe.from_doc(getattr(entry, ATTR, None))
    if recipe is not None or KEY_MARK in key:
        return recipe
    # A key without symalias's mark: no two tensor inputs share a storage, so
    # no decision was made; only the cross-storage guard needs the mutation
    # flags, which the entry's own metadata has, input by input.
    infos = entry.runtime_metadata.input_info
    if len(infos) != len(args) or storage_groups(args):
        return None
    return Recipe(mutated=[bool(i.mutates_data) for i in infos])


def wrap_lookup(orig: Callable[..., Any]) -> Callable[..., Any]:
    def _lookup(
        key: str, local: bool, remote: bool, args: list[Any], cache_info: dict[str, Any], aot_config: Any
    ) -> Any:
        found = orig(key, local, remote, args, cache_info, aot_config)
        if found is None:
            return None
        c = _compile.current()
        recipe = _recipe_of(found[0], key, args)
        if recipe is None or (recipe.merged and c is None):
            with lock:
                stats.cache_rejected += 1
            log.info("symalias: AOTAutograd cache entry %s was not made under this decision; compiling", key)
            return None
        if c is not None:
            c.loaded = recipe
            if recipe.merged:
                _compile.hold_view_replay_off(c)
        return found

    return _lookup


def wrap_try_load(orig: Callable[..., Any]) -> Callable[..., Any]:
    def try_load(mod: Any, args: list[Any], aot_config: Any, *rest: Any, **kwargs: Any) -> Any:
        c = _compile.current()
        if c is not None:
            c.flat_args = args
            c.loaded = None
        out = orig(mod, args, aot_config, *rest, **kwargs)
        # torch >= 2.12 answers (compiled_fn, the config carrying the key);
        # 2.11 answers compiled_fn and sets the key on ``aot_config``.
        pair = isinstance(out, tuple)
        compiled_fn, cfg = out if pair else (out, aot_config)
        if c is None:
            return out
        if compiled_fn is not None and c.loaded is not None:
            restore(c.loaded, args, aot_config)
            with lock:
                stats.cache_hits += 1
        elif compiled_fn is None:
            info = cfg.cache_info
            key = info.cache_key if info is not None else None
            if key:
                with lock:
                    _state.pending_recipes[key] = c.recipe
                    while len(_state.pending_recipes) > _state.PENDING_LIMIT:
                        _state.pending_recipes.popitem(last=False)
        c.loaded = None
        return out

    return try_load


def wrap_save(orig: Callable[..., Any]) -> Callable[..., Any]:
    def save(key: str, entry: Any, remote: bool) -> Any:
        with lock:
            recipe = _state.pending_recipes.pop(key, None)
        if recipe is not None:
            if recipe.unsaved:
                log.info("symalias: not saving %s in AOTAutograd's cache (%s)", key, recipe.unsaved)
                return None
            setattr(entry, ATTR, recipe.to_doc())
        return orig(key, entry, remote)

    return save


def restore(recipe: Recipe, args: Sequence[Any], aot_config: Any) -> None:
    """What a compile of these arguments installs, installed for a hit: each
    mutated storage group decided again, with its guards, and the
    cross-storage guard."""

    tc = gateway.tracing_context()
    mutated = recipe.mutated
    if tc is None or mutated is None or len(mutated) != len(args):
        return
    kept = tensor_positions(args)
    sources = source_list(aot_config, kept)
    if sources is None:
        return
    source_of = dict(zip(kept, sources))
    # A mutated input that overlaps itself runs eagerly, as when compiling
    # (the saved graph was made where it did not); one that may is checked.
    own = self_overlap(list(args), list(mutated))
    if own.eager is not None:
        raise EagerFallback(own.eager)
    for g in storage_groups(args):
        if any(mutated[p] for p in g):
            d = decide_group(
                [args[p] for p in g],
                [source_of[p] for p in g],
                [f"input {p}" for p in g],
                from_cache=True,
            )
            _compile.record().adopt(d)
    adopt_mutation_facts(kept, sources, [args[p] for p in kept], [mutated[p] for p in kept], own.guarded)
