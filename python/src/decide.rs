//! The overlap decision of one storage group, read from torch tensors —
//! real or fake, with SymInt layouts — in Rust, answered by the engine's
//! typed API (a `Scope` whose symbols are declared and whose fields are
//! parsed straight into its pool, a `Group`, `Analyzer::overlap`), returned
//! as a `Decision` object holding the typed report: no documents, no JSON.
//! A document is made only when the caller asks for one (`Decision.json`,
//! `Decision.result`).
//!
//! A SymInt is read without guarding (the package's one SymInt reader): a
//! node that is a constant gives its int; otherwise its expression's text (a
//! symbol's name directly, anything else printed once per expression) and,
//! per free symbol, its hint, range and source from the ShapeEnv's tables
//! -- or, in the hint-only mode, its value at the hints. Never a comparison
//! on a SymInt (that would add a ShapeEnv guard).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple};
use std::collections::BTreeMap;
use symalias::analysis::{
    Analyzer, AnalyzerOptions, Disjointness, Group, GroupError, Member, OverlapReport, Scope,
};
use symalias::env::SymbolDecl;
use symalias::guards::GuardKind;
use symalias::io::{
    concrete_view, load_layout, overlap_result_of, tensor_error, ExprField, GuardDoc, GuardKindDoc,
    InputError as EngineInputError,
};
use symalias::layout::View;
use symalias::overlap::Proof;

use crate::tensors::{call, check_strided, Method};
use crate::{input_error, on_large_stack};

/// The symbols met while reading one group.
struct Symbols<'py> {
    decls: BTreeMap<String, SymbolDecl>,
    /// Expression -> its text (a Python dict: sympy expressions hash).
    text: Bound<'py, PyDict>,
    /// The ShapeEnv's hint table, found on the first symbol.
    hints: Option<Bound<'py, PyAny>>,
    /// Each SymInt is read as its value at the hints (no symbols declared).
    hints_only: bool,
    /// A symbol without a hint (unbacked) takes its range's lower bound (or
    /// upper, when unbounded below) as hint: only a proof for all shapes
    /// means anything then.
    unbacked: bool,
    /// Each symbol's source is read (`SymbolDecl::source`, for guards).
    sources: bool,
}

/// A sympy bound as an i64; None for an infinity or anything else.
fn bound(v: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if let Ok(i) = v.cast::<PyInt>() {
        return Ok(i.extract().ok());
    }
    let py = v.py();
    if v.getattr(intern!(py, "is_Integer"))
        .and_then(|b| b.is_truthy())
        .unwrap_or(false)
    {
        return Ok(py.get_type::<PyInt>().call1((v,))?.extract().ok());
    }
    Ok(None)
}

/// The first run-time source of symbol `s` in the ShapeEnv, by its name.
fn source_of(shape_env: &Bound<'_, PyAny>, s: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let py = s.py();
    let sources = shape_env
        .getattr(intern!(py, "var_to_sources"))?
        .call_method1(intern!(py, "get"), (s,))?;
    if sources.is_none() || sources.len()? == 0 {
        return Ok(None);
    }
    let mut n = sources.get_item(0)?.getattr(intern!(py, "name"))?;
    if n.is_callable() {
        n = n.call0()?;
    }
    Ok(Some(n.extract()?))
}

