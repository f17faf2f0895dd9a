"""Inductor's reinplace pass, stock torch against ``symalias.torch.install()``,
in one process, on the frames of ``python/tests/support/reinplace_frames.py``.

Per frame and configuration (static, then dynamic shapes; compile caches
off so the pass runs every time): torch's missed-reinplace counters, the
bytes the compiled graph copies per call (what the decomposition of the
functionalized mutations clones, read where torch reads it), compile time,
time per call (median of ``--calls``), and for the installed runs
the reinplace pass's time per mutated argument (both), and symalias's
time deciding inside it (installed), as a share of the pass and of the
compile (with the concatenations' decisions), and their medians over the
frames.

    python python/benches/bench_reinplace.py [--calls 200] [--n 4096] [--reps 3] [--json]

Timings are medians of ``--reps`` compiles, after one throwaway compile per
configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")

import torch
from torch._dynamo.utils import ReinplaceCounters

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "support"))
import reinplace_frames as rf

import symalias.torch as st

#: Mutated arguments of the KV-cache step (``kv_update``: K and V).
KV_MUTATED = 2


def one(name, fn, make, *, dynamic, installed, calls, mutated, scalars=False):
    torch._dynamo.reset()
    (st.install if installed else st.uninstall)()
    ReinplaceCounters.clear()
    decided0, seconds0 = st.stats.reinplace_decisions, st.stats.reinplace_seconds
    concat0 = st.stats.concat_seconds
    compiled = torch.compile(fn, backend="inductor", fullgraph=True, dynamic=dynamic)
    with torch._dynamo.config.patch(capture_scalar_outputs=scalars), rf.observe() as clones:
        args = make()
        t0 = time.perf_counter()
        try:
            compiled(*args)
        except Exception as e:  # Inductor's own failures, stock and installed alike
            return {"frame": name, "dynamic": dynamic, "installed": installed, "error": type(e).__name__}
        compile_s = time.perf_counter() - t0
        times = []
        for _ in range(calls):
            args = make()
            t0 = time.perf_counter()
            compiled(*args)
            times.append(time.perf_counter() - t0)
    missed = {k: v for k, v in ReinplaceCounters._values.items() if v}
    row = {
        "frame": name,
        "dynamic": dynamic,
        "installed": installed,
        "missed_bytes": sum(v for k, v in missed.items() if k.startswith("missed_bytes")),
        "missed_tensors": sum(v for k, v in missed.items() if k.startswith("missed_tensors")),
        "cloned_bytes_per_call": clones.bytes,
        "compile_s": compile_s,
        "call_us": statistics.median(times) * 1e6,
        "pass_us_per_mutated_arg": clones.pass_seconds * 1e6 / mutated,
    }
    if installed:
        in_pass = st.stats.reinplace_seconds - seconds0
        row["decisions"] = st.stats.reinplace_decisions - decided0
        row["decide_us_per_mutated_arg"] = in_pass * 1e6 / mutated
        # symalias's share: of the pass (its time inside it), and of the
        # compile (in the pass and in the concatenations' lowering).
        row["share_of_pass"] = in_pass / clones.pass_seconds if clones.pass_seconds else 0.0
        row["share_of_compile"] = (in_pass + st.stats.concat_seconds - concat0) / compile_s
    return row


def median_of(runs: list[dict[str, object]]) -> dict[str, object]:
    """One row from repeated runs: the median of each timing."""
    row = dict(runs[0])
    for k in (
        "compile_s",
        "call_us",
        "pass_us_per_mutated_arg",
        "decide_us_per_mutated_arg",
        "share_of_pass",
        "share_of_compile",
    ):
        if k in row:
            row[k] = statistics.median(float(r[k]) for r in runs)  # type: ignore[arg-type]
    return row


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--reps", type=int, default=3, help="compiles per row (median)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    # One throwaway compile per configuration: first-use costs out of the rows.
    warm = rf.FRAMES[1]
    for installed in (False, True):
        one(
            warm.name,
            warm.fn,
            lambda: warm.make(a.n),
            dynamic=False,
            installed=installed,
            calls=1,
            mutated=warm.mutated,
        )
    rows = []
    for dynamic in (False, True):
        for frame in rf.FRAMES:
            for installed in (False, True):
                runs = [
                    one(
                        frame.name,
                        frame.fn,
                        lambda f=frame: f.make(a.n),
                        dynamic=dynamic,
                        installed=installed,
                        calls=a.calls,
                        mutated=frame.mutated,
                        scalars=frame.scalars,
                    )
                    for _ in range(a.reps)
                ]
                rows.append(runs[0] if "error" in runs[0] else median_of(runs))
        for installed in (False, True):
            mod, kv_args = rf.kv_frame(a.n)
            rows.append(
                one(
                    "kv_cache",
                    mod,
                    lambda x=kv_args: x,
                    dynamic=dynamic,
                    installed=installed,
                    calls=a.calls,
                    mutated=KV_MUTATED,
                )
            )
    st.uninstall()
    if a.json:
        print(json.dumps(rows))
        return
    print(
        f"{'frame':20} {'dyn':4} {'mode':9} {'missed B':>9} {'cloned B/call':>13} "
        f"{'compile s':>9} {'call us':>9} {'pass us/arg':>11} {'decide us/arg':>13} {'% pass':>6} {'% compile':>9}"
    )
    for r in rows:
        mode = "symalias" if r["installed"] else "stock"
        if "error" in r:
            print(f"{r['frame']:20} {str(r['dynamic'])[0]:4} {mode:9} {r['error']}")
            continue
        per = f"{r['decide_us_per_mutated_arg']:.1f}" if r["installed"] else "-"
        sp = f"{100 * r['share_of_pass']:.1f}" if r["installed"] else "-"
        sc = f"{100 * r['share_of_compile']:.2f}" if r["installed"] else "-"
        print(
            f"{r['frame']:20} {str(r['dynamic'])[0]:4} {mode:9} {r['missed_bytes']:9d} "
            f"{r['cloned_bytes_per_call']:13d} {r['compile_s']:9.2f} {r['call_us']:9.1f} "
            f"{r['pass_us_per_mutated_arg']:11.1f} {per:>13} {sp:>6} {sc:>9}"
        )
    ok = [r for r in rows if r["installed"] and "error" not in r]
    if ok:
        pass_share = statistics.median(float(r["share_of_pass"]) for r in ok)
        compile_share = statistics.median(float(r["share_of_compile"]) for r in ok)
        print(
            f"symalias's share, median over {len(ok)} installed rows: {100 * pass_share:.1f}% of the pass "
            f"(target <= 10%), {100 * compile_share:.2f}% of the compile (target <= 1%); "
            f"largest {100 * max(float(r['share_of_pass']) for r in ok):.1f}% / "
            f"{100 * max(float(r['share_of_compile']) for r in ok):.2f}%"
        )


if __name__ == "__main__":
    main()
