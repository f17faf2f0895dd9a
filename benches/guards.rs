//! The run-time checker on the StorageOverlap guard with k aliased inputs
//! (k - 1 chunks of 10 elements and one window `x[4:44]`, as PyTorch's stress
//! test), against a naive O(k²) re-check in the same run (the exact pair test
//! on every pair, as PyTorch's quadratic loop does with its predicate).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::collections::BTreeMap;
use std::hint::black_box;
use symalias::expr::ExprPool;
use symalias::guards::check::{Call, CallInput, CallTensor, GuardSet};
use symalias::guards::{Guard, GuardKind};
use symalias::layout::View;
use symalias::overlap::{analyze_views, DEFAULT_BUDGET};

fn call(k: usize) -> Call {
    let t = |i: usize, size: i64, off: i64| CallInput {
        source: format!("L['args'][{i}]"),
        tensor: Some(CallTensor {
            object: format!("a{i}"),
            storage: "S".into(),
            view: View {
                sizes: vec![size],
                strides: vec![1],
                offset: off,
                itemsize: 4,
            },
            dtype: None,
        }),
        value: None,
    };
    let mut inputs: Vec<CallInput> = (0..k - 1).map(|i| t(i, 10, 10 * i as i64)).collect();
    inputs.push(t(k - 1, 40, 4));
    Call { inputs }
}

fn guard(k: usize) -> Guard {
    let name = |i: usize| format!("L['args'][{i}]");
    let over: Vec<usize> = vec![0, 1, 2, 3, 4, k - 1];
    Guard::new(
        GuardKind::StorageOverlap {
            overlapping: over.iter().map(|&i| name(i)).collect(),
            non_overlapping: (5..k - 1).map(name).collect(),
            components: vec![],
        },
        "bench",
    )
}

fn naive(c: &Call) -> Vec<usize> {
    let views: Vec<View> = c
        .inputs
        .iter()
        .map(|x| x.tensor.as_ref().unwrap().view.clone())
        .collect();
    let mut hit = vec![false; views.len()];
    for i in 0..views.len() {
        for j in i + 1..views.len() {
            let pair = [views[i].clone(), views[j].clone()];
            if !analyze_views(&pair, DEFAULT_BUDGET).overlapping.is_empty() {
                hit[i] = true;
                hit[j] = true;
            }
        }
    }
    (0..views.len()).filter(|&i| hit[i]).collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("check_storage_overlap");
    g.sample_size(20);
    let symbols = BTreeMap::new();
    for k in [100usize, 2000] {
        let call = call(k);
        let set = GuardSet::prepare(&ExprPool::new(), &[guard(k)], &symbols).unwrap();
        assert!(set.check(&call).unwrap().passed());
        assert_eq!(naive(&call), vec![0, 1, 2, 3, 4, k - 1]);
        g.bench_with_input(BenchmarkId::new("sweep", k), &call, |b, call| {
            b.iter(|| black_box(set.check(call).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("naive_pairs", k), &call, |b, call| {
            b.iter(|| black_box(naive(call)))
        });
    }
    g.finish();
}

/// The whole guard list of PyTorch's stress test (#33: 100 chunks and one
/// window, all mutated, symbolic chunk size) on its compile-time call:
/// distinct objects, storage partition, the synthetic base's 101 layouts and
/// the partition's fast path — what a compiled graph checks per call.
fn bench_program(c: &mut Criterion) {
    use symalias::io::load_program;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/programs/33-overlapping-with-mutation-stress.json"
    );
    // The typed road: program → analyzer → guards (ExprIds) → prepared set.
    let doc = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut p = load_program(&doc).unwrap();
    let r = symalias::analysis::Analyzer::default()
        .analyze(&mut p)
        .unwrap();
    let set = GuardSet::prepare(&p.scope.pool, &r.guards, &p.scope.sources()).unwrap();
    // The compile-time call: chunk i at 10*i (size s1 = 10), the window x[4:44].
    let mut inputs: Vec<CallInput> = (0..100)
        .map(|i| CallInput {
            source: format!("L['args'][{i}]"),
            tensor: Some(CallTensor {
                object: format!("a{i}"),
                storage: "S".into(),
                view: View {
                    sizes: vec![10],
                    strides: vec![1],
                    offset: 10 * i,
                    itemsize: 4,
                },
                dtype: None,
            }),
            value: None,
        })
        .collect();
    inputs.push(CallInput {
        source: "L['args'][100]".into(),
        tensor: Some(CallTensor {
            object: "w".into(),
            storage: "S".into(),
            view: View {
                sizes: vec![40],
                strides: vec![1],
                offset: 4,
                itemsize: 4,
            },
            dtype: None,
        }),
        value: None,
    });
    let call = Call { inputs };
    let outcome = set.check(&call).unwrap();
    assert!(outcome.passed(), "{outcome:?}");
    let mut g = c.benchmark_group("check_program");
    g.sample_size(20);
    g.bench_function("stress_33_whole_list", |b| {
        b.iter(|| black_box(set.check(&call).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench, bench_program);
criterion_main!(benches);
