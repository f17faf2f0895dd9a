//! Internal overlap for all shapes (`prove_internal`), checked by exhaustive
//! enumeration: random symbolic layouts over one or two symbols with small
//! ranges, where
//! * the verdict at the hints is the enumeration's;
//! * `invariant: true` holds at every assignment of the finite domain;
//! * `invariant: false` comes with a counterexample that really changes it;
//! * shape guards imply the verdict wherever they all hold.

use crate::common::views::repeats_an_element;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::cell::Cell;
use symalias::env::{Env, SymbolDecl};
use symalias::expr::{parse, ExprPool};
use symalias::layout::Layout;
use symalias::overlap::{prove_internal, ProofOptions};
use symalias_solver::{Budget, Solver};

/// (min, max, hint) of each symbol.
type Syms = Vec<(i64, i64, i64)>;

fn symbols() -> impl Strategy<Value = Syms> {
    prop::collection::vec((0i64..=2, 0i64..=4, 0u64..100), 1..=2).prop_map(|v| {
        v.into_iter()
            .map(|(min, w, h)| (min, min + w, min + (h as i64) % (w + 1)))
            .collect()
    })
}

/// A non-negative field over s0/s1: constants (0 among them for strides),
/// `s`, `s + c`, `c*s`, `s0*s1`, `(s + 1)//2`.
fn field(nsyms: usize, stride: bool) -> impl Strategy<Value = String> {
    let s = move |k: usize| format!("s{}", k % nsyms);
    (0usize..8, 0i64..=4, 0usize..2).prop_map(move |(kind, c, k)| match kind {
        0 | 1 if stride => c.to_string(),
        0 | 1 => (c + 1).to_string(),
        2 => s(k),
        3 => format!("{} + {c}", s(k)),
        4 => format!("{}*{}", c.max(1), s(k)),
        5 => format!("s0*s{}", nsyms - 1),
        6 => format!("({} + 1)//2", s(k)),
        _ => format!("{} + 1", s(k)),
    })
}

fn layout_text() -> impl Strategy<Value = (Syms, Vec<String>, Vec<String>)> {
    symbols().prop_flat_map(|syms| {
        let n = syms.len();
        (1usize..=3).prop_flat_map(move |rank| {
            (
                Just(syms.clone()),
                prop::collection::vec(field(n, false), rank),
                prop::collection::vec(field(n, true), rank),
            )
        })
    })
}

fn assignments(syms: &Syms) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &(min, max, _) in syms {
        out = out
            .into_iter()
            .flat_map(|p| (min..=max).map(move |v| [p.clone(), vec![v]].concat()))
            .collect();
    }
    out
}

#[derive(Default)]
struct Tally {
    proved: Cell<usize>,
    refuted: Cell<usize>,
    unknown: Cell<usize>,
}

fn check(
    (syms, sizes, strides): &(Syms, Vec<String>, Vec<String>),
    solver: &mut Solver,
    tally: &Tally,
) -> Result<(), TestCaseError> {
    let mut pool = ExprPool::new();
    let mut env = Env::new();
    let mut ids = Vec::new();
    for (i, &(min, max, hint)) in syms.iter().enumerate() {
        ids.push(
            env.declare(
                &mut pool,
                &SymbolDecl::new(format!("s{i}"))
                    .hint(hint)
                    .min(min)
                    .max(max),
            )
            .unwrap(),
        );
    }
    let mut e = |t: &str| parse(&mut pool, t).unwrap();
    let layout = Layout {
        sizes: sizes.iter().map(|t| e(t)).collect(),
        strides: strides.iter().map(|t| e(t)).collect(),
        offset: e("3"),
        itemsize: 2,
    };
    let at = |pool: &ExprPool, vals: &[i64]| {
        layout
            .at(
                pool,
                &|s| ids.iter().position(|&t| t == s).map(|k| vals[k]),
                "a test",
            )
            .ok()
    };
    let hints: Vec<i64> = syms.iter().map(|s| s.2).collect();
    let Some(view) = at(&pool, &hints) else {
        return Ok(()); // e.g. a size past i64 (never here) or invalid
    };
    let proof = prove_internal(
        &mut pool,
        &env,
        &layout,
        &view,
        solver,
        ProofOptions::default(),
    );
    let hint = repeats_an_element(&view);
    prop_assert_eq!(
        proof.verdict.may_overlap(),
        hint,
        "verdict at the hints of {:?}",
        view
    );
    let domain = assignments(syms);
    match proof.invariant {
        Some(true) => {
            tally.proved.set(tally.proved.get() + 1);
            for vals in &domain {
                let v = at(&pool, vals).unwrap();
                prop_assert_eq!(
                    repeats_an_element(&v),
                    hint,
                    "proved for all shapes, differs at {:?}: {:?} ({:?} / {:?})",
                    vals,
                    v,
                    sizes,
                    strides
                );
            }
        }
        Some(false) => {
            tally.refuted.set(tally.refuted.get() + 1);
            let cx = proof.counterexample.clone().unwrap();
            let vals: Vec<i64> = (0..syms.len())
                .map(|k| {
                    cx.iter()
                        .find(|(n, _)| *n == format!("s{k}"))
                        .map_or(hints[k], |c| c.1)
                })
                .collect();
            let v = at(&pool, &vals).unwrap();
            prop_assert_ne!(repeats_an_element(&v), hint, "counterexample {:?}", cx);
        }
        None => tally.unknown.set(tally.unknown.get() + 1),
    }
    if let Some(guards) = &proof.shape_guards {
        for vals in &domain {
            let look = |s| ids.iter().position(|&t| t == s).map(|k| vals[k]);
            let all = guards
                .iter()
                .all(|&g| pool.eval(g, &look).ok().and_then(|v| v.as_bool()) == Some(true));
            if all {
                let v = at(&pool, vals).unwrap();
                prop_assert_eq!(repeats_an_element(&v), hint, "guards hold at {:?}", vals);
            }
        }
    }
    Ok(())
}

