"""The native tensor reader of the run-time checks, verified at
``install()`` and off (the checks then read each tensor through torch's
Python methods, with the same answers) wherever it does not verify.

The reader (``_native.reader_enable``, Rust) reads a tensor's storage
identity, offset, sizes, strides and itemsize without a Python call: the
tensor's handle from its Python object (``THPVariable``'s layout, checked
here in the installed torch's own header), then torch's C shim for
AOTInductor (``aoti_torch_get_*``) and the ``TensorImpl``'s storage field,
both checked against what torch's Python methods say of a battery of
tensors (``gateway.reader_probes``). Any mismatch, a torch without
headers, or ``SYMALIAS_NATIVE_READER=0`` leaves it off, with one log line
saying why.
"""

from __future__ import annotations

import os
import re

from .. import _native
from . import _state
from ._state import log
from ._torch import gateway

#: ``struct THPVariable { PyObject_HEAD; at::Tensor cdata; ...``: the handle
#: sits right after the object header (comments may come between).
LAYOUT = re.compile(r"struct THPVariable\s*\{\s*PyObject_HEAD\s*(?://[^\n]*\n\s*)*at::Tensor cdata;")


def enable() -> None:
    """Verifies the native reader on this torch and turns it on; else
    leaves it off with one log line. Never raises."""
    why = _state.reader_off[0] = _problem()
    if why is None:
        return
    _native.reader_disable()
    log.info("symalias: run-time checks read tensors through Python (%s)", why)


def _problem() -> str | None:
    if os.environ.get("SYMALIAS_NATIVE_READER", "1") == "0":
        return "SYMALIAS_NATIVE_READER=0"
    header = gateway.reader_header()
    if header is None:
        return "this torch ships no headers to check its tensor layout against"
    if LAYOUT.search(header) is None:
        return "this torch's THPVariable layout is not the one the reader knows"
    try:
        probes = gateway.reader_probes()
        _native.reader_enable(
            gateway.reader_library(), gateway.reader_types(), probes, [gateway.reader_expected(t) for t in probes]
        )
    except Exception as e:  # any failure leaves the reader off
        return f"the native reader did not verify: {e}"
    return None


def disable() -> None:
    """Turns the reader off (``uninstall``; tests of the Python path)."""
    _native.reader_disable()
    _state.reader_off[0] = "turned off"


def status() -> str:
    """``"native"``, or why the checks read tensors through Python."""
    why = _state.reader_off[0]
    return "native" if why is None and _native.reader_enabled() else f"python ({why})"
