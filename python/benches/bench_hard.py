"""Hard concrete overlap instances, side by side with numpy (issue 50).

numpy's documented hard instance, and pairs of ``as_strided`` views of
one int8 buffer shaped like it (large, nearly co-prime strides, many
elements). Per
instance, in one run: numpy's exact ``shares_memory`` (no ``max_work``: the
oracle), numpy with ``max_work=1000``, and ``symalias.overlap`` (its
``Analyzer``: the bounded search, then the exact stage within the case's
time limit). Reports wrong answers against numpy, undecided ones, and the
time ratio numpy exact / symalias per instance (median).

    python python/benches/bench_hard.py [--n 40] [--seed 0]

numpy is always run to the end (its exact answer is the oracle).

Open (issue 50): the generated pairs are nearly all overlapping and easy
for both; a generator of *disjoint* hard instances (numpy's own is one
found by search) is still to be built, so the median ratio over them says
little -- the documented instance's row is the figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
from numpy.lib.stride_tricks import as_strided

import symalias

#: numpy's documented instance (test_mem_overlap.py), int8.
NUMPY_CASE = (((1049, 1049, 1049), (36674, 61119, 85569), 0), ((1049, 1049, 1), (12223, 12224, 1), 64023025))


def instance(r: random.Random) -> tuple[tuple[tuple[int, ...], tuple[int, ...], int], ...]:
    """numpy's shape of hard case: a dense 3-d view with large, nearly
    co-prime strides, and a 2-d view with strides ``t, t + 1`` placed near
    the end of the first's extent, where its points thin out (so that about
    half the pairs are disjoint and neither answer is found early)."""
    n = r.randint(300, 1100)
    base = r.randint(20000, 90000)
    ta = tuple(base + r.randint(0, base // 2) for _ in range(3))
    t = r.randint(base // 8, base // 2)
    m = r.randint(300, 1100)
    extent_a = sum((n - 1) * s for s in ta)
    extent_b = (m - 1) * (2 * t + 1)
    offset = extent_a - extent_b - r.randint(0, extent_a // 20)
    return (((n, n, n), ta, 0), ((m, m, 1), (t, t + 1, 1), max(0, offset)))


def run(case: tuple[tuple[tuple[int, ...], tuple[int, ...], int], ...]) -> dict[str, object]:
    (sa, ta, oa), (sb, tb, ob) = case
    end = max(o + sum((n - 1) * s for n, s in zip(sz, st)) for sz, st, o in case) + 1
    buf = np.zeros(end, dtype=np.int8)
    x1 = as_strided(buf[oa:], shape=sa, strides=ta)
    x2 = as_strided(buf[ob:], shape=sb, strides=tb)
    t = time.perf_counter()
    exact = bool(np.shares_memory(x1, x2))
    numpy_s = time.perf_counter() - t
    t = time.perf_counter()
    try:
        bounded: object = bool(np.shares_memory(x1, x2, max_work=1000))
    except np.exceptions.TooHardError:
        bounded = "too hard"
    bounded_s = time.perf_counter() - t
    tensors = [
        {"source": f"L['x{i}']", "sizes": list(sz), "strides": list(st), "storage_offset": o, "itemsize": 1}
        for i, (sz, st, o) in enumerate(case)
    ]
    t = time.perf_counter()
    result = symalias.overlap(tensors, id="hard")
    ours_s = time.perf_counter() - t
    undecided = any(p.proof == "unknown" for p in result.pairs)
    ours = bool(result.overlapping)
    return {
        "exact": exact,
        "numpy_s": numpy_s,
        "bounded": bounded,
        "bounded_s": bounded_s,
        "ours": ours,
        "ours_s": ours_s,
        "undecided": undecided,
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    r = random.Random(a.seed)
    rows = [("numpy-doc", run(NUMPY_CASE))]
    rows += [(f"gen-{i}", run(instance(r))) for i in range(a.n)]
    print(f"{'case':10} {'exact':>6} {'numpy s':>9} {'max_work':>9} {'symalias':>8} {'ours s':>8} {'ratio':>8}")
    for name, row in rows:
        ratio = float(row["numpy_s"]) / float(row["ours_s"])  # type: ignore[arg-type]
        mark = "?" if row["undecided"] else ""
        print(
            f"{name:10} {row['exact']!s:>6} {row['numpy_s']:9.4f} {row['bounded']!s:>9} "
            f"{row['ours']!s:>7}{mark:1} {row['ours_s']:8.4f} {ratio:8.2f}"
        )
    wrong = [n for n, row in rows if not row["undecided"] and row["ours"] != row["exact"]]
    undecided = [n for n, row in rows if row["undecided"]]
    too_hard = sum(1 for _, row in rows if row["bounded"] == "too hard")
    ratios = [float(row["numpy_s"]) / float(row["ours_s"]) for _, row in rows]  # type: ignore[arg-type]
    print(
        f"{len(rows)} instances ({sum(1 for _, r in rows if not r['exact'])} disjoint): wrong {len(wrong)} {wrong}, "
        f"undecided {len(undecided)} {undecided}; numpy max_work=1000 too hard on {too_hard}; "
        f"numpy exact / symalias time: median {statistics.median(ratios):.2f}x "
        f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x)"
    )


if __name__ == "__main__":
    main()
