//! The typed results of the Python package, built natively from the
//! engine's result documents: `OverlapResult` (its `Pair`s, `SelfOverlap`s,
//! `Witness`es and `Guard`s), `ProgramResult`, `SimplifyResult`, `Outcome`.
//! Python converts nothing: it re-exports these classes.
//!
//! A result keeps its document (`io::OverlapResult`, `io::ProgramResult`);
//! its attributes are made on access (tuples for sequences, dicts for
//! mappings, as a frozen dataclass would hold them) and `json` is the
//! document's text, byte for byte what the CLI prints. The value-like
//! classes (`Witness`, `Pair`, `SelfOverlap`, `SimplifyResult`, `Outcome`)
//! are hashable; those holding dicts (`Guard`, the results) are not, as
//! frozen dataclasses holding dicts are not.

use crate::error;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::collections::BTreeMap;
use std::fmt::Display;
use std::sync::Arc;
use symalias::io::{GuardDoc, OutcomeDoc, PairDoc, ProgramDoc, SelfOverlapResult, WitnessDoc};

/// A Python tuple of `xs`.
fn tuple<'py, T, I>(py: Python<'py>, xs: I) -> PyResult<Bound<'py, PyTuple>>
where
    T: IntoPyObject<'py>,
    I: IntoIterator<Item = T>,
    I::IntoIter: ExactSizeIterator,
{
    PyTuple::new(py, xs)
}

/// Python's repr of a tuple of integers: `()`, `(3,)`, `(1, 2)`.
fn tuple_repr<T: Display>(xs: &[T]) -> String {
    match xs {
        [x] => format!("({x},)"),
        _ => format!(
            "({})",
            xs.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Python's repr of any value (through Python).
fn repr(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(obj.repr()?.to_string())
}

/// Python's repr of a string.
fn str_repr(py: Python<'_>, s: &str) -> PyResult<String> {
    repr(pyo3::types::PyString::new(py, s).as_any())
}

/// Python's repr of an optional string.
fn opt_repr(py: Python<'_>, s: &Option<String>) -> PyResult<String> {
    s.as_ref()
        .map_or(Ok("None".to_string()), |t| str_repr(py, t))
}

/// Python's `True` / `False`.
fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// Serde document → Python objects (dicts, lists, numbers, strings).
fn pythonized<'py, T: serde::Serialize>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, v).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// What `__reduce__` returns: `restore` and its arguments (the class's
/// name and its state as JSON text).
type Reduced<'py> = (Bound<'py, PyAny>, (&'static str, String));

/// Pickling (and `copy`): every result class is rebuilt by `restore` from
/// its state's JSON text.
fn reduce<'py>(py: Python<'py>, kind: &'static str, state: String) -> PyResult<Reduced<'py>> {
    // This module's own `restore` (pickle finds a function by its module
    // and name, so it must be the module's object).
    let restore = py.import("symalias._native")?.getattr("restore")?;
    Ok((restore, (kind, state)))
}

/// The state of a serde-derived result class.
fn state<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("result classes serialise")
}

/// Rebuilds a result object from what its `__reduce__` gave (pickle and
/// `copy` call it; not for other use).
#[pyfunction]
pub(crate) fn restore(py: Python<'_>, kind: &str, state: &str) -> PyResult<Py<PyAny>> {
    macro_rules! make {
        ($t:ty) => {{
            let v: $t = serde_json::from_str(state).map_err(|e| error::at_field("state", e))?;
            Ok(Py::new(py, v)?.into_any())
        }};
    }
    match kind {
        "Witness" => make!(PyWitness),
        "Pair" => make!(PyPair),
        "SelfOverlap" => make!(PySelfOverlap),
        "Guard" => make!(PyGuard),
        "SimplifyResult" => make!(PySimplifyResult),
        "Outcome" => make!(PyOutcome),
        "OverlapResult" => {
            let doc = serde_json::from_str(state).map_err(|e| error::at_field("state", e))?;
            Ok(Py::new(py, PyOverlapResult::new(doc)?)?.into_any())
        }
        "ProgramResult" => {
            Ok(Py::new(py, PyProgramResult::from_json(state.to_string())?)?.into_any())
        }
        _ => Err(error::at_field("kind", format!("no result class `{kind}`"))),
    }
}

/// `proved`, `refuted`, `hint_only` or `unknown` (the document's word).
fn proof_word(p: &symalias::Proof) -> String {
    serde_json::to_value(p)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A byte both tensors of a pair reach, and the indices reaching it.
#[pyclass(module = "symalias._native", name = "Witness", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PyWitness {
    /// The shared byte address (storage offset in bytes).
    #[pyo3(get)]
    address: i64,
    index_a: Vec<i64>,
    index_b: Vec<i64>,
}

impl From<&WitnessDoc> for PyWitness {
    fn from(w: &WitnessDoc) -> Self {
        PyWitness {
            address: w.address,
            index_a: w.index_a.clone(),
            index_b: w.index_b.clone(),
        }
    }
}

#[pymethods]
impl PyWitness {
    /// The index into the first tensor.
    #[getter]
    fn index_a<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, &self.index_a)
    }

    /// The index into the second tensor.
    #[getter]
    fn index_b<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, &self.index_b)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(py, "Witness", state(self))
    }

    fn __repr__(&self) -> String {
        format!(
            "Witness(address={}, index_a={}, index_b={})",
            self.address,
            tuple_repr(&self.index_a),
            tuple_repr(&self.index_b)
        )
    }
}

