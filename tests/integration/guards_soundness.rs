//! Guard soundness harness: for every §5 program under `tests/programs/`,
//! draw concrete calls (symbol values inside the ranges and assumptions, and
//! calls that break the compile-time picture: moved offsets, split storages,
//! merged or separated objects). Whenever the program's guards pass on a call,
//! re-running the whole analysis on that concrete call must give the same
//! decisions: dedupe, the overlap partition of each asked storage group,
//! which inputs are merged into which synthetic base, and the inner metadata.
//! Zero violations; the needless-recompile rate is printed.

use crate::common::calls::{concrete_call, decisions};
use crate::common::{programs, Rng};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use symalias::analysis::Analyzer as Solver;
use symalias::expr::{parse, ExprPool};
use symalias::guards::check::Call;
use symalias::io::{prepare_guards, GuardDoc as Guard};

/// Symbol values inside the ranges that satisfy the assumptions; one draw in
/// eight instead puts one symbol just outside its range and ignores the
/// assumptions (the guards must not rely on the compiler's own guards).
fn draw_symbols(p: &Value, r: &mut Rng) -> Option<BTreeMap<String, i64>> {
    let syms = p["symbols"].as_object().cloned().unwrap_or_default();
    if !syms.is_empty() && r.range(0, 7) == 0 {
        let mut at = BTreeMap::new();
        let victim = r.range(0, syms.len() as i64 - 1) as usize;
        for (k, (name, s)) in syms.iter().enumerate() {
            let hint = s["hint"].as_i64().unwrap_or(2);
            let lo = s["min"].as_i64();
            let hi = s["max"].as_i64();
            let v = if k != victim {
                hint
            } else {
                match (lo, hi, r.range(0, 1)) {
                    (Some(l), _, 0) | (Some(l), None, _) => l - r.range(1, 2),
                    (_, Some(h), _) => h + r.range(1, 2),
                    (None, None, _) => hint,
                }
            };
            at.insert(name.clone(), v);
        }
        return Some(at);
    }
    'draw: for _ in 0..200 {
        let mut at = BTreeMap::new();
        for (name, s) in &syms {
            let hint = s["hint"].as_i64().unwrap_or(2);
            let lo = s["min"].as_i64().unwrap_or(0);
            let hi = s["max"].as_i64().unwrap_or(hint * 2 + 8).max(lo);
            at.insert(name.clone(), r.range(lo, hi));
        }
        for a in p["assumptions"].as_array().cloned().unwrap_or_default() {
            let mut pool = ExprPool::new();
            let e = parse(&mut pool, a.as_str().unwrap()).unwrap();
            let ok = pool.eval(e, &|sym| at.get(pool.symbol_name(sym)).copied());
            if ok != Ok(symalias::expr::Value::Bool(true)) {
                continue 'draw;
            }
        }
        return Some(at);
    }
    None
}

/// A concrete call for the program at `at`, half of them perturbed: one
/// object's offset moved or its storage split off (at every input that
/// passes it: one object has one layout), one input's object copied, or one
/// input made the first input's object (with its storage and layout).
fn make_call(p: &Value, at: &BTreeMap<String, i64>, r: &mut Rng) -> Option<(Value, Value)> {
    let ins = p["inputs"].as_array().unwrap();
    let perturb = r.range(0, 2) == 0;
    let victim = r.range(0, ins.len() as i64 - 1) as usize;
    let how = r.range(0, 3);
    let step = r.range(1, 3);
    let victim_object = ins[victim]["tensor"]["object"].clone();
    let first_at = ins.iter().position(|y| y["tensor"].is_object());
    let mut first: Option<Value> = None;
    concrete_call(p, at, &mut |i, t| {
        if Some(i) == first_at {
            first = Some(t.clone());
        }
        if !perturb {
            return;
        }
        match how {
            0 if t["object"] == victim_object => {
                t["storage_offset"] = (t["storage_offset"].as_i64().unwrap() + step).into()
            }
            1 if t["object"] == victim_object => {
                t["storage"] = format!("{}-split", t["storage"].as_str().unwrap()).into()
            }
            2 if i == victim => {
                t["object"] = format!("{}-copy", t["object"].as_str().unwrap()).into()
            }
            3 if i == victim => {
                if let Some(f) = &first {
                    *t = f.clone();
                }
            }
            _ => {}
        }
    })
}

