//! Group overlap at concrete values: symalias's exact group algorithm against a
//! same-run baseline, a replica of PyTorch's `compute_overlapping_tensors`
//! (quadratic loop over a conservative O(rank) predicate, docs/PYTORCH.md §3).
//!
//! Families (1,000 and 10,000 views each): 1-D chunks, column splits of a
//! row-major matrix, 2-D blocks of a tiling, unfold windows (overlapping),
//! even/odd interleaves.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use symalias::layout::View;
use symalias::overlap::{analyze_views, DEFAULT_BUDGET};

fn chunks(k: i64) -> Vec<View> {
    (0..k).map(|i| View::new(&[10], &[1], 10 * i)).collect()
}

fn column_splits(k: i64) -> Vec<View> {
    // k slices of width 4 of a 64 x 4k row-major matrix.
    (0..k)
        .map(|i| View::new(&[64, 4], &[4 * k, 1], 4 * i))
        .collect()
}

fn blocks(k: i64) -> Vec<View> {
    // A sqrt(k) x sqrt(k) tiling of 8x8 blocks.
    let side = (k as f64).sqrt() as i64;
    let row = side * 8;
    (0..side * side)
        .map(|i| View::new(&[8, 8], &[row, 1], (i / side) * 8 * row + (i % side) * 8))
        .collect()
}

fn unfold(k: i64) -> Vec<View> {
    // Windows of 20 with step 10: each overlaps its neighbours.
    (0..k).map(|i| View::new(&[20], &[1], 10 * i)).collect()
}

fn interleaves(k: i64) -> Vec<View> {
    // Per chunk of 16 elements: its even and its odd elements.
    (0..k)
        .map(|i| View::new(&[8], &[2], 16 * (i / 2) + (i % 2)))
        .collect()
}

/// PyTorch's pairwise predicate (true = proven disjoint), §3.3.
fn torch_disjoint(x: &View, y: &View) -> bool {
    let numel = |v: &View| v.sizes.iter().product::<i64>();
    if numel(x) == 0 || numel(y) == 0 {
        return true;
    }
    let (x, y) = if x.offset <= y.offset { (x, y) } else { (y, x) };
    let contiguous = |v: &View| {
        let mut expect = 1;
        for (n, s) in v.sizes.iter().zip(&v.strides).rev() {
            if *n != 1 && *s != expect {
                return false;
            }
            expect *= n;
        }
        true
    };
    if contiguous(x) && contiguous(y) {
        return x.offset + numel(x) <= y.offset;
    }
    let last = x.offset
        + x.sizes
            .iter()
            .zip(&x.strides)
            .map(|(n, s)| (n - 1) * s)
            .sum::<i64>();
    if last < y.offset {
        return true;
    }
    if x.sizes.len() == 2
        && y.sizes.len() == 2
        && x.strides[1] == 1
        && y.strides[1] == 1
        && x.strides[0] == y.strides[0]
    {
        let (s, d) = (x.strides[0], y.offset - x.offset);
        if d < x.sizes[1] {
            return false;
        }
        if s * (x.sizes[0] - 1) + x.sizes[1] <= d {
            return true;
        }
        return d % s + y.sizes[1] <= s;
    }
    false
}

fn torch_group(views: &[View]) -> usize {
    let mut hit = vec![false; views.len()];
    for i in 0..views.len() {
        for j in 0..i {
            if !torch_disjoint(&views[i], &views[j]) {
                hit[i] = true;
                hit[j] = true;
            }
        }
    }
    hit.iter().filter(|h| **h).count()
}

