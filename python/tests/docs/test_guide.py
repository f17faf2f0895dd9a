"""Every code block of the README and the guide runs (see ``guide.py`` for
what each language means), so a renamed function breaks the build, not the
reader; the guide's pages are all in its summary, its links resolve, the
CLI page says what ``symalias --help`` says, and the public Python names
are documented."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import pytest
from binary import cli
from guide import CHECKED, DOCS, NOT_CODE, ROOT, RUN, Block, all_blocks, blocks, matches, pages, summary_pages

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

BLOCKS = all_blocks()


def test_every_block_says_its_language():
    """An unmarked block would be Rust to rustdoc and nothing to the tests."""
    known = RUN | CHECKED | NOT_CODE
    odd = [b.where for b in BLOCKS if b.lang.split(",")[0] not in known and not b.lang.startswith("json")]
    assert odd == []


def test_the_blocks_are_counted():
    """How many blocks run, and of which kind (the counts a reader of the
    issue's note checks): not a vacuous pass."""
    count: dict[str, int] = {}
    for b in BLOCKS:
        count[b.lang] = count.get(b.lang, 0) + 1
    assert count.get("python", 0) >= 10 and count.get("sh", 0) >= 8, count
    assert count.get("rust", 0) >= 2 and count.get("c", 0) >= 1, count


# -- python ------------------------------------------------------------------

RUNNER = r"""
import contextlib, io, json, sys, traceback
blocks = json.load(sys.stdin)
ns = {"__name__": "__main__"}
for b in blocks:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(b["text"], b["where"], "exec"), ns)
    except BaseException:
        print(json.dumps({"where": b["where"], "error": traceback.format_exc()}))
        sys.exit(1)
    print(json.dumps({"where": b["where"], "stdout": out.getvalue()}))
"""


def python_pages() -> list[str]:
    return sorted({b.page for b in BLOCKS if b.lang == "python"})


@pytest.mark.parametrize("page", python_pages())
def test_python_blocks_run(page, tmp_path):
    todo = [b for b in BLOCKS if b.page == page and b.lang == "python"]
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"), PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps([{"where": b.where, "text": b.text} for b in todo]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith('{"where"')]
    failed = [r for r in results if "error" in r]
    assert not failed, failed[0]["where"] + "\n" + failed[0]["error"]
    assert proc.returncode == 0 and len(results) == len(todo), proc.stderr[-3000:]
    for b, r in zip(todo, results):
        if b.output is not None:
            assert matches(b.output, r["stdout"]), f"{b.where} printed:\n{r['stdout']}\nthe page says:\n{b.output}"


# -- sh ----------------------------------------------------------------------

CARGO_RUN = re.compile(r"cargo run(?: -q| --release| --quiet)* --(?= )")


def commands(b: Block) -> list[tuple[str, str | None]]:
    """A block's commands and, after a ``$`` prompt, the output it shows."""
    lines = b.text.splitlines()
    if not any(line.startswith("$ ") for line in lines):
        return [(line.split(" #")[0], None) for line in lines if line.strip() and not line.startswith("#")]
    out: list[tuple[str, str | None]] = []
    for line in lines:
        if line.startswith("$ "):
            out.append((line[2:], ""))
        elif out:
            cmd, shown = out[-1]
            out[-1] = (cmd, (shown or "") + line + "\n")
    return out


@pytest.fixture(scope="module")
def bin_dir():
    with tempfile.TemporaryDirectory() as d:
        os.symlink(cli(), pathlib.Path(d) / "symalias")
        yield d


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "sh"], ids=lambda b: b.where)
def test_shell_blocks_run(block, bin_dir):
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    for cmd, shown in commands(block):
        run = CARGO_RUN.sub("symalias", cmd)
        proc = subprocess.run(["bash", "-c", run], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
        if shown is None:
            assert proc.returncode == 0, f"{block.where}: {cmd}\n{proc.stderr[-2000:]}"
        else:
            assert matches(shown, proc.stdout), f"{block.where}: {cmd} printed:\n{proc.stdout}\nthe page says:\n{shown}"


# -- console -----------------------------------------------------------------


def named_files(cmd: str) -> list[str]:
    """The repository paths a command names (its arguments that look like
    one: a slash or a known suffix, not an option or a placeholder)."""
    out = []
    for word in shlex.split(cmd, comments=True):
        if word.startswith(("-", "/", "$", "~")) or "=" in word or word.isupper():
            continue
        if "/" in word or re.search(r"\.(py|sh|c|cpp|json|jsonl|toml)$", word):
            out.append(word.rstrip(";"))
    return out


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "console"], ids=lambda b: b.where)
def test_documented_commands_name_what_exists(block):
    for cmd, _ in commands(block):
        for name in named_files(cmd):
            assert (ROOT / name).exists() or (ROOT / "fuzz" / name).exists(), f"{block.where}: {cmd}: {name}"
        words = shlex.split(cmd, comments=True)
        if words[:1] == ["cargo"] and "--bench" in words:
            bench = words[words.index("--bench") + 1]
            assert list(ROOT.glob(f"**/benches/{bench}.rs")), f"{block.where}: no bench {bench}"
        if words[:1] == ["python"] and words[1].endswith(".py"):
            flags = [w.split("=")[0] for w in words[2:] if w.startswith("--")]
            if flags:
                helped = subprocess.run(
                    [sys.executable, words[1], "--help"], capture_output=True, text=True, cwd=ROOT, timeout=120
                ).stdout
                missing = [f for f in flags if f not in helped]
                assert missing == [], f"{block.where}: {words[1]} --help names no {missing}"


