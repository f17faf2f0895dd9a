//! The C ABI called as a C program would: handles, status codes, the last
//! error's message, answers at the hints and for all shapes.

use std::ffi::{c_char, CStr, CString};
use std::ptr;
use symalias_capi::*;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(symalias_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Strings as a C caller holds them: owned, with their array of pointers.
struct CStrs {
    _own: Vec<CString>,
    ptrs: Vec<*const c_char>,
}

impl CStrs {
    fn new(xs: &[&str]) -> CStrs {
        let own: Vec<CString> = xs.iter().map(|s| c(s)).collect();
        let ptrs = own.iter().map(|s| s.as_ptr()).collect();
        CStrs { _own: own, ptrs }
    }
}

unsafe fn add_view(
    case: *mut SymaliasCase,
    source: &str,
    sizes: &[&str],
    strides: &[&str],
    offset: &str,
    itemsize: i64,
) -> SymaliasStatus {
    let (sizes, strides) = (CStrs::new(sizes), CStrs::new(strides));
    let (source, offset) = (c(source), c(offset));
    symalias_case_add_view(
        case,
        source.as_ptr(),
        sizes.ptrs.len(),
        sizes.ptrs.as_ptr(),
        strides.ptrs.as_ptr(),
        offset.as_ptr(),
        itemsize,
    )
}

#[test]
fn a_symbolic_split_is_disjoint_for_every_shape() {
    unsafe {
        let case = symalias_case_new();
        assert_eq!(
            symalias_case_add_symbol(case, c("n").as_ptr(), 5, 1, i64::MAX),
            SymaliasStatus::SymaliasOk
        );
        assert_eq!(
            add_view(case, "x[:n]", &["n"], &["1"], "0", 4),
            SymaliasStatus::SymaliasOk
        );
        assert_eq!(
            add_view(case, "x[n:]", &["n"], &["1"], "n", 4),
            SymaliasStatus::SymaliasOk
        );
        let mut result = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut result),
            SymaliasStatus::SymaliasOk
        );
        let (mut hints, mut all, mut at) = (
            SymaliasAnswer::SymaliasUnknown,
            SymaliasAnswer::SymaliasUnknown,
            -1,
        );
        assert_eq!(
            symalias_result_pair(result, 0, 1, &mut hints, &mut all, &mut at),
            SymaliasStatus::SymaliasOk
        );
        assert_eq!(
            (hints, all),
            (
                SymaliasAnswer::SymaliasDisjoint,
                SymaliasAnswer::SymaliasDisjoint
            )
        );
        // Proved, yet guarded: the list stands alone (fast paths of the
        // layouts and the range before each exact guard, FORMATS §3.1).
        let kinds: Vec<String> = (0..symalias_result_guard_count(result))
            .map(|i| {
                let g = CStr::from_ptr(symalias_result_guard(result, i))
                    .to_str()
                    .unwrap();
                let v: serde_json::Value = serde_json::from_str(g).unwrap();
                v["kind"].as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "layout",
                "shape",
                "storage_overlap",
                "layout",
                "shape",
                "self_overlap"
            ]
        );
        symalias_result_free(result);
        symalias_case_free(case);
    }
}

#[test]
fn an_overlap_at_the_hints_has_a_witness_and_a_guard_when_not_proved() {
    unsafe {
        let case = symalias_case_new();
        symalias_case_add_symbol(case, c("s").as_ptr(), 4, 1, 64);
        // Rows of 4 every 9 elements at offsets 0 and s + 5 (= 9 at the hint).
        add_view(case, "a", &["4", "4"], &["9", "1"], "0", 4);
        add_view(case, "b", &["4", "4"], &["9", "1"], "s + 5", 4);
        let mut result = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut result),
            SymaliasStatus::SymaliasOk
        );
        let (mut hints, mut all, mut at) = (
            SymaliasAnswer::SymaliasDisjoint,
            SymaliasAnswer::SymaliasDisjoint,
            -1,
        );
        symalias_result_pair(result, 1, 0, &mut hints, &mut all, &mut at);
        assert_eq!(hints, SymaliasAnswer::SymaliasOverlap);
        assert_eq!(at, 36, "element 9 of float32 is byte 36");
        // Not for all s (s = 1 moves b to 6: still rows 0..3 of a? the
        // engine says; either proved or guarded, never silently).
        if all == SymaliasAnswer::SymaliasUnknown {
            assert!(symalias_result_guard_count(result) > 0);
            let g = CStr::from_ptr(symalias_result_guard(result, 0))
                .to_str()
                .unwrap();
            assert!(g.starts_with('{'), "{g}");
        }
        assert!(symalias_result_guard(result, 99).is_null());
        symalias_result_free(result);
        symalias_case_free(case);
    }
}

