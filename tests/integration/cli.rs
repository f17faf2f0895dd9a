//! The `symalias` command: answers, error messages and exit codes.

use crate::common::cli::{run, UNHURRIED};
use std::process::Output;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn eval_follows_python_semantics() {
    let out = run(
        &[
            "eval",
            "Mod(s0, -3) + s1//(-2) + CeilDiv(s0, 2)",
            "--at",
            "s0=7,s1=7",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // 7 % -3 == -2; 7 // -2 == -4; ceil(7/2) == 4
    assert_eq!(text(&out.stdout).trim(), "-2");
    let out = run(
        &["eval", "FloatTrueDiv(ToFloat(s0), 2.0) > 1", "--at", "s0=3"],
        "",
    );
    assert_eq!(text(&out.stdout).trim(), "True");
}

#[test]
fn eval_reports_bad_input_with_exit_code_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["eval", "s0//(s1 - 4)", "--at", "s0=1,s1=4"],
            "division by zero",
        ),
        (&["eval", "s0*s0*s0", "--at", "s0=3037000500"], "overflow"),
        (
            &["eval", "Frobnicate(s0)", "--at", "s0=1"],
            "unknown function `Frobnicate`",
        ),
        (&["eval", "s0 + ", "--at", "s0=1"], "at column 6"),
        (
            &["eval", "s0 + s1", "--at", "s0=1"],
            "symbol `s1` has no value",
        ),
        (&["eval", "s0", "--at", "s0=x"], "not a 64-bit integer"),
        (&["eval", "99999999999999999999"], "does not fit in 64 bits"),
    ];
    for (args, want) in cases {
        let out = run(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains(want),
            "{args:?}: stderr {err:?} lacks {want:?}"
        );
    }
}

#[test]
fn parse_batch_answers_every_line_and_fails_at_the_end() {
    let input = [
        "2*(s0 + 1) - s0",
        "Max(s0,",
        r#"{"id": "ok", "symbols": {"s0": {"hint": 4, "min": 2}}, "assumptions": ["Eq(Mod(s0, 2), 0)"], "expr": "s0*(s0 + 1)//2"}"#,
        r#"{"id": "hint", "symbols": {"s0": {"hint": 1, "min": 2}}, "assumptions": [], "expr": "s0"}"#,
        r#"{"id": "assume", "symbols": {"s0": {"hint": 3, "min": 2}}, "assumptions": ["s0 >= 2", "Eq(Mod(s0, 2), 0)"], "expr": "s0"}"#,
        r#"{"id": "json", "symbols": {"#,
        r#"{"id": "field", "symbols": {}, "assumptions": [], "expr": 1.5}"#,
        r#"{"id": "last", "expr": "ModularIndexing(7, 2, 2)"}"#,
    ]
    .join("\n");
    let out = run(&["parse", "-"], &input);
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 8, "one output line per input line: {lines:?}");
    assert_eq!(lines[0], "s0 + 2");
    assert_eq!(lines[1], "");
    let ok: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
    assert_eq!(ok["expr"], "((s0*(s0 + 1))//2)");
    assert_eq!(ok["size_out"], 7); // FloorDiv, Mul, s0, Add, s0, 1, 2
    let err = |i: usize| -> String {
        let v: serde_json::Value = serde_json::from_str(&lines[i]).unwrap();
        v["error"].as_str().unwrap().to_string()
    };
    assert!(
        err(3).contains("field `symbols.s0`")
            && err(3).contains("hint 1 is outside its range [2, oo)"),
        "{}",
        err(3)
    );
    assert!(
        err(4).contains("field `assumptions[1]`") && err(4).contains("false at the hints"),
        "{}",
        err(4)
    );
    assert!(
        err(5).contains("line 6") && err(5).contains("malformed JSON"),
        "{}",
        err(5)
    );
    assert!(err(6).contains("field `expr`"), "{}", err(6));
    let last: serde_json::Value = serde_json::from_str(&lines[7]).unwrap();
    assert_eq!(last["expr"], "1");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("5 line(s) had errors"), "{stderr}");
}

#[test]
fn every_command_has_help() {
    for args in [
        &["--help"][..],
        &["parse", "--help"],
        &["eval", "--help"],
        &["overlap", "--help"],
        &["simplify", "--help"],
        &["analyze", "--help"],
        &["check-guards", "--help"],
    ] {
        let out = run(args, "");
        assert!(out.status.success(), "{args:?}");
        assert!(text(&out.stdout).contains("Usage: symalias"), "{args:?}");
    }
}

