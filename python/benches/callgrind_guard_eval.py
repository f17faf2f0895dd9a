"""Instructions per guard evaluation, stock against installed, counted by
``valgrind --tool=callgrind`` (repeatable on a noisy machine).

Each workload is compiled (aot_eager, caches off) under valgrind; then each
compiled frame's guard manager is evaluated ``--iters`` times on the
frame's locals; callgrind collects only inside the root guard manager's
check (``--toggle-collect``: Dynamo's guards, symalias's leaves and check). The table gives instructions
per evaluation of all the workload's frames (one step), stock, installed,
and installed with the native reader off.

Workloads: ``small`` (two distinct tensors, both mutated: the cross-storage
check), ``sgd`` (SGD with momentum over ``--params`` separate parameters:
params, grads and momentum buffers, the buffers keyed by parameter in the
optimizer's state).

Not a test: ``python python/benches/callgrind_guard_eval.py`` (minutes:
torch runs under valgrind).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

CHILD = r"""
import sys, torch
import torch._dynamo.guards as dg
mode, workload, iters, params = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
torch.compiler.config.force_disable_caches = True
if mode != "stock":
    import symalias.torch as st
    st.install()
frames = []
orig = dg.profile_guard_manager
def record(root, scope, n):
    frames.append((root, dict(scope)))
    return orig(root, scope, n)
dg.profile_guard_manager = record
if workload == "small":
    def f(a, b):
        a.add_(1)
        b.mul_(2)
    args = (torch.zeros(8), torch.zeros(8))
    g = torch.compile(f, backend="aot_eager")
else:
    model = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(16)) for _ in range(params)])
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for p in model:
        p.grad = torch.ones(16)
    def step():
        opt.step()
    args = ()
    g = torch.compile(step, backend="aot_eager")
for _ in range(4):
    g(*args)
live = [(r, s) for r, s in frames if r.check(s)]
for root, scope in live:
    check = root.check
    for _ in range(iters):
        check(scope)
print("frames", len(live))
"""


def count(mode: str, workload: str, a: argparse.Namespace) -> int:
    env = dict(os.environ, TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    if mode == "python":
        env["SYMALIAS_NATIVE_READER"] = "0"
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        r = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                "--collect-atstart=no",
                "--toggle-collect=*RootGuardManager::check_nopybind*",
                sys.executable,
                "-c",
                CHILD,
                mode,
                workload,
                str(a.iters),
                str(a.params),
            ],
            capture_output=True,
            text=True,
            env=env,
        )
        if r.returncode != 0:
            raise SystemExit(f"{workload} {mode} failed:\n{r.stderr[-3000:]}")
        with open(out) as f:
            text = f.read()
    m = re.search(r"^summary:\s+(\d+)", text, re.M) or re.search(r"^totals:\s+(\d+)", text, re.M)
    if m is None:
        raise SystemExit("no totals in the callgrind output")
    return int(m.group(1))


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("workloads", nargs="*", default=["small", "sgd"])
    p.add_argument("--iters", type=int, default=1000)
    p.add_argument("--params", type=int, default=30)
    p.add_argument("--python", action="store_true", help="also installed with the native reader off")
    a = p.parse_args()
    modes = ["stock", "installed"] + (["python"] if a.python else [])
    print(f"{'workload':9} " + " ".join(f"{m + ' Ir/eval':>18}" for m in modes) + f" {'added':>9}")
    for w in a.workloads:
        per = {m: count(m, w, a) / a.iters for m in modes}
        cells = " ".join(f"{per[m]:>18,.0f}" for m in modes)
        print(f"{w:9} {cells} {per['installed'] - per['stock']:>+9,.0f}", flush=True)


if __name__ == "__main__":
    main()