#[test]
fn errors_name_the_input_and_field() {
    unsafe {
        let case = symalias_case_new();
        add_view(case, "a", &["4"], &["1"], "0", 4);
        add_view(case, "b", &["4", "k +"], &["1", "1"], "0", 4);
        let mut result = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut result),
            SymaliasStatus::SymaliasInputError
        );
        assert!(result.is_null());
        let msg = last_error();
        assert!(msg.contains("tensors[1]") && msg.contains("sizes"), "{msg}");
        // Null handles and pointers are refused, not dereferenced.
        assert_eq!(
            symalias_case_overlap(ptr::null(), 0, &mut result),
            SymaliasStatus::SymaliasInvalidArgument
        );
        assert_eq!(
            symalias_case_add_symbol(case, ptr::null(), 1, 1, 1),
            SymaliasStatus::SymaliasInvalidArgument
        );
        assert!(last_error().contains("name"), "{}", last_error());
        assert_eq!(
            symalias_result_pair(
                ptr::null(),
                0,
                1,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut()
            ),
            SymaliasStatus::SymaliasInvalidArgument
        );
        symalias_case_free(case);
        symalias_case_free(ptr::null_mut());
        symalias_result_free(ptr::null_mut());
    }
}

#[test]
fn numpys_hard_instance_is_disjoint_through_the_abi() {
    unsafe {
        let case = symalias_case_new();
        add_view(
            case,
            "x1",
            &["1049", "1049", "1049"],
            &["36674", "61119", "85569"],
            "0",
            1,
        );
        add_view(
            case,
            "x2",
            &["1049", "1049", "1"],
            &["12223", "12224", "1"],
            "64023025",
            1,
        );
        let mut result = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut result),
            SymaliasStatus::SymaliasOk
        );
        let (mut hints, mut all) = (
            SymaliasAnswer::SymaliasUnknown,
            SymaliasAnswer::SymaliasUnknown,
        );
        symalias_result_pair(result, 0, 1, &mut hints, &mut all, ptr::null_mut());
        assert_eq!(
            (hints, all),
            (
                SymaliasAnswer::SymaliasDisjoint,
                SymaliasAnswer::SymaliasDisjoint
            )
        );
        symalias_result_free(result);
        symalias_case_free(case);
    }
}

/// A subset's offsets, sizes and strides, held as a C caller holds them.
struct Subset([CStrs; 3]);

impl Subset {
    fn new(parts: [&[&str]; 3]) -> Subset {
        Subset(parts.map(CStrs::new))
    }

    fn c(&self) -> SymaliasSubset {
        SymaliasSubset {
            rank: self.0[0].ptrs.len(),
            offsets: self.0[0].ptrs.as_ptr(),
            sizes: self.0[1].ptrs.as_ptr(),
            strides: self.0[2].ptrs.as_ptr(),
        }
    }
}

/// `symalias_subset_conflict` on a buffer with `strides` (float32).
unsafe fn ask(
    env: *const SymaliasCase,
    strides: &[&str],
    write: [&[&str]; 3],
    read: [&[&str]; 3],
) -> (SymaliasStatus, SymaliasAnswer) {
    let strides = CStrs::new(strides);
    let (w, r) = (Subset::new(write), Subset::new(read));
    let mut out = SymaliasAnswer::SymaliasUnknown;
    let status = symalias_subset_conflict(
        env,
        strides.ptrs.len(),
        strides.ptrs.as_ptr(),
        4,
        &w.c(),
        &r.c(),
        0,
        &mut out,
    );
    (status, out)
}

unsafe fn conflict(
    env: *const SymaliasCase,
    strides: &[&str],
    write: [&[&str]; 3],
    read: [&[&str]; 3],
) -> SymaliasAnswer {
    let (status, out) = ask(env, strides, write, read);
    assert_eq!(status, SymaliasStatus::SymaliasOk, "{}", last_error());
    out
}