#[test]
fn missing_input_file_is_bad_input() {
    let out = run(&["parse", "/nonexistent/file.jsonl"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot open /nonexistent/file.jsonl"));
}

#[test]
fn overlap_batch_reports_bad_cases_and_continues() {
    let input = [
        r#"{"id": "ok", "tensors": [{"source": "L['a']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 0}, {"source": "L['b']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 9}]}"#,
        r#"{"id": "neg-size", "tensors": [{"sizes": [4, -1], "strides": [9, 1]}]}"#,
        r#"{"id": "neg-stride", "tensors": [{"sizes": [4], "strides": ["s0 - 5"]}], "symbols": {"s0": {"hint": 3}}}"#,
        r#"{"id": "no-hint", "symbols": {"s0": {"min": 2}}, "tensors": [{"sizes": ["s0"], "strides": [1]}]}"#,
        r#"{"id": "undeclared", "tensors": [{"sizes": ["s9"], "strides": [1]}]}"#,
        r#"{"id": "rank", "tensors": [{"sizes": [2, 2], "strides": [1]}]}"#,
        r#"{"id": "offset-overflow", "tensors": [{"sizes": [2], "strides": [1], "storage_offset": 9223372036854775807, "itemsize": 4}]}"#,
        r#"{"id": "div0", "symbols": {"s0": {"hint": 0, "min": 0}}, "tensors": [{"sizes": ["4//s0"], "strides": [1]}]}"#,
        r#"{"id": "sym", "symbols": {"s0": {"hint": 4, "min": 2, "source": "L['n']"}}, "tensors": [{"source": "L['x']", "sizes": ["s0"], "strides": [1]}, {"source": "L['y']", "sizes": ["s0"], "strides": [1], "storage_offset": "s0"}]}"#,
    ]
    .join("\n");
    let out = run(&["overlap", "-"], &input);
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 9);
    assert_eq!(lines[0]["overlapping"], serde_json::json!([0, 1]));
    assert_eq!(lines[0]["invariant"], true);
    assert_eq!(
        lines[0]["pairs"][0]["witness"]["address"]
            .as_i64()
            .map(|a| (9..=30).contains(&a)),
        Some(true)
    );
    let expect_err = [
        (1, "field `tensors[0].sizes[1]`", "negative"),
        (2, "field `tensors[0].strides[0]`", "negative"),
        (3, "field `tensors[0].sizes[0]`", "symbol `s0` has no hint"),
        (4, "field `tensors[0].sizes[0]`", "unknown symbol `s9`"),
        (5, "field `tensors[0]`", "2 sizes but 1 strides"),
        (6, "field `tensors[0]`", "does not fit in 64 bits"),
        (7, "field `tensors[0].sizes[0]`", "division by zero"),
    ];
    for (i, field, msg) in expect_err {
        let e = lines[i]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("line {i}: {}", lines[i]));
        assert!(e.contains(field) && e.contains(msg), "line {i}: {e}");
        assert_eq!(lines[i]["line"], i + 1);
    }
    // A symbolic case: proved for all shapes (s0 >= 2: [0, s0) and [s0, 2*s0) never meet).
    assert_eq!(lines[8]["overlapping"], serde_json::json!([]));
    assert_eq!(lines[8]["invariant"], true);
    // Its list stands alone: fast paths (the layouts and the domain) before
    // the exact guards they stand in for; an embedder that pins layouts
    // itself gets no guard at all.
    let kinds: Vec<(&str, bool)> = lines[8]["guards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["kind"].as_str().unwrap(), g["fast_path"] == true))
        .collect();
    assert_eq!(
        kinds,
        [
            ("layout", true),
            ("shape", true),
            ("storage_overlap", false),
            ("layout", true),
            ("shape", true),
            ("self_overlap", false)
        ]
    );
    let pinned = run(
        &["overlap", "--layouts-pinned", "-"],
        input.lines().last().unwrap(),
    );
    let v: serde_json::Value = serde_json::from_str(text(&pinned.stdout).trim()).unwrap();
    assert_eq!(v["guards"], serde_json::json!([]));
    // Without proofs it is answered at the hints, with the StorageOverlap guard.
    let hint_only = run(
        &["overlap", "--no-prove", "-"],
        input.lines().last().unwrap(),
    );
    let v: serde_json::Value = serde_json::from_str(text(&hint_only.stdout).trim()).unwrap();
    assert_eq!(v["invariant"], serde_json::Value::Null);
    assert_eq!(v["guards"][0]["kind"], "storage_overlap");
    assert_eq!(v["guards"][0]["overlapping"], serde_json::json!([]));
    assert_eq!(
        v["guards"][0]["non_overlapping"],
        serde_json::json!(["L['x']", "L['y']"])
    );
    assert!(v["guards"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("no proof was asked for"));
    assert!(text(&out.stderr).contains("7 case(s) had errors"));
}

#[test]
fn simplify_uses_the_case_facts_and_answers_every_line() {
    let input = concat!(
        r#"{"id": "mi", "symbols": {"s0": {"hint": 5, "min": 2}, "s1": {"hint": 4, "min": 2}, "x0": {"hint": 1, "min": 0}}, "assumptions": ["x0 < s1"], "expr": "ModularIndexing(s0*s1 + x0, 1, s1)"}"#,
        "\n",
        r#"{"id": "bad", "symbols": {"s0": {"hint": 1, "min": 2}}, "expr": "s0"}"#,
        "\n",
        r#"{"id": "max", "symbols": {"s0": {"hint": 5, "min": 2}}, "expr": "Max(1, s0//2) + Min(s0, 1)"}"#,
        "\n",
    );
    let out = run(&["simplify", "-"], input);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["expr"], "x0");
    assert_eq!(lines[0]["size_in"], 8);
    assert_eq!(lines[0]["size_out"], 1);
    assert!(lines[1]["error"].as_str().unwrap().contains("symbols.s0"));
    assert_eq!(lines[2]["expr"], "((s0//2)) + 1");
    assert!(text(&out.stderr).contains("1 line(s) had errors"));
}

#[test]
fn simplify_explain_prints_the_rewrite_chain() {
    let out = run(&["simplify", "--explain", "-"], "(4*x + 2)//2\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("2*x + 1"));
    let chain: Vec<&str> = lines.collect();
    assert!(chain.len() >= 2, "{stdout}");
    assert!(chain[0].contains("(// "), "{stdout}");
    assert!(
        chain.iter().any(|l| l.contains("Rewrite=> floordiv-split")),
        "{stdout}"
    );
}

#[test]
fn simplify_is_reproducible_across_runs() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/exprs_dev.jsonl");
    let strip = |o: Output| {
        text(&o.stdout)
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["micros"] = 0.into();
                v.to_string()
            })
            .collect::<Vec<_>>()
    };
    let a = strip(run(&["simplify", corpus], ""));
    let b = strip(run(&["simplify", corpus], ""));
    let cases = std::fs::read_to_string(corpus)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    assert!(cases > 0);
    assert_eq!(a.len(), cases, "one answer per case");
    assert_eq!(a, b);
}

