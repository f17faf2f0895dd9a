//! The overlap decision of one storage group, read from torch tensors —
//! real or fake, with SymInt layouts — in Rust, answered by the engine's
//! typed API, returned as a `Decision` object: no documents, no JSON.
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
use symalias::analysis::{Analyzer, AnalyzerOptions, Disjointness};
use symalias::io::{
    run_disjoint_case, run_overlap_case, ExprField, GuardDoc, GuardKindDoc, OverlapCase,
    OverlapResult, SymbolSpec, TensorSpec,
};

use crate::tensors::{call, check_strided, Method};
use crate::{input_error, on_large_stack};

/// The symbols met while reading one group.
struct Symbols<'py> {
    docs: BTreeMap<String, SymbolSpec>,
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
    /// Each symbol's source is read (`SymbolSpec::source`, for guards).
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
        if self.docs.contains_key(&name) {
            return Ok(());
        }
        let mut doc = SymbolSpec::default();
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
        self.docs.insert(name, doc);
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

/// The overlap decision of one storage group (see the module doc).
#[pyclass(module = "symalias._native", name = "Decision", frozen)]
pub struct PyDecision {
    result: OverlapResult,
    offsets: Vec<Option<i64>>,
    symbolic: bool,
    names: Vec<String>,
}

impl PyDecision {
    /// The guards that state the partition at run time: the result's
    /// StorageOverlap guards, or the partition itself by source.
    pub(crate) fn partition_guards(&self) -> Vec<GuardDoc> {
        let guards: Vec<GuardDoc> = self
            .result
            .guards
            .iter()
            .filter(|g| matches!(g.kind, GuardKindDoc::StorageOverlap { .. }))
            .map(|g| GuardDoc {
                kind: g.kind.clone(),
                reason: String::new(),
                fast_path: false,
            })
            .collect();
        if !guards.is_empty() {
            return guards;
        }
        let named = |ix: &[usize]| ix.iter().map(|&i| self.names[i].clone()).collect();
        vec![GuardDoc {
            kind: GuardKindDoc::StorageOverlap {
                overlapping: named(&self.result.overlapping),
                non_overlapping: named(&self.result.non_overlapping),
                components: Vec::new(),
            },
            reason: String::new(),
            fast_path: false,
        }]
    }
}

#[pymethods]
impl PyDecision {
    /// Indices of the tensors that overlap another, at the hints.
    #[getter]
    fn overlapping(&self) -> Vec<usize> {
        self.result.overlapping.clone()
    }

    /// The others.
    #[getter]
    fn non_overlapping(&self) -> Vec<usize> {
        self.result.non_overlapping.clone()
    }

    /// True proved for all shapes, False refuted, None undecided (or no symbols).
    #[getter]
    fn invariant(&self) -> Option<bool> {
        self.result.invariant
    }

    /// Tensors that overlap themselves at the hints, or whose verdict is not
    /// proved for all shapes: `(tensor, overlaps at the hints, proof)`; a
    /// tensor not listed overlaps itself at no allowed shape.
    #[getter]
    fn self_overlap(&self) -> Vec<(usize, bool, String)> {
        self.result
            .self_overlap
            .iter()
            .map(|s| {
                let proof = serde_json::to_value(s.proof)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                (s.tensor, s.overlap, proof)
            })
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
        self.result.micros
    }

    /// The whole result line (FORMATS.md §3) as JSON text.
    fn json(&self) -> String {
        crate::to_json(&self.result)
    }

    /// The partition this decision states, as the JSON list of guards a
    /// `FrameCheck` `partition` fact also takes (text: it pickles, so a
    /// saved artifact carries the fact).
    fn partition_guards_json(&self) -> String {
        crate::to_json(&self.partition_guards())
    }

    /// The whole typed result (pairs, witnesses, guards), built natively.
    fn result(&self) -> PyResult<crate::results::PyOverlapResult> {
        crate::results::PyOverlapResult::new(self.result.clone())
    }
}

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

/// One group read from torch tensors: the case, each tensor's integer
/// storage offset, and whether some field was a SymInt.
struct ReadGroup {
    case: OverlapCase,
    offsets: Vec<Option<i64>>,
    symbolic: bool,
}

/// Reads `tensors` (views of one storage, named `sources` in guards, or
/// `tensors[i]`) into an overlap case, without guarding.
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
        docs: BTreeMap::new(),
        text: PyDict::new(py),
        hints: None,
        hints_only: opts.hints_only,
        unbacked: opts.unbacked,
        sources: opts.sources,
    };
    let mut symbolic = false;
    let mut specs = Vec::with_capacity(tensors.len());
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
        specs.push(TensorSpec {
            source: sources.map(|s| s[i].clone()),
            sizes,
            strides,
            storage_offset: offset,
            itemsize: call(py, t, Method::ElementSize)?.extract()?,
        });
    }
    let case = OverlapCase {
        id: "compute_overlapping_tensors".into(),
        symbols: syms.docs,
        assumptions: Vec::new(),
        tensors: specs,
        expect: None,
    };
    Ok(ReadGroup {
        case,
        offsets,
        symbolic,
    })
}

/// Analyzer options for `case`: proved with `prove` when it has symbols
/// (else not simplified either: values at the hints do not depend on the
/// written form), within `time_limit_ms` when given.
fn options(case: &OverlapCase, prove: bool, time_limit_ms: Option<u64>) -> AnalyzerOptions {
    let prove = prove && !case.symbols.is_empty();
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
    let case = read.case;
    let result = on_large_stack(py, move || {
        let opts = options(&case, prove, time_limit_ms);
        run_overlap_case(&case, &mut Analyzer::new(opts), false)
    })?
    .map_err(input_error)?;
    Ok(PyDecision {
        result,
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
    let case = read_group(py, &tensors, None, opts)?.case;
    let answer = on_large_stack(py, move || {
        let opts = options(&case, true, time_limit_ms);
        run_disjoint_case(&case, &mut Analyzer::new(opts))
    })?
    .map_err(input_error)?;
    Ok(match answer {
        Disjointness::Proved => Vec::new(),
        Disjointness::OverlapsAtHints | Disjointness::Unknown => (0..tensors.len()).collect(),
    })
}
