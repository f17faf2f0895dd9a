//! The overlap decision of one storage group, read from torch tensors —
//! real or fake, with SymInt layouts — in Rust, answered by the engine's
//! typed API (a `Scope` whose symbols are declared and whose fields are
//! parsed straight into its pool, a `Group`, `Analyzer::overlap`), returned
//! as a `Decision` object holding the typed report: no documents, no JSON.
//! A document is made only when the caller asks for one (`Decision.json`,
//! `Decision.result`).
//!
//! The tensors are read by the one SymInt reader (`symints.rs`), without
//! guarding; this module loads what it read into the engine and answers.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::collections::BTreeMap;
use std::sync::Arc;
use symalias::analysis::{
    Analyzer, AnalyzerOptions, Disjointness, GroupError, OverlapReport, Scope,
};
use symalias::guards::{Guard, GuardKind};
use symalias::io::{
    analyze_views, load_group_views, tensor_error, GroupView, InputError as EngineInputError,
};
use symalias::overlap::Proof;
use symalias::GuardSet;

use crate::symints::{read_group, ReadGroup, ReadOptions};
use crate::{input_error, on_large_stack};

/// The overlap decision of one storage group (see the module doc): the
/// engine's typed report and the scope its expressions live in.
#[pyclass(module = "symalias._native", name = "Decision", frozen)]
pub struct PyDecision {
    pub(crate) report: OverlapReport,
    pub(crate) scope: Scope,
    /// The engine's time (loading and analysis), in µs.
    pub(crate) micros: u64,
    offsets: Vec<Option<i64>>,
    symbolic: bool,
    pub(crate) names: Vec<String>,
    /// What was read (symbols and fields): the case a picture draws, made
    /// only when one is asked for.
    pub(crate) read: ReadGroup,
}

impl PyDecision {
    /// The guards that state the partition at run time, compiled: the
    /// report's StorageOverlap guards, or the partition itself by source
    /// (typed: no document between the report and the check).
    pub(crate) fn partition_guards(&self) -> PyResult<Arc<GuardSet>> {
        let mut guards: Vec<Guard> = self
            .report
            .guards
            .iter()
            .filter(|g| matches!(g.kind, GuardKind::StorageOverlap { .. }))
            .map(|g| Guard {
                reason: String::new(),
                fast_path: false,
                ..g.clone()
            })
            .collect();
        if guards.is_empty() {
            let named = |ix: &[usize]| ix.iter().map(|&i| self.names[i].clone()).collect();
            let kind = GuardKind::StorageOverlap {
                overlapping: named(&self.report.overlapping),
                non_overlapping: named(&self.report.non_overlapping),
                components: Vec::new(),
            };
            guards.push(Guard::new(kind, ""));
        }
        GuardSet::prepare(&self.scope.pool, &guards, &BTreeMap::new())
            .map(Arc::new)
            .map_err(|e| crate::error::at_field("PartitionCheck.guards", e))
    }
}

/// A proof status as FORMATS §3 spells it.
fn proof_word(p: Proof) -> &'static str {
    match p {
        Proof::Proved => "proved",
        Proof::Refuted => "refuted",
        Proof::Unknown => "unknown",
        Proof::HintOnly => "hint_only",
    }
}

#[pymethods]
impl PyDecision {
    /// Indices of the tensors that overlap another, at the hints.
    #[getter]
    fn overlapping(&self) -> Vec<usize> {
        self.report.overlapping.clone()
    }

    /// The others.
    #[getter]
    fn non_overlapping(&self) -> Vec<usize> {
        self.report.non_overlapping.clone()
    }

    /// True proved for all shapes, False refuted, None undecided (or no symbols).
    #[getter]
    fn invariant(&self) -> Option<bool> {
        self.report.invariance.as_option()
    }

    /// Tensors that overlap themselves at the hints, or whose verdict is not
    /// proved for all shapes: `(tensor, overlaps at the hints, proof)`; a
    /// tensor not listed overlaps itself at no allowed shape.
    #[getter]
    fn self_overlap(&self) -> Vec<(usize, bool, String)> {
        self.report
            .self_overlap
            .iter()
            .map(|s| (s.member, s.overlap, proof_word(s.proof).to_string()))
            .collect()
    }

