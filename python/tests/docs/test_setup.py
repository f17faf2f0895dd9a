"""Every program a test runs is on a fresh machine or installed by ``.ci/setup``
(issue 60: the trace tests ran ``tlparse``, which only a hand install had put
there, so CI passed on one machine and failed on a fresh one).

The programs are read from the test sources (Python and Rust): what they find
with ``shutil.which``, start with ``subprocess`` or ``Command::new``, or name
as a module constant pointing into the venv. Each must be either one of the
programs a fresh machine of this project's kind has (``FRESH``, from the
machine's description in ``docs/setup.md``) or installed by ``.ci/setup``,
pinned; and it must be there now (the suite runs after ``.ci/setup``)."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
SETUP = ROOT / ".ci" / "setup"

# What a fresh machine has before `.ci/setup` (docs/setup.md: a Rust
# toolchain, a C compiler, Python 3, git, valgrind), and the project's own
# binary, which the tests build.
FRESH = {"bash", "sh", "cc", "c++", "gcc", "g++", "cargo", "rustc", "python3", "git", "valgrind", "symalias"}

PATTERNS = [
    re.compile(r"shutil\.which\(\s*\"([A-Za-z0-9_.+-]+)\"\s*\)"),
    re.compile(r"Command::new\(\s*\"([A-Za-z0-9_.+-]+)\"\s*\)"),
    re.compile(r"subprocess\.(?:run|Popen|check_output|check_call)\(\s*\[\s*\"([A-Za-z0-9_.+-]+)\""),
    re.compile(r"sys\.executable\)\.parent\s*/\s*\"([A-Za-z0-9_.+-]+)\""),
]


def sources() -> list[pathlib.Path]:
    out = sorted((ROOT / "python" / "tests").rglob("*.py"))
    for crate in ("tests", "capi/tests", "solver/tests", "python/tests"):
        out += sorted((ROOT / crate).rglob("*.rs"))
    return out


def programs_run_by_tests() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sources():
        if path == pathlib.Path(__file__).resolve():
            continue
        text = path.read_text(errors="replace")
        for pattern in PATTERNS:
            for name in pattern.findall(text):
                found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def installed_by_setup(name: str) -> bool:
    """``.ci/setup`` installs ``name`` with a pinned version: its install
    line names it with ``==`` or ``@`` and a version."""
    text = SETUP.read_text()
    pinned = re.search(rf"\b{re.escape(name)}(==|@)(\"?\$[A-Z_]+\"?|[0-9][0-9.]*)", text)
    return pinned is not None


def where(name: str) -> str | None:
    venv = pathlib.Path(sys.executable).parent
    tools = pathlib.Path(os.environ.get("SYMALIAS_TOOLS") or pathlib.Path.home() / ".cache" / "symalias-tools") / "bin"
    for d in (venv, tools):
        if (d / name).exists():
            return str(d / name)
    return shutil.which(name)


def test_the_scan_finds_the_programs_it_must():
    """Not a vacuous pass: the scan sees the programs the suite is known to
    run (tlparse by the trace tests, mdbook by the guide's tests)."""
    found = programs_run_by_tests()
    assert "tlparse" in found and "mdbook" in found, sorted(found)


def test_every_program_a_test_runs_is_installed_by_setup():
    missing = {
        name: users
        for name, users in programs_run_by_tests().items()
        if name not in FRESH and not installed_by_setup(name)
    }
    assert missing == {}, f"programs the tests run that .ci/setup does not install, pinned: {missing}"


def test_every_program_a_test_runs_is_here():
    absent = {name: users for name, users in programs_run_by_tests().items() if name != "symalias" and not where(name)}
    assert absent == {}, f"not installed (run bash .ci/setup): {absent}"


def test_the_check_fails_for_a_program_setup_does_not_install():
    """The check itself can fail: a made-up program is not installed."""
    assert not installed_by_setup("frobnicate-trace")
    assert installed_by_setup("tlparse") and installed_by_setup("mdbook")


def modules_tests_skip_without() -> dict[str, list[str]]:
    """The top-level packages the tests ``pytest.importorskip``: a test
    that skips where one is missing passes vacuously, so CI must have it."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "python" / "tests").rglob("*.py")):
        if path == pathlib.Path(__file__).resolve():
            continue
        for name in re.findall(r"importorskip\(\s*\"([A-Za-z0-9_.]+)\"", path.read_text()):
            found.setdefault(name.split(".")[0], []).append(str(path.relative_to(ROOT)))
    return found


def test_every_module_a_test_skips_without_is_installed_by_setup_and_here():
    found = modules_tests_skip_without()
    assert {"torch", "numpy", "jax"} <= set(found), sorted(found)
    text = SETUP.read_text()
    install_lines = [line for line in text.splitlines() if 'pip" install' in line]
    not_installed = [m for m in found if not any(re.search(rf"[\s\"]{m}[\[=>< \"]", line) for line in install_lines)]
    assert not_installed == [], f"modules tests skip without that .ci/setup does not install: {not_installed}"
    import importlib.util

    absent = [m for m in found if importlib.util.find_spec(m) is None]
    assert absent == [], f"not installed (run bash .ci/setup): {absent}"
