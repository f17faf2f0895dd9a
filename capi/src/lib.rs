//! The C ABI of symalias (issue 52, first cut): a case of strided views of
//! one buffer, built through opaque handles, answered exactly at the hints
//! and for all allowed shapes.
//!
//! The ABI is an edge like the CLI's JSON, and reaches the engine by the
//! same typed road (`io::analyze_views`, as the CLI's cases and Python's
//! `decide` do): a case built here is symbols, assumptions and views held
//! as typed fields -- no document is written or parsed -- loaded and
//! validated as a FORMATS §3 case is (errors name the input and the field),
//! and answered from the engine's typed report.
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
use std::sync::OnceLock;

use std::collections::BTreeMap;

use symalias::analysis::{Analyzer, AnalyzerOptions, OverlapReport};
use symalias::guards::check::{Call, CallTensor, GuardSet};
use symalias::io::{
    analyze_views, check_text_total, guard_json, load_env, text_bytes, ExprField, SymbolSpec,
};
use symalias::layout::View;
use symalias::ExprPool;

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
    /// The query's time limit passed with some answer still undecided. The
    /// answer is still written (a result handle is the caller's, to be
    /// freed as on success): what was decided holds, the rest is
    /// `SYMALIAS_UNKNOWN` kept by the result's guards. The message names the
    /// limit and what is undecided.
    SymaliasTimeLimit = 4,
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

/// A case under construction: symbols, assumptions, views (typed fields:
/// no document is written or parsed).
#[derive(Default)]
pub struct SymaliasCase {
    symbols: BTreeMap<String, SymbolSpec>,
    assumptions: Vec<String>,
    views: Vec<CaseView>,
}

/// One view of a case: its source (its name in guards) and its layout
/// fields (sizes, strides and offset in elements; itemsize in bytes).
struct CaseView {
    source: String,
    sizes: Vec<ExprField>,
    strides: Vec<ExprField>,
    offset: ExprField,
    itemsize: i64,
}

/// The answer to a case: the engine's typed report. Its listed pairs and
/// its overlapping views are kept sorted, so the accessors look them up by
/// binary search.
pub struct SymaliasResult {
    report: OverlapReport,
    /// The number of views.
    views: usize,
    guards: Vec<CString>,
    /// The pool the report's guards live in, and the symbols' sources:
    /// what the guards are prepared from.
    pool: ExprPool,
    sources: BTreeMap<String, String>,
    /// The guards prepared for checking calls, on the first
    /// `symalias_result_check` (a query that is never checked pays nothing).
    check: OnceLock<Result<GuardSet, String>>,
    /// The time limit passed with something undecided: its message.
    timed_out: Option<String>,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Keeps `message` as this thread's last error; returns `status`.
fn fail(status: SymaliasStatus, message: impl Into<String>) -> SymaliasStatus {
    let text = symalias::io::cap_message(&message.into()).replace('\0', " ");
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(text).unwrap_or_default());
    status
}

fn invalid(message: impl Into<String>) -> SymaliasStatus {
    fail(SymaliasStatus::SymaliasInvalidArgument, message)
}

type Outcome = Result<(), SymaliasStatus>;

/// Runs a call's body: its error is its status; a panic is
/// `SYMALIAS_INTERNAL_ERROR`.
fn guarded(f: impl FnOnce() -> Outcome) -> SymaliasStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            // A success leaves no error behind: `symalias_last_error` is
            // about this thread's last call, or empty.
            LAST_ERROR.with(|e| {
                let mut e = e.borrow_mut();
                if !e.as_bytes().is_empty() {
                    *e = CString::default();
                }
            });
            SymaliasStatus::SymaliasOk
        }
        Ok(Err(status)) => status,
        Err(_) => fail(
            SymaliasStatus::SymaliasInternalError,
            "symalias: internal error (caught panic)",
        ),
    }
}

/// The handle behind `p`, or an error naming `what`.
unsafe fn handle<'a, T>(p: *const T, what: &str) -> Result<&'a T, SymaliasStatus> {
    p.as_ref()
        .ok_or_else(|| invalid(format!("{what}: null handle")))
}

/// Writes `value` where `p` points, unless `p` is null (an answer the
/// caller did not ask for).
unsafe fn put<T>(p: *mut T, value: T) {
    if let Some(slot) = p.as_mut() {
        *slot = value;
    }
}

