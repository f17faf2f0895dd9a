"""The ``symalias`` binary the Python tests run."""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def cli() -> str:
    """The newest built ``symalias`` binary (CI: the debug one ``cargo test``
    built; a stale one of the other profile is not picked)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    built = [p for p in (target / "release" / "symalias", target / "debug" / "symalias") if p.exists()]
    if built:
        return str(max(built, key=lambda p: p.stat().st_mtime))
    found = shutil.which("symalias")
    if found is None:
        pytest.skip("the symalias binary is not built (cargo build --release)")
    return found
