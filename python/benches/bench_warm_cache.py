"""Compile time from a warm cache, stock torch against ``symalias.torch.install()``.

One cache directory is warmed once; then fresh processes, alternating stock
and installed, each compile and run the same model once from it (inductor,
torch's default caches). Reported per configuration: the median time of the
first call (compile from cache + run) and the AOTAutograd cache hits.

Two models:
* ``mlp``: a small MLP training step, no input shares a storage (its key
  carries only symalias's reinplace mark since issue 35: each
  configuration warms and hits its own entries);
* ``aliased``: the same step plus an in-place update of two rows of one
  buffer (its key carries symalias's decision: the warm-up is done by each
  configuration for its own entries).

    python python/benches/bench_warm_cache.py [runs]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time, torch
import symalias.torch as st
from torch._dynamo.utils import counters
if sys.argv[1] == "1":
    st.install()
model = sys.argv[2]
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64))
x = torch.randn(32, 64)
buf = torch.zeros(8, 64)

def step(x, rows_a, rows_b):
    loss = net(x).square().mean()
    loss.backward()
    if rows_a is not None:
        rows_a.add_(1)
        return loss.detach() + rows_b.sum()
    return loss.detach()

f = torch.compile(step, backend="inductor")
args = (x, buf[0:2], buf[1:3]) if model == "aliased" else (x, None, None)
t = time.perf_counter()
f(*args)
dt = time.perf_counter() - t
print(json.dumps({"seconds": dt, "hits": counters["aot_autograd"].get("autograd_cache_hit", 0)}))
"""


def run(cache, install, model):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, "1" if install else "0", model],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for model in ("mlp", "aliased"):
        with tempfile.TemporaryDirectory() as cache:
            cold = {flag: run(cache, flag, model)["seconds"] for flag in (False, True)}
            times = {False: [], True: []}
            hits = {False: [], True: []}
            for _ in range(runs):
                for flag in (False, True):
                    r = run(cache, flag, model)
                    times[flag].append(r["seconds"])
                    hits[flag].append(r["hits"])
            for flag, name in ((False, "stock"), (True, "installed")):
                print(
                    f"{model:8s} {name:9s} cold {cold[flag]:6.2f} s   warm median "
                    f"{statistics.median(times[flag]):6.3f} s "
                    f"(min {min(times[flag]):.3f}, max {max(times[flag]):.3f})   "
                    f"AOTAutograd hits per run {sorted(set(hits[flag]))}"
                )
            ratio = statistics.median(times[True]) / statistics.median(times[False])
            print(f"{model:8s} installed/stock warm: {ratio:.2f}x")


if __name__ == "__main__":
    main()