impl<'py> Symbols<'py> {
    /// The ShapeEnv's hint table (`backed_var_to_val`; torch 2.15's
    /// `var_to_val` is a deprecated alias of it), read once.
    fn hints(&mut self, shape_env: &Bound<'py, PyAny>) -> PyResult<&Bound<'py, PyAny>> {
        let py = shape_env.py();
        if self.hints.is_none() {
            self.hints = Some(shape_env.getattr(intern!(py, "backed_var_to_val"))?);
        }
        Ok(self.hints.as_ref().expect("hints were just found"))
    }

    fn declare(&mut self, shape_env: &Bound<'py, PyAny>, s: &Bound<'py, PyAny>) -> PyResult<()> {
        let py = s.py();
        let name: String = s.getattr(intern!(py, "name"))?.extract()?;
        if self.decls.contains_key(&name) {
            return Ok(());
        }
        let mut doc = SymbolDecl::new(name.clone());
        let vr = shape_env
            .getattr(intern!(py, "var_to_range"))?
            .call_method1(intern!(py, "get"), (s,))?;
        if !vr.is_none() {
            doc.min = bound(&vr.getattr(intern!(py, "lower"))?)?;
            doc.max = bound(&vr.getattr(intern!(py, "upper"))?)?;
        }
        doc.hint = match self.hints(shape_env)?.get_item(s) {
            Ok(h) => Some(py.get_type::<PyInt>().call1((h,))?.extract()?),
            Err(_) if self.unbacked && doc.min.or(doc.max).is_some() => doc.min.or(doc.max),
            Err(_) => return Err(crate::error::unbacked(&[name])),
        };
        if self.sources {
            doc.source = source_of(shape_env, s)?;
        }
        self.decls.insert(name, doc);
        Ok(())
    }

    /// One size, stride or offset: an int, or a SymInt's text (declaring
    /// its symbols). The flag says whether it was a SymInt.
    fn field(&mut self, x: &Bound<'py, PyAny>) -> PyResult<(ExprField, bool)> {
        if let Ok(i) = x.cast::<PyInt>() {
            return Ok((ExprField::Int(i.extract()?), false));
        }
        let py = x.py();
        let node = x.getattr(intern!(py, "node"))?;
        let expr = node.getattr(intern!(py, "expr"))?;
        if let Some(text) = self.text.get_item(&expr)? {
            return Ok((ExprField::Text(text.extract()?), true));
        }
        // A node that settled on a number (`SymNode.maybe_as_int`).
        if expr.getattr(intern!(py, "is_number"))?.is_truthy()? {
            let v = py.get_type::<PyInt>().call1((&expr,))?;
            return Ok((ExprField::Int(v.extract()?), true));
        }
        let shape_env = node.getattr(intern!(py, "shape_env"))?;
        if self.hints_only {
            return Ok((ExprField::Int(self.at_hints(&shape_env, &expr)?), true));
        }
        let text: String = if expr.getattr(intern!(py, "is_Symbol"))?.is_truthy()? {
            self.declare(&shape_env, &expr)?;
            expr.getattr(intern!(py, "name"))?.extract()?
        } else {
            for s in expr.getattr(intern!(py, "free_symbols"))?.try_iter()? {
                self.declare(&shape_env, &s?)?;
            }
            expr.str()?.extract()?
        };
        self.text.set_item(&expr, &text)?;
        Ok((ExprField::Text(text), true))
    }

    /// `expr`'s value at its symbols' hints (the hint-only mode).
    fn at_hints(
        &mut self,
        shape_env: &Bound<'py, PyAny>,
        expr: &Bound<'py, PyAny>,
    ) -> PyResult<i64> {
        let py = expr.py();
        let hints = self.hints(shape_env)?.clone();
        let values = PyDict::new(py);
        let mut missing = Vec::new();
        for s in expr.getattr(intern!(py, "free_symbols"))?.try_iter()? {
            let s = s?;
            match hints.get_item(&s) {
                Ok(h) => values.set_item(&s, h)?,
                Err(_) => missing.push(s.getattr(intern!(py, "name"))?.extract::<String>()?),
            }
        }
        if !missing.is_empty() {
            missing.sort();
            return Err(crate::error::unbacked(&missing));
        }
        let v = expr.call_method1(intern!(py, "xreplace"), (values,))?;
        py.get_type::<PyInt>().call1((v,))?.extract()
    }
}

/// The overlap decision of one storage group (see the module doc): the
/// engine's typed report and the scope its expressions live in.
#[pyclass(module = "symalias._native", name = "Decision", frozen)]
pub struct PyDecision {
    report: OverlapReport,
    scope: Scope,
    /// The engine's time (loading and analysis), in µs.
    micros: u64,
    offsets: Vec<Option<i64>>,
    symbolic: bool,
    names: Vec<String>,
}

impl PyDecision {
    /// The guards that state the partition at run time: the report's
    /// StorageOverlap guards, or the partition itself by source (typed:
    /// the checks take them as they are).
    pub(crate) fn partition_guards(&self) -> Vec<GuardDoc> {
        let guards: Vec<GuardDoc> = self
            .report
            .guards
            .iter()
            .filter(|g| matches!(g.kind, GuardKind::StorageOverlap { .. }))
            .map(|g| GuardDoc {
                reason: String::new(),
                fast_path: false,
                ..GuardDoc::from_guard(&self.scope.pool, g)
            })
            .collect();
        if !guards.is_empty() {
            return guards;
        }
        let named = |ix: &[usize]| ix.iter().map(|&i| self.names[i].clone()).collect();
        vec![GuardDoc {
            kind: GuardKindDoc::StorageOverlap {
                overlapping: named(&self.report.overlapping),
                non_overlapping: named(&self.report.non_overlapping),
                components: Vec::new(),
            },
            reason: String::new(),
            fast_path: false,
        }]
    }

