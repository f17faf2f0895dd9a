//! Latency of a query from a C program beside the Rust API on the same
//! queries, in one run (issue 52): a concrete pair, a symbolic pair (a
//! proof for all shapes), a group of 100 views.
//!
//! * **C**: `capi/benches/latency.c`, built here with the system `cc -O2`
//!   against the release library, times its own queries (each builds its
//!   case through the handles, answers it, frees it) and prints seconds
//!   per query.
//! * **Rust API**: the same queries as a Rust caller makes them: the case
//!   built as typed values (`OverlapCase`, no text parsed but the
//!   expressions, as the C side), then `run_overlap_case`.
//! * **Rust API, case reused**: the case built once and answered again:
//!   the analysis alone, the floor under both.
//!
//! Rounds alternate C and Rust; each ratio is taken round by round and the
//! median is printed.
//!
//!     cargo bench -p symalias-capi --bench latency

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use symalias::analysis::Analyzer;
use symalias::io::{run_overlap_case, ExprField, OverlapCase, SymbolSpec, TensorSpec};

struct Query {
    name: &'static str,
    symbols: Vec<(&'static str, i64, i64, i64)>,
    /// sizes, strides, offset.
    views: Vec<(Vec<&'static str>, Vec<&'static str>, String)>,
}

fn queries() -> Vec<Query> {
    vec![
        Query {
            name: "concrete pair",
            symbols: vec![],
            views: vec![
                (vec!["4", "4"], vec!["9", "1"], "0".into()),
                (vec!["4", "4"], vec!["9", "1"], "9".into()),
            ],
        },
        Query {
            name: "symbolic pair",
            symbols: vec![("n", 5, 1, i64::MAX)],
            views: vec![
                (vec!["n"], vec!["1"], "0".into()),
                (vec!["n"], vec!["1"], "n".into()),
            ],
        },
        Query {
            name: "group of 100",
            symbols: vec![("n", 5, 1, 1000)],
            views: (0..100)
                .map(|k| (vec!["n"], vec!["1"], format!("{k}*n")))
                .collect(),
        },
    ]
}

/// The case as a Rust caller builds it: typed values, expressions as text.
fn build(q: &Query) -> OverlapCase {
    let text = |s: &str| ExprField::Text(s.to_string());
    OverlapCase {
        id: "rust".into(),
        symbols: q
            .symbols
            .iter()
            .map(|(n, hint, min, max)| {
                let spec = SymbolSpec {
                    hint: Some(*hint),
                    min: Some(*min),
                    max: (*max != i64::MAX).then_some(*max),
                    source: Some(format!("C['{n}']")),
                };
                (n.to_string(), spec)
            })
            .collect(),
        assumptions: Vec::new(),
        tensors: q
            .views
            .iter()
            .enumerate()
            .map(|(k, (sizes, strides, offset))| TensorSpec {
                source: Some(format!("v{k}")),
                sizes: sizes.iter().map(|s| text(s)).collect(),
                strides: strides.iter().map(|s| text(s)).collect(),
                storage_offset: text(offset),
                itemsize: 4,
            })
            .collect(),
        expect: None,
    }
}

/// Seconds per query over `n` queries, after a warm-up as the C side's.
fn per_query(n: usize, mut query: impl FnMut()) -> f64 {
    for _ in 0..n.min(20) {
        query();
    }
    let t = Instant::now();
    for _ in 0..n {
        query();
    }
    t.elapsed().as_secs_f64() / n as f64
}

/// Builds the C program against the release library: its path.
fn c_program() -> PathBuf {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = std::env::current_exe().unwrap();
    let lib_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    let mut build = Command::new(env!("CARGO"));
    build.args([
        "build",
        "--quiet",
        "--release",
        "-p",
        "symalias-capi",
        "--lib",
    ]);
    assert!(
        build.status().unwrap().success(),
        "the library does not build"
    );
    let out = std::env::temp_dir().join(format!("symalias-latency-{}", std::process::id()));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("benches").join("latency.c"))
        .arg("-L")
        .arg(&lib_dir)
        .arg("-lsymalias_capi")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(status.success(), "latency.c does not build");
    out
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn main() {
    let (rounds, per_round) = (15, 200);
    let program = c_program();
    let qs = queries();
    // Per query kind: C, Rust API, Rust API with the case reused, C / Rust.
    let mut rows: Vec<[Vec<f64>; 4]> = qs.iter().map(|_| Default::default()).collect();
    for _ in 0..rounds {
        let run = Command::new(&program)
            .arg(per_round.to_string())
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let stdout = String::from_utf8(run.stdout).unwrap();
        for (q, row) in qs.iter().zip(&mut rows) {
            let c: f64 = stdout
                .lines()
                .find_map(|l| l.strip_prefix(q.name)?.trim().parse().ok())
                .unwrap_or_else(|| panic!("no '{}' line in {stdout}", q.name));
            let n = if q.views.len() > 10 {
                per_round / 10
            } else {
                per_round
            };
            let rust = per_query(n, || {
                run_overlap_case(&build(q), &mut Analyzer::default(), true).unwrap();
            });
            let case = build(q);
            let reused = per_query(n, || {
                run_overlap_case(&case, &mut Analyzer::default(), true).unwrap();
            });
            for (xs, x) in row.iter_mut().zip([c, rust, reused, c / rust]) {
                xs.push(x);
            }
        }
    }
    let _ = std::fs::remove_file(&program);
    println!("medians of {rounds} alternating rounds ({per_round} queries; the group 1/10):");
    for (q, [c, rust, reused, ratio]) in qs.iter().zip(rows) {
        println!(
            "{:14} C {:8.2} µs   Rust API {:8.2} µs   case reused {:8.2} µs   C / Rust API {:.2}x",
            q.name,
            median(c) * 1e6,
            median(rust) * 1e6,
            median(reused) * 1e6,
            median(ratio)
        );
    }
}
