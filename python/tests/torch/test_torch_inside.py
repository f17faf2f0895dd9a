"""Aliasing questions inside the graph (issue 48), each compiled installed
and stock: installed equals eager (outputs and every input's bytes), stock
does not -- so each test can fail.

1. A functionalized mutating op (``auto_functionalized_v2``): a read-only
   argument that overlaps a mutated one reads the op's writes, as in eager
   (``_functionalized``); a disjoint one is passed as it was. A ``torch.cond``
   whose branches write one operand and read an overlapping one runs eagerly.
2. Inductor's reinplace pass: an op is not reinplaced into a graph input
   whose epilogue then overwrites the op's still-read result
   (``_epilogue``); where the result is what the epilogue writes back, it
   still is.
3. An in-place op whose written-to tensor partially overlaps an input
   raises eager's error when compiled (``_overlap_errors``); full overlap
   and disjoint views compile.
"""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st

BACKENDS = ["aot_eager", "inductor"]
dynamic = pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
backends = pytest.mark.parametrize("backend", BACKENDS)


@torch.library.custom_op("symalias_test::add_one_read", mutates_args=("a",))
def add_one_read(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Writes ``a``, then reads ``b``."""
    a.add_(1)
    return b.clone()


@add_one_read.register_fake
def _(a, b):
    return torch.empty_like(b)


def overlapping_args(x):
    return add_one_read(x[0:4], x[2:6])


@torch.library.custom_op("symalias_test::bump_bits_read", mutates_args=("a",))
def bump_bits_read(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Writes ``a`` (an int32 view of float bits), then reads ``b``."""
    a.add_(1 << 20)
    return b * 1


@bump_bits_read.register_fake
def _(a, b):
    return torch.empty_like(b)


def overlapping_args_of_two_dtypes(x):
    return bump_bits_read(x.view(torch.int32)[0:4], x[2:6])


def disjoint_args(x):
    return add_one_read(x[0:4], x[4:8])


def cond_reads_after_write(x):
    a, b = x[0:4], x[2:6]

    def branch(a, b):
        a.add_(1)
        return b.clone()

    return torch.cond(a.sum() > 0, branch, branch, (a, b))


def scatter_then_zero(x, src):
    y = torch.slice_scatter(x, src, 0, 1, 3)
    x.zero_()
    return y


def fill_clone_clamp(x, idx):
    x.index_fill_(0, idx, -1.0)
    y = x.clone()
    x.clamp_(min=0)
    return y


def scatter_written_back(x, src):
    y = torch.slice_scatter(x, src, 0, 1, 3)
    x.copy_(y)
    return y * 2


def compiled_equals_eager(fn, make, backend, dyn, *, install, no_grad=False):
    """Whether ``fn`` compiled equals eager: outputs and every input's bytes."""
    torch._dynamo.reset()
    st.uninstall()
    if install:
        st.install()
    eager_args, comp_args = make(), make()
    with torch.no_grad() if no_grad else torch.enable_grad():
        want = fn(*eager_args)
        got = torch.compile(fn, backend=backend, dynamic=dyn)(*comp_args)
    same_inputs = all(torch.equal(a.view(torch.uint8), b.view(torch.uint8)) for a, b in zip(comp_args, eager_args))
    return bool(torch.equal(got, want) and same_inputs)


def buffer():
    return (torch.arange(8.0),)


@dynamic
@backends
@pytest.mark.quick("caches_on-aot_eager-dynamic")
def test_read_only_argument_reads_the_mutated_bytes(fresh_torch, backend, dynamic):
    if backend == "aot_eager":
        # Stock's functional kernel reads the clone's original; inductor's
        # reinplace pass writes the buffer in place, which hides the bug.
        assert not compiled_equals_eager(overlapping_args, buffer, backend, dynamic, install=False)
    assert compiled_equals_eager(overlapping_args, buffer, backend, dynamic, install=True)
    assert st.stats.functional_rereads >= 1


@dynamic
@backends
def test_read_only_argument_of_another_dtype_reads_the_mutated_bytes(fresh_torch, backend, dynamic):
    if backend == "aot_eager":
        assert not compiled_equals_eager(overlapping_args_of_two_dtypes, buffer, backend, dynamic, install=False)
    assert compiled_equals_eager(overlapping_args_of_two_dtypes, buffer, backend, dynamic, install=True)


@dynamic
@backends
def test_disjoint_read_only_argument_is_passed_as_it_was(fresh_torch, backend, dynamic):
    assert compiled_equals_eager(disjoint_args, buffer, backend, dynamic, install=True)
    assert st.stats.functional_rereads == 0


@dynamic
@backends
def test_cond_branches_read_after_their_write(fresh_torch, backend, dynamic):
    if backend == "aot_eager":
        assert not compiled_equals_eager(cond_reads_after_write, buffer, backend, dynamic, install=False, no_grad=True)
    assert compiled_equals_eager(cond_reads_after_write, buffer, backend, dynamic, install=True, no_grad=True)
    # (its subgraph is functionalized on its own: the frame runs eagerly)
    assert st.stats.eager_fallbacks >= 1


def scatter_inputs():
    return torch.arange(6.0), torch.full((2,), 9.0)


def fill_inputs():
    return torch.arange(6.0) - 2, torch.tensor([0, 3])


@dynamic
@pytest.mark.parametrize(
    ("fn", "make"), [(scatter_then_zero, scatter_inputs), (fill_clone_clamp, fill_inputs)], ids=["scatter", "fill"]
)
@pytest.mark.quick("caches_on-scatter-static")
def test_no_reinplacing_into_an_input_the_epilogue_overwrites(fresh_torch, fn, make, dynamic):
    assert not compiled_equals_eager(fn, make, "inductor", dynamic, install=False)
    assert compiled_equals_eager(fn, make, "inductor", dynamic, install=True)
    assert st.stats.reinplace_protected >= 1


@dynamic
def test_reinplacing_kept_where_the_result_is_written_back(fresh_torch, dynamic):
    assert compiled_equals_eager(scatter_written_back, scatter_inputs, "inductor", dynamic, install=True)
    assert st.stats.reinplace_protected == 0


def partial_in_place(x):
    a, b = x[2:6], x[0:4]
    a.add_(b)
    return x * 1


def full_and_disjoint_in_place(x):
    x[0:4].add_(x[4:8])
    x.mul_(x)
    return x * 1


def compiled_error(fn, backend, dyn, *, install):
    """The message of what compiling and calling ``fn`` raised, or None."""
    torch._dynamo.reset()
    st.uninstall()
    if install:
        st.install()
    try:
        torch.compile(fn, backend=backend, dynamic=dyn)(torch.arange(8.0))
    except Exception as e:
        return str(e)
    return None


@dynamic
@backends
@pytest.mark.quick("caches_on-aot_eager-static")
def test_partial_overlap_in_place_raises_eagers_error(fresh_torch, backend, dynamic):
    with pytest.raises(RuntimeError, match="refer to a single memory location") as eager:
        partial_in_place(torch.arange(8.0))
    assert compiled_error(partial_in_place, backend, dynamic, install=False) is None
    got = compiled_error(partial_in_place, backend, dynamic, install=True)
    assert got is not None and str(eager.value) in got
    assert st.stats.partial_overlap_errors >= 1


@dynamic
@backends
def test_full_overlap_and_disjoint_in_place_compile(fresh_torch, backend, dynamic):
    assert compiled_equals_eager(full_and_disjoint_in_place, buffer, backend, dynamic, install=True)
    assert st.stats.partial_overlap_errors == 0


# ---- the random tester (support/inframes.py): a smoke set, and what it found ----

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "support"))
import inframes

