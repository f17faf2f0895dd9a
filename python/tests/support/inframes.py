"""Random differential testing of aliasing *inside* the graph (issue 48).

Each seed makes one program (its source is the reproducer) over two input
buffers ``x`` and ``w``: views of them and of buffers the program makes
(``t = x * 1``), ``slice_scatter``, in-place ops (some between two views
that may overlap), ``clone``, custom ops that mutate one argument and read
another (``symalias_in::add_read``, ``symalias_in::mul_read``),
``torch.cond`` whose branches do the same, later mutations and reads. The
program runs eagerly and compiled (the seed picks ``aot_eager`` or
``inductor``, static or dynamic); the outcome compares outputs and every
input's bytes, and an error raised by one side only:

* ``right``: equal, or both raised;
* ``wrong``: compiled differs from eager;
* ``answered``: eager raised, compiled returned;
* ``refused``: compiled raised, eager returned.

``python inframes.py N [--start S] [--jobs J]`` runs seeds ``S..S+N`` with
symalias installed and stock, in ``J`` worker processes, and lists the
seeds whose installed outcome is not ``right`` -- apart, those stock gets
wrong the same way (torch's, not symalias's). The test suite runs a fixed
smoke subset (``test_torch_inside.py``).
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from typing import Any

import torch

N = 12


@torch.library.custom_op("symalias_in::add_read", mutates_args=("a",))
def add_read(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Writes ``a``, then reads ``b``."""
    a.add_(1)
    return b * 2


@add_read.register_fake
def _(a, b):
    return torch.empty_like(b)


