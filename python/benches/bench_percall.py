"""Per-call cost of ``symalias.torch.install()`` against stock torch.

Each workload is compiled (aot_eager, static shapes, compile caches off) in
a fresh process, warmed up, then called ``--calls`` times in blocks; the
process reports the median block's time per call and what symalias counted
(run-time checks, their time). Stock and installed processes alternate
``--runs`` times; the table gives medians over runs and the spread
(min-max), and the overhead of installed over stock.

Workloads:

* ``rows``: two rows of one buffer, both mutated (disjoint views of one storage);
* ``distinct``: two distinct tensors, both mutated (no aliasing at all);
* ``decode``: ``index_copy_`` into two disjoint halves of one KV buffer;
* ``sgd_flat``: SGD with momentum over 200 params, their grads and momentum
  buffers viewing 3 flat buffers (600 inputs);
* ``sgd``: the same over 200 separate params (no aliasing);
* ``gpt2`` / ``llama`` (with ``--models``, needs ``transformers``): a tiny
  GPT-2 training step and a tiny Llama decode step with its static KV cache,
  built from configs (no download).

``--before DIR`` also runs an earlier symalias (a directory holding a copy
of its installed ``symalias`` package, put first on ``PYTHONPATH``) in the
same alternation, and reports the current one against it: a change's
per-call cost, measured in one run on one machine.

Not a test: run it by hand, e.g. ``python python/benches/bench_percall.py --runs 5``.
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

workload, installed, calls = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
torch.compiler.config.force_disable_caches = True
if installed:
    st.install()
torch.manual_seed(0)

def sgd_step(params, grads, moms):
    for p, g, m in zip(params, grads, moms):
        m.mul_(0.9).add_(g)
        p.add_(m, alpha=-0.01)

if workload == "rows":
    buf = torch.zeros(2, 16)
    def f(a, b):
        a.add_(1)
        b.mul_(2)
    args = (buf[0], buf[1])
elif workload == "distinct":
    def f(a, b):
        a.add_(1)
        b.mul_(2)
    args = (torch.zeros(16), torch.zeros(16))
elif workload == "decode":
    kv = torch.zeros(2, 64, 8)
    idx = torch.tensor([3])
    def f(k, v, idx, nk, nv):
        k.index_copy_(0, idx, nk)
        v.index_copy_(0, idx, nv)
        return k.sum() + v.sum()
    args = (kv[0], kv[1], idx, torch.ones(1, 8), torch.ones(1, 8))
elif workload in ("sgd_flat", "sgd"):
    n = 200
    if workload == "sgd_flat":
        flats = [torch.zeros(n * 16) for _ in range(3)]
        ps, gs, ms = ([t for t in flat.split(16)] for flat in flats)
    else:
        ps, gs, ms = ([torch.zeros(16) for _ in range(n)] for _ in range(3))
    for g in gs:
        g.fill_(1)
    f = sgd_step
    args = (ps, gs, ms)
elif workload == "gpt2":
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=128, n_positions=64)
    model = GPT2LMHeadModel(cfg)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    ids = torch.randint(0, 128, (2, 16))
    def f(ids):
        loss = model(ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.detach()
    args = (ids,)
elif workload == "llama":
    from transformers import LlamaConfig, LlamaForCausalLM, StaticCache
    cfg = LlamaConfig(num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                      hidden_size=32, intermediate_size=64, vocab_size=128,
                      max_position_embeddings=4096)
    model = LlamaForCausalLM(cfg).eval()
    # transformers advances the cache position itself: room for every call.
    cache = StaticCache(config=cfg, max_cache_len=4096)
    pos = torch.tensor([0])
    def f(tok, pos):
        with torch.no_grad():
            return model(tok, past_key_values=cache, cache_position=pos, use_cache=True).logits
    args = (torch.tensor([[1]]), pos)
else:
    raise SystemExit(f"unknown workload {workload}")

g = torch.compile(f, backend="aot_eager")
for _ in range(20):
    g(*args)
block = max(1, calls // 10)
times = []
for _ in range(10):
    t = time.perf_counter()
    for _ in range(block):
        g(*args)
    times.append((time.perf_counter() - t) / block)
times.sort()
out = {"per_call": times[len(times) // 2]}
if installed:
    s = st.stats
    out.update(checks=s.guard_checks, check_seconds=getattr(s, "guard_check_seconds", 0.0),
               failures=s.guard_failures, decisions=s.decisions)
print(json.dumps(out))
"""