/// The UTF-8 text at `p`; `what` names the field in the error (made only
/// on an error: the calls that succeed allocate nothing for it).
unsafe fn text<'a, W: std::fmt::Display>(
    p: *const c_char,
    what: impl FnOnce() -> W,
) -> Result<&'a str, SymaliasStatus> {
    if p.is_null() {
        return Err(invalid(format!("{}: null string", what())));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| invalid(format!("{}: not UTF-8", what())))
}

/// `n` strings from an array, string `d` made into a `T` by `make(d, _)`;
/// `what(d)` names it in an error.
unsafe fn texts<T>(
    p: *const *const c_char,
    n: usize,
    what: &dyn Fn(usize) -> String,
    make: impl Fn(usize, &str) -> T,
) -> Result<Vec<T>, SymaliasStatus> {
    if n > 0 && p.is_null() {
        return Err(invalid(format!("{}: null array", what(0))));
    }
    (0..n)
        .map(|d| text(*p.add(d), || what(d)).map(|t| make(d, t)))
        .collect()
}

/// An expression field from text (string `_d` of an array: see `texts`).
fn expr(_d: usize, t: &str) -> ExprField {
    ExprField::Text(t.to_string())
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
    Box::into_raw(Box::new(SymaliasCase::default()))
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
        let case = case.as_mut().ok_or_else(|| invalid("case: null handle"))?;
        let name = text(name, || "name")?;
        let spec = SymbolSpec {
            hint: Some(hint),
            min: Some(min),
            max: (max != i64::MAX).then_some(max),
            source: Some(format!("C['{name}']")),
        };
        case.symbols.insert(name.to_string(), spec);
        Ok(())
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
        let case = case.as_mut().ok_or_else(|| invalid("case: null handle"))?;
        let assumption = text(assumption, || "assumption")?;
        case.assumptions.push(assumption.to_string());
        Ok(())
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
        let case = case.as_mut().ok_or_else(|| invalid("case: null handle"))?;
        let k = case.views.len();
        let sizes = texts(sizes, ndim, &|d| format!("views[{k}].sizes[{d}]"), expr)?;
        let strides = texts(strides, ndim, &|d| format!("views[{k}].strides[{d}]"), expr)?;
        let source = text(source, || format!("views[{k}].source"))?;
        let offset = text(offset, || format!("views[{k}].offset"))?;
        case.views.push(CaseView {
            source: source.to_string(),
            sizes,
            strides,
            offset: expr(0, offset),
            itemsize,
        });
        Ok(())
    })
}

/// What a report leaves undecided, named (`None`: everything decided).
fn undecided(r: &OverlapReport) -> Option<String> {
    if let Some(p) = r.pairs.iter().find(|p| p.overlap && p.witness.is_none()) {
        return Some(format!("views {} and {} at the hints", p.a, p.b));
    }
    if let Some(s) = r
        .self_overlap
        .iter()
        .find(|s| s.proof == symalias::Proof::Unknown)
    {
        return Some(format!("view {} against itself", s.member));
    }
    r.invariance
        .as_option()
        .is_none()
        .then(|| "the partition for all shapes".to_string())
}

impl SymaliasCase {
    /// The case's expression text in bytes (held to the engine's limit).
    fn text_bytes(&self) -> usize {
        let fields = self
            .views
            .iter()
            .flat_map(|v| v.sizes.iter().chain(&v.strides).chain([&v.offset]));
        text_bytes(fields, &self.assumptions)
    }
}

impl SymaliasResult {
    /// Answers `case` within `time_limit_ms` (0: the default): loaded and
    /// analysed by the engine's typed road (`io::analyze_views`).
    fn of(case: &SymaliasCase, time_limit_ms: u64) -> Result<SymaliasResult, SymaliasStatus> {
        let mut options = AnalyzerOptions::default();
        if time_limit_ms > 0 {
            options.proof.time_limit = std::time::Duration::from_millis(time_limit_ms);
        }
        let limit = options.proof.time_limit;
        let input =
            |e: symalias::io::InputError| fail(SymaliasStatus::SymaliasInputError, e.to_string());
        check_text_total(case.text_bytes()).map_err(input)?;
        let mut scope = load_env(&case.symbols, &case.assumptions).map_err(input)?;
        let views: Vec<_> = case
            .views
            .iter()
            .map(|v| {
                (
                    v.source.as_str(),
                    (&v.sizes[..], &v.strides[..], &v.offset, v.itemsize),
                )
            })
            .collect();
        let mut report =
            analyze_views(&mut Analyzer::new(options), &mut scope, "c", &views).map_err(input)?;
        // The engine's own word that the clock (not a work bound) stopped
        // some of the work: then, and only then, the answer may depend on
        // the machine.
        let timed_out = report
            .time_limit_hit
            .then(|| undecided(&report))
            .flatten()
            .map(|what| {
                format!(
                    "time limit of {} ms passed: {what} undecided",
                    limit.as_millis()
                )
            });
        let guards = report
            .guards
            .iter()
            .map(|g| CString::new(guard_json(&scope.pool, g)).unwrap_or_default())
            .collect();
        let sources: BTreeMap<String, String> = case
            .symbols
            .iter()
            .filter_map(|(name, s)| s.source.clone().map(|src| (name.clone(), src)))
            .collect();
        report.pairs.sort_unstable_by_key(|p| (p.a, p.b));
        report.overlapping.sort_unstable();
        let views = report.overlapping.len() + report.non_overlapping.len();
        Ok(SymaliasResult {
            report,
            views,
            guards,
            pool: scope.pool,
            sources,
            check: OnceLock::new(),
            timed_out,
        })
    }

