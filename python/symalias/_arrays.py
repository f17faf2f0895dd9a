"""numpy's ``TooHardError`` for the array drop-ins (``shares_memory`` and
``may_share_memory``, native: ``python/src/arrays.rs``).

``symalias.TooHardError`` is a ``RuntimeError``, as numpy's is. When numpy
is loaded, the error raised is also numpy's ``TooHardError``, so that code
written for numpy catches it unchanged; numpy is never imported here.
"""

from __future__ import annotations

import sys


class TooHardError(RuntimeError):
    """The work bound (``max_work``) was exceeded before an answer."""


#: The error class that is also a foreign ``TooHardError``, per foreign class.
_joint: dict[type, type[TooHardError]] = {}


def too_hard(message: str) -> TooHardError:
    """The error to raise: numpy's too when numpy is loaded."""
    np = sys.modules.get("numpy")
    exceptions = getattr(np, "exceptions", np) if np is not None else None
    foreign = getattr(exceptions, "TooHardError", None)
    if not (isinstance(foreign, type) and issubclass(foreign, BaseException)):
        return TooHardError(message)
    joint = _joint.get(foreign)
    if joint is None:
        joint = _joint[foreign] = type("TooHardError", (TooHardError, foreign), {"__module__": __name__})
    return joint(message)