# -- rust and c ----------------------------------------------------------------


def test_pages_with_rust_are_rustdoc_tested():
    """``cargo test --doc`` runs a page's ``rust`` blocks only if the
    library includes that page."""
    lib = (ROOT / "src" / "lib.rs").read_text()
    with_rust = sorted({b.page for b in BLOCKS if b.lang.startswith("rust")})
    assert with_rust
    for page in with_rust:
        assert f'include_str!("../{page}")' in lib, page


def test_pages_with_c_are_built_by_the_c_tests():
    test = (ROOT / "capi" / "tests" / "c_example.rs").read_text()
    for page in sorted({b.page for b in BLOCKS if b.lang == "c"}):
        assert page in test, page


# -- the book ------------------------------------------------------------------


def test_every_page_is_in_the_summary():
    listed = set(summary_pages())
    on_disk = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if p.name != "SUMMARY.md"}
    assert on_disk - listed == set()
    assert all((DOCS / p).exists() for p in listed)


def anchors(text: str) -> set[str]:
    """The ids mdBook gives a page's headings (and explicit ids)."""
    out = set(re.findall(r'id="([^"]+)"', text))
    for line in text.splitlines():
        if line.startswith("#") and not line.startswith("#!"):
            title = line.lstrip("#").strip()
            slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
            out.add(slug)
    return out


def test_links_resolve():
    """Every relative link of a page (and the README) names a file that
    exists, and a ``#fragment`` one of its headings."""
    bad = []
    for page in [*pages(), DOCS / "SUMMARY.md"]:
        text = page.read_text()
        code_free = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", code_free):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                bad.append(f"{page.relative_to(ROOT)}: {target}")
            elif frag and dest.suffix == ".md" and frag not in anchors(dest.read_text()):
                bad.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert bad == []


# -- the CLI page and the Python names -------------------------------------------


#: The CLI page's last section: every ``--help``, generated.
HELP_HEADING = "## Every command's `--help`"


def help_blocks() -> list[tuple[str, str]]:
    """The CLI page's ``--help`` texts: a ``text`` block under a line
    ``<!-- help: symalias [COMMAND] -->``."""
    text = (DOCS / "cli.md").read_text()
    return re.findall(r"<!-- help: ([^>]+?) -->\n```text\n(.*?)```", text, flags=re.S)


def help_of(cmd: str) -> str:
    return subprocess.run([cli(), *cmd.split()[1:], "--help"], capture_output=True, text=True).stdout.rstrip() + "\n"