@torch.library.custom_op("symalias_in::mul_read", mutates_args=("a",))
def mul_read(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Reads ``b``, writes ``a``, reads ``b`` again."""
    s = b.sum()
    a.mul_(2)
    return b + s


@mul_read.register_fake
def _(a, b):
    return torch.empty_like(b)


def branch(a, b):
    """A ``torch.cond`` branch: writes ``a``, reads ``b``."""
    a.add_(1)
    return b.clone()


@dataclass
class Frame:
    seed: int
    source: str
    backend: str
    dynamic: bool
    cond: bool


class _Gen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        # name -> length of a 1-d float tensor
        self.tensors: dict[str, int] = {"x": N, "w": N}
        self.results: list[str] = []
        self.k = 0
        self.cond = False

    def fresh(self, prefix: str) -> str:
        self.k += 1
        return f"{prefix}{self.k}"

    def pick(self) -> tuple[str, int]:
        name = self.rng.choice(sorted(self.tensors))
        return name, self.tensors[name]

    def view(self) -> tuple[str, int]:
        base, n = self.pick()
        if n < 2:
            return base, n
        a = self.rng.randrange(0, n - 1)
        b = self.rng.randrange(a + 1, n + 1)
        name = self.fresh("v")
        self.lines.append(f"{name} = {base}[{a}:{b}]")
        self.tensors[name] = b - a
        return name, b - a

    def view_of_len(self, m: int) -> str | None:
        """A new slice of length ``m`` of some tensor long enough."""
        bases = [(b, n) for b, n in sorted(self.tensors.items()) if n >= m]
        if not bases:
            return None
        base, n = self.rng.choice(bases)
        a = self.rng.randrange(0, n - m + 1)
        name = self.fresh("v")
        self.lines.append(f"{name} = {base}[{a}:{a + m}]")
        self.tensors[name] = m
        return name

    def step(self) -> None:
        r = self.rng.random()
        if r < 0.12:
            name = self.fresh("t")
            src = self.rng.choice(["x", "w"])
            self.lines.append(f"{name} = {src} * 1")
            self.tensors[name] = N
        elif r < 0.25:
            v, n = self.view()
            op = self.rng.choice(["add_(1)", "mul_(2)", "zero_()", "clamp_(min=3)", "sub_(0.5)"])
            self.lines.append(f"{v}.{op}")
        elif r < 0.37:
            base, n = self.pick()
            if n < 2:
                return
            a = self.rng.randrange(0, n - 1)
            b = self.rng.randrange(a + 1, n + 1)
            name = self.fresh("s")
            self.lines.append(f"{name} = torch.slice_scatter({base}, torch.full(({b - a},), 9.0), 0, {a}, {b})")
            self.tensors[name] = n
            self.results.append(name)
        elif r < 0.50:
            # two views of one length: in place, maybe overlapping
            v, n = self.view()
            u = self.view_of_len(n)
            if u is None:
                return
            op = self.rng.choice(["add_", "copy_", "mul_"])
            self.lines.append(f"{v}.{op}({u})")
        elif r < 0.58:
            v, n = self.view()
            idx = sorted({self.rng.randrange(n) for _ in range(2)})
            self.lines.append(f"{v}.index_fill_(0, torch.tensor({idx}), -1.0)")
        elif r < 0.68:
            v, _n = self.view()
            name = self.fresh("c")
            self.lines.append(f"{name} = {v}.clone()")
            self.results.append(name)
        elif r < 0.82:
            a, _na = self.view()
            b, _nb = self.view()
            op = self.rng.choice(["add_read", "mul_read"])
            name = self.fresh("r")
            self.lines.append(f"{name} = {op}({a}, {b})")
            self.results.append(name)
        elif r < 0.88:
            a, _na = self.view()
            b, _nb = self.view()
            name = self.fresh("r")
            self.lines.append(f"{name} = torch.cond({a}.sum() > 0, branch, branch, ({a}, {b}))")
            self.results.append(name)
            self.cond = True
        else:
            v, _n = self.view()
            name = self.fresh("o")
            self.lines.append(f"{name} = {v} * 1")
            self.results.append(name)


def make_frame(seed: int) -> Frame:
    rng = random.Random(seed)
    g = _Gen(rng)
    for _ in range(rng.randrange(3, 9)):
        g.step()
    # a later read of what the program made, and of an input
    if g.results:
        g.lines.append(f"out = ({', '.join(g.results[-3:])},)")
    else:
        g.lines.append("out = ()")
    backend = rng.choice(["aot_eager", "inductor"])
    dynamic = rng.random() < 0.4
    body = "\n".join("    " + ln for ln in [*g.lines, "return out + (x * 1, w * 1)"])
    return Frame(seed, f"def prog(x, w):\n{body}\n", backend, dynamic, g.cond)


def _program(frame: Frame) -> Any:
    scope: dict[str, Any] = {"torch": torch, "add_read": add_read, "mul_read": mul_read, "branch": branch}
    exec(compile(frame.source, f"<inframe {frame.seed}>", "exec"), scope)
    return scope["prog"]


def _inputs() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.arange(float(N)) - 3, torch.arange(float(N)) * 0.5


def _call(fn: Any, args: tuple[Any, ...], no_grad: bool) -> tuple[Any, str | None]:
    try:
        with torch.no_grad() if no_grad else torch.enable_grad():
            return fn(*args), None
    except Exception as e:
        return None, f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"


def _same(a: Any, b: Any) -> bool:
    if len(a) != len(b):
        return False
    return all(torch.equal(p, q) for p, q in zip(a, b))


def run_frame(frame: Frame, *, install: bool) -> tuple[str, str]:
    """(outcome, detail) of one frame, installed or stock."""
    import symalias.torch as st

    torch._dynamo.reset()
    st.uninstall()
    if install:
        st.install()
    try:
        prog = _program(frame)
        eager_in, comp_in = _inputs(), _inputs()
        want, eager_err = _call(prog, eager_in, frame.cond)
        compiled = torch.compile(prog, backend=frame.backend, dynamic=frame.dynamic)
        got, comp_err = _call(compiled, comp_in, frame.cond)
    finally:
        st.uninstall()
    if eager_err and comp_err:
        return "right", f"both raised: {eager_err[:80]}"
    if eager_err:
        return "answered", f"eager raised {eager_err[:100]}; compiled returned"
    if comp_err:
        return "refused", f"compiled raised {comp_err[:200]}"
    same_out = _same(got, want)
    same_in = all(torch.equal(p, q) for p, q in zip(comp_in, eager_in))
    if same_out and same_in:
        return "right", ""
    return "wrong", f"outputs {'equal' if same_out else 'differ'}, inputs {'equal' if same_in else 'differ'}"


def _worker(seeds: list[int]) -> None:
    import warnings

    warnings.filterwarnings("ignore")
    import logging

    logging.getLogger("symalias.torch").setLevel(logging.ERROR)
    import symalias.torch as st

    for s in seeds:
        f = make_frame(s)
        out: dict[str, Any] = {"seed": s, "backend": f.backend, "dynamic": f.dynamic}
        for mode, install in (("installed", True), ("stock", False)):
            out[mode] = run_frame(f, install=install)
            if install:
                out["touched"] = touched(st.stats)
        print(json.dumps(out), flush=True)


#: The counters of symalias's fixes inside the graph a frame can touch.
FIXES = ("noops_kept", "inline_protected", "reinplace_protected", "functional_rereads", "partial_overlap_errors")


def touched(stats: Any) -> list[str]:
    """The fixes (and eager fallbacks, by class) the last installed run
    used: ``install()`` resets the counters, so they are that frame's."""
    out = [k for k in FIXES if getattr(stats, k)]
    out += [f"eager:{k}" for k in sorted(stats.fallback_kinds)]
    return out


def main(argv: list[str]) -> int:
    import subprocess

    if argv and argv[0] == "--worker":
        _worker([int(s) for s in argv[1].split(",")])
        return 0
    n = int(argv[0])
    start = int(argv[argv.index("--start") + 1]) if "--start" in argv else 0
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
    seeds = list(range(start, start + n))
    chunks = [seeds[i::jobs] for i in range(jobs)]
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", ",".join(map(str, c))],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for c in chunks
        if c
    ]
    rows = []
    for p in procs:
        assert p.stdout is not None
        for line in p.stdout:
            if line.startswith("{"):
                rows.append(json.loads(line))
        p.wait()
    rows.sort(key=lambda r: r["seed"])
    counts: dict[str, dict[str, int]] = {"installed": {}, "stock": {}}
    for r in rows:
        for mode in counts:
            o = r[mode][0]
            counts[mode][o] = counts[mode].get(o, 0) + 1
    print(f"{len(rows)} programs of {n}: installed {counts['installed']}, stock {counts['stock']}")
    for r in rows:
        ours, theirs = r["installed"], r["stock"]
        if ours[0] != "right":
            shared = " (stock: the same)" if theirs[0] == ours[0] else f" (stock: {theirs[0]})"
            print(f"installed {ours[0]}: seed {r['seed']} {r['backend']} dynamic={r['dynamic']}{shared}: {ours[1]}")
    uses: dict[str, int] = {}
    for r in rows:
        for k in r.get("touched", []):
            uses[k] = uses.get(k, 0) + 1
    print("frames each fix touched (installed):", json.dumps(uses, sort_keys=True))
    for r in rows:
        if r["stock"][0] != "right" and r["installed"][0] == "right":
            print(f"stock {r['stock'][0]}, fixed: seed {r['seed']} {r['backend']} dynamic={r['dynamic']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
