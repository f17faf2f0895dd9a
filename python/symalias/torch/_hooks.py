"""``install``/``uninstall``: the hook points of ``_torch.HOOKS``, checked
with every other torch name symalias reads (``_torch.check``) before
anything is replaced: a torch whose hooks moved gets a ``HookError`` naming
what moved, never a half-installed symalias."""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Iterator
from typing import Any, Callable

from . import _bytes, _cache, _decision, _guards, _hop, _merge, _reinplace, _torch  # noqa: F401 (the wrappers' modules)
from ._state import lock, reset_stats, saved_hooks


def replace_decision(_orig: Callable[..., Any]) -> Callable[..., Any]:
    """H1: symalias's decision in place of AOTAutograd's."""
    return _decision.compute_overlapping_inputs


def _wrapper(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The wrapper a ``Hook`` names (``module.function`` of this package)."""
    module, fn = name.split(".")
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]] = getattr(
        importlib.import_module(f"{__package__}.{module}"), fn
    )
    return wrap


def installed() -> bool:
    """Whether symalias is installed in torch.compile."""
    return bool(saved_hooks)


def install() -> None:
    """Puts symalias in place of AOTAutograd's overlap analysis and keys
    AOTAutograd's cache on its decision (idempotent). Raises ``HookError``
    when a hook point moved in this torch version."""
    with lock:
        if saved_hooks:
            return
        owners = _torch.check()
        reset_stats()
        for h, owner in zip(_torch.HOOKS, owners):
            raw = inspect.getattr_static(owner, h.attr)
            saved_hooks[f"{h.owner}.{h.attr}"] = raw
            fn = raw.__func__ if h.static else getattr(owner, h.attr)
            new = _wrapper(h.wrap)(fn)
            setattr(owner, h.attr, staticmethod(new) if h.static else new)


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