def test_the_cli_page_says_what_help_says():
    """``docs/cli.md`` holds ``symalias --help`` and each command's, as the
    binary prints them (``SYMALIAS_BLESS=1`` rewrites them from it)."""
    help_text = help_of("symalias")
    listed = re.findall(r"^  (\w[\w-]*)\s", help_text.split("Commands:")[1], flags=re.M)
    expected = ["symalias"] + [f"symalias {c}" for c in listed if c != "help"]
    if os.environ.get("SYMALIAS_BLESS"):
        page = DOCS / "cli.md"
        head = page.read_text().split(HELP_HEADING)[0]
        parts = [f"<!-- help: {cmd} -->\n```text\n{help_of(cmd)}```\n" for cmd in expected]
        page.write_text(head + HELP_HEADING + "\n\n" + "\n".join(parts))
    found = help_blocks()
    assert [cmd for cmd, _ in found] == expected
    for cmd, shown in found:
        assert help_of(cmd) == shown, f"{cmd} --help changed: SYMALIAS_BLESS=1 rewrites docs/cli.md"


def test_public_python_names_are_documented():
    """Each public name of ``symalias`` and ``symalias.torch`` has a
    docstring, and the guide names it."""
    import symalias
    import symalias.torch as st

    guide = "\n".join(p.read_text() for p in pages())
    missing_doc, unnamed = [], []
    for module in (symalias, st):
        for name in module.__all__:
            obj = getattr(module, name)
            doc = getattr(obj, "__doc__", None) if not isinstance(obj, (int, str)) else "value"
            if not (doc or "").strip():
                missing_doc.append(f"{module.__name__}.{name}")
            if not re.search(rf"\b{re.escape(name)}\b", guide):
                unnamed.append(f"{module.__name__}.{name}")
    assert missing_doc == [] and unnamed == []


def test_readme_is_a_front_door():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_the_blocks_of_one_page_are_found():
    """The reader itself: a page with a python block and its output."""
    b = blocks(DOCS / "python.md")
    assert any(x.lang == "python" and x.output is not None for x in b)


# -- the built book --------------------------------------------------------------


def mdbook() -> str:
    """mdBook, as ``.ci/setup`` installs it (or on ``PATH``)."""
    tools = pathlib.Path(os.environ.get("SYMALIAS_TOOLS") or pathlib.Path.home() / ".cache" / "symalias-tools")
    found = tools / "bin" / "mdbook"
    if found.exists():
        return str(found)
    on_path = shutil.which("mdbook")
    assert on_path, "mdbook is not installed: bash .ci/setup installs it"
    return on_path


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    out = tmp_path_factory.mktemp("book")
    proc = subprocess.run([mdbook(), "build", str(DOCS), "--dest-dir", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "WARN" not in proc.stderr and "ERROR" not in proc.stderr, proc.stderr
    return out


def test_the_book_builds_with_every_page(book):
    for page in summary_pages():
        assert (book / page).with_suffix(".html").exists(), page


def test_the_built_book_links_resolve(book):
    """Every relative ``href``/``src`` of every built page names a file of
    the book, and a ``#fragment`` an id in it."""
    ids: dict[pathlib.Path, set[str]] = {}

    def ids_of(path: pathlib.Path) -> set[str]:
        if path not in ids:
            ids[path] = set(re.findall(r'\bid="([^"]+)"', path.read_text(errors="replace")))
        return ids[path]

    bad = []
    checked = 0
    for html in book.rglob("*.html"):
        if html.name in ("print.html", "404.html", "toc.html"):
            continue
        for target in re.findall(r'\b(?:href|src)="([^"]+)"', html.read_text(errors="replace")):
            if re.match(r"[a-z]+:|//", target) or target.startswith("{{"):
                continue
            path, _, frag = target.partition("#")
            dest = (html.parent / path).resolve() if path else html
            checked += 1
            if not dest.exists():
                bad.append(f"{html.relative_to(book)}: {target}")
            elif frag and dest.suffix == ".html" and frag not in ids_of(dest):
                bad.append(f"{html.relative_to(book)}: {target} (no such id)")
    assert bad == [] and checked > 100, (bad, checked)
