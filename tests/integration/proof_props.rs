//! Proofs for all shapes, checked by exhaustive enumeration: random symbolic
//! cases over symbols with small ranges, where
//! * `invariant: true` must hold at every assignment of the (finite) domain;
//! * `invariant: false` must come with a counterexample that really changes
//!   the classification;
//! * shape guards must imply the classification wherever they all hold;
//! * `Analyzer::disjoint`'s `Proved` must hold at every assignment.

use crate::common::views::brute_group;
use proptest::prelude::*;
use serde_json::json;
use symalias::analysis::{Analyzer, Disjointness};
use symalias::expr::{parse, ExprPool};
use symalias::io::{parse_line, run_disjoint_case, run_overlap_case, OverlapCase, OverlapResult};
use symalias::layout::View;

#[derive(Clone, Debug)]
struct Sym {
    min: i64,
    max: i64,
    hint: i64,
}

fn symbols() -> impl Strategy<Value = Vec<Sym>> {
    prop::collection::vec((0i64..=2, 0i64..=4, 0u64..100), 1..=2).prop_map(|v| {
        v.into_iter()
            .map(|(min, w, h)| Sym {
                min,
                max: min + w,
                hint: min + (h as i64) % (w + 1),
            })
            .collect()
    })
}

/// A non-negative expression over s0/s1 (every symbol is >= 0).
fn field(nsyms: usize, stride: bool) -> impl Strategy<Value = String> {
    let s = move |k: usize| format!("s{}", k % nsyms);
    (0usize..7, 0i64..=5, 0usize..2).prop_map(move |(kind, c, k)| match kind {
        0 | 1 => c.to_string(),
        2 => s(k),
        3 => format!("{} + {c}", s(k)),
        4 => format!("{c}*{}", s(k)),
        5 if stride => format!("s0*s{}", (nsyms - 1)),
        _ => format!("{} + 1", s(k)),
    })
}

fn case() -> impl Strategy<Value = (Vec<Sym>, serde_json::Value)> {
    symbols().prop_flat_map(|syms| {
        let n = syms.len();
        let tensor = (1usize..=2).prop_flat_map(move |rank| {
            (
                prop::collection::vec(field(n, false), rank),
                prop::collection::vec(field(n, true), rank),
                field(n, false),
                prop::sample::select(&[1i64, 1, 1, 2][..]),
            )
        });
        (Just(syms), prop::collection::vec(tensor, 2..=3))
    })
    .prop_map(|(syms, tensors)| {
        let mut symbols = serde_json::Map::new();
        for (i, s) in syms.iter().enumerate() {
            symbols.insert(format!("s{i}"), json!({"hint": s.hint, "min": s.min, "max": s.max}));
        }
        let tensors: Vec<serde_json::Value> = tensors
            .iter()
            .enumerate()
            .map(|(i, (sizes, strides, off, item))| {
                json!({"source": format!("L['t{i}']"), "sizes": sizes, "strides": strides, "storage_offset": off, "itemsize": item})
            })
            .collect();
        (syms, json!({"id": "p", "symbols": symbols, "assumptions": [], "tensors": tensors}))
    })
}

/// Every assignment of the finite domain.
fn assignments(syms: &[Sym]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for s in syms {
        out = out
            .into_iter()
            .flat_map(|p| (s.min..=s.max).map(move |v| [p.clone(), vec![v]].concat()))
            .collect();
    }
    out
}

fn views_at(case: &serde_json::Value, at: &[i64]) -> Vec<View> {
    let mut pool = ExprPool::new();
    let look = |pool: &ExprPool, s| {
        pool.symbol_name(s)[1..]
            .parse::<usize>()
            .ok()
            .map(|i| at[i])
    };
    let mut val = |v: &serde_json::Value| -> i64 {
        let e = parse(&mut pool, v.as_str().unwrap()).unwrap();
        pool.eval_int(e, &|s| look(&pool, s)).unwrap()
    };
    case["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| View {
            sizes: t["sizes"]
                .as_array()
                .unwrap()
                .iter()
                .map(&mut val)
                .collect(),
            strides: t["strides"]
                .as_array()
                .unwrap()
                .iter()
                .map(&mut val)
                .collect(),
            offset: val(&t["storage_offset"]),
            itemsize: t["itemsize"].as_i64().unwrap(),
        })
        .collect()
}

