//! The C ABI answers as the Rust API does on the overlap corpus
//! (`tests/data/overlap_dev.jsonl`): each case built through the handles,
//! each pair's answer at the hints and for all shapes, its witness address
//! and each view's side of the partition compared with `run_overlap_case`.

use std::ffi::{c_char, CString};
use std::ptr;
use symalias::analysis::Analyzer;
use symalias::io::{parse_line, run_overlap_case, ExprField, OverlapCase, OverlapResult};
use symalias_capi::*;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn expected_pair(r: &OverlapResult, a: usize, b: usize) -> (SymaliasAnswer, SymaliasAnswer, i64) {
    let pair = r.pairs.iter().find(|p| p.a == a && p.b == b);
    let left_out = r.pairs_left_out > 0 && r.overlapping.contains(&a) && r.overlapping.contains(&b);
    let hints = match pair {
        None if left_out => SymaliasAnswer::SymaliasUnknown,
        None => SymaliasAnswer::SymaliasDisjoint,
        Some(p) if p.overlap && p.witness.is_some() => SymaliasAnswer::SymaliasOverlap,
        Some(_) => SymaliasAnswer::SymaliasUnknown,
    };
    let all = if r.invariant == Some(true) {
        hints
    } else {
        SymaliasAnswer::SymaliasUnknown
    };
    (
        hints,
        all,
        pair.and_then(|p| p.witness.as_ref())
            .map_or(-1, |w| w.address),
    )
}

unsafe fn through_abi(case: &OverlapCase) -> Option<*mut SymaliasResult> {
    let h = symalias_case_new();
    for (name, s) in &case.symbols {
        let (Some(hint), Some(min)) = (s.hint, s.min) else {
            symalias_case_free(h);
            return None; // the ABI asks for a hint and a lower bound
        };
        symalias_case_add_symbol(h, c(name).as_ptr(), hint, min, s.max.unwrap_or(i64::MAX));
    }
    for a in &case.assumptions {
        symalias_case_add_assumption(h, c(a).as_ptr());
    }
    let text = |f: &ExprField| c(&f.to_string());
    for (k, t) in case.tensors.iter().enumerate() {
        let sizes: Vec<CString> = t.sizes.iter().map(text).collect();
        let strides: Vec<CString> = t.strides.iter().map(text).collect();
        let sp: Vec<*const c_char> = sizes.iter().map(|s| s.as_ptr()).collect();
        let tp: Vec<*const c_char> = strides.iter().map(|s| s.as_ptr()).collect();
        let source = c(t.source.as_deref().unwrap_or(&format!("t{k}")));
        let status = symalias_case_add_view(
            h,
            source.as_ptr(),
            sp.len(),
            sp.as_ptr(),
            tp.as_ptr(),
            text(&t.storage_offset).as_ptr(),
            t.itemsize,
        );
        assert_eq!(status, SymaliasStatus::SymaliasOk);
    }
    let mut result = ptr::null_mut();
    let status = symalias_case_overlap(h, 0, &mut result);
    symalias_case_free(h);
    (status == SymaliasStatus::SymaliasOk).then_some(result)
}

#[test]
fn the_abi_answers_the_corpus_as_the_rust_api() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/overlap_dev.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (mut compared, mut skipped) = (0, 0);
    for (i, line) in text.lines().enumerate() {
        let case: OverlapCase = parse_line(i + 1, line).value.unwrap();
        let Ok(want) = run_overlap_case(&case, &mut Analyzer::default(), true) else {
            continue;
        };
        let Some(result) = (unsafe { through_abi(&case) }) else {
            skipped += 1;
            continue;
        };
        let n = case.tensors.len();
        unsafe {
            assert_eq!(symalias_result_view_count(result), n, "{}", case.id);
            for a in 0..n {
                let mut over = -1;
                symalias_result_view(result, a, &mut over, ptr::null_mut());
                assert_eq!(
                    over == 1,
                    want.overlapping.contains(&a),
                    "{} view {a}",
                    case.id
                );
                for b in a + 1..n {
                    let (mut h, mut all, mut at) = (
                        SymaliasAnswer::SymaliasUnknown,
                        SymaliasAnswer::SymaliasUnknown,
                        -1,
                    );
                    symalias_result_pair(result, a, b, &mut h, &mut all, &mut at);
                    assert_eq!(
                        (h, all, at),
                        expected_pair(&want, a, b),
                        "{} pair ({a}, {b})",
                        case.id
                    );
                }
            }
            assert_eq!(
                symalias_result_guard_count(result),
                want.guards.len(),
                "{}",
                case.id
            );
            symalias_result_free(result);
        }
        compared += 1;
    }
    eprintln!(
        "compared {compared} cases, skipped {skipped} (a symbol without a hint or a lower bound)"
    );
    assert!(compared >= 500, "compared {compared}, skipped {skipped}");
}