struct Stats {
    drawn: usize,
    /// Draws that could not be checked (no valid call, a call the checker
    /// rejects, a concrete program the analysis rejects, a program that
    /// does not compile).
    skipped: usize,
    passed: usize,
    needless: usize,
    /// Needless failures by the kind of the first failing guard.
    needless_by: BTreeMap<String, usize>,
    violations: Vec<String>,
}

/// Draws `calls` calls per program; checks the guards and, where they pass,
/// compares the decisions of the concrete call with the compiled ones.
/// `without`: leave out the guards of this kind (to show the harness notices).
fn harness(
    programs: Vec<(String, Value)>,
    calls: usize,
    seed: u64,
    bind_extra: bool,
    without: Option<&str>,
) -> Stats {
    let mut solver = Solver::default();
    let mut rng = Rng(seed);
    let mut st = Stats {
        drawn: 0,
        skipped: 0,
        passed: 0,
        needless: 0,
        needless_by: BTreeMap::new(),
        violations: Vec::new(),
    };
    for (name, doc) in programs {
        let Ok(compiled) = crate::common::analyze_json(&doc, &mut solver) else {
            st.skipped += calls;
            continue;
        };
        let mut guards: Vec<Guard> = serde_json::from_value(compiled["guards"].clone()).unwrap();
        guards.retain(|g| Some(kind_of(g).as_str()) != without);
        // A fast path whose exact guard was left out now binds on its own
        // (a list must not end a run of fast paths without its exact guard).
        let mut k = guards.len();
        let mut closed = false;
        while k > 0 {
            k -= 1;
            if guards[k].fast_path {
                guards[k].fast_path = closed;
            } else {
                closed = matches!(
                    kind_of(&guards[k]).as_str(),
                    "storage_overlap" | "self_overlap"
                );
            }
        }
        let symbols: BTreeMap<String, String> =
            serde_json::from_value(compiled["symbols"].clone()).unwrap();
        let set = prepare_guards(&guards, &symbols).unwrap();
        for _ in 0..calls {
            let Some(at) = draw_symbols(&doc, &mut rng) else {
                st.skipped += 1;
                continue;
            };
            let Some((mut call_json, concrete)) = make_call(&doc, &at, &mut rng) else {
                st.skipped += 1;
                continue;
            };
            if bind_extra {
                add_symbol_sources(&mut call_json, &symbols, &at);
            }
            let call: Call = serde_json::from_value(call_json).unwrap();
            let Ok(outcome) = set.check(&call) else {
                st.skipped += 1;
                continue;
            };
            let Ok(now) = crate::common::analyze_json(&concrete, &mut solver) else {
                st.skipped += 1;
                continue;
            };
            st.drawn += 1;
            let want = decisions(&compiled, &at);
            let same = decisions(&now, &at) == want;
            if outcome.passed() {
                st.passed += 1;
                if !same {
                    st.violations.push(format!("{name} at {at:?}: guards pass but decisions change\n  compiled {want}\n  now      {}", decisions(&now, &at)));
                }
            } else if same {
                st.needless += 1;
                let kind = outcome
                    .failure()
                    .map_or("?".into(), |f| kind_of(&guards[f.index]));
                *st.needless_by.entry(kind).or_default() += 1;
            }
        }
    }
    st
}

fn kind_of(g: &Guard) -> String {
    serde_json::to_value(g).unwrap()["kind"]
        .as_str()
        .unwrap()
        .to_string()
}

fn report(what: &str, st: &Stats, min_calls: usize) {
    eprintln!(
        "guard soundness ({what}): {} calls ({} skipped), {} passed the guards, {} violations; {} needless failures ({:.1}% of the failing calls kept every decision)",
        st.drawn,
        st.skipped,
        st.passed,
        st.violations.len(),
        st.needless,
        100.0 * st.needless as f64 / (st.drawn - st.passed).max(1) as f64
    );
    eprintln!(
        "  needless failures by first failing guard: {:?}",
        st.needless_by
    );
    assert!(st.drawn >= min_calls, "only {} calls drawn", st.drawn);
    // A harness that skips more than it checks proves little.
    assert!(
        st.skipped <= st.drawn,
        "{} draws skipped, only {} checked",
        st.skipped,
        st.drawn
    );
    assert!(
        st.violations.is_empty(),
        "{}",
        st.violations[..st.violations.len().min(5)].join("\n")
    );
}

