"""A custom op writing a row of a dynamic-shape input (issue 62,
``_offsets``): Inductor lowers the row's ``sym_storage_offset`` to 0, so
stock writes row 0; installed, the row written is the one eager writes."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "support"))
import catframes as cf
from reinplace_frames import bump

import symalias.torch as st


def write_row(cache):
    bump(cache[7])
    return cache * 1


def write_rows(cache, i):
    bump(cache[i])
    bump(cache[2:4])
    return cache[1:] * 2


def same(fn, make, dyn, *, install):
    torch._dynamo.reset()
    st.uninstall()
    if install:
        st.install()
    eager_args, comp_args = make(), make()
    want = fn(*eager_args)
    got = torch.compile(fn, backend="inductor", dynamic=dyn)(*comp_args)
    return torch.equal(got, want) and all(torch.equal(a, b) for a, b in zip(comp_args[:1], eager_args[:1]))


def cache():
    return (torch.arange(32.0).reshape(8, 4),)


def cache_and_index():
    return torch.arange(40.0).reshape(10, 4), 6


@pytest.mark.parametrize(("fn", "make"), [(write_row, cache), (write_rows, cache_and_index)], ids=["row", "rows"])
@pytest.mark.quick("caches_on-row")
def test_a_custom_op_writes_the_row_eager_writes(fresh_torch, fn, make):
    assert same(fn, make, False, install=False)  # static: the offset is a constant
    assert not same(fn, make, True, install=False)
    assert same(fn, make, True, install=True)
    if fresh_torch.compiler.config.force_disable_caches:
        assert st.stats.offsets_lowered >= 1


def test_the_catframes_seed_that_found_it(caches_on):
    frame = cf.make_frame(20)
    st.uninstall()
    assert cf.run_frame(frame)[0] == "wrong"
    st.install()
    assert cf.run_frame(frame)[0] == "right"
