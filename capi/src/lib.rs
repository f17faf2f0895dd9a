//! The C ABI of symalias (issue 52, first cut): a case of strided views of
//! one buffer, built through opaque handles, answered exactly at the hints
//! and for all allowed shapes.
//!
//! The ABI is an edge like the CLI's JSON: a case built here is a FORMATS
//! §3 overlap case (typed: `OverlapCase`, no document written or parsed)
//! and goes through the same loading and validation (errors name the input
//! and the field), then the same `Analyzer`.
//!
//! Conventions, for every function:
//! * a status code (`SymaliasStatus`); on an error the message is kept per
//!   thread and read with `symalias_last_error` (valid until the thread's
//!   next call);
//! * no panic crosses the boundary: one is caught and returned as
//!   `SYMALIAS_INTERNAL_ERROR`;
//! * ownership: a handle made by `*_new` or returned through an out
//!   pointer is the caller's, freed by its `*_free` (null is accepted);
//!   strings passed in are borrowed for the call only; strings returned
//!   are owned by the handle they come from;
//! * threads: a handle may move between threads but is not to be used from
//!   two at once; distinct handles are independent.

#![allow(clippy::missing_safety_doc)]

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use symalias::analysis::{Analyzer, AnalyzerOptions};
use symalias::io::{
    run_overlap_case, ExprField, OverlapCase, OverlapResult, SymbolSpec, TensorSpec,
};

/// The outcome of a call.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymaliasStatus {
    /// Success.
    SymaliasOk = 0,
    /// A null handle or pointer, a string that is not UTF-8, an index out of
    /// range.
    SymaliasInvalidArgument = 1,
    /// The case is invalid (a bad expression, an unknown symbol, a negative
    /// size at the hints, ...): the message names the field.
    SymaliasInputError = 2,
    /// A bug in symalias (a caught panic).
    SymaliasInternalError = 3,
}

/// An answer about memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymaliasAnswer {
    /// No byte is shared.
    SymaliasDisjoint = 0,
    /// Some byte is shared.
    SymaliasOverlap = 1,
    /// Not decided within the limits: to be read as "may overlap".
    SymaliasUnknown = 2,
}

/// A case under construction: symbols, assumptions, views (a FORMATS §3
/// case, typed: no document is written or parsed).
pub struct SymaliasCase {
    case: OverlapCase,
}

/// The answer to a case.
pub struct SymaliasResult {
    result: OverlapResult,
    guards: Vec<CString>,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn fail(status: SymaliasStatus, message: impl Into<String>) -> SymaliasStatus {
    let text = message.into().replace('\0', " ");
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(text).unwrap_or_default());
    status
}

/// Runs `f`, turning a panic into `SYMALIAS_INTERNAL_ERROR`.
fn guarded(f: impl FnOnce() -> SymaliasStatus) -> SymaliasStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(s) => s,
        Err(_) => fail(
            SymaliasStatus::SymaliasInternalError,
            "symalias: internal error (caught panic)",
        ),
    }
}

/// The UTF-8 text at `p`; `what` names the field in the error (made only
/// on an error: the calls that succeed allocate nothing for it).
unsafe fn text<'a, W: std::fmt::Display>(
    p: *const c_char,
    what: impl FnOnce() -> W,
) -> Result<&'a str, SymaliasStatus> {
    if p.is_null() {
        return Err(fail(
            SymaliasStatus::SymaliasInvalidArgument,
            format!("{}: null string", what()),
        ));
    }
    CStr::from_ptr(p).to_str().map_err(|_| {
        fail(
            SymaliasStatus::SymaliasInvalidArgument,
            format!("{}: not UTF-8", what()),
        )
    })
}

/// The message of this thread's last error ("" when none). Owned by the
/// library; valid until this thread's next call.
#[no_mangle]
pub extern "C" fn symalias_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// A new, empty case (free with `symalias_case_free`).
#[no_mangle]
pub extern "C" fn symalias_case_new() -> *mut SymaliasCase {
    Box::into_raw(Box::new(SymaliasCase {
        case: OverlapCase {
            id: "c".into(),
            symbols: Default::default(),
            assumptions: Vec::new(),
            tensors: Vec::new(),
            expect: None,
        },
    }))
}

