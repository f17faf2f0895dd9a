"""symalias.compute_overlapping_tensors against an exact reference
(numpy.shares_memory with max_work=None on the byte buffer) and against
torch's own function, on thousands of random real views of one storage."""

import json
import random

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import symalias
from symalias._tensors import DifferentStoragesError

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

N_GROUPS = 700  # 3 to 5 views each: > 2,000 views in all


def numpy_view(t, buf):
    """The bytes of view ``t`` as a numpy array over the storage's buffer."""
    isz = t.element_size()
    return np.ndarray(
        shape=tuple(t.shape),
        dtype=np.dtype((np.void, isz)),
        buffer=buf,
        offset=t.storage_offset() * isz,
        strides=tuple(s * isz for s in t.stride()),
    )


def exact(tensors):
    buf = np.zeros(tensors[0].untyped_storage().nbytes(), dtype=np.uint8)
    views = [numpy_view(t, buf) for t in tensors]
    out = set()
    for i in range(len(views)):
        for j in range(i + 1, len(views)):
            if views[i].size and views[j].size and np.shares_memory(views[i], views[j], max_work=None):
                out.update((i, j))
    return out


def random_view(rng, base):
    """A random view of ``base`` (1-D float32, 96 elements)."""
    kind = rng.choice(["slice", "step", "transpose", "unfold", "as_strided", "dtype", "zero", "2d", "expand"])
    n = base.numel()
    if kind == "slice":
        a = rng.randrange(0, n)
        return base[a : rng.randrange(a, n + 1)]
    if kind == "step":
        a = rng.randrange(0, n)
        return base[a :: rng.randrange(1, 6)]
    if kind in ("transpose", "2d"):
        rows = rng.choice([2, 3, 4, 6, 8])
        m = base[: (n // rows) * rows].view(rows, -1)
        m = m[rng.randrange(0, rows) :, rng.randrange(0, m.shape[1]) :: rng.randrange(1, 3)]
        return m.t() if kind == "transpose" else m
    if kind == "unfold":
        size = rng.randrange(1, 12)
        return base[rng.randrange(0, n - size) :].unfold(0, size, rng.randrange(1, 8))
    if kind == "as_strided":
        sizes = [rng.randrange(1, 5) for _ in range(rng.randrange(1, 4))]
        strides = [rng.randrange(0, 12) for _ in sizes]
        span = sum((s - 1) * st for s, st in zip(sizes, strides))
        if span >= n:
            return base[:1]
        return base.as_strided(sizes, strides, rng.randrange(0, n - span))
    if kind == "dtype":
        dt = rng.choice([torch.uint8, torch.int16, torch.float64, torch.int32])
        v = base.view(dt)
        a = rng.randrange(0, v.numel())
        return v[a : rng.randrange(a, v.numel() + 1) : rng.randrange(1, 4)]
    if kind == "zero":
        a = rng.randrange(0, n)
        return base[a:a]
    # expand: a stride-0 dimension
    a = rng.randrange(0, n)
    return base[a : a + 1].expand(rng.randrange(1, 5))


def test_dropin_agrees_with_the_exact_reference_on_random_views():
    rng = random.Random(20261201)
    views = 0
    torch_exact = torch_wrong = torch_conservative = 0
    for _ in range(N_GROUPS):
        base = torch.zeros(96)
        ts = [random_view(rng, base) for _ in range(rng.randrange(3, 6))]
        views += len(ts)
        want = exact(ts)
        got = symalias.compute_overlapping_tensors(ts)
        assert got == want, [(tuple(t.shape), t.stride(), t.storage_offset(), t.dtype) for t in ts]
        theirs = torch._C._dynamo.guards.compute_overlapping_tensors(ts, symbolic=False)
        if theirs == want:
            torch_exact += 1
        elif want - theirs:
            torch_wrong += 1  # torch misses a real overlap
        else:
            torch_conservative += 1
    assert views >= 2000
    # The reference is not trivial: torch is right on many groups, and the
    # known bugs and conservative answers show up too.
    assert torch_exact > 100
    assert torch_wrong + torch_conservative > 10


def test_dropin_matches_torch_where_torch_is_exact():
    x = torch.zeros(20)
    for group, want in [
        ([x[:5], x[7:13], x[9:]], {1, 2}),
        ([x[:5], x[7:13], x[13:15]], set()),
        ([x[:5], x[4:9], x[10:15], x[15:]], {0, 1}),
        ([x[:5], x[4:9], x[8:13], x[15:]], {0, 1, 2}),
    ]:
        assert symalias.compute_overlapping_tensors(group) == want
        assert torch._C._dynamo.guards.compute_overlapping_tensors(group) == want


def test_dropin_is_exact_where_torch_is_conservative_or_wrong():
    m = torch.zeros(2, 2)
    # K1: torch says "may overlap" for columns 0 and 1.
    assert symalias.compute_overlapping_tensors([m[:, 0], m[:, 1]]) == set()
    assert torch._C._dynamo.guards.compute_overlapping_tensors([m[:, 0], m[:, 1]]) == {0, 1}
    # B0: torch says "disjoint" for rows shifted by one.
    base = torch.zeros(64)
    a = base.as_strided((4, 4), (9, 1), 0)
    b = base.as_strided((4, 4), (9, 1), 9)
    assert symalias.compute_overlapping_tensors([a, b]) == {0, 1}
    assert torch._C._dynamo.guards.compute_overlapping_tensors([a, b]) == set()


def test_different_storages_are_refused():
    with pytest.raises(DifferentStoragesError, match="different storages"):
        symalias.compute_overlapping_tensors([torch.zeros(4), torch.zeros(4)])
    assert issubclass(DifferentStoragesError, ValueError)


def test_fake_tensors_with_symbolic_layouts():
    from torch._dynamo.source import LocalSource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import (
        DimDynamic,
        ShapeEnv,
        StatelessSymbolicContext,
    )

    shape_env = ShapeEnv()
    mode = FakeTensorMode(shape_env=shape_env)
    real = torch.zeros(6, 8)
    ctx = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC, DimDynamic.DYNAMIC])
    fake = mode.from_tensor(real, symbolic_context=ctx, source=LocalSource("x"))
    with mode:
        halves = [fake[:, :4], fake[:, 4:]]
        rows = [fake[:3], fake[2:]]
    guards_before = len(shape_env.guards)  # slicing itself guards
    assert any(isinstance(s, torch.SymInt) for s in halves[0].stride())
    assert symalias.compute_overlapping_tensors(halves) == set()
    assert symalias.compute_overlapping_tensors(rows) == {0, 1}
    r = symalias.overlap_tensors(halves, sources=["L['a']", "L['b']"])
    # s27 - 4 columns from 4 on, rows of s27: disjoint for every allowed shape.
    assert r.overlapping == () and r.invariant is True and r.guards == ()
    # Reading layouts never adds a guard to the ShapeEnv.
    assert len(shape_env.guards) == guards_before


