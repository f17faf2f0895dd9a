//! A result's guards checked through the C ABI (`symalias_result_check`):
//! the list stands alone, so a call whose views moved, grew or changed
//! itemsize is re-decided, never passed on a stale fast path (issue 63).

use std::ffi::{c_char, CString};
use std::ptr;
use symalias_capi::*;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// A view of a case: source, sizes, strides, offset (expression text),
/// itemsize.
type CaseView<'a> = (&'a str, Vec<String>, Vec<String>, String, i64);

/// A result for `views` over `symbols` (`(name, hint, min, max)`).
unsafe fn result_of(symbols: &[(&str, i64, i64, i64)], views: &[CaseView]) -> *mut SymaliasResult {
    let case = symalias_case_new();
    for &(name, hint, min, max) in symbols {
        let name = c(name);
        assert_eq!(
            symalias_case_add_symbol(case, name.as_ptr(), hint, min, max),
            SymaliasStatus::SymaliasOk
        );
    }
    for (source, sizes, strides, offset, itemsize) in views {
        let own: Vec<CString> = sizes.iter().chain(strides).map(|s| c(s)).collect();
        let ptrs: Vec<*const c_char> = own.iter().map(|s| s.as_ptr()).collect();
        let (source, offset) = (c(source), c(offset));
        let n = sizes.len();
        let status = symalias_case_add_view(
            case,
            source.as_ptr(),
            n,
            ptrs.as_ptr(),
            ptrs[n..].as_ptr(),
            offset.as_ptr(),
            *itemsize,
        );
        assert_eq!(status, SymaliasStatus::SymaliasOk);
    }
    let mut out = ptr::null_mut();
    assert_eq!(
        symalias_case_overlap(case, 0, &mut out),
        SymaliasStatus::SymaliasOk
    );
    symalias_case_free(case);
    out
}

/// A concrete view of a call: source, sizes, strides, offset, itemsize.
type CallView<'a> = (&'a str, Vec<i64>, Vec<i64>, i64, i64);

/// Checks `r`'s guards on a call of `views` (one storage) and `values`:
/// `Some(passed)`, or `None` when the call does not fit the guards.
unsafe fn check(
    r: *const SymaliasResult,
    views: &[CallView],
    values: &[(&str, i64)],
) -> Option<bool> {
    let call = symalias_call_new();
    for (source, sizes, strides, offset, itemsize) in views {
        let (s, o, st) = (c(source), c(&format!("obj {source}")), c("S"));
        let status = symalias_call_add_tensor(
            call,
            s.as_ptr(),
            o.as_ptr(),
            st.as_ptr(),
            sizes.len(),
            sizes.as_ptr(),
            strides.as_ptr(),
            *offset,
            *itemsize,
        );
        assert_eq!(status, SymaliasStatus::SymaliasOk);
    }
    for (source, v) in values {
        let s = c(source);
        assert_eq!(
            symalias_call_add_value(call, s.as_ptr(), *v),
            SymaliasStatus::SymaliasOk
        );
    }
    let (mut passed, mut failed) = (-1, usize::MAX);
    let status = symalias_result_check(r, call, &mut passed, &mut failed);
    symalias_call_free(call);
    match status {
        SymaliasStatus::SymaliasOk => Some(passed == 1),
        _ => None,
    }
}

fn strs(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_view_moved_onto_another_fails_although_the_shape_guard_holds() {
    unsafe {
        // docs/python.md's case: x of s0 bytes at 0, y of 4 bytes at 8.
        let r = result_of(
            &[("s0", 6, 2, 16)],
            &[
                ("x", strs(&["s0"]), strs(&["1"]), "0".into(), 1),
                ("y", strs(&["4"]), strs(&["1"]), "8".into(), 1),
            ],
        );
        let call = |y_offset: i64, n: i64| {
            [
                ("x", vec![n], vec![1], 0, 1),
                ("y", vec![4], vec![1], y_offset, 1),
            ]
        };
        let s0 = |v: i64| [("C['s0']", v)];
        assert_eq!(check(r, &call(8, 7), &s0(7)), Some(true));
        // s0 = 7 keeps the shape guard `s0 <= 8`; y at 3 meets x.
        assert_eq!(check(r, &call(3, 7), &s0(7)), Some(false));
        // The value the symbol is bound from says 7, x is 12 long: re-decided.
        assert_eq!(check(r, &call(8, 12), &s0(7)), Some(false));
        assert_eq!(check(r, &call(12, 12), &s0(7)), Some(true));
        symalias_result_free(r);
    }
}

#[test]
fn a_proved_concrete_result_rejects_other_layouts_and_itemsizes_that_overlap() {
    unsafe {
        // Two float32 views of 4 elements, back to back: disjoint, proved.
        let r = result_of(
            &[],
            &[
                ("a", strs(&["4"]), strs(&["1"]), "0".into(), 4),
                ("b", strs(&["4"]), strs(&["1"]), "4".into(), 4),
            ],
        );
        assert!(
            symalias_result_guard_count(r) > 0,
            "a proved result's list stands alone"
        );
        // (a's itemsize, b's offset, passes): as compiled; b moved onto a;
        // the same numbers of a read as float64 (a covers b's bytes); b
        // moved but still apart (the partition holds, the call passes).
        for (a_itemsize, b_offset, passes) in
            [(4, 4, true), (4, 2, false), (8, 4, false), (4, 9, true)]
        {
            let call = [
                ("a", vec![4], vec![1], 0, a_itemsize),
                ("b", vec![4], vec![1], b_offset, 4),
            ];
            assert_eq!(
                check(r, &call, &[]),
                Some(passes),
                "a itemsize {a_itemsize}, b at {b_offset}"
            );
        }
        symalias_result_free(r);
    }
}

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> i64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n) as i64
    }
}