#[test]
fn analyze_answers_programs_and_names_bad_fields() {
    let ok = r#"{"id": "ok", "inputs": [{"source": "L['a']", "tensor": {"object": "a", "storage": "s", "base": "x", "sizes": [4], "strides": [1]}, "mutates_data": true}, {"source": "L['b']", "tensor": {"object": "a", "storage": "s", "base": "x", "sizes": [4], "strides": [1]}}], "outputs": [{"output_type": "is_input", "base_idx": 1}]}"#;
    let bad_base = r#"{"id": "bad-base", "inputs": [], "outputs": [{"output_type": "alias_of_input", "base_idx": 3}]}"#;
    let bad_type = r#"{"id": "bad-type", "inputs": [], "outputs": [{"output_type": "alias_of_nothing", "base_idx": null}]}"#;
    let dangling = r#"{"id": "dangling", "inputs": [{"tensor": {"object": "x", "storage": "S1", "sizes": [4], "strides": [1]}}, {"tensor": {"object": "v", "storage": "S2", "base": "x", "sizes": [2], "strides": [1]}}]}"#;
    let export = r#"{"id": "export", "options": {"is_export": true}, "inputs": [{"source": "L['a']", "tensor": {"object": "a", "storage": "s", "sizes": [4], "strides": [1]}, "mutates_data": true}, {"source": "L['b']", "tensor": {"object": "a", "storage": "s", "sizes": [4], "strides": [1]}}]}"#;
    let input = [ok, bad_base, bad_type, dangling, export].join("\n");
    let out = run(&["analyze", "-"], &input);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["dedupe"]["strategy"], "remove");
    assert_eq!(
        lines[0]["dedupe"]["add_dupe_map"],
        serde_json::json!([0, 0])
    );
    assert_eq!(
        lines[0]["guard_text"],
        serde_json::json!(["L['a'] is L['b']"])
    );
    assert_eq!(lines[0]["meta"]["output_info"][0]["base_idx"], 0);
    let err = |i: usize| lines[i]["error"].as_str().unwrap().to_string();
    assert!(
        err(1).contains("field `outputs[0].base_idx`") && err(1).contains("out of range"),
        "{}",
        err(1)
    );
    assert!(
        err(2).contains("outputs[0].output_type") && err(2).contains("alias_of_nothing"),
        "{}",
        err(2)
    );
    assert!(
        err(3).contains("inputs[1].tensor.base") && err(3).contains("dangling storage"),
        "{}",
        err(3)
    );
    assert!(lines[4]["errors"][0]
        .as_str()
        .unwrap()
        .contains("duplicated inputs that are mutated"));
    assert!(text(&out.stderr).contains("3 program(s) had errors"));
}

