"""Frames AOTAutograd cannot build, and torch's wording of recompile reasons.

With symalias installed a frame is never an error eager does not raise, nor
a wrong result: where AOTAutograd refuses or fails on aliased mutated
inputs the frame runs eagerly (one warning, counted in ``stats``); where a
right graph is in reach -- an output view of a merged input -- it is built.
Each case runs under both backends, static and dynamic, caches off and on
(``fresh_torch``), and is compared with eager: outputs (values, storage
offsets), gradients and the final bytes of every storage.
"""

import logging

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st

BACKENDS = ["aot_eager", "inductor"]
backends = pytest.mark.parametrize("backend", BACKENDS)
dynamics = pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])


def compare(fn, make, *, backend, dynamic, backward=False):
    """Runs ``make() -> (leaf, args)`` through eager and compiled ``fn`` on
    fresh data; returns what differs (empty when everything is equal)."""
    torch._dynamo.reset()
    st.install()
    leaf_e, args_e = make()
    want = fn(*args_e)
    leaf_c, args_c = make()
    got = torch.compile(fn, backend=backend, dynamic=dynamic)(*args_c)
    diffs = []
    wants = want if isinstance(want, tuple) else (want,)
    gots = got if isinstance(got, tuple) else (got,)
    for k, (g, w) in enumerate(zip(gots, wants)):
        if not torch.equal(g.detach(), w.detach()):
            diffs.append(f"output {k} values")
        if g._is_view() != w._is_view() or g.storage_offset() != w.storage_offset():
            diffs.append(f"output {k} view/offset {g.storage_offset()} vs {w.storage_offset()}")
        if (g.untyped_storage()._cdata == leaf_c.untyped_storage()._cdata) != (
            w.untyped_storage()._cdata == leaf_e.untyped_storage()._cdata
        ):
            diffs.append(f"output {k} aliasing of the input storage")
    if backward:
        want.backward()
        got.backward()
        if not torch.equal(leaf_c.grad, leaf_e.grad):
            diffs.append("gradient")
    if not torch.equal(leaf_c.detach().view(torch.uint8), leaf_e.detach().view(torch.uint8)):
        diffs.append("storage bytes")
    return diffs


# ---- a leaf requiring grad, overlapping views mutated under no_grad ----------


def mutate_under_no_grad(a, b):
    with torch.no_grad():
        a.mul_(2)
        b.add_(1)
    return (a * b).sum()


def leaf_views():
    w = torch.arange(8.0, requires_grad=True)
    return w, (w[0:4], w[2:6])


@backends
@dynamics
def test_no_grad_mutation_of_overlapping_views_of_a_leaf(fresh_torch, backend, dynamic, caplog):
    with caplog.at_level(logging.WARNING, logger="symalias.torch"):
        assert compare(mutate_under_no_grad, leaf_views, backend=backend, dynamic=dynamic, backward=True) == []
    assert st.stats.eager_fallbacks == 1 and st.stats.dtype_fallbacks == 0
    assert "AOTAutograd cannot build" in st.stats.fallback_reasons[0]
    assert sum("running frame" in r.message for r in caplog.records) == 1


# ---- mutated views made through .detach() / .data ------------------------------


def add_then_double(a, b):
    a.add_(1)
    return b * 2


def detached_views():
    x = torch.arange(8.0, requires_grad=True)
    return x, (x.detach()[0:4], x.detach()[2:6])


def data_and_detached_views():
    x = torch.arange(8.0, requires_grad=True)
    return x, (x.data[0:4], x[2:6].detach())


@backends
@dynamics
@pytest.mark.parametrize("make", [detached_views, data_and_detached_views], ids=lambda f: f.__name__)
@pytest.mark.quick("caches_on-detached_views-dynamic-aot_eager")
def test_mutated_non_differentiable_views(fresh_torch, backend, dynamic, make):
    assert compare(add_then_double, make, backend=backend, dynamic=dynamic) == []
    assert st.stats.eager_fallbacks == 1
    assert "non-differentiable view input mutations" in st.stats.fallback_reasons[0]


# ---- an output view of a merged input (pytorch#198095) -------------------------


def mutate_and_return_a_view(a, b):
    a.mul_(2)
    return a[1:3], b + 1


