"""Mutated aliased views of different dtypes compile over a byte-level
synthetic base (issue 23), equal to eager: outputs and the final bytes of
the storage, both backends, static and dynamic, caches off and on
(``fresh_torch``), with no eager fallback. What cannot be merged at byte
level still runs eagerly, with its reason."""

import logging

import pytest

torch = pytest.importorskip("torch")
import symalias.torch as st

BACKENDS = ["aot_eager", "inductor"]
backends = pytest.mark.parametrize("backend", BACKENDS)
dynamics = pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])


def run(fn, make, steps, *, backend, dynamic, install=True):
    """``fn`` eagerly and compiled on fresh ``make()`` data, ``steps`` calls
    each (``make() -> (buffer, args)``, ``steps(k) -> extra args``): whether
    every output and the buffer's final bytes are equal."""
    torch._dynamo.reset()
    if install:
        st.install()
    else:
        st.uninstall()
    compiled = torch.compile(fn, backend=backend, dynamic=dynamic)
    buf_e, args_e = make()
    buf_c, args_c = make()
    same = True
    for k in range(len(steps)):
        extra = steps[k]
        want = fn(*args_e, *extra)
        got = compiled(*args_c, *extra)
        same &= torch.equal(want, got)
    return same and torch.equal(buf_e.view(torch.uint8), buf_c.view(torch.uint8))


def bump_both(a, b):
    a.add_(1)
    b.mul_(2)
    return a.sum().double() + b.double().sum()