    /// `Err(SYMALIAS_TIME_LIMIT)` when the limit passed with something
    /// undecided (after the answer is written), else `Ok`.
    fn deadline(&self) -> Outcome {
        match &self.timed_out {
            Some(message) => Err(fail(SymaliasStatus::SymaliasTimeLimit, message.clone())),
            None => Ok(()),
        }
    }

    fn overlaps(&self, i: usize) -> bool {
        self.report.overlapping.binary_search(&i).is_ok()
    }

    /// `i` when it names a view, else an error.
    fn view(&self, i: usize) -> Result<usize, SymaliasStatus> {
        let n = self.views;
        (i < n)
            .then_some(i)
            .ok_or_else(|| invalid(format!("view {i} of {n}")))
    }

    /// Whether the hints' partition is proved for every allowed shape:
    /// `at_hints` then holds for all, else it is unknown.
    fn for_all(&self, at_hints: SymaliasAnswer) -> SymaliasAnswer {
        if self.report.invariance.as_option() == Some(true) {
            at_hints
        } else {
            SymaliasAnswer::SymaliasUnknown
        }
    }

    /// Views `a` and `b` at the hints, and the witness byte when they
    /// overlap.
    fn pair(&self, a: usize, b: usize) -> Result<(SymaliasAnswer, Option<i64>), SymaliasStatus> {
        let n = self.views;
        if a >= n || b >= n || a == b {
            return Err(invalid(format!("pair ({a}, {b}) of {n} views")));
        }
        let key = (a.min(b), a.max(b));
        let Ok(k) = self.report.pairs.binary_search_by_key(&key, |p| (p.a, p.b)) else {
            // An unlisted pair is disjoint, except past the listing cap:
            // pairs inside a component already connected were not decided
            // (FORMATS §3 `pairs_left_out`), so two overlapping views' pair
            // is unknown.
            let left_out = self.report.pairs_left_out > 0 && self.overlaps(a) && self.overlaps(b);
            let answer = if left_out {
                SymaliasAnswer::SymaliasUnknown
            } else {
                SymaliasAnswer::SymaliasDisjoint
            };
            return Ok((answer, None));
        };
        let p = &self.report.pairs[k];
        Ok(match (&p.witness, p.overlap) {
            (Some(w), true) => (SymaliasAnswer::SymaliasOverlap, Some(w.address)),
            // Listed (its proof is open) but apart at the hints, as
            // `symalias_result_view` says.
            (_, false) => (SymaliasAnswer::SymaliasDisjoint, None),
            (None, true) => (SymaliasAnswer::SymaliasUnknown, None),
        })
    }
}

/// Decides which views overlap, at the hints and for all allowed shapes,
/// within `time_limit_ms` (0: the default, 2 s). On success, and on
/// `SYMALIAS_TIME_LIMIT`, `*out` is the caller's (free with
/// `symalias_result_free`).
#[no_mangle]
pub unsafe extern "C" fn symalias_case_overlap(
    case: *const SymaliasCase,
    time_limit_ms: u64,
    out: *mut *mut SymaliasResult,
) -> SymaliasStatus {
    guarded(|| {
        let case = handle(case, "case")?;
        if out.is_null() {
            return Err(invalid("out: null pointer"));
        }
        let result = Box::new(SymaliasResult::of(case, time_limit_ms)?);
        let outcome = result.deadline();
        *out = Box::into_raw(result);
        outcome
    })
}

/// Frees a result (null: nothing).
#[no_mangle]
pub unsafe extern "C" fn symalias_result_free(result: *mut SymaliasResult) {
    if !result.is_null() {
        drop(Box::from_raw(result));
    }
}