def shifted_windows():
    s = torch.arange(16.0)
    return s, (s[2:8], s[4:10])


def shifted_windows_of_a_grad_leaf():
    w = torch.arange(16.0, requires_grad=True)
    s = w * 1.0
    return s, (s[2:8], s[4:10])


@backends
@dynamics
@pytest.mark.parametrize("make", [shifted_windows, shifted_windows_of_a_grad_leaf], ids=lambda f: f.__name__)
def test_output_view_of_a_merged_input_is_built_right(fresh_torch, backend, dynamic, make):
    assert compare(mutate_and_return_a_view, make, backend=backend, dynamic=dynamic) == []
    # A compiled graph, not the eager fallback.
    assert st.stats.eager_fallbacks == 0
    assert any(len(r.overlapping) == 2 for r in st.stats.reports)


def test_stock_torch_returns_the_view_at_the_wrong_offset(fresh_torch):
    """pytorch#198095 on this torch: the reason symalias regenerates the view."""
    torch._dynamo.reset()
    st.uninstall()
    s = torch.arange(16.0)
    got, _ = torch.compile(mutate_and_return_a_view, backend="aot_eager")(s[2:8], s[4:10])
    assert got.storage_offset() != 3, "stock torch got this right: the bug is fixed upstream"


def test_view_replay_setting_is_restored_after_the_compile(fresh_torch):
    cfg = torch._functorch.config
    before = cfg.view_replay_for_aliased_outputs
    assert compare(mutate_and_return_a_view, shifted_windows, backend="aot_eager", dynamic=False) == []
    assert cfg.view_replay_for_aliased_outputs == before


def test_errors_outside_aliased_mutation_are_not_swallowed(fresh_torch):
    """The fallback is for frames of aliased mutated inputs only: another
    backend failure still raises, as it does without symalias."""

    def broken_backend(gm, example_inputs):
        raise ValueError("a backend bug")

    st.install()
    x, y = torch.zeros(4), torch.zeros(4)
    with pytest.raises(Exception, match="a backend bug"):
        torch.compile(add_then_double, backend=broken_backend)(x, y)
    assert st.stats.eager_fallbacks == 0


# ---- torch's wording of recompile reasons --------------------------------------


def mul_and_sum(a, b, c, d):
    a.mul_(2)
    return a + b + c + d


def a_b_overlap(x):
    return x[:5], x[4:9], x[10:15], x[15:]


def a_b_c_overlap(x):
    return x[:5], x[4:9], x[8:13], x[15:]


def recompile_reasons(install, first, second, fn=mul_and_sum):
    """The guard-failure reasons of a second call with another aliasing."""
    torch._dynamo.reset()
    (st.install if install else st.uninstall)()
    reasons = []
    compiled = torch._dynamo.optimize(
        "aot_eager", dynamic=True, guard_fail_fn=lambda failure: reasons.append(failure.reason)
    )(fn)
    for make in (first, second):
        x, y = torch.ones(20), torch.ones(20)
        want = fn(*make(x))
        assert torch.equal(compiled(*make(y)), want) and torch.equal(x, y)
    return reasons


def every_arg_mutated(*args):
    for a in args:
        a.add_(1)
    return args[0]


def three_overlapping(x):
    return x[:5], x[7:13], x[9:]


def three_disjoint(x):
    return x[:5], x[7:13], x[13:15]


@pytest.mark.parametrize(
    ("fn", "first", "second"),
    [(mul_and_sum, a_b_overlap, a_b_c_overlap), (every_arg_mutated, three_overlapping, three_disjoint)],
    ids=["superset", "overlap-then-disjoint"],
)
def test_recompile_reason_reads_as_torchs(fresh_torch, fn, first, second):
    stock = recompile_reasons(False, first, second, fn)
    ours = recompile_reasons(True, first, second, fn)
    assert len(stock) == 1 and stock[0].startswith("0/0: check_overlapping(")
    assert ours == stock


def mutate_three(a, b, c):
    a.mul_(2)
    b.add_(1)
    c.add_(1)
    return a + b