/// One listed pair: overlapping at the hints (or undecided), and how sure:
/// `proved`, `refuted`, `hint_only` or `unknown`.
#[pyclass(module = "symalias._native", name = "Pair", frozen, eq, hash, get_all)]
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PyPair {
    /// The first tensor's index.
    a: usize,
    /// The second tensor's index (`a < b`).
    b: usize,
    /// The footprints meet at the hints (or the pair is undecided).
    overlap: bool,
    /// How sure, for every allowed shape.
    proof: String,
    /// A shared byte, for an overlapping pair.
    witness: Option<PyWitness>,
}

impl From<&PairDoc> for PyPair {
    fn from(p: &PairDoc) -> Self {
        PyPair {
            a: p.a,
            b: p.b,
            overlap: p.overlap,
            proof: proof_word(&p.proof),
            witness: p.witness.as_ref().map(PyWitness::from),
        }
    }
}

#[pymethods]
impl PyPair {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(py, "Pair", state(self))
    }

    fn __repr__(&self) -> String {
        format!(
            "Pair(a={}, b={}, overlap={}, proof='{}', witness={})",
            self.a,
            self.b,
            py_bool(self.overlap),
            self.proof,
            self.witness
                .as_ref()
                .map_or("None".to_string(), PyWitness::__repr__)
        )
    }
}

/// One tensor's overlap with itself (two of its own indices reach one
/// byte): at the hints, and how sure for all shapes (`proved`, `refuted`,
/// `hint_only`, `unknown`). Both indices of the witness index this tensor.
#[pyclass(
    module = "symalias._native",
    name = "SelfOverlap",
    frozen,
    eq,
    hash,
    get_all
)]
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PySelfOverlap {
    /// The tensor's index.
    tensor: usize,
    /// It overlaps itself at the hints.
    overlap: bool,
    /// How sure, for every allowed shape.
    proof: String,
    /// Two indices reaching one byte, when it overlaps itself.
    witness: Option<PyWitness>,
    /// An allowed shape at which the verdict at the hints changes.
    counterexample: Option<BTreeMap<String, i64>>,
}

impl From<&SelfOverlapResult> for PySelfOverlap {
    fn from(s: &SelfOverlapResult) -> Self {
        PySelfOverlap {
            tensor: s.tensor,
            overlap: s.overlap,
            proof: proof_word(&s.proof),
            witness: s.witness.as_ref().map(PyWitness::from),
            counterexample: s.counterexample.clone(),
        }
    }
}

