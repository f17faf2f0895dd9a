"""Where torch's own passes answer an aliasing question wrong inside the
graph (issue 62), each compiled installed and stock: installed equals eager
(outputs and every input's bytes), stock does not -- so each test can fail.

1. Inductor's no-op removal (``_noops``): ``v * 1``, ``v + 0``, a clone
   replaced by ``v`` although ``v``'s bytes are written before a reader, or
   although the result, returned, then is the input itself.
2. Inductor's inlining of a value computed from the bytes a custom op
   writes (``_inline``): read again after the op, it is recomputed from
   what the op wrote.
"""

from __future__ import annotations

import logging

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st

dynamic = pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
backends = pytest.mark.parametrize("backend", ["aot_eager", "inductor"])


def run(fn, make, backend, dyn, *, install):
    """(compiled outputs, eager outputs, compiled inputs, eager inputs)."""
    torch._dynamo.reset()
    st.uninstall()
    if install:
        st.install()
    eager_args, comp_args = make(), make()
    want = fn(*eager_args)
    got = torch.compile(fn, backend=backend, dynamic=dyn)(*comp_args)
    return got, want, comp_args, eager_args


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def equals_eager(fn, make, backend, dyn, *, install):
    """Whether ``fn`` compiled equals eager: outputs and every input's bytes."""
    got, want, comp_args, eager_args = run(fn, make, backend, dyn, install=install)
    same_out = all(torch.equal(a, b) for a, b in zip(as_tuple(got), as_tuple(want)))
    same_in = all(torch.equal(a, b) for a, b in zip(comp_args, eager_args))
    return same_out and same_in


def buffer():
    return (torch.arange(8.0),)


# ---- 1. no-op removal: a read moved past a write (pytorch#198131) ----


def read_then_zero(x):
    y = x[1:3] * 1.0
    x.zero_()
    return y + 0


def fresh_times_one(x):
    y = (x * 2) * 1
    x.zero_()
    return y


@dynamic
@backends
@pytest.mark.quick("caches_on-inductor-static")
def test_a_no_op_whose_operand_is_written_before_its_reader_is_kept(fresh_torch, backend, dynamic):
    if backend == "inductor":
        assert not equals_eager(read_then_zero, buffer, backend, dynamic, install=False)
    assert equals_eager(read_then_zero, buffer, backend, dynamic, install=True)
    if backend == "inductor" and fresh_torch.compiler.config.force_disable_caches:
        assert st.stats.noops_kept >= 1


@dynamic
def test_a_no_op_over_a_fresh_value_is_still_removed(fresh_torch, dynamic):
    assert equals_eager(fresh_times_one, buffer, "inductor", dynamic, install=True)
    assert st.stats.noops_kept == 0


# ---- 1. no-op removal: the result returned is the input (pytorch#197893) ----


def times_one(x):
    return x * 1


def plus_zero(x):
    return x + 0


def over_one(x):
    return x / 1.0


def view_times_one(x):
    return x[2:6] * 1


@dynamic
@backends
@pytest.mark.parametrize("fn", [times_one, plus_zero, over_one, view_times_one], ids=lambda f: f.__name__)
@pytest.mark.quick("caches_on-times_one-inductor-static")
def test_a_returned_no_op_never_is_its_input(fresh_torch, fn, backend, dynamic):
    def shares(install):
        got, want, comp_args, _ = run(fn, buffer, backend, dynamic, install=install)
        assert torch.equal(got, want)
        return got.untyped_storage().data_ptr() == comp_args[0].untyped_storage().data_ptr()

    if backend == "inductor":
        assert shares(False)  # stock: an in-place update of the result writes the input
    assert not shares(True)


# ---- 2. a value inlined after a custom op wrote what it reads ----


@torch.library.custom_op("symalias_test::add_then_read", mutates_args=("a",))
def add_then_read(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Writes ``a``, then reads ``b``."""
    a.add_(1)
    return b * 2


@add_then_read.register_fake
def _(a, b):
    return torch.empty_like(b)


def computed_then_written(x):
    s = x * 2
    r = add_then_read(x, s)
    s.add_(1)
    return s, r


def strided_buffer():
    return (torch.arange(16.0)[::2],)


@dynamic
@backends
@pytest.mark.quick("caches_on-inductor-static")
def test_a_value_computed_from_written_bytes_is_read_as_computed(fresh_torch, backend, dynamic):
    if backend == "inductor":
        assert not equals_eager(computed_then_written, buffer, backend, dynamic, install=False)
    assert equals_eager(computed_then_written, buffer, backend, dynamic, install=True)
    if backend == "inductor" and fresh_torch.compiler.config.force_disable_caches:
        assert st.stats.inline_protected >= 1
        assert st.stats.eager_fallbacks == 0


def test_the_written_argument_is_cloned_only_with_the_hazard(fresh_torch):
    def no_hazard(x):
        s = x * 2
        return add_then_read(x, s)

    assert equals_eager(no_hazard, buffer, "inductor", False, install=True)
    assert st.stats.inline_protected == 0


def test_a_strided_written_argument_runs_the_frame_eagerly(fresh_torch, caplog):
    # (a plain clone would lose the layout the op's view is regenerated from)
    assert not equals_eager(computed_then_written, strided_buffer, "inductor", False, install=False)
    with caplog.at_level(logging.WARNING, logger="symalias.torch"):
        assert equals_eager(computed_then_written, strided_buffer, "inductor", False, install=True)
    if fresh_torch.compiler.config.force_disable_caches:
        assert st.stats.fallback_kinds == {"inline": 1}
        assert any("eagerly (inline)" in r.getMessage() for r in caplog.records)
