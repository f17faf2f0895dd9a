"""A decode step over one storage holding views of two dtypes (issue 23).

One ``uint8`` buffer of ``--buffer-mb`` megabytes holds, at its start, a KV
cache (``--slots`` slots of 4 KiB) and a float32 state of 2,048 elements
that shares the cache's last slot (a pool whose blocks are read in two
dtypes, as hybrid models keep them): the two views overlap, so the step
needs a synthetic base. Each step ``index_copy_``s one of the other slots
and one state element past the cache, and reads both. Before issue 23 symalias ran such a
frame eagerly (AOTAutograd refuses mixed dtypes); now it compiles over a
byte-level synthetic base. Reported per step (median of ``--repeats``
blocks of ``--steps`` steps): eager, compiled with ``aot_eager`` and with
``inductor`` (static shapes); and, from the profiler, the bytes per call
that ``aten::copy_`` and ``aten::clone`` write (outermost calls only) under
eager and both backends against the mutated members' bytes and the
buffer's size. The run-time wrapper itself copies nothing: the graph's
base shares the members' bytes (``_wrapper.span_alias``); what ``aot_eager``
copies is its functionalized graph's scatters over the members' span and
the write of the updated span into the base. Inductor's kernels write
the mutated members in place (so its count is 0: no ``aten`` copy or
clone runs, of the base or of a misaligned input).

A cost that grew with the buffer would mean whole-buffer copies; the
table shows two buffer sizes side by side.

Not a test: ``python python/benches/bench_decode.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Callable


def step(cache: Any, state: Any, slot: Any, kv: Any, x: Any) -> Any:
    cache.index_copy_(0, slot, kv)
    state.index_copy_(0, slot + 1024, x)
    return state.sum() + cache[0].to(dtype=state.dtype).sum()


def storage(buffer_bytes: int, slots: int) -> tuple[Any, Any, Any]:
    import torch

    raw = torch.zeros(buffer_bytes, dtype=torch.uint8)
    cache = raw[: slots * 4096].view(slots, 4096)
    state = raw[(slots - 1) * 4096 : (slots + 1) * 4096].view(torch.float32)
    return raw, cache, state


def per_step(fn: Callable[..., Any], args: list[Any], inputs: list[tuple[Any, ...]], repeats: int) -> float:
    for k in range(3):
        fn(*args, *inputs[k % len(inputs)])
    blocks = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for extra in inputs:
            fn(*args, *extra)
        blocks.append((time.perf_counter() - t0) / len(inputs))
    return statistics.median(blocks)


_COPIES = ("aten::copy_", "aten::clone")


def copied_bytes(fn: Callable[..., Any], args: list[Any], inputs: list[tuple[Any, ...]]) -> int:
    """Bytes written per call by the outermost ``aten::copy_`` /
    ``aten::clone`` calls, from the profiler (shapes and dtypes recorded)."""
    from torch.profiler import ProfilerActivity, profile

    fn(*args, *inputs[0])
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for extra in inputs:
            fn(*args, *extra)
    total = 0
    for e in prof.events():
        parent = e.cpu_parent
        if e.name not in _COPIES or (parent is not None and parent.name in _COPIES):
            continue
        shape = e.input_shapes[0] if e.input_shapes else []
        dtype = e.input_dtypes[0] if getattr(e, "input_dtypes", None) else ""
        size = {"float": 4, "double": 8, "long int": 8, "int": 4}.get(dtype, 1)
        n = 1
        for d in shape:
            n *= d
        total += n * size
    return total // len(inputs)


def main() -> None:
    import torch

    import symalias.torch as st

    p = argparse.ArgumentParser()
    p.add_argument("--buffer-mb", type=int, nargs="+", default=[1, 256])
    p.add_argument("--slots", type=int, default=8)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    torch.compiler.config.force_disable_caches = True
    inputs = [
        (
            torch.tensor([k % (a.slots - 1)]),
            torch.full((1, 4096), k % 251, dtype=torch.uint8),
            torch.tensor([float(k)]),
        )
        for k in range(a.steps)
    ]
    members = a.slots * 4096 + 2048 * 4
    print(
        "| buffer | eager | aot_eager | inductor "
        f"| bytes copied per call: eager / aot_eager / inductor (mutated members: {members:,}) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: |")
    for mb in a.buffer_mb:
        row = [f"{mb} MiB"]
        _, cache, state = storage(mb << 20, a.slots)
        row.append(f"{per_step(step, [cache, state], inputs, a.repeats) * 1e6:.1f} µs")
        copies = [copied_bytes(step, [cache, state], inputs[:10])]
        for backend in ("aot_eager", "inductor"):
            torch._dynamo.reset()
            st.install()
            _, cache, state = storage(mb << 20, a.slots)
            compiled = torch.compile(step, backend=backend)
            t = per_step(compiled, [cache, state], inputs, a.repeats)
            assert st.stats.eager_fallbacks == 0, st.stats.fallback_reasons
            assert any(r.overlapping for r in st.stats.reports), "no synthetic base"
            row.append(f"{t * 1e6:.1f} µs")
            copies.append(copied_bytes(compiled, [cache, state], inputs[:10]))
            st.uninstall()
        row.append(" / ".join(f"{c:,}" for c in copies) + f" of {mb << 20:,}")
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