#[pymethods]
impl PySelfOverlap {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(py, "SelfOverlap", state(self))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let me = slf.get();
        Ok(format!(
            "SelfOverlap(tensor={}, overlap={}, proof='{}', witness={}, counterexample={})",
            me.tensor,
            py_bool(me.overlap),
            me.proof,
            me.witness
                .as_ref()
                .map_or("None".to_string(), PyWitness::__repr__),
            repr(&slf.getattr("counterexample")?)?
        ))
    }
}

/// A guard of a result: `kind` (`storage_overlap`, `shape`, `layout`,
/// `duplicate_input`, ...), its text in PyTorch's form (rendered by the
/// engine: `check_overlapping(...)`, `L['a'] is L['b']`, the shape
/// expression), its fields, and why the analysis depends on it.
#[pyclass(module = "symalias._native", name = "Guard", frozen, eq)]
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PyGuard {
    /// The guard's kind, as in the result document.
    #[pyo3(get)]
    kind: String,
    /// Its text in PyTorch's form.
    #[pyo3(get)]
    text: String,
    fields: serde_json::Map<String, serde_json::Value>,
    /// Why the analysis depends on it (empty when not known).
    #[pyo3(get)]
    reason: String,
}

/// The guards of a result document, each with the engine's text.
pub(crate) fn guards_of(docs: &[GuardDoc]) -> PyResult<Vec<PyGuard>> {
    let mut pool = symalias::ExprPool::new();
    let loaded = symalias::io::load_guards(&mut pool, docs).map_err(error::located)?;
    let none = BTreeMap::new();
    docs.iter()
        .zip(&loaded)
        .map(|(doc, g)| {
            let mut fields = match serde_json::to_value(doc) {
                Ok(serde_json::Value::Object(m)) => m,
                _ => return Err(PyRuntimeError::new_err("a guard document is not an object")),
            };
            let kind = match fields.remove("kind") {
                Some(serde_json::Value::String(k)) => k,
                _ => return Err(PyRuntimeError::new_err("a guard document has no kind")),
            };
            fields.remove("reason");
            fields.remove("fast_path");
            Ok(PyGuard {
                kind,
                text: g.kind.render(&pool, &none),
                fields,
                reason: doc.reason.clone(),
            })
        })
        .collect()
}

#[pymethods]
impl PyGuard {
    /// The condition's fields (sources, expressions, layouts), as in the
    /// result document.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonized(py, &self.fields)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(py, "Guard", state(self))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let me = slf.get();
        Ok(format!(
            "Guard(kind='{}', text={}, fields={}, reason={})",
            me.kind,
            repr(&slf.getattr("text")?)?,
            repr(&slf.getattr("fields")?)?,
            repr(&slf.getattr("reason")?)?
        ))
    }
}

/// The answer for one group of views of one storage (docs/FORMATS.md §3).
#[pyclass(module = "symalias._native", name = "OverlapResult", frozen, eq)]
#[derive(Clone, Debug)]
pub struct PyOverlapResult {
    doc: symalias::io::OverlapResult,
    guards: Vec<PyGuard>,
    /// The case it answers, when known: what its picture draws.
    case: Option<std::sync::Arc<symalias::io::OverlapCase>>,
}

/// Two results are equal when their documents are: the case a result keeps
/// for its picture is not part of the answer (a result restored from a
/// pickle has none and equals the original).
impl PartialEq for PyOverlapResult {
    fn eq(&self, other: &Self) -> bool {
        // The guards are made from the document's.
        self.doc == other.doc
    }
}

impl PyOverlapResult {
    /// The typed result of a result document.
    pub(crate) fn new(doc: symalias::io::OverlapResult) -> PyResult<Self> {
        let guards = guards_of(&doc.guards)?;
        Ok(PyOverlapResult {
            doc,
            guards,
            case: None,
        })
    }

