"""Fresh torch compile-cache directories whose compiled C++ kernels are
shared by the whole test session.

A test that runs torch.compile with caches on gets a cache directory of its
own (``TORCHINDUCTOR_CACHE_DIR``): AOTAutograd's cache (``aotautograd/``),
the FX graph cache (``fxgraph/``), Dynamo's automatic-dynamic state
(``dynamo/``) and everything else start empty, so what a test sees served
from a cache is what that test (or its processes) put there. Only Inductor's
code cache of generated sources and their compiled ``.so`` -- the two-letter
directories ``get_path`` files them under, named by the hash of the source
and the compile command, and their ``locks/`` -- is a symlink into one store
per session. A kernel is content-addressed there: the same file for the same
source and flags, whoever compiled it first, so sharing it cannot change
which graph a cache serves or what a compiled frame computes; it saves each
test the C++ compiler's ~10 s per cold compile.

The conftest names the store in ``SYMALIAS_TEST_KERNELS`` for the session
(xdist workers share it); without it, directories are plain and fresh.
"""

from __future__ import annotations

import os
import pathlib

ENV = "SYMALIAS_TEST_KERNELS"
# Inductor's code-cache keys are "c" + base32 of a hash; ``get_path`` files
# a key under its characters [1:3].
_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
_SHARED = [a + b for a in _ALPHABET for b in _ALPHABET] + ["locks"]


def prepare_store(store: pathlib.Path) -> None:
    """The store's directories, made once (idempotent, safe in parallel)."""
    for name in _SHARED:
        (store / name).mkdir(parents=True, exist_ok=True)


def fresh(path: str | os.PathLike[str]) -> pathlib.Path:
    """Makes ``path`` (if need be) a fresh cache directory linked to the
    session's kernel store; returns it."""
    path = pathlib.Path(path)
    path.mkdir(parents=True, exist_ok=True)
    store = os.environ.get(ENV)
    if store:
        for name in _SHARED:
            link = path / name
            if not link.exists():
                link.symlink_to(pathlib.Path(store) / name, target_is_directory=True)
    return path
