//! Latency of a query through the C ABI beside the Rust API on the same
//! queries, in one run (issue 52): a concrete pair, a symbolic pair (a
//! proof for all shapes), a group of 100 views. The C ABI builds its case
//! through handles, then the same parser and `Analyzer` (a §3 document per
//! query); its strings are made once, as a C caller's literals are. The
//! Rust side answers a case parsed once. Rounds alternate the two; the
//! ratio is taken round by round (median).
//!
//!     cargo bench -p symalias-capi --bench latency

use std::ffi::{c_char, CString};
use std::ptr;
use std::time::Instant;

use symalias::analysis::Analyzer;
use symalias::io::{parse_line, run_overlap_case, OverlapCase};
use symalias_capi::*;

struct View {
    sizes: Vec<String>,
    strides: Vec<String>,
    offset: String,
}

struct Query {
    name: &'static str,
    symbols: Vec<(&'static str, i64, i64, i64)>,
    views: Vec<View>,
}

fn view(sizes: &[&str], strides: &[&str], offset: &str) -> View {
    View {
        sizes: sizes.iter().map(|s| s.to_string()).collect(),
        strides: strides.iter().map(|s| s.to_string()).collect(),
        offset: offset.to_string(),
    }
}

fn queries() -> Vec<Query> {
    vec![
        Query {
            name: "concrete pair",
            symbols: vec![],
            views: vec![
                view(&["4", "4"], &["9", "1"], "0"),
                view(&["4", "4"], &["9", "1"], "9"),
            ],
        },
        Query {
            name: "symbolic pair",
            symbols: vec![("n", 5, 1, i64::MAX)],
            views: vec![view(&["n"], &["1"], "0"), view(&["n"], &["1"], "n")],
        },
        Query {
            name: "group of 100",
            symbols: vec![("n", 5, 1, 1000)],
            views: (0..100)
                .map(|k| view(&["n"], &["1"], &format!("{k}*n")))
                .collect(),
        },
    ]
}

/// A query's strings as a C caller holds them (literals: made once).
struct CQuery {
    symbols: Vec<(CString, i64, i64, i64)>,
    views: Vec<(CString, Vec<CString>, Vec<CString>, CString)>,
}

fn c_query(q: &Query) -> CQuery {
    let cs = |s: &str| CString::new(s).unwrap();
    CQuery {
        symbols: q
            .symbols
            .iter()
            .map(|(n, h, lo, hi)| (cs(n), *h, *lo, *hi))
            .collect(),
        views: q
            .views
            .iter()
            .enumerate()
            .map(|(k, v)| {
                (
                    cs(&format!("v{k}")),
                    v.sizes.iter().map(|s| cs(s)).collect(),
                    v.strides.iter().map(|s| cs(s)).collect(),
                    cs(&v.offset),
                )
            })
            .collect(),
    }
}

unsafe fn through_abi(q: &CQuery) {
    let case = symalias_case_new();
    for (name, hint, lo, hi) in &q.symbols {
        symalias_case_add_symbol(case, name.as_ptr(), *hint, *lo, *hi);
    }
    let mut sp: Vec<*const c_char> = Vec::with_capacity(4);
    let mut tp: Vec<*const c_char> = Vec::with_capacity(4);
    for (src, sizes, strides, off) in &q.views {
        sp.clear();
        tp.clear();
        sp.extend(sizes.iter().map(|s| s.as_ptr()));
        tp.extend(strides.iter().map(|s| s.as_ptr()));
        symalias_case_add_view(
            case,
            src.as_ptr(),
            sp.len(),
            sp.as_ptr(),
            tp.as_ptr(),
            off.as_ptr(),
            4,
        );
    }
    let mut result = ptr::null_mut();
    let status = symalias_case_overlap(case, 0, &mut result);
    assert_eq!(status, SymaliasStatus::SymaliasOk);
    symalias_result_free(result);
    symalias_case_free(case);
}

fn parsed(q: &Query) -> OverlapCase {
    let symbols: serde_json::Map<String, serde_json::Value> = q
        .symbols
        .iter()
        .map(|(n, h, lo, hi)| {
            let max = (*hi != i64::MAX).then_some(*hi);
            (n.to_string(), serde_json::json!({"hint": h, "min": lo, "max": max, "source": format!("C['{n}']")}))
        })
        .collect();
    let tensors: Vec<serde_json::Value> = q
        .views
        .iter()
        .enumerate()
        .map(|(k, v)| {
            serde_json::json!({"source": format!("v{k}"), "sizes": v.sizes, "strides": v.strides,
                "storage_offset": v.offset, "itemsize": 4})
        })
        .collect();
    let doc = serde_json::json!({"id": "rust", "symbols": symbols, "tensors": tensors});
    parse_line(1, &doc.to_string()).value.unwrap()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn main() {
    let rounds = 15;
    for q in queries() {
        let case = parsed(&q);
        let cq = c_query(&q);
        let per_round = if q.views.len() > 10 { 20 } else { 200 };
        let (mut abi, mut rust, mut ratio) = (vec![], vec![], vec![]);
        for _ in 0..rounds {
            let t = Instant::now();
            for _ in 0..per_round {
                unsafe { through_abi(&cq) };
            }
            let a = t.elapsed().as_secs_f64() / per_round as f64;
            let t = Instant::now();
            for _ in 0..per_round {
                run_overlap_case(&case, &mut Analyzer::default(), true).unwrap();
            }
            let r = t.elapsed().as_secs_f64() / per_round as f64;
            abi.push(a);
            rust.push(r);
            ratio.push(a / r);
        }
        println!(
            "{:14} C ABI {:9.1} µs   Rust API {:9.1} µs   C ABI / Rust (median of {rounds} rounds) {:.2}x",
            q.name,
            median(abi) * 1e6,
            median(rust) * 1e6,
            median(ratio)
        );
    }
}
