"""Random differential testing of torch.compile on aliasing frames.

A *frame* is a straight-line function of tensors that are views of a few
buffers, each buffer a typed window over a raw byte storage. Frame ``seed``
is fully determined by its seed: its buffers (dtype, length), its argument
views (random chains of slicing with steps, select, transpose, unfold,
diagonal, ``as_strided`` overlapping or not, ``view(dtype)`` across
itemsizes, chunk/split, read-only ``expand``, the same object twice, equal
but distinct views), its body (in-place and out-of-place ops, outputs that
are inputs or views of them, metadata mutations) and its calls. Every call
places the buffers in storages anew -- an *arrangement*: which storage each
buffer lives in and at which byte -- so the second call changes the
aliasing pattern (disjoint buffers made to overlap, overlapping ones split,
shifted) while every view keeps its sizes and strides. In autograd frames
the buffers are windows of non-leaf bases over leaves that require grad.

The oracle is eager torch on identical copies: outputs (values, dtypes,
shapes, and for outputs eager returns as views of an input: the same input,
strides and offset), every storage's bytes, the arguments' metadata, and
the leaves' gradients (no gradient, ``None``, equals zeros: a compiled
graph that mutates a view of a leaf its loss does not reach gives zeros,
stock alike). A body is generated statement by statement against
a live eager sample, so eager runs every frame without raising (a later
call whose arrangement makes eager raise is not compared).

Used by ``test_torch_random.py`` (a fixed smoke set in CI) and as a script
for long runs, installed or stock::

    python python/tests/support/randframes.py --seeds 0:2000 [--stock] [--jobs 2]

which prints one line per frame that is not right, and a summary by
outcome and by pattern.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import traceback
from collections import Counter
from typing import Any

import torch

# Buffer dtypes and their weights; the values written are small integers,
# exact in every dtype, so float ops stay exact where eager's are.
DTYPES = [
    (torch.float32, 5),
    (torch.float16, 2),
    (torch.bfloat16, 2),
    (torch.float64, 1),
    (torch.int32, 2),
    (torch.int64, 2),
    (torch.int16, 1),
    (torch.uint8, 1),
    (torch.complex64, 1),
]
VIEW_DTYPES = [d for d, _ in DTYPES]
FLOAT = (torch.float32, torch.float64)
ALIGN = 16  # every buffer starts at a multiple of 16 bytes


@dataclasses.dataclass
class Buffer:
    dtype: Any
    numel: int


@dataclasses.dataclass
class Arg:
    """An argument: a chain of view steps from buffer ``buf``, or the same
    object as argument ``same``."""

    buf: int
    steps: list[tuple[Any, ...]]
    same: int | None = None
    read_only: bool = False


@dataclasses.dataclass
class Frame:
    seed: int
    buffers: list[Buffer]
    args: list[Arg]
    source: str
    arrangements: list[list[tuple[int, int]]]  # per call: (storage, byte offset) per buffer
    grad: bool
    backend: str
    dynamic: bool
    pattern: str


# ----------------------------------------------------------------- views


def apply_step(t: Any, step: tuple[Any, ...]) -> Any:
    op, *p = step
    if op == "slice":
        dim, start, stop, stride = p
        return t[(slice(None),) * dim + (slice(start, stop, stride),)]
    if op == "select":
        return t.select(p[0], p[1])
    if op == "transpose":
        return t.transpose(p[0], p[1])
    if op == "unfold":
        return t.unfold(p[0], p[1], p[2])
    if op == "diagonal":
        return t.diagonal(p[0])
    if op == "as_strided":
        return t.as_strided(p[0], p[1], t.storage_offset() + p[2])
    if op == "view_dtype":
        return t.view(p[0])
    if op == "reshape":
        return t.view(p[0])
    if op == "chunk":
        return t.chunk(p[0], p[1])[p[2]]
    if op == "split":
        return t.split(p[0], p[1])[p[2]]
    if op == "expand":
        return t.unsqueeze(0).expand(p[0], *t.shape)
    raise ValueError(op)


#: View steps by weight (a kind listed twice is picked twice as often).
STEP_KINDS = [
    *("slice", "slice", "select", "transpose", "unfold", "diagonal", "as_strided", "as_strided"),
    *("view_dtype", "view_dtype", "reshape", "chunk", "split", "expand"),
]


def _as_strided_step(rng: random.Random, t: Any) -> tuple[Any, ...] | None:
    """Within the storage from the view's offset on; overlapping (a stride
    below the inner extent) or not."""
    room = t.untyped_storage().nbytes() // t.element_size() - t.storage_offset()
    rank = rng.randint(1, 2)
    sizes = [rng.randint(1, 4) for _ in range(rank)]
    inner = rng.choice([1, 1, 2])
    strides = [inner] if rank == 1 else [rng.choice([1, sizes[1] * inner, sizes[1] * inner + 1]), inner]
    extent = sum((s - 1) * st for s, st in zip(sizes, strides)) + 1
    if extent > room:
        return None
    return ("as_strided", sizes, strides, rng.randrange(room - extent + 1))


def _reshape_step(rng: random.Random, d: int, n: int) -> tuple[Any, ...] | None:
    if d != 1 or n < 4:
        return None
    rows = rng.choice([r for r in (2, 3, 4) if n % r == 0] or [1])
    return ("reshape", (rows, n // rows))


def _pieces_step(rng: random.Random, t: Any, op: str, dim: int, n: int) -> tuple[Any, ...] | None:
    if not n:
        return None
    k = rng.randint(1, min(n, 3))
    pieces = len(t.chunk(k, dim)) if op == "chunk" else -(-n // k)
    return (op, k, dim, rng.randrange(pieces))


def _strided_step(rng: random.Random, op: str, d: int, dim: int, n: int) -> tuple[Any, ...] | None:
    """The steps that read only the view's rank and one dimension's size."""
    if op == "slice":
        start = rng.randrange(n + 1)
        stop = rng.randrange(start, n + 1)
        return ("slice", dim, start, stop, rng.choice([1, 1, 2, 3]))
    if op == "select":
        return ("select", dim, rng.randrange(n)) if n else None
    if op == "transpose":
        return ("transpose", 0, d - 1) if d >= 2 else None
    if op == "unfold":
        size = rng.randint(1, max(1, min(n, 4)))
        return ("unfold", dim, size, rng.randint(1, 3)) if n else None
    if op == "diagonal":
        return ("diagonal", rng.randint(-1, 1)) if d >= 2 else None
    if op == "expand":
        return ("expand", rng.randint(2, 3)) if d <= 2 else None
    return None


def random_step(rng: random.Random, t: Any) -> tuple[Any, ...] | None:
    """One view step that applies to ``t`` (None when the pick does not)."""
    d = t.dim()
    op = rng.choice(STEP_KINDS)
    if op in ("slice", "select", "unfold", "chunk", "split") and d == 0:
        return None
    dim = rng.randrange(d) if d else 0
    n = t.shape[dim] if d else 0
    if op == "as_strided":
        return _as_strided_step(rng, t)
    if op == "view_dtype":
        return ("view_dtype", rng.choice(VIEW_DTYPES))
    if op == "reshape":
        return _reshape_step(rng, d, n)
    if op in ("chunk", "split"):
        return _pieces_step(rng, t, op, dim, n)
    return _strided_step(rng, op, d, dim, n)


def random_arg(rng: random.Random, buffers: list[Any], k: int, args: list[Arg], made: list[Any]) -> Arg:
    if made and rng.random() < 0.12:
        j = rng.randrange(len(made))
        if rng.random() < 0.5:
            return Arg(args[j].buf, list(args[j].steps), same=j, read_only=args[j].read_only)
        return Arg(args[j].buf, list(args[j].steps), read_only=args[j].read_only)  # equal, distinct
    buf = rng.randrange(len(buffers))
    t = buffers[buf]
    steps: list[tuple[Any, ...]] = []
    read_only = False
    for _ in range(rng.randint(0, 3)):
        step = random_step(rng, t)
        if step is None:
            continue
        try:
            u = apply_step(t, step)
        except (RuntimeError, IndexError, ValueError):
            continue
        steps.append(step)
        read_only |= step[0] == "expand"
        t = u
    return Arg(buf, steps, read_only=read_only)


def build_args(frame_args: list[Arg], buffers: list[Any]) -> list[Any]:
    out: list[Any] = []
    for a in frame_args:
        if a.same is not None:
            out.append(out[a.same])
            continue
        t = buffers[a.buf]
        for s in a.steps:
            t = apply_step(t, s)
        out.append(t)
    return out


# ------------------------------------------------------------- storages


def fill_values(t: Any, salt: int) -> None:
    vals = (torch.arange(t.numel()) * 5 + salt) % 13
    if t.dtype == torch.complex64:
        t.copy_(torch.complex(vals.float(), (vals % 3).float()))
    else:
        t.copy_(vals.to(t.dtype))


def place(bufs: list[Buffer], arrangement: list[tuple[int, int]], grad: bool) -> tuple[list[Any], list[Any], list[Any]]:
    """The buffers placed in storages: (buffers, storages' raw tensors, leaves)."""
    ends: dict[int, int] = {}
    for b, (s, off) in zip(bufs, arrangement):
        ends[s] = max(ends.get(s, 0), off + b.numel * b.dtype.itemsize)
    raws: dict[int, Any] = {}
    leaves = []
    for s in sorted(ends):
        if grad:
            dt = bufs[0].dtype
            leaf = torch.zeros(ends[s] // dt.itemsize + 4, dtype=dt)
            fill_values(leaf, s)
            leaf.requires_grad_()
            leaves.append(leaf)
            raws[s] = leaf * 1
        else:
            raw = torch.zeros(ends[s] + ALIGN, dtype=torch.uint8)
            raws[s] = raw
    out = []
    for k, (b, (s, off)) in enumerate(zip(bufs, arrangement)):
        raw = raws[s]
        if grad:
            out.append(raw[off // b.dtype.itemsize : off // b.dtype.itemsize + b.numel])
            continue
        t = torch.empty((0,), dtype=b.dtype)
        t.set_(raw.untyped_storage(), off // b.dtype.itemsize, (b.numel,))
        fill_values(t, k)
        out.append(t)
    return out, [raws[s] for s in sorted(raws)], leaves


def random_arrangement(rng: random.Random, bufs: list[Buffer]) -> list[tuple[int, int]]:
    """Each buffer in storage 0 or a storage of its own, at a random aligned byte."""
    out = []
    for k, b in enumerate(bufs):
        shared = k == 0 or rng.random() < 0.6
        span = b.numel * b.dtype.itemsize
        out.append((0 if shared else k, ALIGN * rng.randint(0, max(1, span // ALIGN))))
    return out


def second_arrangement(rng: random.Random, bufs: list[Buffer], first: list[tuple[int, int]]) -> tuple[str, Any]:
    """The second call's arrangement and the name of the change."""
    kinds = ["split", "merge", "shift"] if len(bufs) > 1 else ["shift", "same"]
    kind = rng.choice(kinds)
    if kind == "split":
        return kind, [(k, 0) for k in range(len(bufs))]
    if kind == "merge":
        return kind, [(0, ALIGN * rng.randint(0, 2)) for _ in bufs]
    if kind == "shift":
        return kind, [(s, off + ALIGN * rng.randint(0, 2)) for s, off in first]
    return kind, list(first)


# ----------------------------------------------------------------- bodies


def _scalar(rng: random.Random, t: Any) -> str:
    return str(rng.randint(1, 3))


def random_body(rng: random.Random, args: list[Any], frame_args: list[Arg], grad: bool) -> list[str]:
    """Statements over ``a0``.. that eager runs on ``args`` (checked as made)."""
    env: dict[str, Any] = {f"a{i}": a for i, a in enumerate(args)}
    mutable = {f"a{i}" for i, a in enumerate(frame_args) if not a.read_only}
    lines: list[str] = []
    temps = 0
    for _ in range(rng.randint(2, 6)):
        names = list(env)
        x = rng.choice(names)
        y = rng.choice(names)
        kind = rng.random()
        if kind < 0.45 and x in mutable:
            op = rng.choice(["add_", "mul_", "zero_", "fill_", "copy_", "add_y", "t_", "unsqueeze_"])
            if op in ("add_", "mul_", "fill_"):
                stmt = f"{x}.{op}({_scalar(rng, env[x])})"
            elif op == "zero_":
                stmt = f"{x}.zero_()"
            elif op == "copy_":
                stmt = f"{x}.copy_({y})"
            elif op == "add_y":
                stmt = f"{x}.add_({y})"
            elif op == "t_":
                stmt = f"{x}.t_()"
            else:
                stmt = f"{x}.unsqueeze_(0)"
        else:
            op = rng.choice(["mul", "sum", "add", "clone", "index", "t", "reshape", "neg"])
            name = f"t{temps}"
            expr = {
                "mul": f"{x} * 2",
                "sum": f"{x}.sum()",
                "add": f"{x} + {y}",
                "clone": f"{x}.clone()",
                "index": f"{x}[0]",
                "t": f"{x}.t()",
                "reshape": f"{x}.reshape(-1)",
                "neg": f"{x} * -1",
            }[op]
            stmt = f"{name} = {expr}"
        trial = dict(env)
        try:
            with _quiet():
                exec(stmt, {"torch": torch}, trial)
        except Exception:
            continue
        if any(isinstance(v, torch.Tensor) and v.is_complex() and grad for v in trial.values()):
            continue
        env = trial
        lines.append(stmt)
        if stmt.startswith("t"):
            temps += 1
    outs = [n for n in env if n.startswith("t")]
    outs += [n for n in env if n.startswith("a") and rng.random() < 0.2]
    rng.shuffle(outs)
    lines.append(f"return ({', '.join(outs)},)" if outs else "return None")
    return lines


class _quiet:
    def __enter__(self) -> None:
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc: Any) -> None:
        self._w.__exit__(*exc)


def make_frame(seed: int) -> Frame:
    rng = random.Random(seed)
    grad = rng.random() < 0.2
    if grad:
        dt = rng.choice(FLOAT)
        bufs = [Buffer(dt, rng.randint(12, 40)) for _ in range(rng.randint(1, 2))]
    else:
        bufs = [
            Buffer(rng.choices([d for d, _ in DTYPES], [w for _, w in DTYPES])[0], rng.randint(12, 40))
            for _ in range(rng.randint(1, 2))
        ]
    first = random_arrangement(rng, bufs)
    pattern, second = second_arrangement(rng, bufs, first)
    for _ in range(20):
        sample, _, _ = place(bufs, first, grad)
        fargs: list[Arg] = []
        made: list[Any] = []
        for k in range(rng.randint(2, 3)):
            a = random_arg(rng, sample, k, fargs, made)
            fargs.append(a)
            made = build_args(fargs, sample)
        lines = random_body(rng, made, fargs, grad)
        if any(not ln.startswith(("t", "return")) for ln in lines):
            break  # some input is mutated: an aliasing frame
    params = ", ".join(f"a{i}" for i in range(len(fargs)))
    source = f"def frame({params}):\n" + "".join(f"    {ln}\n" for ln in lines)
    return Frame(
        seed=seed,
        buffers=bufs,
        args=fargs,
        source=source,
        arrangements=[first, second],
        grad=grad,
        backend=rng.choice(["aot_eager", "inductor"]),
        dynamic=rng.random() < 0.5,
        pattern=pattern,
    )


def compile_source(frame: Frame) -> Any:
    scope: dict[str, Any] = {"torch": torch}
    code = compile(frame.source, f"<randframe {frame.seed}>", "exec")
    exec(code, scope)
    return scope["frame"]


# ----------------------------------------------------------------- oracle


def _alias_of(out: Any, args: list[Any]) -> int | None:
    if not isinstance(out, torch.Tensor):
        return None
    for i, a in enumerate(args):
        if out is a:
            return i
    for i, a in enumerate(args):
        if out.untyped_storage().data_ptr() == a.untyped_storage().data_ptr() and out.numel() and a.numel():
            return -1 - i
    return None


def _close(got: Any, want: Any) -> bool:
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.is_floating_point or got.dtype.is_complex:
        return bool(torch.allclose(got.detach(), want.detach(), rtol=1e-2, atol=1e-2, equal_nan=True))
    return bool(torch.equal(got, want))


def _bytes_equal(g: Any, w: Any) -> bool:
    return bool(torch.equal(g.detach().view(torch.uint8), w.detach().view(torch.uint8)))


def _storage_close(g: Any, w: Any, bufs: list[Buffer]) -> bool:
    if _bytes_equal(g, w):
        return True
    # NaN payloads and float rounding: the storage read in each buffer's dtype.
    gb, wb = g.detach().view(torch.uint8), w.detach().view(torch.uint8)
    for b in bufs:
        n = (gb.numel() // b.dtype.itemsize) * b.dtype.itemsize
        if _close(gb[:n].view(b.dtype), wb[:n].view(b.dtype)):
            return True
    return False


def compare(got: Any, want: Any, args_c: list[Any], args_e: list[Any]) -> str | None:
    """Why the compiled call's results differ from eager's (None: equal)."""
    gs = got if isinstance(got, tuple) else (got,)
    ws = want if isinstance(want, tuple) else (want,)
    if len(gs) != len(ws):
        return f"{len(gs)} outputs, eager {len(ws)}"
    for k, (g, w) in enumerate(zip(gs, ws)):
        if isinstance(w, torch.Tensor) != isinstance(g, torch.Tensor):
            return f"output {k}: {type(g).__name__}, eager {type(w).__name__}"
        if not isinstance(w, torch.Tensor):
            continue
        if not _close(g, w):
            return f"output {k}: {g.dtype} {tuple(g.shape)} differs from eager's {w.dtype} {tuple(w.shape)}"
        alias = _alias_of(w, args_e)
        if alias is not None:
            if _alias_of(g, args_c) != alias:
                return f"output {k} aliases input {alias} in eager, {_alias_of(g, args_c)} compiled"
            if w.numel() and (g.stride() != w.stride() or g.storage_offset() != w.storage_offset()):
                return (
                    f"output {k}: strides {g.stride()} offset {g.storage_offset()}, "
                    f"eager {w.stride()} offset {w.storage_offset()}"
                )
    for i, (g, w) in enumerate(zip(args_c, args_e)):
        if g.shape != w.shape or g.stride() != w.stride() or g.storage_offset() != w.storage_offset():
            return (
                f"input {i}: metadata {tuple(g.shape)} {g.stride()} differs from eager's {tuple(w.shape)} {w.stride()}"
            )
    return None


def run_frame(frame: Frame, *, install: bool) -> tuple[str, str]:
    """(outcome, detail): ``right``, ``wrong``, ``error`` (compiled raised,
    eager did not) or ``skipped`` (eager raised on the first call)."""
    fn = compile_source(frame)
    torch._dynamo.reset()
    if install:
        import symalias.torch

        symalias.torch.install()
    elif "symalias.torch" in sys.modules:
        sys.modules["symalias.torch"].uninstall()
    compiled = torch.compile(fn, backend=frame.backend, dynamic=frame.dynamic)
    for call, arrangement in enumerate(frame.arrangements):
        bufs_e, raws_e, leaves_e = place(frame.buffers, arrangement, frame.grad)
        bufs_c, raws_c, leaves_c = place(frame.buffers, arrangement, frame.grad)
        try:
            args_e = build_args(frame.args, bufs_e)
            with _quiet():
                want = fn(*args_e)
        except Exception as e:
            return ("skipped", f"eager raised {type(e).__name__}") if call == 0 else ("right", "")
        args_c = build_args(frame.args, bufs_c)
        try:
            with _quiet():
                got = compiled(*args_c)
        except Exception as e:
            line = (str(e).strip().splitlines() or [""])[0][:200]
            return "error", f"call {call}: {type(e).__name__}: {line}"
        why = compare(got, want, args_c, args_e)
        if why is None:
            for s, (g, w) in enumerate(zip(raws_c, raws_e)):
                if not _storage_close(g, w, frame.buffers):
                    why = f"storage {s} differs from eager's"
                    break
        if why is None and frame.grad:
            why = _grads(got, want, leaves_c, leaves_e)
        if why is not None:
            return "wrong", f"call {call}: {why}"
    return "right", ""


def _grads(got: Any, want: Any, leaves_c: list[Any], leaves_e: list[Any]) -> str | None:
    def loss(outs: Any) -> Any:
        outs = outs if isinstance(outs, tuple) else (outs,)
        ts = [o.sum() for o in outs if isinstance(o, torch.Tensor) and o.requires_grad]
        return sum(ts) if ts else None

    try:
        le = loss(want)
        if le is None:
            return None
        le.backward()
    except Exception:
        return None  # eager cannot differentiate it: nothing to compare
    try:
        lc = loss(got)
        lc.backward()
    except Exception as e:
        return f"backward raised {type(e).__name__}: {(str(e).splitlines() or [''])[0][:160]}"
    for k, (g, w) in enumerate(zip(leaves_c, leaves_e)):
        # A leaf eager's loss does not reach has no grad (None); a compiled
        # graph that mutates a view of it gives zeros (stock alike): equal.
        gg = g.grad if g.grad is not None else torch.zeros_like(g)
        ww = w.grad if w.grad is not None else torch.zeros_like(w)
        if not _close(gg, ww):
            return f"grad of leaf {k} differs from eager's"
    return None


def describe(frame: Frame) -> str:
    bufs = ", ".join(f"{str(b.dtype).replace('torch.', '')}[{b.numel}]" for b in frame.buffers)
    args = "; ".join(
        f"a{i}=" + (f"a{a.same}" if a.same is not None else f"b{a.buf}{a.steps}") for i, a in enumerate(frame.args)
    )
    return (
        f"seed {frame.seed} ({frame.backend}, {'dynamic' if frame.dynamic else 'static'}, "
        f"{'grad, ' if frame.grad else ''}{frame.pattern}: {frame.arrangements})\n"
        f"  buffers {bufs}\n  {args}\n" + "".join(f"  | {ln}\n" for ln in frame.source.splitlines())
    )


def _work(seeds: list[int], install: bool) -> None:
    """Worker: runs ``seeds``, one JSON line per frame on stdout (a ``start``
    line first, so the parent knows which frame crashed the process)."""
    import logging

    logging.getLogger("symalias.torch").setLevel(logging.ERROR)
    logging.getLogger("torch").setLevel(logging.ERROR)
    for seed in seeds:
        print(json.dumps({"start": seed}), flush=True)
        frame = make_frame(seed)
        try:
            outcome, detail = run_frame(frame, install=install)
        except Exception as e:  # the harness itself
            outcome, detail = "error", f"harness: {type(e).__name__}: {e} {traceback.format_exc()[-300:]}"
        print(json.dumps({"seed": seed, "pattern": frame.pattern, "outcome": outcome, "detail": detail}), flush=True)


def run_seeds(seeds: list[int], *, install: bool, jobs: int = 1) -> list[dict[str, Any]]:
    """Runs frames in ``jobs`` worker processes (a process that crashes --
    torch can corrupt its heap -- is replaced; its frame is a ``crash``).
    One result per seed, in seed order."""
    import os
    import subprocess
    import threading

    results: dict[int, dict[str, Any]] = {}
    lock = threading.Lock()
    queue = list(seeds)

    def worker() -> None:
        while True:
            with lock:
                mine = queue[:25]
                del queue[:25]
            if not mine:
                return
            while mine:
                cmd = [sys.executable, os.path.abspath(__file__), "--worker", ",".join(map(str, mine))]
                if not install:
                    cmd.append("--stock")
                proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                started = None
                assert proc.stdout is not None
                for line in proc.stdout:
                    try:
                        doc = json.loads(line)
                    except ValueError:
                        continue
                    if "start" in doc:
                        started = doc["start"]
                        continue
                    with lock:
                        results[doc["seed"]] = doc
                    mine.remove(doc["seed"])
                    started = None
                proc.wait()
                if started is not None:
                    crash = {"seed": started, "pattern": make_frame(started).pattern, "outcome": "crash"}
                    crash["detail"] = f"the process died (exit {proc.returncode})"
                    with lock:
                        results[started] = crash
                    mine.remove(started)
                elif mine:  # died before its first frame
                    raise RuntimeError(f"worker exited {proc.returncode} before running {mine[0]}")

    threads = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [results[s] for s in seeds]


OUTCOMES = ("right", "wrong", "error", "crash", "skipped")


def _summary(results: list[dict[str, Any]]) -> None:
    """Outcomes by pattern change, then in all."""
    by_pattern: dict[str, Counter[str]] = {}
    for r in results:
        by_pattern.setdefault(r["pattern"], Counter())[r["outcome"]] += 1
    for pat, c in sorted(by_pattern.items()):
        print(f"  {pat:6} " + ", ".join(f"{c[k]} {k}" for k in OUTCOMES if c[k]))
    total: Counter[str] = Counter(r["outcome"] for r in results)
    print(f"  all    {len(results)} frames: " + ", ".join(f"{total[k]} {k}" for k in OUTCOMES))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--seeds", default="0:200", help="a range lo:hi, or comma-separated seeds")
    p.add_argument("--stock", action="store_true", help="run stock torch (symalias not installed)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument(
        "--against-stock",
        action="store_true",
        help="run installed and stock: installed's failures that stock shares (same outcome and detail) are torch's",
    )
    p.add_argument("--verbose", action="store_true", help="print each frame that is not right in full")
    p.add_argument("--json", help="also write every frame's result (and stock's) to this file")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    install = not a.stock
    if a.worker is not None:
        _work([int(x) for x in a.worker.split(",")], install)
        return 0
    if ":" in a.seeds:
        lo, hi = (int(x) for x in a.seeds.split(":"))
        seeds = list(range(lo, hi))
    else:
        seeds = [int(x) for x in a.seeds.split(",")]
    results = run_seeds(seeds, install=install, jobs=a.jobs)
    stock = run_seeds(seeds, install=False, jobs=a.jobs) if a.against_stock else None
    totals: Counter[str] = Counter(r["outcome"] for r in results)
    shared = 0
    for k, r in enumerate(results):
        if r["outcome"] in ("right", "skipped"):
            continue
        tag = ""
        if stock is not None:
            s = stock[k]
            if (s["outcome"], s.get("detail", "")) == (r["outcome"], r.get("detail", "")):
                tag, shared = " [stock: the same]", shared + 1
            else:
                tag = f" [stock: {s['outcome']}]"
        print(f"{r['outcome'].upper()} seed {r['seed']}: {r['detail']}{tag}")
        if a.verbose:
            print(describe(make_frame(r["seed"])))
    who = "stock" if a.stock else "installed"
    print(f"{who}, by pattern change:")
    _summary(results)
    if stock is not None:
        print("stock, by pattern change:")
        _summary(stock)
        bad = sum(totals[k] for k in ("wrong", "error", "crash"))
        print(f"installed, not right where stock fails the same way: {shared}; otherwise: {bad - shared}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"installed" if not a.stock else "stock": results, "stock": stock}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
