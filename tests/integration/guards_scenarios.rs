//! docs/PYTORCH.md §6.3 scenarios #29, #30 and #33 with dynamic shapes: the
//! overlap sets and the guard lists, compared with PyTorch's single
//! `check_overlapping(overlapping=[…], non_overlapping=[…])` guard.

use serde_json::json;
use symalias::analysis::Analyzer;
use symalias::expr::{parse, ExprPool};
use symalias::io::GuardKindDoc as GuardKind;
use symalias::io::GuardKindDoc;
use symalias::io::{parse_line, run_overlap_case, OverlapCase, OverlapResult};

fn run(case: serde_json::Value) -> OverlapResult {
    let c: OverlapCase = parse_line(1, &case.to_string()).value.unwrap();
    run_overlap_case(&c, &mut Analyzer::new(crate::common::pinned()), false).unwrap()
}

fn holds(guard: &str, at: &[(&str, i64)]) -> bool {
    let mut pool = ExprPool::new();
    let e = parse(&mut pool, guard).unwrap();
    pool.eval(e, &|s| {
        at.iter()
            .find(|(n, _)| *n == pool.symbol_name(s))
            .map(|p| p.1)
    })
    .unwrap()
    .as_bool()
    .unwrap()
}

/// The shape guards of a result, checking the §3 form: fast-path shape
/// guards, then the StorageOverlap guard they imply.
fn shape_guards(r: &OverlapResult) -> Vec<String> {
    let (last, shapes) = r.guards.split_last().expect("guards");
    assert!(
        matches!(last.kind, GuardKind::StorageOverlap { .. }),
        "the list ends with the StorageOverlap guard: {last:?}"
    );
    shapes
        .iter()
        .map(|g| match &g.kind {
            GuardKindDoc::Shape { expr } if g.fast_path => expr.clone(),
            other => panic!("expected fast-path shape guards, got {other:?}"),
        })
        .collect()
}

/// #29: `torch.ones(20)`; call 1 `(x[:5], x[7:13], x[9:])`, x of dynamic size s0.
/// PyTorch: overlapping = [args[1], args[2]], non_overlapping = [args[0]], one
/// StorageOverlap guard; call 2 `(x[:5], x[7:13], x[13:15])` fails it.
#[test]
fn scenario_29_inputs_overlapping_with_mutation_recompile() {
    let r = run(json!({
        "id": "29",
        "symbols": {"s0": {"hint": 20, "min": 2, "source": "L['x'].size()[0]"}},
        "tensors": [
            {"source": "L['args'][0]", "sizes": [5], "strides": [1], "storage_offset": 0},
            {"source": "L['args'][1]", "sizes": [6], "strides": [1], "storage_offset": 7},
            {"source": "L['args'][2]", "sizes": ["s0 - 9"], "strides": [1], "storage_offset": 9}
        ]
    }));
    assert_eq!(r.overlapping, vec![1, 2]);
    assert_eq!(r.non_overlapping, vec![0]);
    // args[0] is proved disjoint from both others for every s0; the overlap of
    // args[1] and args[2] needs x[9:] to be non-empty: refuted at s0 = 9.
    assert_eq!(r.invariant, Some(false));
    assert_eq!(r.counterexample.as_ref().unwrap()["s0"], 9);
    let p12 = r.pairs.iter().find(|p| (p.a, p.b) == (1, 2)).unwrap();
    assert_eq!(
        (p12.overlap, p12.proof),
        (true, symalias::overlap::Proof::Refuted)
    );
    let guards = shape_guards(&r);
    assert_eq!(guards.len(), 1, "{guards:?}");
    assert!(holds(&guards[0], &[("s0", 20)]));
    assert!(
        holds(&guards[0], &[("s0", 10)]),
        "x[9:] of 10 elements still meets x[7:13]"
    );
    // Where s0 = 9 the classification changes, and the guard catches it.
    assert!(!holds(&guards[0], &[("s0", 9)]));
}