#[test]
fn guards_that_pass_keep_every_decision() {
    let calls = crate::common::env_count("SYMALIAS_GUARD_CALLS", 400);
    report(
        "§5 programs",
        &harness(programs(), calls, 0x6a7d, false, None),
        10_000,
    );
}

/// The harness is not vacuous: leaving out any one kind of guard that the
/// programs use lets some call through whose decisions changed. (Fast-path
/// shape guards only ever relax the StorageOverlap guard after them, so
/// leaving them out cannot.)
#[test]
fn every_kind_of_guard_is_needed_somewhere() {
    for kind in [
        "duplicate_input",
        "distinct_objects",
        "storage_partition",
        "layout",
        "storage_overlap",
    ] {
        let st = harness(programs(), 60, 0xbad, false, Some(kind));
        assert!(
            !st.violations.is_empty(),
            "without the {kind} guards no call changed a decision unnoticed ({} calls)",
            st.drawn
        );
        eprintln!(
            "without {kind}: {} violations in {} calls",
            st.violations.len(),
            st.drawn
        );
    }
}

/// Every symbolic case of the overlap dev corpus as a program: its views are
/// inputs of one storage, the first one mutated.
fn corpus_programs() -> Vec<(String, Value)> {
    crate::common::corpus_lines("overlap_dev.jsonl")
        .into_iter()
        .filter(|c| c["symbols"].as_object().is_some_and(|s| !s.is_empty()))
        .map(|c| {
            let inputs: Vec<Value> = c["tensors"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    json!({"source": format!("L['t{i}']"), "tensor": {"object": format!("t{i}"), "storage": "S", "base": "B",
                        "sizes": t["sizes"], "strides": t["strides"], "storage_offset": t.get("storage_offset").cloned().unwrap_or(json!(0)),
                        "itemsize": t.get("itemsize").cloned().unwrap_or(json!(1))},
                        "mutates_data": i == 0})
                })
                .collect();
            let id = c["id"].as_str().unwrap().to_string();
            (id.clone(), json!({"id": id, "symbols": c["symbols"], "assumptions": c.get("assumptions").cloned().unwrap_or(json!([])),
                "options": {"is_train": false}, "inputs": inputs, "outputs": []}))
        })
        .collect()
}

#[test]
fn guards_that_pass_keep_every_decision_on_the_symbolic_corpus() {
    let calls = crate::common::env_count("SYMALIAS_GUARD_CORPUS_CALLS", 20);
    report(
        "symbolic corpus",
        &harness(corpus_programs(), calls, 0x5eed, true, None),
        1000,
    );
}

/// Random programs (duplicates, shared storages, data and metadata
/// mutations, every output type, both merge modes; every other one with a
/// symbolic row count) through the same harness.
#[test]
fn guards_that_pass_keep_every_decision_on_random_programs() {
    let n: u64 = crate::common::env_count("SYMALIAS_GUARD_RANDOM_PROGRAMS", 300);
    let progs = (0..n)
        .map(|k| {
            let g = crate::common::random_programs::generate(0x5eed_0000 + k, k % 2 == 1);
            (format!("random-{k}"), g.program)
        })
        .collect();
    report(
        "random programs",
        &harness(progs, 20, 0x7a9d, true, None),
        (n as usize) * 10,
    );
}

