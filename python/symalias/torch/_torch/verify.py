"""The install-time check: every torch name of the table (``points``)
resolved and each hook's signature compared before anything is replaced.
A torch where a name the core needs moved gets a ``HookError`` naming
what moved, never a half-installed symalias; a name only a feature needs
turns that feature off (its part behaves as that release's stock torch)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from typing import Any

from .gateway import resolve, version
from .points import FEATURES, HOOKS, LAMBDA, PATCHES, READS, REINPLACE_SITES, RP, RW, Hook

__all__ = ["INITS", "Checked", "HookError", "check", "has", "missing_reads"]


class HookError(RuntimeError):
    """A torch hook point symalias needs is missing or changed shape."""


#: The methods whose source says which attributes an instance gets.
INITS = ("__init__", "_init")


def has(owner: Any, name: str) -> bool:
    """Whether ``owner`` (a class, module or config) has ``name``: a
    dataclass field, a class attribute, or an attribute its ``__init__``
    (or the ``_init`` it calls, as ``ShapeEnv``'s) sets -- read from the
    source: no instance is made."""
    if dataclasses.is_dataclass(owner) and name in {f.name for f in dataclasses.fields(owner)}:
        return True
    if hasattr(owner, name):
        return True
    if not isinstance(owner, type):
        return False
    return any(f"self.{name}" in _source(inspect.getattr_static(owner, init, None)) for init in INITS)


def _source(fn: Any) -> str:
    try:
        return inspect.getsource(fn) if fn is not None else ""
    except (OSError, TypeError):
        return ""


def missing_reads() -> list[str]:
    """The names of ``READS`` and of the patched configs that this torch
    lacks, dotted."""
    wanted = [*READS, *((p.owner, [p.attr]) for p in PATCHES)]
    out = []
    for where, names in wanted:
        owner = resolve(where)
        out += [f"{where}.{n}" for n in names if owner is None or not has(owner, n)]
    return out


def _signature_problem(owner: Any, where: str, attr: str, params: Sequence[str] | None, alt: Any = ()) -> str | None:
    fn = getattr(owner, attr, None) if owner is not None else None
    if fn is None:
        return f"{where}.{attr} is missing"
    if params is None:
        return None if callable(fn) or isinstance(fn, dict) else f"{where}.{attr} is not callable"
    got = list(inspect.signature(fn).parameters)
    if any(got[: len(form)] == list(form) for form in (params, *alt)):
        return None
    return f"{where}.{attr} takes {got[: len(params)]}, symalias expects {params}"


@dataclasses.dataclass
class Checked:
    """What ``check()`` found: each hook to install and its owner (the core
    and the features that are on), and why each feature that is off is off."""

    owners: dict[Hook, Any]
    off: dict[str, list[str]]


def _hook_problems(h: Hook, owner: Any) -> list[str]:
    problems = [_signature_problem(owner, h.owner, h.attr, h.params, h.alt) or ""]
    if h.static and owner is not None and not isinstance(inspect.getattr_static(owner, h.attr, None), staticmethod):
        problems.append(f"{h.name} is no longer a static method")
    if h.cls and owner is not None and not isinstance(inspect.getattr_static(owner, h.attr, None), classmethod):
        problems.append(f"{h.name} is no longer a class method")
    return [p for p in problems if p]


def check() -> Checked:
    """Resolves and checks every name (``HOOKS``, ``PATCHES``, ``LAMBDA``,
    ``READS``). A problem with a name that only a feature needs turns that
    feature off; any other is a ``HookError`` naming each problem."""
    # a name read by several features turns each of them off
    read_of: dict[str, list[str]] = {}
    for f in FEATURES:
        for r in f.reads:
            read_of.setdefault(r, []).append(f.name)
    for patch in PATCHES:
        if patch.feature is not None:
            read_of.setdefault(patch.name, []).append(patch.feature)
    core: list[str] = []
    off: dict[str, list[str]] = {}
    owners: dict[Hook, Any] = {}
    for h in HOOKS:
        owner = resolve(h.owner)
        owners[h] = owner
        for p in _hook_problems(h, owner):
            (off.setdefault(h.feature, []) if h.feature is not None else core).append(p)
    core.append(_signature_problem(resolve(LAMBDA[0]), *LAMBDA) or "")
    for name in missing_reads():
        for feature in read_of.get(name, []):
            off.setdefault(feature, []).append(f"{name} is missing")
        if name not in read_of:
            core.append(f"{name} is missing")
    post = resolve(f"{RW}.AOTSyntheticBaseWrapper.post_compile")
    if post is not None and "runtime_metadata" not in inspect.signature(post).parameters:
        core.append(f"{RW}.AOTSyntheticBaseWrapper.post_compile takes no runtime_metadata")
    cfm = resolve("torch._dynamo.guards.CheckFunctionManager")
    if cfm is not None and "aotautograd_guards" not in _source(inspect.getattr_static(cfm, "compile_check_fn", None)):
        core.append("torch._dynamo.guards.CheckFunctionManager.compile_check_fn no longer builds AOTAutograd's guards")
    source = _source(resolve(f"{RP}.reinplace_inplaceable_ops_core"))
    core += [
        f"{RP}.reinplace_inplaceable_ops_core no longer has {site!r}" for site in REINPLACE_SITES if site not in source
    ]
    core = [p for p in core if p]
    if core:
        raise HookError(f"symalias cannot hook this torch ({version()}): " + "; ".join(core))
    return Checked({h: o for h, o in owners.items() if h.feature not in off}, off)
