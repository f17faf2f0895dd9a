"""``python -m symalias`` (and the wheel's ``symalias`` console script,
which calls the same ``main``): the Rust command line inside the package,
answering as the ``symalias`` binary does."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "symalias", *args], capture_output=True, text=True, cwd=ROOT, input=stdin, timeout=300
    )


def golden_stdout(name: str) -> str:
    text = (ROOT / "tests/golden" / f"{name}.out").read_text()
    return text.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)[0]


def test_the_readme_example_prints_the_golden_output():
    r = run("overlap", "--no-timing", "--time-limit-ms=60000", "examples/overlap.jsonl")
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == golden_stdout("overlap_example")


def test_standard_input_and_a_bad_line_answer_line_by_line():
    good = '{"id":"g","tensors":[{"sizes":[4],"strides":[1]},{"sizes":[4],"strides":[1],"storage_offset":2}]}'
    r = run("overlap", "--no-timing", stdin=f"{good}\nnot json\n")
    lines = r.stdout.splitlines()
    assert r.returncode != 0 and len(lines) == 2
    assert '"overlapping":[0,1]' in lines[0] and '"error"' in lines[1]


def test_bad_arguments_are_claps_message_and_code_not_a_traceback():
    r = run("overlap", "--no-such-flag")
    assert r.returncode == 2 and "--no-such-flag" in r.stderr and "Traceback" not in r.stderr
    help_ = run("--help")
    assert help_.returncode == 0 and "overlap" in help_.stdout