/// Frees a case (null: nothing).
#[no_mangle]
pub unsafe extern "C" fn symalias_case_free(case: *mut SymaliasCase) {
    if !case.is_null() {
        drop(Box::from_raw(case));
    }
}

/// Declares symbol `name` with its hint (the value now) and its inclusive
/// range `[min, max]`; `max == INT64_MAX` means unbounded above.
#[no_mangle]
pub unsafe extern "C" fn symalias_case_add_symbol(
    case: *mut SymaliasCase,
    name: *const c_char,
    hint: i64,
    min: i64,
    max: i64,
) -> SymaliasStatus {
    guarded(|| {
        let Some(case) = case.as_mut() else {
            return fail(SymaliasStatus::SymaliasInvalidArgument, "case: null handle");
        };
        let name = match text(name, || "name") {
            Ok(n) => n,
            Err(s) => return s,
        };
        let spec = SymbolSpec {
            hint: Some(hint),
            min: Some(min),
            max: (max != i64::MAX).then_some(max),
            source: Some(format!("C['{name}']")),
        };
        case.case.symbols.insert(name.to_string(), spec);
        SymaliasStatus::SymaliasOk
    })
}

/// Adds an assumption about the symbols (FORMATS §2 text: `s0 % 8 == 0`,
/// `s1 >= s0`).
#[no_mangle]
pub unsafe extern "C" fn symalias_case_add_assumption(
    case: *mut SymaliasCase,
    assumption: *const c_char,
) -> SymaliasStatus {
    guarded(|| {
        let Some(case) = case.as_mut() else {
            return fail(SymaliasStatus::SymaliasInvalidArgument, "case: null handle");
        };
        match text(assumption, || "assumption") {
            Ok(a) => {
                case.case.assumptions.push(a.to_string());
                SymaliasStatus::SymaliasOk
            }
            Err(s) => s,
        }
    })
}

/// Adds a view: `ndim` sizes and strides (in elements) and a storage offset
/// (in elements), each an expression over the symbols (FORMATS §2 text), and
/// the element size in bytes. `source` names it in guards. Views are
/// numbered from 0 in the order added.
#[no_mangle]
pub unsafe extern "C" fn symalias_case_add_view(
    case: *mut SymaliasCase,
    source: *const c_char,
    ndim: usize,
    sizes: *const *const c_char,
    strides: *const *const c_char,
    offset: *const c_char,
    itemsize: i64,
) -> SymaliasStatus {
    guarded(|| {
        let Some(case) = case.as_mut() else {
            return fail(SymaliasStatus::SymaliasInvalidArgument, "case: null handle");
        };
        let k = case.case.tensors.len();
        if ndim > 0 && (sizes.is_null() || strides.is_null()) {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                format!("views[{k}]: null sizes or strides"),
            );
        }
        let read =
            |p: *const *const c_char, what: &str| -> Result<Vec<ExprField>, SymaliasStatus> {
                (0..ndim)
                    .map(|d| {
                        text(*p.add(d), || format!("views[{k}].{what}[{d}]"))
                            .map(|t| ExprField::Text(t.to_string()))
                    })
                    .collect()
            };
        let (sizes, strides) = match (read(sizes, "sizes"), read(strides, "strides")) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(s), _) | (_, Err(s)) => return s,
        };
        let (source, offset) = match (
            text(source, || format!("views[{k}].source")),
            text(offset, || format!("views[{k}].offset")),
        ) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(s), _) | (_, Err(s)) => return s,
        };
        case.case.tensors.push(TensorSpec {
            source: Some(source.to_string()),
            sizes,
            strides,
            storage_offset: ExprField::Text(offset.to_string()),
            itemsize,
        });
        SymaliasStatus::SymaliasOk
    })
}

