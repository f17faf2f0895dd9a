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
from symalias.torch import _torch

READ = [(where, name) for where, names in _torch.READS for name in names]
REPLACED = [(h.owner, h.attr) for h in _torch.HOOKS]


def _inits_setting(owner, name):
    """Which of ``owner``'s own init methods (``_torch.INITS``, Python
    source) set ``name``."""
    out = []
    for init in _torch.INITS:
        try:
            if f"self.{name}" in inspect.getsource(inspect.getattr_static(owner, init)):
                out.append(init)
        except (OSError, TypeError, AttributeError):
            pass
    return out


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
    for init in _inits_setting(owner, name) if isinstance(owner, type) else []:

        def setting_nothing(self, *args, **kwargs):
            pass

        monkeypatch.setattr(owner, init, setting_nothing)
    for cls in inspect.getmro(owner) if isinstance(owner, type) else [owner]:
        if cls is object:
            continue  # a class without ``__init__`` of its own keeps object's
        if name in vars(cls):
            try:
                monkeypatch.delattr(cls, name)
            except (AttributeError, TypeError):  # an enum's members, an extension type's: a class without them
                monkeypatch.setattr(inspect.getmodule(owner), owner.__name__, type(owner.__name__, (), {}))
                return


@pytest.fixture
def uninstalled():
    st.uninstall()
    yield
    st.uninstall()


@pytest.mark.parametrize(("where", "name"), READ + REPLACED, ids=[f"{w}.{n}" for w, n in READ + REPLACED])
def test_install_names_each_moved_torch_name(uninstalled, monkeypatch, where, name):
    owner = _torch.resolve(where)
    assert owner is not None, where
    assert _torch._has(owner, name), f"{where}.{name} is there before it is removed"
    _remove(monkeypatch, owner, name)
    with pytest.raises(st.HookError, match=re.escape(f"{where}.{name}")):
        st.install()
    assert not st.installed()


def _private_torch_names() -> dict[str, set[str]]:
    """Every dotted torch name with a private part (``torch._guards.X``,
    ``torch.utils._python_dispatch.f``) that the package's code reads, as
    attribute chains or ``from`` imports, with the files reading it."""
    import ast
    import pathlib

    pkg = pathlib.Path(__file__).parents[1] / "symalias" / "torch"
    found: dict[str, set[str]] = {}
    for path in [*pkg.glob("*.py"), pkg.parent / "__init__.py", pkg.parent / "_tensors.py"]:
        chains: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute):
                parts, n = [], node
                while isinstance(n, ast.Attribute):
                    parts.append(n.attr)
                    n = n.value
                if isinstance(n, ast.Name) and n.id == "torch":
                    chains.add(".".join(["torch", *reversed(parts)]))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch"):
                chains.update(f"{node.module}.{a.name}" for a in node.names)
        for c in chains:
            longest = not any(o != c and o.startswith(c + ".") for o in chains)
            if longest and any(p.startswith("_") and not p.startswith("__") for p in c.split(".")):
                found.setdefault(c, set()).add(path.name)
    return found


def test_the_names_read_are_the_names_checked():
    """Each private torch name the package reads is one ``_torch`` checks at
    ``install()`` (or a prefix of one: a module whose entries are checked),
    and each name checked is read somewhere (by the package or ``_native``)."""
    import pathlib

    checked = {f"{w}.{n}" for w, n in READ + REPLACED}
    modules = {w for w, _ in READ + REPLACED}
    read = _private_torch_names()
    assert read, "the scan found nothing: it is broken"
    for name, files in sorted(read.items()):
        covered = name in checked or name in modules or any(c.startswith(name + ".") for c in checked)
        covered = covered or any(name.startswith(c + ".") for c in checked)
        # A public attribute of a checked module (``config.patch``).
        covered = covered or any(name.startswith(m + ".") and not name[len(m) + 1 :].startswith("_") for m in modules)
        assert covered, f"{name} (read in {sorted(files)}) is not checked at install(): add it to _torch.READS"
    root = pathlib.Path(__file__).parents[1]
    readers = [*root.joinpath("symalias").rglob("*.py"), *root.joinpath("src").glob("*.rs")]

    def code(p):
        t = p.read_text()
        if p.name == "_torch.py":  # its code, not its lists of names
            t = t[: t.index("HOOKS = [")] + t[t.index("def resolve(") :]
        return t

    text = "\n".join(code(p) for p in readers)
    for where, name in READ:
        if where.endswith(".AOTSyntheticBaseWrapper") or where == f"{_torch.RW}.AliasOfInputHandler":
            continue  # read through an instance torch hands a hook
        assert name in text, f"{where}.{name} is checked but read nowhere"


def test_installed_torch_passes():
    st.install()
    try:
        assert st.installed()
    finally:
        st.uninstall()
