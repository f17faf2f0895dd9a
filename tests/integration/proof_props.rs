//! Proofs for all shapes, checked by exhaustive enumeration: random symbolic
//! cases over symbols with small ranges, where
//! * `invariant: true` must hold at every assignment of the (finite) domain;
//! * `invariant: false` must come with a counterexample that really changes
//!   the classification;
//! * shape guards must imply the classification wherever they all hold.

use crate::common::views::brute_group;
use proptest::prelude::*;
use serde_json::json;
use symalias::analysis::Analyzer;
use symalias::expr::{parse, ExprPool};
use symalias::io::{parse_line, run_overlap_case, OverlapCase, OverlapResult};
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
        let r: OverlapResult = run_overlap_case(&parsed, &mut Analyzer::default(), false).unwrap();
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
