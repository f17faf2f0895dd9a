"""Hard concrete overlap instances (issue 50) against numpy's exact answers.

numpy's ``shares_memory`` without ``max_work`` and its ``internal_overlap``
are exact (numpy's Diophantine search run to the end): the oracle. The
instances come from ``support/hard_pairs.py`` (numpy's documented instance,
and families built like it: large, nearly co-prime strides; strides with a
hidden modulus that keeps two views apart; a planted rare overlap). Each
must be decided -- never "unknown" under the default time limit -- and
agree with numpy; every witness is checked to be a byte of both views.
Timings are the bench's (``python/benches/bench_hard.py``), not asserted
here.
"""

from __future__ import annotations

import random

import hard_pairs as hp
import pytest

import symalias

np = pytest.importorskip("numpy")
from numpy.lib.stride_tricks import as_strided

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

_tests = pytest.importorskip("numpy._core._multiarray_tests")


def address(layout: hp.Layout, index: list[int]) -> int:
    _, strides, offset = layout
    return offset + sum(i * s for i, s in zip(index, strides))


def check_pair(pair: hp.Pair) -> tuple[bool, bool]:
    """(symalias's answer, numpy's exact one), after the witness check."""
    result = symalias.overlap(hp.tensors(pair), id="hard")
    assert [p.proof for p in result.pairs if p.proof == "unknown"] == [], pair
    ours = bool(result.overlapping)
    if ours:
        (p,) = result.pairs
        w = p.witness
        assert address(pair[0], w.index_a) == address(pair[1], w.index_b) == w.address, (pair, w)
    return ours, bool(np.shares_memory(*hp.numpy_views(pair)))


def test_numpys_documented_instance_is_exactly_disjoint():
    result = symalias.overlap(hp.tensors(hp.NUMPY_CASE), id="numpy")
    assert not result.overlapping and not result.pairs
    assert all(g.kind in ("layout", "storage_overlap", "self_overlap") for g in result.guards)
    # The search alone leaves it open: the exact stage decided it.
    searched = symalias.overlap(hp.tensors(hp.NUMPY_CASE), id="numpy", time_limit_ms=0)
    assert [p.proof for p in searched.pairs] == ["unknown"]
    # The clock cut it, and the answer says so; the full answer was decided
    # by work bounds alone (the same on every machine).
    assert searched.time_limit_hit and not result.time_limit_hit


@pytest.mark.parametrize("family", hp.FAMILIES)
def test_generated_pairs_agree_with_numpy_exact(family: str):
    r = random.Random(f"hard-{family}")
    answers = []
    for _ in range(12):
        pair = hp.instance(r, family, scale=0.3)
        ours, exact = check_pair(pair)
        assert ours == exact, pair
        answers.append(exact)
    # The families are what they say: residues disjoint, edge overlapping.
    if family == "residues":
        assert not any(answers)
    if family == "edge":
        assert all(answers)


def test_the_pairs_are_hard_for_numpys_bounded_search():
    """The generator's point: numpy's ``max_work=1000`` gives up on most."""
    r = random.Random("too-hard")
    too_hard = 0
    for _ in range(12):
        x1, x2 = hp.numpy_views(hp.instance(r, "residues", scale=0.3))
        try:
            np.shares_memory(x1, x2, max_work=1000)
        except np.exceptions.TooHardError:
            too_hard += 1
    assert too_hard >= 8, too_hard


def test_internal_overlap_agrees_with_numpy():
    r = random.Random("self")
    seen = set()
    for _ in range(40):
        layout = hp.self_view(r, scale=0.3)
        sizes, strides, _ = layout
        buf = np.zeros(hp.extent(layout), dtype=np.int8)
        exact = bool(_tests.internal_overlap(as_strided(buf, shape=sizes, strides=strides)))
        view = symalias.TensorLayout(sizes=list(sizes), strides=list(strides), itemsize=1)
        ours = symalias.has_internal_overlap(view)
        assert ours is exact, layout
        seen.add(exact)
    assert seen == {True, False}
