"""The floors of ``symalias.torch`` (the Python twin of
``tests/integration/layers.rs``): gateway <- core <- runtime <- hooks. A
module imports only modules of its own floor or below, read from the
sources (every ``import`` and ``from`` of the package, also inside
functions); no two modules import each other in a loop; the gateway and the
core hold no module-level mutable state, and only ``_state`` holds any; one
method writes a frame's facts (``Compile.adopt``)."""

from __future__ import annotations

import ast
import pathlib

import pytest

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

PACKAGE = pathlib.Path(__file__).parents[2] / "symalias" / "torch"

#: The floors, lowest first: module names relative to ``symalias.torch``
#: (``_torch`` is the gateway package); every other module is a hook.
FLOORS: dict[str, set[str]] = {
    "gateway": {"_torch", "_torch.points", "_torch.verify", "_torch.gateway"},
    "core": {"_layout", "_facts", "_decision", "_recipe", "_report"},
    "runtime": {"_state", "_compile", "_guards", "_trace"},
}
ORDER = ["gateway", "core", "runtime", "hooks"]
#: What each floor may import outside the package (``symalias`` itself:
#: ``_native``, ``OverlapResult``, ``__version__``) is open to all.


def modules() -> dict[str, str]:
    """Every module of the package, by dotted name, with its text."""
    out = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        rel = p.relative_to(PACKAGE).with_suffix("")
        parts = [x for x in rel.parts if x != "__init__"]
        out[".".join(parts) or "__init__"] = p.read_text()
    return out


def floor_of(module: str) -> str:
    for name, members in FLOORS.items():
        if module in members:
            return name
    return "hooks"


def imports(module: str, text: str) -> set[str]:
    """The package modules ``text`` (module ``module``) imports: every
    relative ``from`` import resolved against the module's package, the
    imported name when it is a module, else the module it is taken from.
    What lies above ``symalias.torch`` (``from .. import _native``) is
    outside the floors."""
    known = set(modules_cache())
    parts = [] if module == "__init__" else module.split(".")
    package = parts if (PACKAGE / "/".join(parts) / "__init__.py").exists() and parts else parts[:-1]
    out: set[str] = set()
    for n in ast.walk(ast.parse(text)):
        if not isinstance(n, ast.ImportFrom) or n.level == 0 or n.level - 1 > len(package):
            continue
        stem = [*package[: len(package) - (n.level - 1)], *(n.module.split(".") if n.module else [])]
        for a in n.names:
            full = ".".join([*stem, a.name])
            target = full if full in known else ".".join(stem)
            if target in known and target != module:
                out.add(target)
    return out


_CACHE: dict[str, str] = {}


def modules_cache() -> dict[str, str]:
    if not _CACHE:
        _CACHE.update(modules())
    return _CACHE


def upward(sources: dict[str, str]) -> list[str]:
    """Every import from a floor to a higher one, as ``a -> b``."""
    bad = []
    for m, text in sources.items():
        for target in sorted(imports(m, text)):
            if ORDER.index(floor_of(target)) > ORDER.index(floor_of(m)):
                bad.append(f"{m} ({floor_of(m)}) -> {target} ({floor_of(target)})")
    return bad


def circles(sources: dict[str, str]) -> list[list[str]]:
    """The strongly connected sets of two or more modules (Tarjan)."""
    graph = {m: sorted(imports(m, t) & set(sources)) for m, t in sources.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_every_floor_is_named_and_exists():
    known = set(modules_cache())
    for members in FLOORS.values():
        assert members <= known, members - known
    assert {m for m in known if floor_of(m) == "hooks"} >= {"_install", "_merge", "_cache", "_checks", "_inputs"}


def test_no_import_runs_up_a_floor():
    assert upward(modules_cache()) == []


def test_no_two_modules_import_each_other():
    assert circles(modules_cache()) == []


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("_decision", "from ._compile import Compile\n"),
        ("_facts", "from . import _state\n"),
        ("_torch.gateway", "from .. import _compile\n"),
        ("_state", "from ._merge import wrap_merge_view_inputs\n"),
    ],
)
def test_an_upward_import_added_is_found(module, line):
    """The check fails on an upward import added to a module (and the
    circle it makes, where the target imports back)."""
    sources = dict(modules_cache())
    sources[module] = line + sources[module]
    assert any(v.startswith(f"{module} ") for v in upward(sources)), upward(sources)


def test_a_circle_added_is_found():
    sources = dict(modules_cache())
    sources["_layout"] = "from ._decision import decide_group\n" + sources["_layout"]
    assert ["_decision", "_layout"] in [sorted(set(c) & {"_decision", "_layout"}) for c in circles(sources)]


#: Calls whose result is a mutable container or per-process state.
MUTABLE_CALLS = {
    "dict",
    "set",
    "list",
    "OrderedDict",
    "WeakKeyDictionary",
    "WeakValueDictionary",
    "defaultdict",
    "deque",
    "count",
    "RLock",
    "Lock",
}
#: Module-level state outside ``_state``, with why: the compile record of
#: this thread (typed against ``Compile``, defined beside it).
ALLOWED_STATE = {("_compile", "_local")}


