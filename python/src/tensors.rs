//! The native boundary for concrete tensors: layouts read from torch tensors
//! in Rust (no documents, no JSON), decided by the engine's short road
//! (`overlap::analyze_views`), the overlapping indices returned as a list.
//!
//! A tensor is read with five calls (`size()`, `stride()`,
//! `storage_offset()`, `element_size()`, `untyped_storage()` — storages
//! compared by object identity: torch keeps one Python object per live
//! storage, and the call holds the first one while it compares); a
//! tensor whose layout holds a SymInt makes the whole call answer `None`
//! (the caller takes the symbolic path). Objects of another type than
//! `torch.Tensor` are first shown to the package's validator, which refuses
//! what has no strided storage with a `TypeError` naming the index.

use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyInt, PyTuple, PyType};
use symalias::overlap::{analyze_views, DEFAULT_BUDGET};
use symalias::View;

use crate::InputError;

/// `torch.Tensor`, looked up once.
static TENSOR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
/// `symalias._tensors.check_one`, looked up once.
static CHECK_ONE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// What reading one tensor gave.
enum Read<'py> {
    View(View, Bound<'py, PyAny>),
    Symbolic,
}

/// An exact Python int as i64; None for anything else (a SymInt is read by
/// the symbolic path: converting it here would add a ShapeEnv guard).
pub(crate) fn int(x: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    match x.cast::<PyInt>() {
        Ok(i) => Ok(Some(i.extract()?)),
        Err(_) => Ok(None),
    }
}

pub(crate) fn ints(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<i64>>> {
    let tuple = obj.cast::<PyTuple>()?;
    let mut out = Vec::with_capacity(tuple.len());
    for x in tuple.iter() {
        match int(&x)? {
            Some(v) => out.push(v),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The validator's verdict on `tensors[i]` (a `TypeError` naming it), else
/// the error reading it gave, located.
fn refused(py: Python<'_>, t: &Bound<'_, PyAny>, i: usize, e: PyErr) -> PyErr {
    match check_one(py, t, i) {
        Err(refusal) => refusal,
        Ok(()) => PyTypeError::new_err(format!("tensors[{i}]: {}", e.value(py))),
    }
}

fn check_one(py: Python<'_>, t: &Bound<'_, PyAny>, i: usize) -> PyResult<()> {
    let check = CHECK_ONE.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("symalias._tensors")?
            .getattr("check_one")?
            .unbind())
    })?;
    check.bind(py).call1((t, i))?;
    Ok(())
}

fn read<'py>(py: Python<'py>, t: &Bound<'py, PyAny>, i: usize) -> PyResult<Read<'py>> {
    let tensor = TENSOR.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        Ok(py
            .import("torch")?
            .getattr("Tensor")?
            .cast_into::<PyType>()?
            .unbind())
    })?;
    if !t.get_type().is(tensor.bind(py)) {
        check_one(py, t, i)?;
    }
    let located = |e: PyErr| refused(py, t, i, e);
    let sizes = t.call_method0(intern!(py, "size")).map_err(located)?;
    let strides = t.call_method0(intern!(py, "stride")).map_err(located)?;
    let (Some(sizes), Some(strides)) = (ints(&sizes)?, ints(&strides)?) else {
        return Ok(Read::Symbolic);
    };
    let offset = t
        .call_method0(intern!(py, "storage_offset"))
        .map_err(located)?;
    let Some(offset) = int(&offset)? else {
        return Ok(Read::Symbolic);
    };
    let itemsize: i64 = t
        .call_method0(intern!(py, "element_size"))
        .map_err(located)?
        .extract()?;
    let storage = t
        .call_method0(intern!(py, "untyped_storage"))
        .map_err(located)?;
    Ok(Read::View(
        View {
            sizes,
            strides,
            offset,
            itemsize,
        },
        storage,
    ))
}

/// The overlapping indices of concrete tensors of one storage, ascending:
/// `(overlapping, None)`; `([], i)` when `tensors[i]` is in another storage
/// than `tensors[0]`; `None` when a layout holds a SymInt.
#[pyfunction]
pub fn overlapping_tensors(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
) -> PyResult<Option<(Vec<usize>, Option<usize>)>> {
    let mut views = Vec::new();
    let mut first_storage: Option<Bound<'_, PyAny>> = None;
    for (i, t) in tensors.try_iter()?.enumerate() {
        match read(py, &t?, i)? {
            Read::Symbolic => return Ok(None),
            Read::View(v, storage) => {
                if !first_storage
                    .get_or_insert_with(|| storage.clone())
                    .is(&storage)
                {
                    return Ok(Some((Vec::new(), Some(i))));
                }
                v.validate()
                    .map_err(|e| InputError::new_err(format!("tensors[{i}]: {e}")))?;
                views.push(v);
            }
        }
    }
    let answer = py.detach(|| analyze_views(&views, DEFAULT_BUDGET));
    Ok(Some((answer.overlapping, None)))
}
