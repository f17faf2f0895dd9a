//! Golden test of the command line: every example, scenario program and corpus
//! case, and a set of bad inputs, run through the `symalias` binary; stdout,
//! stderr and the exit code must be byte-identical to the recorded output in
//! `tests/golden/` (wall times, `"micros"`, are zeroed).
//!
//! The CLI's output is a contract (FORMATS.md); a change to it must be
//! deliberate. To re-record after one: `SYMALIAS_BLESS=1 cargo test --test integration golden::`,
//! then review the diff of `tests/golden/`.

use crate::common::cli::UNHURRIED;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary with `args` (paths relative to the repository root).
fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_symalias"))
        .args(args)
        .current_dir(root())
        .env_remove("SYMALIAS_LOG")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    let mut text = format!("exit: {:?}\n--- stdout\n", out.status.code());
    text.push_str(&zero_micros(&String::from_utf8_lossy(&out.stdout)));
    text.push_str("--- stderr\n");
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    text
}

/// `"micros":123` → `"micros":0` (also pretty-printed `"micros": 123`).
fn zero_micros(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("\"micros\":") {
        let (head, tail) = rest.split_at(at + "\"micros\":".len());
        out.push_str(head);
        let spaces = tail.len() - tail.trim_start_matches(' ').len();
        out.push_str(&tail[..spaces]);
        let digits = tail[spaces..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len() - spaces);
        if digits > 0 {
            out.push('0');
        }
        rest = &tail[spaces + digits..];
    }
    out.push_str(rest);
    out
}

/// Compares with (or, with `SYMALIAS_BLESS=1`, records) `tests/golden/<name>.out`.
fn golden(name: &str, actual: &str) -> Result<(), String> {
    let path = root().join("tests/golden").join(format!("{name}.out"));
    if std::env::var_os("SYMALIAS_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return Ok(());
    }
    let expected = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (record with SYMALIAS_BLESS=1)", path.display()))?;
    if expected == actual {
        return Ok(());
    }
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.lines().count().min(actual.lines().count()));
    let show = |s: &str| {
        s.lines()
            .nth(line)
            .unwrap_or("<end>")
            .chars()
            .take(400)
            .collect::<String>()
    };
    Err(format!(
        "{name}: output differs from {} at line {}:\n  expected: {}\n  actual:   {}",
        path.display(),
        line + 1,
        show(&expected),
        show(actual)
    ))
}

fn check_all(runs: &[(String, Vec<String>)]) {
    let failures: Vec<String> = runs
        .iter()
        .filter_map(|(name, args)| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            golden(name, &run(&args)).err()
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} golden outputs differ:\n{}",
        failures.len(),
        runs.len(),
        failures.join("\n")
    );
}

fn args(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

#[test]
fn overlap_output_is_unchanged() {
    check_all(&[
        (
            "overlap_example".into(),
            args(&[
                "overlap",
                "--no-timing",
                UNHURRIED,
                "examples/overlap.jsonl",
            ]),
        ),
        (
            "overlap_dev".into(),
            args(&[
                "overlap",
                "--no-timing",
                UNHURRIED,
                "tests/data/overlap_dev.jsonl",
            ]),
        ),
        (
            "overlap_dev_no_prove".into(),
            args(&[
                "overlap",
                "--no-timing",
                UNHURRIED,
                "--no-prove",
                "tests/data/overlap_dev.jsonl",
            ]),
        ),
        (
            "overlap_dev_no_simplify".into(),
            args(&[
                "overlap",
                "--no-timing",
                UNHURRIED,
                "--no-simplify",
                "tests/data/overlap_dev.jsonl",
            ]),
        ),
        (
            "overlap_bad".into(),
            args(&[
                "overlap",
                "--no-timing",
                UNHURRIED,
                "tests/golden/inputs/bad_overlap.jsonl",
            ]),
        ),
    ]);
}

#[test]
fn analyze_output_is_unchanged() {
    let mut runs = Vec::new();
    let mut programs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    programs.sort();
    assert!(!programs.is_empty());
    for p in &programs {
        let rel = p
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let stem = p.file_stem().unwrap().to_str().unwrap();
        runs.push((
            format!("analyze_{stem}"),
            args(&["analyze", UNHURRIED, &rel]),
        ));
    }
    runs.push((
        "analyze_recompile_29_pretty".into(),
        args(&[
            "analyze",
            UNHURRIED,
            "--pretty",
            "examples/recompile-29.json",
        ]),
    ));
    runs.push((
        "analyze_bad".into(),
        args(&[
            "analyze",
            UNHURRIED,
            "tests/golden/inputs/bad_programs.jsonl",
        ]),
    ));
    check_all(&runs);
}

#[test]
fn check_guards_output_is_unchanged() {
    let dir = std::env::temp_dir().join(format!("symalias-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let result = dir.join("recompile-29.result.json");
    let out = Command::new(env!("CARGO_BIN_EXE_symalias"))
        .args(["analyze", UNHURRIED, "examples/recompile-29.json"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(&result, &out.stdout).unwrap();
    let r = result.to_str().unwrap();
    check_all(&[
        (
            "check_guards_29".into(),
            args(&["check-guards", r, "examples/calls-29.jsonl"]),
        ),
        (
            "check_guards_bad".into(),
            args(&["check-guards", r, "tests/golden/inputs/bad_calls.jsonl"]),
        ),
    ]);
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}

#[test]
fn parse_and_simplify_output_is_unchanged() {
    check_all(&[
        (
            "parse_exprs_txt".into(),
            args(&["parse", "examples/exprs.txt"]),
        ),
        (
            "parse_exprs_jsonl".into(),
            args(&["parse", "examples/exprs.jsonl"]),
        ),
        (
            "parse_exprs_dev".into(),
            args(&["parse", "tests/data/exprs_dev.jsonl"]),
        ),
        (
            "parse_bad".into(),
            args(&["parse", "tests/golden/inputs/bad_exprs.txt"]),
        ),
        (
            "simplify_exprs_jsonl".into(),
            args(&["simplify", UNHURRIED, "examples/exprs.jsonl"]),
        ),
        (
            "simplify_exprs_dev".into(),
            args(&["simplify", UNHURRIED, "tests/data/exprs_dev.jsonl"]),
        ),
        (
            "simplify_bad".into(),
            args(&["simplify", UNHURRIED, "tests/golden/inputs/bad_exprs.txt"]),
        ),
    ]);
}
