"""``install()`` fails closed: every torch name symalias reads or replaces
is checked there, and one that moved is a ``HookError`` naming it -- never
a silent default at compile time (a renamed ``mutates_data`` read as False
would drop the cross-storage guard)."""

from __future__ import annotations

import dataclasses
import inspect
import pathlib
import re

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st
from symalias.torch._torch import gateway, points, verify

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

READ = [(where, name) for where, names in points.READS for name in names]
#: The replaced names and the patched configs: the table's rows.
REPLACED = [(h.owner, h.attr) for h in points.POINTS]


def _inits_setting(owner, name):
    """Which of ``owner``'s own init methods (``verify.INITS``, Python
    source) set ``name``."""
    out = []
    for init in verify.INITS:
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


#: The features each name belongs to (a hook point, or a name read only by
#: features -- one or several); the others are needed for soundness.
FEATURE_OF: dict[str, set[str]] = {}
for _f in points.FEATURES:
    for _name in [f"{h.owner}.{h.attr}" for h in _f.hooks] + list(_f.reads):
        FEATURE_OF.setdefault(_name, set()).add(_f.name)
CORE = [(w, n) for w, n in READ + REPLACED if f"{w}.{n}" not in FEATURE_OF]
OPTIONAL = [(w, n) for w, n in READ + REPLACED if f"{w}.{n}" in FEATURE_OF]


@pytest.mark.parametrize(("where", "name"), CORE, ids=[f"{w}.{n}" for w, n in CORE])
def test_install_names_each_moved_torch_name(uninstalled, monkeypatch, where, name):
    owner = gateway.resolve(where)
    assert owner is not None, where
    assert verify.has(owner, name), f"{where}.{name} is there before it is removed"
    _remove(monkeypatch, owner, name)
    with pytest.raises(st.HookError, match=re.escape(f"{where}.{name}")):
        st.install()
    assert not st.installed()


@pytest.mark.parametrize(("where", "name"), OPTIONAL, ids=[f"{w}.{n}" for w, n in OPTIONAL])
def test_a_feature_whose_name_moved_is_off_and_the_rest_installs(uninstalled, monkeypatch, caplog, where, name):
    """A release without one of a feature's names runs without that feature
    (as its stock torch does): ``install()`` succeeds, says so once in the
    log, ``features()`` reports it off, and none of its hook points is
    replaced; every other feature stays on."""
    owner = gateway.resolve(where)
    assert owner is not None and verify.has(owner, name), f"{where}.{name}"
    _remove(monkeypatch, owner, name)
    # (a name an ``__init__`` sets goes with the others that ``__init__``
    # sets: each feature reading one of them is off too)
    gone = {f"{where}.{name}", *verify.missing_reads()}
    features = set().union(*(FEATURE_OF.get(n, set()) for n in gone))
    assert FEATURE_OF[f"{where}.{name}"] <= features
    with caplog.at_level("INFO", logger="symalias.torch"):
        st.install()
    assert st.installed()
    on = st.features()
    assert on == {f.name: f.name not in features for f in points.FEATURES}
    for feature in features:
        said = [r.getMessage() for r in caplog.records if f"symalias: {feature} is off" in r.getMessage()]
        assert len(said) == 1, said
        if feature in FEATURE_OF[f"{where}.{name}"]:
            assert f"{where}.{name}" in said[0], said
        (f,) = [f for f in points.FEATURES if f.name == feature]
        for h in f.hooks:
            now = gateway.resolve(h.owner)
            assert now is None or f"{h.owner}.{h.attr}" not in _saved(), h


def _saved() -> set[str]:
    from symalias.torch._state import saved_hooks

    return set(saved_hooks)


def test_features_on_this_torch():
    """Every feature is on with the torch the suite runs (2.15)."""
    assert st.features() == {f.name: True for f in points.FEATURES}