def pair(wide_dtype, narrow_dtype, n=64):
    """A storage of ``n`` bytes seen as ``wide_dtype`` (its first half) and
    as ``narrow_dtype`` (bytes overlapping the wide view's second half)."""

    def make():
        raw = (torch.arange(n) % 7).to(torch.uint8)
        wide = raw.view(wide_dtype) if wide_dtype != torch.uint8 else raw
        w = wide[: wide.numel() // 2]
        narrow = raw.view(narrow_dtype) if narrow_dtype != torch.uint8 else raw
        k = narrow.numel()
        v = narrow[k // 4 : 3 * k // 4]
        return raw, (w, v)

    return make


PAIRS = [
    (torch.float32, torch.uint8),
    (torch.int32, torch.float32),
    (torch.float32, torch.bfloat16),
    (torch.float32, torch.int16),
]


@backends
@dynamics
@pytest.mark.parametrize("dtypes", PAIRS, ids=lambda d: f"{d[0]}-{d[1]}".replace("torch.", ""))
@pytest.mark.quick("caches_on-float32-uint8-dynamic-aot_eager")
def test_views_of_two_dtypes_mutated_compile_equal_to_eager(fresh_torch, backend, dynamic, dtypes):
    def f(a, b):
        a.add_(1)
        b.add_(3)
        return a.double().sum() + b.double().sum()

    assert run(f, pair(*dtypes), [()] * 3, backend=backend, dynamic=dynamic)
    assert st.stats.dtype_fallbacks == 0 and st.stats.eager_fallbacks == 0


def test_stock_torch_refuses_views_of_two_dtypes(fresh_torch):
    """Why: AOTAutograd asserts on them ("different dtypes") where it sees
    the overlap (in element units: for a float and its bytes it does not,
    and is silently wrong instead -- ``test_torch_e2e``)."""

    def f(a, b):
        a.add_(1)
        b.add_(3)
        return a.sum()

    with pytest.raises(Exception, match="different dtypes"):
        run(f, pair(torch.int32, torch.float32), [()], backend="aot_eager", dynamic=False, install=False)


def no_fallback(backend, float8=False):
    """No frame ran eagerly -- except where inductor (CPU) cannot lower a
    float8 scatter ("Promotion for Float8 Types is not supported"): that
    frame runs eagerly, not for its dtypes."""
    if float8 and backend == "inductor":
        return st.stats.dtype_fallbacks == 0
    return st.stats.dtype_fallbacks == 0 and st.stats.eager_fallbacks == 0


@backends
@dynamics
def test_complex_and_its_real_view(fresh_torch, backend, dynamic):
    def make():
        z = torch.arange(16, dtype=torch.float32).view(torch.complex64)
        return z, (z[2:6], torch.view_as_real(z)[3:7])

    def f(c, r):
        c.mul_(2)
        r.add_(1)
        return torch.view_as_real(c).sum() + r.sum()

    assert run(f, make, [()] * 2, backend=backend, dynamic=dynamic)
    assert st.stats.dtype_fallbacks == 0 and st.stats.eager_fallbacks == 0


@backends
@dynamics
def test_float8_cache_and_its_bytes(fresh_torch, backend, dynamic):
    fp8 = getattr(torch, "float8_e4m3fn", None)
    if fp8 is None:
        pytest.skip("no float8 in this torch")

    def make():
        raw = (torch.arange(64) % 5).to(torch.uint8)
        return raw, (raw.view(fp8)[:32], raw[16:48])

    def f(cache, raw, src):
        cache[1:3].copy_(src)
        raw[0:4].add_(1)
        return raw.sum()

    steps = [(torch.tensor([0.5, 1.5]).to(fp8),)] * 2
    assert run(f, make, steps, backend=backend, dynamic=dynamic)
    assert no_fallback(backend, float8=True)


def decode_storage(cache_dtype):
    """One storage read in two dtypes, as a pool of hybrid models: a KV
    cache (``cache_dtype``, 8 slots of 16 bytes) and a float32 state whose
    first half is the cache's last 4 slots (the views overlap, so the step
    needs a synthetic base)."""

    def make():
        raw = torch.zeros(12 * 16, dtype=torch.uint8)
        cache = raw[: 8 * 16].view(cache_dtype).view(8, -1)
        state = raw[4 * 16 :].view(torch.float32)
        return raw, (cache, state)

    return make


def decode_step(cache, state, slot, kv, x):
    # (the cache's bytes: CPU has no index_copy_ for float8)
    cache.view(torch.uint8).index_copy_(0, slot, kv.view(torch.uint8))
    state.index_copy_(0, slot + 16, x)
    return state.sum() + cache.to(torch.float32).sum()


@backends
@dynamics
@pytest.mark.parametrize("cache", ["uint8", "float8_e4m3fn"])
def test_decode_steps_equal_eager(fresh_torch, backend, dynamic, cache):
    dtype = getattr(torch, cache, None)
    if dtype is None:
        pytest.skip(f"no {cache} in this torch")
    per_slot = 16 // dtype.itemsize
    steps = [
        (
            torch.tensor([k % 4]),
            (torch.arange(per_slot, dtype=torch.float32) % 4 + k % 3).to(dtype).view(1, -1),
            torch.tensor([float(k)]),
        )
        for k in range(50)
    ]
    assert run(decode_step, decode_storage(dtype), steps, backend=backend, dynamic=dynamic)
    assert no_fallback(backend, float8=cache != "uint8")
    assert any(len(r.overlapping) == 2 for r in st.stats.reports), "the views were not merged"


@backends
@dynamics
def test_a_span_that_starts_between_wide_elements(fresh_torch, backend, dynamic):
    """The members' bytes start at byte 5 (a ``uint8`` view), a float32
    member at byte 8: the base starts at byte 4, a whole float32 element
    before the float member (a base from byte 5 cannot be viewed as
    float32 there)."""

    def make():
        raw = (torch.arange(64) % 7).to(torch.uint8)
        return raw, (raw.view(torch.float32)[2:6], raw[5:20])

    def f(a, b):
        a.add_(1)
        b.add_(3)
        return a.double().sum() + b.double().sum()

    assert run(f, make, [()] * 2, backend=backend, dynamic=dynamic)
    assert st.stats.dtype_fallbacks == 0 and st.stats.eager_fallbacks == 0


def grad_storage():
    """A float32 autograd base (a non-leaf: ``leaf * 1``) viewed as float32
    (requires grad), as int32 and as whole float32 elements' bytes
    (``view(dtype)`` is not differentiable: those two do not)."""
    leaf = torch.arange(32, dtype=torch.float32).requires_grad_()
    x = leaf * 1
    return leaf, x, (x[4:16], x.view(torch.int32)[8:20], x.view(torch.uint8)[40:72])


@backends
@dynamics
def test_gradients_flow_through_the_float_members(fresh_torch, backend, dynamic):
    """A group with gradients merges over its float autograd base (not
    bytes): the float member's mutation is differentiable, the other
    dtypes are read through it -- outputs, gradients and the base's final
    values equal to eager."""

    def f(a, b, c):
        a.mul_(3)
        return a.sum() + (b & 7).sum() + c.to(torch.float32).sum() * 0.5

    torch._dynamo.reset()
    st.install()
    compiled = torch.compile(f, backend=backend, dynamic=dynamic)
    for _ in range(2):
        leaf_e, x_e, args_e = grad_storage()
        leaf_c, x_c, args_c = grad_storage()
        want, got = f(*args_e), compiled(*args_c)
        want.backward()
        got.backward()
        assert torch.equal(want, got)
        assert torch.equal(leaf_e.grad, leaf_c.grad)
        assert torch.equal(x_e.detach(), x_c.detach())
    assert st.stats.dtype_fallbacks == 0 and st.stats.eager_fallbacks == 0


@pytest.mark.parametrize(
    "case",
    [
        ("misaligned", lambda x: x.view(torch.uint8)[41:73], "misaligned"),
        ("mutated int view", lambda x: x.view(torch.int32)[8:20], "outside autograd"),
    ],
    ids=lambda c: c[0],
)
def test_what_a_group_with_gradients_cannot_merge_runs_eagerly(fresh_torch, caplog, case):
    """With gradients the base is the float autograd base: a member that
    is not whole float32 elements of it (bytes from byte 41) cannot be
    regenerated from it, and a mutated member that does not require grad
    would be a mutation autograd sees compiled but not eagerly. Both run
    eagerly, the reason in the warning, equal to eager."""
    name, view, reason = case

    def f(a, b):
        a.mul_(3)
        if name == "mutated int view":
            b.add_(1)
        return a.sum() + b.sum().to(torch.float32)

    torch._dynamo.reset()
    st.install()
    with caplog.at_level(logging.WARNING, logger="symalias.torch"):
        leaf_e, x_e, (a_e, _, _) = grad_storage()
        leaf_c, x_c, (a_c, _, _) = grad_storage()
        want = f(a_e, view(x_e))
        got = torch.compile(f, backend="aot_eager")(a_c, view(x_c))
    want.backward()
    got.backward()
    assert torch.equal(want, got) and torch.equal(leaf_e.grad, leaf_c.grad)
    assert st.stats.dtype_fallbacks == 1
    assert any(reason in r.message for r in caplog.records), [r.message for r in caplog.records]


@backends
def test_an_output_view_of_a_merged_member_runs_eagerly(fresh_torch, backend):
    def f(a, b):
        a.add_(1)
        b.add_(3)
        return b

    assert run(lambda a, b: f(a, b).clone(), pair(torch.float32, torch.uint8), [()], backend=backend, dynamic=False)
    torch._dynamo.reset()
    st.install()
    raw, (a, b) = pair(torch.float32, torch.uint8)()
    out = torch.compile(f, backend=backend)(a, b)
    assert out.untyped_storage()._cdata == raw.untyped_storage()._cdata
    assert st.stats.dtype_fallbacks == 1


@backends
@dynamics
def test_a_later_call_with_moved_views_is_still_right(fresh_torch, backend, dynamic):
    """The byte base bakes in where the views are: a call whose state view
    starts 16 bytes later (and one whose cache is shorter) must not reuse
    it blindly -- each call equals eager."""

    def f(cache, state):
        cache.add_(1)
        state.mul_(2)
        return state.sum() + cache.sum()

    def views(shift, slots):
        raw = (torch.arange(256) % 9).to(torch.uint8)
        return raw, (raw[: slots * 16].view(slots, 16), raw[64 + shift : 160 + shift].view(torch.float32))

    torch._dynamo.reset()
    st.install()
    compiled = torch.compile(f, backend=backend, dynamic=dynamic)
    for shift, slots in [(0, 8), (16, 8), (16, 6), (0, 8)]:
        raw_e, args_e = views(shift, slots)
        raw_c, args_c = views(shift, slots)
        assert torch.equal(f(*args_e), compiled(*args_c)), (shift, slots)
        assert torch.equal(raw_e, raw_c), (shift, slots)
    assert st.stats.dtype_fallbacks == 0 and st.stats.eager_fallbacks == 0


DTYPES = [
    torch.uint8,
    torch.bool,
    torch.int16,
    torch.bfloat16,
    torch.float32,
    torch.int32,
    torch.complex64,
    torch.float64,
    torch.int64,
]


def random_view(rng, raw, dtype):
    """A random in-bounds view of ``raw``'s storage in ``dtype`` (rank 0-3,
    strides possibly 0 or overlapping, unit-stride last dimensions half the
    time)."""
    whole = raw.view(dtype) if dtype != torch.uint8 else raw
    n = whole.numel()
    rank = rng.randrange(4)
    sizes = [rng.randrange(1, 5) for _ in range(rank)]
    strides = [rng.randrange(0, 9) for _ in range(rank)]
    if rank and rng.random() < 0.5:
        strides[-1] = 1
    reach = sum((a - 1) * b for a, b in zip(sizes, strides))
    offset = rng.randrange(0, n - reach) if n > reach else None
    if offset is None:
        return None
    return whole.as_strided(sizes, strides, offset)


def same_view(r, m):
    return (r.dtype, tuple(r.shape), r.stride(), r.data_ptr()) == (m.dtype, tuple(m.shape), m.stride(), m.data_ptr())


def test_every_member_is_regenerated_exactly():
    """Both regenerations, on 3,000 random groups of views in nine dtypes:
    from a byte base over the members' span (any layout), and from an
    autograd base in its units (where ``misaligned`` says it is whole
    elements) -- the regenerated tensor is the member: same dtype, sizes,
    strides and first byte in memory."""
    import random

    from symalias.torch import _bytes, _regenerate, _wrapper

    rng = random.Random(23)
    in_units = 0
    for _ in range(3000):
        raw = torch.zeros(256, dtype=torch.uint8)
        members = [random_view(rng, raw, rng.choice(DTYPES)) for _ in range(rng.randrange(1, 4))]
        members = [m for m in members if m is not None]
        span = _bytes.hull(members)
        if span is None:
            continue
        base = _wrapper.span_alias(members[0], *span)
        for m in members:
            assert same_view(_regenerate.regenerate(base, m, span[0]), m), (
                m.dtype,
                m.shape,
                m.stride(),
                m.storage_offset(),
            )
        autograd = raw.view(rng.choice([torch.float32, torch.int64, torch.int16]))
        for m in members:
            if _bytes.misaligned(m, autograd) is None:
                in_units += 1
                assert same_view(_regenerate.regenerate(autograd, m), m), (m.dtype, m.shape, m.stride())
    assert in_units > 1000


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_call_copies_the_buffer(fresh_torch, backend):
    """The decode step of ``python/benches/bench_decode.py`` on a 1 MiB and
    a 32 MiB buffer: the bytes ``aten::copy_`` / ``aten::clone`` write per
    call (profiler) do not grow with the buffer and stay under 1 MiB; with
    inductor none run at all (its kernels write the members in place)."""
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benches"))
    import bench_decode as bd

    inputs = [
        (torch.tensor([k % 7]), torch.full((1, 4096), k, dtype=torch.uint8), torch.tensor([float(k)])) for k in range(4)
    ]
    torch._dynamo.reset()
    st.install()
    compiled = torch.compile(bd.step, backend=backend)
    copied = []
    for mb in (1, 32):
        _, cache, state = bd.storage(mb << 20, 8)
        copied.append(bd.copied_bytes(compiled, [cache, state], inputs))
    assert st.stats.eager_fallbacks == 0
    assert copied[0] == copied[1] < 1 << 20, copied
    if backend == "inductor":
        assert copied == [0, 0]