#: Smoke seeds whose installed outcome stock torch shares (``inframes.py``
#: runs both): torch's bugs, not symalias's. None since issue 62 (seed 23 is
#: in ``FOUND``).
KNOWN_TORCH: dict[int, str] = {}
SMOKE = [s for s in range(24) if s not in KNOWN_TORCH]


@pytest.mark.parametrize("seed", SMOKE)
def test_random_program_equals_eager_installed(caches_on, seed):
    frame = inframes.make_frame(seed)
    outcome, detail = inframes.run_frame(frame, install=True)
    assert outcome == "right", f"{detail}\n{frame.source}"


#: Seeds the generator found on its own, by class (issue 48): stock gets
#: them wrong, installed right.
FOUND = {
    3: "answered",  # class 3: copy_ between partially overlapping views
    6: "wrong",  # class 1: add_read(w[7:9], w[8:9]) under aot_eager
    15: "wrong",  # class 1: torch.cond writing one operand, reading an overlapping one
    47: "wrong",  # an uncloned base's views materialized apart by Inductor
    395: "wrong",  # class 2 (with class 1): a scatter into an input the epilogue overwrites
    # issue 62, torch's own bugs:
    23: "wrong",  # dynamic: a no-op over a custom op's written argument removed (_noops)
    329: "wrong",  # a value inlined after a custom op wrote what it reads (_inline)
    476: "wrong",  # post-grad no-op removal of a clone whose operand is written later (_noops)
}


@pytest.mark.parametrize("seed", sorted(FOUND))
def test_what_the_generator_found_stock_gets_wrong(caches_on, seed):
    frame = inframes.make_frame(seed)
    assert inframes.run_frame(frame, install=False)[0] == FOUND[seed]
    assert inframes.run_frame(frame, install=True)[0] == "right"
