//! The simplifier on the expression corpus (`tests/data/exprs_dev.jsonl`, kept in the repository).
//!
//! Before criterion runs, a report measures every expression on its own
//! (best of 5 runs, in process) and prints the per-expression median time, the
//! median of the per-expression time ratios against the corpus's recorded
//! `sympy.simplify` and PyTorch times (`ref.*.micros`, measured on a 2-core
//! machine like this one), and how the result sizes compare. Criterion then
//! times the whole corpus and three single expressions (small, median, large).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Instant;
use symalias::env::Env;
use symalias::expr::{ExprId, ExprPool};
use symalias::io::{load_env, load_expr, ExprCase};
use symalias::simplify::{simplify, SimplifyOptions};

struct Case {
    id: String,
    pool: ExprPool,
    env: Env,
    expr: ExprId,
    size_in: usize,
    sympy: Option<(f64, i64)>,
    torch: (f64, i64),
}

fn corpus() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/exprs_dev.jsonl");
    let text = std::fs::read_to_string(path).expect("the corpus beside the repository");
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
            let case: ExprCase = serde_json::from_value(v.clone()).expect("case");
            let mut loaded = load_env(&case.symbols, &case.assumptions).expect("env");
            let expr = load_expr(&mut loaded, "expr", &case.expr, false).expect("expr");
            let r = &v["ref"];
            let sympy = r["sympy"]["micros"]
                .as_f64()
                .zip(r["sympy"]["size"].as_i64());
            let torch = (
                r["torch"]["micros"].as_f64().expect("torch micros"),
                r["torch"]["size"].as_i64().expect("torch size"),
            );
            Case {
                id: case.id,
                size_in: loaded.pool.tree_size(expr),
                pool: loaded.pool,
                env: loaded.env,
                expr,
                sympy,
                torch,
            }
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn report(cases: &mut [Case]) {
    let opts = SimplifyOptions::default();
    let (mut times, mut r_sympy, mut r_torch) = (vec![], vec![], vec![]);
    let (mut smaller, mut vs_sympy, mut vs_torch) = (0, [0; 3], [0; 3]);
    let bucket = |ours: usize, theirs: i64| match (ours as i64).cmp(&theirs) {
        std::cmp::Ordering::Less => 0,
        std::cmp::Ordering::Equal => 1,
        std::cmp::Ordering::Greater => 2,
    };
    for c in cases.iter_mut() {
        let mut best = f64::MAX;
        let mut size_out = 0;
        for _ in 0..5 {
            let t = Instant::now();
            let out = simplify(&mut c.pool, &c.env, c.expr, &opts);
            best = best.min(t.elapsed().as_secs_f64() * 1e6);
            size_out = out.size_out;
        }
        times.push(best);
        smaller += (size_out < c.size_in) as usize;
        if let Some((micros, size)) = c.sympy {
            r_sympy.push(micros / best);
            vs_sympy[bucket(size_out, size)] += 1;
        }
        r_torch.push(c.torch.0 / best);
        vs_torch[bucket(size_out, c.torch.1)] += 1;
    }
    let n = cases.len();
    println!("simplify report on {n} corpus expressions (best of 5 runs each):");
    println!(
        "  time per expression: median {:.1} us",
        median(times.clone())
    );
    println!(
        "  median time ratio: sympy.simplify / symalias = {:.0}x, PyTorch / symalias = {:.0}x",
        median(r_sympy),
        median(r_torch)
    );
    println!("  smaller than the input: {smaller}");
    println!(
        "  vs sympy.simplify: smaller {}, equal {}, larger {}",
        vs_sympy[0], vs_sympy[1], vs_sympy[2]
    );
    println!(
        "  vs PyTorch: smaller {} ({:.1}%), equal {}, larger {}",
        vs_torch[0],
        100.0 * vs_torch[0] as f64 / n as f64,
        vs_torch[1],
        vs_torch[2]
    );
}

fn bench(c: &mut Criterion) {
    let mut cases = corpus();
    report(&mut cases);
    let opts = SimplifyOptions::default();
    let mut g = c.benchmark_group("simplify");
    g.sample_size(10);
    g.bench_function("corpus_all", |b| {
        b.iter(|| {
            for c in cases.iter_mut() {
                black_box(simplify(&mut c.pool, &c.env, c.expr, &opts));
            }
        })
    });
    // Representative single expressions: the smallest non-leaf, the median
    // size, the largest.
    let mut order: Vec<usize> = (0..cases.len()).filter(|&i| cases[i].size_in > 1).collect();
    order.sort_by_key(|&i| (cases[i].size_in, cases[i].id.clone()));
    for (label, i) in [
        ("small", order[0]),
        ("median", order[order.len() / 2]),
        ("large", order[order.len() - 1]),
    ] {
        let c = &mut cases[i];
        let name = format!("{label}/{}/{}", c.id, c.size_in);
        g.bench_function(BenchmarkId::new("one", name), |b| {
            b.iter(|| black_box(simplify(&mut c.pool, &c.env, c.expr, &opts)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
