//! `symalias._native`: the thin PyO3 layer under the `symalias` Python package.
//!
//! The document entry points take the FORMATS.md documents (JSON text, or the
//! same document as Python objects, converted natively) and return typed
//! result objects built natively from the engine's result documents
//! (`results`: `OverlapResult`, `ProgramResult`, `SimplifyResult`,
//! `Outcome`); the Python package (`python/symalias/`) builds the documents
//! from typed arguments and re-exports the result classes. Concrete tensors
//! take the native road instead (`tensors`): layouts read in Rust, no
//! documents.
//! Bad input raises `symalias.InputError` (a `ValueError`) carrying the same
//! located message as the CLI, without the line number. Every analysis runs
//! with the GIL released, with at least 4 MB of stack left (else on a
//! segment of the CLI's 64 MB; the parser's depth limits bound recursion),
//! and under the time bound it is given.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::collections::BTreeMap;
use std::time::Duration;
use symalias::analysis::{Analyzer, AnalyzerOptions};
use symalias::io::{
    load_env, load_expr, prepare_guards, run_overlap_case, run_program, ExprCase, GuardDoc,
    InputError as EngineInputError, OutcomeDoc, OverlapCase, ProgramDoc,
};
use symalias::simplify::{simplify as engine_simplify, Limits, SimplifyOptions};
use symalias::Call;

mod arrays;
mod check_kinds;
mod checks;
mod decide;
mod document;
mod error;
mod reader;
mod results;
mod symints;
mod tensors;

use results::{PyOutcome, PyOverlapResult, PyProgramResult, PySimplifyResult};

/// Stack an analysis runs on (the CLI's batch workers' size), mapped lazily.
const ANALYSIS_STACK: usize = 64 << 20;

/// Stack an analysis may need on the calling thread's own stack: with less
/// left, it runs on a fresh [`ANALYSIS_STACK`] segment.
const ANALYSIS_RED_ZONE: usize = 4 << 20;

/// Runs `f` with the GIL released, on the calling thread: on its own stack
/// when [`ANALYSIS_RED_ZONE`] bytes of it are left (a Python main thread's
/// 8 MB stack has them), else on a segment of its own of [`ANALYSIS_STACK`]
/// bytes (`stacker::maybe_grow`), so that a Python thread's small stack
/// never bounds an analysis (the parser grows its own stack past its depth
/// bound either way); a panic in `f` is reported as a `RuntimeError`. (It
/// ran on reused worker threads before: two thread wake-ups per call cost
/// 65–70 µs here; then on a fresh segment per call, whose `mmap`, page
/// faults and `munmap` cost 12 µs of a 24 µs two-view decision.)
fn on_large_stack<R: Send>(py: Python<'_>, f: impl FnOnce() -> R + Send) -> PyResult<R> {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            stacker::maybe_grow(ANALYSIS_RED_ZONE, ANALYSIS_STACK, f)
        }))
        .map_err(|p| {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            format!("internal error in symalias (please report): {what}")
        })
    })
    .map_err(PyRuntimeError::new_err)
}

fn input_error(e: EngineInputError) -> PyErr {
    error::located(e)
}

/// One FORMATS document (JSON text, or Python objects: `document::read`,
/// the one road) through the engine: converted on a large stack, answered
/// by `answer` with the GIL released; an error carries the document's id
/// and no line number (a Python call has no lines).
fn answer_document<T: serde::de::DeserializeOwned + Send, R: Send>(
    py: Python<'_>,
    doc: &Bound<'_, PyAny>,
    answer: impl FnOnce(T) -> Result<R, EngineInputError> + Send,
) -> PyResult<R> {
    let read = stacker::maybe_grow(ANALYSIS_RED_ZONE, ANALYSIS_STACK, || {
        document::read::<T>(doc)
    });
    let id = read.id;
    let value = read.value.map_err(input_error)?;
    on_large_stack(py, move || {
        answer(value).map_err(|mut e| {
            e.id = e.id.or(id);
            e.line = None;
            e
        })
    })?
    .map_err(input_error)
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("result documents serialise")
}

fn time_limit(ms: Option<u64>, default: Duration) -> Duration {
    ms.map(Duration::from_millis).unwrap_or(default)
}