/// Adds inputs for symbol sources the call does not have (corpus symbols read
/// tensors that are not among the views, or plain values).
fn add_symbol_sources(
    call: &mut Value,
    symbols: &BTreeMap<String, String>,
    at: &BTreeMap<String, i64>,
) {
    let mut extra: BTreeMap<String, (Vec<i64>, Vec<i64>, i64)> = BTreeMap::new();
    let have = |call: &Value, src: &str| {
        call["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["source"] == src)
    };
    for (name, src) in symbols {
        let Some(&v) = at.get(name) else { continue };
        let dim = |rest: &str| {
            rest.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<usize>()
                .ok()
        };
        if let Some((base, rest)) = src.rsplit_once(".size()") {
            if have(call, base) {
                continue;
            }
            let (sz, _, _) = extra.entry(base.to_string()).or_insert((vec![], vec![], 0));
            if let Some(d) = dim(rest) {
                if sz.len() <= d {
                    sz.resize(d + 1, 1)
                }
                sz[d] = v
            }
        } else if let Some((base, rest)) = src.rsplit_once(".stride()") {
            if have(call, base) {
                continue;
            }
            let (_, st, _) = extra.entry(base.to_string()).or_insert((vec![], vec![], 0));
            if let Some(d) = dim(rest) {
                if st.len() <= d {
                    st.resize(d + 1, 1)
                }
                st[d] = v
            }
        } else if let Some(base) = src.strip_suffix(".storage_offset()") {
            if have(call, base) {
                continue;
            }
            extra
                .entry(base.to_string())
                .or_insert((vec![], vec![], 0))
                .2 = v;
        } else if !have(call, src) {
            call["inputs"]
                .as_array_mut()
                .unwrap()
                .push(json!({"source": src, "value": v}));
        }
    }
    for (base, (mut sz, mut st, off)) in extra {
        let rank = sz.len().max(st.len());
        sz.resize(rank, 1);
        st.resize(rank, 1);
        call["inputs"].as_array_mut().unwrap().push(json!({"source": base, "tensor": {"object": format!("extra {base}"), "storage": format!("extra {base}"), "sizes": sz, "strides": st, "storage_offset": off}}));
    }
}

/// Malformed calls are bad input with a message, never a panic or a pass:
/// every program's guard list against valid calls broken in one way each
/// (input missing, rank mismatch, negative or overflowing fields, itemsize 0,
/// a tensor replaced by a value).
#[test]
fn malformed_calls_are_reported_not_passed() {
    let mut solver = Solver::default();
    let mut rng = Rng(0x0bad_ca11);
    let mut errors = 0;
    for (name, doc) in programs() {
        let Ok(compiled) = crate::common::analyze_json(&doc, &mut solver) else {
            continue;
        };
        let guards: Vec<Guard> = serde_json::from_value(compiled["guards"].clone()).unwrap();
        if guards.is_empty() {
            continue;
        }
        let symbols: BTreeMap<String, String> =
            serde_json::from_value(compiled["symbols"].clone()).unwrap();
        let set = prepare_guards(&guards, &symbols).unwrap();
        let at = crate::common::calls::hints(&doc);
        let (call, _) = concrete_call(&doc, &at, &mut |_, _| {}).unwrap();
        // The sources the guards read: breaking one of them must be noticed.
        let read: Vec<usize> = (0..call["inputs"].as_array().unwrap().len())
            .filter(|&i| {
                let src = call["inputs"][i]["source"].as_str().unwrap();
                compiled["guards"].to_string().contains(src)
            })
            .collect();
        if read.is_empty() {
            continue;
        }
        for how in 0..7 {
            let mut c = call.clone();
            let i = read[rng.range(0, read.len() as i64 - 1) as usize];
            let rank = c["inputs"][i]["tensor"]["sizes"]
                .as_array()
                .map_or(0, Vec::len);
            if how == 4 && rank != 1 {
                continue;
            }
            match how {
                0 => {
                    c["inputs"].as_array_mut().unwrap().remove(i);
                }
                1 => c["inputs"][i]["tensor"]["strides"]
                    .as_array_mut()
                    .unwrap()
                    .push(1.into()),
                2 => c["inputs"][i]["tensor"]["sizes"][0] = (-3).into(),
                3 => c["inputs"][i]["tensor"]["storage_offset"] = (-1).into(),
                4 => {
                    c["inputs"][i]["tensor"]["sizes"] = json!([3]);
                    c["inputs"][i]["tensor"]["strides"] = json!([i64::MAX]);
                }
                5 => c["inputs"][i]["tensor"]["itemsize"] = 0.into(),
                _ => {
                    c["inputs"][i]["tensor"] = Value::Null;
                    c["inputs"][i]["value"] = 3.into();
                }
            }
            let call: Call = serde_json::from_value(c).unwrap();
            match set.check(&call) {
                Err(e) => {
                    errors += 1;
                    assert!(!e.to_string().is_empty());
                }
                Ok(o) => panic!("{name}, breakage {how} of input {i}: answered {o:?}"),
            }
        }
    }
    assert!(errors >= 50, "only {errors} malformed calls tried");
}