#[test]
fn internal_proofs_hold_on_every_assignment() {
    let cases = crate::common::env_count("SYMALIAS_PROOF_CASES", 400u32);
    // A fixed seed: with a fresh one per run the unknown count of 400 cases
    // wandered over 23-44, across the old 10% bound (a flaky test).
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let solver = std::cell::RefCell::new(Solver::new(Budget::default()));
    let tally = Tally::default();
    runner
        .run(&layout_text(), |c| {
            check(&c, &mut solver.borrow_mut(), &tally)
        })
        .unwrap();
    let (p, r, u) = (tally.proved.get(), tally.refuted.get(), tally.unknown.get());
    eprintln!("internal proofs: {p} proved, {r} refuted, {u} unknown of {cases}");
    // Not vacuous: both kinds of answer occur, and most cases are settled.
    assert!(
        p > cases as usize / 10 && r > cases as usize / 20,
        "{p} {r} {u}"
    );
    // Measured: 8-9% unknown over 2,000-4,000 cases; 12% leaves room for
    // the sample of 400 (this seed: 41) without hiding a real regression.
    assert!(
        u * 100 <= 12 * cases as usize,
        "too many unknown: {u} of {cases}"
    );
}

/// The §3 answer of a one-tensor case: wherever its guards all pass on a
/// call, the tensor overlaps itself exactly as at the hints (a self-overlap
/// not proved for all shapes is guarded, and the guard reads the call).
fn guards_keep_the_verdict(
    (syms, sizes, strides): &(Syms, Vec<String>, Vec<String>),
) -> Result<(), TestCaseError> {
    use symalias::analysis::Analyzer;
    use symalias::guards::check::{Call, Outcome};
    use symalias::io::{parse_line, run_overlap_case, OverlapCase};
    let mut symbols = serde_json::Map::new();
    for (i, &(min, max, hint)) in syms.iter().enumerate() {
        symbols.insert(
            format!("s{i}"),
            serde_json::json!({"hint": hint, "min": min, "max": max, "source": format!("L['n{i}']")}),
        );
    }
    let case = serde_json::json!({"id": "self", "symbols": symbols, "assumptions": [],
        "tensors": [{"source": "L['x']", "sizes": sizes, "strides": strides, "storage_offset": 3, "itemsize": 2}]});
    let parsed: OverlapCase = parse_line(1, &case.to_string()).value.unwrap();
    let Ok(r) = run_overlap_case(&parsed, &mut Analyzer::default(), false) else {
        return Ok(()); // invalid at the hints
    };
    let overlaps_at_hints = r.self_overlapping == [0];
    let docs = serde_json::to_value(&r.guards).unwrap();
    let set = crate::common::guard_set(&serde_json::json!({"guards": docs, "symbols": r.symbols}));
    for vals in assignments(syms) {
        let Some(views) = crate::common::views::case_views_at(&case, &vals) else {
            continue;
        };
        let v = &views[0];
        let mut inputs = vec![
            serde_json::json!({"source": "L['x']", "tensor": {"object": "x", "storage": "S",
            "sizes": v.sizes, "strides": v.strides, "storage_offset": v.offset, "itemsize": v.itemsize}}),
        ];
        for (i, &val) in vals.iter().enumerate() {
            inputs.push(serde_json::json!({"source": format!("L['n{i}']"), "value": val}));
        }
        let call: Call = serde_json::from_value(serde_json::json!({ "inputs": inputs })).unwrap();
        if set.check(&call).unwrap() == Outcome::Pass {
            prop_assert_eq!(
                repeats_an_element(v),
                overlaps_at_hints,
                "guards {:?} pass at {:?}, where {:?} {} itself",
                r.guards,
                vals,
                v,
                if overlaps_at_hints {
                    "no longer overlaps"
                } else {
                    "overlaps"
                }
            );
        }
    }
    Ok(())
}

#[test]
fn unproved_self_overlap_is_guarded() {
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: crate::common::env_count("SYMALIAS_PROOF_CASES", 400u32) / 2,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    runner
        .run(&layout_text(), |c| guards_keep_the_verdict(&c))
        .unwrap();
}
