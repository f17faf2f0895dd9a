"""Guard filters (``options={"guard_filter_fn": ...}``) keep symalias's facts.

Serving stacks compile with a filter that drops Dynamo's guards (torch's
``skip_all_guards_unsafe`` and ``keep_tensor_guards_unsafe``, or "keep only
the ShapeEnv's"). torch installs AOTAutograd's aliasing guards after the
filter, from ``output_graph.aotautograd_guards``; symalias's frame check is
installed there too, so under every filter a changed aliasing pattern
recompiles and the result equals eager -- also for static shapes, where
stock torch has no aliasing guard at all (bug B4)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st


def keep_shape_env(entries):
    """What vLLM keeps: the ShapeEnv's guards only."""
    return [e.guard_type == "SHAPE_ENV" for e in entries]


def drop_every_other(entries):
    """A user's own filter: drops half of Dynamo's guards, arbitrarily."""
    return [k % 2 == 0 for k in range(len(entries))]


FILTERS = {
    "skip_all": torch.compiler.skip_all_guards_unsafe,
    "keep_tensor": torch.compiler.keep_tensor_guards_unsafe,
    "keep_shape_env": keep_shape_env,
    "user": drop_every_other,
}

# Two row blocks of one 6x4 buffer, as (start of a, start of b); every view
# has the same sizes and strides, so only the aliasing pattern changes.
PATTERNS = {
    "disjoint_to_overlapping": ((0, 3), (0, 1)),
    "overlapping_to_disjoint": ((0, 1), (0, 3)),
    "shifted": ((0, 1), (1, 0)),
    "overlapping_to_same": ((0, 1), (2, 2)),
}


def mutate_both(a, b):
    a.mul_(2)
    b.add_(1)
    return a + b


def mutate_one(a, b):
    a.add_(1)
    return b * 2


def blocks(starts):
    m = torch.arange(24.0).view(6, 4)
    i, j = starts
    return (m[i : i + 2], m[j : j + 2]), m


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def run(fn, backend, dynamic, filt, pattern, *, install=True):
    """Both calls of a pattern change: True where each equals eager
    (outputs and the buffer's bytes)."""
    torch._dynamo.reset()
    if install:
        st.install()
    else:
        st.uninstall()
    compiled = torch.compile(fn, backend=backend, dynamic=dynamic, options={"guard_filter_fn": filt})
    right = []
    for starts in PATTERNS[pattern]:
        args_e, m_e = blocks(starts)
        want = fn(*args_e)
        args_c, m_c = blocks(starts)
        got = compiled(*args_c)
        right.append(same(got, want) and torch.equal(m_c, m_e))
    return right


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("filt", sorted(FILTERS))
@pytest.mark.parametrize("fn", [mutate_both, mutate_one], ids=["both", "one"])
def test_aot_eager_filter_matrix(caches_on, fn, filt, dynamic, pattern):
    assert run(fn, "aot_eager", dynamic, FILTERS[filt], pattern) == [True, True]


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("filt", sorted(FILTERS))
def test_inductor_filter_matrix(caches_on, filt, dynamic, pattern):
    assert run(mutate_both, "inductor", dynamic, FILTERS[filt], pattern) == [True, True]


def test_stock_is_wrong_somewhere_in_the_matrix(caches_on):
    """The matrix can fail: stock torch under a filter, static shapes, is
    wrong on a changed pattern (it has no aliasing guard there)."""
    assert run(mutate_both, "aot_eager", False, keep_shape_env, "disjoint_to_overlapping", install=False) != [
        True,
        True,
    ]


@pytest.mark.quick
def test_recompile_reason_is_torch_wording(caches_on):
    """Under a filter that keeps only the ShapeEnv's guards, the pattern
    change recompiles, and torch's guard-failure log gives torch's words."""
    from torch._dynamo.utils import counters, guard_failures

    torch._dynamo.reset()
    counters.clear()
    guard_failures.clear()
    st.install()
    compiled = torch.compile(
        mutate_both, backend="aot_eager", dynamic=True, options={"guard_filter_fn": keep_shape_env}
    )
    for starts in PATTERNS["disjoint_to_overlapping"]:
        args, _ = blocks(starts)
        compiled(*args)
    reasons = [r for rs in guard_failures.values() for r in rs]
    assert counters["stats"]["unique_graphs"] == 2
    # torch prints the compiled fact, its local scope stripped, as for its
    # own StorageOverlap guard.
    assert any(r.endswith("check_overlapping(overlapping=[], non_overlapping=[a, b])") for r in reasons), reasons
