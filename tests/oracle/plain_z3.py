"""A plain z3 encoding of symbolic overlap: the test oracle of issue 22.

Reads FORMATS §3 cases (JSON lines) and answers, per case, whether the
overlapping set found at the hints holds for every allowed shape:

* each view outside the set: for every other view, z3 is asked
  "∃ allowed shape, ∃ in-range indices and bytes: both views reach one byte"
  (unsat: disjoint for all shapes; a model: a candidate counterexample);
* each view inside the set: for some partner that meets it at the hints,
  "∃ allowed shape: ∀ indices and bytes: they do not meet" must be unsat
  (the overlap persists; a model is a candidate counterexample).

An allowed shape: every symbol in its range and every size, stride and
offset non-negative (FORMATS §3's valid views). A candidate counterexample
counts only when exact enumeration at it gives another overlapping set. The
answer is `refuted` on such a counterexample, `proved` when every question
is unsat, else `unknown`. One time limit per case (default 2 s), each query
under what is left of it.

No engineering beyond that: no intervals, no witnesses, no templates. Its
answers depend on the machine's speed (a wall-clock limit, not z3's rlimit)
and on z3's version. The stored references are runs on an idle 2-core
machine:

* `reference.jsonl` (`cases.jsonl`, the first generator): a run at z3
  4.8.12 (42 s: 311 proved, 273 refuted, 16 unknown), and where that run
  was unknown, a run at the pinned z3-solver 5.4.1.0 (42 s: 309 proved,
  274 refuted, 17 unknown) that decided one more case. No case is proved
  in one run and refuted in the other; the union keeps the larger set of
  proofs for the engine to match;
* `products_reference.jsonl` (`products.jsonl`): z3-solver 5.4.1.0, 117 s,
  304 proved, 248 refuted, 48 unknown;
* `layouts_reference.jsonl` (`layouts.jsonl`, the held-out generator of
  issue 50): z3-solver 5.4.1.0, 418 proved, 170 refuted, 12 unknown.

A run next to a build lost 7 verdicts to timeouts. Used outside CI only
(z3-solver is in the project venv: `.ci/setup`):

    python tests/oracle/plain_z3.py tests/data/symgen/cases.jsonl \
        > tests/data/symgen/reference.jsonl
    python tests/oracle/plain_z3.py tests/data/symgen/products.jsonl \
        > tests/data/symgen/products_reference.jsonl
    python tests/oracle/plain_z3.py tests/data/symgen/layouts.jsonl \
        > tests/data/symgen/layouts_reference.jsonl
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from typing import Any

import z3

Case = dict[str, Any]
Env = dict[str, int]
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(//|[-+*()]))")

# A parsed expression: an integer, a symbol name, or (operator, left, right)
# with operator one of "+", "-", "*", "//".
Tree = int | str | tuple[str, "Tree", "Tree"]


def _parse(text: str) -> Tree:
    """Parses the generator's expressions: `+ - * //`, parentheses,
    integers, symbols."""
    tokens: list[str] = [
        m.group(1) or m.group(2) or m.group(3) for m in _TOKEN.finditer(text)
    ]
    at = 0

    def peek() -> str | None:
        return tokens[at] if at < len(tokens) else None

    def take() -> str:
        nonlocal at
        at += 1
        return tokens[at - 1]

    def atom() -> Tree:
        tok = take()
        if tok == "(":
            inner = add()
            take()
            return inner
        if tok == "-":
            return ("-", 0, atom())
        return int(tok) if tok.isdigit() else tok

    def mul() -> Tree:
        e = atom()
        while peek() in ("*", "//"):
            op = take()
            e = (op, e, atom())
        return e

    def add() -> Tree:
        e = mul()
        while peek() in ("+", "-"):
            op = take()
            e = (op, e, mul())
        return e

    return add()


def _eval(t: Tree, look: Callable[[str], Any], div: Callable[[Any, int], Any]) -> Any:
    if isinstance(t, int):
        return t
    if isinstance(t, str):
        return look(t)
    op, a, b = t
    x, y = _eval(a, look, div), _eval(b, look, div)
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    return div(x, y)


def _field(v: Any) -> Tree:
    return v if isinstance(v, int) else _parse(str(v))


def _int(v: Any, env: Env) -> int:
    return int(_eval(_field(v), lambda s: env[s], lambda a, b: a // b))


def _z3(v: Any, syms: dict[str, z3.ArithRef]) -> z3.ArithRef:
    # z3's integer division rounds like floor division for positive divisors
    # (the only kind the generator writes).
    return _eval(_field(v), lambda s: syms[s], lambda a, b: a / b)


def _views(case: Case, env: Env) -> list[tuple[list[int], list[int], int, int]] | None:
    out = []
    for t in case["tensors"]:
        sizes = [_int(x, env) for x in t["sizes"]]
        strides = [_int(x, env) for x in t["strides"]]
        off = _int(t["storage_offset"], env)
        if min(sizes + strides + [off]) < 0:
            return None
        out.append((sizes, strides, off, int(t["itemsize"])))
    return out


def _bytes(view: tuple[list[int], list[int], int, int]) -> set[int]:
    sizes, strides, off, item = view
    starts = {off}
    for n, s in zip(sizes, strides):
        starts = {x + i * s for x in starts for i in range(n)}
    return {x * item + b for x in starts for b in range(item)}


def _classify(case: Case, env: Env) -> list[int] | None:
    views = _views(case, env)
    if views is None:
        return None
    total = 0
    for sizes, *_ in views:
        n = 1
        for x in sizes:
            n *= x
        total += n
    if total > 2_000_000:
        return None
    sets = [_bytes(v) for v in views]
    hit = set()
    for a in range(len(sets)):
        for b in range(a + 1, len(sets)):
            if sets[a] & sets[b]:
                hit |= {a, b}
    return sorted(hit)


def _pairs(case: Case, env: Env) -> set[tuple[int, int]]:
    views = _views(case, env)
    assert views is not None
    sets = [_bytes(v) for v in views]
    return {
        (a, b)
        for a in range(len(sets))
        for b in range(a + 1, len(sets))
        if sets[a] & sets[b]
    }


class _Oracle:
    def __init__(self, case: Case, limit: float) -> None:
        self.case = case
        self.deadline = time.monotonic() + limit
        self.syms = {name: z3.Int(name) for name in case["symbols"]}
        self.hints: Env = {k: int(v["hint"]) for k, v in case["symbols"].items()}
        dom = []
        for name, info in case["symbols"].items():
            dom.append(self.syms[name] >= int(info["min"]))
            if info.get("max") is not None:
                dom.append(self.syms[name] <= int(info["max"]))
        for t in case["tensors"]:
            for f in list(t["sizes"]) + list(t["strides"]) + [t["storage_offset"]]:
                dom.append(_z3(f, self.syms) >= 0)
        self.domain = z3.And(*dom)
        self.hint_set = _classify(case, self.hints)
        self.counterexample: Env | None = None
        self.counter = 0

    def _indices(
        self, t: int
    ) -> tuple[list[z3.BoolRef], z3.ArithRef, list[z3.ArithRef]]:
        tensor = self.case["tensors"][t]
        item = int(tensor["itemsize"])
        self.counter += 1
        idx = [z3.Int(f"i{t}_{d}_{self.counter}") for d in range(len(tensor["sizes"]))]
        byte = z3.Int(f"b{t}_{self.counter}")
        conds = [
            z3.And(0 <= i, i < _z3(n, self.syms)) for i, n in zip(idx, tensor["sizes"])
        ]
        conds.append(z3.And(0 <= byte, byte < item))
        addr = _z3(tensor["storage_offset"], self.syms)
        for i, s in zip(idx, tensor["strides"]):
            addr = addr + i * _z3(s, self.syms)
        return conds, addr * item + byte, idx + [byte]

    def _ask(self, formula: z3.BoolRef) -> tuple[str, Env | None]:
        left = self.deadline - time.monotonic()
        if left <= 0.01:
            return "unknown", None
        s = z3.Solver()
        s.set("timeout", max(10, int(left * 1000)))
        s.add(formula)
        r = s.check()
        if r == z3.unsat:
            return "unsat", None
        if r == z3.sat:
            m = s.model()
            env = dict(self.hints)
            for name, v in self.syms.items():
                val = m.eval(v, model_completion=True)
                env[name] = val.as_long()
            return "sat", env
        return "unknown", None

    def _refutes(self, env: Env | None) -> bool:
        if env is None:
            return False
        got = _classify(self.case, env)
        if got is not None and got != self.hint_set:
            self.counterexample = env
            return True
        return False

    def run(self) -> str:
        if self.hint_set is None:
            return "unknown"
        n = len(self.case["tensors"])
        pairs = _pairs(self.case, self.hints)
        proved = True
        for v in range(n):
            if v in self.hint_set:
                ok = False
                for u in range(n):
                    if (min(u, v), max(u, v)) not in pairs:
                        continue
                    cu, au, iu = self._indices(u)
                    cv, av, iv = self._indices(v)
                    meets = z3.And(*cu, *cv, au == av)
                    answer, env = self._ask(
                        z3.And(self.domain, z3.ForAll(iu + iv, z3.Not(meets)))
                    )
                    if answer == "unsat":
                        ok = True
                        break
                    if self._refutes(env):
                        return "refuted"
                proved = proved and ok
            else:
                for u in range(n):
                    if u == v:
                        continue
                    cu, au, _ = self._indices(u)
                    cv, av, _ = self._indices(v)
                    answer, env = self._ask(z3.And(self.domain, *cu, *cv, au == av))
                    if answer == "unsat":
                        continue
                    if self._refutes(env):
                        return "refuted"
                    proved = False
        return "proved" if proved else "unknown"


def main() -> None:
    limit = 2.0
    with open(sys.argv[1]) as f:
        lines = [line for line in f if line.strip()]
    for line in lines:
        case = json.loads(line)
        t0 = time.monotonic()
        verdict = _Oracle(case, limit).run()
        out = {
            "id": case["id"],
            "reference": verdict,
            "seconds": round(time.monotonic() - t0, 3),
        }
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
