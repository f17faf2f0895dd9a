"""Hard concrete overlap instances, side by side with numpy and z3 (issue 50).

numpy's documented instance and the families of
``python/tests/support/hard_pairs.py`` (``coprime``: numpy's shape of
case; ``residues``: built to be disjoint by a hidden modulus; ``edge``: a
planted rare overlap), as ``as_strided`` views of one int8 buffer. Per
instance, in one run, one after the other:

- numpy's exact ``shares_memory`` (no ``max_work``: the oracle),
- numpy with ``max_work=1000`` (answer or "too hard"),
- a plain z3 LIA query over the indices (``z3-solver``, the same libz3 as
  symalias; 20 s timeout),
- ``symalias.overlap`` (its ``Analyzer``: the bounded search, then the
  exact stage -- lattice reformulation, box search, z3 -- within the
  case's default 2 s limit).

Reports wrong answers against numpy, undecided ones, and per family the
median of the time ratios numpy exact / symalias and z3 / symalias (pair by
pair, the same run). "Hard" rows are those numpy's ``max_work=1000`` gives
up on.

    python python/benches/bench_hard.py [--n 24] [--seed 0] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np
import z3

import symalias

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "support"))
import hard_pairs as hp


def plain_z3(pair: hp.Pair) -> tuple[str, float]:
    """The pair as one LIA query over both views' indices."""
    s = z3.Solver()
    s.set("timeout", 20000)
    sides = []
    for v, (sizes, strides, offset) in enumerate(pair):
        xs = [z3.Int(f"v{v}_{k}") for k in range(len(sizes))]
        for x, n in zip(xs, sizes):
            s.add(x >= 0, x < n)
        sides.append(offset + z3.Sum([st * x for st, x in zip(strides, xs)]))
    s.add(sides[0] == sides[1])
    t = time.perf_counter()
    answer = s.check()
    took = time.perf_counter() - t
    if answer == z3.sat:
        return "overlap", took
    return ("disjoint" if answer == z3.unsat else "unknown"), took


def run(pair: hp.Pair) -> dict[str, object]:
    x1, x2 = hp.numpy_views(pair)
    t = time.perf_counter()
    exact = bool(np.shares_memory(x1, x2))
    numpy_s = time.perf_counter() - t
    try:
        bounded: object = bool(np.shares_memory(x1, x2, max_work=1000))
    except np.exceptions.TooHardError:
        bounded = "too hard"
    z3_answer, z3_s = plain_z3(pair)
    t = time.perf_counter()
    result = symalias.overlap(hp.tensors(pair), id="hard")
    ours_s = time.perf_counter() - t
    return {
        "exact": exact,
        "numpy_s": numpy_s,
        "bounded": bounded,
        "z3": z3_answer,
        "z3_s": z3_s,
        "ours": bool(result.overlapping),
        "ours_s": ours_s,
        "undecided": any(p.proof == "unknown" for p in result.pairs),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=24)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scale", type=float, default=1.0)
    a = p.parse_args()
    rows = [("numpy-doc", "numpy", run(hp.NUMPY_CASE))]
    rows += [(f"{f}-{i}", f, run(pair)) for i, (f, pair) in enumerate(hp.instances(a.seed, a.n, a.scale))]
    print(f"{'case':12} {'exact':>6} {'numpy s':>9} {'max_work':>9} {'z3':>9} {'z3 s':>8} {'ours':>6} {'ours s':>8}")
    for name, _, row in rows:
        mark = "?" if row["undecided"] else ""
        print(
            f"{name:12} {row['exact']!s:>6} {row['numpy_s']:9.4f} {row['bounded']!s:>9} {row['z3']!s:>9} "
            f"{row['z3_s']:8.4f} {row['ours']!s:>5}{mark:1} {row['ours_s']:8.4f}"
        )
    wrong = [n for n, _, row in rows if not row["undecided"] and row["ours"] != row["exact"]]
    undecided = [n for n, _, row in rows if row["undecided"]]
    print(f"{len(rows)} instances: wrong {len(wrong)} {wrong}, undecided {len(undecided)} {undecided}")

    def ratios(sel: list[dict[str, object]], key: str) -> str:
        rs = [float(r[key]) / float(r["ours_s"]) for r in sel]  # type: ignore[arg-type]
        return f"median {statistics.median(rs):7.2f}x (min {min(rs):.2f}x, max {max(rs):.2f}x)"

    groups = [(f, [r for _, g, r in rows if g == f]) for f in ("numpy", *hp.FAMILIES)]
    groups.append(("hard", [r for _, _, r in rows if r["bounded"] == "too hard"]))
    for name, sel in groups:
        if sel:
            z3_unknown = sum(1 for r in sel if r["z3"] == "unknown")
            print(
                f"{name:8} n={len(sel):3}  numpy exact / symalias {ratios(sel, 'numpy_s')}   "
                f"z3 / symalias {ratios(sel, 'z3_s')}  (z3 unknown {z3_unknown})"
            )


if __name__ == "__main__":
    main()
