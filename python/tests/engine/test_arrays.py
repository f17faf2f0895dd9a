"""The array drop-ins (``symalias.shares_memory``, ``may_share_memory``,
``has_internal_overlap`` on arrays) against numpy's exact answers.

numpy's ``shares_memory(max_work=None)`` and its test module's
``internal_overlap`` run numpy's Diophantine search to the end: the oracle,
with byte enumeration beside it for the internal overlap. Arrays are drawn
over shared byte buffers: numpy views, strided slices, ``as_strided`` with
overlapping, zero and negative strides, zero-size and 0-d arrays, and
byte-reinterpreted dtypes (itemsizes 1 to 16, odd ones included, at
misaligned offsets). torch tensors go through DLPack and are held against
numpy views of the same bytes.
"""

from __future__ import annotations

import itertools
import random

import hard_pairs as hp
import pytest

import symalias

np = pytest.importorskip("numpy")

TooHard = np.exceptions.TooHardError
_tests = pytest.importorskip("numpy._core._multiarray_tests")

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

N_PAIRS = 5000
N_INTERNAL = 2000
BUF = 112

DTYPES = ["u1", "i2", "f4", "f8", "c16", "V3", "V5", "V12"]


def strided(rng: random.Random, buf: np.ndarray, *, small: bool = False) -> np.ndarray:
    """An arbitrary strided array inside ``buf``'s bytes: any dtype, rank
    0-3, sizes 0-5 (1-4 when ``small``), strides from -40 to 40 bytes (not
    multiples of the itemsize), at any offset that keeps every byte inside."""
    dt = np.dtype(rng.choice(DTYPES))
    k = dt.itemsize
    for _ in range(100):
        ndim = rng.randrange(0, 4)
        shape = [rng.randrange(1 if small else 0, 5 if small else 6) for _ in range(ndim)]
        if rng.random() < 0.3:
            strides = [rng.randrange(-k, k + 1) for _ in shape]  # elements overlap each other
        else:
            strides = [rng.randrange(-40, 41) for _ in shape]
        if 0 in shape:
            return np.ndarray(shape, dt, buffer=buf, offset=rng.randrange(0, len(buf) - k), strides=strides)
        lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
        hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + k
        if hi - lo <= len(buf):
            start = rng.randrange(-lo, len(buf) - hi + 1)
            return np.ndarray(shape, dt, buffer=buf, offset=start, strides=strides)
    return np.ndarray((), dt, buffer=buf, offset=0)


def numpy_view(rng: random.Random, buf: np.ndarray) -> np.ndarray:
    """A view made by numpy's own operations: slices with steps (negative
    too), transposes, reshapes and dtype reinterpretations of a byte run."""
    a = rng.randrange(0, len(buf) - 47)
    run = buf[a : a + rng.choice([16, 24, 32, 48])]
    dt = np.dtype(rng.choice(["u1", "i2", "f4", "f8"]))
    v = run.view(dt)
    kind = rng.choice(["step", "reverse", "matrix", "transpose", "flat", "empty"])
    if kind == "step":
        return v[rng.randrange(0, len(v)) :: rng.randrange(1, 4)]
    if kind == "reverse":
        return v[:: -rng.randrange(1, 3)]
    if kind in ("matrix", "transpose"):
        rows = 2 if len(v) % 2 == 0 else 1
        m = v.reshape(rows, -1)[:, rng.randrange(0, 2) :: rng.randrange(1, 3)]
        return m.T if kind == "transpose" else m
    if kind == "empty":
        return v[3:3]
    return v


def random_array(rng: random.Random, buf: np.ndarray) -> np.ndarray:
    return strided(rng, buf) if rng.random() < 0.7 else numpy_view(rng, buf)


def pairs(seed: int, n: int):
    rng = random.Random(seed)
    bufs = [np.zeros(BUF, dtype=np.uint8), np.zeros(BUF, dtype=np.uint8)]
    for _ in range(n):
        a = random_array(rng, bufs[0])
        b = random_array(rng, bufs[0] if rng.random() < 0.9 else bufs[1])
        yield a, b


def numpy_raises_or(f, *args, **kw):
    try:
        return f(*args, **kw)
    except TooHard:
        return "too hard"


def test_shares_memory_equals_numpys_exact_answer_on_5000_pairs():
    seen = {True: 0, False: 0}
    differ = []
    for i, (a, b) in enumerate(pairs(1, N_PAIRS)):
        want = np.shares_memory(a, b, max_work=None)
        got = symalias.shares_memory(a, b)
        seen[want] += 1
        if got != want or symalias.shares_memory(a, b, max_work=symalias.MAY_SHARE_EXACT) != want:
            differ.append((i, a.shape, a.strides, a.dtype, b.shape, b.strides, b.dtype))
    assert differ == []
    # Both answers are common: the draw is not one-sided.
    assert min(seen.values()) > N_PAIRS // 5, seen


