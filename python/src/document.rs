//! The one way a document reaches the engine from Python: JSON text, or the
//! same document as Python objects (dicts, lists, strings, numbers)
//! converted natively by pythonize. A document that does not convert gets
//! the engine's located error (`io::InputError`: the case's `id` and the
//! field path, from `serde_path_to_error` over pythonize's `Depythonizer`),
//! and a float JSON cannot carry (NaN, ±inf) is named as such, wherever it
//! stands. A decision's picture draws the group as the §3 case it was
//! analysed as (`case_of`), made only when a picture is asked for. A
//! pickled `PartitionCheck` carries its guards as JSON text too
//! (`guards_text`, `guards_from_text`), and a `Decision` becomes a §3
//! result document only when one is asked for (`decision_json`,
//! `decision_result`, `decision_svg`): the other documents at this edge.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString, PyTuple};
use serde::de::DeserializeOwned;
use symalias::io::{parse_line, InputError, OverlapCase, SymbolSpec, TensorSpec};

use crate::decide::{PyDecision, ID};
use crate::results::PyOverlapResult;
use crate::symints::ReadGroup;

/// A document, read from Python, and its `id` when it has one.
pub(crate) struct Read<T> {
    pub(crate) id: Option<String>,
    pub(crate) value: Result<T, InputError>,
}

/// Reads a document given as JSON text or as Python objects.
pub(crate) fn read<T: DeserializeOwned>(doc: &Bound<'_, PyAny>) -> Read<T> {
    if let Ok(text) = doc.cast::<PyString>() {
        let text = match text.to_cow() {
            Ok(t) => t,
            Err(e) => return failed(None, None, format!("not UTF-8 text: {e}")),
        };
        let parsed = parse_line::<T>(1, &text);
        return Read {
            id: parsed.id,
            value: parsed.value.map_err(|e| InputError { line: None, ..e }),
        };
    }
    let id = id_of(doc);
    if let Ok(v) = pythonize::depythonize::<T>(doc) {
        return Read { id, value: Ok(v) };
    }
    if let Some((path, value)) = not_finite(doc, String::new(), DEPTH) {
        return failed(
            id,
            Some(path),
            format!("{value} is not a number the engine can take"),
        );
    }
    let mut de = pythonize::Depythonizer::from_object(doc);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(v) => Read { id, value: Ok(v) },
        Err(e) => {
            let path = e.path().to_string();
            let field = (path != ".").then_some(path);
            failed(id, field, e.into_inner().to_string())
        }
    }
}

fn failed<T>(id: Option<String>, field: Option<String>, message: String) -> Read<T> {
    Read {
        value: Err(InputError {
            line: None,
            id: id.clone(),
            field,
            message,
        }),
        id,
    }
}

/// A mapping's `id`, when it is a string or an int.
fn id_of(doc: &Bound<'_, PyAny>) -> Option<String> {
    let id = doc.cast::<PyDict>().ok()?.get_item("id").ok()??;
    if let Ok(s) = id.extract::<String>() {
        return Some(s);
    }
    id.extract::<i64>().ok().map(|i| i.to_string())
}

/// How deep `not_finite` looks (documents are shallow; a deeper one is
/// refused by the conversion's own error).
const DEPTH: usize = 64;

/// The first non-finite float in `doc` and its field path (as
/// `serde_path_to_error` writes paths: `a.b[0]`), looking `depth` deep.
fn not_finite(doc: &Bound<'_, PyAny>, path: String, depth: usize) -> Option<(String, String)> {
    if depth == 0 {
        return None;
    }
    if let Ok(f) = doc.cast::<PyFloat>() {
        let v = f.value();
        return (!v.is_finite()).then(|| (path, format!("{v}").to_lowercase()));
    }
    if let Ok(d) = doc.cast::<PyDict>() {
        for (k, v) in d.iter() {
            let key = k.str().map(|s| s.to_string()).unwrap_or_default();
            let at = if path.is_empty() {
                key
            } else {
                format!("{path}.{key}")
            };
            if let Some(found) = not_finite(&v, at, depth - 1) {
                return Some(found);
            }
        }
        return None;
    }
    let items: Vec<Bound<'_, PyAny>> = if let Ok(l) = doc.cast::<PyList>() {
        l.iter().collect()
    } else if let Ok(t) = doc.cast::<PyTuple>() {
        t.iter().collect()
    } else {
        return None;
    };
    items
        .iter()
        .enumerate()
        .find_map(|(i, v)| not_finite(v, format!("{path}[{i}]"), depth - 1))
}

/// A document's JSON text (what `json()` methods return).
pub(crate) fn text<T: serde::Serialize>(doc: &T) -> String {
    crate::to_json(doc)
}

/// A check's compiled guards as the JSON text it pickles as (printed only
/// to pickle, as pydantic-core's `SchemaSerializer` reduces to its schema).
pub(crate) fn guards_text(set: &symalias::GuardSet) -> String {
    text(&symalias::io::guard_set_docs(set))
}

/// The guards of a pickled check's JSON text, compiled; the error names
/// `field`.
pub(crate) fn guards_from_text(text: &str, field: &str) -> PyResult<symalias::GuardSet> {
    let docs: Vec<symalias::io::GuardDoc> =
        serde_json::from_str(text).map_err(|e| crate::error::at_field(field, e))?;
    symalias::io::prepare_guards(&docs, &std::collections::BTreeMap::new())
        .map_err(|e| crate::error::at_field(field, e))
}

/// A decision's §3 result document (made only when asked for:
/// `Decision.json`, `Decision.result`, `Decision.svg`).
fn decision_document(d: &PyDecision) -> symalias::io::OverlapResult {
    let mut doc = symalias::io::overlap_result_of(ID, &d.scope, d.report.clone());
    doc.micros = d.micros;
    doc
}

/// `Decision.json`: the result line as JSON text.
pub(crate) fn decision_json(d: &PyDecision) -> String {
    text(&decision_document(d))
}

/// `Decision.result`: the typed result object.
pub(crate) fn decision_result(d: &PyDecision) -> PyResult<PyOverlapResult> {
    PyOverlapResult::of_case(decision_document(d), case_of(&d.read, &d.names, ID))
}

/// `Decision.svg`: the picture of the group's memory.
pub(crate) fn decision_svg(d: &PyDecision) -> PyResult<String> {
    symalias::picture::overlap_svg(&case_of(&d.read, &d.names, ID), &decision_document(d))
        .map_err(crate::input_error)
}

/// A storage group as read from torch (`ReadGroup`), as the §3 case it was
/// analysed as: the views named by `names`, the symbols with their hints,
/// ranges and sources. Made only for a picture, never on a compile's path.
pub(crate) fn case_of(read: &ReadGroup, names: &[String], id: &str) -> OverlapCase {
    let symbols = read
        .decls
        .iter()
        .map(|(name, d)| {
            let spec = SymbolSpec {
                hint: d.hint,
                min: d.min,
                max: d.max,
                source: d.source.clone(),
            };
            (name.clone(), spec)
        })
        .collect();
    let tensors = read
        .tensors
        .iter()
        .zip(names)
        .map(|(t, name)| TensorSpec {
            source: Some(name.clone()),
            sizes: t.sizes.clone(),
            strides: t.strides.clone(),
            storage_offset: t.offset.clone(),
            itemsize: t.itemsize,
        })
        .collect();
    OverlapCase {
        id: id.into(),
        symbols,
        assumptions: Vec::new(),
        tensors,
        expect: None,
    }
}