/// Answers one overlap case (FORMATS.md §3: JSON text, or the document as
/// Python objects — a dict of lists, strings and ints — converted natively):
/// the exact classification at the hints, and for symbolic cases whether it
/// is proved for all shapes, with the guards that keep it true.
#[pyfunction]
#[pyo3(signature = (case, *, prove = true, simplify = true, time_limit_ms = None, budget = None, max_listed_pairs = None, layouts_pinned = false))]
#[allow(clippy::too_many_arguments)]
fn overlap(
    py: Python<'_>,
    case: &Bound<'_, PyAny>,
    prove: bool,
    simplify: bool,
    time_limit_ms: Option<u64>,
    budget: Option<u64>,
    max_listed_pairs: Option<usize>,
    layouts_pinned: bool,
) -> PyResult<PyOverlapResult> {
    let mut opts = analyzer_options(prove, simplify, time_limit_ms, budget, max_listed_pairs);
    opts.guards.layouts_pinned = layouts_pinned;
    let (doc, case) = answer_document(py, case, move |case: OverlapCase| {
        run_overlap_case(&case, &mut Analyzer::new(opts), false).map(|doc| (doc, case))
    })?;
    PyOverlapResult::of_case(doc, case)
}

/// The analyzer's options from the binding's keyword arguments.
fn analyzer_options(
    prove: bool,
    simplify: bool,
    time_limit_ms: Option<u64>,
    budget: Option<u64>,
    max_listed_pairs: Option<usize>,
) -> AnalyzerOptions {
    let mut opts = AnalyzerOptions {
        prove,
        ..AnalyzerOptions::default()
    };
    if !simplify {
        opts.simplify = None;
    }
    opts.proof.time_limit = time_limit(time_limit_ms, opts.proof.time_limit);
    if let Some(b) = budget {
        opts.budget = b;
        opts.proof.budget = b;
    }
    if let Some(m) = max_listed_pairs {
        opts.max_listed_pairs = m;
    }
    opts
}

/// Analyses one program (FORMATS.md §5: JSON text or Python objects): its
/// result.
#[pyfunction]
#[pyo3(signature = (program, *, time_limit_ms = None, max_intermediate_bases = None))]
fn analyze(
    py: Python<'_>,
    program: &Bound<'_, PyAny>,
    time_limit_ms: Option<u64>,
    max_intermediate_bases: Option<usize>,
) -> PyResult<PyProgramResult> {
    let doc = answer_document(py, program, move |doc: ProgramDoc| {
        let mut opts = AnalyzerOptions::default();
        opts.proof.time_limit = time_limit(time_limit_ms, opts.proof.time_limit);
        if let Some(m) = max_intermediate_bases {
            opts.max_intermediate_bases = m;
        }
        run_program(&doc, &mut Analyzer::new(opts)).map(|r| (doc, r))
    })?;
    PyProgramResult::of_program(doc.0, doc.1)
}

/// Simplifies one expression case (FORMATS.md §4: JSON text or Python
/// objects): the expression, its sizes and the rewriting's stop reason.
#[pyfunction]
#[pyo3(signature = (case, *, time_limit_ms = None))]
fn simplify(
    py: Python<'_>,
    case: &Bound<'_, PyAny>,
    time_limit_ms: Option<u64>,
) -> PyResult<PySimplifyResult> {
    let start = std::time::Instant::now();
    answer_document(py, case, move |case: ExprCase| {
        let mut scope = load_env(&case.symbols, &case.assumptions)?;
        let e = load_expr(&mut scope, "expr", &case.expr, false)?;
        let opts = SimplifyOptions {
            limits: Limits {
                time: time_limit(time_limit_ms, Limits::default().time),
                ..Limits::default()
            },
            explain: false,
        };
        let s = engine_simplify(&mut scope.pool, &scope.env, e, &opts);
        Ok(PySimplifyResult {
            id: case.id,
            expr: scope.pool.display(s.expr).to_string(),
            size_in: s.size_in,
            size_out: s.size_out,
            stop: s.stop.to_string(),
            micros: start.elapsed().as_micros() as u64,
        })
    })
}

/// Parses an expression and prints it in the engine's canonical form.
#[pyfunction]
fn parse(py: Python<'_>, expr: String) -> PyResult<String> {
    on_large_stack(py, move || {
        let mut pool = symalias::ExprPool::new();
        symalias::parse(&mut pool, &expr)
            .map(|e| pool.display(e).to_string())
            .map_err(|e| e.to_string())
    })?
    .map_err(error::plain)
}

/// The text of each guard of a result's `guards` (Python objects), in
/// PyTorch's form (`check_overlapping(...)`, `L['a'] is L['b']`, the shape
/// expression with each symbol of `symbols` printed as its source): the
/// engine's one renderer (`GuardKind::render`).
#[pyfunction]
#[pyo3(signature = (guards, symbols = None))]
fn render_guards(
    guards: &Bound<'_, PyAny>,
    symbols: Option<BTreeMap<String, String>>,
) -> PyResult<Vec<String>> {
    let docs: Vec<GuardDoc> = document::read(guards)
        .value
        .map_err(|e| error::at_field("guards", e))?;
    let mut pool = symalias::ExprPool::new();
    let guards = symalias::io::load_guards(&mut pool, &docs).map_err(input_error)?;
    let symbols = symbols.unwrap_or_default();
    Ok(guards
        .iter()
        .map(|g| g.kind.render(&pool, &symbols))
        .collect())
}