    /// The typed result of `case`'s result document (it can draw itself).
    pub(crate) fn of_case(
        doc: symalias::io::OverlapResult,
        case: symalias::io::OverlapCase,
    ) -> PyResult<Self> {
        let mut r = Self::new(doc)?;
        r.case = Some(std::sync::Arc::new(case));
        Ok(r)
    }

    /// The document (for `GuardSet`).
    pub(crate) fn doc(&self) -> &symalias::io::OverlapResult {
        &self.doc
    }
}

#[pymethods]
impl PyOverlapResult {
    /// The picture of the case's memory (SVG text): each view's bytes, the
    /// bytes they share, the witness bytes, the verdict and the guards.
    /// None when the result was not made from a case (read from a document).
    fn svg(&self) -> PyResult<Option<String>> {
        self.case
            .as_deref()
            .map(|c| symalias::picture::overlap_svg(c, &self.doc))
            .transpose()
            .map_err(error::located)
    }

    /// What a notebook shows: the picture (`svg()`).
    fn _repr_svg_(&self) -> PyResult<Option<String>> {
        self.svg()
    }

    /// The case's id.
    #[getter]
    fn id(&self) -> &str {
        &self.doc.id
    }

    /// Tensor indices whose footprint meets another's, at the hints (sorted).
    #[getter]
    fn overlapping<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, &self.doc.overlapping)
    }

    /// The other tensor indices (sorted).
    #[getter]
    fn non_overlapping<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, &self.doc.non_overlapping)
    }

    /// True: proved for every allowed shape; False: refuted; None: undecided.
    #[getter]
    fn invariant(&self) -> Option<bool> {
        self.doc.invariant
    }

    /// What keeps the classification true at run time (empty when proved).
    #[getter]
    fn guards<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.guards.iter().cloned())
    }

    /// Every overlapping (or undecided) pair; pairs not listed are disjoint
    /// (unless `pairs_left_out` is not zero).
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.doc.pairs.iter().map(PyPair::from))
    }

    /// Candidate pairs inside an already connected component, neither
    /// decided nor listed (a degenerate group: many views over one place).
    #[getter]
    fn pairs_left_out(&self) -> usize {
        self.doc.pairs_left_out
    }

    /// The time limit (the wall-clock backstop) stopped some of the work:
    /// still sound, but an idler machine may decide more. False: the answer
    /// is a function of the case and the options alone.
    #[getter]
    fn time_limit_hit(&self) -> bool {
        self.doc.time_limit_hit
    }

    /// An allowed shape at which the classification changes, when refuted.
    #[getter]
    fn counterexample(&self) -> Option<BTreeMap<String, i64>> {
        self.doc.counterexample.clone()
    }

    /// Symbol → run-time source, for the symbols the guards use.
    #[getter]
    fn symbols(&self) -> BTreeMap<String, String> {
        self.doc.symbols.clone()
    }

    /// The engine's time, in microseconds.
    #[getter]
    fn micros(&self) -> u64 {
        self.doc.micros
    }

    /// Tensors that overlap themselves at the hints (sorted).
    #[getter]
    fn self_overlapping<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, &self.doc.self_overlapping)
    }

    /// Each tensor that overlaps itself at the hints or whose verdict is not
    /// proved for all shapes; a tensor not listed overlaps itself nowhere.
    #[getter]
    fn self_overlap<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.doc.self_overlap.iter().map(PySelfOverlap::from))
    }

    /// The result line as JSON text (what the CLI prints for this case).
    #[getter]
    fn json(&self) -> String {
        crate::to_json(&self.doc)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(py, "OverlapResult", crate::to_json(&self.doc))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let invariant = match self.doc.invariant {
            Some(b) => py_bool(b),
            None => "None",
        };
        Ok(format!(
            "OverlapResult(id={}, overlapping={}, non_overlapping={}, invariant={}, guards=<{}>, pairs=<{}>)",
            str_repr(py, &self.doc.id)?,
            tuple_repr(&self.doc.overlapping),
            tuple_repr(&self.doc.non_overlapping),
            invariant,
            self.guards.len(),
            self.doc.pairs.len()
        ))
    }
}