def _private_torch_names() -> dict[str, set[str]]:
    """Every dotted torch name with a private part (``torch._guards.X``,
    ``torch.utils._python_dispatch.f``) that the package's code reads, as
    attribute chains or ``from`` imports, with the files reading it."""
    import ast
    import pathlib

    pkg = pathlib.Path(__file__).parents[2] / "symalias" / "torch"
    found: dict[str, set[str]] = {}
    for path in [*pkg.rglob("*.py"), pkg.parent / "__init__.py", pkg.parent / "_tensors.py"]:
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
    """Each private torch name the package reads is one ``verify`` checks at
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
        assert covered, f"{name} (read in {sorted(files)}) is not checked at install(): add it to points.READS"
    root = pathlib.Path(__file__).parents[2]
    readers = [*root.joinpath("symalias").rglob("*.py"), *root.joinpath("src").glob("*.rs")]

    def code(p):
        t = p.read_text()
        if p.name == "points.py":  # the table, not code reading the names
            return ""
        return t

    text = "\n".join(code(p) for p in readers)
    for where, name in READ:
        if where.endswith(".AOTSyntheticBaseWrapper") or where == f"{points.RW}.AliasOfInputHandler":
            continue  # read through an instance torch hands a hook
        assert name in text, f"{where}.{name} is checked but read nowhere"


def test_installed_torch_passes():
    st.install()
    try:
        assert st.installed()
    finally:
        st.uninstall()


PACKAGE = pathlib.Path(__file__).parents[2] / "symalias"


def _own_names() -> set[str]:
    """Every name symalias's own Python defines: functions, classes,
    attributes it assigns, module names and imports, and ``_native``'s."""
    import ast

    own: set[str] = set()
    for path in [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyi")]:
        for n in ast.walk(ast.parse(path.read_text())):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own.add(n.name)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
                own.add(n.attr)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                own.add(n.id)
            elif isinstance(n, ast.alias):
                own.add((n.asname or n.name).split(".")[0])
    own.update(p.stem for p in PACKAGE.rglob("*.py"))
    return own


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_torch_reads(source: str, own: set[str]) -> list[str]:
    """The reads of torch internals in ``source`` (a module's text): an
    import of a private torch module, an attribute chain from ``torch``
    through a private name, a private attribute (``._cdata``, ``._base``)
    that symalias does not define itself, or a ``getattr`` of one."""
    import ast

    found = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            mods = [n.module or ""] if isinstance(n, ast.ImportFrom) else [a.name for a in n.names]
            found += [f"import {m}" for m in mods if m.startswith("torch") and any(map(_private, m.split(".")))]
        elif isinstance(n, ast.Attribute) and _private(n.attr) and n.attr not in own:
            found.append(ast.unparse(n))
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "torch":
            if _private(n.attr):
                found.append(ast.unparse(n))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr"):
            name = n.args[1].value if len(n.args) > 1 and isinstance(n.args[1], ast.Constant) else None
            if isinstance(name, str) and _private(name) and name not in own:
                found.append(ast.unparse(n))
    return found


def test_torch_internals_are_read_through_the_gateway_only():
    """One gateway to torch (polars' ``dependencies.py``): no module of the
    package but the gateway (``_torch/``) reads a private torch module, class,
    function or attribute; they call ``gateway``'s functions, each checked
    at install()."""
    own = _own_names()
    found = {
        str(p.relative_to(PACKAGE)): reads
        for p in PACKAGE.rglob("*.py")
        if p.parent.name != "_torch" and (reads := private_torch_reads(p.read_text(), own))
    }
    assert found == {}


@pytest.mark.parametrize(
    "line",
    [
        "key = int(t.untyped_storage()._cdata)",
        "b = t._base",
        "tc = torch._guards.TracingContext.try_get()",
        "import torch._inductor.config",
        "from torch._dynamo.source import AttrSource",
        "from torch.utils._python_dispatch import is_traceable_wrapper_subclass",
        "name = gm._get_name()",
        "b = getattr(t, '_base', None)",
    ],
)
def test_the_gateway_scan_finds_a_private_read_added_elsewhere(line):
    """The scan above fails on each kind of private read a module could
    add, and passes what symalias defines itself (``Compile._held``)."""
    own = _own_names()
    assert private_torch_reads(line, own) != []
    assert private_torch_reads("c._held.close()\nfrom . import _state\nx = _state.lock", own) == []


def test_a_frame_compiled_before_install_compiles_again(fresh_torch):
    """Stock torch compiled this frame wrong (B0: it calls the column block
    and the row inside it disjoint); after ``install()`` the same compiled
    function is compiled again, with symalias, and equals eager."""

    def fn(a, b):
        a.add_(1)
        return b * 2

    compiled = torch.compile(fn, backend="aot_eager")
    m = torch.zeros(4, 4)
    assert compiled(m[:, :2], m[1:2, :2]).tolist() == [[0.0, 0.0]]  # stock: wrong
    st.install()
    m = torch.zeros(4, 4)
    assert compiled(m[:, :2], m[1:2, :2]).tolist() == [[2.0, 2.0]]  # eager's answer
    assert st.stats.decisions == 1
