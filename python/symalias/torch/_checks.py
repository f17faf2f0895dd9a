"""Where Dynamo builds a frame's guards: symalias's facts installed as one
native check (H2, ``_guards``), also for a saved artifact.

``compile_check_fn`` (wrapped) closes the frame's facts (``_compile
.close_frame``: orphaned and parked facts join, or a stamp), installs each
``FrameFacts`` as one epilogue lambda guard -- after every guard filter:
``guards_out`` holds Dynamo's guards the filter kept, and a dropped
ShapeEnv guard switches a proof's fact to its premised check -- and hides
them from torch's own loop over AOTAutograd guards, which knows only its
own kinds. ``load_guard_manager`` (wrapped) refuses an artifact saved
without symalias.
"""

from __future__ import annotations

from typing import Any, Callable

from . import _compile
from ._guards import WHY, FrameFacts, why
from ._torch import gateway


def wrap_load_guard_manager(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``torch._dynamo.package.load_guard_manager``, which builds the guards
    of a saved artifact (``load_compiled_function``, precompile). One saved
    without symalias has no ``FrameFacts``: it carries no check that its
    inputs alias as when it was compiled, so its guard state gets an
    ``Unstamped`` guard that never passes -- precompile then compiles the
    frame afresh, under symalias; a loaded ``aot_compile`` function refuses
    each call with ``UNSTAMPED`` as the reason (torch's guard failure).
    Raising here instead breaks torch's own recovery (2.15: "CompilePackage
    is already initialized")."""

    def load_guard_manager(guards_state: Any, *args: Any, **kwargs: Any) -> Any:
        _compile.refuse_unstamped(guards_state.output_graph.aotautograd_guards)
        return orig(guards_state, *args, **kwargs)

    load_guard_manager.__wrapped__ = orig  # type: ignore[attr-defined]
    return load_guard_manager


def wrap_compile_check_fn(orig: Callable[..., Any]) -> Callable[..., Any]:
    """``CheckFunctionManager.compile_check_fn``: installs the frame's
    ``FrameFacts`` (a compile's, an ``aot_compile``'s, or a loaded
    artifact's) and hides them from torch's loop over AOTAutograd guards."""

    def compile_check_fn(
        self: Any, builder: Any, guards_out: Any, guard_fail_fn: Any, *args: Any, **kwargs: Any
    ) -> Any:
        guards = self.output_graph.aotautograd_guards
        _compile.close_frame(self.output_graph.shape_env, guards)
        ours = [g for g in guards if isinstance(g, FrameFacts)]
        saved = list(guards)
        guards[:] = [g for g in saved if not isinstance(g, FrameFacts)]
        # ``guards_out``: Dynamo's guards that the filter kept.
        kept = any(g.create_fn_name() == "SHAPE_ENV" for g in guards_out)
        try:
            for g in ours:
                g.install(builder, kept)
            out = orig(self, builder, guards_out, guard_fail_fn, *args, **kwargs)
        finally:
            guards[:] = saved
        if ours:
            gateway.add_reason_function(self, WHY, why)
        return out

    compile_check_fn.__wrapped__ = orig  # type: ignore[attr-defined]
    return compile_check_fn