def test_bounds_and_may_share_memory_equal_numpys():
    differ = []
    for i, (a, b) in enumerate(pairs(2, N_PAIRS)):
        for max_work in (None, 0, -1):
            if symalias.may_share_memory(a, b, max_work=max_work) != np.may_share_memory(a, b, max_work=max_work):
                differ.append((i, "may", max_work))
        ours = numpy_raises_or(symalias.shares_memory, a, b, max_work=symalias.MAY_SHARE_BOUNDS)
        if ours != numpy_raises_or(np.shares_memory, a, b, max_work=0):
            differ.append((i, "bounds"))
    assert differ == []


def test_a_positive_budget_answers_exactly_or_raises_numpys_error():
    """numpy counts its own work; a positive ``max_work`` here counts the
    engine's search nodes. Either the answer is numpy's exact one or the
    error is numpy's ``TooHardError``."""
    raised = 0
    for a, b in itertools.islice(pairs(3, N_PAIRS), 1000):
        for budget in (1, 2, 50):
            try:
                assert symalias.shares_memory(a, b, max_work=budget) == np.shares_memory(a, b)
            except TooHard:
                raised += 1
    assert raised > 0


def test_numpys_documented_hard_instance():
    """numpy takes seconds on it (``shares_memory`` without ``max_work``);
    it raises at any small budget. The engine's exact stage decides it."""
    a, b = hp.numpy_views(hp.NUMPY_CASE)
    with pytest.raises(TooHard):
        np.shares_memory(a, b, max_work=1000)
    assert np.shares_memory(a, b) is symalias.shares_memory(a, b) is False
    with pytest.raises(TooHard):
        symalias.shares_memory(a, b, max_work=1000)  # the search alone leaves it open
    assert symalias.may_share_memory(a, b) is np.may_share_memory(a, b) is True


@pytest.mark.parametrize("family", hp.FAMILIES)
def test_generated_hard_pairs_equal_numpys_answer(family):
    rng = random.Random(7)
    for _ in range(4):
        a, b = hp.numpy_views(hp.instance(rng, family, scale=0.25))
        assert symalias.shares_memory(a, b) == np.shares_memory(a, b)


def enumerated_internal_overlap(x: np.ndarray) -> bool:
    """Two different indices of ``x`` reach one byte: every element's bytes
    counted."""
    base = x.__array_interface__["data"][0]
    seen: set[int] = set()
    for index in itertools.product(*(range(n) for n in x.shape)):
        start = base + sum(i * s for i, s in zip(index, x.strides))
        span = set(range(start, start + x.itemsize))
        if seen & span:
            return True
        seen |= span
    return False


def test_has_internal_overlap_equals_enumeration_on_2000_arrays():
    rng = random.Random(4)
    buf = np.zeros(BUF, dtype=np.uint8)
    seen = {True: 0, False: 0}
    differ = []
    for i in range(N_INTERNAL):
        x = strided(rng, buf, small=True) if rng.random() < 0.8 else numpy_view(rng, buf)
        want = enumerated_internal_overlap(x)
        seen[want] += 1
        if symalias.has_internal_overlap(x) != want or _tests.internal_overlap(x) != want:
            differ.append((i, x.shape, x.strides, x.dtype))
    assert differ == []
    assert min(seen.values()) > N_INTERNAL // 10, seen


def test_other_layout_protocols():
    """The buffer protocol, ``__array_interface__`` (an address, or a buffer
    and an offset), ``__cuda_array_interface__``: each read where it says."""
    buf = np.zeros(64, dtype=np.uint8)

    class Interface:
        def __init__(self, x: np.ndarray, name: str = "__array_interface__") -> None:
            d = dict(x.__array_interface__)
            d.pop("strides") if x.flags.c_contiguous else None
            setattr(self, name, d)

    class OnBuffer:
        def __init__(self, raw: bytearray, offset: int) -> None:
            self.__array_interface__ = {
                "shape": (4,),
                "typestr": "<i4",
                "data": raw,
                "offset": offset,
                "version": 3,
            }

    evens, odds, head = buf[0::2], buf[1::2], buf[:8]
    assert symalias.shares_memory(Interface(evens), Interface(odds)) is False
    assert symalias.shares_memory(Interface(head), buf[7:]) is True
    cuda = type("Cuda", (), {})()
    cuda.__cuda_array_interface__ = dict(evens.__array_interface__)
    assert symalias.shares_memory(cuda, Interface(odds, "__cuda_array_interface__")) is False
    assert symalias.shares_memory(cuda, Interface(head, "__cuda_array_interface__")) is True
    raw = bytearray(32)
    mv = memoryview(raw)
    assert symalias.shares_memory(OnBuffer(raw, 16), mv[16:17]) is True
    assert symalias.shares_memory(OnBuffer(raw, 16), mv[:16]) is False
    # A bytes object shares its bytes with itself (numpy answers on copies).
    data = b"abc"
    assert symalias.shares_memory(data, data) is True
    assert symalias.shares_memory(data, b"abd") is False
    assert symalias.shares_memory(mv[::2], mv[1::2]) is False


