//! The symbolic path at compiler scale:
//! * every dev case that a plain z3 encoding proves is proved, and no case
//!   it refutes is claimed invariant;
//! * every case returns within its time limit plus a small margin, whatever
//!   z3 does (the reproducers of hangs, and random nonlinear cases);
//! * groups of many views in a chain get one guard per link, not per pair,
//!   and those guards are sound on random later calls.

use crate::common::{corpus, corpus_lines, env_count};
use hashbrown::HashMap;
use std::time::{Duration, Instant};
use symalias::analysis::{Analyzer, AnalyzerOptions};
use symalias::expr::{parse, ExprPool};
use symalias::io::GuardKindDoc as GuardKind;
use symalias::io::GuardKindDoc;
use symalias::io::{parse_line, run_overlap_case, OverlapCase, OverlapResult};
use symalias::layout::View;
use symalias::overlap::{analyze_views, ProofOptions};

/// Slack over a case's time limit: the bound is limit + 100 ms.
const SLACK: Duration = Duration::from_millis(100);

fn with_limit(ms: u64) -> AnalyzerOptions {
    AnalyzerOptions {
        proof: ProofOptions {
            time_limit: Duration::from_millis(ms),
            ..ProofOptions::default()
        },
        ..crate::common::pinned()
    }
}

fn case_of(v: &serde_json::Value) -> OverlapCase {
    parse_line(1, &v.to_string()).value.expect("a valid case")
}

#[test]
fn every_case_the_reference_proves_is_proved() {
    let cases: HashMap<String, OverlapCase> = corpus_lines("overlap_dev.jsonl")
        .iter()
        .map(|v| (v["id"].as_str().unwrap().to_string(), case_of(v)))
        .collect();
    let (mut proved, mut missed, mut false_claims) = (0, Vec::new(), Vec::new());
    for r in corpus_lines("overlap_dev_reference_proofs.jsonl") {
        let id = r["id"].as_str().unwrap();
        let res = run_overlap_case(
            &cases[id],
            &mut Analyzer::new(crate::common::pinned()),
            false,
        )
        .unwrap();
        match r["reference"].as_str().unwrap() {
            "proved" if res.invariant == Some(true) => proved += 1,
            "proved" => missed.push(id.to_string()),
            "refuted" if res.invariant == Some(true) => false_claims.push(id.to_string()),
            _ => {}
        }
    }
    assert!(proved > 0);
    assert!(missed.is_empty(), "proved {proved}; not proved: {missed:?}");
    assert!(
        false_claims.is_empty(),
        "claimed invariant: {false_claims:?}"
    );
}

#[test]
fn hanging_cases_return_within_their_time_limit() {
    let dir = corpus("repro");
    for name in [
        "01_hang_z3_h4.jsonl",
        "01b_hang_z3_c153.jsonl",
        "01d_overlap_nest3000_timelimit_ignored.jsonl",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        for ms in [150u64, 400] {
            let case: OverlapCase = parse_line(1, text.lines().next().unwrap()).value.unwrap();
            let t0 = Instant::now();
            let r = run_overlap_case(&case, &mut Analyzer::new(with_limit(ms)), false);
            let took = t0.elapsed();
            eprintln!("{name}: {took:?} for a {ms} ms limit");
            assert!(
                took <= Duration::from_millis(ms) + SLACK,
                "{name}: {took:?} for a {ms} ms limit"
            );
            match r {
                // Not proved in that time: the answer is guarded.
                Ok(r) => {
                    if r.invariant != Some(true) {
                        assert!(!r.guards.is_empty(), "{name}");
                    }
                }
                // The 3,000-deep nest is now refused by the parser's depth
                // limit: a located error, at once.
                Err(e) => assert!(
                    name.contains("nest3000") && e.to_string().contains("nested deeper than"),
                    "{name}: {e}"
                ),
            }
        }
    }
}

