//! The guard list of an `overlap` result stands alone (issue 63): for
//! every call it passes, the call's views overlap exactly as the result
//! says — the partition and each view's overlap with itself — by byte
//! enumeration, with nothing pinned by the embedder.
//!
//! Random cases (concrete and symbolic; symbols bound from plain values,
//! from tensors' sizes, or not at all) and random calls near their
//! boundaries: symbol values just outside the ranges, shifted offsets,
//! other itemsizes, sizes and strides one off, values that disagree with
//! the layouts. The same run with the lighter list an embedder gets when
//! it pins layouts itself (`GuardOptions::layouts_pinned`, main before
//! issue 63) passes calls the exact answer contradicts: the harness can
//! fail.

use crate::common::views::bytes_of;
use crate::common::{env_count, Rng};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use symalias::analysis::{Analyzer, AnalyzerOptions, GuardOptions};
use symalias::guards::check::{Call, CallTensor};
use symalias::io::{parse_line, prepare_guards, run_overlap_case, OverlapCase, OverlapResult};
use symalias::layout::View;

/// A field: `coef * symbol + constant` (no symbol: a constant).
#[derive(Clone, Copy, Debug)]
struct Field {
    sym: Option<usize>,
    coef: i64,
    constant: i64,
}

impl Field {
    fn text(&self) -> Value {
        match self.sym {
            None => json!(self.constant),
            Some(s) => json!(format!("{}*s{s} + {}", self.coef, self.constant)),
        }
    }
    fn at(&self, v: &[i64]) -> i64 {
        self.sym.map_or(0, |s| self.coef * v[s]) + self.constant
    }
}

struct Tensor {
    sizes: Vec<Field>,
    strides: Vec<Field>,
    offset: Field,
    itemsize: i64,
}

/// How a case's symbols are bound at run time.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Binding {
    /// A plain source `L['k<i>']`: the call gives the value.
    Value,
    /// `L['t0'].size()[0]`, when tensor 0's first size is the symbol itself.
    Size,
}

pub(crate) struct Case {
    symbols: Vec<(i64, i64, i64, Binding)>,
    tensors: Vec<Tensor>,
}

fn field(r: &mut Rng, nsym: usize, lo: i64, hi: i64) -> Field {
    if nsym > 0 && r.range(0, 2) == 0 {
        Field {
            sym: Some(r.range(0, nsym as i64 - 1) as usize),
            coef: r.range(1, 2),
            constant: r.range(0, 2),
        }
    } else {
        Field {
            sym: None,
            coef: 0,
            constant: r.range(lo, hi),
        }
    }
}

impl Case {
    pub(crate) fn random(r: &mut Rng) -> Case {
        let nsym = r.range(0, 2) as usize;
        let mut symbols: Vec<(i64, i64, i64, Binding)> = (0..nsym)
            .map(|_| {
                let hint = r.range(1, 5);
                let lo = r.range(0, hint);
                let hi = hint + r.range(0, 5);
                (hint, lo, hi, Binding::Value)
            })
            .collect();
        let itemsize = [1, 2, 4][r.range(0, 2) as usize];
        let n = r.range(2, 3) as usize;
        let mut tensors: Vec<Tensor> = (0..n)
            .map(|_| {
                let rank = r.range(1, 2) as usize;
                Tensor {
                    sizes: (0..rank).map(|_| field(r, nsym, 0, 4)).collect(),
                    strides: (0..rank).map(|_| field(r, nsym, 0, 4)).collect(),
                    offset: field(r, nsym, 0, 9),
                    itemsize: if r.range(0, 5) == 0 {
                        [1, 2, 4][r.range(0, 2) as usize]
                    } else {
                        itemsize
                    },
                }
            })
            .collect();
        // Sometimes a symbol is tensor 0's first size, read from the call.
        if nsym > 0 && r.range(0, 2) == 0 {
            tensors[0].sizes[0] = Field {
                sym: Some(0),
                coef: 1,
                constant: 0,
            };
            symbols[0].3 = Binding::Size;
        }
        Case { symbols, tensors }
    }

    fn source(&self, s: usize) -> String {
        match self.symbols[s].3 {
            Binding::Value => format!("L['k{s}']"),
            Binding::Size => "L['t0'].size()[0]".to_string(),
        }
    }