/// Decides which views overlap, at the hints and for all allowed shapes,
/// within `time_limit_ms` (0: the default, 2 s). On success `*out` is the
/// caller's (free with `symalias_result_free`).
#[no_mangle]
pub unsafe extern "C" fn symalias_case_overlap(
    case: *const SymaliasCase,
    time_limit_ms: u64,
    out: *mut *mut SymaliasResult,
) -> SymaliasStatus {
    guarded(|| {
        let (Some(case), false) = (case.as_ref(), out.is_null()) else {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                "case or out: null pointer",
            );
        };
        let mut options = AnalyzerOptions::default();
        if time_limit_ms > 0 {
            options.proof.time_limit = std::time::Duration::from_millis(time_limit_ms);
        }
        match run_overlap_case(&case.case, &mut Analyzer::new(options), true) {
            Ok(result) => {
                let guards = result
                    .guards
                    .iter()
                    .map(|g| {
                        CString::new(serde_json::to_string(g).unwrap_or_default())
                            .unwrap_or_default()
                    })
                    .collect();
                *out = Box::into_raw(Box::new(SymaliasResult { result, guards }));
                SymaliasStatus::SymaliasOk
            }
            Err(e) => fail(SymaliasStatus::SymaliasInputError, e.to_string()),
        }
    })
}

/// Frees a result (null: nothing).
#[no_mangle]
pub unsafe extern "C" fn symalias_result_free(result: *mut SymaliasResult) {
    if !result.is_null() {
        drop(Box::from_raw(result));
    }
}

/// Views `a` and `b` at the hints: `*at_hints` their answer there (with a
/// witness in `address`, `index_a`, `index_b` when they overlap: the byte
/// and the first `ndim` indices of each view, when the pointers are not
/// null), and `*for_all` whether that answer holds for every allowed shape
/// (`SYMALIAS_DISJOINT`/`OVERLAP` when proved so, `UNKNOWN` otherwise: then
/// the result's guards keep it).
#[no_mangle]
pub unsafe extern "C" fn symalias_result_pair(
    result: *const SymaliasResult,
    a: usize,
    b: usize,
    at_hints: *mut SymaliasAnswer,
    for_all: *mut SymaliasAnswer,
    address: *mut i64,
) -> SymaliasStatus {
    guarded(|| {
        let Some(r) = result.as_ref() else {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                "result: null handle",
            );
        };
        let n = r.result.overlapping.len() + r.result.non_overlapping.len();
        if a >= n || b >= n || a == b {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                format!("pair ({a}, {b}) of {n} views"),
            );
        }
        let (lo, hi) = (a.min(b), a.max(b));
        let pair = r.result.pairs.iter().find(|p| p.a == lo && p.b == hi);
        // An unlisted pair is disjoint, except past the listing cap: pairs
        // inside a component already connected were not decided (FORMATS §3
        // `pairs_left_out`), so two overlapping views' pair is unknown.
        let left_out = r.result.pairs_left_out > 0
            && r.result.overlapping.contains(&lo)
            && r.result.overlapping.contains(&hi);
        let hints = match pair {
            None if left_out => SymaliasAnswer::SymaliasUnknown,
            None => SymaliasAnswer::SymaliasDisjoint,
            Some(p) if p.overlap && p.witness.is_some() => SymaliasAnswer::SymaliasOverlap,
            Some(_) => SymaliasAnswer::SymaliasUnknown,
        };
        let all = match (r.result.invariant, hints) {
            (Some(true), h) => h,
            _ => SymaliasAnswer::SymaliasUnknown,
        };
        if !at_hints.is_null() {
            *at_hints = hints;
        }
        if !for_all.is_null() {
            *for_all = all;
        }
        if let (Some(w), false) = (pair.and_then(|p| p.witness.as_ref()), address.is_null()) {
            *address = w.address;
        }
        SymaliasStatus::SymaliasOk
    })
}

/// The number of views of the case.
#[no_mangle]
pub unsafe extern "C" fn symalias_result_view_count(result: *const SymaliasResult) -> usize {
    result.as_ref().map_or(0, |r| {
        r.result.overlapping.len() + r.result.non_overlapping.len()
    })
}

