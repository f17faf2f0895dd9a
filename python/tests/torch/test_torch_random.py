"""Random differential testing of torch.compile on aliasing frames, installed,
against eager (``randframes.py``: the generator, the oracle, the long-run
script). A fixed smoke set of seeds runs here, caches on; the issue-32
frames that the generator found are checked by name.

Frames where stock torch 2.15 fails the same way are torch's bugs, listed
in ``KNOWN_TORCH`` with what fails (docs/testing.md)."""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "support"))
import randframes as rf

import symalias.torch as st

#: Seeds of the smoke range whose frames stock torch 2.15 fails the same way
#: (``randframes.py --against-stock``): torch's bugs, not symalias's.
KNOWN_TORCH = {
    24: "Dynamo: NameError for a size symbol (s85) in a view chain of expand and split",
    91: "Dynamo: an expand view mutated in place through a multi-output view",
}

#: The smoke set: about two minutes on two workers, both backends, static
#: and dynamic, grad frames, every pattern change, caches on.
SMOKE = [s for s in range(120) if s not in KNOWN_TORCH]
#: ``.ci/releases`` runs the first seeds of the set on each older release.
if os.environ.get("SYMALIAS_SMOKE_SEEDS"):
    SMOKE = SMOKE[: int(os.environ["SYMALIAS_SMOKE_SEEDS"])]


#: The release the suite's expectations are written for; on an older one
#: (``.ci/releases``) a frame may fail installed only where that release's
#: stock torch fails it too.
CURRENT = (2, 15)


def _release() -> tuple[int, int]:
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return int(major), int(minor)


@pytest.mark.parametrize("seed", SMOKE)
@pytest.mark.quick("0", "1")
def test_random_frame_equals_eager(caches_on, seed):
    frame = rf.make_frame(seed)
    outcome, detail = rf.run_frame(frame, install=True)
    if outcome not in ("right", "skipped") and _release() < CURRENT:
        stock, stock_detail = rf.run_frame(frame, install=False)
        assert stock not in ("right", "skipped"), (
            f"installed fails where torch {torch.__version__}'s stock is right:\n{detail}\n{rf.describe(frame)}"
        )
        pytest.xfail(f"torch {torch.__version__}'s stock fails this frame too ({stock}: {stock_detail[:200]})")
    assert outcome in ("right", "skipped"), f"{detail}\n{rf.describe(frame)}"


def test_the_generator_is_deterministic_and_varied():
    frames = [rf.make_frame(s) for s in range(80)]
    assert [f.source for f in frames[:10]] == [rf.make_frame(s).source for s in range(10)]
    assert {f.backend for f in frames} == {"aot_eager", "inductor"}
    assert {f.dynamic for f in frames} == {False, True}
    assert any(f.grad for f in frames)
    assert {f.pattern for f in frames} >= {"split", "merge", "shift"}
    # Mutations in most frames, and views of every kind somewhere.
    assert sum("_(" in f.source for f in frames) > 60
    kinds = {s[0] for f in frames for a in f.args for s in a.steps}
    assert kinds >= {"slice", "select", "transpose", "unfold", "as_strided", "view_dtype", "expand", "chunk"}


def test_the_oracle_sees_a_wrong_storage():
    """The comparison fails where a compiled call's bytes differ."""
    raw = torch.zeros(8, dtype=torch.uint8)
    other = raw.clone()
    other[3] = 1
    assert not rf._storage_close(other, raw, [rf.Buffer(torch.uint8, 8)])
    a = torch.arange(4.0)
    assert rf.compare((a[1:],), (a[:3],), [a], [a]) is not None  # output at another offset


# ---- the issue-32 frames, minimized ------------------------------------------------

dynamics = pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
backends = pytest.mark.parametrize("backend", ["aot_eager", "inductor"])


def read_then_write_other_dtype(a, b):
    a.zero_()
    t = b.sum()
    b.fill_(7)
    return t, a * 1


def view_of_other_storage(a, b, c):
    a.mul_(2)
    c.zero_()
    return b * 1, c.t()


def span_not_whole_wide_elements(b, c):
    b.add_(1)
    c.fill_(11)
    return b + 1


def complex_copy_into_narrow_view(a, b, c):
    b.zero_()
    b.copy_(c)
    return a + 1


def base_at_an_offset(a0, a2):
    a2.fill_(3)
    return (a0[0],)


def frames():
    bf = torch.arange(24, dtype=torch.bfloat16)
    m, s = torch.arange(16.0).view(4, 4), torch.arange(64.0).view(4, 4, 4)
    h = torch.arange(40, dtype=torch.float16)
    f = torch.arange(24, dtype=torch.float32)
    # A buffer at a storage offset with no autograd base (as ``x[4:].detach()`` is).
    d = torch.zeros(32)[4:27].detach()
    d.copy_(torch.arange(23.0))
    return {
        "a": (read_then_write_other_dtype, [bf], (bf, bf.view(torch.int64)[0:1])),
        "b": (view_of_other_storage, [m, s], (m[:, 1:2], m[1:2, 1:2], s[1, :, 3:4].t())),
        "c": (span_not_whole_wide_elements, [h], (h[4:18], h.view(torch.int64)[2:4])),
        "d": (complex_copy_into_narrow_view, [f], (f, f.view(torch.float16)[26:32], torch.tensor(2 + 1j))),
        "offset_base": (base_at_an_offset, [d], (d.unsqueeze(0).expand(3, 23).split(2, 1)[4], d)),
    }


@backends
@dynamics
@pytest.mark.parametrize("name", ["a", "b", "c", "d", "offset_base"])
def test_issue_frames_equal_eager(caches_on, backend, dynamic, name):
    import warnings

    st.install()
    fn = frames()[name][0]
    compiled = torch.compile(fn, backend=backend, dynamic=dynamic)
    _, bufs_e, args_e = frames()[name]
    _, bufs_c, args_c = frames()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> half discards the imaginary part, as in eager
        want = fn(*args_e)
        got = compiled(*args_c)
    assert rf.compare(got, want, list(args_c), list(args_e)) is None
    for g, w in zip(bufs_c, bufs_e):
        assert torch.equal(g.view(torch.uint8), w.view(torch.uint8))