/// The result document of `analyze` (docs/FORMATS.md §5).
#[pyclass(module = "symalias._native", name = "ProgramResult", frozen, eq)]
#[derive(Clone, Debug)]
pub struct PyProgramResult {
    /// The document's text, as the CLI prints it.
    json: String,
    /// The same document, read back (what the getters convert).
    value: serde_json::Value,
    /// Its guards and symbols (for `GuardSet`).
    guard_docs: Vec<GuardDoc>,
    symbols: BTreeMap<String, String>,
    guards: Vec<PyGuard>,
    /// The program and its typed result, when known: what its pictures
    /// draw.
    program: Option<Arc<(ProgramDoc, symalias::io::ProgramResult)>>,
}

/// Two results are equal when their documents are: the program a result
/// keeps for its pictures is not part of the answer.
impl PartialEq for PyProgramResult {
    fn eq(&self, other: &Self) -> bool {
        self.json == other.json
    }
}

impl PyProgramResult {
    /// The typed result of `program`'s result document (it can draw its
    /// storage groups).
    pub(crate) fn of_program(
        program: ProgramDoc,
        doc: symalias::io::ProgramResult,
    ) -> PyResult<Self> {
        let mut r = Self::new(doc.clone())?;
        r.program = Some(Arc::new((program, doc)));
        Ok(r)
    }

    /// The typed result of a result document, built from the document
    /// itself (its guards and symbols moved, the rest as the getters'
    /// values; its text printed once, for `json()` and pickling).
    pub(crate) fn new(doc: symalias::io::ProgramResult) -> PyResult<Self> {
        let value = serde_json::to_value(&doc).map_err(|e| error::at_field("result", e))?;
        let guards = guards_of(&doc.guards)?;
        Ok(PyProgramResult {
            json: crate::to_json(&doc),
            value,
            guard_docs: doc.guards,
            symbols: doc.symbols,
            guards,
            program: None,
        })
    }

    /// The typed result of a result document's text.
    fn from_json(json: String) -> PyResult<Self> {
        #[derive(serde::Deserialize)]
        struct Guarded {
            guards: Vec<GuardDoc>,
            #[serde(default)]
            symbols: BTreeMap<String, String>,
        }
        let value: serde_json::Value =
            serde_json::from_str(&json).map_err(|e| error::at_field("result", e))?;
        let part: Guarded =
            serde_json::from_value(value.clone()).map_err(|e| error::at_field("result", e))?;
        let guards = guards_of(&part.guards)?;
        Ok(PyProgramResult {
            json,
            value,
            guard_docs: part.guards,
            symbols: part.symbols,
            guards,
            program: None,
        })
    }

    /// The document's guards and symbols (for `GuardSet`).
    pub(crate) fn guard_docs(&self) -> (&[GuardDoc], &BTreeMap<String, String>) {
        (&self.guard_docs, &self.symbols)
    }

    /// One field of the document as Python objects (None when absent).
    fn field<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        pythonized(py, &self.value.get(name))
    }

    /// One list field of the document.
    fn list(&self, name: &str) -> &[serde_json::Value] {
        self.value
            .get(name)
            .and_then(|v| v.as_array())
            .map_or(&[], |v| v.as_slice())
    }
}

#[pymethods]
impl PyProgramResult {
    /// The pictures of the program's storage groups (SVG text by storage,
    /// as `OverlapResult.svg` draws a case); None when the result was not
    /// made from a program (read from a document).
    fn svgs(&self) -> PyResult<Option<BTreeMap<String, String>>> {
        self.program
            .as_deref()
            .map(|(p, r)| symalias::picture::program_svgs(p, r).map(|v| v.into_iter().collect()))
            .transpose()
            .map_err(error::located)
    }

