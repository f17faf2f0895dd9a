"""Dynamo's guard evaluation per step on real models, stock against installed.

Each row builds a transformers model from a config (no download), compiles
its step, runs it until it compiles no more, then times, per compiled frame,
its guard manager's check on the frame's locals as Dynamo saw them at
compile time (the same objects a later step passes: the model, its
optimizer, its cache), hot: ``--iters`` evaluations in a loop, the best of
seven (torch's own ``profile_guard_manager`` flushes the caches before each
evaluation). The loop's own Python call, under 0.1 µs, is in both sides. A
step's cost is the sum over its frames. Rows:

* ``gpt2``: a tiny GPT-2 training step (forward, backward, SGD with momentum);
* ``gpt2_flat``: the same with every parameter a view of one flat buffer;
* ``llama``: a tiny Llama decode step with its static KV cache;
* ``llama_flat``: the same with the KV caches views of one buffer;
* ``llama_inductor``: the ``llama`` step compiled with Inductor, also timed
  end to end per call (``--calls``).

Stock and installed run in alternating processes, ``--runs`` pairs; the
table gives medians and spreads (min-max). ``--python`` runs the installed
side with the native reader disabled (``SYMALIAS_NATIVE_READER=0``): the
Python fallback's cost.

Not a test: ``python python/benches/bench_guard_eval.py --runs 3``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time, torch
import symalias.torch as st
import torch._dynamo.guards as dg

row, installed, iters, calls = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4])
torch.compiler.config.force_disable_caches = True
if installed:
    st.install()
torch.manual_seed(0)

# Each compiled frame's root guard manager and its locals (Dynamo profiles
# every new guard manager once on them, right after it is built).
frames = []
orig_profile = dg.profile_guard_manager
def record(root, scope, n):
    frames.append((root, dict(scope)))
    return orig_profile(root, scope, n)
dg.profile_guard_manager = record

def flatten_params(model):
    params = list(model.parameters())
    flat = torch.zeros(sum(p.numel() for p in params))
    at = 0
    for p in params:
        n = p.numel()
        flat[at:at + n].copy_(p.detach().reshape(-1))
        p.data = flat[at:at + n].view_as(p)
        at += n
    return flat

backend = "aot_eager"
if row.startswith("gpt2"):
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=128, n_positions=64)
    model = GPT2LMHeadModel(cfg)
    if row == "gpt2_flat":
        keep = flatten_params(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    ids = torch.randint(0, 128, (2, 16))
    def step(ids):
        loss = model(ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.detach()
    args = (ids,)
else:
    from transformers import LlamaConfig, LlamaForCausalLM, StaticCache
    cfg = LlamaConfig(num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                      hidden_size=32, intermediate_size=64, vocab_size=128,
                      max_position_embeddings=4096)
    model = LlamaForCausalLM(cfg).eval()
    cache = StaticCache(config=cfg, max_cache_len=4096)
    if row == "llama_flat":
        # Every layer's keys and values: views of one buffer.
        layers = cache.layers
        cache.early_initialization(1, cfg.num_key_value_heads, cfg.hidden_size // cfg.num_attention_heads,
                                   torch.float32, torch.device("cpu"))
        shapes = [(l.keys.shape, l.values.shape) for l in layers]
        total = sum(k.numel() + v.numel() for k, v in shapes)
        buf = torch.zeros(total)
        at = 0
        for l, (ks, vs) in zip(layers, shapes):
            l.keys = buf[at:at + ks.numel()].view(ks); at += ks.numel()
            l.values = buf[at:at + vs.numel()].view(vs); at += vs.numel()
    if row == "llama_inductor":
        backend = "inductor"
    pos = torch.tensor([0])
    def step(tok, pos):
        with torch.no_grad():
            return model(tok, past_key_values=cache, cache_position=pos, use_cache=True).logits
    args = (torch.tensor([[1]]), pos)

g = torch.compile(step, backend=backend)
for _ in range(8):
    g(*args)
n_frames = len(frames)
for _ in range(4):
    g(*args)
if len(frames) != n_frames:
    raise SystemExit(f"{row}: still compiling after 8 steps")

def hot(root, scope):
    # Evaluations per second of a hot loop (torch's profile_guard_manager
    # flushes the caches before every evaluation: a cold figure, and slow).
    check = root.check
    t = time.perf_counter()
    for _ in range(iters):
        check(scope)
    return (time.perf_counter() - t) / iters * 1e6

per_frame = []
for root, scope in frames:
    if not root.check(scope):
        continue  # an entry a later compile replaced
    hot(root, scope)
    per_frame.append(min(hot(root, scope) for _ in range(7)))
out = {"guard_us": sum(per_frame), "frames": [round(x, 2) for x in per_frame]}
if calls:
    block = max(1, calls // 10)
    times = []
    for _ in range(10):
        t = time.perf_counter()
        for _ in range(block):
            g(*args)
        times.append((time.perf_counter() - t) / block)
    times.sort()
    out["per_call_us"] = times[len(times) // 2] * 1e6
if installed:
    out["checks"] = st.stats.guard_checks
    from symalias.torch import _reader
    out["reader"] = _reader.status()
    out["tensors"] = [st.stats.guard_tensors_recorded, st.stats.guard_tensors_fetched]

print(json.dumps(out))
"""

