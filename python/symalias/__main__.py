"""``python -m symalias`` and the wheel's ``symalias`` command: the Rust
command line (``symalias overlap``, ``analyze``, ``check-guards``,
``simplify``, ``parse``, ``eval``; docs/cli.md), run in this process."""

from __future__ import annotations

import sys

from . import _native


def main() -> None:
    """Runs the command line on ``sys.argv`` and exits with its code."""
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(_native.cli(["symalias", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
