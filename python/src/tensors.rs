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
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyInt, PyTuple, PyType};
use symalias::layout::ViewRef;
use symalias::overlap::{overlapping_views, DEFAULT_BUDGET};

/// `torch.Tensor`, looked up once.
static TENSOR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
/// The unbound methods of `torch._C.TensorBase` read per tensor, in the
/// order of [`Method`], looked up once (calling a descriptor skips the
/// attribute lookup a method call by name does on every tensor).
static METHODS: PyOnceLock<[Py<PyAny>; 5]> = PyOnceLock::new();

/// The methods of [`METHODS`].
#[derive(Clone, Copy)]
pub(crate) enum Method {
    Size,
    Stride,
    StorageOffset,
    ElementSize,
    UntypedStorage,
}

/// Calls `method` on the tensor `t`.
pub(crate) fn call<'py>(
    py: Python<'py>,
    t: &Bound<'py, PyAny>,
    method: Method,
) -> PyResult<Bound<'py, PyAny>> {
    let methods = METHODS.get_or_try_init(py, || -> PyResult<[Py<PyAny>; 5]> {
        let base = py.import("torch")?.getattr("_C")?.getattr("TensorBase")?;
        let get = |name: &str| base.getattr(name).map(Bound::unbind);
        Ok([
            get("size")?,
            get("stride")?,
            get("storage_offset")?,
            get("element_size")?,
            get("untyped_storage")?,
        ])
    })?;
    methods[method as usize].bind(py).call1((t,))
}

/// `symalias._tensors.check_one`, looked up once.
static CHECK_ONE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// What reading one tensor gave: its storage object, or `None` when a
/// layout field holds a SymInt.
type Read<'py> = Option<Bound<'py, PyAny>>;

/// One tensor's scalar fields; its sizes and strides sit in the shared buffer.
struct Head {
    rank: usize,
    offset: i64,
    itemsize: i64,
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
    let mut out = Vec::new();
    Ok(push_ints(obj, &mut out)?.then_some(out))
}

/// Appends the exact ints of a tuple to `out`; `false` (and `out` partly
/// filled) when one is not an exact int.
fn push_ints(obj: &Bound<'_, PyAny>, out: &mut Vec<i64>) -> PyResult<bool> {
    for x in obj.cast::<PyTuple>()?.iter() {
        match int(&x)? {
            Some(v) => out.push(v),
            None => return Ok(false),
        }
    }
    Ok(true)
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

/// Reads `t` (the `i`-th tensor): sizes then strides appended to `buf`, its
/// scalar fields to `heads`, its storage object returned.
fn read<'py>(
    py: Python<'py>,
    t: &Bound<'py, PyAny>,
    i: usize,
    buf: &mut Vec<i64>,
    heads: &mut Vec<Head>,
) -> PyResult<Read<'py>> {
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
    let sizes = call(py, t, Method::Size).map_err(located)?;
    let strides = call(py, t, Method::Stride).map_err(located)?;
    let mark = buf.len();
    if !push_ints(&sizes, buf)? || !push_ints(&strides, buf)? {
        return Ok(None);
    }
    let rank = (buf.len() - mark) / 2;
    let offset = call(py, t, Method::StorageOffset).map_err(located)?;
    let Some(offset) = int(&offset)? else {
        return Ok(None);
    };
    let itemsize: i64 = call(py, t, Method::ElementSize)
        .map_err(located)?
        .extract()?;
    let storage = call(py, t, Method::UntypedStorage).map_err(located)?;
    heads.push(Head {
        rank,
        offset,
        itemsize,
    });
    Ok(Some(storage))
}

/// The overlapping indices of concrete tensors of one storage, ascending:
/// `(overlapping, None)`; `([], i)` when `tensors[i]` is in another storage
/// than `tensors[0]`; `None` when a layout holds a SymInt.
#[pyfunction]
pub fn overlapping_tensors(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
) -> PyResult<Option<(Vec<usize>, Option<usize>)>> {
    // Sizes and strides of every tensor in one buffer, views borrowed from it.
    let mut buf: Vec<i64> = Vec::new();
    let mut heads: Vec<Head> = Vec::new();
    let mut first_storage: Option<Bound<'_, PyAny>> = None;
    for (i, t) in tensors.try_iter()?.enumerate() {
        let Some(storage) = read(py, &t?, i, &mut buf, &mut heads)? else {
            return Ok(None);
        };
        if !first_storage
            .get_or_insert_with(|| storage.clone())
            .is(&storage)
        {
            return Ok(Some((Vec::new(), Some(i))));
        }
    }
    let mut views = Vec::with_capacity(heads.len());
    let mut at = 0;
    for (i, h) in heads.iter().enumerate() {
        let v = ViewRef {
            sizes: &buf[at..at + h.rank],
            strides: &buf[at + h.rank..at + 2 * h.rank],
            offset: h.offset,
            itemsize: h.itemsize,
        };
        at += 2 * h.rank;
        v.validate()
            .map_err(|e| crate::error::at_field(format!("tensors[{i}]"), e))?;
        views.push(v);
    }
    Ok(Some((
        py.detach(|| overlapping_views(&views, DEFAULT_BUDGET)),
        None,
    )))
}
