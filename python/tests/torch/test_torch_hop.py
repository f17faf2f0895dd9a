"""Higher-order ops with symalias installed (issue 35): a ``while_loop``
whose carried ``buf[:4]`` is disjoint from the captured, mutated
``buf[4:]`` compiles and equals eager; a carried input that truly overlaps
the mutated capture is refused with torch's aliasing error (stock torch
2.15 compiles it, and ``aot_eager`` then differs from eager)."""

import pytest

torch = pytest.importorskip("torch")
from torch._higher_order_ops.while_loop import while_loop

import symalias.torch as st


def frame(buf, carried_end):
    """``carried_end`` is a constant of the compiled code (``FRAMES``)."""
    carried = buf[:carried_end]
    captured = buf[4:]

    def cond(i, x):
        return i < 3

    def body(i, x):
        captured.add_(1)
        return i + 1, x * 2

    return while_loop(cond, body, (torch.tensor(0), carried))


FRAMES = {4: lambda buf: frame(buf, 4), 6: lambda buf: frame(buf, 6)}


def run(backend, carried_end, dynamic=False):
    """Whether the compiled frame equals eager (outputs and the buffer)."""
    torch._dynamo.reset()
    b_eager, b_comp = torch.arange(8.0), torch.arange(8.0)
    fn = FRAMES[carried_end]
    with torch.no_grad():
        want = fn(b_eager)
        got = torch.compile(fn, backend=backend, fullgraph=True, dynamic=dynamic)(b_comp)
    return all(torch.equal(a, b) for a, b in zip(got, want)) and torch.equal(b_comp, b_eager)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_disjoint_carry_and_mutated_capture_compile_and_equal_eager(fresh_torch, backend, dynamic):
    st.install()
    assert run(backend, 4, dynamic)
    assert st.stats.hop_checks >= 1 and st.stats.hop_refusals == 0


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.quick
def test_overlapping_carry_and_mutated_capture_is_refused(fresh_torch, backend):
    st.uninstall()
    assert not run("aot_eager", 6), "stock torch got the overlapping carry right: revisit"
    st.install()
    with pytest.raises(Exception, match="aliasing"):
        run(backend, 6)
    assert st.stats.hop_refusals >= 1


def test_a_symbolic_carry_that_may_overlap_is_refused(fresh_torch):
    """``buf[:n]`` carried beside the mutated ``buf[4:]`` with ``n`` a
    dynamic int: disjoint at ``n = 4``, not for every allowed ``n`` -- no
    proof, so refused. Stock compiles it, and is wrong at ``n = 6``."""
    st.uninstall()
    torch._dynamo.reset()
    with torch.no_grad():
        g = torch.compile(frame, backend="aot_eager", fullgraph=True, dynamic=True)
        right = []
        for n in (4, 6):
            b1, b2 = torch.arange(8.0), torch.arange(8.0)
            want, got = frame(b1, n), g(b2, n)
            right.append(all(torch.equal(a, b) for a, b in zip(got, want)) and torch.equal(b1, b2))
    assert right == [True, False], "stock torch got the symbolic carry right: revisit"
    st.install()
    torch._dynamo.reset()
    with torch.no_grad(), pytest.raises(Exception, match="aliasing"):
        torch.compile(frame, backend="aot_eager", fullgraph=True, dynamic=True)(torch.arange(8.0), 4)


def test_grad_mode_refusal_is_torchs(fresh_torch):
    """With grad enabled torch refuses any mutation in the body, disjoint
    or not; symalias changes nothing there."""
    st.install()
    torch._dynamo.reset()
    with pytest.raises(Exception, match="mutation"):
        torch.compile(FRAMES[4], backend="aot_eager", fullgraph=True)(torch.arange(8.0))
