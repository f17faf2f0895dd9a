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
//! with the GIL released, on a stack segment of the CLI's 64 MB (the
//! depth limits of the parser bound recursion; the large stack keeps the
//! margin the CLI has), and under the time bound it is given.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::collections::BTreeMap;
use std::time::Duration;
use symalias::analysis::{Analyzer, AnalyzerOptions};
use symalias::io::{
    load_env, load_expr, parse_line, prepare_guards, run_overlap_case, run_program, ExprCase,
    GuardDoc, InputError as EngineInputError, OutcomeDoc, OverlapCase, ProgramDoc,
};
use symalias::simplify::{simplify as engine_simplify, Limits, SimplifyOptions};
use symalias::Call;

mod checks;
mod decide;
mod error;
mod results;
mod tensors;

use results::{Outcome, OverlapResult, ProgramResult, SimplifyResult};

use error::InputError;

/// Stack an analysis runs on (the CLI's batch workers' size): a fresh
/// segment per call, mapped lazily (only the pages used are touched).
const ANALYSIS_STACK: usize = 64 << 20;

/// Runs `f` with the GIL released, on the calling thread but on a stack
/// segment of its own of [`ANALYSIS_STACK`] bytes (`stacker::grow`), so
/// that a Python thread's small stack never bounds an analysis; a panic in
/// `f` is reported as a `RuntimeError`. (It ran on reused worker threads
/// before: two thread wake-ups per call cost 65–70 µs here, the engine's
/// own answer to a two-view case about 20 µs.)
fn on_large_stack<R: Send>(py: Python<'_>, f: impl FnOnce() -> R + Send) -> PyResult<R> {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            stacker::grow(ANALYSIS_STACK, f)
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

/// One FORMATS document through the engine on a large stack: parsed into `T`
/// (errors located by field), answered by `answer`; an error carries the
/// document's id and no line number (a Python call has no lines).
fn answer_document<T: serde::de::DeserializeOwned, R: Send>(
    py: Python<'_>,
    text: String,
    answer: impl FnOnce(T) -> Result<R, EngineInputError> + Send,
) -> PyResult<R> {
    on_large_stack(py, move || {
        let parsed = parse_line::<T>(1, &text);
        let id = parsed.id;
        parsed.value.and_then(answer).map_err(|mut e| {
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
/// is proved for all shapes, with the guards that keep it true. A document
/// given as objects that does not convert is answered through the JSON
/// road, whose errors name the case and field.
#[pyfunction]
#[pyo3(signature = (case, *, prove = true, simplify = true, time_limit_ms = None, budget = None, max_listed_pairs = None))]
fn overlap(
    py: Python<'_>,
    case: &Bound<'_, PyAny>,
    prove: bool,
    simplify: bool,
    time_limit_ms: Option<u64>,
    budget: Option<u64>,
    max_listed_pairs: Option<usize>,
) -> PyResult<OverlapResult> {
    let opts = analyzer_options(prove, simplify, time_limit_ms, budget, max_listed_pairs);
    let answer = move |case: OverlapCase| run_overlap_case(&case, &mut Analyzer::new(opts), false);
    let typed: OverlapCase = match case.extract::<String>() {
        Ok(text) => return OverlapResult::new(answer_document(py, text, answer)?),
        Err(_) => match pythonize::depythonize(case) {
            Ok(c) => c,
            // The located error (or, rarely, an answer) of the JSON road.
            Err(_) => {
                let text = dumped(case, ("symalias", "_document"))?;
                return OverlapResult::new(answer_document(py, text, answer)?);
            }
        },
    };
    let id = typed.id.clone();
    let doc = on_large_stack(py, move || answer(typed))?.map_err(|mut e| {
        e.id = e.id.take().or(Some(id));
        e.line = None;
        input_error(e)
    })?;
    OverlapResult::new(doc)
}

/// A document given as Python objects that did not convert, as JSON text
/// (`dump`: module and function), for the JSON road whose errors name the
/// field.
fn dumped(doc: &Bound<'_, PyAny>, dump: (&str, &str)) -> PyResult<String> {
    doc.py()
        .import(dump.0)?
        .getattr(dump.1)?
        .call1((doc,))?
        .extract()
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

/// Analyses one program (FORMATS.md §5, one JSON document): its result.
#[pyfunction]
#[pyo3(signature = (program, *, time_limit_ms = None, max_intermediate_bases = None))]
fn analyze(
    py: Python<'_>,
    program: String,
    time_limit_ms: Option<u64>,
    max_intermediate_bases: Option<usize>,
) -> PyResult<ProgramResult> {
    let doc = answer_document(py, program, move |doc: ProgramDoc| {
        let mut opts = AnalyzerOptions::default();
        opts.proof.time_limit = time_limit(time_limit_ms, opts.proof.time_limit);
        if let Some(m) = max_intermediate_bases {
            opts.max_intermediate_bases = m;
        }
        run_program(&doc, &mut Analyzer::new(opts))
    })?;
    ProgramResult::new(doc)
}

/// Simplifies one expression case (FORMATS.md §4): the expression, its
/// sizes and the rewriting's stop reason.
#[pyfunction]
#[pyo3(signature = (case, *, time_limit_ms = None))]
fn simplify(py: Python<'_>, case: String, time_limit_ms: Option<u64>) -> PyResult<SimplifyResult> {
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
        Ok(SimplifyResult {
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
    let docs: Vec<GuardDoc> =
        pythonize::depythonize(guards).map_err(|e| error::at_field("guards", e))?;
    let mut pool = symalias::ExprPool::new();
    let guards = symalias::io::load_guards(&mut pool, &docs).map_err(input_error)?;
    let symbols = symbols.unwrap_or_default();
    Ok(guards
        .iter()
        .map(|g| g.kind.render(&pool, &symbols))
        .collect())
}

/// A guard list prepared once for checking many calls (FORMATS.md §6).
#[pyclass(module = "symalias._native", frozen)]
struct GuardSet {
    set: symalias::GuardSet,
    count: usize,
}

#[pymethods]
impl GuardSet {
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
            Ok(GuardSet {
                set,
                count: guards.len(),
            })
        };
        if let Ok(r) = result.cast::<OverlapResult>() {
            let doc = r.get().doc();
            return prepare(&doc.guards, &doc.symbols);
        }
        if let Ok(r) = result.cast::<ProgramResult>() {
            let (guards, symbols) = r.get().guard_docs();
            return prepare(guards, symbols);
        }
        let doc: Doc = match result.extract::<String>() {
            Ok(text) => serde_json::from_str(&text).map_err(|e| error::at_field("result", e))?,
            Err(_) => pythonize::depythonize(result).map_err(|e| error::at_field("result", e))?,
        };
        prepare(&doc.guards, &doc.symbols.unwrap_or_default())
    }

    /// Checks the guards on one call (FORMATS.md §6: JSON text, or
    /// `{"inputs": [...]}` as Python objects, converted natively): pass, or
    /// the first failing guard and why. A call given as objects that does
    /// not convert is checked through the JSON road, whose error names the
    /// field.
    fn check(&self, py: Python<'_>, call: &Bound<'_, PyAny>) -> PyResult<Outcome> {
        let typed: Call = match call.extract::<String>() {
            Ok(text) => serde_json::from_str(&text).map_err(|e| error::at_field("call", e))?,
            Err(_) => match pythonize::depythonize(call) {
                Ok(c) => c,
                Err(_) => {
                    let text = dumped(call, ("json", "dumps"))?;
                    serde_json::from_str(&text).map_err(|e| error::at_field("call", e))?
                }
            },
        };
        let outcome = py
            .detach(|| self.set.check(&typed))
            .map_err(|e| error::at_field("call", e))?;
        Ok(Outcome::from(OutcomeDoc::from(&outcome)))
    }

    fn __len__(&self) -> usize {
        self.count
    }
}

/// The `symalias._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<InputError>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(overlap, m)?)?;
    m.add_function(wrap_pyfunction!(render_guards, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(simplify, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(tensors::overlapping_tensors, m)?)?;
    m.add_class::<GuardSet>()?;
    m.add_class::<OverlapResult>()?;
    m.add_class::<ProgramResult>()?;
    m.add_class::<SimplifyResult>()?;
    m.add_class::<Outcome>()?;
    m.add_class::<results::Pair>()?;
    m.add_class::<results::SelfOverlap>()?;
    m.add_class::<results::Witness>()?;
    m.add_class::<results::Guard>()?;
    m.add_function(wrap_pyfunction!(results::restore, m)?)?;
    m.add_class::<checks::FrameCheck>()?;
    m.add_class::<decide::Decision>()?;
    m.add_function(wrap_pyfunction!(decide::decide, m)?)?;
    m.add_function(wrap_pyfunction!(checks::check_counters, m)?)?;
    m.add_function(wrap_pyfunction!(checks::reset_check_counters, m)?)?;
    Ok(())
}
