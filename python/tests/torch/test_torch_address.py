"""Alias checks in user code (issue 49, ``_address``): ``a.data_ptr() ==
b.data_ptr()``, ``a.untyped_storage().data_ptr() == ...``,
``a.is_set_to(b)`` and ``torch._C._is_alias_of(a, b)`` on a frame's
inputs. Stock torch 2.15 cannot trace any of them (``fullgraph=True``
fails); installed, each is a constant of the graph backed by an
``AddressCheck``: no graph break, the result equals eager for every
aliasing, and a call whose aliasing answers otherwise compiles again."""

from __future__ import annotations

import pickle

import pytest

torch = pytest.importorskip("torch")
from torch._dynamo.testing import CompileCounterWithBackend

import symalias._native as native
import symalias.torch as st

# Each computes before it asks, so that a graph break shows in
# ``torch._dynamo.explain`` (a break before any op leaves no graph to count).


def by_data_ptr(a, b):
    y = a * 2
    return y + 1 if a.data_ptr() == b.data_ptr() else y - 1


def by_storage_ptr(a, b):
    y = a * 2
    return y + 1 if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr() else y * 3


def by_is_set_to(a, b):
    y = a * 2
    return y * 2 if a.is_set_to(b) else y - 2


def by_is_alias_of(a, b):
    y = a * 2
    return y + 5 if torch._C._is_alias_of(a, b) else y * 5


CHECKS = [by_data_ptr, by_storage_ptr, by_is_set_to, by_is_alias_of]


def pairs():
    """Calls whose answers differ: disjoint views of one storage, one view
    twice (two objects), two storages, then the first again."""
    x, y = torch.arange(8.0), torch.arange(8.0) + 10
    return [(x[:4], x[4:]), (x[:4], x[:4]), (x[:4], y[:4]), (x[4:], x[:4])]


@pytest.mark.parametrize("fn", CHECKS, ids=lambda f: f.__name__)
def test_stock_cannot_trace_the_check(fn):
    st.uninstall()
    torch._dynamo.reset()
    a, b = pairs()[0]
    with pytest.raises(Exception, match=r"Unsupported|non-Tensor|Data pointer"):
        torch.compile(fn, backend="eager", fullgraph=True)(a, b)


#: Each check's question, asked in eager.
ASKED = {
    by_data_ptr: lambda a, b: a.data_ptr() == b.data_ptr(),
    by_storage_ptr: lambda a, b: a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(),
    by_is_set_to: lambda a, b: a.is_set_to(b),
    by_is_alias_of: lambda a, b: torch._C._is_alias_of(a, b),
}


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
@pytest.mark.parametrize("fn", CHECKS, ids=lambda f: f.__name__)
@pytest.mark.quick("caches_on-by_is_alias_of-aot_eager")
def test_the_check_is_a_constant_kept_by_a_run_time_check(fresh_torch, fn, backend):
    st.install()
    counter = CompileCounterWithBackend(backend)
    compiled = torch.compile(fn, backend=counter, fullgraph=True)
    answers = set()
    for a, b in pairs():
        assert torch.equal(compiled(a, b), fn(a, b))
        answers.add(bool(ASKED[fn](a, b)))
    # Both answers met; one compile for each (a call answering as an
    # earlier one reuses its graph).
    assert answers == {False, True}
    assert counter.frame_count == 2
    assert st.stats.address_constants == 2


@pytest.mark.parametrize("fn", CHECKS, ids=lambda f: f.__name__)
def test_no_graph_break_installed(fresh_torch, fn):
    a, b = pairs()[0]
    st.uninstall()
    stock = torch._dynamo.explain(fn)(a, b)
    assert stock.graph_break_count >= 1, "stock torch traces this check: revisit"
    torch._dynamo.reset()
    st.install()
    explained = torch._dynamo.explain(fn)(a, b)
    assert explained.graph_break_count == 0 and explained.graph_count == 1


class Tied(torch.nn.Module):
    """Two parameters that may be one tensor's storage (tied weights)."""

    def __init__(self, a, b):
        super().__init__()
        self.a = torch.nn.Parameter(a, requires_grad=False)
        self.b = torch.nn.Parameter(b, requires_grad=False)

    def forward(self, x):
        tied = self.a.untyped_storage().data_ptr() == self.b.untyped_storage().data_ptr()
        return x * 2 if tied else x + 3


def test_module_parameters_tied_or_not(fresh_torch):
    """Parameters reached through ``self``: one compile per answer."""
    st.install()
    base = torch.arange(8.0)
    x = torch.ones(4)
    counter = CompileCounterWithBackend("aot_eager")
    for a, b in [(base[:4], base[4:]), (torch.zeros(4), torch.zeros(4)), (base[4:], base[:4])]:
        m = Tied(a, b)
        assert torch.equal(torch.compile(m, backend=counter, fullgraph=True)(x), m(x))
    assert counter.frame_count >= 2 and st.stats.address_constants >= 2


def test_the_address_check_joins_the_frames_one_check(fresh_torch):
    """A frame that asks and also mutates aliased inputs carries one
    symalias guard, holding both facts; a frame with no graph (it only
    answers the question) still gets its check."""
    st.install()

    def asks_and_mutates(a, b):
        a.add_(1)
        return b * 2 if a.data_ptr() == b.data_ptr() else b * 3

    def only_asks(a, b):
        return a.data_ptr() == b.data_ptr()

    x = torch.arange(8.0)
    compiled = torch.compile(asks_and_mutates, backend="aot_eager", fullgraph=True)
    y = x.clone()
    assert torch.equal(compiled(x[:6], x[2:]), asks_and_mutates(y[:6], y[2:]))
    assert st.stats.frames_guarded == 1 and st.stats.address_constants == 1
    asked = torch.compile(only_asks, backend="eager", fullgraph=True)
    assert [asked(x[:4], b) for b in (x[4:], x[:4], x[4:])] == [False, True, False]


def test_a_frame_whose_inputs_changed_layout_keeps_torchs_way(fresh_torch):
    """A tensor whose metadata changed in the frame is not the input the
    check would read: torch's graph break stands."""
    st.install()

    def resized(a, b):
        a = a.view(2, 2)
        return a + 1 if a.data_ptr() == b.data_ptr() else a - 1

    a, b = pairs()[1]
    with pytest.raises(Exception, match="Data pointer"):
        torch.compile(resized, backend="eager", fullgraph=True)(a, b)


def test_the_check_pickles_and_refuses_bad_input():
    c = native.AddressCheck(members=[0, 1], relation="set_to", expected=True)
    back = pickle.loads(pickle.dumps(c))
    assert (back.members, back.relation, back.expected) == ([0, 1], "set_to", True)
    with pytest.raises(native.InputError, match=r"AddressCheck\.members"):
        native.AddressCheck(members=[0], relation="set_to", expected=True)
    with pytest.raises(native.InputError, match=r"AddressCheck\.relation"):
        native.AddressCheck(members=[0, 1], relation="same", expected=True)