/// #30: `f(a, b, c, d)` on `(x[:5], x[4:9], x[10:15], x[15:])`, offsets dynamic;
/// call 2 moves c to `x[8:13]`. PyTorch: one failure of
/// `check_overlapping(overlapping=[a, b], non_overlapping=[c, d])`.
#[test]
fn scenario_30_different_inputs_overlapping_set_with_mutation() {
    let r = run(json!({
        "id": "30",
        "symbols": {
            "s1": {"hint": 4, "min": 0, "source": "L['b'].storage_offset()"},
            "s2": {"hint": 10, "min": 0, "source": "L['c'].storage_offset()"},
            "s3": {"hint": 15, "min": 0, "source": "L['d'].storage_offset()"}
        },
        "tensors": [
            {"source": "L['a']", "sizes": [5], "strides": [1], "storage_offset": 0},
            {"source": "L['b']", "sizes": [5], "strides": [1], "storage_offset": "s1"},
            {"source": "L['c']", "sizes": [5], "strides": [1], "storage_offset": "s2"},
            {"source": "L['d']", "sizes": [5], "strides": [1], "storage_offset": "s3"}
        ]
    }));
    assert_eq!(r.overlapping, vec![0, 1]);
    assert_eq!(r.non_overlapping, vec![2, 3]);
    assert_eq!(
        r.invariant,
        Some(false),
        "moving offsets changes the classification"
    );
    let guards = shape_guards(&r);
    let call1 = [("s1", 4), ("s2", 10), ("s3", 15)];
    let call2 = [("s1", 4), ("s2", 8), ("s3", 15)];
    assert!(guards.iter().all(|g| holds(g, &call1)), "{guards:?}");
    assert!(
        !guards.iter().all(|g| holds(g, &call2)),
        "call 2 must fail a guard: {guards:?}"
    );
    // Moving b inside a keeps the classification, and the guards allow it.
    assert!(
        guards
            .iter()
            .all(|g| holds(g, &[("s1", 2), ("s2", 10), ("s3", 15)])),
        "{guards:?}"
    );
}

/// #33: 100 chunks of `split(s1)` plus `x[4:44]`; PyTorch installs one
/// StorageOverlap guard over 101 sources, checked pairwise (O(k²)) on every call.
#[test]
fn scenario_33_stress_hundred_chunks() {
    let mut tensors: Vec<serde_json::Value> = (0..100)
        .map(|i| json!({"source": format!("L['args'][{i}]"), "sizes": ["s1"], "strides": [1], "storage_offset": format!("{i}*s1")}))
        .collect();
    tensors.push(
        json!({"source": "L['args'][100]", "sizes": [40], "strides": [1], "storage_offset": 4}),
    );
    let r = run(
        json!({"id": "33", "symbols": {"s1": {"hint": 10, "min": 2, "source": "L['n']"}}, "tensors": tensors}),
    );
    assert_eq!(r.overlapping, vec![0, 1, 2, 3, 4, 100]);
    assert_eq!(r.non_overlapping.len(), 95);
    // Smaller chunks pull more of them under x[4:44]: not invariant.
    assert_eq!(r.invariant, Some(false));
    let guards = shape_guards(&r);
    assert!(guards.iter().all(|g| holds(g, &[("s1", 10)])));
    assert!(
        !guards.iter().all(|g| holds(g, &[("s1", 8)])),
        "s1 = 8 puts chunk 5 under x[4:44]"
    );
    // A handful of shape guards instead of a quadratic runtime check.
    assert!(guards.len() <= 100, "{} guards", guards.len());
}

/// The chunks alone (`x.split(s1)`) are proved disjoint for every s1: no guard.
#[test]
fn symbolic_split_alone_is_proved() {
    let tensors: Vec<serde_json::Value> = (0..100)
        .map(|i| json!({"source": format!("L['args'][{i}]"), "sizes": ["s1"], "strides": [1], "storage_offset": format!("{i}*s1")}))
        .collect();
    let r =
        run(json!({"id": "split", "symbols": {"s1": {"hint": 10, "min": 2}}, "tensors": tensors}));
    assert_eq!(r.invariant, Some(true));
    assert!(r.guards.is_empty());
}