    /// What a notebook shows: each storage group's picture under its name
    /// (None as for `svgs`, or when no group was asked).
    fn _repr_html_(&self) -> PyResult<Option<String>> {
        let Some((p, r)) = self.program.as_deref() else {
            return Ok(None);
        };
        let html = symalias::picture::program_html(p, r).map_err(error::located)?;
        Ok((!html.is_empty()).then_some(html))
    }

    /// The program's id.
    #[getter]
    fn id(&self) -> &str {
        self.value.get("id").and_then(|v| v.as_str()).unwrap_or("")
    }

    /// Duplicate-input removal: `strategy`, `keep_arg_mask`, `add_dupe_map`.
    #[getter]
    fn dedupe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "dedupe")
    }

    /// Synthetic-base merging (None when no group needed one).
    #[getter]
    fn synthetic_bases<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "synthetic_bases")
    }

    /// One overlap result document per storage group that was asked.
    #[getter]
    fn overlap<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let docs = self
            .list("overlap")
            .iter()
            .map(|g| pythonized(py, g))
            .collect::<PyResult<Vec<_>>>()?;
        tuple(py, docs)
    }

    /// The view-and-mutation metadata of the deduplicated inputs.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "meta")
    }

    /// The graph signature (None when the program asks for none).
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "signature")
    }

    /// Every guard the program's answers need.
    #[getter]
    fn guards<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.guards.iter().cloned())
    }

    /// What a compiler would raise (e.g. aliased mutated inputs under export).
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let errors: Vec<&str> = self
            .list("errors")
            .iter()
            .filter_map(|e| e.as_str())
            .collect();
        tuple(py, errors)
    }

    /// The result document as JSON text (what the CLI prints).
    #[getter]
    fn json(&self) -> &str {
        &self.json
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ProgramResult(id={}, groups=<{}>, guards=<{}>, errors=<{}>)",
            str_repr(py, self.id())?,
            self.list("overlap").len(),
            self.guards.len(),
            self.list("errors").len()
        ))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(py, "ProgramResult", self.json.clone())
    }
}

/// A simplified expression (docs/FORMATS.md §4) and why the rewriting stopped.
#[pyclass(
    module = "symalias._native",
    name = "SimplifyResult",
    frozen,
    eq,
    hash,
    get_all
)]
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PySimplifyResult {
    /// The case's id.
    pub(crate) id: String,
    /// The simplified expression, in canonical form.
    pub(crate) expr: String,
    /// Tree size of the input.
    pub(crate) size_in: usize,
    /// Tree size of the output (never larger).
    pub(crate) size_out: usize,
    /// Why the rewriting stopped (`saturated`, `iteration limit`, ...).
    pub(crate) stop: String,
    /// The engine's time, in microseconds.
    pub(crate) micros: u64,
}

#[pymethods]
impl PySimplifyResult {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(py, "SimplifyResult", state(self))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "SimplifyResult(id={}, expr={}, size_in={}, size_out={}, stop={}, micros={})",
            str_repr(py, &self.id)?,
            str_repr(py, &self.expr)?,
            self.size_in,
            self.size_out,
            str_repr(py, &self.stop)?,
            self.micros
        ))
    }
}

/// A guard check: pass, or the first failing guard and why.
#[pyclass(
    module = "symalias._native",
    name = "Outcome",
    frozen,
    eq,
    hash,
    get_all
)]
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PyOutcome {
    /// Every guard holds.
    passed: bool,
    /// The first failing guard's text.
    failed: Option<String>,
    /// Why it fails.
    reason: Option<String>,
}

impl From<OutcomeDoc> for PyOutcome {
    fn from(o: OutcomeDoc) -> Self {
        PyOutcome {
            passed: o.pass,
            failed: o.failed,
            reason: o.reason,
        }
    }
}

#[pymethods]
impl PyOutcome {
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        reduce(py, "Outcome", state(self))
    }

    fn __bool__(&self) -> bool {
        self.passed
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Outcome(passed={}, failed={}, reason={})",
            py_bool(self.passed),
            opt_repr(py, &self.failed)?,
            opt_repr(py, &self.reason)?
        ))
    }
}