def module_state(text: str) -> list[str]:
    """The names a module binds at its top level to mutable state (a dict,
    set or list display, a call of ``MUTABLE_CALLS``, an instance of a
    ``threading.local`` class it defines) or declares ``global``."""
    tree = ast.parse(text)
    local_classes = {
        c.name for c in tree.body if isinstance(c, ast.ClassDef) and any("local" in ast.unparse(b) for b in c.bases)
    }
    found = []
    for node in tree.body:
        targets: list[ast.expr] = []
        value = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        if value is None:
            continue
        mutable = isinstance(value, (ast.Dict, ast.Set, ast.DictComp, ast.SetComp, ast.ListComp))
        mutable |= isinstance(value, ast.List) and not value.elts
        if isinstance(value, ast.Call):
            fn = value.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            mutable |= name in MUTABLE_CALLS or name in local_classes
        if mutable:
            found += [ast.unparse(t) for t in targets]
    found += [f"global {n}" for g in ast.walk(tree) if isinstance(g, ast.Global) for n in g.names]
    return found


def test_only_state_holds_state():
    """``_state`` holds every mutable module-level value; the gateway and the
    core hold none (their functions are pure: the same inputs, the same
    values), nor does any hook."""
    held = {
        m: names
        for m, text in modules_cache().items()
        if m != "_state" and (names := [n for n in module_state(text) if (m, n) not in ALLOWED_STATE])
    }
    assert held == {}
    assert "saved_hooks" in module_state(modules_cache()["_state"]), "the scan finds nothing: it is broken"
    assert module_state("_memo: dict[int, int] = {}\n") == ["_memo"]


def writers_of_facts(sources: dict[str, str]) -> set[str]:
    """The functions (``module:Class.method``, or ``module:function`` for an
    append) that touch a compile's fact store (``_facts``) or append to
    AOTAutograd's guard list."""
    out = set()
    for m, text in sources.items():
        tree = ast.parse(text)
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.ClassDef):
                continue
            for meth in fn.body:
                if isinstance(meth, ast.FunctionDef):
                    for n in ast.walk(meth):
                        if isinstance(n, ast.Attribute) and n.attr == "_facts":
                            out.add(f"{m}:{fn.name}.{meth.name}")
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for n in ast.walk(fn):
                if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
                    continue
                target = ast.unparse(n.func.value)
                if n.func.attr in ("append", "extend") and "aotautograd_guards" in target:
                    out.add(f"{m}:{fn.name}")
    return out


def test_one_writer_of_a_frames_facts():
    """``Compile.adopt`` is the only writer of a compile's facts: ``seal``
    hands them to torch (and empties the store), ``frame_facts`` and
    ``facts`` read it. Parked facts reach a frame through ``adopt`` too
    (``unpark``, ``close_frame``)."""
    found = writers_of_facts(modules_cache())
    assert found == {
        "_compile:Compile.__init__",
        "_compile:Compile.adopt",
        "_compile:Compile.facts",
        "_compile:Compile.frame_facts",
        "_compile:Compile.seal",
        "_compile:seal",
    }
    compile_text = modules_cache()["_compile"]
    tree = ast.parse(compile_text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Compile")
    adders = {
        m.name
        for m in cls.body
        if isinstance(m, ast.FunctionDef)
        and any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "append"
            and "_facts" in ast.unparse(n.func.value)
            for n in ast.walk(m)
        )
    }
    assert adders == {"adopt"}


def test_the_writer_scan_finds_another_writer():
    sources = dict(modules_cache())
    sources["_merge"] += "\n\nclass X:\n    def f(self, c):\n        c._facts.append(1)\n"
    assert "_merge:X.f" in writers_of_facts(sources)


def engine_callers(sources: dict[str, str], names: set[str]) -> set[str]:
    """The modules that call ``_native.<name>`` for a name in ``names``."""
    out = set()
    for m, text in sources.items():
        for n in ast.walk(ast.parse(text)):
            if (
                isinstance(n, ast.Attribute)
                and n.attr in names
                and isinstance(n.value, ast.Name)
                and n.value.id == "_native"
            ):
                out.add(m)
    return out


def test_the_core_is_the_one_caller_of_the_engines_decisions():
    """A storage group is decided in one place: the cache key, the trace's
    pictures and the self-overlap check read the decision through
    ``_decision`` (no rule restated beside it)."""
    decisions = {"decide", "overlapping_for_all_shapes"}
    assert engine_callers(modules_cache(), decisions) == {"_decision"}
    sources = dict(modules_cache())
    sources["_cache"] += "\n\ndef again(ts):\n    return _native.decide(ts, ['a'])\n"
    assert engine_callers(sources, decisions) == {"_decision", "_cache"}