ROWS = ["gpt2", "gpt2_flat", "llama", "llama_flat", "llama_inductor"]


def child(row: str, installed: bool, a: argparse.Namespace, python: bool = False) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    if python:
        env["SYMALIAS_NATIVE_READER"] = "0"
    calls = a.calls if row == "llama_inductor" else 0
    out = subprocess.run(
        [sys.executable, "-c", CHILD, row, "1" if installed else "0", str(a.iters), str(calls)],
        capture_output=True,
        text=True,
        env=env,
    )
    if out.returncode != 0:
        raise SystemExit(f"{row} ({'installed' if installed else 'stock'}) failed:\n{out.stderr[-4000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})"


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("rows", nargs="*", default=None)
    p.add_argument("--runs", type=int, default=3, help="alternating stock/installed process pairs")
    p.add_argument("--runs-per-call", type=int, default=3, help="pairs for the row timed per call (llama_inductor)")
    p.add_argument("--iters", type=int, default=2000, help="guard evaluations per timing")
    p.add_argument("--calls", type=int, default=2000, help="end-to-end calls (llama_inductor)")
    p.add_argument("--python", action="store_true", help="installed side without the native reader")
    a = p.parse_args()
    print(f"{'row':15} {'stock µs':>18} {'installed µs':>18} {'added µs':>9} {'per call stock':>18} {'installed':>18}")
    for row in a.rows or ROWS:
        runs: dict[bool, list[dict]] = {False: [], True: []}
        for _ in range(a.runs_per_call if row == "llama_inductor" else a.runs):
            runs[False].append(child(row, False, a))
            runs[True].append(child(row, True, a, a.python))
        s = [r["guard_us"] for r in runs[False]]
        i = [r["guard_us"] for r in runs[True]]
        added = statistics.median(i) - statistics.median(s)
        line = f"{row:15} {spread(s):>18} {spread(i):>18} {added:>+9.2f}"
        if row == "llama_inductor":
            cs = [r["per_call_us"] for r in runs[False]]
            ci = [r["per_call_us"] for r in runs[True]]
            ratio = statistics.median(ci) / statistics.median(cs)
            line += f" {spread(cs):>18} {spread(ci):>18} ({ratio:.3f}x)"
        print(line, flush=True)
        last = runs[True][-1]
        stock_frames = runs[False][-1]["frames"]
        print(
            f"{'':15} frames stock {stock_frames} installed {last['frames']} reader {last.get('reader')}"
            f" tensors recorded/fetched {last.get('tensors')}"
        )


if __name__ == "__main__":
    main()