#[test]
fn subset_conflicts_in_mlirs_terms() {
    unsafe {
        // A KV cache `L × 8` (L = s0 + 16): writing row p, reading rows [0, p).
        let env = symalias_case_new();
        symalias_case_add_symbol(env, c("p").as_ptr(), 5, 0, 1000);
        let rows = ["8", "1"];
        let row_p: [&[&str]; 3] = [&["p", "0"], &["1", "8"], &["1", "1"]];
        let prefix: [&[&str]; 3] = [&["0", "0"], &["p", "8"], &["1", "1"]];
        assert_eq!(
            conflict(env, &rows, row_p, prefix),
            SymaliasAnswer::SymaliasDisjoint
        );
        // Reading rows [0, p + 1) includes row p: a conflict at every p.
        let through: [&[&str]; 3] = [&["0", "0"], &["p + 1", "8"], &["1", "1"]];
        assert_eq!(
            conflict(env, &rows, row_p, through),
            SymaliasAnswer::SymaliasOverlap
        );
        // Even and odd columns of a row (stride 2): no conflict.
        let even: [&[&str]; 3] = [&["p", "0"], &["1", "4"], &["1", "2"]];
        let odd: [&[&str]; 3] = [&["p", "1"], &["1", "4"], &["1", "2"]];
        assert_eq!(
            conflict(env, &rows, even, odd),
            SymaliasAnswer::SymaliasDisjoint
        );
        // Row p against row 3: disjoint at the hint (p = 5), not for p = 3.
        let row3: [&[&str]; 3] = [&["3", "0"], &["1", "8"], &["1", "1"]];
        assert_eq!(
            conflict(env, &rows, row_p, row3),
            SymaliasAnswer::SymaliasUnknown
        );
        // A subset of the wrong rank is refused, naming it.
        let bad: [&[&str]; 3] = [&["0"], &["1"], &["1"]];
        let (status, _) = ask(env, &rows, bad, bad);
        assert_eq!(status, SymaliasStatus::SymaliasInvalidArgument);
        assert!(last_error().contains("write.rank"), "{}", last_error());
        symalias_case_free(env);
    }
}

#[test]
fn a_group_partition_and_self_overlap() {
    unsafe {
        let case = symalias_case_new();
        symalias_case_add_symbol(case, c("n").as_ptr(), 6, 2, 100);
        // Windows of 3 every 2 (overlapping themselves), a chunk after them.
        add_view(case, "windows", &["n", "3"], &["2", "1"], "0", 4);
        add_view(case, "tail", &["4"], &["1"], "2*n + 10", 4);
        add_view(case, "head", &["2"], &["1"], "0", 4);
        let mut result = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut result),
            SymaliasStatus::SymaliasOk
        );
        assert_eq!(symalias_result_view_count(result), 3);
        let (mut over, mut all) = (-1, SymaliasAnswer::SymaliasUnknown);
        symalias_result_view(result, 0, &mut over, &mut all);
        assert_eq!(over, 1);
        symalias_result_view(result, 1, &mut over, &mut all);
        assert_eq!((over, all), (0, SymaliasAnswer::SymaliasDisjoint));
        let (mut hints, mut forall) = (
            SymaliasAnswer::SymaliasUnknown,
            SymaliasAnswer::SymaliasUnknown,
        );
        symalias_result_self_overlap(result, 0, &mut hints, &mut forall);
        assert_eq!(
            (hints, forall),
            (
                SymaliasAnswer::SymaliasOverlap,
                SymaliasAnswer::SymaliasOverlap
            )
        );
        symalias_result_self_overlap(result, 1, &mut hints, &mut forall);
        assert_eq!(
            (hints, forall),
            (
                SymaliasAnswer::SymaliasDisjoint,
                SymaliasAnswer::SymaliasDisjoint
            )
        );
        assert_eq!(
            symalias_result_view(result, 3, &mut over, &mut all),
            SymaliasStatus::SymaliasInvalidArgument
        );
        symalias_result_free(result);
        symalias_case_free(case);
    }
}