/// A named family of view groups, built for a given group size.
type Family = (&'static str, fn(i64) -> Vec<View>);

fn bench(c: &mut Criterion) {
    let families: [Family; 5] = [
        ("chunks_1d", chunks),
        ("column_splits", column_splits),
        ("blocks_2d", blocks),
        ("unfold_windows", unfold),
        ("even_odd", interleaves),
    ];
    for (name, make) in families {
        let mut g = c.benchmark_group(name);
        g.sample_size(20);
        for k in [1_000i64, 10_000] {
            let views = make(k);
            g.bench_with_input(BenchmarkId::new("symalias", k), &views, |b, v| {
                b.iter(|| black_box(analyze_views(black_box(v), DEFAULT_BUDGET)))
            });
            if k == 1_000 {
                g.bench_with_input(BenchmarkId::new("torch_replica", k), &views, |b, v| {
                    b.iter(|| black_box(torch_group(black_box(v))))
                });
            }
        }
        g.finish();
    }
}

/// Internal overlap of single views of about 10^6 elements (the query never
/// enumerates elements), against enumerating their addresses once (the
/// baseline in the same run, at 10^6 elements).
fn bench_internal(c: &mut Criterion) {
    use symalias::overlap::internal_overlap;
    let mut g = c.benchmark_group("internal_overlap_1e6");
    g.sample_size(20);
    let views: [(&str, View); 5] = [
        (
            "contiguous_1000x1000",
            View::new(&[1000, 1000], &[1000, 1], 0),
        ),
        (
            "transposed_1000x1000",
            View::new(&[1000, 1000], &[1, 1000], 0),
        ),
        (
            "padded_rows_1000x1000",
            View::new(&[1000, 1000], &[1001, 1], 0),
        ),
        (
            "windows_333333x3_step2",
            View::new(&[333_333, 3], &[2, 1], 0),
        ),
        (
            "blocks_10x10x100x100",
            View::new(&[10, 10, 100, 100], &[100_000, 100, 10_000, 1], 0),
        ),
    ];
    for (name, v) in &views {
        g.bench_with_input(BenchmarkId::new("symalias", name), v, |b, v| {
            b.iter(|| black_box(internal_overlap(black_box(v), DEFAULT_BUDGET)))
        });
    }
    let (name, v) = &views[0];
    g.bench_with_input(BenchmarkId::new("enumerate_addresses", name), v, |b, v| {
        b.iter(|| {
            let mut seen = vec![false; 1_000_000];
            let mut repeated = false;
            for i in 0..v.sizes[0] {
                for j in 0..v.sizes[1] {
                    let a = (i * v.strides[0] + j * v.strides[1]) as usize;
                    repeated |= std::mem::replace(&mut seen[a], true);
                }
            }
            black_box(repeated)
        })
    });
    g.finish();
}

/// The front end on the concrete short road, against the engine in the same
/// run: the typed API (`Analyzer::overlap_views`: decision + report), the
/// JSON case through `io::run_overlap_case` (typed case → report → result
/// line), and the whole line (parse the JSON, answer, serialize).
fn bench_front_end(c: &mut Criterion) {
    use symalias::analysis::Analyzer;
    use symalias::io::{parse_line, run_overlap_case, OverlapCase};
    let mut g = c.benchmark_group("front_end_column_splits");
    g.sample_size(20);
    for k in [1_000i64, 10_000] {
        let views = column_splits(k);
        let sources: Vec<String> = (0..views.len()).map(|i| format!("L['v'][{i}]")).collect();
        let case = serde_json::json!({"id": "cols", "tensors": views.iter().zip(&sources).map(|(v, s)| serde_json::json!({
            "source": s, "sizes": v.sizes, "strides": v.strides, "storage_offset": v.offset, "itemsize": v.itemsize,
        })).collect::<Vec<_>>()});
        let line = case.to_string();
        let parsed: OverlapCase = parse_line(1, &line).value.unwrap();
        let analyzer = Analyzer::default();
        g.bench_with_input(BenchmarkId::new("engine", k), &views, |b, v| {
            b.iter(|| black_box(analyze_views(black_box(v), DEFAULT_BUDGET)))
        });
        g.bench_with_input(
            BenchmarkId::new("analyzer_overlap_views", k),
            &views,
            |b, v| {
                let source = |i: usize| sources[i].clone();
                b.iter(|| black_box(analyzer.overlap_views("cols", black_box(v), &source)))
            },
        );
        g.bench_with_input(BenchmarkId::new("io_case", k), &parsed, |b, case| {
            b.iter(|| black_box(run_overlap_case(case, &mut Analyzer::default(), true).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("io_line", k), &line, |b, line| {
            b.iter(|| {
                let case: OverlapCase = parse_line(1, line).value.unwrap();
                let r = run_overlap_case(&case, &mut Analyzer::default(), true).unwrap();
                black_box(serde_json::to_string(&r).unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench, bench_front_end, bench_internal);
criterion_main!(benches);