    /// Some size, stride or offset was a SymInt.
    #[getter]
    fn symbolic(&self) -> bool {
        self.symbolic
    }

    /// The time limit (the wall-clock backstop) stopped some of the work:
    /// still sound, but an idler machine may decide more. False: the
    /// decision is a function of the tensors' layouts and the options.
    #[getter]
    fn time_limit_hit(&self) -> bool {
        self.report.time_limit_hit
    }

    /// Each tensor's storage offset when it is an integer, else None.
    #[getter]
    fn offsets(&self) -> Vec<Option<i64>> {
        self.offsets.clone()
    }

    /// The engine's time (loading and analysis), in microseconds.
    #[getter]
    fn micros(&self) -> u64 {
        self.micros
    }

    /// The whole result line (FORMATS.md §3) as JSON text.
    fn json(&self) -> String {
        crate::document::decision_json(self)
    }

    /// The whole typed result (pairs, witnesses, guards), built natively.
    fn result(&self) -> PyResult<crate::results::PyOverlapResult> {
        crate::document::decision_result(self)
    }

    /// The picture of the group's memory (SVG text; see
    /// `OverlapResult.svg`), drawn only when asked for.
    fn svg(&self) -> PyResult<String> {
        crate::document::decision_svg(self)
    }
}

/// The id of a decision's result document.
pub(crate) const ID: &str = "compute_overlapping_tensors";

impl From<GroupError> for Located {
    fn from(e: GroupError) -> Located {
        Located(tensor_error(e.member, e.error.field(), e.error.to_string()))
    }
}

/// An engine error, located in the group (the `?` target of [`load`]).
struct Located(EngineInputError);

impl From<EngineInputError> for Located {
    fn from(e: EngineInputError) -> Located {
        Located(e)
    }
}

/// A scope with the symbols of a group read from tensors declared (in name
/// order).
fn declared(read: &ReadGroup) -> Result<Scope, Located> {
    let mut scope = Scope::new();
    for (name, decl) in &read.decls {
        scope
            .env
            .declare(&mut scope.pool, decl)
            .map_err(|e| EngineInputError::field(format!("symbols.{name}"), e.to_string()))?;
    }
    Ok(scope)
}

/// The views of a group read from tensors, as the engine's typed road
/// takes them (`io::analyze_views`).
fn views(read: &ReadGroup) -> Vec<GroupView<'_>> {
    read.tensors
        .iter()
        .zip(&read.names)
        .map(|(t, name)| {
            (
                name.as_str(),
                (&t.sizes[..], &t.strides[..], &t.offset, t.itemsize),
            )
        })
        .collect()
}

/// Analyzer options for `read`: proved with `prove` when it has symbols
/// (else not simplified either: values at the hints do not depend on the
/// written form), within `time_limit_ms` when given.
fn options(read: &ReadGroup, prove: bool, time_limit_ms: Option<u64>) -> AnalyzerOptions {
    let prove = prove && !read.decls.is_empty();
    let mut opts = AnalyzerOptions {
        prove,
        // Dynamo pins every input's layout before the frame's check runs:
        // the proof's own list, as before issue 63.
        guards: symalias::analysis::GuardOptions {
            layouts_pinned: true,
        },
        ..AnalyzerOptions::default()
    };
    if !prove {
        opts.simplify = None;
    }
    if let Some(ms) = time_limit_ms {
        opts.proof.time_limit = std::time::Duration::from_millis(ms);
    }
    opts
}

/// The report of a group read from tensors, and the scope it lives in: the
/// engine's one typed road (`io::analyze_views`, as the CLI and the C ABI
/// take it; concrete fields go the short road).
fn analyze(
    read: &ReadGroup,
    prove: bool,
    time_limit_ms: Option<u64>,
) -> Result<(OverlapReport, Scope), Located> {
    let mut analyzer = Analyzer::new(options(read, prove, time_limit_ms));
    let mut scope = declared(read)?;
    let report = analyze_views(&mut analyzer, &mut scope, ID, &views(read))?;
    Ok((report, scope))
}