#[test]
fn analyze_reads_one_pretty_document() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/programs/14-aliases-bases-out-of-order.json"
    );
    let out = run(&["analyze", "--pretty", path], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(
        v["synthetic_bases"]["aliased_arg_idx_with_metadata_mutations"],
        serde_json::json!([3])
    );
}

fn write_tmp(name: &str, v: &serde_json::Value) -> String {
    let dir = std::env::temp_dir().join(format!("symalias-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, v.to_string()).unwrap();
    p.to_string_lossy().into_owned()
}

/// The guide's example (docs/cli.md): #29 compiled, then four later calls.
#[test]
fn check_guards_example_of_the_readme() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let out = run(
        &["analyze", &format!("{dir}/examples/recompile-29.json")],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    let path = write_tmp("r29.json", &r);
    let out = run(
        &[
            "check-guards",
            &path,
            &format!("{dir}/examples/calls-29.jsonl"),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    let answers: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pass: Vec<bool> = answers.iter().map(|a| a["pass"] == true).collect();
    assert_eq!(pass, vec![true, true, false, false]);
    assert!(answers[2]["failed"]
        .as_str()
        .unwrap()
        .starts_with("same_storage_and_layout("));
    assert!(answers[3]["failed"]
        .as_str()
        .unwrap()
        .starts_with("storage_partition("));
}

/// A result with one guard of every kind (its file), and calls against it:
/// `(call, exit code, the failed guard's text starts with)`.
fn every_kind_of_guard() -> (String, Vec<(serde_json::Value, i32, &'static str)>) {
    // One guard of every kind.
    let result = serde_json::json!({
        "guards": [
            {"kind": "duplicate_input", "kept": "L['a']", "dupe": "L['b']", "reason": "b was removed"},
            {"kind": "distinct_objects", "sources": ["L['c']"], "others": ["L['e']"]},
            {"kind": "storage_partition", "groups": [["L['c']", "L['d']", "L['e']"]], "others": ["L['a']"]},
            {"kind": "shape", "expr": "10 <= s0"},
            {"kind": "layout", "sources": ["L['c']"], "sizes": [["5"]], "strides": [["1"]], "storage_offsets": ["0"], "itemsizes": [1]},
            {"kind": "shape", "expr": "s0 <= 30", "fast_path": true},
            {"kind": "storage_overlap", "overlapping": ["L['c']", "L['d']"], "non_overlapping": ["L['e']"]}
        ],
        "symbols": {"s0": "L['x'].size()[0]"}
    });
    let t = |obj: &str, storage: &str, size: i64, off: i64| serde_json::json!({"object": obj, "storage": storage, "sizes": [size], "strides": [1], "storage_offset": off});
    // (b's object, a's storage, e's object, e's storage, n, c's offset, d's offset)
    let call = |b: &str, a_st: &str, e: &str, e_st: &str, n: i64, c_off: i64, d_off: i64| {
        serde_json::json!({"inputs": [
            {"source": "L['a']", "tensor": t("a", a_st, 3, 0)},
            {"source": "L['b']", "tensor": t(b, a_st, 3, 0)},
            {"source": "L['x']", "tensor": t("x", "X", n, 0)},
            {"source": "L['c']", "tensor": t("c", "S", 5, c_off)},
            {"source": "L['d']", "tensor": t("d", "S", 5, d_off)},
            {"source": "L['e']", "tensor": t(e, e_st, 5, 10)}
        ]})
    };
    let r = write_tmp("result.json", &result);
    let cases = vec![
        (call("a", "A", "e", "S", 20, 0, 4), 0, ""),
        (call("b", "A", "e", "S", 20, 0, 4), 1, "L['a'] is L['b']"),
        (
            call("a", "A", "c", "S", 20, 0, 4),
            1,
            "distinct_objects([L['c']], others=[L['e']])",
        ),
        (call("a", "S", "e", "S", 20, 0, 4), 1, "storage_partition("),
        (call("a", "A", "e", "T", 20, 0, 4), 1, "storage_partition("),
        // Shape guards print sources for symbols.
        (
            call("a", "A", "e", "S", 9, 0, 4),
            1,
            "10 <= L['x'].size()[0]",
        ),
        (
            call("a", "A", "e", "S", 20, 1, 4),
            1,
            "same_storage_and_layout(L['c']: size (5), stride (1), offset 0, itemsize 1)",
        ),
        // The fast path fails, the StorageOverlap guard after it holds: pass.
        (call("a", "A", "e", "S", 40, 0, 4), 0, ""),
        (
            call("a", "A", "e", "S", 40, 0, 6),
            1,
            "check_overlapping(overlapping=[L['c'], L['d']], non_overlapping=[L['e']])",
        ),
        // While the fast path holds, the StorageOverlap guard is taken as
        // implied (the analysis proved it) and not swept.
        (call("a", "A", "e", "S", 20, 0, 6), 0, ""),
    ];
    (r, cases)
}

#[test]
fn check_guards_passes_fails_and_rejects_bad_calls() {
    let (r, cases) = every_kind_of_guard();
    for (k, (c, code, failed)) in cases.iter().enumerate() {
        let path = write_tmp(&format!("call{k}.json"), c);
        let out = run(&["check-guards", &r, &path], "");
        assert_eq!(
            out.status.code(),
            Some(*code),
            "case {k}: {} {}",
            text(&out.stdout),
            text(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
        assert_eq!(v["pass"], *code == 0, "case {k}");
        if *code == 1 {
            assert!(
                v["failed"].as_str().unwrap().starts_with(failed),
                "case {k}: {v}"
            );
            assert!(v["reason"].as_str().is_some(), "case {k}");
        }
    }
}

#[test]
fn check_guards_answers_a_batch_line_by_line() {
    let (r, cases) = every_kind_of_guard();
    // A batch: one call per line, one answer per line; a bad line gets an
    // error line and the others are still answered (exit 2).
    let batch: String = [
        cases[0].0.to_string(),
        "{\"inputs\": [".to_string(),
        cases[2].0.to_string(),
        serde_json::json!({"inputs": []}).to_string(),
    ]
    .join("\n");
    let out = run(&["check-guards", &r, "-"], &batch);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["pass"], true);
    assert_eq!(lines[0]["line"], 1);
    assert!(lines[1]["error"]
        .as_str()
        .unwrap()
        .contains("malformed JSON"));
    assert_eq!(lines[2]["pass"], false);
    assert_eq!(lines[2]["line"], 3);
    assert!(lines[3]["error"]
        .as_str()
        .unwrap()
        .contains("no input with source"));
    // Without bad lines the batch exits 1 when some call fails, 0 when all pass.
    let two = format!("{}\n{}", cases[0].0, cases[2].0);
    assert_eq!(run(&["check-guards", &r, "-"], &two).status.code(), Some(1));
    let two = format!("{}\n{}", cases[0].0, cases[9].0);
    assert_eq!(run(&["check-guards", &r, "-"], &two).status.code(), Some(0));
    // A call without a source the guards name is bad input.
    let missing = write_tmp("missing.json", &serde_json::json!({"inputs": []}));
    let out = run(&["check-guards", &r, &missing], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no input with source `L['a']`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn overlap_batches_are_the_same_on_one_thread_and_on_many() {
    // Every symbolic case of the dev corpus (and a bad line in the middle):
    // in input order, byte for byte, whatever the number of threads.
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/overlap_dev.jsonl");
    let cases = std::fs::read_to_string(corpus).unwrap();
    let mut lines: Vec<&str> = cases.lines().filter(|l| l.contains("\"hint\"")).collect();
    lines.insert(lines.len() / 2, "{\"id\": \"bad\", \"tensors\": 7}");
    let input = lines.join("\n");
    let one = run(
        &["overlap", UNHURRIED, "--no-timing", "--jobs", "1"],
        &input,
    );
    let many = run(
        &["overlap", UNHURRIED, "--no-timing", "--jobs", "3"],
        &input,
    );
    assert_eq!(
        one.status.code(),
        Some(2),
        "the bad line makes the batch exit 2"
    );
    assert_eq!(many.status.code(), Some(2));
    assert_eq!(text(&one.stdout), text(&many.stdout));
    let ids: Vec<String> = text(&many.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].to_string())
        .collect();
    let want: Vec<String> = lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].to_string())
        .collect();
    assert_eq!(
        ids, want,
        "answers in input order, the bad line answered in place"
    );
}

#[test]
fn simplify_and_analyze_batches_are_the_same_on_one_thread_and_on_many() {
    // Simplify: the expression corpus with a bad line inside; answers in
    // input order (timings aside), the same error line in place.
    let exprs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/exprs_dev.jsonl"
    ))
    .unwrap();
    let mut lines: Vec<&str> = exprs.lines().take(400).collect();
    lines.insert(200, "{\"id\": \"bad\", \"expr\": \")(\"}");
    let input = lines.join("\n");
    let no_micros = |o: &Output| -> Vec<serde_json::Value> {
        text(&o.stdout)
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                if v.get("micros").is_some() {
                    v["micros"] = 0.into();
                }
                v
            })
            .collect()
    };
    let one = run(&["simplify", UNHURRIED, "--jobs", "1"], &input);
    let many = run(&["simplify", UNHURRIED, "--jobs", "3"], &input);
    assert_eq!(one.status.code(), Some(2));
    assert_eq!(no_micros(&one), no_micros(&many));
    assert_eq!(no_micros(&many).len(), lines.len());
    assert_eq!(no_micros(&many)[200]["id"], "bad");
    // Analyze: every scenario program as one JSON Lines batch.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/programs");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let batch: Vec<String> = names
        .iter()
        .map(|p| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            v.to_string()
        })
        .collect();
    let input = batch.join("\n");
    let one = run(&["analyze", UNHURRIED, "--jobs", "1"], &input);
    let many = run(&["analyze", UNHURRIED, "--jobs", "3"], &input);
    assert_eq!(one.status.code(), many.status.code());
    assert_eq!(text(&one.stdout), text(&many.stdout));
    assert_eq!(text(&many.stdout).lines().count(), batch.len());
}