/// Bytes each view covers, by enumeration (rank 1 and 2).
fn covered(v: &CallView) -> std::collections::BTreeSet<i64> {
    let (_, sizes, strides, offset, itemsize) = v;
    let mut out = std::collections::BTreeSet::new();
    let (n0, n1) = (sizes[0], *sizes.get(1).unwrap_or(&1));
    let (t0, t1) = (strides[0], *strides.get(1).unwrap_or(&0));
    for i in 0..n0 {
        for j in 0..n1 {
            let e = offset + i * t0 + j * t1;
            out.extend(e * itemsize..(e + 1) * itemsize);
        }
    }
    out
}

#[test]
fn random_calls_that_pass_overlap_as_compiled() {
    // Cases of two or three views with one symbol `s0` (a size, a stride or
    // an offset); calls at values in and just outside its range, with a
    // view moved, resized or re-typed, and the bound value sometimes off.
    let mut r = Rng(0x63c);
    let (mut checked, mut passed) = (0usize, 0usize);
    let mut bad = Vec::new();
    for _ in 0..300 {
        let (hint, lo) = (2 + r.below(4), 1 + r.below(2));
        let hi = hint + r.below(5);
        let n = 2 + r.below(2) as usize;
        // Per view: (size, stride, offset) each `k*s0 + d` or a constant.
        let field = |r: &mut Rng, top: u64| -> (i64, i64) {
            if r.below(3) == 0 {
                (1, r.below(3))
            } else {
                (0, r.below(top))
            }
        };
        let itemsize = [1, 2, 4][r.below(3) as usize];
        let spec: Vec<[(i64, i64); 3]> = (0..n)
            .map(|_| [field(&mut r, 5), field(&mut r, 4), field(&mut r, 10)])
            .collect();
        let text = |(k, d): (i64, i64)| {
            if k == 0 {
                d.to_string()
            } else {
                format!("s0 + {d}")
            }
        };
        let names = ["t0", "t1", "t2"];
        let views: Vec<CaseView> = spec
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (
                    names[i],
                    vec![text(f[0])],
                    vec![text(f[1])],
                    text(f[2]),
                    itemsize,
                )
            })
            .collect();
        let res = unsafe { result_of(&[("s0", hint, lo, hi)], &views) };
        let compiled: Vec<bool> = (0..n)
            .map(|i| {
                let mut o = 0;
                unsafe { symalias_result_view(res, i, &mut o, ptr::null_mut()) };
                o == 1
            })
            .collect();
        for _ in 0..20 {
            let s = match r.below(4) {
                0 => lo - 1,
                1 => hi + 1,
                _ => lo + r.below((hi - lo + 1) as u64),
            }
            .max(0);
            let at = |(k, d): (i64, i64)| k * s + d;
            let mut call: Vec<CallView> = spec
                .iter()
                .enumerate()
                .map(|(i, f)| (names[i], vec![at(f[0])], vec![at(f[1])], at(f[2]), itemsize))
                .collect();
            if r.below(2) == 0 {
                let v = &mut call[r.below(n as u64) as usize];
                match r.below(4) {
                    0 => v.3 = (v.3 + r.below(5) - 2).max(0),
                    1 => v.1[0] = (v.1[0] + r.below(3) - 1).max(0),
                    2 => v.2[0] = (v.2[0] + r.below(3) - 1).max(0),
                    _ => v.4 = [1, 2, 4, 8][r.below(4) as usize],
                }
            }
            let value = if r.below(5) == 0 { s + 1 } else { s };
            let Some(ok) = (unsafe { check(res, &call, &[("C['s0']", value)]) }) else {
                continue;
            };
            checked += 1;
            if !ok {
                continue;
            }
            passed += 1;
            let sets: Vec<_> = call.iter().map(covered).collect();
            let now: Vec<bool> = (0..n)
                .map(|a| (0..n).any(|b| b != a && !sets[a].is_disjoint(&sets[b])))
                .collect();
            if now != compiled {
                bad.push(format!(
                    "{views:?} at s0={s}: call {call:?} overlaps {now:?}, compiled {compiled:?}"
                ));
            }
        }
        unsafe { symalias_result_free(res) };
    }
    eprintln!(
        "C ABI: {checked} calls checked, {passed} passed, {} contradicted",
        bad.len()
    );
    assert!(
        checked >= 5000 && passed * 5 >= checked,
        "{passed}/{checked}"
    );
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(3)].join("\n"));
}
