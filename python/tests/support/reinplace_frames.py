"""Frames for Inductor's reinplace pass (issue 35), shared by
``test_torch_reinplace.py`` and ``python/benches/bench_reinplace.py``.

Each ``Frame`` is a function that mutates memory through a custom op, the
arguments it is called with (fresh on every call), and whether its mutated
arguments are disjoint for every shape (then no clone is needed). The
``Clones`` observer records, per compile, what Inductor's decomposition of
the functionalized mutations clones -- read where torch reads it
(``only_clone_these_tensors`` of ``auto_functionalized``/``_v2``), and the
in-placeable ops the pass left functional -- which torch's own
``ReinplaceCounters`` miss where a second argument of a storage is cloned
without being "attempted".
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Iterator
from typing import Any, Callable

import torch
import torch._inductor.fx_passes.post_grad as post_grad
import torch._inductor.fx_passes.reinplace as reinplace
from torch.fx.experimental.symbolic_shapes import optimization_hint

NS = "symalias_reinplace"


@torch.library.custom_op(f"{NS}::twoblocks", mutates_args=("x", "y"))
def twoblocks(x: torch.Tensor, y: torch.Tensor) -> None:
    """Writes both of its arguments."""
    x.add_(1)
    y.mul_(2)


@twoblocks.register_fake
def _twoblocks_fake(x: torch.Tensor, y: torch.Tensor) -> None:
    return None


@torch.library.custom_op(f"{NS}::bump", mutates_args=("x",))
def bump(x: torch.Tensor) -> None:
    """Writes its argument."""
    x.add_(1)


@bump.register_fake
def _bump_fake(x: torch.Tensor) -> None:
    return None


@torch.library.custom_op(f"{NS}::bump_all", mutates_args=("xs",))
def bump_all(xs: list[torch.Tensor]) -> None:
    """Writes each tensor of its list."""
    for i, x in enumerate(xs):
        x.add_(i + 1)


@bump_all.register_fake
def _bump_all_fake(xs: list[torch.Tensor]) -> None:
    return None


@torch.library.custom_op(f"{NS}::kv_update", mutates_args=("k", "v"))
def kv_update(k: torch.Tensor, v: torch.Tensor, pos: int, nk: torch.Tensor, nv: torch.Tensor) -> None:
    """A KV-cache step: row ``pos`` of K and of V written."""
    k[pos].copy_(nk)
    v[pos].copy_(nv)


@kv_update.register_fake
def _kv_update_fake(k: torch.Tensor, v: torch.Tensor, pos: int, nk: torch.Tensor, nv: torch.Tensor) -> None:
    return None


@dataclasses.dataclass
class Frame:
    """One frame of the suite: ``fn(*make())``; ``disjoint``: its mutated
    arguments are disjoint for every shape and no copy is needed (else the
    copies stock makes are needed: overlaps, the user's own clone)."""

    name: str
    fn: Callable[..., Any]
    make: Callable[[int], tuple[Any, ...]]
    disjoint: bool
    #: How many arguments the op mutates (the pass decides each).
    mutated: int
    #: Data-dependent sizes (``.item()``): Dynamo must capture scalars.
    scalars: bool = False


def _blocks_of_inputs(k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    twoblocks(k, v)
    return k.sum() + v.sum()


def _blocks_in_graph(a: torch.Tensor) -> torch.Tensor:
    buf = a * 2
    n = buf.shape[0] // 2
    twoblocks(buf[:n], buf[n:])
    return buf


class KVCache(torch.nn.Module):
    """K and V as two halves of one allocation, updated by one op."""

    def __init__(self, kv: torch.Tensor) -> None:
        super().__init__()
        self.k = kv[0]
        self.v = kv[1]

    def forward(self, nk: torch.Tensor, nv: torch.Tensor) -> torch.Tensor:
        kv_update(self.k, self.v, 1, nk, nv)
        return self.k.sum(0) + self.v.sum(0)


def _list_of_slices(x0: torch.Tensor, x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
    bump_all([x0, x1, x2])
    return x0 + x1 + x2


def _data_dependent(k: torch.Tensor, v: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    n = idx.item()
    bump(k)
    return v[:n].sum()


def _view_of_input(a: torch.Tensor) -> torch.Tensor:
    n = a.shape[0] // 2
    twoblocks(a[:n], a[n:])
    return a[1:3] * 2


def _overlapping_inputs(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    bump(x)
    return y * 2


def _clone_of_input(a: torch.Tensor) -> torch.Tensor:
    # The user's own copy: Inductor's no-op removal folds ``a.clone()``
    # into the op's base (the graph input, which is not mutated), so stock's
    # pass clones it again (and counts a missed reinplace); symalias gives
    # the op its clone back (``_clones``) and the pass writes it in place.
    buf = a.clone()
    n = buf.shape[0] // 2
    twoblocks(buf[:n], buf[n:])
    return buf


def _kv(n: int) -> tuple[Any, ...]:
    kv = torch.arange(2 * n * 8, dtype=torch.float32).view(2, n, 8)
    return (kv[0], kv[1])


def _slices(n: int) -> tuple[Any, ...]:
    b = torch.arange(3 * n, dtype=torch.float32).view(3, n)
    return (b[0], b[1], b[2])


def _dd(n: int) -> tuple[Any, ...]:
    b = torch.arange(2 * n, dtype=torch.float32)
    return (b[:n], b[n:], torch.tensor(n // 2))


def _overlap(n: int) -> tuple[Any, ...]:
    b = torch.arange(2 * n, dtype=torch.float32)
    return (b[: n + 4], b[n - 4 :])


FRAMES = [
    Frame("blocks_of_inputs", _blocks_of_inputs, _kv, True, 2),
    Frame("blocks_in_graph", _blocks_in_graph, lambda n: (torch.arange(2 * n, dtype=torch.float32),), True, 2),
    Frame("list_of_slices", _list_of_slices, _slices, True, 3),
    Frame("data_dependent", _data_dependent, _dd, True, 1, scalars=True),
    Frame("view_of_input", _view_of_input, lambda n: (torch.arange(2 * n, dtype=torch.float32),), True, 2),
    Frame("overlapping_inputs", _overlapping_inputs, _overlap, False, 1),
    Frame("clone_of_input", _clone_of_input, lambda n: (torch.arange(2 * n, dtype=torch.float32),), True, 2),
]


def kv_frame(n: int) -> tuple[KVCache, tuple[Any, ...]]:
    """The KV-cache module and one call's arguments."""
    kv = torch.arange(2 * n * 8, dtype=torch.float32).view(2, n, 8)
    return KVCache(kv), (torch.full((8,), -1.0), torch.full((8,), -2.0))


def _bytes(t: Any) -> int:
    if not isinstance(t, torch.Tensor):
        return 0
    return int(optimization_hint(t.numel())) * t.element_size()


def _arg_bytes(arg: Any) -> int:
    if isinstance(arg, (list, tuple)):
        return sum(_arg_bytes(a) for a in arg)
    if isinstance(arg, torch.fx.Node):
        return _bytes(arg.meta.get("val"))
    return 0


def cloned_bytes(graph: torch.fx.Graph) -> tuple[int, int]:
    """``(tensors, bytes)`` the graph's functionalized mutations will copy
    after the reinplace pass: the arguments ``auto_functionalized``/``_v2``
    clone (``only_clone_these_tensors``), and the mutated arguments of the
    in-placeable ops the pass left functional (at the hints)."""
    n = b = 0
    hop = torch.ops.higher_order
    for node in graph.nodes:
        if node.target is hop.auto_functionalized_v2:
            bases = node.kwargs["_all_bases"]
            for i in node.meta.get("only_clone_these_tensors", range(len(bases))):
                n, b = n + 1, b + _arg_bytes(bases[i])
        elif node.target is hop.auto_functionalized:
            for name in node.meta.get("only_clone_these_tensors", []):
                n, b = n + 1, b + _arg_bytes(node.kwargs[name])
        elif (op := reinplace.inplaceable_foreach_ops.get(node.target)) is not None:
            n, b = n + 1, b + _arg_bytes(node.args[op.mutated_arg])
        elif (op := reinplace.inplaceable_ops.get(node.target)) is not None:
            for i in op.mutated_args:
                n, b = n + 1, b + _arg_bytes(node.args[i])
    return n, b


class Clones:
    """The copies each compile's reinplace pass left, in compile order
    (``cloned_bytes`` read just before the decomposition that makes them)."""

    def __init__(self) -> None:
        self.compiles: list[tuple[int, int]] = []
        #: Time in Inductor's reinplace pass (``reinplace_inplaceable_ops``).
        self.pass_seconds = 0.0

    @property
    def bytes(self) -> int:
        """Bytes copied per call, summed over the compiled graphs."""
        return sum(b for _, b in self.compiles)


@contextlib.contextmanager
def observe() -> Iterator[Clones]:
    """Records ``Clones`` for the compiles inside the block."""
    seen = Clones()
    orig = post_grad.decompose_auto_functionalized
    orig_pass = post_grad.reinplace_inplaceable_ops

    def decompose_auto_functionalized(graph: torch.fx.Graph) -> Any:
        seen.compiles.append(cloned_bytes(graph))
        return orig(graph)

    def reinplace_inplaceable_ops(*args: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return orig_pass(*args)
        finally:
            seen.pass_seconds += time.perf_counter() - t0

    post_grad.decompose_auto_functionalized = decompose_auto_functionalized
    post_grad.reinplace_inplaceable_ops = reinplace_inplaceable_ops
    try:
        yield seen
    finally:
        post_grad.decompose_auto_functionalized = orig
        post_grad.reinplace_inplaceable_ops = orig_pass


# ---- random frames ---------------------------------------------------------------


@dataclasses.dataclass
class RandomFrame:
    """A random frame for the reinplace pass: views of one buffer (taken in
    the graph, or passed in as inputs) mutated by one custom op, other views
    read after it; ``second`` is a call whose views are the same sizes and
    strides at other offsets (the aliasing pattern may change)."""

    seed: int
    n: int
    views: list[tuple[int, tuple[int, ...], tuple[int, ...]]]
    second: list[tuple[int, tuple[int, ...], tuple[int, ...]]]
    mutated: list[int]
    read: list[int]
    inputs: bool
    as_list: bool

    def make(self, views: list[tuple[int, tuple[int, ...], tuple[int, ...]]]) -> tuple[Any, ...]:
        """One call's arguments (fresh data)."""
        buf = torch.arange(self.n, dtype=torch.float32) * 0.5
        if not self.inputs:
            return (buf,)
        return tuple(buf.as_strided(size, stride, off) for off, size, stride in views)

    def fn(self) -> Callable[..., Any]:
        """The frame (its layouts are constants of the compiled code when
        the views are taken in the graph)."""
        views, mutated, read, as_list, inputs = self.views, self.mutated, self.read, self.as_list, self.inputs

        def frame(*args: torch.Tensor) -> torch.Tensor:
            if inputs:
                ts = list(args)
            else:
                buf = args[0] * 2
                ts = [buf.as_strided(size, stride, off) for off, size, stride in views]
            ms = [ts[i] for i in mutated]
            if as_list or len(ms) != 2:
                bump_all(ms)
            else:
                twoblocks(ms[0], ms[1])
            out = ts[0].sum() * 0
            for k, i in enumerate(read):
                out = out + (ts[i] * (k + 2)).sum()
            if not inputs:
                out = out + buf.sum()
            return out

        return frame


def random_frame(seed: int) -> RandomFrame:
    """Views of a 64-element buffer: 1-D slices, strided slices, 2-D windows;
    two or three mutated, the others (or the same) read after."""
    import random

    r = random.Random(seed)
    n = 64

    def view() -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        kind = r.choice(["slice", "strided", "window"])
        if kind == "slice":
            size = r.randint(1, 16)
            return (r.randint(0, n - size), (size,), (1,))
        if kind == "strided":
            step, size = r.randint(2, 4), r.randint(1, 8)
            return (r.randint(0, n - 1 - step * (size - 1)), (size,), (step,))
        rows, cols, rs = r.randint(1, 4), r.randint(1, 4), r.randint(4, 9)
        return (r.randint(0, n - 1 - rs * (rows - 1) - (cols - 1)), (rows, cols), (rs, 1))

    k = r.randint(2, 4)
    views = [view() for _ in range(k)]
    # A custom op's mutated arguments must not overlap (torch.library's
    # contract): the mutated views are drawn disjoint from each other.
    m = r.randint(2, min(3, k))

    def reach(v: tuple[int, tuple[int, ...], tuple[int, ...]]) -> set[int]:
        off, size, stride = v
        out = {off}
        for s, st in zip(size, stride):
            out = {a + j * st for a in out for j in range(s)}
        return out

    for i in range(1, m):
        while any(reach(views[i]) & reach(views[j]) for j in range(i)):
            views[i] = view()
    # The second call: the same sizes and strides, offsets moved where they fit.
    second: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
    for i, (_, size, stride) in enumerate(views):
        span = sum((s - 1) * st for s, st in zip(size, stride))
        while True:
            cand = (r.randint(0, n - 1 - span), size, stride)
            if i >= m or not any(reach(cand) & reach(second[j]) for j in range(i)):
                break
        second.append(cand)
    mutated = list(range(m))
    r.shuffle(mutated)
    read = [i for i in range(k) if r.random() < 0.6]
    return RandomFrame(seed, n, views, second, mutated, read, r.random() < 0.5, r.random() < 0.3)