    pub(crate) fn json(&self, id: &str) -> Value {
        let symbols: serde_json::Map<String, Value> = self
            .symbols
            .iter()
            .enumerate()
            .map(|(s, &(hint, lo, hi, _))| {
                (
                    format!("s{s}"),
                    json!({"hint": hint, "min": lo, "max": hi, "source": self.source(s)}),
                )
            })
            .collect();
        let tensors: Vec<Value> = self
            .tensors
            .iter()
            .enumerate()
            .map(|(i, t)| {
                json!({
                    "source": format!("L['t{i}']"),
                    "sizes": t.sizes.iter().map(Field::text).collect::<Vec<_>>(),
                    "strides": t.strides.iter().map(Field::text).collect::<Vec<_>>(),
                    "storage_offset": t.offset.text(),
                    "itemsize": t.itemsize,
                })
            })
            .collect();
        json!({"id": id, "symbols": symbols, "assumptions": [], "tensors": tensors})
    }

    /// A call near the case's boundaries: its concrete views and the
    /// values the call gives for value-bound symbols.
    pub(crate) fn call(&self, r: &mut Rng) -> (Vec<View>, Vec<i64>) {
        let v: Vec<i64> = self
            .symbols
            .iter()
            .map(|&(hint, lo, hi, _)| match r.range(0, 5) {
                0 => (lo - 1).max(0),
                1 => hi + 1,
                2 => hint,
                _ => r.range(lo, hi),
            })
            .collect();
        let mut views: Vec<View> = self
            .tensors
            .iter()
            .map(|t| View {
                sizes: t.sizes.iter().map(|f| f.at(&v).max(0)).collect(),
                strides: t.strides.iter().map(|f| f.at(&v).max(0)).collect(),
                offset: t.offset.at(&v).max(0),
                itemsize: t.itemsize,
            })
            .collect();
        if r.range(0, 1) == 0 {
            let k = r.range(0, views.len() as i64 - 1) as usize;
            let w = &mut views[k];
            let d = r.range(0, w.sizes.len() as i64 - 1) as usize;
            let delta = if r.range(0, 1) == 0 { -1 } else { 1 } * r.range(1, 3);
            match r.range(0, 3) {
                0 => w.offset = (w.offset + delta).max(0),
                1 => w.sizes[d] = (w.sizes[d] + delta.signum()).max(0),
                2 => w.strides[d] = (w.strides[d] + delta.signum()).max(0),
                _ => w.itemsize = [1, 2, 4, 8][r.range(0, 3) as usize],
            }
        }
        let mut values = v;
        if !values.is_empty() && r.range(0, 4) == 0 {
            let s = r.range(0, values.len() as i64 - 1) as usize;
            values[s] += if r.range(0, 1) == 0 { -1 } else { 1 };
        }
        (views, values)
    }

    pub(crate) fn call_doc(&self, views: &[View], values: &[i64]) -> Call {
        let mut call = Call::new();
        for (i, w) in views.iter().enumerate() {
            call = call.tensor(
                format!("L['t{i}']"),
                CallTensor::new(format!("t{i}"), "S", w.clone()),
            );
        }
        for (s, &(_, _, _, b)) in self.symbols.iter().enumerate() {
            if b == Binding::Value {
                call = call.value(format!("L['k{s}']"), values[s]);
            }
        }
        call
    }
}

/// The exact answer by byte enumeration: the views overlapping another,
/// and the views overlapping themselves.
pub(crate) fn truth(views: &[View]) -> (Vec<usize>, Vec<usize>) {
    let sets: Vec<_> = views.iter().map(bytes_of).collect();
    let overlapping = (0..views.len())
        .filter(|&a| (0..views.len()).any(|b| b != a && !sets[a].is_disjoint(&sets[b])))
        .collect();
    let selfs = (0..views.len())
        .filter(|&a| {
            let elements: i64 = views[a].sizes.iter().product();
            elements > 0 && (sets[a].len() as i64) < elements * views[a].itemsize
        })
        .collect();
    (overlapping, selfs)
}

/// `(calls checked, calls passed, passes the exact answer contradicts)`.
fn run(layouts_pinned: bool, cases: usize, calls: usize, seed: u64) -> (usize, usize, Vec<String>) {
    let mut r = Rng(seed);
    let opts = AnalyzerOptions {
        guards: GuardOptions { layouts_pinned },
        ..AnalyzerOptions::default()
    };
    let (mut checked, mut passed, mut bad) = (0, 0, Vec::new());
    for c in 0..cases {
        let case = Case::random(&mut r);
        let line = case.json(&format!("c{c}")).to_string();
        let parsed: OverlapCase = parse_line(1, &line)
            .value
            .expect("the generator writes valid cases");
        let Ok(result): Result<OverlapResult, _> =
            run_overlap_case(&parsed, &mut Analyzer::new(opts), true)
        else {
            continue; // e.g. a negative size at the hints: bad input
        };
        let set = prepare_guards(&result.guards, &result.symbols)
            .expect("an overlap result's guards prepare");
        for _ in 0..calls {
            let (views, values) = case.call(&mut r);
            let Ok(outcome) = set.check(&case.call_doc(&views, &values)) else {
                continue;
            };
            checked += 1;
            if !outcome.passed() {
                continue;
            }
            passed += 1;
            let (overlapping, selfs) = truth(&views);
            if overlapping != result.overlapping || selfs != result.self_overlapping {
                bad.push(format!(
                    "{line}\n  call {views:?} values {values:?}: overlapping {overlapping:?} (compiled {:?}), self {selfs:?} (compiled {:?})",
                    result.overlapping, result.self_overlapping
                ));
            }
        }
    }
    (checked, passed, bad)
}

