"""``install()`` fails closed: every torch name symalias reads or replaces
is checked there, and one that moved is a ``HookError`` naming it -- never
a silent default at compile time (a renamed ``mutates_data`` read as False
would drop the cross-storage guard)."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st
from symalias.torch import _hooks

READ = [(where, name) for where, names in _hooks._FIELDS for name in names]
REPLACED = [(h.owner, h.attr) for h in _hooks._HOOKS]


def _init_sets(owner, name):
    """Whether ``owner``'s own ``__init__`` (Python source) sets ``name``."""
    try:
        return f"self.{name}" in inspect.getsource(inspect.getattr_static(owner, "__init__"))
    except (OSError, TypeError):
        return False


def _remove(monkeypatch, owner, name):
    """Makes ``name`` vanish from ``owner`` as a torch that renamed it would."""
    from torch.utils._config_module import ConfigModule

    if isinstance(owner, ConfigModule):
        # A config module answers for its entries, not its attributes.
        monkeypatch.delitem(owner._config, name)
        return
    if dataclasses.is_dataclass(owner):
        fields = {k: v for k, v in owner.__dataclass_fields__.items() if k != name}
        monkeypatch.setattr(owner, "__dataclass_fields__", fields)
    if isinstance(owner, type) and _init_sets(owner, name):

        def __init__(self, *args, **kwargs):
            pass

        monkeypatch.setattr(owner, "__init__", __init__)
    for cls in inspect.getmro(owner) if isinstance(owner, type) else [owner]:
        if cls is object:
            continue  # a class without ``__init__`` of its own keeps object's
        if name in vars(cls):
            try:
                monkeypatch.delattr(cls, name)
            except AttributeError:  # an enum's members: a class without them
                monkeypatch.setattr(inspect.getmodule(owner), owner.__name__, type(owner.__name__, (), {}))
                return


@pytest.fixture
def uninstalled():
    st.uninstall()
    yield
    st.uninstall()


@pytest.mark.parametrize(("where", "name"), READ + REPLACED, ids=[f"{w}.{n}" for w, n in READ + REPLACED])
def test_install_names_each_moved_torch_name(uninstalled, monkeypatch, where, name):
    owner = _hooks._resolve(where)
    assert owner is not None, where
    assert _hooks._has(owner, name), f"{where}.{name} is there before it is removed"
    _remove(monkeypatch, owner, name)
    with pytest.raises(st.HookError, match=re.escape(f"{where}.{name}")):
        st.install()
    assert not st.installed()


def test_every_read_torch_field_is_checked():
    """The names checked are the names read: each ``.field`` of torch's
    objects that the integration reads appears in ``_FIELDS``."""
    import pathlib

    checked = {name for _, names in _hooks._FIELDS for name in names}
    pkg = pathlib.Path(_hooks.__file__).parent
    source = "\n".join(p.read_text() for p in pkg.glob("*.py"))
    for name in [
        "aot_autograd_arg_pos_to_source",
        "mutates_data",
        "mutates_metadata",
        "cache_info",
        "cache_key",
        "runtime_metadata",
        "input_info",
        "output_info",
        "output_type",
        "base_idx",
        "base_groups",
        "other_arg_indices",
        "aliased_arg_idx_with_metadata_mutations",
        "needs_post_compile",
        "aotautograd_guards",
        "is_leaf",
    ]:
        assert re.search(rf"\.{name}\b|\b{name}=", source), f"{name} is no longer read: drop it from _FIELDS"
        assert name in checked, f"{name} is read but not checked at install()"


def test_installed_torch_passes():
    st.install()
    try:
        assert st.installed()
    finally:
        st.uninstall()