fn guard_holds(text: &str, at: &[i64]) -> bool {
    let mut pool = ExprPool::new();
    let e = parse(&mut pool, text).unwrap();
    let v = pool.eval(e, &|s| {
        pool.symbol_name(s)[1..]
            .parse::<usize>()
            .ok()
            .map(|i| at[i])
    });
    v.ok().and_then(|v| v.as_bool()) == Some(true)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::common::env_count("SYMALIAS_PROOF_CASES", 400), ..ProptestConfig::default() })]

    #[test]
    fn proofs_counterexamples_and_guards_hold_on_the_whole_domain((syms, case) in case()) {
        let text = case.to_string();
        let parsed: OverlapCase = parse_line(1, &text).value.unwrap();
        let r: OverlapResult = run_overlap_case(&parsed, &mut Analyzer::new(crate::common::pinned()), false).unwrap();
        let classify = |at: &[i64]| brute_group(&views_at(&case, at)).1;
        let domain = assignments(&syms);
        match r.invariant {
            Some(true) => {
                prop_assert!(crate::common::partition_guards(&r).is_empty());
                for at in &domain {
                    prop_assert_eq!(&classify(at), &r.overlapping, "claimed invariant, but not at {:?}: {}", at, text);
                }
            }
            Some(false) => {
                let cx = r.counterexample.as_ref().unwrap();
                let at: Vec<i64> = (0..syms.len()).map(|i| cx[&format!("s{i}")]).collect();
                prop_assert!(domain.contains(&at), "counterexample outside the domain");
                prop_assert_ne!(&classify(&at), &r.overlapping, "counterexample {:?} changes nothing: {}", at, text);
                prop_assert!(r.pairs.iter().any(|p| p.proof == symalias::overlap::Proof::Refuted), "no pair marked refuted: {}", text);
            }
            None => prop_assert!(!r.guards.is_empty()),
        }
        prop_assert!(crate::common::self_overlap_guarded_iff_unproved(&r), "self_overlap guard vs unproved self-overlap: {}", text);
        let shapes: Vec<&str> = r.guards.iter().filter_map(|g| match &g.kind { symalias::io::GuardKindDoc::Shape { expr } => Some(expr.as_str()), _ => None }).collect();
        if !shapes.is_empty() {
            let hint: Vec<i64> = syms.iter().map(|s| s.hint).collect();
            prop_assert!(shapes.iter().all(|g| guard_holds(g, &hint)), "a guard fails at the hints: {:?}", shapes);
            for at in &domain {
                if shapes.iter().all(|g| guard_holds(g, at)) {
                    prop_assert_eq!(&classify(at), &r.overlapping, "guards {:?} hold at {:?} but the classification differs: {}", shapes, at, text);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::common::env_count("SYMALIAS_PROOF_CASES", 400), ..ProptestConfig::default() })]

    /// `Analyzer::disjoint` (the reinplace pass's question): `Proved` only
    /// where no two views meet at any assignment of the domain;
    /// `OverlapsAtHints` only where two meet at the hints; and never less
    /// than the full proof: a partition proved all-disjoint is `Proved`.
    #[test]
    fn disjointness_holds_on_the_whole_domain((syms, case) in case()) {
        let text = case.to_string();
        let parsed: OverlapCase = parse_line(1, &text).value.unwrap();
        let answer = run_disjoint_case(&parsed, &mut Analyzer::default()).unwrap();
        let classify = |at: &[i64]| brute_group(&views_at(&case, at)).1;
        let hint: Vec<i64> = syms.iter().map(|s| s.hint).collect();
        match answer {
            Disjointness::Proved => {
                for at in &assignments(&syms) {
                    prop_assert!(classify(at).is_empty(), "claimed disjoint, but {:?} overlap at {:?}: {}", classify(at), at, text);
                }
            }
            Disjointness::OverlapsAtHints => prop_assert!(!classify(&hint).is_empty(), "no overlap at the hints: {}", text),
            Disjointness::Unknown => prop_assert!(classify(&hint).is_empty(), "an overlap at the hints answered Unknown: {}", text),
        }
        let full = run_overlap_case(&parsed, &mut Analyzer::new(crate::common::pinned()), false).unwrap();
        if full.invariant == Some(true) && full.overlapping.is_empty() {
            prop_assert_eq!(answer, Disjointness::Proved, "the full proof shows them disjoint: {}", text);
        }
    }
}