/// A guard list prepared once for checking many calls (FORMATS.md §6).
#[pyclass(module = "symalias._native", name = "GuardSet", frozen)]
struct PyGuardSet {
    set: symalias::GuardSet,
    count: usize,
}

#[pymethods]
impl PyGuardSet {
    /// Prepares the `guards` (and `symbols`: name → source) of a result: an
    /// `OverlapResult` or `ProgramResult`, or a result document as JSON text
    /// or as Python objects (converted natively).
    #[new]
    fn new(result: &Bound<'_, PyAny>) -> PyResult<Self> {
        #[derive(serde::Deserialize)]
        struct Doc {
            guards: Vec<GuardDoc>,
            #[serde(default)]
            symbols: Option<BTreeMap<String, String>>,
        }
        let prepare = |guards: &[GuardDoc], symbols: &BTreeMap<String, String>| {
            let set = prepare_guards(guards, symbols).map_err(input_error)?;
            Ok(PyGuardSet {
                set,
                count: guards.len(),
            })
        };
        if let Ok(r) = result.cast::<PyOverlapResult>() {
            let doc = r.get().doc();
            return prepare(&doc.guards, &doc.symbols);
        }
        if let Ok(r) = result.cast::<PyProgramResult>() {
            let (guards, symbols) = r.get().guard_docs();
            return prepare(guards, symbols);
        }
        let doc: Doc = document::read(result)
            .value
            .map_err(|e| error::at_field("result", e))?;
        prepare(&doc.guards, &doc.symbols.unwrap_or_default())
    }

    /// Checks the guards on one call (FORMATS.md §6: JSON text, or
    /// `{"inputs": [...]}` as Python objects, converted natively): pass, or
    /// the first failing guard and why.
    fn check(&self, py: Python<'_>, call: &Bound<'_, PyAny>) -> PyResult<PyOutcome> {
        let typed: Call = document::read(call)
            .value
            .map_err(|e| error::at_field("call", e))?;
        let outcome = py
            .detach(|| self.set.check(&typed))
            .map_err(|e| error::at_field("call", e))?;
        Ok(PyOutcome::from(OutcomeDoc::from(&outcome)))
    }

    fn __len__(&self) -> usize {
        self.count
    }
}

/// The `symalias` command line (the Rust CLI, in the wheel) on `argv`, the
/// program's name first; returns its exit code. It runs with the GIL
/// released and writes to the process's own stdout and stderr.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| {
        let code = symalias::cli::run(argv);
        use std::io::Write;
        let _ = std::io::stdout().flush();
        code
    })
}

/// The `symalias._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    error::add_python_errors(m)?;
    let errors = [
        (
            "UnbackedSymbolError",
            py.get_type::<error::UnbackedSymbolError>(),
        ),
        (
            "DifferentStoragesError",
            py.get_type::<error::DifferentStoragesError>(),
        ),
    ];
    for (name, ty) in errors {
        m.add(name, ty)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("z3_version", symalias::z3_version())?;
    m.add_function(wrap_pyfunction!(overlap, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(render_guards, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(simplify, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(tensors::overlapping_tensors, m)?)?;
    m.add_function(wrap_pyfunction!(arrays::shares_memory, m)?)?;
    m.add_function(wrap_pyfunction!(arrays::may_share_memory, m)?)?;
    m.add_function(wrap_pyfunction!(arrays::array_internal_overlap, m)?)?;
    m.add_class::<PyGuardSet>()?;
    m.add_class::<PyOverlapResult>()?;
    m.add_class::<PyProgramResult>()?;
    m.add_class::<PySimplifyResult>()?;
    m.add_class::<PyOutcome>()?;
    m.add_class::<results::PyPair>()?;
    m.add_class::<results::PySelfOverlap>()?;
    m.add_class::<results::PyWitness>()?;
    m.add_class::<results::PyGuard>()?;
    m.add_function(wrap_pyfunction!(results::restore, m)?)?;
    m.add_class::<checks::PyFrameCheck>()?;
    check_kinds::register(m)?;
    m.add_class::<decide::PyDecision>()?;
    m.add_function(wrap_pyfunction!(decide::decide, m)?)?;
    m.add_function(wrap_pyfunction!(decide::overlapping_for_all_shapes, m)?)?;
    m.add_function(wrap_pyfunction!(checks::check_counters, m)?)?;
    m.add_function(wrap_pyfunction!(checks::tensor_counters, m)?)?;
    m.add_function(wrap_pyfunction!(reader::reader_enable, m)?)?;
    m.add_function(wrap_pyfunction!(reader::reader_disable, m)?)?;
    m.add_function(wrap_pyfunction!(reader::reader_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(checks::reset_check_counters, m)?)?;
    Ok(())
}
