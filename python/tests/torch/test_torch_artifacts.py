"""Saved artifacts carry symalias's facts (issue 32 item 2), each save and
load in a process of its own, as users run them:

* ``aot_compile`` / ``save_compiled_function`` / ``load_compiled_function``:
  saved with symalias installed, the artifact checks the aliasing it was
  compiled for -- a call with another pattern is refused with the fact's
  words (an ``aot_compile`` artifact cannot recompile), the others equal
  eager. Saved by stock torch, it carries no such check: loaded with
  symalias installed, every call is refused with symalias's reason (stock
  torch runs it, wrong on the overlapping call). Saved with symalias, stock
  torch refuses to load it (``Unknown GuardEnvExpr``).
* Dynamo's precompile (``caching_precompile``): a package saved with symalias
  is reused with its facts; a stock package's guards fail under symalias, so
  the frame compiles afresh. Equal to eager in every call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "support"))
import compile_cache

CHILD = os.path.join(os.path.dirname(__file__), os.pardir, "support", "artifact_child.py")


def child(*argv, cache_dir):
    """One process of ``artifact_child.py`` with the compile cache
    ``cache_dir`` (fresh unless a test shares it; kernels shared:
    ``support/compile_cache.py``); its JSON report."""
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(compile_cache.fresh(cache_dir)))
    out = subprocess.run(
        [sys.executable, CHILD, *argv], env=env, capture_output=True, text=True, timeout=600, check=False
    )
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    assert lines, out.stderr[-3000:]
    return json.loads(lines[-1])


backends = pytest.mark.parametrize("backend", ["aot_eager", "inductor"])


@backends
def test_aot_compile_artifact_checks_the_aliasing_it_was_compiled_for(tmp_path, backend):
    path = str(tmp_path / "fn.bin")
    assert child("save", "installed", backend, path, "disjoint", cache_dir=tmp_path / "save") == {"saved": True}
    got = child(
        "load",
        "installed",
        backend,
        path,
        "disjoint",
        "overlapping",
        "shifted",
        "disjoint",
        cache_dir=tmp_path / "load",
    )
    assert got["loaded"] is True
    right, refused, shifted, again = got["calls"]
    assert (right, shifted, again) == ("right", "right", "right")
    assert refused.startswith("RuntimeError: GuardManager check failed")
    assert "check_overlapping(overlapping=[], non_overlapping=[L['a'], L['b']])" in refused


def test_aot_compile_artifact_of_overlapping_inputs(tmp_path):
    path = str(tmp_path / "fn.bin")
    assert child("save", "installed", "inductor", path, "overlapping", cache_dir=tmp_path / "save") == {"saved": True}
    got = child("load", "installed", "inductor", path, "overlapping", "disjoint", cache_dir=tmp_path / "load")
    assert got["calls"][0] == "right"
    assert got["calls"][1].startswith("RuntimeError: GuardManager check failed")


def test_stock_artifact_is_refused_with_symalias_installed(tmp_path):
    path = str(tmp_path / "fn.bin")
    assert child("save", "stock", "inductor", path, "disjoint", cache_dir=tmp_path / "save") == {"saved": True}
    # What stock torch does with it: the overlapping call is wrong.
    assert child("load", "stock", "inductor", path, "disjoint", "overlapping", cache_dir=tmp_path / "load_stock")[
        "calls"
    ] == ["right", "wrong"]
    got = child("load", "installed", "inductor", path, "disjoint", "overlapping", cache_dir=tmp_path / "load")
    assert got["loaded"] is True
    for c in got["calls"]:
        assert c.startswith("RuntimeError: GuardManager check failed")
        assert "saved without symalias installed" in c


def test_symalias_artifact_is_refused_by_stock_torch(tmp_path):
    path = str(tmp_path / "fn.bin")
    assert child("save", "installed", "aot_eager", path, "disjoint", cache_dir=tmp_path / "save") == {"saved": True}
    got = child("load", "stock", "aot_eager", path, "disjoint", cache_dir=tmp_path / "load")
    assert got["loaded"].startswith("RuntimeError: Unknown GuardEnvExpr: FrameFacts")


@pytest.mark.parametrize("saver", ["installed", "stock"])
def test_precompile_package_reused_with_its_facts(tmp_path, saver):
    first = child("precompile", saver, "inductor", "save", "disjoint", cache_dir=tmp_path)
    assert first["calls"] == ["right"]
    got = child("precompile", "installed", "inductor", "-", "disjoint", "overlapping", "disjoint", cache_dir=tmp_path)
    assert got["package"].get("dynamo_cache_hit") == 1, got
    assert got["calls"] == ["right", "right", "right"]
    # symalias's package serves the first call; stock's guards fail under
    # symalias (``Unstamped``), so the frame is compiled afresh.
    assert got["compiled"][0] == (0 if saver == "installed" else 1)
