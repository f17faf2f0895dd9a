"""One process of a cross-process cache test (run by test_torch_cache.py).

Reads a JSON plan from argv[1]: ``install`` (bool), ``backend``, ``dynamic``
(None/True/False), ``calls`` (pattern names, in order), optionally ``load``
(a file of ``torch.compiler.save_cache_artifacts`` bytes to load first) and
``save`` (where to write them after the calls). Compile caches keep torch's
defaults; the cache directory is the environment's TORCHINDUCTOR_CACHE_DIR.
Prints one JSON line: per call whether outputs and the final storage bytes
equal eager, torch's AOTAutograd cache counters, and symalias's stats.
"""

import json
import sys

import torch

import symalias.torch as st


def add_then_double(a, b):
    a.add_(1)
    return b * 2


def patterns(n):
    """Views of one ``M = arange(5*n).view(5, n)`` with the same shapes and
    strides but another aliasing: ``a`` is the first three columns, ``b``
    one row of them (overlapping) or of the others (disjoint)."""
    return {
        "overlap": lambda m: (m[:, :3], m[2:3, :3]),
        "disjoint": lambda m: (m[:, :3], m[2:3, 3:6]),
        "overlap_moved": lambda m: (m[:, 1:4], m[3:4, 1:4]),
    }


def run_call(compiled, name, n):
    make = patterns(n)[name]
    m_eager = torch.arange(5.0 * n).view(5, n)
    m_comp = m_eager.clone()
    want = add_then_double(*make(m_eager))
    got = compiled(*make(m_comp))
    return bool(torch.equal(got, want) and torch.equal(m_comp.view(torch.uint8), m_eager.view(torch.uint8)))


def main():
    plan = json.loads(sys.argv[1])
    from torch._dynamo.utils import counters

    if plan.get("load"):
        with open(plan["load"], "rb") as f:
            torch.compiler.load_cache_artifacts(f.read())
    if plan["install"]:
        st.install()
    compiled = torch.compile(add_then_double, backend=plan["backend"], dynamic=plan["dynamic"])
    ok = []
    for call in plan["calls"]:
        name, _, n = call.partition("@")
        ok.append(run_call(compiled, name, int(n or 6)))
    if plan.get("save"):
        artifacts = torch.compiler.save_cache_artifacts()
        assert artifacts is not None, "no cache artifacts were recorded"
        with open(plan["save"], "wb") as f:
            f.write(artifacts[0])
    s = st.stats
    print(
        json.dumps(
            {
                "ok": ok,
                "aot": dict(counters["aot_autograd"]),
                "graphs": counters["stats"]["unique_graphs"],
                "decisions": s.decisions,
                "restored": sum(r.from_cache for r in s.reports),
                "cache_hits": s.cache_hits,
                "cache_keys": s.cache_keys,
                "cache_rejected": s.cache_rejected,
                "guard_checks": s.guard_checks,
                "guard_failures": s.guard_failures,
            }
        )
    )


if __name__ == "__main__":
    main()
