"""Random concatenation programs for Inductor (issue 49): computed inputs
(matmuls, a reduction), one ``cat`` of some of them and of rows of a cache
(a graph input), then writes -- in place on a computed input, on the
result, on a cache row, through a custom op or an indexed assignment --
before or after the ``cat``, and reads after them. Each program is compiled
with Inductor and compared with eager: every output and the cache's bytes.

    python python/tests/support/catframes.py [--seeds 300] [--stock] [--dynamic]

prints, per seed, whether the compiled program equals eager, and a
summary; ``--stock`` runs without ``install()``.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys

import torch
import torch._inductor.config
from reinplace_frames import bump  # the suite's custom op that writes its argument

#: Computed inputs (sources): each is a buffer of its own in Inductor.
MAKERS = [
    "x @ w",
    "(x + 1) @ w",
    "torch.mm(x * 2, w).relu()",
    "(x @ w).cumsum(1)",
]


@dataclasses.dataclass
class CatFrame:
    seed: int
    source: str
    dynamic: bool


def make_frame(seed: int, dynamic: bool | None = None) -> CatFrame:
    """The program of ``seed``: ``def f(x, w, cache): ...`` returning a
    tuple of tensors."""
    r = random.Random(seed)
    lines = []
    ys = []
    for i in range(r.randint(1, 3)):
        lines.append(f"y{i} = {r.choice(MAKERS)}")
        ys.append(f"y{i}")
    parts = [y for y in ys if r.random() < 0.8] or ys[:1]
    for _ in range(r.randint(0, 2)):
        row = r.randrange(8)
        parts.insert(r.randrange(len(parts) + 1), f"cache[{row}:{row + 1}]")
    r.shuffle(parts)

    def write(result: bool) -> str:
        target = r.choice(["y", "c", "cache", "cache_set"] if result else ["y", "cache", "cache_set"])
        if target == "y" and ys:
            return f"bump({r.choice(ys)})"
        if target == "c":
            return "bump(c)" if r.random() < 0.5 else f"bump(c[{r.randrange(len(parts))}])"
        row = r.randrange(8)
        if target == "cache_set":
            return f"cache[{row}] = x[0] * {r.randint(2, 5)}"
        return f"bump(cache[{row}])"

    lines += [write(False) for _ in range(r.randint(0, 1))]
    lines.append(f"c = torch.cat([{', '.join(parts)}])")
    lines += [write(True) for _ in range(r.randint(0, 2))]
    outs = ["c"] + [f"{y} * 2" for y in ys if r.random() < 0.6]
    lines.append(f"return ({', '.join(outs)},)")
    source = "def f(x, w, cache):\n" + "".join(f"    {ln}\n" for ln in lines)
    if dynamic is None:
        dynamic = r.random() < 0.3
    return CatFrame(seed, source, dynamic)


def _inputs(seed: int) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(1, 16, generator=g), torch.randn(16, 16, generator=g), torch.randn(8, 16, generator=g))


def run_frame(frame: CatFrame) -> tuple[str, str]:
    """("right" | "wrong" | "error", detail): the frame compiled with
    Inductor against eager, outputs and the cache's bytes."""
    scope: dict[str, object] = {"torch": torch, "bump": bump}
    exec(frame.source, scope)
    fn = scope["f"]
    torch._dynamo.reset()
    want_args, got_args = _inputs(frame.seed), _inputs(frame.seed)
    want = fn(*want_args)  # type: ignore[operator]
    try:
        got = torch.compile(fn, backend="inductor", dynamic=frame.dynamic, fullgraph=True)(*got_args)
    except Exception as e:
        return "error", f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    same = all(torch.allclose(a, b, atol=1e-4) for a, b in zip(got, want))
    same = same and torch.equal(got_args[2], want_args[2])
    return ("right", "") if same else ("wrong", "outputs or cache differ")


def main() -> None:
    # Caches off for the script's own runs only (an import must not change
    # the environment that test processes hand to their children).
    torch._inductor.config.force_disable_caches = True
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, default=300)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--stock", action="store_true")
    args = p.parse_args()
    import symalias.torch as st

    (st.uninstall if args.stock else st.install)()
    counts: dict[str, int] = {}
    for seed in range(args.first, args.first + args.seeds):
        frame = make_frame(seed)
        outcome, detail = run_frame(frame)
        counts[outcome] = counts.get(outcome, 0) + 1
        print(seed, outcome, detail, flush=True)
        if outcome != "right":
            print(frame.source, flush=True)
    print("summary", "stock" if args.stock else "installed", counts)
    if not args.stock:
        print("concat_uncopied", st.stats.concat_uncopied, "concat_copied", st.stats.concat_copied)


if __name__ == "__main__":
    sys.exit(main())
