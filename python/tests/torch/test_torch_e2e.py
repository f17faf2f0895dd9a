"""torch.compile with symalias installed equals eager: outputs and the final
bytes of every storage, on torch's own wrong-result examples and wider cases
(several mutated inputs, 3-D views, as_strided windows, copy_/fill_/index_put_
on slices, mutated inputs returned, dynamic shapes, two-call cases whose
aliasing pattern changes). Compile caches are off (fixture ``fresh_torch``)."""

import logging

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st


def run_case(fn, make, *, backend, dynamic=None, install=True):
    """Runs ``make()`` -> (args, storages) through eager and compiled ``fn``
    (fresh data each) and returns (outputs equal, storages equal)."""
    torch._dynamo.reset()
    if install:
        st.install()
    else:
        st.uninstall()
    args_e, stor_e = make()
    want = fn(*args_e)
    args_c, stor_c = make()
    got = torch.compile(fn, backend=backend, dynamic=dynamic)(*args_c)
    return same(got, want), all(torch.equal(a.view(torch.uint8), b.view(torch.uint8)) for a, b in zip(stor_c, stor_e))


def same(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    return a == b


# ---- the three wrong-result examples of the issue ----------------------------


def add_then_double(a, b):
    a.add_(1)
    return b * 2


def rows_and_column_block():
    m = torch.zeros(4, 4)
    return (m[:, :2], m[1:2, :2]), [m]


def float_and_its_bytes():
    z = torch.zeros(4)
    return (z[2:3], z.view(torch.uint8)[8:12]), [z]


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.quick("caches_on-inductor")
def test_issue_example_rows_and_column_block(fresh_torch, backend):
    stock = run_case(add_then_double, rows_and_column_block, backend=backend, install=False)
    assert stock != (True, True), "stock torch.compile got this right: the bug is fixed upstream"
    assert run_case(add_then_double, rows_and_column_block, backend=backend) == (True, True)


def test_issue_example_itemsize_ignored(fresh_torch, caplog):
    """A float and its bytes, one mutated: compiled over a byte-level
    synthetic base (no fallback since issue 23)."""
    stock = run_case(add_then_double, float_and_its_bytes, backend="aot_eager", install=False)
    assert stock != (True, True), "stock torch.compile got this right: the bug is fixed upstream"
    with caplog.at_level(logging.WARNING, logger="symalias.torch"):
        assert run_case(add_then_double, float_and_its_bytes, backend="aot_eager") == (True, True)
    if not st.features()["byte_bases"]:
        # A torch without the hook points (2.11, 2.12): right, by running eagerly.
        assert st.stats.dtype_fallbacks == 1
        return
    assert st.stats.dtype_fallbacks == 0 and st.stats.eager_fallbacks == 0
    assert not any("eagerly" in r.message for r in caplog.records)


def test_issue_example_itemsize_ignored_inductor(fresh_torch):
    assert run_case(add_then_double, float_and_its_bytes, backend="inductor") == (True, True)


# ---- wider cases ---------------------------------------------------------------


def several_mutated(a, b, c):
    a.mul_(2)
    b.add_(1)
    c.sub_(3)
    return a.sum() + b.sum() * 10 + c.sum() * 100


def several_mutated_inputs():
    x = torch.arange(16.0)
    return (x[0:6], x[4:10], x[12:16]), [x]


def three_d(a, b):
    a.add_(1)
    return b * 3


def three_d_views():
    x = torch.arange(64.0).view(4, 4, 4)
    return (x[:, 1:3, :], x[1:3, :, 1:3]), [x]


def three_d_disjoint():
    x = torch.arange(64.0).view(4, 4, 4)
    return (x[:, :, :2], x[:, :, 2:]), [x]


def mul_then_add(a, b):
    a.mul_(2)
    return a + b


def as_strided_b0():
    base = torch.arange(64.0)
    return (base.as_strided((4, 4), (9, 1), 0), base.as_strided((4, 4), (9, 1), 9)), [base]


def as_strided_disjoint():
    base = torch.arange(64.0)
    return (base.as_strided((4, 4), (9, 1), 0), base.as_strided((4, 4), (9, 1), 22)), [base]


def copy_into(a, b):
    a.copy_(b * 3)
    return b + 1


def fill_then_read(a, b):
    a.fill_(5)
    return b.sum()


def index_put(a, b):
    a.index_put_((torch.tensor([0, 2]),), torch.tensor([7.0, 9.0]))
    return b * 2


def overlapping_slices():
    x = torch.arange(12.0)
    return (x[0:6], x[3:9]), [x]


def mutated_and_returned(a, b):
    a.add_(1)
    return a, b * 2


WIDER = [
    (several_mutated, several_mutated_inputs),
    (three_d, three_d_views),
    (three_d, three_d_disjoint),
    (mul_then_add, as_strided_b0),
    (mul_then_add, as_strided_disjoint),
    (copy_into, overlapping_slices),
    (fill_then_read, overlapping_slices),
    (index_put, overlapping_slices),
    (mutated_and_returned, overlapping_slices),
    (mutated_and_returned, rows_and_column_block),
]


@pytest.mark.parametrize("dynamic", [None, True])
@pytest.mark.parametrize(("fn", "make"), WIDER, ids=lambda x: getattr(x, "__name__", ""))
def test_wider_cases_equal_eager(fresh_torch, fn, make, dynamic):
    assert run_case(fn, make, backend="aot_eager", dynamic=dynamic) == (True, True)


@pytest.mark.parametrize(("fn", "make"), [(mul_then_add, as_strided_b0), (several_mutated, several_mutated_inputs)])
def test_wider_cases_inductor(fresh_torch, fn, make):
    assert run_case(fn, make, backend="inductor", dynamic=True) == (True, True)


# ---- two calls whose aliasing pattern changes ---------------------------------------


def two_calls(fn, first, second, *, dynamic, backend="aot_eager", install=True):
    """Compiles once, calls on ``first()`` then on ``second()``; each call is
    compared with eager on fresh data."""
    torch._dynamo.reset()
    (st.install if install else st.uninstall)()
    compiled = torch.compile(fn, backend=backend, dynamic=dynamic)
    results = []
    for make in (first, second):
        args_e, stor_e = make()
        want = fn(*args_e)
        args_c, stor_c = make()
        got = compiled(*args_c)
        results.append(
            same(got, want)
            and all(torch.equal(a.view(torch.uint8), b.view(torch.uint8)) for a, b in zip(stor_c, stor_e))
        )
    return results


def disjoint_pair():
    x = torch.arange(16.0)
    return (x[0:4], x[4:8]), [x]


def overlapping_pair():
    x = torch.arange(16.0)
    return (x[0:4], x[2:6]), [x]


def overlapping_pair_moved():
    x = torch.arange(16.0)
    return (x[6:10], x[8:12]), [x]


def overlapping_pair_bigger_storage():
    x = torch.arange(32.0)
    return (x[0:4], x[2:6]), [x]


def separate_tensors():
    x, y = torch.arange(4.0), torch.arange(4.0) + 100
    return (x, y), [x, y]


def same_tensor_twice_as_views():
    x = torch.arange(8.0)
    return (x[0:4], x[0:4]), [x]


PATTERNS = [
    (disjoint_pair, overlapping_pair),
    (overlapping_pair, disjoint_pair),
    (overlapping_pair, overlapping_pair_moved),
    (overlapping_pair, overlapping_pair_bigger_storage),
    (separate_tensors, same_tensor_twice_as_views),
    (disjoint_pair, same_tensor_twice_as_views),
]


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(("first", "second"), PATTERNS, ids=lambda x: x.__name__)
def test_two_calls_with_another_aliasing_pattern(fresh_torch, first, second, dynamic):
    assert two_calls(mul_then_add, first, second, dynamic=dynamic) == [True, True]


def test_stock_torch_reuses_a_graph_across_patterns(fresh_torch):
    """Bug B4 (static shapes, no overlap guard): the reason for the own guard.
    Kept as a check that the fix is needed on this torch."""
    outcomes = two_calls(mul_then_add, disjoint_pair, overlapping_pair, dynamic=False, install=False)
    assert outcomes == [True, False]


def test_install_fails_loudly_when_a_hook_point_moved(fresh_torch, monkeypatch):
    from torch._functorch._aot_autograd import runtime_wrappers as rw

    monkeypatch.delattr(rw, "compute_overlapping_inputs")
    with pytest.raises(st.HookError, match="compute_overlapping_inputs"):
        st.install()
    assert not st.installed()


def test_install_is_reversible(fresh_torch):
    from torch._functorch._aot_autograd import runtime_wrappers as rw

    original = rw.compute_overlapping_inputs
    with st.enabled():
        assert rw.compute_overlapping_inputs is not original
        assert st.installed()
    assert rw.compute_overlapping_inputs is original
    assert not st.installed()


def test_no_shape_env_guards_are_added(fresh_torch):
    """symalias never adds ShapeEnv guards PyTorch would not: the same
    dynamic compile leaves the same ShapeEnv guards with and without it."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_compiler

    def shape_guards(install, make):
        torch._dynamo.reset()
        (st.install if install else st.uninstall)()
        envs = []
        inner = aot_autograd(fw_compiler=make_boxed_compiler(lambda g, _: g))

        def backend(gm, example_inputs):
            envs.append(torch._guards.TracingContext.get().fake_mode.shape_env)
            return inner(gm, example_inputs)

        args, _ = make()
        torch.compile(mul_then_add, backend=backend, dynamic=True)(*args)
        (env,) = envs
        return [str(g.expr) for g in env.guards]

    # Where stock torch makes the same merge decision, the whole compile
    # guards alike. (On B0 the right, merged graph traces other ops, which
    # guard for themselves; the decision itself is checked below.)
    for make in (overlapping_pair, disjoint_pair):
        assert shape_guards(True, make) == shape_guards(False, make)


def test_the_decision_itself_adds_no_shape_env_guard(fresh_torch):
    from torch._functorch._aot_autograd import runtime_wrappers as rw

    st.install()
    decide = rw.compute_overlapping_inputs
    added = []

    def spy(aot_config, fwd_inputs, aliased_input_indices):
        # (the inputs' own fake mode: torch <= 2.12 also calls this at run
        # time, on real tensors, outside any trace)
        fake = next((t.fake_mode for t in fwd_inputs if hasattr(t, "fake_mode")), None)
        if fake is None:
            return decide(aot_config, fwd_inputs, aliased_input_indices)
        env = fake.shape_env
        before = len(env.guards)
        out = decide(aot_config, fwd_inputs, aliased_input_indices)
        added.append(len(env.guards) - before)
        return out

    rw.compute_overlapping_inputs = spy
    try:
        for make in (as_strided_b0, overlapping_pair, disjoint_pair):
            torch._dynamo.reset()
            args, _ = make()
            torch.compile(mul_then_add, backend="aot_eager", dynamic=True)(*args)
    finally:
        rw.compute_overlapping_inputs = decide
    assert added == [0, 0, 0]


def test_explain_reports_groups_witnesses_verdicts_and_guards(fresh_torch):
    base = torch.arange(64.0)
    a = base.as_strided((4, 4), (9, 1), 0)
    b = base.as_strided((4, 4), (9, 1), 9)
    report = st.explain(mul_then_add, a, b, dynamic=False)
    (group,) = report.groups
    assert group.sources == ["L['a']", "L['b']"]
    assert group.overlapping == [0, 1]
    (pair,) = [p for p in group.result.pairs if p.overlap]
    text = str(report)
    # The witness is a byte address (float32: element 9 is byte 36).
    assert pair.witness.address == 36
    assert "L['a'] overlaps L['b'] at byte 36 (L['a'][1, 0], L['b'][0, 0])" in text
    assert "run-time guard:" in text and "share one storage" in text
    assert "verdict: static shapes" in text
    # Dynamic: the verdict line says whether it is proved.
    x = torch.zeros(10)
    dyn = st.explain(mul_then_add, x[:5], x[5:], dynamic=True)
    assert "verdict: proved for all shapes" in str(dyn)
    assert dyn.groups[0].invariant is True


@pytest.mark.quick("caches_on")
def test_training_gradients_equal_eager(fresh_torch):
    def f(a, b):
        a.mul_(2)
        return (a + b).sum()

    def make():
        w = torch.arange(16.0, requires_grad=True)
        x = w * 1.0
        return w, x[0:6], x[3:9]

    st.install()
    w, a, b = make()
    want = f(a, b)
    want.backward()
    w2, a2, b2 = make()
    got = torch.compile(f, backend="aot_eager")(a2, b2)
    got.backward()
    assert torch.equal(got, want)
    assert torch.equal(w2.grad, w.grad)


def test_dtype_fallback_works_with_fullgraph(fresh_torch):
    st.install()
    z, z2 = torch.zeros(4), torch.zeros(4)
    got = torch.compile(add_then_double, backend="aot_eager", fullgraph=True)(z[2:3], z.view(torch.uint8)[8:12])
    want = add_then_double(z2[2:3], z2.view(torch.uint8)[8:12])
    assert torch.equal(got, want) and torch.equal(z, z2)
    # The frame stays cached under its guards: a disjoint call compiles.
    y, y2 = torch.zeros(8), torch.zeros(8)
    got = torch.compile(add_then_double, backend="aot_eager", fullgraph=True)(y[0:1], y.view(torch.uint8)[16:20])
    assert torch.equal(got, add_then_double(y2[0:1], y2.view(torch.uint8)[16:20]))
    assert torch.equal(y, y2)


@pytest.mark.parametrize(
    ("first", "second", "dynamic"),
    [
        (overlapping_pair, overlapping_pair_moved, False),
        (disjoint_pair, overlapping_pair, True),
        (separate_tensors, same_tensor_twice_as_views, True),
    ],
    ids=["static-moved", "dynamic-disjoint-then-overlap", "dynamic-cross-storage"],
)
def test_two_calls_inductor(fresh_torch, first, second, dynamic):
    assert two_calls(mul_then_add, first, second, dynamic=dynamic, backend="inductor") == [True, True]
