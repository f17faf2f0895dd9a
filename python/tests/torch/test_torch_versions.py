"""Autograd's in-place check on a saved view of an input (issue 62,
``_versions``, pytorch#197887): eager raises when an input whose view the
backward needs is written before ``backward()``; stock Inductor saves the
view with a version counter of its own and returns a gradient of the new
values; installed, the check holds -- and gradients without a write are
unchanged."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st

dynamic = pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
backends = pytest.mark.parametrize("backend", ["aot_eager", "inductor"])


def matmul(x, w):
    return x @ w


def batched(x, w):
    return torch.bmm(x, w.expand(2, 3, 3))


def inputs(fn):
    x = torch.arange(12.0).reshape(2, 2, 3) / 7 if fn is batched else torch.arange(6.0).reshape(2, 3) / 7
    w = (torch.arange(9.0).reshape(3, 3) / 5).requires_grad_()
    return x, w


def backward_after_write(fn, backend, dyn, *, install, compiled=True):
    """What ``backward()`` does after the input is written: the gradient,
    or "raised"."""
    torch._dynamo.reset()
    st.uninstall()
    if install:
        st.install()
    x, w = inputs(fn)
    f = torch.compile(fn, backend=backend, dynamic=dyn) if compiled else fn
    y = f(x, w)
    x.mul_(2)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return "raised" if "modified by an inplace operation" in str(e) else f"raised {e}"
    return w.grad


@dynamic
@backends
@pytest.mark.parametrize("fn", [matmul, batched], ids=["mm", "bmm"])
@pytest.mark.quick("caches_on-mm-inductor-static")
def test_a_write_before_backward_raises_as_in_eager(fresh_torch, fn, backend, dynamic):
    assert backward_after_write(fn, backend, dynamic, install=False, compiled=False) == "raised"
    stock = backward_after_write(fn, backend, dynamic, install=False)
    if backend == "inductor":
        assert isinstance(stock, torch.Tensor)  # stock: a gradient of values no forward saw
    assert backward_after_write(fn, backend, dynamic, install=True) == "raised"


@dynamic
@backends
@pytest.mark.parametrize("fn", [matmul, batched], ids=["mm", "bmm"])
def test_gradients_without_a_write_are_unchanged(fresh_torch, fn, backend, dynamic):
    st.install()
    xe, we = inputs(fn)
    fn(xe, we).sum().backward()
    f = torch.compile(fn, backend=backend, dynamic=dynamic)
    for _ in range(2):  # the second call: the pairs found on the first
        xc, wc = inputs(fn)
        f(xc, wc).sum().backward()
        assert torch.allclose(wc.grad, we.grad)
    if backend == "inductor" and fresh_torch.compiler.config.force_disable_caches:
        assert st.stats.saved_views_tied == 2
