//! Proofs for all shapes on symbolic workloads: `x.split(s0)`-style views
//! (offsets `i*s0`), 100 and 1,000 of them, and the largest symbolic cases of
//! the development corpus. Baseline in the same run: the hint-only analysis
//! (what PyTorch does, minus its O(k²) symbolic comparisons). Also the
//! generated cases of `tests/integration/symbolic_completeness.rs` (issue 22), per family.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use symalias::analysis::{Analyzer, AnalyzerOptions};
use symalias::io::{parse_line, run_overlap_case, OverlapCase};

fn split_case(k: usize) -> OverlapCase {
    let tensors: Vec<serde_json::Value> = (0..k)
        .map(|i| serde_json::json!({"source": format!("L['args'][{i}]"), "sizes": ["s0"], "strides": [1], "storage_offset": format!("{i}*s0")}))
        .collect();
    let case = serde_json::json!({"id": "split", "symbols": {"s0": {"hint": 10, "min": 2, "source": "L['n']"}}, "tensors": tensors});
    parse_line(1, &case.to_string()).value.unwrap()
}

/// Column slices of width 4 of an `s0 x 4k` row-major matrix: constant strides
/// and offsets, a symbolic number of rows.
fn colsplit_case(k: usize) -> OverlapCase {
    let tensors: Vec<serde_json::Value> = (0..k)
        .map(|i| serde_json::json!({"source": format!("L['args'][{i}]"), "sizes": ["s0", 4], "strides": [4 * k, 1], "storage_offset": 4 * i}))
        .collect();
    let case = serde_json::json!({"id": "colsplit", "symbols": {"s0": {"hint": 8, "min": 2}}, "tensors": tensors});
    parse_line(1, &case.to_string()).value.unwrap()
}

/// PyTorch's #118214 workload (`test_inputs_overlapping_with_mutation_stress`):
/// `n` views of `x.split(10)` under `dynamic=True` — size `s0` each, an
/// independent storage-offset symbol each. Not provable (the offsets are
/// free): the answer is refuted, with one guard per chain link.
fn stress_case(n: usize) -> OverlapCase {
    let mut symbols = serde_json::Map::new();
    symbols.insert("s0".into(), serde_json::json!({"hint": 10, "min": 2}));
    let tensors: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            symbols.insert(format!("o{i}"), serde_json::json!({"hint": 10 * i, "min": 0}));
            serde_json::json!({"sizes": ["s0"], "strides": [1], "storage_offset": format!("o{i}"), "itemsize": 4})
        })
        .collect();
    let case = serde_json::json!({"id": "stress", "symbols": symbols, "tensors": tensors});
    parse_line(1, &case.to_string()).value.unwrap()
}

fn corpus_cases() -> Vec<OverlapCase> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/overlap_dev.jsonl");
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut cases: Vec<OverlapCase> = text
        .lines()
        .filter_map(|l| parse_line::<OverlapCase>(1, l).value.ok())
        .filter(|c| !c.symbols.is_empty())
        .collect();
    cases.sort_by_key(|c| std::cmp::Reverse(c.tensors.len()));
    cases.truncate(5);
    cases
}

/// The first `per` stored generated cases of each family (the cases of
/// `tests/data/symgen/cases.jsonl` cycle through the families by index).
fn generated_cases(per: usize) -> Vec<(&'static str, Vec<OverlapCase>)> {
    const FAMILIES: [&str; 4] = ["mixed", "floordiv", "dtypeview", "window"];
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/symgen/cases.jsonl");
    let text = std::fs::read_to_string(path).expect("tests/data/symgen/cases.jsonl");
    let cases: Vec<OverlapCase> = text
        .lines()
        .map(|l| parse_line(1, l).value.expect("a stored generated case"))
        .collect();
    FAMILIES
        .iter()
        .enumerate()
        .map(|(k, &f)| {
            let mine = cases.iter().skip(k).step_by(FAMILIES.len()).take(per);
            (f, mine.cloned().collect())
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let prove = AnalyzerOptions::default();
    let hint_only = AnalyzerOptions {
        prove: false,
        ..AnalyzerOptions::default()
    };
    let mut g = c.benchmark_group("symbolic_split");
    g.sample_size(20);
    for k in [100usize, 1000] {
        let case = split_case(k);
        g.bench_with_input(BenchmarkId::new("prove", k), &case, |b, case| {
            b.iter(|| black_box(run_overlap_case(case, &mut Analyzer::new(prove), true).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("hint_only", k), &case, |b, case| {
            b.iter(|| {
                black_box(run_overlap_case(case, &mut Analyzer::new(hint_only), true).unwrap())
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("stress_118214");
    g.sample_size(10);
    for n in [100usize, 1000, 10_000] {
        let case = stress_case(n);
        g.bench_with_input(BenchmarkId::new("prove", n), &case, |b, case| {
            b.iter(|| black_box(run_overlap_case(case, &mut Analyzer::new(prove), true).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("hint_only", n), &case, |b, case| {
            b.iter(|| {
                black_box(run_overlap_case(case, &mut Analyzer::new(hint_only), true).unwrap())
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("symbolic_colsplit");
    g.sample_size(10);
    let case = colsplit_case(200);
    g.bench_with_input(BenchmarkId::new("prove", 200), &case, |b, case| {
        b.iter(|| black_box(run_overlap_case(case, &mut Analyzer::new(prove), true).unwrap()))
    });
    g.finish();
    let mut g = c.benchmark_group("generated_25_cases");
    g.sample_size(10);
    for (family, cases) in generated_cases(25) {
        for (name, opts) in [("prove", prove), ("hint_only", hint_only)] {
            g.bench_with_input(BenchmarkId::new(name, family), &cases, |b, cases| {
                b.iter(|| {
                    for case in cases {
                        let mut analyzer = Analyzer::new(opts);
                        black_box(run_overlap_case(case, &mut analyzer, true).unwrap());
                    }
                })
            });
        }
    }
    g.finish();
    let mut g = c.benchmark_group("corpus_big_symbolic");
    g.sample_size(10);
    for case in corpus_cases() {
        g.bench_with_input(BenchmarkId::new("prove", &case.id), &case, |b, case| {
            b.iter(|| black_box(run_overlap_case(case, &mut Analyzer::new(prove), true).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
