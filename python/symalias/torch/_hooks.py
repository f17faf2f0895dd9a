"""The hook points in torch, checked, and ``install``/``uninstall``.

Every hook point is looked up and its signature compared before anything is
replaced: a torch whose hooks moved gets a ``HookError`` naming what moved,
never a half-installed symalias."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable

from . import _bytes, _cache, _decision, _guards, _merge
from ._state import HookError, lock, stats


@dataclass(frozen=True)
class _Hook:
    """One replaced attribute: where, which parameters it must start with,
    whether it is a static method, and what replaces it."""

    owner: str
    attr: str
    params: list[str]
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]]
    static: bool = False


def _replace(_orig: Callable[..., Any]) -> Callable[..., Any]:
    return _decision.compute_overlapping_inputs


_RW = "torch._functorch._aot_autograd.runtime_wrappers"
_AC = "torch._functorch._aot_autograd.autograd_cache"
_HOOKS = [
    # H1: the decision.
    _Hook(_RW, "compute_overlapping_inputs", ["aot_config", "fwd_inputs", "aliased_input_indices"], _replace),
    # H3, H4, the recipe, view replay: around the synthetic-base step.
    _Hook(
        _RW,
        "merge_view_inputs",
        ["aot_config", "fwd_inputs", "fwd_inputs_descs", "mutated_input_info"],
        _merge.wrap_merge_view_inputs,
    ),
    # Outputs viewing inputs that were not merged keep the user's view replay.
    _Hook(
        f"{_RW}.AliasOfInputHandler",
        "__init__",
        ["self", "info", "runtime_metadata", "trace_joint"],
        _merge.wrap_alias_of_input,
    ),
    # Byte-level synthetic bases (views of different dtypes): regeneration
    # of the members, and the run-time wrapper.
    _Hook(
        _RW,
        "gen_alias_from_base",
        ["aliased_base_tensor", "target_meta_tensor", "target_requires_grad"],
        _bytes.wrap_gen_alias_from_base,
    ),
    _Hook(
        _RW,
        "create_synthetic_base_metadata",
        ["m", "synthetic_base_info", "outer_args"],
        _bytes.wrap_synthetic_base_metadata,
    ),
    _Hook(
        f"{_RW}.AOTSyntheticBaseWrapper",
        "post_compile",
        ["self", "compiled_fn", "aot_config"],
        _bytes.wrap_post_compile,
    ),
    # The compile record and the eager fallback.
    _Hook(
        "torch._dynamo.output_graph.OutputGraph",
        "call_user_compiler",
        ["self", "gm", "example_inputs"],
        _merge.wrap_call_user_compiler,
    ),
    # symalias's facts, installed beside torch's own AOTAutograd guards
    # (after any guard filter), also for a loaded artifact.
    _Hook(
        "torch._dynamo.guards.CheckFunctionManager",
        "compile_check_fn",
        ["self", "builder", "guards_out", "guard_fail_fn"],
        _guards.wrap_compile_check_fn,
    ),
    # A saved artifact made without symalias never passes its guards.
    _Hook(
        "torch._dynamo.package",
        "load_guard_manager",
        ["guards_state", "target_code", "runtime_global_scope"],
        _guards.wrap_load_guard_manager,
    ),
    # AOTAutograd's cache: key, hit, entry.
    _Hook(_AC, "autograd_cache_key", ["mod", "example_inputs", "config"], _cache.wrap_key),
    _Hook(f"{_AC}.AOTAutogradCache", "try_load", ["mod", "args", "aot_config"], _cache.wrap_try_load, static=True),
    _Hook(
        f"{_AC}.AOTAutogradCache",
        "_lookup",
        ["key", "local", "remote", "args", "cache_info", "aot_config"],
        _cache.wrap_lookup,
        static=True,
    ),
    _Hook(f"{_AC}.AOTAutogradCache", "save", ["key", "entry", "remote"], _cache.wrap_save, static=True),
]
#: Looked up and checked, not replaced.
_LAMBDA = (
    "torch._dynamo.guards.GuardBuilder",
    "add_python_lambda_leaf_guard_to_root",
    ["self", "code_parts", "verbose_code_parts", "closure_vars"],
)

_SC = "torch._functorch._aot_autograd.schemas"
#: Fields and attributes of torch objects that symalias reads (plain
#: attribute access where they are read: a renamed one fails here, at
#: ``install()``, never as a silent default at compile time).
_FIELDS = [
    (f"{_SC}.AOTConfig", ["aot_autograd_arg_pos_to_source", "cache_info"]),
    (f"{_SC}.AOTAutogradCacheInfo", ["cache_key"]),
    (f"{_SC}.InputAliasInfo", ["mutates_data", "mutates_metadata", "is_leaf"]),
    (f"{_SC}.OutputAliasInfo", ["output_type", "base_idx"]),
    (f"{_SC}.OutputType", ["alias_of_input", "is_input"]),
    (f"{_SC}.ViewAndMutationMeta", ["input_info", "output_info"]),
    (
        f"{_RW}.AOTSyntheticBaseWrapper",
        ["needs_post_compile", "base_groups", "other_arg_indices", "aliased_arg_idx_with_metadata_mutations"],
    ),
    ("torch._functorch._aot_autograd.aot_autograd_result.GenericAOTAutogradResult", ["runtime_metadata"]),
    ("torch._dynamo.output_graph.OutputGraph", ["aotautograd_guards"]),
    ("torch._dynamo.output_graph.OutputGraphCommon", ["shape_env"]),
    ("torch._dynamo.guards.CheckFunctionManager", ["output_graph"]),
    ("torch._dynamo.guards.GuardsState", ["output_graph"]),
    ("torch._subclasses.fake_tensor.FakeTensorMode", ["shape_env"]),
    ("torch._dynamo.output_graph.OutputGraphGuardsState", ["aotautograd_guards"]),
    ("torch._guards.GuardsContext", ["aotautograd_guards"]),
    ("torch._guards", ["GuardEnvExpr", "TracingContext"]),
    ("torch._guards.TracingContext", ["fake_mode", "guards_context"]),
    ("torch._dynamo.exc", ["BackendCompilerFailed"]),
    ("torch._functorch.config", ["view_replay_for_aliased_outputs"]),
    (f"{_RW}.AliasOfInputHandler", ["replay_views"]),
    ("torch._inductor.config", ["post_grad_custom_post_pass"]),
    ("torch._inductor.custom_graph_pass", ["CustomGraphPass"]),
]

_saved: dict[str, Any] = {}


def _has(owner: Any, name: str) -> bool:
    """Whether ``owner`` (a class, module or config) has ``name``: a
    dataclass field, a class attribute, or an attribute its ``__init__``
    sets (read from the source: no instance is made)."""
    import dataclasses

    if dataclasses.is_dataclass(owner) and name in {f.name for f in dataclasses.fields(owner)}:
        return True
    if hasattr(owner, name):
        return True
    if not isinstance(owner, type):
        return False
    try:
        return f"self.{name}" in inspect.getsource(inspect.getattr_static(owner, "__init__"))
    except (OSError, TypeError):
        return False


def fields_missing() -> list[str]:
    """The torch fields of ``_FIELDS`` that this torch lacks, by dotted name."""
    out = []
    for where, names in _FIELDS:
        owner = _resolve(where)
        out += [f"{where}.{n}" for n in names if owner is None or not _has(owner, n)]
    return out


def _reads_aotautograd_guards(fn: Any) -> bool:
    """torch's ``compile_check_fn`` builds AOTAutograd's guards itself (the
    loop symalias's facts are hidden from)."""
    try:
        return "aotautograd_guards" in inspect.getsource(fn)
    except (OSError, TypeError):
        return False


def _resolve(path: str) -> Any:
    """The object at a dotted path (a module, then attributes), or None."""
    import importlib

    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name, None)
            if obj is None:
                return None
        return obj
    return None


