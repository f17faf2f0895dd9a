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
//! `torch.Tensor` are first shown to the validator (`check_strided`), which
//! refuses what has no strided storage with a `TypeError` naming the index.

use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyInt, PyTuple, PyType};
use symalias::layout::ViewRef;
use symalias::overlap::{overlapping_views_until, ProofOptions, DEFAULT_BUDGET};

/// The unbound methods of `torch._C.TensorBase` read per tensor, in the
/// order of [`Method`], looked up once (calling a descriptor skips the
/// attribute lookup a method call by name does on every tensor).
static METHODS: PyOnceLock<[Py<PyAny>; 7]> = PyOnceLock::new();

/// The methods of [`METHODS`].
#[derive(Clone, Copy)]
pub(crate) enum Method {
    Size,
    Stride,
    StorageOffset,
    ElementSize,
    UntypedStorage,
    /// Read by an `AddressCheck` only.
    DataPtr,
    /// Read by an `AddressCheck` only (takes the other tensor).
    IsSetTo,
}

/// Calls `method` on the tensor `t`.
pub(crate) fn call<'py>(
    py: Python<'py>,
    t: &Bound<'py, PyAny>,
    method: Method,
) -> PyResult<Bound<'py, PyAny>> {
    methods(py)?[method as usize].bind(py).call1((t,))
}

/// Calls `method` on the tensor `t` with the one argument `other`.
pub(crate) fn call_with<'py>(
    py: Python<'py>,
    t: &Bound<'py, PyAny>,
    method: Method,
    other: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    methods(py)?[method as usize].bind(py).call1((t, other))
}

fn methods(py: Python<'_>) -> PyResult<&[Py<PyAny>; 7]> {
    METHODS.get_or_try_init(py, || -> PyResult<[Py<PyAny>; 7]> {
        let base = py.import("torch")?.getattr("_C")?.getattr("TensorBase")?;
        let get = |name: &str| base.getattr(name).map(Bound::unbind);
        Ok([
            get("size")?,
            get("stride")?,
            get("storage_offset")?,
            get("element_size")?,
            get("untyped_storage")?,
            get("data_ptr")?,
            get("is_set_to")?,
        ])
    })
}

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

/// The torch objects the validator compares with, looked up once:
/// `torch.Tensor` and `torch.strided`.
static TORCH: PyOnceLock<(Py<PyType>, Py<PyAny>)> = PyOnceLock::new();

fn tensor_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    Ok(torch_objects(py)?.0.bind(py))
}

fn torch_objects(py: Python<'_>) -> PyResult<&(Py<PyType>, Py<PyAny>)> {
    TORCH.get_or_try_init(py, || -> PyResult<(Py<PyType>, Py<PyAny>)> {
        let torch = py.import("torch")?;
        let tensor = torch.getattr("Tensor")?.cast_into::<PyType>()?.unbind();
        Ok((tensor, torch.getattr("strided")?.unbind()))
    })
}

/// Refuses, with a `TypeError` naming `tensors[i]`, what has no strided
/// storage read through its own sizes and strides: non-tensors, nested and
/// non-strided (sparse, …) tensors, and traceable wrapper subclasses (their
/// memory lives in their inner tensors; the test is torch 2.15's
/// `is_traceable_wrapper_subclass`: a subclass whose type has
/// `__tensor_flatten__` and `__tensor_unflatten__`). Meta tensors and
/// FakeTensors pass: a layout is metadata, storages compare by identity.
pub(crate) fn check_strided(t: &Bound<'_, PyAny>, i: usize) -> PyResult<()> {
    let py = t.py();
    let (tensor, strided) = torch_objects(py)?;
    let ty = t.get_type();
    if !t.is_instance(tensor.bind(py))? {
        return Err(PyTypeError::new_err(format!(
            "tensors[{i}] is {}, not a torch.Tensor",
            ty.name()?
        )));
    }
    if t.getattr(intern!(py, "is_nested"))?.is_truthy()? {
        return Err(PyTypeError::new_err(format!(
            "tensors[{i}] is a nested tensor: it has no single strided layout"
        )));
    }
    let layout = t.getattr(intern!(py, "layout"))?;
    if !layout.is(strided.bind(py)) {
        return Err(PyTypeError::new_err(format!(
            "tensors[{i}] has layout {}: only strided tensors have sizes and strides over a storage",
            layout.str()?
        )));
    }
    if !ty.is(tensor.bind(py))
        && ty.hasattr(intern!(py, "__tensor_flatten__"))?
        && ty.hasattr(intern!(py, "__tensor_unflatten__"))?
    {
        return Err(PyTypeError::new_err(format!(
            "tensors[{i}] is a {}, a wrapper subclass: its memory lives in its inner tensors (pass those)",
            ty.name()?
        )));
    }
    Ok(())
}

/// The validator's verdict on `tensors[i]` after reading it failed with
/// `e` (a `TypeError` naming it), else `e` located at `tensors[i]`.
fn refused(t: &Bound<'_, PyAny>, i: usize, e: PyErr) -> PyErr {
    match check_strided(t, i) {
        Err(refusal) => refusal,
        Ok(()) => PyTypeError::new_err(format!("tensors[{i}]: {}", e.value(t.py()))),
    }
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
    if !t.get_type().is(tensor_type(py)?) {
        check_strided(t, i)?;
    }
    let located = |e: PyErr| refused(t, i, e);
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

/// The overlapping indices of concrete tensors of one storage, ascending;
/// `None` when a layout holds a SymInt. Raises `DifferentStoragesError`
/// when `tensors[i]` is in another storage than `tensors[0]`.
#[pyfunction]
pub fn overlapping_tensors(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
) -> PyResult<Option<Vec<usize>>> {
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
            return Err(crate::error::different_storages(i));
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
    // A pair beyond the search is decided exactly within the engine's
    // default time limit (counted as overlapping past it).
    let deadline = std::time::Instant::now() + ProofOptions::default().time_limit;
    Ok(Some(py.detach(|| {
        overlapping_views_until(&views, DEFAULT_BUDGET, deadline)
    })))
}
