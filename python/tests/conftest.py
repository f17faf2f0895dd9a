import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "support"))
import compile_cache


def pytest_addoption(parser):
    parser.addoption(
        "--quick",
        action="store_true",
        help="only the quick loop's tests (bash .ci/quick): those marked quick, and of a test marked "
        "quick('id', ...) only those parametrizations",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "quick(*ids): in the quick loop (.ci/quick); with ids, only those parametrizations of the test",
    )


def pytest_collection_modifyitems(config, items):
    """``--quick``: the tests marked ``quick``, each beside its test (a
    module's ``pytestmark`` for a whole file)."""
    if not config.getoption("--quick"):
        return
    keep, drop = [], []
    wanted: dict[str, set[str]] = {}
    seen: dict[str, set[str]] = {}
    for item in items:
        marks = list(item.iter_markers("quick"))
        ids = {i for m in marks for i in m.args}
        callspec = getattr(item, "callspec", None)
        name = item.nodeid.split("[")[0]
        wanted.setdefault(name, set()).update(ids)
        seen.setdefault(name, set()).add(callspec.id if callspec is not None else "")
        chosen = bool(marks) and (not ids or (callspec is not None and callspec.id in ids))
        (keep if chosen else drop).append(item)
    stale = {name: ids - seen[name] for name, ids in wanted.items() if ids - seen[name]}
    if stale:
        raise pytest.UsageError(f"quick(...) names parametrizations that do not exist: {stale}")
    config.hook.pytest_deselected(items=drop)
    items[:] = keep


@pytest.fixture(scope="session", autouse=True)
def kernel_store(tmp_path_factory):
    """One store of compiled C++ kernels for the session, shared by the
    child processes of the cache and artifact suites
    (``support/compile_cache.py``), where the same few kernels are compiled
    again and again; every compile cache a test makes stays its own apart
    from it. (In-process tests rarely repeat a kernel: measured, linking
    the store into each of their caches cost more than it saved.)"""
    base = tmp_path_factory.getbasetemp()
    store = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "kernels"
    compile_cache.prepare_store(store)
    os.environ[compile_cache.ENV] = str(store)
    yield store
    os.environ.pop(compile_cache.ENV, None)


@pytest.fixture(params=["caches_off", "caches_on"])
def fresh_torch(request):
    """torch.compile with Dynamo reset before and after and symalias
    uninstalled after, in the two configurations users run: compile caches
    off (``force_disable_caches``), and on -- torch's default -- in a fresh
    cache directory of the test's own (``fresh_cache``: AOTAutograd's and
    inductor's caches, on disk and in memory)."""
    torch = pytest.importorskip("torch")
    from torch._inductor.utils import fresh_cache

    import symalias.torch as st

    cfg = torch.compiler.config
    old = cfg.force_disable_caches
    cfg.force_disable_caches = request.param == "caches_off"
    torch._dynamo.reset()
    try:
        with fresh_cache():
            yield torch
    finally:
        st.uninstall()
        torch._dynamo.reset()
        cfg.force_disable_caches = old


@pytest.fixture
def caches_on():
    """torch's default: compile caches on, in a fresh directory of the
    test's own; Dynamo reset and symalias uninstalled after."""
    torch = pytest.importorskip("torch")
    from torch._inductor.utils import fresh_cache

    import symalias.torch as st

    torch._dynamo.reset()
    try:
        with fresh_cache():
            yield
    finally:
        st.uninstall()
        torch._dynamo.reset()


def _lifetime() -> tuple[int, int, int, int] | None:
    """This process's frame counts under ``install()``, if it imported the
    integration."""
    import sys

    state = sys.modules.get("symalias.torch._state")
    if state is None:
        return None
    n = state.lifetime
    return (n.frames_compiled, n.frames_guarded, n.frames_group_guarded, n.frames_eager)


_WORKER_COUNTS: list[tuple[int, int, int, int]] = []


def pytest_sessionfinish(session):
    """Under pytest-xdist, a worker hands its counts to the controller."""
    out = getattr(session.config, "workeroutput", None)
    counts = _lifetime()
    if out is not None and counts is not None:
        out["symalias_lifetime"] = list(counts)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller (pytest-xdist) collects each worker's counts."""
    counts = getattr(node, "workeroutput", {}).get("symalias_lifetime")
    if counts is not None:
        _WORKER_COUNTS.append(tuple(counts))


def pytest_terminal_summary(terminalreporter):
    """How many frames compiled under ``install()`` (in this process, or in
    every pytest-xdist worker) needed any symalias run-time check at all (the
    rest rely on proofs or on torch's own guards)."""
    counts = [c for c in [_lifetime(), *_WORKER_COUNTS] if c is not None]
    if not counts:
        return
    compiled, guarded, group, eager = (sum(c[i] for c in counts) for i in range(4))
    terminalreporter.write_line(
        f"symalias: {guarded} of {compiled} frames compiled "
        "under install() carry a symalias run-time check; "
        f"{group} of them for an aliased storage group "
        "(the others: the cross-storage fact, or user code's address checks); "
        f"{eager} ran eagerly (an eager fallback)"
    )