    /// The §3 result document (made only when asked for).
    fn document(&self) -> symalias::io::OverlapResult {
        let mut doc = overlap_result_of(ID, &self.scope, self.report.clone());
        doc.micros = self.micros;
        doc
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
        crate::document::text(&self.document())
    }

    /// The whole typed result (pairs, witnesses, guards), built natively.
    fn result(&self) -> PyResult<crate::results::PyOverlapResult> {
        crate::results::PyOverlapResult::new(self.document())
    }
}

/// The id of a decision's result document.
const ID: &str = "compute_overlapping_tensors";

/// Shows `t` to the validator (`tensors::check_strided`) the first time
/// its type is met. Per-tensor properties (sparse layouts, nestedness) are
/// not read up front: reading such a tensor's layout fails, and then the
/// validator's refusal, if it has one, is the error.
fn check_type(
    t: &Bound<'_, PyAny>,
    i: usize,
    seen: &mut Vec<*mut pyo3::ffi::PyTypeObject>,
) -> PyResult<()> {
    let ty = t.get_type().as_type_ptr();
    if !seen.contains(&ty) {
        check_strided(t, i)?;
        seen.push(ty);
    }
    Ok(())
}

/// The fields of a size or stride tuple.
fn fields<'py>(
    obj: Bound<'py, PyAny>,
    syms: &mut Symbols<'py>,
    symbolic: &mut bool,
) -> PyResult<Vec<ExprField>> {
    let tuple = obj.cast_into::<PyTuple>()?;
    let mut out = Vec::with_capacity(tuple.len());
    for x in tuple.iter() {
        let (f, s) = syms.field(&x)?;
        *symbolic |= s;
        out.push(f);
    }
    Ok(out)
}

/// How [`read_group`] reads a group.
struct ReadOptions {
    /// Each SymInt as its value at the hints.
    hints_only: bool,
    /// Symbols without a hint read with their range.
    unbacked: bool,
    /// Each symbol's source read from the ShapeEnv (for guards).
    sources: bool,
}

/// One tensor's layout fields as read: ints, or SymInts' texts.
struct Fields {
    sizes: Vec<ExprField>,
    strides: Vec<ExprField>,
    offset: ExprField,
    itemsize: i64,
}

/// One group read from torch tensors: the symbols met, each tensor's
/// fields and name, each tensor's integer storage offset, and whether some
/// field was a SymInt.
struct ReadGroup {
    decls: BTreeMap<String, SymbolDecl>,
    tensors: Vec<Fields>,
    names: Vec<String>,
    offsets: Vec<Option<i64>>,
    symbolic: bool,
}

/// Reads `tensors` (views of one storage, named `sources` in guards, or
/// `tensors[i]`), without guarding.
fn read_group<'py>(
    py: Python<'py>,
    tensors: &[Bound<'py, PyAny>],
    sources: Option<&[String]>,
    opts: ReadOptions,
) -> PyResult<ReadGroup> {
    let mut seen = Vec::new();
    let mut storages = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        check_type(t, i, &mut seen)?;
        let s = call(py, t, Method::UntypedStorage)
            .map_err(|e| check_strided(t, i).err().unwrap_or(e))?;
        if !storages.is_empty() && !s.is(&storages[0]) {
            return Err(crate::error::different_storages(i));
        }
        storages.push(s);
    }
    let mut syms = Symbols {
        decls: BTreeMap::new(),
        text: PyDict::new(py),
        hints: None,
        hints_only: opts.hints_only,
        unbacked: opts.unbacked,
        sources: opts.sources,
    };
    let mut symbolic = false;
    let mut read = Vec::with_capacity(tensors.len());
    let mut offsets = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        let size = call(py, t, Method::Size).map_err(|e| check_strided(t, i).err().unwrap_or(e))?;
        let sizes = fields(size, &mut syms, &mut symbolic)?;
        let strides = fields(call(py, t, Method::Stride)?, &mut syms, &mut symbolic)?;
        let (offset, s) = syms.field(&call(py, t, Method::StorageOffset)?)?;
        symbolic |= s;
        offsets.push(match offset {
            ExprField::Int(v) => Some(v),
            ExprField::Text(_) => None,
        });
        read.push(Fields {
            sizes,
            strides,
            offset,
            itemsize: call(py, t, Method::ElementSize)?.extract()?,
        });
    }
    let names = (0..tensors.len())
        .map(|i| sources.map_or_else(|| format!("tensors[{i}]"), |s| s[i].clone()))
        .collect();
    Ok(ReadGroup {
        decls: syms.decls,
        tensors: read,
        names,
        offsets,
        symbolic,
    })
}

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