/// The group's partition: `*overlapping` is 1 when view `i` overlaps (or
/// may overlap) some other view at the hints, else 0; `*for_all` whether the
/// whole partition is proved for every allowed shape (`SYMALIAS_OVERLAP` /
/// `SYMALIAS_DISJOINT` as view `i`'s side, `SYMALIAS_UNKNOWN`: kept by the
/// result's guards).
#[no_mangle]
pub unsafe extern "C" fn symalias_result_view(
    result: *const SymaliasResult,
    i: usize,
    overlapping: *mut i32,
    for_all: *mut SymaliasAnswer,
) -> SymaliasStatus {
    guarded(|| {
        let Some(r) = result.as_ref() else {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                "result: null handle",
            );
        };
        let n = r.result.overlapping.len() + r.result.non_overlapping.len();
        if i >= n {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                format!("view {i} of {n}"),
            );
        }
        let over = r.result.overlapping.contains(&i);
        if !overlapping.is_null() {
            *overlapping = i32::from(over);
        }
        if !for_all.is_null() {
            *for_all = match (r.result.invariant, over) {
                (Some(true), true) => SymaliasAnswer::SymaliasOverlap,
                (Some(true), false) => SymaliasAnswer::SymaliasDisjoint,
                _ => SymaliasAnswer::SymaliasUnknown,
            };
        }
        SymaliasStatus::SymaliasOk
    })
}

/// View `i` against itself: `*at_hints` whether two of its indices reach
/// one byte now, `*for_all` whether that holds for every allowed shape
/// (`SYMALIAS_UNKNOWN` when not proved).
#[no_mangle]
pub unsafe extern "C" fn symalias_result_self_overlap(
    result: *const SymaliasResult,
    i: usize,
    at_hints: *mut SymaliasAnswer,
    for_all: *mut SymaliasAnswer,
) -> SymaliasStatus {
    guarded(|| {
        let Some(r) = result.as_ref() else {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                "result: null handle",
            );
        };
        let n = r.result.overlapping.len() + r.result.non_overlapping.len();
        if i >= n {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                format!("view {i} of {n}"),
            );
        }
        // Listed: overlaps itself at the hints, or not proved either way; a
        // view not listed overlaps itself at no allowed shape.
        let (hints, all) = match r.result.self_overlap.iter().find(|s| s.tensor == i) {
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
                let proved = matches!(s.proof, symalias::Proof::Proved);
                (
                    hints,
                    if proved {
                        hints
                    } else {
                        SymaliasAnswer::SymaliasUnknown
                    },
                )
            }
        };
        if !at_hints.is_null() {
            *at_hints = hints;
        }
        if !for_all.is_null() {
            *for_all = all;
        }
        SymaliasStatus::SymaliasOk
    })
}

/// The number of guards that keep the result true at run time.
#[no_mangle]
pub unsafe extern "C" fn symalias_result_guard_count(result: *const SymaliasResult) -> usize {
    result.as_ref().map_or(0, |r| r.guards.len())
}

/// Guard `i` as FORMATS §4 JSON (owned by the result), or null past the end.
#[no_mangle]
pub unsafe extern "C" fn symalias_result_guard(
    result: *const SymaliasResult,
    i: usize,
) -> *const c_char {
    result
        .as_ref()
        .and_then(|r| r.guards.get(i))
        .map_or(std::ptr::null(), |g| g.as_ptr())
}

/// A subset of a buffer in MLIR's terms (`tensor.extract_slice` /
/// `insert_slice`, `memref.subview`): per dimension an offset, a size and a
/// stride, in elements of the buffer's own dimensions; each an expression
/// (text) over the case's symbols.
#[repr(C)]
pub struct SymaliasSubset {
    /// The number of dimensions (the buffer's rank).
    pub rank: usize,
    /// `rank` offsets.
    pub offsets: *const *const c_char,
    /// `rank` sizes.
    pub sizes: *const *const c_char,
    /// `rank` strides (1: every element).
    pub strides: *const *const c_char,
}

