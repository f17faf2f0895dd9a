"""symalias's decisions in torch's structured trace, as tlparse reads it.

A process compiles ``a.add_(1); return b * 2`` on two overlapping views of
one buffer with symalias installed and ``TORCH_TRACE`` set
(``support/cache_child.py``); ``tlparse`` then makes its index of the
trace. The decision's text and its picture must be artifacts of the compile
that made them -- with caches off, and with caches on for a second process
whose compile is an AOTAutograd cache hit. Without ``TORCH_TRACE`` nothing
is written nor built.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "support"))
import compile_cache

import symalias.torch as st
from symalias.torch._torch import gateway

CHILD = pathlib.Path(__file__).parents[1] / "support" / "cache_child.py"
TLPARSE = shutil.which("tlparse") or str(pathlib.Path(sys.executable).parent / "tlparse")


def traced_run(tmp, name, cache_dir, *, caches=True, dynamic=False):
    """One child process with ``TORCH_TRACE``; its report and trace directory."""
    trace = tmp / f"trace_{name}"
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(compile_cache.fresh(cache_dir)), TORCH_TRACE=str(trace))
    env.pop("TORCH_COMPILE_DISABLE", None)
    if not caches:
        env["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"
    plan = {"install": True, "backend": "inductor", "dynamic": dynamic, "calls": ["overlap"]}
    out = subprocess.run(
        [sys.executable, str(CHILD), json.dumps(plan)], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-4000:]
    return json.loads(out.stdout.strip().splitlines()[-1]), trace


def tlparse(tmp, trace, name):
    """tlparse's output directory for ``trace``: its index links every artifact."""
    out = tmp / f"tl_{name}"
    logs = sorted(trace.iterdir())
    assert logs, "no trace written"
    run = subprocess.run(
        [TLPARSE, str(logs[0]), "-o", str(out), "--overwrite", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    return out


def artifacts(out, stem):
    """The files tlparse wrote for artifact ``stem``, by compile directory,
    each linked from the index (``compile_directory.json``: what the index
    lists under each compile id)."""
    directory = json.loads((out / "compile_directory.json").read_text())
    found = {}
    for compile_id, entry in directory.items():
        for a in entry.get("artifacts", []):
            if re.fullmatch(rf"{stem}_\d+\.txt", a["name"]):
                path = out / a["url"]
                assert path.exists(), a
                assert a["url"] in (out / "index.html").read_text() or compile_id in (out / "index.html").read_text()
                found.setdefault(compile_id, []).append(path.read_text())
    return found


@pytest.mark.parametrize("caches", [False, True], ids=["caches_off", "caches_on"])
def test_tlparse_lists_the_decision_and_its_picture_under_its_compile(tmp_path, caches):
    report, trace = traced_run(tmp_path, "first", tmp_path / "cache", caches=caches)
    assert report["ok"] == [True] and report["decisions"] >= 1
    out = tlparse(tmp_path, trace, "first")
    pictures = artifacts(out, "symalias_storage_group_memory_map")
    texts = artifacts(out, "symalias_storage_group")
    # Under a compile id (a compile's directory, not "unknown"), picture and text.
    assert pictures and set(pictures) == set(texts), (pictures.keys(), texts.keys())
    (svgs,) = pictures.values()
    assert all(s.startswith("<svg") and "witness byte" in s for s in svgs)
    (words,) = texts.values()
    assert any("overlaps" in w and "run-time guard" in w for w in words)
    if not caches:
        return
    # A second process on the same caches: the compile is a cache hit, and
    # the decision restored for it is in its trace too.
    second, trace2 = traced_run(tmp_path, "second", tmp_path / "cache", caches=True)
    assert second["ok"] == [True] and second["aot"].get("autograd_cache_hit", 0) >= 1
    out2 = tlparse(tmp_path, trace2, "second")
    texts2 = artifacts(out2, "symalias_storage_group")
    assert any("restored for an AOTAutograd cache hit" in w for ws in texts2.values() for w in ws)
    assert artifacts(out2, "symalias_storage_group_memory_map")


@pytest.mark.quick
def test_without_torch_trace_nothing_is_written_nor_built(monkeypatch):
    assert not gateway.tracing_structured()
    written = []
    monkeypatch.setattr(gateway, "trace_artifact", lambda name, payload: written.append(name))

    def f(a, b):
        a.add_(1)
        return b * 2

    m = torch.arange(20.0).view(4, 5)
    with st.enabled():
        torch._dynamo.reset()
        torch.compile(f, backend="aot_eager")(m[:, :3], m[2:3, :3])
    assert st.stats.decisions >= 1
    assert written == []


@pytest.fixture
def captured(monkeypatch):
    """Artifacts as the trace would get them (name, payload made), the trace
    taken as on."""
    got = []
    monkeypatch.setattr(gateway, "tracing_structured", lambda: True)
    monkeypatch.setattr(gateway, "trace_artifact", lambda name, payload: got.append((name, payload())))
    return got


def test_the_reinplace_pass_answers_appear_with_their_pictures(fresh_torch, captured):
    sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "support"))
    import reinplace_frames as rf

    frame = next(f for f in rf.FRAMES if f.name == "blocks_in_graph")
    st.install()
    torch.compile(frame.fn, backend="inductor")(*frame.make(8))
    names = [n for n, _ in captured]
    assert "symalias_reinplace" in names and "symalias_reinplace_memory_map" in names, names
    # Each question in words and in a picture that says the same.
    texts = [p for n, p in captured if n == "symalias_reinplace"]
    svgs = [p for n, p in captured if n == "symalias_reinplace_memory_map"]
    assert len(texts) == len(svgs) >= 1
    for t, svg in zip(texts, svgs):
        assert t.startswith("reinplace pass: 2 views of one storage") and svg.startswith("<svg")
        disjoint = "may overlap another: none" in t
        assert ("all disjoint at the hints" in svg) == disjoint, (t, svg[:300])


def test_higher_order_op_inputs_appear_with_their_pictures(fresh_torch, captured):
    @torch.compiler.nested_compile_region
    def attn(q, k, v):
        return q * k + v

    def f(t):
        return attn(*t.chunk(3, -1))

    st.install()
    torch.compile(f, backend="aot_eager")(torch.randn(4, 6))
    texts = [p for n, p in captured if n == "symalias_hop_inputs"]
    assert texts and "accepted: no written input may share a byte with another" in texts[0], captured
    pictures = [p for n, p in captured if n == "symalias_hop_inputs_memory_map"]
    assert pictures and all(p.startswith("<svg") for p in pictures)


def test_a_loop_reading_a_captured_chunk_appears_too(fresh_torch, captured):
    # The functionalized check (``_check_alias_and_mutation``): the loop's
    # carried chunk and its captured one share a storage, nothing is written.
    from torch._higher_order_ops.while_loop import while_loop

    def f(t):
        q, k = t.chunk(2)
        return while_loop(lambda i, q: i < 3, lambda i, q: (i + 1, q * 2 + k), (torch.tensor(0), q))[1]

    st.install()
    t = torch.randn(4, 3)
    assert torch.equal(torch.compile(f, backend="aot_eager")(t), f(t))
    texts = [p for n, p in captured if n == "symalias_hop_inputs"]
    assert any(t.startswith("higher-order op") and "cond_fn input 1, cond_fn input 2" in t for t in texts), texts
    assert all("accepted: no written input" in t for t in texts), texts
    pictures = [p for n, p in captured if n == "symalias_hop_inputs_memory_map"]
    assert pictures and all(p.startswith("<svg") for p in pictures)
