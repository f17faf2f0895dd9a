"""symalias with torch's compile caches ON (torch's default), across
processes that share one cache directory -- each test its own, fresh
(its compiled C++ kernels shared by the session: ``support/compile_cache.py``).

``fn(a, b): a.add_(1); return b * 2`` on views of one buffer whose aliasing
changes while shapes and strides do not. Every call of every process is
compared with eager (outputs and the final storage bytes); torch's
AOTAutograd counters and symalias's stats tell what was served from the
cache and that symalias's decision and guards were there on every hit.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch")

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "support"))
import compile_cache

CHILD = pathlib.Path(__file__).parents[1] / "support" / "cache_child.py"


def run(cache_dir, *, install, backend, dynamic, calls, load=None, save=None):
    """One process of ``cache_child.py``; its JSON report."""
    plan = {"install": install, "backend": backend, "dynamic": dynamic, "calls": calls}
    if load:
        plan["load"] = str(load)
    if save:
        plan["save"] = str(save)
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(compile_cache.fresh(cache_dir)))
    env.pop("TORCH_COMPILE_DISABLE", None)
    out = subprocess.run(
        [sys.executable, str(CHILD), json.dumps(plan)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def hits(report):
    return report["aot"].get("autograd_cache_hit", 0)


BACKENDS = ["inductor", "aot_eager"]
DYNAMIC = [False, True]
both = pytest.mark.parametrize("dynamic", DYNAMIC, ids=["static", "dynamic"])
backends = pytest.mark.parametrize("backend", BACKENDS)
# AOTAutograd's cache serves inductor only (docs/PYTORCH.md §10): the
# process pairs below test what a second process loads from it, so they run
# under inductor; aot_eager compiles afresh in every process, which the
# in-process suites cover with caches on (``fresh_torch``), and
# ``test_stock_then_installed`` keeps both backends.
served = pytest.mark.parametrize("backend", ["inductor"])


@backends
@both
def test_stock_then_installed(tmp_path, backend, dynamic):
    """Stock's graph for the hidden overlap is wrong; installed must not use it."""
    first = run(tmp_path, install=False, backend=backend, dynamic=dynamic, calls=["overlap"])
    second = run(tmp_path, install=True, backend=backend, dynamic=dynamic, calls=["overlap"])
    if backend == "inductor":
        assert first["aot"].get("autograd_cache_saved", 0) >= 1
        assert first["ok"] == [False], "stock torch got this right: the bug is fixed upstream"
    assert second["ok"] == [True]
    assert hits(second) == 0 and second["decisions"] >= 1
    assert second["cache_keys"] >= (1 if backend == "inductor" else 0)


@served
@both
@pytest.mark.quick("static-inductor")
def test_installed_then_installed(tmp_path, backend, dynamic):
    """The second process hits the first's entry and gets the same guards."""
    first = run(tmp_path, install=True, backend=backend, dynamic=dynamic, calls=["overlap"])
    second = run(tmp_path, install=True, backend=backend, dynamic=dynamic, calls=["overlap"])
    assert first["ok"] == [True] and second["ok"] == [True]
    assert hits(second) >= 1
    assert second["cache_hits"] == hits(second)
    # The decision is made again on the hit, and its guards run.
    assert second["restored"] == hits(second) and second["decisions"] == first["decisions"]
    assert second["guard_checks"] > 0


@served
@both
def test_installed_then_stock(tmp_path, backend, dynamic):
    first = run(tmp_path, install=True, backend=backend, dynamic=dynamic, calls=["overlap"])
    second = run(tmp_path, install=False, backend=backend, dynamic=dynamic, calls=["disjoint"])
    assert first["ok"] == [True] and second["ok"] == [True]
    # symalias's entries carry its decision in the key: stock never loads them.
    assert hits(second) == 0


@served
@both
def test_installed_then_installed_with_another_pattern(tmp_path, backend, dynamic):
    """A hit installs the guards, which catch the next call's other
    aliasing; the recompile must not hit the first pattern's entry."""
    run(tmp_path, install=True, backend=backend, dynamic=dynamic, calls=["overlap"])
    second = run(
        tmp_path, install=True, backend=backend, dynamic=dynamic, calls=["overlap", "disjoint", "overlap_moved"]
    )
    assert second["ok"] == [True, True, True]
    assert second["guard_failures"] >= 1
    assert hits(second) >= 1 and second["cache_hits"] == hits(second)