def _fake_views(seed: int):
    """A few random views of one fake buffer with symbolic sizes."""
    import random

    from torch._dynamo.source import LocalSource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import (
        DimDynamic,
        ShapeEnv,
        StatelessSymbolicContext,
    )

    rng = random.Random(seed)
    shape_env = ShapeEnv()
    mode = FakeTensorMode(shape_env=shape_env)
    real = torch.zeros(rng.randint(6, 12), rng.randint(6, 12))
    ctx = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC, DimDynamic.DYNAMIC])
    fake = mode.from_tensor(real, symbolic_context=ctx, source=LocalSource("x"))
    views = []
    with mode:
        for _ in range(rng.randint(2, 5)):
            kind = rng.randrange(4)
            a = rng.randint(0, 3)
            if kind == 0:
                views.append(fake[a : a + rng.randint(1, 3)])
            elif kind == 1:
                views.append(fake[:, a : a + rng.randint(1, 3)])
            elif kind == 2:
                views.append(fake[a])
            else:
                views.append(fake.t()[a:])
    return shape_env, views


def _document_of(views, names, shape_env):
    """The FORMATS §3 case of fake views, written by the test from the
    ShapeEnv's tables (the oracle of the native reader)."""
    symbols = {}

    def field(x):
        if not isinstance(x, torch.SymInt):
            return int(x)
        expr = x.node.expr
        if expr.is_number:
            return int(expr)
        for s in expr.free_symbols:
            vr = shape_env.var_to_range[s]
            upper = int(vr.upper) if vr.upper.is_Integer else None  # int_oo: unbounded
            symbols[s.name] = {
                "hint": int(shape_env.backed_var_to_val[s]),
                "min": int(vr.lower),
                "max": upper,
                "source": shape_env.var_to_sources[s][0].name,
            }
        return str(expr)

    tensors = [
        {
            "sizes": [field(x) for x in v.shape],
            "strides": [field(x) for x in v.stride()],
            "storage_offset": field(v.storage_offset()),
            "itemsize": v.element_size(),
            "source": n,
        }
        for v, n in zip(views, names)
    ]
    return {"id": "compute_overlapping_tensors", "symbols": symbols, "assumptions": [], "tensors": tensors}


@pytest.mark.parametrize("seed", range(40))
def test_native_decision_equals_the_document_path(seed):
    """``_native.decide`` (layouts read in Rust) answers what the documented
    path answers (a FORMATS §3 case -> the engine), SymInt layouts included,
    reads without guarding, and its hint-only mode answers the case at the
    hints."""
    from symalias import _native

    shape_env, views = _fake_views(seed)
    names = [f"L['v{i}']" for i in range(len(views))]
    guards_before = len(shape_env.guards)
    native = json.loads(_native.decide(views, names, prove=True).json())
    doc = _document_of(views, names, shape_env)
    documented = json.loads(symalias._native.overlap(doc, prove=bool(doc["symbols"]), layouts_pinned=True).json)
    for d in (native, documented):
        d.pop("micros")
    assert native == documented
    at_hints = _native.decide(views, names, prove=True, hints_only=True)
    assert at_hints.overlapping == native["overlapping"] and at_hints.invariant is True
    assert len(shape_env.guards) == guards_before


def test_native_decision_on_real_tensors_and_its_refusals():
    from symalias import _native

    x = torch.zeros(20)
    d = _native.decide([x[:5], x[4:9], x[10:]], ["a", "b", "c"])
    assert d.overlapping == [0, 1] and d.non_overlapping == [2]
    # Concrete: exact, so it holds for the one shape there is.
    assert d.symbolic is False and d.offsets == [0, 4, 10] and d.invariant is True
    with pytest.raises(DifferentStoragesError):
        _native.decide([x, torch.zeros(3)], ["a", "b"])
    with pytest.raises(TypeError, match=r"tensors\[1\]"):
        _native.decide([x, 3], ["a", "b"])
    with pytest.raises(TypeError, match=r"tensors\[1\].*sparse|layout"):
        _native.decide([x, x.to_sparse()], ["a", "b"])
    with pytest.raises(ValueError, match="sources"):
        _native.decide([x], ["a", "b"])