/// The extents' interval gaps alone decide these (`disjoint_by_extents`).
#[test]
fn disjointness_by_extents_reads_like_the_layouts() {
    let ask = |line: &str| {
        let case: OverlapCase = parse_line(1, line).value.unwrap();
        run_disjoint_case(&case, &mut Analyzer::default()).unwrap()
    };
    // Two halves of one buffer, whatever s0.
    let halves = r#"{"id": "halves", "symbols": {"s0": {"hint": 4, "min": 2}},
        "tensors": [{"sizes": ["s0"], "strides": [1], "storage_offset": 0},
                    {"sizes": ["s0"], "strides": [1], "storage_offset": "s0"}]}"#;
    assert_eq!(ask(halves), Disjointness::Proved);
    // A slice of data-dependent length (u0 may be 0) after a block.
    let data_dependent = r#"{"id": "dd", "symbols": {"s0": {"hint": 4, "min": 2}, "u0": {"hint": 0, "min": 0}},
        "tensors": [{"sizes": ["s0"], "strides": [1], "storage_offset": 0, "itemsize": 4},
                    {"sizes": ["u0"], "strides": [1], "storage_offset": "s0", "itemsize": 4}]}"#;
    assert_eq!(ask(data_dependent), Disjointness::Proved);
    // Bytes: 2-byte elements after 4-byte ones, one element apart.
    let mixed = r#"{"id": "mixed", "symbols": {"s0": {"hint": 4, "min": 2}},
        "tensors": [{"sizes": ["s0"], "strides": [1], "storage_offset": 0, "itemsize": 4},
                    {"sizes": [3], "strides": [1], "storage_offset": "2*s0", "itemsize": 2}]}"#;
    assert_eq!(ask(mixed), Disjointness::Proved);
    // One element short: the last 4-byte element meets the first 2-byte one.
    let short = r#"{"id": "short", "symbols": {"s0": {"hint": 4, "min": 2}},
        "tensors": [{"sizes": ["s0"], "strides": [1], "storage_offset": 0, "itemsize": 4},
                    {"sizes": [3], "strides": [1], "storage_offset": "2*s0 - 1", "itemsize": 2}]}"#;
    assert_eq!(ask(short), Disjointness::OverlapsAtHints);
    // B0's windows one row apart: they meet at the hints.
    let b0 = r#"{"id": "b0", "symbols": {"s0": {"hint": 4, "min": 2}},
        "tensors": [{"sizes": ["s0", 4], "strides": [9, 1], "storage_offset": 0},
                    {"sizes": ["s0", 4], "strides": [9, 1], "storage_offset": 9}]}"#;
    assert_eq!(ask(b0), Disjointness::OverlapsAtHints);
    // Interleaved columns: apart only by the full proof (their extents meet).
    let columns = r#"{"id": "columns", "symbols": {"s0": {"hint": 4, "min": 2}},
        "tensors": [{"sizes": ["s0", 4], "strides": [8, 1], "storage_offset": 0},
                    {"sizes": ["s0", 4], "strides": [8, 1], "storage_offset": 4}]}"#;
    assert_eq!(ask(columns), Disjointness::Proved);
    // Disjoint at the hints only: s0 = 2 makes the second block start inside the first.
    let at_hints = r#"{"id": "hints", "symbols": {"s0": {"hint": 4, "min": 2, "max": 8}},
        "tensors": [{"sizes": [3], "strides": [1], "storage_offset": 0},
                    {"sizes": [3], "strides": [1], "storage_offset": "s0"}]}"#;
    assert_ne!(ask(at_hints), Disjointness::Proved);
}