WORKLOADS = ["rows", "distinct", "decode", "sgd_flat", "sgd"]
MODELS = ["gpt2", "llama"]


def child(workload: str, installed: bool, calls: int, path: str | None = None) -> dict:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([path, *filter(None, [env.get("PYTHONPATH")])])
    out = subprocess.run(
        [sys.executable, "-c", CHILD, workload, "1" if installed else "0", str(calls)],
        capture_output=True,
        text=True,
        env=env,
    )
    if out.returncode != 0:
        raise SystemExit(f"{workload} ({'installed' if installed else 'stock'}) failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.3f} ms"


def compare(names: list[str], a: argparse.Namespace) -> None:
    """Stock, the earlier symalias (``--before``) and the current one, alternating."""
    print(f"{'workload':9} {'stock':>12} {'before':>12} {'after':>12} {'after vs before':>16} {'spread (after)':>24}")
    for w in names:
        calls = a.calls if w not in ("sgd_flat", "sgd", "gpt2") else max(100, a.calls // 10)
        runs: dict = {"stock": [], "before": [], "after": []}
        for _ in range(a.runs):
            runs["stock"].append(child(w, False, calls)["per_call"])
            runs["before"].append(child(w, True, calls, a.before)["per_call"])
            runs["after"].append(child(w, True, calls)["per_call"])
        m = {k: statistics.median(v) for k, v in runs.items()}
        ratio = m["after"] / m["before"]
        spread = f"{fmt(min(runs['after']))}-{fmt(max(runs['after']))}"
        print(f"{w:9} {fmt(m['stock']):>12} {fmt(m['before']):>12} {fmt(m['after']):>12} {ratio:>15.3f}x {spread:>24}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workloads", nargs="*", default=None)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--calls", type=int, default=3000)
    p.add_argument("--models", action="store_true", help="also the GPT-2 and Llama workloads")
    p.add_argument("--before", metavar="DIR", help="a directory with an earlier symalias package to compare with")
    a = p.parse_args()
    names = a.workloads or (WORKLOADS + (MODELS if a.models else []))
    if a.before:
        compare(names, a)
        return
    print(
        f"{'workload':9} {'stock':>22} {'installed':>22} {'overhead':>10} {'checks/call':>11} {'check time/call':>15}"
    )
    for w in names:
        calls = a.calls if w not in ("sgd_flat", "sgd", "gpt2") else max(100, a.calls // 10)
        runs: dict = {False: [], True: []}
        last: dict = {}
        for _ in range(a.runs):
            for installed in (False, True):
                r = child(w, installed, calls)
                runs[installed].append(r["per_call"])
                if installed:
                    last = r
        s, i = statistics.median(runs[False]), statistics.median(runs[True])
        spread = {k: f"{fmt(statistics.median(v))} ({fmt(min(v))}-{fmt(max(v))})" for k, v in runs.items()}
        total_calls = calls + 20
        checks = last.get("checks", 0) / total_calls
        ctime = last.get("check_seconds", 0.0) / total_calls
        over = i - s
        print(
            f"{w:9} {spread[False]:>22} {spread[True]:>22} "
            f"{('+' if over >= 0 else '') + fmt(abs(over)) if over >= 0 else '-' + fmt(-over):>10} "
            f"{checks:>11.2f} {fmt(ctime):>15}   ({100 * over / s:+.1f}%)"
        )


if __name__ == "__main__":
    main()
