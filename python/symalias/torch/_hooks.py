"""``install``/``uninstall``: the hook points of ``_torch.HOOKS``, checked
with every other torch name symalias reads (``_torch.check``) before
anything is replaced: a torch whose hooks moved gets a ``HookError`` naming
what moved, never a half-installed symalias."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any, Callable

from . import (
    _address,
    _cache,
    _clones,
    _concat,
    _decision,
    _functionalized,
    _guards,
    _hop,
    _merge,
    _overlap_errors,
    _regenerate,
    _reinplace,
    _torch,
    _wrapper,
)
from ._state import lock, log, reset_stats, saved_hooks


def replace_decision(_orig: Callable[..., Any]) -> Callable[..., Any]:
    """H1: symalias's decision in place of AOTAutograd's."""
    return _decision.compute_overlapping_inputs


Wrapper = Callable[[Any], Any]

#: What replaces each hook point: given torch's function, its replacement
#: (``_torch.HOOKS``; a test holds the two equal).
WRAPPERS: dict[_torch.Hook, Wrapper] = {
    _torch.DECISION: replace_decision,
    _torch.MERGE: _merge.wrap_merge_view_inputs,
    _torch.ALIAS_OF_INPUT: _merge.wrap_alias_of_input,
    _torch.GEN_ALIAS: _regenerate.wrap_gen_alias_from_base,
    _torch.SYNTHETIC_META: _regenerate.wrap_synthetic_base_metadata,
    _torch.SYNTHETIC_POST: _wrapper.wrap_post_compile,
    _torch.USER_COMPILER: _merge.wrap_call_user_compiler,
    _torch.CHECK_FN: _guards.wrap_compile_check_fn,
    _torch.LOAD_GUARDS: _guards.wrap_load_guard_manager,
    _torch.CACHE_KEY: _cache.wrap_key,
    _torch.CACHE_TRY_LOAD: _cache.wrap_try_load,
    _torch.CACHE_LOOKUP: _cache.wrap_lookup,
    _torch.CACHE_SAVE: _cache.wrap_save,
    _torch.HOP_STORAGES: _hop.wrap_subgraph_storages,
    _torch.HOP_PARENTS: _hop.wrap_parent_indices,
    _torch.HOP_ALIASING: _hop.wrap_has_aliasing,
    _torch.HOP_FUNCTIONAL: _hop.wrap_check_alias_and_mutation,
    _torch.HOP_FUNCTIONAL_WHILE: _hop.wrap_check_alias_and_mutation,
    _torch.CONCAT: _concat.wrap_create,
    _torch.NOOPS: _clones.wrap_remove_noop_ops,
    _torch.DATA_PTR_COMPARE: _address.wrap_data_ptr_compare,
    _torch.STORAGE_METHODS: _address.wrap_storage_methods,
    _torch.TENSOR_METHODS: _address.wrap_tensor_methods,
    _torch.TORCH_CALL: _address.wrap_torch_call,
    _torch.FUNCTIONAL_ARGS: _functionalized.wrap_generate_op_kwargs,
    _torch.FAKE_DISPATCH: _overlap_errors.wrap_fake_dispatch,
    _torch.FX_GRAPH_HASH: _cache.wrap_fx_graph_hash,
    _torch.REINPLACE_CORE: _reinplace.wrap_core,
    _torch.REINPLACE_STORAGE: _reinplace.wrap_get_node_storage,
    _torch.REINPLACE_SET: _reinplace.wrap_ordered_set,
    _torch.REINPLACE_OVERLAP: _reinplace.wrap_compute_overlapping,
}


def installed() -> bool:
    """Whether symalias is installed in torch.compile."""
    return bool(saved_hooks)


def install() -> None:
    """Puts symalias in place of AOTAutograd's overlap analysis and keys
    AOTAutograd's cache on its decision (idempotent). Frames compiled before
    (by stock torch) are forgotten, so each compiles again with symalias.
    Raises ``HookError`` when a hook point moved in this torch version."""
    with lock:
        if saved_hooks:
            return
        checked = _torch.check()
        reset_stats()
        _torch.ON.clear()
        _torch.ON.update({f.name: f.name not in checked.off for f in _torch.FEATURES})
        for name, problems in checked.off.items():
            log.info(
                "symalias: %s is off with torch %s (that part behaves as stock torch): %s",
                name,
                _torch.version(),
                "; ".join(problems),
            )
        for h, owner in checked.owners.items():
            raw = inspect.getattr_static(owner, h.attr)
            saved_hooks[f"{h.owner}.{h.attr}"] = raw
            fn = raw.__func__ if h.static or h.cls else getattr(owner, h.attr)
            new = WRAPPERS[h](fn)
            setattr(owner, h.attr, staticmethod(new) if h.static else classmethod(new) if h.cls else new)
        _torch.forget_compiled_frames()


def features() -> dict[str, bool]:
    """Which optional parts of symalias.torch run with this torch
    (``_torch.FEATURES``: each off where this release lacks a hook point it
    needs, as that release's stock torch behaves). Installed: what
    ``install()`` decided; else what it would decide (``HookError`` when
    this torch cannot be hooked at all)."""
    with lock:
        if saved_hooks:
            return dict(_torch.ON)
    checked = _torch.check()
    return {f.name: f.name not in checked.off for f in _torch.FEATURES}


def uninstall() -> None:
    """Restores torch's own functions (idempotent)."""
    with lock:
        if not saved_hooks:
            return
        for h in _torch.HOOKS:
            raw = saved_hooks.pop(f"{h.owner}.{h.attr}", None)
            if raw is not None:
                setattr(_torch.resolve(h.owner), h.attr, raw)


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
