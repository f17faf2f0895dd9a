//! PYTORCH_REFERENCE §6 scenarios that concern metadata, as FORMATS §5
//! programs under `tests/programs/`, each with its expected result in an
//! `expect` object: keys are paths into the result (`a.b.0.c`, `x.length` for
//! an array's length); expected objects match as subsets (extra keys in the
//! result are allowed), arrays element by element.

use serde_json::Value;
use std::path::PathBuf;
use symalias::io::{run_program, Program};
use symalias_solver::Solver;

fn lookup(v: &Value, path: &str) -> Option<Value> {
    let mut cur = v;
    let parts: Vec<&str> = path.split('.').collect();
    for (k, part) in parts.iter().enumerate() {
        if *part == "length" && k == parts.len() - 1 {
            return cur.as_array().map(|a| Value::from(a.len()));
        }
        cur = match part.parse::<usize>() {
            Ok(i) => cur.get(i)?,
            Err(_) => cur.get(part)?,
        };
    }
    Some(cur.clone())
}

fn subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, wv)| g.get(k).is_some_and(|gv| subset(wv, gv))),
        (Value::Array(w), Value::Array(g)) => {
            w.len() == g.len() && w.iter().zip(g).all(|(a, b)| subset(a, b))
        }
        _ => want == got,
    }
}

fn programs() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                serde_json::from_str(&text).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_scenario_program_gives_its_expected_result() {
    let mut solver = Solver::default();
    let all = programs();
    assert!(all.len() >= 24, "{} programs", all.len());
    let mut failures = Vec::new();
    for (file, doc) in &all {
        let program: Program =
            serde_json::from_value(doc.clone()).unwrap_or_else(|e| panic!("{file}: {e}"));
        let result = run_program(&program, &mut solver).unwrap_or_else(|e| panic!("{file}: {e}"));
        let expect = doc["expect"]
            .as_object()
            .unwrap_or_else(|| panic!("{file}: no expect"));
        assert!(!expect.is_empty(), "{file}: empty expect");
        for (path, want) in expect {
            let got = lookup(&result, path);
            if !got.as_ref().is_some_and(|g| subset(want, g)) {
                failures.push(format!(
                    "{file}: `{path}`: expected {want}, got {}",
                    got.map_or("nothing".into(), |g| g.to_string())
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
