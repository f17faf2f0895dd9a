"""Hard concrete overlap instances (issue 50), shaped like numpy's.

numpy calls exact overlap of two strided arrays NP-hard in general
(``numpy/_core/src/common/mem_overlap.c``) and documents one instance its
exact solver takes seconds on. These generators make more of that kind, as
pairs of ``as_strided`` views of one int8 buffer, each a
``(sizes, strides, offset)`` triple:

- ``coprime``: numpy's own shape -- a dense 3-d view with large, nearly
  co-prime strides, and a 2-d view with strides ``t, t + 1`` placed near the
  end of the first's extent (where its points thin out).
- ``residues``: *built to be disjoint*. Each stride is ``M * p + s`` with a
  small ``s``, so that the addresses of a view, modulo a hidden ``M``, stay
  in a window of ``M``; the second view's offset puts its window beside the
  first's, while their extents interleave. No bound or gcd shows it, and a
  search over indices meets every combination of large strides.
- ``edge``: the same with a planted shared address, an index high in the
  first's window and one low in the second's, so that the windows meet in
  a few residues only and the overlap is rare.

numpy's exact ``shares_memory`` (no ``max_work``) is the oracle;
``scale`` sets the sizes (1.0: numpy takes up to tens of seconds).
"""

from __future__ import annotations

import random
from typing import Any

Layout = tuple[tuple[int, ...], tuple[int, ...], int]
Pair = tuple[Layout, Layout]

#: numpy's documented instance (``test_mem_overlap.py``), int8: disjoint.
NUMPY_CASE: Pair = (
    ((1049, 1049, 1049), (36674, 61119, 85569), 0),
    ((1049, 1049, 1), (12223, 12224, 1), 64023025),
)

FAMILIES = ("coprime", "residues", "edge")


def extent(layout: Layout) -> int:
    """The last element's offset from the storage's start, plus one."""
    sizes, strides, offset = layout
    return offset + sum((n - 1) * s for n, s in zip(sizes, strides)) + 1


def coprime(r: random.Random, scale: float = 1.0) -> Pair:
    n = max(8, int(r.randint(300, 1100) * scale))
    base = r.randint(20000, 90000)
    ta = tuple(base + r.randint(0, base // 2) for _ in range(3))
    t = r.randint(base // 8, base // 2)
    m = max(8, int(r.randint(300, 1100) * scale))
    extent_a = sum((n - 1) * s for s in ta)
    extent_b = (m - 1) * (2 * t + 1)
    offset = extent_a - extent_b - r.randint(0, extent_a // 20)
    return (((n, n, n), ta, 0), ((m, m, 1), (t, t + 1, 1), max(0, offset)))


def _window_view(
    r: random.Random, modulus: int, dims: int, window: int, scale: float
) -> tuple[list[int], list[int], int]:
    """Sizes and strides ``modulus * p + s`` whose residues span less than ``window``."""
    sizes = [max(4, int(r.randint(40, 400) * scale)) for _ in range(dims)]
    small = [r.randint(1, max(1, window // (dims * (n - 1)))) for n in sizes]
    strides = [modulus * r.randint(1, 40) + s for s in small]
    span = sum((n - 1) * s for n, s in zip(sizes, small))
    return sizes, strides, span


def residues(r: random.Random, scale: float = 1.0, meet: bool = False) -> Pair:
    modulus = r.randint(5000, 60000)
    half = modulus // 2
    sa, ta, span_a = _window_view(r, modulus, r.randint(2, 3), half - 1, scale)
    sb, tb, span_b = _window_view(r, modulus, r.randint(2, 3), half - 1, scale)
    if meet:
        # A planted shared address: an index of a high in a's window and one
        # low in b's, so that the windows meet in a few residues only.
        i = [n - 1 - r.randint(0, 2) for n in sa]
        j = [r.randint(0, 2) for _ in sb]
        at = sum(k * s for k, s in zip(i, ta))
        offset = at - sum(k * s for k, s in zip(j, tb))
        return ((tuple(sa), tuple(ta), 0), (tuple(sb), tuple(tb), offset))
    residue = r.randint(span_a + 1, modulus - span_b - 1)
    extent_a = sum((n - 1) * s for n, s in zip(sa, ta))
    offset = r.randint(0, max(0, extent_a // modulus // 2)) * modulus + residue
    return ((tuple(sa), tuple(ta), 0), (tuple(sb), tuple(tb), offset))


def instance(r: random.Random, family: str, scale: float = 1.0) -> Pair:
    if family == "coprime":
        return coprime(r, scale)
    if family == "residues":
        return residues(r, scale)
    if family == "edge":
        return residues(r, scale, meet=True)
    raise ValueError(f"unknown family {family!r} (one of {FAMILIES})")


def instances(seed: int, count: int, scale: float = 1.0) -> list[tuple[str, Pair]]:
    """``count`` instances, the families in turn, from one seed."""
    r = random.Random(seed)
    return [(FAMILIES[i % len(FAMILIES)], instance(r, FAMILIES[i % len(FAMILIES)], scale)) for i in range(count)]


def numpy_views(pair: Pair) -> list[Any]:
    """The pair as numpy ``as_strided`` views of one zeroed int8 buffer
    (numpy imported here: the generators need none)."""
    import numpy as np
    from numpy.lib.stride_tricks import as_strided

    buf = np.zeros(max(extent(layout) for layout in pair), dtype=np.int8)
    return [as_strided(buf[o:], shape=s, strides=t) for s, t, o in pair]


def tensors(pair: Pair) -> list[dict[str, object]]:
    """The pair as a FORMATS §3 case's tensors (int8)."""
    return [
        {"source": f"L['x{i}']", "sizes": list(sz), "strides": list(st), "storage_offset": o, "itemsize": 1}
        for i, (sz, st, o) in enumerate(pair)
    ]


def self_view(r: random.Random, scale: float = 1.0) -> Layout:
    """One view with the hidden structure of ``residues`` (strides
    ``M * p + s``), for internal overlap: two indices meet only where both
    the residues and the multiples of ``M`` cancel; about half do."""
    modulus = r.randint(2000, 40000)
    dims = r.randint(3, 4)
    sizes, strides, _ = _window_view(r, modulus, dims, modulus - 1, scale)
    if r.random() < 0.5:
        # Planted: the last stride a small combination of two others.
        k = r.randrange(dims - 1)
        strides[-1] = abs(strides[k] * r.randint(1, 3) - strides[(k + 1) % (dims - 1)]) or 1
    return (tuple(sizes), tuple(strides), 0)