#[test]
fn hostile_input_gets_a_status_and_a_message() {
    unsafe {
        for (sizes, what) in [
            (["nan"], "nan"),
            (["99999999999999999999999"], "99999999999999999999999"),
            (["2**70"], "2**70"),
            (["-3"], "negative"),
        ] {
            let case = symalias_case_new();
            add_view(case, "a", &sizes, &["1"], "0", 4);
            add_view(case, "b", &["4"], &["1"], "0", 4);
            let mut result = ptr::null_mut();
            let status = symalias_case_overlap(case, 0, &mut result);
            assert_eq!(status, SymaliasStatus::SymaliasInputError, "{what}");
            assert!(result.is_null());
            let msg = last_error();
            assert!(msg.contains("tensors[0]"), "{what}: {msg}");
            symalias_case_free(case);
        }
        // A string that is not UTF-8 is refused at the call that takes it.
        let case = symalias_case_new();
        let bad = [0xffu8, 0xfe, 0];
        assert_eq!(
            symalias_case_add_assumption(case, bad.as_ptr() as *const c_char),
            SymaliasStatus::SymaliasInvalidArgument
        );
        assert!(last_error().contains("not UTF-8"), "{}", last_error());
        symalias_case_free(case);
    }
}

/// numpy's hard instance (`numpy/_core/tests/test_mem_overlap.py`): two
/// views of 1049^3 and 1049^2 bytes, disjoint, that a 1 ms search cannot
/// decide.
unsafe fn numpys_hard_instance() -> *mut SymaliasCase {
    let case = symalias_case_new();
    add_view(
        case,
        "x1",
        &["1049", "1049", "1049"],
        &["36674", "61119", "85569"],
        "0",
        1,
    );
    add_view(
        case,
        "x2",
        &["1049", "1049", "1"],
        &["12223", "12224", "1"],
        "64023025",
        1,
    );
    case
}

#[test]
fn past_its_time_limit_a_query_says_so_and_still_answers_unknown_with_guards() {
    unsafe {
        let case = numpys_hard_instance();
        let mut result = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 1, &mut result),
            SymaliasStatus::SymaliasTimeLimit
        );
        let msg = last_error();
        assert!(
            msg.contains("time limit of 1 ms") && msg.contains("views 0 and 1"),
            "{msg}"
        );
        // The answer is written all the same, the caller's to free.
        assert!(!result.is_null());
        let (mut hints, mut all) = (
            SymaliasAnswer::SymaliasDisjoint,
            SymaliasAnswer::SymaliasDisjoint,
        );
        symalias_result_pair(result, 0, 1, &mut hints, &mut all, ptr::null_mut());
        assert_eq!(
            (hints, all),
            (
                SymaliasAnswer::SymaliasUnknown,
                SymaliasAnswer::SymaliasUnknown
            )
        );
        assert!(symalias_result_guard_count(result) > 0);
        symalias_result_free(result);
        // Within the default limit the exact stage decides it: disjoint.
        let mut result = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut result),
            SymaliasStatus::SymaliasOk
        );
        symalias_result_pair(result, 0, 1, &mut hints, &mut all, ptr::null_mut());
        assert_eq!(hints, SymaliasAnswer::SymaliasDisjoint);
        symalias_result_free(result);
        symalias_case_free(case);
    }
}

#[test]
fn past_its_time_limit_a_subset_conflict_is_unknown_and_says_so() {
    unsafe {
        // The same two views as subsets of a buffer of unit strides.
        let env = symalias_case_new();
        let unit = CStrs::new(&["1", "1", "1"]);
        let write = Subset::new([
            &["0", "0", "0"],
            &["1049", "1049", "1049"],
            &["36674", "61119", "85569"],
        ]);
        let read = Subset::new([
            &["64023025", "0", "0"],
            &["1049", "1049", "1"],
            &["12223", "12224", "1"],
        ]);
        // The C structs point into `write` and `read`, which outlive them.
        let (w, r) = (write.c(), read.c());
        let mut out = SymaliasAnswer::SymaliasDisjoint;
        let status = symalias_subset_conflict(env, 3, unit.ptrs.as_ptr(), 1, &w, &r, 1, &mut out);
        assert_eq!(
            status,
            SymaliasStatus::SymaliasTimeLimit,
            "{}",
            last_error()
        );
        assert_eq!(out, SymaliasAnswer::SymaliasUnknown);
        let status = symalias_subset_conflict(env, 3, unit.ptrs.as_ptr(), 1, &w, &r, 0, &mut out);
        assert_eq!(status, SymaliasStatus::SymaliasOk, "{}", last_error());
        assert_eq!(out, SymaliasAnswer::SymaliasDisjoint);
        symalias_case_free(env);
    }
}