/// Views `a` and `b`: `*at_hints` their answer at the hints (with the
/// shared byte in `*address` when they overlap), and `*for_all` whether
/// that answer holds for every allowed shape (`SYMALIAS_DISJOINT`/`OVERLAP`
/// when proved so, `UNKNOWN` otherwise: then the result's guards keep it).
/// A null out pointer is an answer not asked for.
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
        let r = handle(result, "result")?;
        let (hints, witness) = r.pair(a, b)?;
        put(at_hints, hints);
        put(for_all, r.for_all(hints));
        if let Some(w) = witness {
            put(address, w);
        }
        Ok(())
    })
}

/// The number of views of the case.
#[no_mangle]
pub unsafe extern "C" fn symalias_result_view_count(result: *const SymaliasResult) -> usize {
    result.as_ref().map_or(0, |r| r.views)
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
        let r = handle(result, "result")?;
        let over = r.overlaps(r.view(i)?);
        put(overlapping, i32::from(over));
        let side = if over {
            SymaliasAnswer::SymaliasOverlap
        } else {
            SymaliasAnswer::SymaliasDisjoint
        };
        put(for_all, r.for_all(side));
        Ok(())
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
        let r = handle(result, "result")?;
        let i = r.view(i)?;
        // Listed: overlaps itself at the hints, or not proved either way; a
        // view not listed overlaps itself at no allowed shape.
        let (hints, all) = match r.report.self_overlap.iter().find(|s| s.member == i) {
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
        put(at_hints, hints);
        put(for_all, all);
        Ok(())
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

/// The view a subset is of a buffer with `buffer_strides`: sizes as given,
/// strides scaled by the buffer's, the offsets' dot product with them.
unsafe fn subset_view(
    s: &SymaliasSubset,
    buffer_strides: &[String],
    itemsize: i64,
    what: &str,
) -> Result<CaseView, SymaliasStatus> {
    let rank = buffer_strides.len();
    if s.rank != rank {
        return Err(invalid(format!(
            "{what}.rank: {} for a buffer of rank {rank}",
            s.rank
        )));
    }
    // Each term scaled by its dimension's buffer stride: pasted into one
    // expression only once each piece is an expression on its own (else
    // `0)*(0) + (100` would close the parenthesis it is put in).
    for (d, s) in buffer_strides.iter().enumerate() {
        whole_expr(s, &format!("buffer_strides[{d}]"))?;
    }
    let pieces = |p, part: &str| -> Result<Vec<String>, SymaliasStatus> {
        let xs = texts(p, rank, &|d| format!("{what}.{part}[{d}]"), |_, x| {
            x.to_string()
        })?;
        for (d, x) in xs.iter().enumerate() {
            whole_expr(x, &format!("{what}.{part}[{d}]"))?;
        }
        Ok(xs)
    };
    let scaled = |p, part: &str| -> Result<Vec<String>, SymaliasStatus> {
        Ok(pieces(p, part)?
            .iter()
            .enumerate()
            .map(|(d, x)| format!("({x})*({})", buffer_strides[d]))
            .collect())
    };
    let offsets = scaled(s.offsets, "offsets")?;
    let sizes = texts(s.sizes, rank, &|d| format!("{what}.sizes[{d}]"), expr)?;
    let strides = scaled(s.strides, "strides")?;
    let offset = offsets.join(" + ");
    Ok(CaseView {
        source: what.to_string(),
        sizes,
        strides: strides.into_iter().map(ExprField::Text).collect(),
        offset: ExprField::Text(if offset.is_empty() {
            "0".into()
        } else {
            offset
        }),
        itemsize,
    })
}

/// `text` parses as one expression on its own; else an input error naming
/// `what`.
fn whole_expr(text: &str, what: &str) -> Outcome {
    let mut pool = symalias::ExprPool::new();
    symalias::parse(&mut pool, text).map(|_| ()).map_err(|e| {
        fail(
            SymaliasStatus::SymaliasInputError,
            format!("{what}: `{}`: {e}", symalias::io::abbrev(text)),
        )
    })
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
/// conflict; past the limit the status is `SYMALIAS_TIME_LIMIT`, `*out`
/// still written).
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
        let env = handle(env, "env")?;
        let (write, read) = (handle(write, "write")?, handle(read, "read")?);
        if out.is_null() {
            return Err(invalid("out: null pointer"));
        }
        let strides = texts(
            buffer_strides,
            rank,
            &|d| format!("buffer_strides[{d}]"),
            |_, t| t.to_string(),
        )?;
        let case = SymaliasCase {
            views: vec![
                subset_view(write, &strides, itemsize, "write")?,
                subset_view(read, &strides, itemsize, "read")?,
            ],
            symbols: env.symbols.clone(),
            assumptions: env.assumptions.clone(),
        };
        let r = SymaliasResult::of(&case, time_limit_ms)?;
        let (hints, _) = r.pair(0, 1)?;
        *out = r.for_all(hints);
        r.deadline()
    })
}