/// Checks each tensor's itemsize (at least 1 byte).
fn check_itemsizes(read: &ReadGroup) -> Result<(), Located> {
    for (i, t) in read.tensors.iter().enumerate() {
        if t.itemsize < 1 {
            return Err(Located(EngineInputError::field(
                format!("tensors[{i}].itemsize"),
                format!("itemsize must be at least 1, found {}", t.itemsize),
            )));
        }
    }
    Ok(())
}

/// The views of a group read from tensors when every field is an int,
/// validated (None when some field is symbolic).
fn load_views(read: &ReadGroup) -> Result<Option<Vec<View>>, Located> {
    let mut views = Vec::with_capacity(read.tensors.len());
    for (i, t) in read.tensors.iter().enumerate() {
        let fields = (&t.sizes[..], &t.strides[..], &t.offset, t.itemsize);
        match concrete_view(i, fields)? {
            Some(view) => views.push(view),
            None => return Ok(None),
        }
    }
    Ok(Some(views))
}

/// A group read from tensors loaded for the engine: its symbols declared
/// into a scope (in name order) and its fields parsed straight into the
/// scope's pool.
fn load_group(read: &ReadGroup) -> Result<(Scope, Group), Located> {
    let mut scope = Scope::new();
    for (name, decl) in &read.decls {
        scope
            .env
            .declare(&mut scope.pool, decl)
            .map_err(|e| EngineInputError::field(format!("symbols.{name}"), e.to_string()))?;
    }
    let mut group = Group {
        id: ID.into(),
        members: Vec::with_capacity(read.tensors.len()),
    };
    for (i, (t, name)) in read.tensors.iter().zip(&read.names).enumerate() {
        let prefix = format!("tensors[{i}]");
        let fields = (&t.sizes[..], &t.strides[..], &t.offset, t.itemsize);
        let layout = load_layout(&mut scope, &prefix, fields)?;
        group.members.push(Member {
            source: name.clone(),
            layout,
        });
    }
    Ok((scope, group))
}

/// Analyzer options for `read`: proved with `prove` when it has symbols
/// (else not simplified either: values at the hints do not depend on the
/// written form), within `time_limit_ms` when given.
fn options(read: &ReadGroup, prove: bool, time_limit_ms: Option<u64>) -> AnalyzerOptions {
    let prove = prove && !read.decls.is_empty();
    let mut opts = AnalyzerOptions {
        prove,
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
/// concrete road (`Analyzer::overlap_views`) when every field is an int.
fn analyze(
    read: &ReadGroup,
    prove: bool,
    time_limit_ms: Option<u64>,
) -> Result<(OverlapReport, Scope), Located> {
    check_itemsizes(read)?;
    let mut analyzer = Analyzer::new(options(read, prove, time_limit_ms));
    if let Some(views) = load_views(read)? {
        let source = |i: usize| read.names[i].clone();
        return Ok((analyzer.overlap_views(ID, &views, &source), Scope::new()));
    }
    let (mut scope, group) = load_group(read)?;
    let report = analyzer.overlap(&mut scope, &group)?;
    Ok((report, scope))
}

/// Whether a group read from tensors is pairwise disjoint for every
/// allowed shape (`Analyzer::disjoint`).
fn disjoint(read: &ReadGroup, time_limit_ms: Option<u64>) -> Result<Disjointness, Located> {
    check_itemsizes(read)?;
    let mut analyzer = Analyzer::new(options(read, true, time_limit_ms));
    let (mut scope, group) = load_group(read)?;
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
        offsets: read.offsets,
        symbolic: read.symbolic,
        names: sources,
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
