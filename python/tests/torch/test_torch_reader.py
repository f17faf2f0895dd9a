"""The native tensor reader of the run-time checks (``_reader``,
``_native.reader_enable``): verified at ``install()``, the same answers as
torch's Python methods on thousands of random tensors, and off -- with one
log line, the checks reading through Python -- wherever it cannot verify."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import symalias.torch as st
from symalias import _native
from symalias.torch import _reader
from symalias.torch._torch import gateway

pytestmark = pytest.mark.quick


@pytest.fixture(autouse=True)
def reader_on() -> Any:
    st.install()
    _reader.enable()
    yield
    _reader.enable()


def random_tensor(rng: random.Random, bufs: list[Any]) -> Any:
    """A tensor over one of ``bufs``: a strided view (offsets, steps,
    transposes, expands, byte reinterpretations, empties), or a
    ``Parameter``, or a fresh tensor of a random dtype."""
    r = rng.random()
    if r < 0.1:
        d = rng.choice([torch.float16, torch.int64, torch.bool, torch.complex64, torch.bfloat16])
        return torch.zeros(rng.randint(0, 5), rng.randint(1, 3), dtype=d)
    if r < 0.2:
        return torch.nn.Parameter(torch.zeros(rng.randint(1, 6)))
    b = rng.choice(bufs)
    start = rng.randint(0, 40)
    v = b[start : start + rng.randint(0, 24)]
    if rng.random() < 0.3 and v.numel() >= 4:
        v = v[: v.numel() // 2 * 2].view(-1, 2).t()
    if rng.random() < 0.2:
        v = v[:: rng.randint(1, 3)]
    if rng.random() < 0.2 and v.dim() == 1 and v.numel() > 0 and v.stride(0) == 1:
        v = v.view(torch.uint8)
    if rng.random() < 0.1 and v.dim() == 1 and v.numel() > 0:
        v = v[:1].expand(3)
    if rng.random() < 0.1:
        v = v.as_strided((2, 3), (rng.randint(0, 2), rng.randint(0, 2)), rng.randint(0, 30))
    return v


def python_read(t: Any) -> tuple[int, int, list[int], list[int], int]:
    return gateway.reader_expected(t)


def test_install_verifies_the_reader_on_this_torch():
    assert _reader.status() == "native"
    assert _native.reader_enabled()


def check_answers(checks: list[Any], ts: list[Any]) -> list[bool]:
    frame = _native.FrameCheck([None] * len(ts), checks)
    return [bool(frame.check_holds(k, {}, *ts)) for k in range(len(checks))]


def test_native_and_python_reads_give_the_same_answers_on_random_frames():
    """5,000 random frames, each checked natively and through Python, and
    held against plain statements of the facts: storages compared by
    ``untyped_storage()._cdata``, self-overlap by enumerating bytes."""
    rng = random.Random(64)
    differ = 0
    for _ in range(5000):
        bufs = [torch.zeros(64) for _ in range(rng.randint(1, 3))]
        ts = [random_tensor(rng, bufs) for _ in range(rng.randint(2, 7))]
        n = len(ts)
        groups = [rng.randrange(n) for _ in range(n)]
        mutated = [rng.random() < 0.5 for _ in range(n)]
        checks = [
            _native.OneStorageCheck(members=list(range(n))),
            _native.CrossStorageCheck(members=list(range(n)), groups=groups, mutated=mutated),
            _native.NoSelfOverlapCheck(members=list(range(n))),
            _native.PinCheck(offsets=[(k, t.storage_offset()) for k, t in enumerate(ts)]),
        ]
        native = check_answers(checks, ts)
        _native.reader_disable()
        python = check_answers(checks, ts)
        _native.reader_enable("", [], [], [])  # verified once: turns it back on
        differ += native != python
        ids = [python_read(t)[0] for t in ts]
        by: dict[int, set[int]] = {}
        for s, g in zip(ids, groups):
            by.setdefault(s, set()).add(g)
        assert native[0] == (len(set(ids)) == 1)
        assert native[1] == (not any(len(gs) > 1 and any(mutated[g] for g in gs) for gs in by.values()))
        assert native[2] == all(not self_overlaps(t) for t in ts)
        assert native[3]
    assert differ == 0


def self_overlaps(t: Any) -> bool:
    import itertools

    seen: set[int] = set()
    size = t.element_size()
    for idx in itertools.product(*(range(s) for s in t.shape)):
        start = (t.storage_offset() + sum(i * st for i, st in zip(idx, t.stride()))) * size
        for b in range(start, start + size):
            if b in seen:
                return True
            seen.add(b)
    return False


def test_the_reader_reads_what_python_reads_of_each_probe_and_random_view():
    """Offsets read natively against torch's methods on 2,000 random views:
    a pin at the offset Python reads holds, one off fails."""
    rng = random.Random(5)
    bufs = [torch.zeros(64, dtype=torch.float64)]
    for _ in range(2000):
        t = random_tensor(rng, bufs)
        e = python_read(t)
        frame = _native.FrameCheck([None], [_native.PinCheck(offsets=[(0, e[1])])])
        assert frame({}, t)
        wrong = _native.FrameCheck([None], [_native.PinCheck(offsets=[(0, e[1] + 1)])])
        assert not wrong({}, t)


def test_subclasses_are_read_through_their_python_methods():
    """A subclass's methods may be its own (``__torch_function__``): the
    reader leaves it to Python, and a subclass that lies about its offset
    is checked on the lie, as before."""

    class Shifted(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            out = super().__torch_function__(func, types, args, kwargs or {})
            if func is torch.Tensor.storage_offset:
                return out + 100
            return out

    t = torch.zeros(8)[2:].as_subclass(Shifted)
    frame = _native.FrameCheck([None], [_native.PinCheck(offsets=[(0, 102)])])
    assert frame({}, t)


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )


@pytest.mark.parametrize(
    "how",
    ["env", "header", "probe"],
)
def test_a_reader_that_cannot_verify_stays_off_with_one_log_line(how):
    """Off by the environment, by a header whose layout is not the known
    one, or by a probe whose read disagrees with Python: one log line, and
    the checks still answer (through Python)."""
    code = f"""
        import logging, sys, torch
        logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")
        from symalias.torch._torch import gateway
        how = "{how}"
        if how == "header":
            gateway.reader_header = lambda: "struct THPVariable {{ PyObject_HEAD c10::MaybeOwned<at::Tensor> cdata;"
        if how == "probe":
            real = gateway.reader_expected
            gateway.reader_expected = lambda t: (lambda e: (e[0], e[1] + 1, *e[2:]))(real(t))
        import symalias.torch as st
        from symalias import _native
        from symalias.torch import _reader
        st.install()
        print("STATUS", _reader.status())
        a = torch.zeros(4)
        cross = _native.CrossStorageCheck(members=[0, 1], groups=[0, 1], mutated=[True, False])
        frame = _native.FrameCheck([None, None], [cross])
        print("CHECK", frame({{}}, a, a[1:]), frame({{}}, a, torch.zeros(2)))
    """
    env = {"SYMALIAS_NATIVE_READER": "0"} if how == "env" else {}
    out = run(code, **env)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if "read tensors through Python" in line]
    assert len(lines) == 1, out.stdout
    assert "STATUS python (" in out.stdout
    assert "CHECK False True" in out.stdout
