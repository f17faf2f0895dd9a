//! A §3 line built through the C ABI as a C caller would (symbols,
//! assumptions, views by handle), answered, every accessor read, the
//! result's guards checked on a call made from the line's own hints (and
//! the bytes' tail as a second call), and the first two views asked as a
//! subset conflict: a status and a message, never a panic or a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::ffi::{c_char, CString};
use std::ptr;
use symalias::io::{parse_line, ExprField, OverlapCase};
use symalias_capi::*;

fn c(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap()
}

fn field(f: &ExprField) -> String {
    match f {
        ExprField::Int(v) => v.to_string(),
        ExprField::Text(t) => t.clone(),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(case) = parse_line::<OverlapCase>(1, text).value else {
        return;
    };
    unsafe {
        let h = symalias_case_new();
        for (name, s) in &case.symbols {
            let name = c(name);
            let _ = symalias_case_add_symbol(
                h,
                name.as_ptr(),
                s.hint.unwrap_or(0),
                s.min.unwrap_or(i64::MIN),
                s.max.unwrap_or(i64::MAX),
            );
        }
        for a in &case.assumptions {
            let a = c(a);
            let _ = symalias_case_add_assumption(h, a.as_ptr());
        }
        for (i, t) in case.tensors.iter().enumerate() {
            let own: Vec<CString> = t
                .sizes
                .iter()
                .chain(&t.strides)
                .map(|f| c(&field(f)))
                .collect();
            let ptrs: Vec<*const c_char> = own.iter().map(|s| s.as_ptr()).collect();
            let n = t.sizes.len().min(t.strides.len());
            let source = c(&t.source.clone().unwrap_or_else(|| format!("t{i}")));
            let offset = c(&field(&t.storage_offset));
            let _ = symalias_case_add_view(
                h,
                source.as_ptr(),
                n,
                ptrs.as_ptr(),
                ptrs[t.sizes.len()..].as_ptr(),
                offset.as_ptr(),
                t.itemsize,
            );
        }
        let mut r = ptr::null_mut();
        let status = symalias_case_overlap(h, 50, &mut r);
        if !r.is_null() {
            let n = symalias_result_view_count(r);
            let (mut a, mut b) = (
                SymaliasAnswer::SymaliasUnknown,
                SymaliasAnswer::SymaliasUnknown,
            );
            let mut addr = 0i64;
            for i in 0..n.min(8) {
                let mut o = 0;
                let _ = symalias_result_view(r, i, &mut o, &mut a);
                let _ = symalias_result_self_overlap(r, i, &mut a, &mut b);
                for j in 0..n.min(8) {
                    let _ = symalias_result_pair(r, i, j, &mut a, &mut b, &mut addr);
                }
            }
            for i in 0..=symalias_result_guard_count(r) {
                let _ = symalias_result_guard(r, i);
            }
            // A call from the bytes: views of one storage read off the
            // data's tail, the symbols' values from their hints.
            let call = symalias_call_new();
            for (k, t) in case.tensors.iter().enumerate() {
                let src = c(&t.source.clone().unwrap_or_else(|| format!("t{k}")));
                let byte = |j: usize| {
                    i64::from(
                        *data
                            .get(data.len().saturating_sub(1 + j + 4 * k))
                            .unwrap_or(&1),
                    ) - 8
                };
                let sizes: Vec<i64> = (0..t.sizes.len()).map(byte).collect();
                let strides: Vec<i64> = (0..t.strides.len()).map(|j| byte(j + 2)).collect();
                let rank = sizes.len().min(strides.len());
                let (o, st) = (c(&format!("o{k}")), c("S"));
                let _ = symalias_call_add_tensor(
                    call,
                    src.as_ptr(),
                    o.as_ptr(),
                    st.as_ptr(),
                    rank,
                    sizes.as_ptr(),
                    strides.as_ptr(),
                    byte(5),
                    t.itemsize,
                );
            }
            for (name, s) in &case.symbols {
                let src = c(&format!("C['{name}']"));
                let _ = symalias_call_add_value(call, src.as_ptr(), s.hint.unwrap_or(0));
            }
            let (mut passed, mut failed) = (0, 0usize);
            let _ = symalias_result_check(r, call, &mut passed, &mut failed);
            symalias_call_free(call);
            symalias_result_free(r);
        }
        let _ = status;
        // The first two views' sizes as a subset conflict in a buffer of
        // their rank.
        if case.tensors.len() >= 2 {
            let t = &case.tensors[0];
            let rank = t.sizes.len();
            let own: Vec<CString> = t
                .sizes
                .iter()
                .chain(&t.strides)
                .chain(&case.tensors[1].sizes)
                .map(|f| c(&field(f)))
                .collect();
            let p: Vec<*const c_char> = own.iter().map(|s| s.as_ptr()).collect();
            if p.len() >= 3 * rank && rank > 0 {
                let w = SymaliasSubset {
                    rank,
                    offsets: p[rank..].as_ptr(),
                    sizes: p.as_ptr(),
                    strides: p[rank..].as_ptr(),
                };
                let rd = SymaliasSubset {
                    rank,
                    offsets: p[2 * rank..].as_ptr(),
                    sizes: p[2 * rank..].as_ptr(),
                    strides: p[..].as_ptr(),
                };
                let mut out = SymaliasAnswer::SymaliasUnknown;
                let _ = symalias_subset_conflict(
                    h,
                    rank,
                    p[rank..].as_ptr(),
                    t.itemsize,
                    &w,
                    &rd,
                    50,
                    &mut out,
                );
            }
        }
        symalias_case_free(h);
    }
});