def _checked() -> list[Any]:
    """The owners of the hooks, in ``_HOOKS`` order; raises ``HookError``."""
    try:
        import torch
        import torch._dynamo
    except ImportError as e:  # pragma: no cover - exercised without torch
        raise HookError(f"symalias.torch needs torch >= 2.15: {e}") from e
    problems = []
    owners = []

    def check(owner: Any, where: str, attr: str, params: list[str]) -> None:
        fn = getattr(owner, attr, None) if owner is not None else None
        if fn is None:
            problems.append(f"{where}.{attr} is missing")
            return
        got = list(inspect.signature(fn).parameters)[: len(params)]
        if got != params:
            problems.append(f"{where}.{attr} takes {got}, symalias expects {params}")

    for h in _HOOKS:
        owner = _resolve(h.owner)
        owners.append(owner)
        check(owner, h.owner, h.attr, h.params)
        if h.static and owner is not None and not isinstance(inspect.getattr_static(owner, h.attr, None), staticmethod):
            problems.append(f"{h.owner}.{h.attr} is no longer a static method")
    check(_resolve(_LAMBDA[0]), _LAMBDA[0], _LAMBDA[1], _LAMBDA[2])
    problems += [f"{name} is missing" for name in fields_missing()]
    post = _resolve(f"{_RW}.AOTSyntheticBaseWrapper.post_compile")
    if post is not None and "runtime_metadata" not in inspect.signature(post).parameters:
        problems.append(f"{_RW}.AOTSyntheticBaseWrapper.post_compile takes no runtime_metadata")
    cfm = _resolve("torch._dynamo.guards.CheckFunctionManager")
    if cfm is not None and not _reads_aotautograd_guards(inspect.getattr_static(cfm, "compile_check_fn", None)):
        problems.append(
            "torch._dynamo.guards.CheckFunctionManager.compile_check_fn no longer builds AOTAutograd's guards"
        )
    if problems:
        raise HookError(f"symalias cannot hook this torch ({torch.__version__}): " + "; ".join(problems))
    return owners


def installed() -> bool:
    """Whether symalias is installed in torch.compile."""
    return bool(_saved)


def install() -> None:
    """Puts symalias in place of AOTAutograd's overlap analysis and keys
    AOTAutograd's cache on its decision (idempotent). Raises ``HookError``
    when a hook point moved in this torch version."""
    with lock:
        if _saved:
            return
        owners = _checked()
        stats.__init__()  # type: ignore[misc]
        for h, owner in zip(_HOOKS, owners):
            raw = inspect.getattr_static(owner, h.attr)
            _saved[f"{h.owner}.{h.attr}"] = raw
            fn = raw.__func__ if h.static else getattr(owner, h.attr)
            new = h.wrap(fn)
            setattr(owner, h.attr, staticmethod(new) if h.static else new)


def uninstall() -> None:
    """Restores torch's own functions (idempotent)."""
    with lock:
        if not _saved:
            return
        for h in _HOOKS:
            raw = _saved.pop(f"{h.owner}.{h.attr}", None)
            if raw is not None:
                setattr(_resolve(h.owner), h.attr, raw)


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
