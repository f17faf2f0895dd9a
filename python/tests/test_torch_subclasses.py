"""Traceable wrapper subclasses (TwoTensor here) compile with install() as
they do stock: a mutated subclass input is decided on its inner tensors (its
memory), never run eagerly for being a subclass. (Issue 32 item 3 in part:
DTensor, and subclass groups that share a storage, are open.)"""

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
    from symalias.torch._decision import inner_tensors

    x, y = two()
    assert [t is u for t, u in zip(inner_tensors(x), [x.a, x.b])] == [True, True]
    assert inner_tensors(y) == [y]