#[test]
fn a_pair_left_out_past_the_listing_cap_is_never_called_disjoint() {
    unsafe {
        // 5,000 copies of one window: past the listing cap (4,096 pairs) the
        // pairs inside the one component are not decided, and all overlap.
        let case = symalias_case_new();
        for k in 0..5000 {
            add_view(case, &format!("w{k}"), &["4"], &["1"], "0", 4);
        }
        let mut result = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut result),
            SymaliasStatus::SymaliasOk
        );
        let mut unknown = 0;
        for (a, b) in [(0, 1), (17, 4999), (2500, 2501), (4998, 4999)] {
            let mut h = SymaliasAnswer::SymaliasDisjoint;
            symalias_result_pair(result, a, b, &mut h, ptr::null_mut(), ptr::null_mut());
            assert_ne!(h, SymaliasAnswer::SymaliasDisjoint, "({a}, {b})");
            unknown += usize::from(h == SymaliasAnswer::SymaliasUnknown);
        }
        assert!(unknown > 0, "some pair is past the cap");
        symalias_result_free(result);
        symalias_case_free(case);
    }
}

#[test]
fn a_subset_field_is_one_expression_not_text_pasted_into_another() {
    unsafe {
        let env = symalias_case_new();
        let rows = ["8", "1"];
        let row0: [&[&str]; 3] = [&["0", "0"], &["1", "8"], &["1", "1"]];
        // Pasted into `(x)*(8)`, this closed the parenthesis and was read
        // as `(0)*(0) + (100)*(8)`.
        let sneaky: [&[&str]; 3] = [&["0)*(0) + (100", "0"], &["1", "8"], &["1", "1"]];
        let (status, _) = ask(env, &rows, row0, sneaky);
        assert_eq!(status, SymaliasStatus::SymaliasInputError);
        assert!(
            last_error().starts_with("read.offsets[0]: "),
            "{}",
            last_error()
        );
        let (status, _) = ask(env, &["8)*(1", "1"], row0, row0);
        assert_eq!(status, SymaliasStatus::SymaliasInputError);
        assert!(
            last_error().starts_with("buffer_strides[0]: "),
            "{}",
            last_error()
        );
        symalias_case_free(env);
    }
}

#[test]
fn a_success_clears_the_last_error_and_a_huge_name_is_not_repeated() {
    unsafe {
        assert_eq!(
            symalias_case_add_symbol(ptr::null_mut(), c("s").as_ptr(), 1, 0, 9),
            SymaliasStatus::SymaliasInvalidArgument
        );
        assert!(!last_error().is_empty());
        let case = symalias_case_new();
        assert_eq!(
            symalias_case_add_symbol(case, c("s0").as_ptr(), 4, 1, 9),
            SymaliasStatus::SymaliasOk
        );
        assert_eq!(last_error(), "");
        // A 10 MB name that is not a symbol: the message keeps its head.
        let huge = "q".repeat(10 << 20);
        assert_eq!(
            add_view(case, "v", &[&huge], &["1"], "0", 1),
            SymaliasStatus::SymaliasOk
        );
        let mut out = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut out),
            SymaliasStatus::SymaliasInputError
        );
        assert!(last_error().len() < 5000, "{} bytes", last_error().len());
        symalias_case_free(case);
    }
}

#[test]
fn a_pair_apart_at_the_hints_is_disjoint_there_as_its_views_say() {
    unsafe {
        // x of s0 elements at 0, y of 4 at 8, s0 = 6 in [2, 16]: apart at
        // the hint, not for every s0 (refuted): listed, but disjoint now.
        let case = symalias_case_new();
        symalias_case_add_symbol(case, c("s0").as_ptr(), 6, 2, 16);
        add_view(case, "x", &["s0"], &["1"], "0", 1);
        add_view(case, "y", &["4"], &["1"], "8", 1);
        let mut r = ptr::null_mut();
        assert_eq!(
            symalias_case_overlap(case, 0, &mut r),
            SymaliasStatus::SymaliasOk
        );
        let (mut hints, mut all) = (
            SymaliasAnswer::SymaliasOverlap,
            SymaliasAnswer::SymaliasOverlap,
        );
        assert_eq!(
            symalias_result_pair(r, 0, 1, &mut hints, &mut all, ptr::null_mut()),
            SymaliasStatus::SymaliasOk
        );
        let mut over = -1;
        symalias_result_view(r, 0, &mut over, ptr::null_mut());
        assert_eq!(
            (hints, all, over),
            (
                SymaliasAnswer::SymaliasDisjoint,
                SymaliasAnswer::SymaliasUnknown,
                0
            )
        );
        symalias_result_free(r);
        symalias_case_free(case);
    }
}
