"""``install``/``uninstall``: the table's hook points (``_torch.points``)
replaced, each by the function its row names, after ``_torch.verify``
checked every torch name symalias reads: a torch whose hooks moved gets a
``HookError`` naming what moved, never a half-installed symalias."""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Iterator
from typing import Any, Callable

from . import _reader, _state
from ._state import lock, log, reset_stats, saved_hooks
from ._torch import gateway, points, verify


def replacing_function(row: points.Hook | points.Patch) -> Callable[..., Any]:
    """The function of ``symalias.torch`` a row of the table names."""
    module, _, name = row.by.rpartition(".")
    fn: Callable[..., Any] = getattr(importlib.import_module(f"{__package__}.{module}"), name)
    return fn


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
        checked = verify.check()
        reset_stats()
        _state.features_on.clear()
        _state.features_on.update({f.name: f.name not in checked.off for f in points.FEATURES})
        for name, problems in checked.off.items():
            log.info(
                "symalias: %s is off with torch %s (that part behaves as stock torch): %s",
                name,
                gateway.version(),
                "; ".join(problems),
            )
        for h, owner in checked.owners.items():
            raw = inspect.getattr_static(owner, h.attr)
            saved_hooks[h.name] = raw
            fn = raw.__func__ if h.static or h.cls else getattr(owner, h.attr)
            new = replacing_function(h)(fn)
            setattr(owner, h.attr, staticmethod(new) if h.static else classmethod(new) if h.cls else new)
        _reader.enable()
        gateway.forget_compiled_frames()


def features() -> dict[str, bool]:
    """Which optional parts of symalias.torch run with this torch
    (``points.FEATURES``: each off where this release lacks a name it
    needs, as that release's stock torch behaves). Installed: what
    ``install()`` decided; else what it would decide (``HookError`` when
    this torch cannot be hooked at all)."""
    with lock:
        if saved_hooks:
            return dict(_state.features_on)
    checked = verify.check()
    return {f.name: f.name not in checked.off for f in points.FEATURES}


def uninstall() -> None:
    """Restores torch's own functions (idempotent)."""
    with lock:
        if not saved_hooks:
            return
        for h in points.HOOKS:
            raw = saved_hooks.pop(h.name, None)
            if raw is not None:
                setattr(gateway.resolve(h.owner), h.attr, raw)


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