#[test]
fn a_hanging_program_returns_within_the_time_limit() {
    let text = std::fs::read_to_string(corpus("repro").join("01c_hang_analyze_h4.json")).unwrap();
    let program: symalias::io::ProgramDoc = serde_json::from_str(&text).unwrap();
    let t0 = Instant::now();
    let r = symalias::io::run_program(&program, &mut Analyzer::default()).unwrap();
    let r = serde_json::to_value(r).unwrap();
    let limit = ProofOptions::default().time_limit;
    assert!(t0.elapsed() <= limit + SLACK, "{:?}", t0.elapsed());
    assert!(r["guards"].as_array().is_some_and(|g| !g.is_empty()));
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
}

/// Two or three views whose strides and offsets multiply symbols: the
/// nonlinear questions z3 4.8.12 may not finish.
fn nonlinear_case(rng: &mut Rng, k: usize) -> serde_json::Value {
    let sym = |rng: &mut Rng| format!("s{}", rng.below(3));
    let field = |rng: &mut Rng| -> String {
        match rng.below(6) {
            0 => rng.below(7).to_string(),
            1 => sym(rng),
            2 => format!("{}*{}", sym(rng), sym(rng)),
            3 => format!("{} + {}", sym(rng), rng.below(5)),
            4 => format!("{}*({} + 1)", sym(rng), sym(rng)),
            _ => format!("{} - (({} + 1)//2)", sym(rng), sym(rng)),
        }
    };
    let n = 2 + rng.below(2) as usize;
    let tensors: Vec<serde_json::Value> = (0..n)
        .map(|_| {
            let rank = 1 + rng.below(2) as usize;
            let sizes: Vec<String> = (0..rank).map(|_| field(rng)).collect();
            let strides: Vec<String> = (0..rank).map(|_| field(rng)).collect();
            serde_json::json!({"sizes": sizes, "strides": strides,
                               "storage_offset": field(rng), "itemsize": 1 + rng.below(2)})
        })
        .collect();
    let symbols: serde_json::Map<String, serde_json::Value> = (0..3)
        .map(|i| {
            (
                format!("s{i}"),
                serde_json::json!({"hint": 2 + rng.below(6), "min": 2}),
            )
        })
        .collect();
    serde_json::json!({"id": format!("nl-{k}"), "symbols": symbols, "tensors": tensors})
}

#[test]
fn random_nonlinear_cases_respect_the_time_bound() {
    let count = env_count("SYMALIAS_BOUND_CASES", 150usize);
    let ms = env_count("SYMALIAS_BOUND_LIMIT_MS", 60u64);
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let (mut worst, mut answered) = (Duration::ZERO, 0);
    // One analyzer (one solver session) across cases, as a compiler keeps it.
    let mut analyzer = Analyzer::new(with_limit(ms));
    for k in 0..count {
        let v = nonlinear_case(&mut rng, k);
        let Ok(case) = parse_line::<OverlapCase>(1, &v.to_string()).value else {
            continue;
        };
        let t0 = Instant::now();
        let r = run_overlap_case(&case, &mut analyzer, false);
        let took = t0.elapsed();
        worst = worst.max(took);
        answered += r.is_ok() as usize;
        assert!(
            took <= Duration::from_millis(ms) + SLACK,
            "case {k} took {took:?} for a {ms} ms limit: {v}"
        );
    }
    eprintln!("{count} cases, {answered} answered (others bad input), worst {worst:?}");
    assert!(answered > count / 2, "{answered} of {count}");
}

/// PyTorch's #118214 workload: `n` views of `x.split(10)` under
/// `dynamic=True` — size `s0` each, an independent offset symbol each.
fn stress_case(n: usize) -> OverlapCase {
    let mut symbols = serde_json::Map::new();
    symbols.insert(
        "s0".into(),
        serde_json::json!({"hint": 10, "min": 2, "source": "L['x'].size()[0]"}),
    );
    let tensors: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            symbols.insert(
                format!("o{i}"),
                serde_json::json!({"hint": 10 * i, "min": 0,
                                   "source": format!("L['args'][{i}].storage_offset()")}),
            );
            serde_json::json!({"source": format!("L['args'][{i}]"), "sizes": ["s0"],
                               "strides": [1], "storage_offset": format!("o{i}"), "itemsize": 4})
        })
        .collect();
    case_of(
        &serde_json::json!({"id": format!("stress-{n}"), "symbols": symbols, "tensors": tensors}),
    )
}

