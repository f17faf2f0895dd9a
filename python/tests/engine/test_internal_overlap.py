"""``symalias.has_internal_overlap`` against enumeration of every index of
random strided views (real tensors, FakeTensors, layouts), and the §3
``self_overlapping`` / ``self_overlap`` keys."""

from __future__ import annotations

import itertools
import random

import pytest

import symalias

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

torch = pytest.importorskip("torch")


def repeats(sizes: list[int], strides: list[int]) -> bool:
    seen = set()
    for ix in itertools.product(*[range(n) for n in sizes]):
        a = sum(i * s for i, s in zip(ix, strides))
        if a in seen:
            return True
        seen.add(a)
    return False


def random_layout(rng: random.Random):
    rank = rng.randint(0, 3)
    sizes = [rng.randint(0, 4) for _ in range(rank)]
    strides = [rng.choice([0, 1, 1, 2, 3, 4, 6, 12]) for _ in range(rank)]
    return sizes, strides


def test_tensors_and_layouts_agree_with_enumeration():
    rng = random.Random(22)
    base = torch.zeros(256)
    for _ in range(2000):
        sizes, strides = random_layout(rng)
        want = repeats(sizes, strides)
        t = base.as_strided(sizes, strides, rng.randint(0, 8))
        assert symalias.has_internal_overlap(t) is want, (sizes, strides)
        layout = symalias.TensorLayout(sizes=sizes, strides=strides, itemsize=4)
        assert symalias.has_internal_overlap(layout) is want, (sizes, strides)


def test_fake_and_meta_tensors():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.zeros(12)
        assert symalias.has_internal_overlap(x.as_strided((4, 3), (2, 1)))
        assert not symalias.has_internal_overlap(x.view(3, 4).t())
    m = torch.zeros(3, 4, device="meta")
    assert symalias.has_internal_overlap(m[:, :1].expand(3, 5))
    assert not symalias.has_internal_overlap(m)


def test_refuses_what_is_not_a_tensor_or_layout():
    with pytest.raises(TypeError):
        symalias.has_internal_overlap([1, 2])


def test_result_lists_self_overlap_with_a_witness():
    r = symalias.overlap(
        [
            symalias.TensorLayout(sizes=[4, 3], strides=[2, 1], itemsize=4),
            symalias.TensorLayout(sizes=[3], strides=[1], storage_offset=20, itemsize=4),
        ]
    )
    assert r.self_overlapping == (0,)
    (s,) = r.self_overlap
    assert s.tensor == 0 and s.overlap and s.proof == "proved"
    assert s.witness is not None and s.witness.index_a != s.witness.index_b
    # Both indices reach the reported byte.
    for ix in (s.witness.index_a, s.witness.index_b):
        assert 4 * (2 * ix[0] + ix[1]) == s.witness.address


def test_symbolic_self_overlap_is_refuted_with_a_counterexample():
    r = symalias.overlap(
        [symalias.TensorLayout(sizes=[3, "s0"], strides=[2, 1], itemsize=4)],
        {"s0": symalias.Symbol(hint=5, min=2)},
    )
    (s,) = r.self_overlap
    assert s.overlap and s.proof == "refuted"
    assert s.counterexample is not None
    assert not repeats([3, s.counterexample["s0"]], [2, 1])
