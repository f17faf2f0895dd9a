"""``symalias.shares_memory`` against ``numpy.shares_memory`` (exact, no
``max_work``), the drop-in as a user calls it: numpy arrays in, a bool out,
the Python call included. In one run, per family:

- ``documented``: numpy's documented hard instance (its docs: "takes around
  1 minute"; seconds here), timed once each (numpy first);
- generated pairs like it (``hard_pairs.instances``: co-prime,
  hidden-modulus and planted-edge pairs, ``--count`` of them at ``--scale``),
  each timed once each, numpy then symalias; "hard" are those numpy gives
  up on at ``max_work=1000``. Per family: the totals' ratio and the median
  of the ratios pair by pair;
- ``easy``: everyday pairs (slices, steps, transposes, a row against a
  column, unrelated arrays), each timed per call (best of 7 repeats of
  ``--calls`` calls, numpy and symalias alternating), overlapping or not.

Every answer is compared with numpy's; a difference is printed and fails
the run. Not a test: run it by hand,

    python python/benches/bench_arrays.py [--count 24] [--scale 1.0] [--calls 100000]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
import timeit

import numpy as np

import symalias

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "support"))
import hard_pairs as hp


def once(f, a, b) -> tuple[bool, float]:
    t = time.perf_counter()
    answer = f(a, b)
    return answer, time.perf_counter() - t


def easy_pairs() -> list[tuple[str, np.ndarray, np.ndarray]]:
    m = np.zeros((64, 64))
    v = np.zeros(1000)
    return [
        ("v, v[1:]", v, v[1:]),
        ("v[::2], v[1::2]", v[::2], v[1::2]),
        ("m[:, :2], m[1:2, :2]", m[:, :2], m[1:2, :2]),
        ("m, m.T", m, m.T),
        ("m[3], m[:, 5]", m[3], m[:, 5]),
        ("m[::2, ::3], m[1::2, ::3]", m[::2, ::3], m[1::2, ::3]),
        ("v, w (unrelated)", v, np.zeros(10)),
        ("v.view(u1)[1:9], v[0:1]", v.view(np.uint8)[1:9], v[0:1]),
    ]


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e9:.0f} ns" if seconds < 1e-6 else f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=24, help="generated pairs")
    p.add_argument("--scale", type=float, default=1.0, help="sizes of the hard family (1.0: numpy's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--calls", type=int, default=100000, help="calls per timing of an easy pair")
    a = p.parse_args()
    wrong: list[str] = []

    print("family                 pairs  numpy exact   symalias   in all  median pair")
    x, y = hp.numpy_views(hp.NUMPY_CASE)
    want, t_np = once(np.shares_memory, x, y)
    got, t_sa = once(symalias.shares_memory, x, y)
    if got != want:
        wrong.append("documented")
    print(f"{'documented':22} {1:5}  {fmt(t_np):>11}  {fmt(t_sa):>9}  {t_np / t_sa:>9.0f}x  {t_np / t_sa:>9.0f}x")

    rows: list[tuple[str, bool, float, float]] = []
    for i, (family, pair) in enumerate(hp.instances(a.seed, a.count, a.scale)):
        x, y = hp.numpy_views(pair)
        try:
            np.shares_memory(x, y, max_work=1000)
            hard = False
        except np.exceptions.TooHardError:
            hard = True
        want, t_np = once(np.shares_memory, x, y)
        got, t_sa = once(symalias.shares_memory, x, y)
        if got != want:
            wrong.append(f"generated[{i}] {family}")
        rows.append((family, hard, t_np, t_sa))

    def line(name: str, sel: list[tuple[str, bool, float, float]]) -> None:
        if not sel:
            return
        n, s = sum(r[2] for r in sel), sum(r[3] for r in sel)
        median = statistics.median(r[2] / r[3] for r in sel)
        print(f"{name:22} {len(sel):5}  {fmt(n):>11}  {fmt(s):>9}  {n / s:>9.0f}x  {median:>9.1f}x")

    for family in hp.FAMILIES:
        line(f"{family} (hard)", [r for r in rows if r[0] == family and r[1]])
    line("generated, hard", [r for r in rows if r[1]])
    line("generated, all", rows)

    print()
    head = "easy pair                       numpy      symalias   symalias / numpy   shares"
    print(f"{head}   ({a.calls} calls, best of 7)")
    worst = 0.0
    for name, x, y in easy_pairs():
        want, got = np.shares_memory(x, y), symalias.shares_memory(x, y)
        if got != want:
            wrong.append(f"easy {name}")
        t_np, t_sa = [], []
        for _ in range(7):
            t_np.append(timeit.timeit(lambda x=x, y=y: np.shares_memory(x, y), number=a.calls) / a.calls)
            t_sa.append(timeit.timeit(lambda x=x, y=y: symalias.shares_memory(x, y), number=a.calls) / a.calls)
        n, s = min(t_np), min(t_sa)
        worst = max(worst, s / n)
        print(f"{name:28} {fmt(n):>9} {fmt(s):>12} {s / n:>17.2f}x   {want!s:>6}")
    print(f"\nworst easy ratio: {worst:.2f}x (target: within 2x)")
    if wrong:
        raise SystemExit(f"answers differ from numpy's: {wrong}")


if __name__ == "__main__":
    main()