/// Whether a group read from tensors is pairwise disjoint for every
/// allowed shape (`Analyzer::disjoint`).
fn disjoint(read: &ReadGroup, time_limit_ms: Option<u64>) -> Result<Disjointness, Located> {
    let mut analyzer = Analyzer::new(options(read, true, time_limit_ms));
    let mut scope = declared(read)?;
    let group = load_group_views(&mut scope, ID, &views(read))?;
    Ok(analyzer.disjoint(&mut scope, &group)?)
}

/// Decides one storage group of torch tensors (`sources`: their names in
/// guards): the exact overlapping indices at the hints and, with `prove`
/// and symbols, whether the classification holds for all shapes. With
/// `hints_only`, each SymInt is read as its value at the hints (a concrete
/// case: no symbols, no proof).
/// Raises `TypeError` for what is not a strided tensor,
/// `DifferentStoragesError` when the tensors are not views of one storage,
/// `UnbackedSymbolError` for a data-dependent symbol -- unless `unbacked`,
/// where such a symbol is read with its range and a hint made from it (only
/// `invariant == True`, a proof for the whole range, then means anything).
/// `time_limit_ms` bounds the proof's wall clock (default: the engine's).
#[pyfunction]
#[pyo3(signature = (tensors, sources, *, prove = true, hints_only = false, unbacked = false, time_limit_ms = None))]
pub fn decide(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    sources: Vec<String>,
    prove: bool,
    hints_only: bool,
    unbacked: bool,
    time_limit_ms: Option<u64>,
) -> PyResult<PyDecision> {
    let tensors: Vec<Bound<'_, PyAny>> = tensors.try_iter()?.collect::<PyResult<_>>()?;
    if sources.len() != tensors.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{} sources for {} tensors",
            sources.len(),
            tensors.len()
        )));
    }
    let opts = ReadOptions {
        hints_only,
        unbacked,
        sources: true,
    };
    let read = read_group(py, &tensors, Some(&sources), opts)?;
    let start = std::time::Instant::now();
    let (report, scope) = on_large_stack(py, || analyze(&read, prove, time_limit_ms))?
        .map_err(|Located(e)| input_error(e))?;
    Ok(PyDecision {
        report,
        scope,
        micros: start.elapsed().as_micros() as u64,
        offsets: read.offsets.clone(),
        symbolic: read.symbolic,
        names: sources,
        read,
    })
}

/// The tensors (views of one storage) that may overlap another for some
/// allowed shape, ascending, never guarding -- `compute_overlapping_tensors`
/// for every shape, as Inductor's reinplace pass needs it: exact for
/// concrete layouts (the short road of `overlapping_tensors`); for symbolic
/// ones none when they are proved pairwise disjoint for every allowed shape
/// within `time_limit_ms`, else every tensor (two overlap at the hints, an
/// allowed shape, or no proof: `Analyzer::disjoint`). Symbols without a hint
/// (unbacked) are read with their ranges. One call, one reading; symbols'
/// sources are not read. Raises as `decide`.
#[pyfunction]
#[pyo3(signature = (tensors, *, time_limit_ms = None))]
pub fn overlapping_for_all_shapes(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    time_limit_ms: Option<u64>,
) -> PyResult<Vec<usize>> {
    // Collected once: an iterator is read by both roads.
    let tensors: Vec<Bound<'_, PyAny>> = tensors.try_iter()?.collect::<PyResult<_>>()?;
    let seq = PyTuple::new(py, &tensors)?;
    if let Some(concrete) = crate::tensors::overlapping_tensors(py, seq.as_any())? {
        return Ok(concrete);
    }
    let opts = ReadOptions {
        hints_only: false,
        unbacked: true,
        sources: false,
    };
    let read = read_group(py, &tensors, None, opts)?;
    let answer = on_large_stack(py, || disjoint(&read, time_limit_ms))?
        .map_err(|Located(e)| input_error(e))?;
    Ok(match answer {
        Disjointness::Proved => Vec::new(),
        Disjointness::OverlapsAtHints | Disjointness::Unknown => (0..tensors.len()).collect(),
    })
}