@pytest.mark.parametrize("dynamic", DYNAMIC, ids=["static", "dynamic"])
def test_one_process_hidden_overlap_then_disjoint(tmp_path, dynamic):
    """The issue's in-process case: the guard fails, the recompile misses."""
    report = run(tmp_path, install=True, backend="inductor", dynamic=dynamic, calls=["overlap", "disjoint"])
    assert report["ok"] == [True, True]
    assert report["aot"].get("autograd_cache_miss", 0) == 2


def test_cache_artifacts_carry_the_decision(tmp_path):
    """``save_cache_artifacts`` in one process, ``load_cache_artifacts`` into
    another with an empty cache directory: symalias's entry is a hit there,
    with its guards; stock's artifacts are not used by an installed process."""
    ours, stock = tmp_path / "ours.bin", tmp_path / "stock.bin"
    run(tmp_path / "a", install=True, backend="inductor", dynamic=False, calls=["overlap"], save=ours)
    loaded = run(
        tmp_path / "b", install=True, backend="inductor", dynamic=False, calls=["overlap", "disjoint"], load=ours
    )
    assert loaded["ok"] == [True, True]
    assert hits(loaded) == 1 and loaded["cache_hits"] == 1 and loaded["guard_failures"] >= 1
    run(tmp_path / "c", install=False, backend="inductor", dynamic=False, calls=["overlap"], save=stock)
    other = run(tmp_path / "d", install=True, backend="inductor", dynamic=False, calls=["overlap"], load=stock)
    assert other["ok"] == [True] and hits(other) == 0


def test_automatic_dynamic_state_from_another_process(tmp_path):
    """Process 1 sees two sizes (Dynamo records the dimension as dynamic in
    the cache directory); process 2 starts dynamic with another pattern."""
    first = run(tmp_path, install=True, backend="inductor", dynamic=None, calls=["overlap@6", "overlap@7"])
    second = run(tmp_path, install=True, backend="inductor", dynamic=None, calls=["disjoint@6", "overlap@8"])
    assert first["ok"] == [True, True] and second["ok"] == [True, True]


def test_stock_entries_are_not_served_to_an_installed_process(tmp_path):
    """Frames whose inputs share no storage: their graphs still go through
    Inductor's reinplace pass, which asks symalias when installed, so every
    key carries symalias's reinplace mark (issue 35). An entry made by stock
    torch is a miss for an installed process; a second installed process
    hits the first one's entry -- and the hit carries symalias's
    cross-storage guard."""

    code = (
        "import json, torch, symalias.torch as st\n"
        "from torch._dynamo.utils import counters\n"
        "import sys\n"
        "if sys.argv[1] == '1': st.install()\n"
        "def f(a, b):\n"
        "    a.add_(1)\n"
        "    return b * 2\n"
        "x, y = torch.arange(6.0), torch.arange(6.0)\n"
        "g = torch.compile(f, backend='inductor')\n"
        "g(x, y)\n"
        "# Then one buffer's overlapping views (same sizes and strides): only\n"
        "# symalias's cross-storage guard can tell, and must be there after a hit.\n"
        "m, m2 = torch.arange(12.0), torch.arange(12.0)\n"
        "right = torch.equal(g(m[:6], m[3:9]), f(m2[:6], m2[3:9])) and torch.equal(m, m2)\n"
        "print(json.dumps({'aot': dict(counters['aot_autograd']), 'keys': st.stats.cache_keys,"
        " 'hits': st.stats.cache_hits, 'right': right, 'failures': st.stats.guard_failures}))\n"
    )
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(compile_cache.fresh(tmp_path)))
    reports = []
    for flag in ("0", "1", "1", "0"):
        out = subprocess.run([sys.executable, "-c", code, flag], env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-4000:]
        reports.append(json.loads(out.stdout.strip().splitlines()[-1]))
    stock, first, second, stock_again = reports
    assert stock["aot"].get("autograd_cache_saved", 0) >= 1
    assert first["aot"].get("autograd_cache_hit", 0) == 0 and first["right"]
    assert second["aot"].get("autograd_cache_hit", 0) >= 1
    assert second["hits"] == second["aot"]["autograd_cache_hit"]
    # The hit kept the cross-storage guard: it failed on the overlapping call.
    assert second["right"] and second["failures"] >= 1
    # Stock hits its own entry, never symalias's.
    assert stock_again["aot"].get("autograd_cache_hit", 0) >= 1