#[test]
fn overlap_svg_draws_one_picture_per_case() {
    let dir = std::env::temp_dir().join(format!("symalias-svg-{}", std::process::id()));
    let cases = concat!(
        r#"{"id": "b0 rows", "tensors": [{"source": "L['a']", "sizes": [4, 4], "strides": [9, 1]},"#,
        r#" {"source": "L['b']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 9}]}"#,
        "\n",
        r#"{"id": "split", "symbols": {"n": {"hint": 5, "min": 1}}, "tensors": ["#,
        r#"{"source": "x[:n]", "sizes": ["n"], "strides": [1]},"#,
        r#" {"source": "x[n:]", "sizes": ["n"], "strides": [1], "storage_offset": "n"}]}"#,
        "\n"
    );
    let out = run(&["overlap", "--svg", dir.to_str().unwrap()], cases);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    // `b0 rows` has a character a file name cannot keep: a hash of the
    // whole id tells it from `b0_rows`.
    assert_eq!(
        files,
        ["0001-b0_rows-f1af345df4697a60.svg", "0002-split.svg"]
    );
    let b0 = std::fs::read_to_string(dir.join(&files[0])).unwrap();
    assert!(
        b0.contains("witness byte 9: L[&apos;a&apos;][1, 0] and L[&apos;b&apos;][0, 0]"),
        "{b0}"
    );
    let split = std::fs::read_to_string(dir.join(&files[1])).unwrap();
    assert!(
        split.contains("all disjoint at the hints; proved for all shapes"),
        "{split}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // A directory that cannot be made: exit 2 and a message naming it.
    let out = run(&["overlap", "--svg", "/proc/no/such"], cases);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--svg /proc/no/such"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn analyze_svg_draws_each_storage_group_of_a_program() {
    let dir = std::env::temp_dir().join(format!("symalias-analyze-svg-{}", std::process::id()));
    let program = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/recompile-29.json"
    ))
    .unwrap();
    let out = run(&["analyze", "--svg", dir.to_str().unwrap()], &program);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files, ["0001-recompile-29-x.svg"]);
    let svg = std::fs::read_to_string(dir.join(&files[0])).unwrap();
    // The group at its hints, and at the counterexample that refutes it.
    assert!(
        svg.contains("at the hints: s0=20") && svg.contains("at the counterexample: s0=9"),
        "{svg}"
    );
    assert!(svg.contains("witness byte 36"), "{svg}");
    std::fs::remove_dir_all(&dir).unwrap();
}