@pytest.mark.quick("caches_on")
def test_recompile_reason_of_a_frame_with_several_facts(fresh_torch):
    """A frame whose check holds several facts (a storage group's partition
    and the cross-storage fact) gives, as its recompile reason, the words of
    the fact that failed -- evaluated by torch in the guard manager's scope,
    where ``wrap_compile_check_fn`` put ``_guards.why``."""
    from symalias.torch import _state

    st.install()
    reasons: list[str] = []
    compiled = torch._dynamo.optimize(
        "aot_eager", dynamic=True, guard_fail_fn=lambda failure: reasons.append(failure.reason)
    )(mutate_three)
    words_before = set(_state.frame_words)
    for i, j in ((0, 3), (0, 1)):
        m, c = torch.arange(24.0).view(6, 4), torch.zeros(3)
        m_e, c_e = m.clone(), c.clone()
        want = mutate_three(m_e[i : i + 2], m_e[j : j + 2], c_e)
        assert torch.equal(compiled(m[i : i + 2], m[j : j + 2], c), want) and torch.equal(m, m_e)
        if i == j - 3:
            assert set(_state.frame_words) - words_before, "the first frame's check has one fact only"
    assert reasons == ["0/0: check_overlapping(overlapping=[], non_overlapping=[a, b])"]


# ---- a mutated input that overlaps itself (issue 22) -------------------------


def mutate_windows(x):
    x.mul_(2)
    return x.sum()


def windows():
    base = torch.arange(12.0)
    return base, (base.as_strided((4, 3), (2, 1)),)


def read_windows(x):
    return (x * 2).sum()


@backends
@dynamics
def test_mutated_self_overlapping_input_runs_as_eager(fresh_torch, backend, dynamic):
    """``as_strided((4, 3), (2, 1)).mul_(2)`` writes shared elements once per
    index in eager, once in a functionalized graph: the frame runs eagerly."""
    assert compare(mutate_windows, windows, backend=backend, dynamic=dynamic) == []
    assert st.stats.eager_fallbacks == 1
    assert "overlaps itself" in st.stats.fallback_reasons[-1]


@backends
@dynamics
def test_read_only_self_overlapping_input_is_compiled(fresh_torch, backend, dynamic):
    assert compare(read_windows, windows, backend=backend, dynamic=dynamic) == []
    assert st.stats.eager_fallbacks == 0


def rows_every(k):
    """Rows of 3 elements every ``k``: they overlap themselves when k < 3."""
    base = torch.arange(40.0)
    return base, (base.as_strided((4, 3), (k, 1)),)


def run_rows(fn, strides):
    """Eager and ``fn`` on fresh ``rows_every(k)`` for each k: the k whose
    storages differ."""
    differs = []
    for k in strides:
        base_e, (x_e,) = rows_every(k)
        mutate_windows(x_e)
        base_c, (x_c,) = rows_every(k)
        fn(x_c)
        if not torch.equal(base_c, base_e):
            differs.append(k)
    return differs


@backends
def test_mutated_input_that_overlaps_itself_only_at_a_later_call(fresh_torch, backend):
    """Dynamic: strides 5 and 7 give one graph whose row stride is a symbol
    (rows that do not overlap at the hint, but would at stride < 3); at
    stride 2 the run-time check fails, the frame recompiles and runs
    eagerly."""
    st.install()
    compiled = torch.compile(mutate_windows, backend=backend, dynamic=True)
    assert run_rows(compiled, (5, 7, 2)) == []
    assert st.stats.eager_fallbacks == 1
    assert st.stats.frames_guarded >= 1
    assert st.stats.guard_failures >= 1


def test_stock_torch_diverges_when_a_mutated_input_overlaps_itself_later(fresh_torch):
    """Why that check exists (torch 2.15, aot_eager): stock reuses the graph
    compiled at stride 5 for stride 2, and the storage differs."""
    st.uninstall()
    compiled = torch.compile(mutate_windows, backend="aot_eager", dynamic=True)
    assert run_rows(compiled, (5, 7, 2)) == [2]


def test_stock_torch_diverges_on_a_mutated_self_overlapping_input(fresh_torch):
    """Why the fallback exists (torch 2.15, aot_eager): stock's storage differs."""
    st.uninstall()
    torch._dynamo.reset()
    base_e, (x_e,) = windows()
    mutate_windows(x_e)
    base_c, (x_c,) = windows()
    torch.compile(mutate_windows, backend="aot_eager")(x_c)
    assert not torch.equal(base_c, base_e)