def test_errors_name_the_argument():
    a = np.zeros(4)
    with pytest.raises(TypeError, match=r"^b: list object exposes no array layout"):
        symalias.shares_memory(a, [1, 2])
    with pytest.raises(TypeError, match=r"^a: int object exposes no array layout"):
        symalias.may_share_memory(3, a)
    with pytest.raises(TypeError, match=r"^a: object object exposes"):
        symalias.has_internal_overlap(object())
    with pytest.raises(ValueError, match="Invalid value for max_work"):
        symalias.shares_memory(a, a, max_work=-3)
    with pytest.raises(ValueError, match="max_work must be an integer"):
        symalias.shares_memory(a, a, max_work="exact")
    on_buffer = {"shape": (2,), "typestr": "|u1", "data": bytearray(4), "offset": "1"}
    with pytest.raises(ValueError, match=r"^b.__array_interface__.offset: an integer expected"):
        symalias.shares_memory(a, type("Bad", (), {"__array_interface__": on_buffer})())
    bad = type("Bad", (), {"__array_interface__": {"shape": (2,), "typestr": "?", "data": (0, False)}})()
    with pytest.raises(ValueError, match=r'a.__array_interface__.typestr: "\?" is not a type string'):
        symalias.shares_memory(bad, a)


def test_too_hard_is_numpys_error_and_symalias():
    a = np.zeros(8)
    with pytest.raises(TooHard) as e:
        symalias.shares_memory(a, a[::2], max_work=0)
    assert isinstance(e.value, symalias.TooHardError) and isinstance(e.value, RuntimeError)
    assert str(e.value) == "Exceeded max_work"


def torch_views(rng: random.Random, base):
    """A view of ``base`` (uint8) made by torch: a dtype, then as_strided."""
    t = pytest.importorskip("torch")
    dt = rng.choice([t.uint8, t.int16, t.float32, t.float64])
    v = base.view(dt)
    k = v.element_size()
    ndim = rng.randrange(1, 4)
    sizes = [rng.randrange(0, 5) for _ in range(ndim)]
    strides = [rng.randrange(0, 12) for _ in range(ndim)]
    span = sum(max(0, n - 1) * s for n, s in zip(sizes, strides)) + 1
    n = base.numel() // k
    if span >= n:
        return v[: rng.randrange(0, n)]
    return v.as_strided(sizes, strides, rng.randrange(0, n - span))


def test_torch_tensors_through_dlpack_answer_as_their_numpy_views():
    t = pytest.importorskip("torch")
    rng = random.Random(5)
    base = t.zeros(256, dtype=t.uint8)
    differ = []
    for i in range(2000):
        x, y = torch_views(rng, base), torch_views(rng, base)
        if rng.random() < 0.2:
            x = x.float().requires_grad_() if x.dtype == t.float32 else x
        want = np.shares_memory(x.detach().numpy(), y.numpy())
        if symalias.shares_memory(x, y) != want or symalias.may_share_memory(x, y) != np.may_share_memory(
            x.detach().numpy(), y.numpy()
        ):
            differ.append(i)
        if symalias.has_internal_overlap(y.numpy()) != _tests.internal_overlap(y.numpy()):
            differ.append(("internal", i))
    assert differ == []
    # torch and numpy objects mix: one address space.
    assert symalias.shares_memory(base, base.numpy()[5:6]) is True


class DLPackOnly:
    """Exposes an array through DLPack alone (``__dlpack__``,
    ``__dlpack_device__``), whatever else it speaks."""

    def __init__(self, array: object) -> None:
        self.array = array

    def __dlpack__(self, **kw: object) -> object:
        return self.array.__dlpack__(**kw)  # type: ignore[attr-defined]

    def __dlpack_device__(self) -> object:
        return self.array.__dlpack_device__()  # type: ignore[attr-defined]


def test_jax_arrays_answer_as_their_numpy_views():
    """JAX arrays (CPU) as they come (the buffer protocol) and through
    DLPack alone, against numpy on ``np.asarray(x)`` (zero-copy on CPU) and
    numpy views of it."""
    jnp = pytest.importorskip("jax.numpy")
    rng = random.Random(6)
    differ, sharing = [], 0
    for i in range(300):
        shape = tuple(rng.randrange(1, 5) for _ in range(rng.randrange(1, 4)))
        x = jnp.asarray(np.arange(int(np.prod(shape)), dtype=rng.choice(["f4", "i8", "u1"])).reshape(shape))
        n = np.asarray(x)
        assert np.shares_memory(n, np.asarray(x)), "np.asarray copied a CPU jax array"
        flat = n.reshape(-1)
        other = rng.choice([n, flat[rng.randrange(0, flat.size) :: rng.randrange(1, 3)], n.T, np.zeros(3), n[..., :0]])
        want = np.shares_memory(n, other)
        sharing += want
        for theirs in (x, DLPackOnly(x)):
            if symalias.shares_memory(theirs, other) != want or symalias.has_internal_overlap(theirs):
                differ.append((i, type(theirs).__name__))
    assert differ == []
    assert 50 < sharing < 300
