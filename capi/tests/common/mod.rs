//! What the C ABI's tests share: the golden overlap cases and the answers
//! the Rust API gives them, in the ABI's terms.

#![allow(dead_code)] // each test binary uses its own part

use std::fmt::Write as _;

use symalias::analysis::Analyzer;
use symalias::io::{parse_line, run_overlap_case, OverlapCase, OverlapResult};
use symalias::Proof;
use symalias_capi::SymaliasAnswer;

/// The golden overlap cases (`tests/data/overlap_dev.jsonl`) the ABI can
/// state: every symbol with a hint and a lower bound. The rest are counted.
pub fn golden_cases() -> (Vec<OverlapCase>, usize) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/overlap_dev.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (mut kept, mut skipped) = (Vec::new(), 0);
    for (i, line) in text.lines().enumerate() {
        let case: OverlapCase = parse_line(i + 1, line).value.unwrap();
        if case
            .symbols
            .values()
            .all(|s| s.hint.is_some() && s.min.is_some())
        {
            kept.push(case);
        } else {
            skipped += 1;
        }
    }
    (kept, skipped)
}

/// The Rust API's answer to a case.
pub fn rust_api(case: &OverlapCase) -> Option<OverlapResult> {
    run_overlap_case(case, &mut Analyzer::default(), true).ok()
}

/// Pair `(a, b)` in the ABI's terms: at the hints, for all shapes, the
/// witness address (-1: none).
pub fn expected_pair(
    r: &OverlapResult,
    a: usize,
    b: usize,
) -> (SymaliasAnswer, SymaliasAnswer, i64) {
    let pair = r.pairs.iter().find(|p| p.a == a && p.b == b);
    let left_out = r.pairs_left_out > 0 && r.overlapping.contains(&a) && r.overlapping.contains(&b);
    let hints = match pair {
        None if left_out => SymaliasAnswer::SymaliasUnknown,
        None => SymaliasAnswer::SymaliasDisjoint,
        Some(p) if p.overlap && p.witness.is_some() => SymaliasAnswer::SymaliasOverlap,
        // Listed for its open proof, apart at the hints.
        Some(p) if !p.overlap => SymaliasAnswer::SymaliasDisjoint,
        Some(_) => SymaliasAnswer::SymaliasUnknown,
    };
    (
        hints,
        for_all(r, hints),
        pair.and_then(|p| p.witness.as_ref())
            .map_or(-1, |w| w.address),
    )
}

/// An answer at the hints, for all shapes: itself when the partition is
/// proved, else unknown.
pub fn for_all(r: &OverlapResult, hints: SymaliasAnswer) -> SymaliasAnswer {
    if r.invariant == Some(true) {
        hints
    } else {
        SymaliasAnswer::SymaliasUnknown
    }
}

/// View `i` against itself: at the hints, for all shapes.
pub fn expected_self(r: &OverlapResult, i: usize) -> (SymaliasAnswer, SymaliasAnswer) {
    match r.self_overlap.iter().find(|s| s.tensor == i) {
        None => (
            SymaliasAnswer::SymaliasDisjoint,
            SymaliasAnswer::SymaliasDisjoint,
        ),
        Some(s) => {
            let hints = if s.overlap {
                SymaliasAnswer::SymaliasOverlap
            } else {
                SymaliasAnswer::SymaliasDisjoint
            };
            let proved = matches!(s.proof, Proof::Proved);
            (
                hints,
                if proved {
                    hints
                } else {
                    SymaliasAnswer::SymaliasUnknown
                },
            )
        }
    }
}

/// An answer as the example programs print it.
pub fn letter(a: SymaliasAnswer) -> char {
    match a {
        SymaliasAnswer::SymaliasDisjoint => 'd',
        SymaliasAnswer::SymaliasOverlap => 'o',
        SymaliasAnswer::SymaliasUnknown => 'u',
    }
}

/// Cases as the example programs read them: one tab-separated record per
/// line (`case ID`, `symbol NAME HINT MIN MAX`, `assume TEXT`,
/// `view SOURCE ITEMSIZE NDIM OFFSET SIZES… STRIDES…`, `end`).
pub fn case_file(cases: &[OverlapCase]) -> String {
    let mut out = String::new();
    for case in cases {
        writeln!(out, "case\t{}", case.id).unwrap();
        for (name, s) in &case.symbols {
            let max = s.max.unwrap_or(i64::MAX);
            writeln!(
                out,
                "symbol\t{name}\t{}\t{}\t{max}",
                s.hint.unwrap(),
                s.min.unwrap()
            )
            .unwrap();
        }
        for a in &case.assumptions {
            writeln!(out, "assume\t{a}").unwrap();
        }
        for (k, t) in case.tensors.iter().enumerate() {
            let source = t.source.clone().unwrap_or_else(|| format!("t{k}"));
            write!(
                out,
                "view\t{source}\t{}\t{}\t{}",
                t.itemsize,
                t.sizes.len(),
                t.storage_offset
            )
            .unwrap();
            for e in t.sizes.iter().chain(&t.strides) {
                write!(out, "\t{e}").unwrap();
            }
            out.push('\n');
        }
        out.push_str("end\n");
    }
    out
}
