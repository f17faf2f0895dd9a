"""Traceable wrapper subclasses (TwoTensor, DTensor) compile with install()
as they do stock: a mutated subclass input is decided on its inner tensors
(its memory: the members ``__tensor_flatten__`` names that are tensors),
never run eagerly for being a subclass. DTensor runs on a one-rank ``fake``
process group (no communication)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st


def mutate_and_read(x, y):
    x.add_(1)
    return x * y


def two(n=4):
    from torch.testing._internal.two_tensor import TwoTensor

    return TwoTensor(torch.arange(float(n)), torch.arange(float(n)) * 2), torch.ones(n)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.quick("caches_on-aot_eager-dynamic")
def test_mutated_two_tensor_compiles_and_equals_eager(fresh_torch, backend, dynamic):
    st.install()
    compiled = torch.compile(mutate_and_read, backend=backend, dynamic=dynamic)
    for n in (4, 6):
        x_e, y_e = two(n)
        want = mutate_and_read(x_e, y_e)
        x_c, y_c = two(n)
        got = compiled(x_c, y_c)
        # Values of the inner tensors: the output's and the mutated input's.
        assert torch.equal(got.a, want.a) and torch.equal(got.b, want.b)
        assert torch.equal(x_c.a, x_e.a) and torch.equal(x_c.b, x_e.b)
    assert st.stats.eager_fallbacks == 0, st.stats.fallback_reasons


def test_inner_tensors_are_what_the_flatten_names():
    from symalias.torch._layout import inner_tensors

    x, y = two()
    assert [t is u for t, u in zip(inner_tensors(x), [x.a, x.b])] == [True, True]
    assert inner_tensors(y) == [y]


# ---- DTensor: an optimizer step over sharded parameters (FSDP2-style) -----------


@pytest.fixture(scope="module")
def fake_mesh():
    """A one-rank ``fake`` process group (no communication) and its mesh."""
    import torch.distributed as dist
    from torch.distributed.tensor import DeviceMesh
    from torch.testing._internal.distributed.fake_pg import FakeStore

    owned = not dist.is_initialized()
    if owned:
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=1)
    try:
        yield DeviceMesh("cpu", [0])
    finally:
        if owned:
            dist.destroy_process_group()


def sgd_step(params, grads, lr):
    for p, g in zip(params, grads):
        p.add_(g, alpha=-lr)
    return params[0].sum()


def sharded(mesh, seed):
    from torch.distributed.tensor import Shard, distribute_tensor

    gen = torch.Generator().manual_seed(seed)
    return [distribute_tensor(torch.randn(8, 4, generator=gen), mesh, [Shard(0)]) for _ in range(3)]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_dtensor_sgd_step_compiles_and_equals_eager(fresh_torch, fake_mesh, backend, dynamic):
    st.install()
    compiled = torch.compile(sgd_step, backend=backend, dynamic=dynamic)
    for step in range(2):
        p_e, g_e = sharded(fake_mesh, step), sharded(fake_mesh, 10 + step)
        want = sgd_step(p_e, g_e, 0.1)
        p_c, g_c = sharded(fake_mesh, step), sharded(fake_mesh, 10 + step)
        got = compiled(p_c, g_c, 0.1)
        assert torch.allclose(got.to_local(), want.to_local())
        assert all(torch.allclose(c.to_local(), e.to_local()) for c, e in zip(p_c, p_e))
    assert st.stats.eager_fallbacks == 0, st.stats.fallback_reasons


def test_inner_tensors_skip_opaque_members(fake_mesh):
    from symalias.torch._layout import inner_tensors

    (p,) = sharded(fake_mesh, 0)[:1]
    assert [t is p._local_tensor for t in inner_tensors(p)] == [True]


# ---- wrapper subclasses that share storages ----------------------------------------
# PyTorch's own aliasing tests (test_aotdispatch.py) run their frames with
# inputs made under TwoTensorMode (``make_inputs_subclasses=True``), through
# plain ``aot_function``. The same frames here, in our words: installed must
# do what stock does -- compile, or raise stock's own error.


def mutate_both(a, b):
    a.mul_(3)
    b.mul_(2)
    return a + b


def mutate_one(a):
    a.mul_(2)
    return a + 1


def mutate_first_of_three(a, b, c):
    a.mul_(2)
    return b + 1, c + 1


def rows(req_grad, i, j):
    base = torch.ones(4, 4, requires_grad=req_grad)
    x = base.add(1)
    return [x[i : i + 2], x[j : j + 2]]


def column(req_grad):
    x = torch.ones(2, 2, requires_grad=req_grad).add(1)
    return [x[:, 0]]


def two_rows_and_another(req_grad):
    x = torch.ones(4, 4).add(1)
    c = torch.ones(4, 4, requires_grad=req_grad).add(1)
    return [x[0:2], x[1:3], c]


AOT_CASES = {
    "false_aliasing": (mutate_both, lambda r: rows(r, 0, 2)),
    "true_aliasing": (mutate_both, lambda r: rows(r, 0, 1)),
    "noncontiguous": (mutate_one, column),
    "aliases_and_none_require_gradients": (mutate_first_of_three, two_rows_and_another),
}


def aot_outcome(fn, make, req_grad, keep):
    """``right``/``wrong`` against eager, or the error (type, first line)."""
    from functorch.compile import aot_function, nop
    from torch.testing._internal.two_tensor import TwoTensorMode

    with TwoTensorMode():
        ins_e, ins_c = make(req_grad), make(req_grad)
    try:
        want = fn(*ins_e)
        got = aot_function(fn, nop, keep_inference_input_mutations=keep)(*ins_c)
    except Exception as e:
        return f"{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0]}"
    outs = zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,))
    same = all(torch.equal(w.detach(), g.detach()) for w, g in outs)
    return "right" if same and all(torch.equal(e.detach(), c.detach()) for e, c in zip(ins_e, ins_c)) else "wrong"


@pytest.mark.parametrize("keep", [True, False], ids=["keep_mutations", "no_keep"])
@pytest.mark.parametrize("req_grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("case", list(AOT_CASES))
def test_aot_function_on_subclass_inputs_does_what_stock_does(case, req_grad, keep):
    fn, make = AOT_CASES[case]
    st.uninstall()
    stock = aot_outcome(fn, make, req_grad, keep)
    st.install()
    try:
        installed = aot_outcome(fn, make, req_grad, keep)
    finally:
        st.uninstall()
    assert installed == stock
    if case == "false_aliasing":
        assert installed == "right"  # was a conservative merge, refused by torch


def two_tensor_rows(i, j):
    from torch.testing._internal.two_tensor import TwoTensorMode

    with TwoTensorMode():
        x = torch.ones(6, 4).add(1).mul(torch.arange(4.0))
    return x, (x[i : i + 2], x[j : j + 2])


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_two_tensor_views_follow_a_changed_pattern(fresh_torch, backend):
    """Disjoint, then overlapping, then shifted row blocks of one TwoTensor:
    each call equals eager (stock reuses the disjoint graph on the
    overlapping call, bug B4). Static shapes: with ``dynamic=True`` Dynamo
    itself fails on such inputs, stock and installed alike."""
    st.install()
    compiled = torch.compile(mutate_both, backend=backend, dynamic=False)
    for ij in ((0, 3), (0, 1), (1, 4)):
        x_e, args_e = two_tensor_rows(*ij)
        want = mutate_both(*args_e)
        x_c, args_c = two_tensor_rows(*ij)
        got = compiled(*args_c)
        assert torch.equal(got.a, want.a) and torch.equal(got.b, want.b)
        assert torch.equal(x_c.a, x_e.a) and torch.equal(x_c.b, x_e.b)


def test_storage_groups_join_wrappers_by_inner_storages():
    from symalias.torch._layout import storage_groups

    _, (a, b) = two_tensor_rows(0, 3)
    other = torch.ones(3)
    assert storage_groups([a, other, b]) == [[0, 2]]