#[test]
fn every_call_a_stand_alone_list_passes_overlaps_as_compiled() {
    let cases = env_count("SYMALIAS_STANDALONE_CASES", 600);
    let (checked, passed, bad) = run(false, cases, 20, 0x63);
    eprintln!(
        "stand-alone lists: {checked} calls checked, {passed} passed, {} contradicted",
        bad.len()
    );
    assert!(checked >= 10_000 || cases < 600, "{checked} calls");
    assert!(
        passed * 5 >= checked,
        "too few passing calls to mean anything: {passed}/{checked}"
    );
    assert!(
        bad.is_empty(),
        "{} passes contradicted, e.g.\n{}",
        bad.len(),
        bad[..bad.len().min(3)].join("\n")
    );
}

#[test]
fn the_lighter_list_of_an_embedder_that_pins_layouts_does_not_stand_alone() {
    let (_, _, bad) = run(true, 150, 20, 0x63);
    assert!(
        !bad.is_empty(),
        "the pinned list should pass calls whose layouts moved"
    );
}

/// Guard documents are read strictly (issue 63): what a reader could take
/// two ways is an error naming it, never silently resolved.
#[test]
fn guard_documents_are_read_strictly() {
    use symalias::io::GuardDoc;
    let one = |text: &str| {
        serde_json::from_str::<GuardDoc>(text)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        one(r#"{"kind": "shape", "expr": "1 <= s0", "fast_path": true}"#),
        Ok(())
    );
    let unknown = one(r#"{"kind": "shape", "expr": "1 <= s0", "exprs": "s0 <= 2"}"#).unwrap_err();
    assert!(unknown.contains("unknown field `exprs`"), "{unknown}");
    let twice = one(r#"{"kind": "shape", "expr": "1 <= s0", "expr": "s0 <= 2"}"#).unwrap_err();
    assert!(twice.contains("key `expr` is given twice"), "{twice}");
    let fast = one(r#"{"kind": "duplicate_input", "kept": "a", "dupe": "b", "fast_path": true}"#)
        .unwrap_err();
    assert!(fast.contains("only `shape` and `layout`"), "{fast}");
    // A fast path must stand in for the exact guard right after it.
    let symbols = BTreeMap::from([("s0".to_string(), "L['k']".to_string())]);
    let docs: Vec<GuardDoc> = serde_json::from_value(json!([
        {"kind": "shape", "expr": "s0 <= 3", "fast_path": true},
        {"kind": "distinct_objects", "sources": ["a"], "others": ["b"]}
    ]))
    .unwrap();
    let err = prepare_guards(&docs, &symbols).unwrap_err().to_string();
    assert!(
        err.contains("guards[0]") && err.contains("must be followed"),
        "{err}"
    );
    // A malformed guard is named by its own index.
    let docs: Vec<GuardDoc> = serde_json::from_value(json!([
        {"kind": "layout", "sources": ["a", "b"], "sizes": [["1"]], "strides": [["1"]], "storage_offsets": ["0"], "itemsizes": [4]}
    ]))
    .unwrap();
    let err = prepare_guards(&docs, &symbols).unwrap_err().to_string();
    assert!(err.contains("guards[0]"), "{err}");
    // A result whose `guards` is given twice is refused by check-guards.
    let dir = std::env::temp_dir().join(format!("symalias-strict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let result = dir.join("result.json");
    std::fs::write(&result, r#"{"guards": [{"kind": "shape", "expr": "s0 <= 3"}], "guards": [], "symbols": {"s0": "L['k']"}}"#).unwrap();
    let call = dir.join("call.json");
    std::fs::write(&call, r#"{"inputs": [{"source": "L['k']", "value": 9}]}"#).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symalias"))
        .args([
            "check-guards",
            result.to_str().unwrap(),
            call.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("key `guards` is given twice"));
}
