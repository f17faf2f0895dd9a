//! docs/PYTORCH.md §6 scenarios that concern metadata, as FORMATS §5
//! programs under `tests/programs/`, each with its expected result in an
//! `expect` object: keys are paths into the result (`a.b.0.c`, `x.length` for
//! an array's length); expected objects match as subsets (extra keys in the
//! result are allowed), arrays element by element.

use crate::common::programs;
use serde_json::Value;
use symalias::analysis::Analyzer;

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

#[test]
fn every_scenario_program_gives_its_expected_result() {
    let mut analyzer = Analyzer::default();
    let all = programs();
    assert!(all.len() >= 24, "{} programs", all.len());
    let mut failures = Vec::new();
    for (file, doc) in &all {
        let result = crate::common::analyze_json(doc, &mut analyzer)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
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

/// The guard list of a program fails exactly on the calls that would get a
/// wrong result: #29 call 2 (PyTorch's recompile), and bug B6 (#41 with the
/// same overlap partition but another offset: the synthetic base would
/// regenerate the old view).
#[test]
fn guard_lists_fail_on_the_calls_that_change_the_decisions() {
    use symalias::guards::check::{Call, GuardSet};
    let mut analyzer = Analyzer::default();
    let run = |file: &str, analyzer: &mut Analyzer| -> (GuardSet, ()) {
        let (_, doc) = programs().into_iter().find(|(f, _)| f == file).unwrap();
        let r = crate::common::analyze_json(&doc, analyzer).unwrap();
        (crate::common::guard_set(&r), ())
    };
    let check = |set: &GuardSet, _: &(), call: &Call| set.check(call);
    let t = |obj: &str, sizes: &[i64], strides: &[i64], off: i64| serde_json::json!({"object": obj, "storage": "S", "sizes": sizes, "strides": strides, "storage_offset": off, "itemsize": 4});
    let call = |inputs: serde_json::Value| -> Call {
        serde_json::from_value(serde_json::json!({"inputs": inputs})).unwrap()
    };

    // #29: ones(20); call 1 (x[:5], x[7:13], x[9:]), call 2 (x[:5], x[7:13], x[13:15]).
    let (g29, s29) = run("29-overlapping-with-mutation-recompile.json", &mut analyzer);
    let c29 = |n: i64, a2: (i64, i64)| {
        call(serde_json::json!([
            {"source": "L['x']", "tensor": t("x", &[n], &[1], 0)},
            {"source": "L['args'][0]", "tensor": t("a0", &[5], &[1], 0)},
            {"source": "L['args'][1]", "tensor": t("a1", &[6], &[1], 7)},
            {"source": "L['args'][2]", "tensor": t("a2", &[a2.0], &[1], a2.1)}
        ]))
    };
    assert!(check(&g29, &s29, &c29(20, (11, 9))).unwrap().passed());
    assert!(
        check(&g29, &s29, &c29(30, (21, 9))).unwrap().passed(),
        "another size, same decisions"
    );
    assert!(
        !check(&g29, &s29, &c29(20, (2, 13))).unwrap().passed(),
        "call 2 must fail"
    );
    assert!(
        !check(&g29, &s29, &c29(9, (0, 9))).unwrap().passed(),
        "x[9:] empty"
    );

    // #41 (B0 program): a = (4,4),(9,1)+0, b = (4,4),(9,1)+9, merged into one base.
    let (g41, s41) = run("41-b0-overlap-missed-by-pytorch.json", &mut analyzer);
    let c41 = |b_off: i64, b_storage: &str| {
        let mut b = t("b", &[4, 4], &[9, 1], b_off);
        b["storage"] = b_storage.into();
        call(serde_json::json!([
            {"source": "L['a']", "tensor": t("a", &[4, 4], &[9, 1], 0)},
            {"source": "L['b']", "tensor": b}
        ]))
    };
    assert!(check(&g41, &s41, &c41(9, "S")).unwrap().passed());
    let moved = check(&g41, &s41, &c41(10, "S")).unwrap();
    assert!(!moved.passed(), "same partition, other offset: B6");
    assert!(moved.failure().unwrap().reason.contains("storage offset"));
    let split = check(&g41, &s41, &c41(9, "T")).unwrap();
    assert!(!split.passed(), "no longer one storage: B7");
}
