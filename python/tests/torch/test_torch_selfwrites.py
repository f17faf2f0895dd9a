"""Writes through a view functionalization cannot invert (issue 62,
``_selfwrites``): stock torch gets each wrong or refuses it; installed, the
frame runs eagerly (one warning, class ``functionalization``) and equals
eager. Writes through plain windows still compile."""

from __future__ import annotations

import logging

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st

dynamic = pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
backends = pytest.mark.parametrize("backend", ["aot_eager", "inductor"])


def gapped_unfold(x):  # pytorch#198102: the uncovered elements zeroed
    w = x.unfold(0, 2, 3)
    w.mul_(10)
    return x * 1


def expand_fill(x):  # #197448
    e = x[0:1].expand(4)
    e.fill_(7.0)
    return x * 1


def overlapping_as_strided_add(x):  # #174371
    c = x.clone()
    v = c.as_strided((3, 2), (1, 1))
    v.add_(1)
    return c


def overlapping_unfold_abs(x):  # #183888, #165409: refused, eager runs it
    w = x.unfold(0, 3, 1)
    w.abs_()
    return x * 1


def plain_windows(x):
    x[::2].mul_(10)
    x.unfold(0, 2, 2).add_(1)
    x.as_strided((2, 2), (4, 1), 1).sub_(3)
    return x * 1


def buffer():
    return torch.arange(8.0) - 3


def outcome(fn, backend, dyn, *, install):
    """ "right", "wrong", or "refused" (compiled raised, eager did not)."""
    torch._dynamo.reset()
    st.uninstall()
    if install:
        st.install()
    xe, xc = buffer(), buffer()
    want = fn(xe)
    try:
        got = torch.compile(fn, backend=backend, dynamic=dyn)(xc)
    except Exception:
        return "refused"
    return "right" if torch.equal(got, want) and torch.equal(xc, xe) else "wrong"


CASES = [
    (gapped_unfold, "wrong"),
    (expand_fill, "wrong"),
    (overlapping_as_strided_add, "wrong"),
    (overlapping_unfold_abs, "refused"),
]


@dynamic
@backends
@pytest.mark.parametrize(("fn", "stock"), CASES, ids=[f.__name__ for f, _ in CASES])
@pytest.mark.quick("caches_on-expand_fill-inductor-static", "caches_on-gapped_unfold-aot_eager-dynamic")
def test_a_write_functionalization_cannot_invert_runs_eagerly(fresh_torch, fn, stock, backend, dynamic, caplog):
    assert outcome(fn, backend, dynamic, install=False) == stock
    with caplog.at_level(logging.WARNING, logger="symalias.torch"):
        assert outcome(fn, backend, dynamic, install=True) == "right"
    assert st.stats.fallback_kinds == {"functionalization": 1}
    assert any("eagerly (functionalization)" in r.getMessage() for r in caplog.records)


@dynamic
@backends
def test_writes_through_plain_windows_compile(fresh_torch, backend, dynamic):
    assert outcome(plain_windows, backend, dynamic, install=True) == "right"
    assert st.stats.eager_fallbacks == 0
