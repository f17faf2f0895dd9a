"""``symalias.compute_overlapping_tensors`` against torch's C++
``torch._C._dynamo.guards.compute_overlapping_tensors(ts, False)``, same
tensors, one process, medians of ``runs`` timings each (alternating).

Families of ``n`` views of one storage:
* column splits ``M[:, i:i+1]`` of ``M = zeros(4, n)``;
* ``x.chunk(n)`` of ``x = zeros(4 * n)``;
* unfold windows ``z.unfold(0, 4, 1)[i]`` of ``z = zeros(n + 3)``;
* interleave ``y[0::2], y[1::2]`` plus ``n - 2`` single elements of ``y = zeros(2 * n)``.

    python python/benches/bench_dropin.py [runs]
"""

import statistics
import sys
import time

import torch

import symalias

FAMILIES = {
    "column splits": lambda n: [m[:, i : i + 1] for m in [torch.zeros(4, n)] for i in range(n)],
    "chunk": lambda n: list(torch.zeros(4 * n).chunk(n)),
    "unfold windows": lambda n: [w[i] for w in [torch.zeros(n + 3).unfold(0, 4, 1)] for i in range(n)],
    "interleave": lambda n: [
        v for y in [torch.zeros(2 * n)] for v in [y[0::2], y[1::2], *[y[i : i + 1] for i in range(n - 2)]]
    ],
}


def timed(fn, ts):
    start = time.perf_counter()
    out = fn(ts)
    return time.perf_counter() - start, out


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    torch_fn = torch._C._dynamo.guards.compute_overlapping_tensors
    print(f"{'family':15s} {'n':>6s} {'torch C++':>12s} {'symalias':>12s} {'ratio':>7s}  answers")
    for name, make in FAMILIES.items():
        for n in (100, 1000, 10000):
            ts = make(n)
            assert len(ts) == n
            t_torch, t_ours = [], []
            for _ in range(runs):
                dt, theirs = timed(lambda x: torch_fn(x, False), ts)
                t_torch.append(dt)
                dt, ours = timed(symalias.compute_overlapping_tensors, ts)
                t_ours.append(dt)
            a, b = statistics.median(t_torch), statistics.median(t_ours)
            same = "same" if set(theirs) == ours else f"torch {len(theirs)}, symalias {len(ours)} overlapping"
            print(f"{name:15s} {n:6d} {a * 1e3:9.3f} ms {b * 1e3:9.3f} ms {a / b:6.1f}x  {same}")


if __name__ == "__main__":
    main()
