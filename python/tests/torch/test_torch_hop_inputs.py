"""Higher-order ops whose inputs share a storage (issue 49): torch 2.15
refuses any two inputs of one storage in a ``nested_compile_region``,
``cond``, ``map`` (grad on) and ``while_loop`` -- ``attn(*t.chunk(3, -1))``
is an error even without ``fullgraph``. Installed, two inputs conflict only
when one is written and they may share a byte for some allowed shape:
read-only inputs, and written inputs disjoint in bytes for every allowed
shape, compile and equal eager (outputs, grads, the input's bytes); a
written input that overlaps another is still refused with torch's error."""

import pytest

torch = pytest.importorskip("torch")
from functorch.experimental.control_flow import map as cf_map
from torch._higher_order_ops.while_loop import while_loop

import symalias.torch as st


@torch.compiler.nested_compile_region
def attn(q, k, v):
    return torch.softmax(q @ k.transpose(-1, -2), -1) @ v


@torch.compiler.nested_compile_region
def update(a, b):
    a.add_(b.mean(-1, keepdim=True))
    return b.sum()


def region_chunks(t):
    return attn(*t.chunk(3, -1))


def region_overlapping_reads(t):
    return attn(t[:, :4], t[:, 2:], t[:, 1:5])


def cond_chunks(t):
    q, k, v = t.chunk(3, -1)
    return torch.cond(t.sum() > 0, lambda q, k, v: q + k * v, lambda q, k, v: q - k, (q, k, v))


def map_chunks(t):
    q, k = t.chunk(2, -1)
    return cf_map(lambda a, b: a * b + 1, q, k)


def loop_reads_captured_chunk(t):
    q, k = t.chunk(2)
    return while_loop(lambda i, q: i < 3, lambda i, q: (i + 1, q * 2 + k), (torch.tensor(0), q))[1]


def loop_reads_overlapping_capture(t):
    q, k = t[:3], t[1:]
    return while_loop(lambda i, q: i < 3, lambda i, q: (i + 1, q * 2 + k[:3]), (torch.tensor(0), q))[1]


def region_writes_a_chunk(t):
    return update(*t.chunk(2, -1))


def region_writes_an_overlap(t):
    return update(t[:, :4], t[:, 2:])


#: name -> (program, with grad): read-only programs run forward and
#: backward; the writing ones under ``no_grad`` on the input itself.
ACCEPTED = {
    "region_chunks": (region_chunks, True),
    "region_overlapping_reads": (region_overlapping_reads, True),
    "cond_chunks": (cond_chunks, True),
    "map_chunks": (map_chunks, True),
    "loop_reads_captured_chunk": (loop_reads_captured_chunk, True),
    "loop_reads_overlapping_capture": (loop_reads_overlapping_capture, True),
    "region_writes_a_chunk": (region_writes_a_chunk, False),
}


def run(fn, grad, backend, dynamic):
    """Eager and compiled on equal inputs: the output, then the grad (or
    the input's bytes, for a program that writes it), compiled equal eager."""
    base = torch.randn(4, 6)
    results = []
    for compiled in (False, True):
        t = base.clone().requires_grad_(grad)
        f = torch.compile(fn, backend=backend, dynamic=dynamic, fullgraph=True) if compiled else fn
        with torch.enable_grad() if grad else torch.no_grad():
            out = f(t)
            if grad:
                out.sum().backward()
        results.append((out.detach(), t.grad if grad else t.detach().clone()))
    (want, want_after), (got, got_after) = results
    return torch.allclose(got, want, atol=1e-5) and torch.allclose(got_after, want_after, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_stock_refuses_inputs_of_one_storage(name):
    st.uninstall()
    torch._dynamo.reset()
    fn, grad = ACCEPTED[name]
    with pytest.raises(Exception, match="aliasing"):
        run(fn, grad, "aot_eager", False)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("name", sorted(ACCEPTED))
@pytest.mark.quick("caches_on-region_chunks-aot_eager-dynamic")
def test_read_only_or_disjoint_inputs_compile_and_equal_eager(fresh_torch, name, backend, dynamic):
    st.install()
    fn, grad = ACCEPTED[name]
    assert run(fn, grad, backend, dynamic)
    assert st.stats.hop_shared_inputs >= 1


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.quick("caches_on-static")
def test_a_written_input_overlapping_another_is_refused(fresh_torch, dynamic):
    st.uninstall()
    with pytest.raises(Exception, match="Input-to-input aliasing"):
        run(region_writes_an_overlap, False, "aot_eager", dynamic)
    torch._dynamo.reset()
    st.install()
    with pytest.raises(Exception, match=r"Input-to-input aliasing.*symalias"):
        run(region_writes_an_overlap, False, "aot_eager", dynamic)


def region_writes_at(t, n):
    """``t[:, :n]`` written beside ``t[:, n:]`` (disjoint for every ``n``)."""
    return update(t[:, :n], t[:, n:])


def region_writes_beside_two(t, n):
    """``t[:, :n]`` written beside ``t[:, 2:]``: disjoint at ``n = 2`` only."""
    return update(t[:, :n], t[:, 2:])


def test_symbolic_written_inputs_need_a_proof(fresh_torch):
    """With ``n`` a dynamic int, a split at ``n`` is proved disjoint for
    every allowed ``n`` and compiles; ``[:n]`` beside ``[2:]`` is disjoint
    at the hint ``n = 2`` but not for every ``n``, so it is refused."""
    st.install()
    x = torch.randn(4, 6)
    y = x.clone()
    g = torch.compile(region_writes_at, backend="aot_eager", dynamic=True, fullgraph=True)
    with torch.no_grad():
        for n in (2, 3):
            assert torch.equal(g(y, n), region_writes_at(x, n)) and torch.equal(x, y)
        torch._dynamo.reset()
        with pytest.raises(Exception, match=r"Input-to-input aliasing.*symalias"):
            torch.compile(region_writes_beside_two, backend="aot_eager", dynamic=True, fullgraph=True)(y, 2)