/// A later call, to check a result's guards on (FORMATS §6): its inputs
/// by source, each a concrete tensor (object and storage identities, its
/// layout) or an integer value.
#[derive(Default)]
pub struct SymaliasCall {
    call: Call,
}

/// A new, empty call (free with `symalias_call_free`).
#[no_mangle]
pub extern "C" fn symalias_call_new() -> *mut SymaliasCall {
    Box::into_raw(Box::default())
}

/// Frees a call (null: nothing).
#[no_mangle]
pub unsafe extern "C" fn symalias_call_free(call: *mut SymaliasCall) {
    if !call.is_null() {
        drop(Box::from_raw(call));
    }
}

/// Adds a tensor input at `source`: `object` and `storage` name its
/// identities (equal strings: the same object, the same storage), `rank`
/// sizes and strides in elements, its storage offset in elements and its
/// itemsize in bytes. Checked when the call is: a negative field is an
/// input error then.
#[no_mangle]
pub unsafe extern "C" fn symalias_call_add_tensor(
    call: *mut SymaliasCall,
    source: *const c_char,
    object: *const c_char,
    storage: *const c_char,
    rank: usize,
    sizes: *const i64,
    strides: *const i64,
    storage_offset: i64,
    itemsize: i64,
) -> SymaliasStatus {
    guarded(|| {
        let call = call.as_mut().ok_or_else(|| invalid("call: null handle"))?;
        let source = text(source, || "source")?;
        let object = text(object, || "object")?;
        let storage = text(storage, || "storage")?;
        if rank > 0 && (sizes.is_null() || strides.is_null()) {
            return Err(invalid(format!(
                "{source}: null sizes or strides for rank {rank}"
            )));
        }
        if rank > 64 {
            return Err(invalid(format!("{source}: rank {rank} (at most 64)")));
        }
        let read = |p: *const i64| {
            if rank == 0 {
                Vec::new()
            } else {
                std::slice::from_raw_parts(p, rank).to_vec()
            }
        };
        let view = View {
            sizes: read(sizes),
            strides: read(strides),
            offset: storage_offset,
            itemsize,
        };
        let t = CallTensor::new(object, storage, view);
        call.call = std::mem::take(&mut call.call).tensor(source, t);
        Ok(())
    })
}

/// Adds an integer input at `source` (what a plain source such as `L['k']`
/// binds a symbol to).
#[no_mangle]
pub unsafe extern "C" fn symalias_call_add_value(
    call: *mut SymaliasCall,
    source: *const c_char,
    value: i64,
) -> SymaliasStatus {
    guarded(|| {
        let call = call.as_mut().ok_or_else(|| invalid("call: null handle"))?;
        let source = text(source, || "source")?;
        call.call = std::mem::take(&mut call.call).value(source, value);
        Ok(())
    })
}

/// Checks the result's guards on `call`: `*passed` is 1 when every guard
/// holds (the call's views overlap as the result says), else 0 with
/// `*failed` the index of the first failing guard (read it with
/// `symalias_result_guard`). The list stands alone: it pins the views'
/// layouts itself. A call that does not fit the guards (a source missing,
/// a negative size) is `SYMALIAS_INPUT_ERROR`, never a pass.
#[no_mangle]
pub unsafe extern "C" fn symalias_result_check(
    result: *const SymaliasResult,
    call: *const SymaliasCall,
    passed: *mut i32,
    failed: *mut usize,
) -> SymaliasStatus {
    guarded(|| {
        let r = handle(result, "result")?;
        let call = handle(call, "call")?;
        if passed.is_null() {
            return Err(invalid("passed: null pointer"));
        }
        let set = r
            .check
            .get_or_init(|| {
                GuardSet::prepare(&r.pool, &r.report.guards, &r.sources).map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| {
                fail(
                    SymaliasStatus::SymaliasInternalError,
                    format!("guards: {e}"),
                )
            })?;
        let outcome = set
            .check(&call.call)
            .map_err(|e| fail(SymaliasStatus::SymaliasInputError, format!("call: {e}")))?;
        put(passed, i32::from(outcome.passed()));
        if let Some(f) = outcome.failure() {
            put(failed, f.index);
        }
        Ok(())
    })
}
