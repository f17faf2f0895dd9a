"""Recompiles under dynamic shapes, counted with torch's own counters and
guard-failure log: a changed overlap pattern recompiles and is right; the
same pattern at other sizes does not recompile because of an overlap guard
when the verdict was proved (nor when the partition check still passes)."""

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st

#: How symalias's guards' recompile reasons start: torch's wording for the
#: fact torch also checks, symalias's for the others.
OWN = ("check_overlapping(", "symalias: ")


def add_then_double(a, b):
    a.add_(1)
    return b * 2


def compiled_calls(fn, calls, **compile_kwargs):
    """Runs ``fn`` compiled on each ``make()`` in ``calls``; returns per call
    (right, unique graphs so far, symalias guard failures so far)."""
    from torch._dynamo.utils import counters, guard_failures

    torch._dynamo.reset()
    counters.clear()
    guard_failures.clear()
    st.install()
    compiled = torch.compile(fn, **compile_kwargs)
    out = []
    for make in calls:
        args_e, stor_e = make()
        want = fn(*args_e)
        args_c, stor_c = make()
        got = compiled(*args_c)
        right = torch.equal(got, want) and all(torch.equal(a, b) for a, b in zip(stor_c, stor_e))
        reasons = [r for rs in guard_failures.values() for r in rs]
        out.append(
            (
                right,
                counters["stats"]["unique_graphs"],
                sum(r.split(": ", 1)[-1].startswith(OWN) for r in reasons),
                reasons,
            )
        )
    return out


def halves(n, start):
    def make():
        x = torch.zeros(3 * n)
        return (x[:n], x[start : start + n]), [x]

    make.__name__ = f"halves_{n}_{start}"
    return make


def test_proved_verdict_other_sizes_do_not_recompile(fresh_torch):
    calls = [halves(5, 5), halves(9, 9), halves(17, 17), halves(33, 33)]
    res = compiled_calls(add_then_double, calls, backend="aot_eager", dynamic=True)
    assert all(r[0] for r in res)
    assert [r[1] for r in res] == [1, 1, 1, 1]
    assert [r[2] for r in res] == [0, 0, 0, 0]
    (report,) = st.stats.reports
    assert report.symbolic and report.invariant is True
    assert report.overlapping == []
    # Proved: no classification check at run time, only the pinned offset 0.
    assert not any("StorageOverlap" in g for g in report.guard)


@pytest.mark.quick("caches_on")
def test_changed_pattern_recompiles_and_is_right(fresh_torch):
    calls = [halves(5, 5), halves(9, 4), halves(12, 6), halves(7, 7)]
    res = compiled_calls(add_then_double, calls, backend="aot_eager", dynamic=True)
    assert [r[0] for r in res] == [True, True, True, True]
    graphs = [r[1] for r in res]
    assert graphs[0] == 1 and graphs[1] == 2
    # Same (overlapping) pattern at other sizes: no new graph.
    assert graphs[2] == 2
    # Back to the first pattern: the first graph serves it.
    assert graphs[3] == 2


def window(n, start, step):
    def make():
        x = torch.zeros(64)
        return (x[:n], x[start : start + n : step]), [x]

    return make


def test_unproved_partition_guard_recompiles_only_when_the_partition_changes(fresh_torch):
    # b's offset is its own symbol: disjoint at the hints, not for all shapes;
    # symalias's partition guard decides at run time.
    calls = [window(4, 9, 1), window(5, 11, 1), window(4, 2, 1), window(3, 20, 1)]
    res = compiled_calls(add_then_double, calls, backend="aot_eager", dynamic=True)
    assert [r[0] for r in res] == [True, True, True, True]
    assert [r[1] for r in res] == [1, 1, 2, 2]
    # The recompile at the third call was symalias's guard failing.
    assert res[2][2] >= 1
    assert any(g.startswith("check_overlapping(") and g.endswith("by symalias") for g in st.stats.reports[0].guard)


def test_static_shapes_get_an_overlap_guard(fresh_torch):
    # Stock torch emits none for static shapes (bug B4).
    calls = [window(4, 8, 1), window(4, 2, 1), window(4, 12, 1)]
    res = compiled_calls(add_then_double, calls, backend="aot_eager", dynamic=False)
    assert [r[0] for r in res] == [True, True, True]
    assert res[1][2] >= 1  # symalias's guard caught the new pattern
    assert res[2][1] == res[1][1]  # the disjoint graph is reused for offset 12
