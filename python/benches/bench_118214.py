"""The pytorch#118214 workload: ``f(*args): for a in args: a.add_(1)`` on
``torch.ones(10 * n).split(10)`` under ``torch.compile(dynamic=True)``.

Measures, in one run, for stock torch and with ``symalias.torch.install()``:
the first call (compile + run), the time spent inside AOTAutograd's
``compute_overlapping_inputs`` and, installed, the engine's share of it
(``Decision.micros``: loading and analysis in Rust). Not a test: run it by hand,

    python python/benches/bench_118214.py 100 300
"""

import argparse
import time

import torch
import torch._dynamo
from torch._functorch._aot_autograd import runtime_wrappers as rw

import symalias.torch as st


def f(*args):
    for a in args:
        a.add_(1)


def timed_decision():
    """Wraps whatever ``compute_overlapping_inputs`` is in place with a timer."""
    inner = rw.compute_overlapping_inputs
    spent = [0.0]

    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return inner(*a, **k)
        finally:
            spent[0] += time.perf_counter() - t

    rw.compute_overlapping_inputs = wrapper
    return spent, lambda: setattr(rw, "compute_overlapping_inputs", inner)


def run(n, installed, backend):
    torch._dynamo.reset()
    (st.install if installed else st.uninstall)()
    spent, restore = timed_decision()
    try:
        x = torch.ones(10 * n)
        compiled = torch.compile(f, backend=backend, dynamic=True)
        t = time.perf_counter()
        compiled(*x.split(10))
        first = time.perf_counter() - t
        ok = bool((x == 2).all())
        engine = sum(r.decision.micros for r in st.stats.reports if r.decision is not None) * 1e-6
        y = torch.ones(12 * n)
        t = time.perf_counter()
        compiled(*y.split(12))
        second = time.perf_counter() - t
        ok = ok and bool((y == 2).all())
    finally:
        restore()
        st.uninstall()
    return first, spent[0], second, ok, engine


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("views", nargs="*", type=int, default=[100, 300])
    p.add_argument("--backend", default="aot_eager")
    p.add_argument(
        "--installed-only", action="store_true", help="symalias's rows only (to compare two symalias builds)"
    )
    args = p.parse_args()
    torch.compiler.config.force_disable_caches = True
    print(f"torch {torch.__version__}, backend {args.backend}, dynamic=True")
    print(f"{'views':>6} {'':>9} {'compile+run s':>14} {'in decision s':>14} {'engine s':>9} {'2nd call s':>11} right")
    for n in args.views:
        rows = {}
        for installed in (True,) if args.installed_only else (False, True):
            rows[installed] = run(n, installed, args.backend)
            first, spent, second, ok, engine = rows[installed]
            name = "symalias" if installed else "stock"
            eng = f"{engine:>9.4f}" if installed else f"{'':>9}"
            print(f"{n:>6} {name:>9} {first:>14.3f} {spent:>14.4f} {eng} {second:>11.4f} {ok}")
        if args.installed_only:
            continue
        print(
            f"{n:>6} {'ratio':>9} {rows[False][0] / rows[True][0]:>13.1f}x "
            f"{rows[False][1] / max(rows[True][1], 1e-9):>13.0f}x"
            f"   decision / engine {rows[True][1] / max(rows[True][4], 1e-9):.2f}x"
        )


if __name__ == "__main__":
    main()