fn shape_guards(r: &OverlapResult) -> Vec<&str> {
    r.guards
        .iter()
        .filter_map(|g| match &g.kind {
            GuardKindDoc::Shape { expr } => Some(expr.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_chain_of_views_gets_one_guard_per_link() {
    for n in [100usize, 1000, 10_000] {
        let r = run_overlap_case(
            &stress_case(n),
            &mut Analyzer::new(crate::common::pinned()),
            false,
        )
        .unwrap();
        assert_eq!(r.invariant, Some(false), "n = {n}: offsets are independent");
        assert!(r.overlapping.is_empty());
        let shapes = shape_guards(&r);
        assert!(shapes.len() < n, "n = {n}: {} shape guards", shapes.len());
        assert!(matches!(
            r.guards.last().map(|g| &g.kind),
            Some(GuardKind::StorageOverlap { .. })
        ));
        assert_eq!(r.guards.len(), shapes.len() + 1, "n = {n}");
    }
}

#[test]
fn chain_guards_imply_the_partition_on_random_calls() {
    // Whenever every link guard holds at a random assignment, the exact
    // classification there is the one at the hints (all disjoint); and the
    // draws include calls where the guards fail.
    let n = 200;
    let case = stress_case(n);
    let r = run_overlap_case(&case, &mut Analyzer::new(crate::common::pinned()), false).unwrap();
    let mut pool = ExprPool::new();
    let guards: Vec<_> = shape_guards(&r)
        .into_iter()
        .map(|g| parse(&mut pool, g).unwrap())
        .collect();
    let mut rng = Rng(0xC0FF_EE00_1234_5678);
    let (mut held, mut failed) = (0, 0);
    for _ in 0..env_count("SYMALIAS_CHAIN_DRAWS", 400usize) {
        let s0 = 2 + rng.below(14);
        // Offsets: increasing by at least `s0` (disjoint), and in some draws
        // one step too short (two views meet) or two views swapped.
        let mut offsets: Vec<i64> = Vec::with_capacity(n);
        let mut at = rng.below(5);
        let short = (rng.below(3) == 0).then(|| rng.below(n as u64) as usize);
        for i in 0..n {
            offsets.push(at);
            at += if Some(i) == short {
                s0 - 1 - rng.below(2)
            } else {
                s0 + rng.below(3)
            };
        }
        if rng.below(4) == 0 {
            let (i, j) = (rng.below(n as u64) as usize, rng.below(n as u64) as usize);
            offsets.swap(i, j);
        }
        let look = |s: symalias::expr::SymbolId| -> Option<i64> {
            let name = pool.symbol_name(s);
            if name == "s0" {
                Some(s0)
            } else {
                name[1..].parse::<usize>().ok().map(|i| offsets[i])
            }
        };
        let all_hold = guards
            .iter()
            .all(|&g| pool.eval(g, &look).ok().and_then(|v| v.as_bool()) == Some(true));
        let views: Vec<View> = offsets
            .iter()
            .map(|&o| View {
                sizes: vec![s0],
                strides: vec![1],
                offset: o,
                itemsize: 4,
            })
            .collect();
        let exact = analyze_views(&views, symalias::overlap::DEFAULT_BUDGET);
        if all_hold {
            held += 1;
            assert!(exact.overlapping.is_empty(), "guards held, views overlap");
        } else {
            failed += 1;
        }
    }
    assert!(held > 0 && failed > 0, "held {held}, failed {failed}");
}
