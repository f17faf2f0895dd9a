#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seeds from the repository's test data and
# the reproducers (tests/data/repro, tests/golden/inputs). Run from fuzz/.
set -euo pipefail
cd "$(dirname "$0")"
root=..
mkdir -p corpus/expr_roundtrip corpus/overlap_line corpus/program corpus/guard_check
python3 - "$root" <<'PY'
import json, os, sys, hashlib
root = sys.argv[1]
def put(target, text):
    data = text.encode() if isinstance(text, str) else text
    name = hashlib.sha1(data).hexdigest()
    with open(f"corpus/{target}/{name}", "wb") as f:
        f.write(data)
for line in open(f"{root}/tests/data/exprs_dev.jsonl"):
    if line.strip():
        e = json.loads(line)["expr"]
        put("expr_roundtrip", str(e))
for f in ["examples/exprs.txt", "tests/golden/inputs/bad_exprs.txt"]:
    for line in open(f"{root}/{f}"):
        put("expr_roundtrip", line.rstrip("\n"))
for f in ["tests/data/overlap_dev.jsonl", "examples/overlap.jsonl", "tests/golden/inputs/bad_overlap.jsonl"]:
    for line in open(f"{root}/{f}"):
        if line.strip():
            put("overlap_line", line.rstrip("\n"))
progs = sorted(os.listdir(f"{root}/tests/programs"))
for p in progs:
    doc = json.load(open(f"{root}/tests/programs/{p}"))
    put("program", json.dumps(doc))
for line in open(f"{root}/tests/golden/inputs/bad_programs.jsonl"):
    if line.strip():
        put("program", line.rstrip("\n"))
for f in ["examples/calls-29.jsonl", "tests/golden/inputs/bad_calls.jsonl"]:
    for line in open(f"{root}/{f}"):
        if line.strip():
            put("guard_check", line.rstrip("\n"))
PY
echo "seeds: $(ls corpus/expr_roundtrip | wc -l) expr, $(ls corpus/overlap_line | wc -l) overlap, $(ls corpus/program | wc -l) program, $(ls corpus/guard_check | wc -l) call"