unsafe fn subset_view(
    s: &SymaliasSubset,
    buffer_strides: &[String],
    what: &str,
) -> Result<(Vec<String>, Vec<String>, String), SymaliasStatus> {
    if s.rank != buffer_strides.len() {
        return Err(fail(
            SymaliasStatus::SymaliasInvalidArgument,
            format!(
                "{what}.rank: {} for a buffer of rank {}",
                s.rank,
                buffer_strides.len()
            ),
        ));
    }
    if s.rank > 0 && (s.offsets.is_null() || s.sizes.is_null() || s.strides.is_null()) {
        return Err(fail(
            SymaliasStatus::SymaliasInvalidArgument,
            format!("{what}: null offsets, sizes or strides"),
        ));
    }
    let mut sizes = Vec::with_capacity(s.rank);
    let mut strides = Vec::with_capacity(s.rank);
    let mut offset = Vec::with_capacity(s.rank);
    for (d, b) in buffer_strides.iter().enumerate() {
        let o = text(*s.offsets.add(d), || format!("{what}.offsets[{d}]"))?;
        sizes.push(text(*s.sizes.add(d), || format!("{what}.sizes[{d}]"))?.to_string());
        let st = text(*s.strides.add(d), || format!("{what}.strides[{d}]"))?;
        strides.push(format!("({st})*({b})"));
        offset.push(format!("({o})*({b})"));
    }
    let offset = if offset.is_empty() {
        "0".to_string()
    } else {
        offset.join(" + ")
    };
    Ok((sizes, strides, offset))
}

/// MLIR's bufferization question for one buffer: does an in-place write to
/// subset `write` conflict with a read of subset `read`? The buffer's
/// layout is `buffer_strides` (`rank` expressions, in elements; row-major
/// `[d1*d2, d2, 1]` for a dense `d0 × d1 × d2`), its element `itemsize`
/// bytes; the symbols and assumptions are `env`'s (its views are not used).
/// `*out`: `SYMALIAS_DISJOINT` (no conflict: disjoint for every allowed
/// shape), `SYMALIAS_OVERLAP` (a conflict: they share an element at the
/// hints and for every allowed shape), `SYMALIAS_UNKNOWN` (shared at some
/// shapes only, or not decided within `time_limit_ms`: treat as a
/// conflict).
#[no_mangle]
pub unsafe extern "C" fn symalias_subset_conflict(
    env: *const SymaliasCase,
    rank: usize,
    buffer_strides: *const *const c_char,
    itemsize: i64,
    write: *const SymaliasSubset,
    read: *const SymaliasSubset,
    time_limit_ms: u64,
    out: *mut SymaliasAnswer,
) -> SymaliasStatus {
    guarded(|| {
        let (Some(env), Some(write), Some(read), false) =
            (env.as_ref(), write.as_ref(), read.as_ref(), out.is_null())
        else {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                "env, write, read or out: null pointer",
            );
        };
        if rank > 0 && buffer_strides.is_null() {
            return fail(
                SymaliasStatus::SymaliasInvalidArgument,
                "buffer_strides: null",
            );
        }
        let strides: Result<Vec<String>, SymaliasStatus> = (0..rank)
            .map(|d| {
                text(*buffer_strides.add(d), || format!("buffer_strides[{d}]")).map(str::to_string)
            })
            .collect();
        let strides = match strides {
            Ok(s) => s,
            Err(s) => return s,
        };
        let mut case = SymaliasCase {
            case: OverlapCase {
                tensors: Vec::new(),
                ..env.case.clone()
            },
        };
        for (s, what) in [(write, "write"), (read, "read")] {
            match subset_view(s, &strides, what) {
                Ok((sizes, strides, offset)) => case.case.tensors.push(TensorSpec {
                    source: Some(what.to_string()),
                    sizes: sizes.into_iter().map(ExprField::Text).collect(),
                    strides: strides.into_iter().map(ExprField::Text).collect(),
                    storage_offset: ExprField::Text(offset),
                    itemsize,
                }),
                Err(status) => return status,
            }
        }
        let mut result: *mut SymaliasResult = std::ptr::null_mut();
        let status = symalias_case_overlap(&case, time_limit_ms, &mut result);
        if status != SymaliasStatus::SymaliasOk {
            return status;
        }
        let (mut hints, mut all) = (
            SymaliasAnswer::SymaliasUnknown,
            SymaliasAnswer::SymaliasUnknown,
        );
        let status = symalias_result_pair(result, 0, 1, &mut hints, &mut all, std::ptr::null_mut());
        symalias_result_free(result);
        if status != SymaliasStatus::SymaliasOk {
            return status;
        }
        *out = all;
        SymaliasStatus::SymaliasOk
    })
}
