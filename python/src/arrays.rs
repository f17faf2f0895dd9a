//! Array drop-ins: numpy's `shares_memory` and `may_share_memory`, and an
//! exact `has_internal_overlap`, for any object that says where its bytes
//! are.
//!
//! A layout is read, in this order, from the buffer protocol (numpy arrays,
//! `bytes`, `memoryview`, `array.array`, anything that exports one), from
//! `__array_interface__`, from `__cuda_array_interface__`, then from
//! `__dlpack__` (torch, CuPy, JAX). Nothing is copied and nothing is
//! imported: the object's own protocol is asked. Two layouts are compared
//! by address, as numpy does: byte strides (negative ones flipped, which
//! keeps the set of bytes), each element covering `itemsize` bytes, so
//! byte-reinterpreted and misaligned views are exact.
//!
//! `max_work` is numpy's: `-1` (`MAY_SHARE_EXACT`, also `-2`) decides
//! exactly; `0` (`MAY_SHARE_BOUNDS`) compares only the extents; a positive
//! value is a budget, here the engine's search nodes, past which the answer
//! is "too hard". `shares_memory` raises numpy's `TooHardError` then (a
//! `symalias.TooHardError` that is also numpy's when numpy is loaded:
//! `error::too_hard`);
//! `may_share_memory` says `True`, as numpy does.
//!
//! Address spaces: the host and the devices that share its unified
//! addresses (DLPack's CPU, CUDA, CUDA host, CUDA managed, ROCm, ROCm host;
//! every `__cuda_array_interface__`) are one space; any other device is its
//! own (type, id), and two objects in different spaces share nothing.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::error::too_hard;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use smallvec::SmallVec;
use symalias::layout::{View, ViewRef};
use symalias::overlap::{internal_overlap_with, pair_overlap, Effort, Verdict, DEFAULT_BUDGET};

/// numpy's "bounds only" constant.
const MAY_SHARE_BOUNDS: i64 = 0;

/// How long the exact stage may run before an exact call gives up (it
/// never has on numpy's hard instances: milliseconds).
const EXACT_LIMIT: Duration = Duration::from_secs(600);

/// DLPack device types whose addresses are the host's unified ones.
const UNIFIED: [i32; 6] = [1, 2, 3, 10, 11, 13];

/// Where addresses live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    /// The host's unified address space.
    Host,
    /// Any other device: (DLPack device type, id).
    Device(i32, i32),
}

/// Sizes or strides, inline up to numpy's usual ranks (no allocation).
type Dims = SmallVec<[i64; 8]>;

/// One object's bytes: `address + Σ i_k·strides[k] + [0, itemsize)`.
struct Layout {
    space: Space,
    address: i128,
    shape: Dims,
    /// In bytes.
    strides: Dims,
    itemsize: i64,
}

/// A layout with non-negative strides: the same bytes from `low`.
struct Normal {
    space: Space,
    low: i128,
    /// One past the last byte.
    high: i128,
    sizes: Dims,
    strides: Dims,
    itemsize: i64,
}

impl Layout {
    /// `None` for an object with no bytes.
    fn normal(self) -> Option<Normal> {
        if self.shape.contains(&0) {
            return None;
        }
        let mut low = self.address;
        let mut span: i128 = 0;
        let mut strides = self.strides;
        for (n, s) in self.shape.iter().zip(strides.iter_mut()) {
            let reach = (*n as i128 - 1) * *s as i128;
            if *s < 0 {
                low += reach;
                *s = -*s;
            }
            span += reach.abs();
        }
        Some(Normal {
            space: self.space,
            low,
            high: low + span + self.itemsize as i128,
            sizes: self.shape,
            strides,
            itemsize: self.itemsize,
        })
    }
}

// ---------------------------------------------------------------- reading ----

/// CPython's `Py_buffer` (unchanged since 3.3; in the stable ABI from 3.11).
#[repr(C)]
struct PyBuffer {
    buf: *mut c_void,
    obj: *mut pyo3::ffi::PyObject,
    len: isize,
    itemsize: isize,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut isize,
    strides: *mut isize,
    suboffsets: *mut isize,
    internal: *mut c_void,
}

/// `PyBUF_STRIDES`: shape and strides, read-only is fine.
const PYBUF_STRIDES: c_int = 0x0018;

type GetBuffer = unsafe extern "C" fn(*mut pyo3::ffi::PyObject, *mut PyBuffer, c_int) -> c_int;
type ReleaseBuffer = unsafe extern "C" fn(*mut PyBuffer);

/// The buffer protocol's two functions, looked up in the running
/// interpreter: the wheel is built for the stable ABI of 3.9, which names
/// them only from 3.11, while every CPython 3 exports them.
fn buffer_api() -> Option<(GetBuffer, ReleaseBuffer)> {
    static API: OnceLock<Option<(GetBuffer, ReleaseBuffer)>> = OnceLock::new();
    *API.get_or_init(|| unsafe {
        let get = libc::dlsym(libc::RTLD_DEFAULT, c"PyObject_GetBuffer".as_ptr());
        let release = libc::dlsym(libc::RTLD_DEFAULT, c"PyBuffer_Release".as_ptr());
        if get.is_null() || release.is_null() {
            return None;
        }
        Some((
            std::mem::transmute::<*mut c_void, GetBuffer>(get),
            std::mem::transmute::<*mut c_void, ReleaseBuffer>(release),
        ))
    })
}

/// The object's buffer, if it exports one (`None` otherwise, the error
/// cleared); its bytes stay where they are, the view is released at once.
fn from_buffer(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<Layout>> {
    let Some((get, release)) = buffer_api() else {
        return Ok(None);
    };
    let mut view = std::mem::MaybeUninit::<PyBuffer>::zeroed();
    // SAFETY: `obj` is alive (borrowed with the GIL held); on success the
    // exporter filled `view`, released below whatever happens.
    if unsafe { get(obj.as_ptr(), view.as_mut_ptr(), PYBUF_STRIDES) } != 0 {
        // Not an exporter (or not of this kind): the next protocol is asked.
        let _ = PyErr::take(obj.py());
        return Ok(None);
    }
    let mut view = unsafe { view.assume_init() };
    let read = (|| {
        if !view.suboffsets.is_null() {
            return Err(PyValueError::new_err(format!(
                "{name}: its buffer is indirect (suboffsets): no strided layout"
            )));
        }
        let ndim = view.ndim.max(0) as usize;
        if ndim > 0 && (view.shape.is_null() || view.strides.is_null()) {
            return Err(PyValueError::new_err(format!(
                "{name}: its buffer gave no shape or strides"
            )));
        }
        let (shape, strides) = if ndim == 0 {
            (Dims::new(), Dims::new())
        } else {
            // SAFETY: PyBUF_STRIDES asks for both, `ndim` long.
            unsafe {
                (
                    std::slice::from_raw_parts(view.shape, ndim)
                        .iter()
                        .map(|&v| v as i64)
                        .collect(),
                    std::slice::from_raw_parts(view.strides, ndim)
                        .iter()
                        .map(|&v| v as i64)
                        .collect(),
                )
            }
        };
        Ok(Layout {
            space: Space::Host,
            address: view.buf as usize as i128,
            shape,
            strides,
            itemsize: view.itemsize as i64,
        })
    })();
    unsafe { release(&mut view) };
    read.map(Some)
}

fn int_tuple(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Dims> {
    let t = v
        .cast::<PyTuple>()
        .map_err(|_| PyValueError::new_err(format!("{what}: a tuple of integers expected")))?;
    t.iter()
        .map(|x| x.extract::<i64>())
        .collect::<PyResult<Dims>>()
        .map_err(|_| PyValueError::new_err(format!("{what}: a tuple of integers expected")))
}

/// Bytes per element of an array-interface `typestr` (`<f8`, `|V16`,
/// `<U4`: four characters of four bytes, `|O`: a pointer).
fn typestr_itemsize(typestr: &str, what: &str) -> PyResult<i64> {
    let bad = || PyValueError::new_err(format!("{what}.typestr: {typestr:?} is not a type string"));
    let mut chars = typestr.chars();
    let (_, kind) = (chars.next().ok_or_else(bad)?, chars.next().ok_or_else(bad)?);
    let digits: String = chars.take_while(char::is_ascii_digit).collect();
    let n: i64 = if digits.is_empty() {
        match kind {
            'O' => std::mem::size_of::<usize>() as i64,
            _ => return Err(bad()),
        }
    } else {
        digits.parse().map_err(|_| bad())?
    };
    Ok(if kind == 'U' { 4 * n } else { n })
}

/// C-contiguous byte strides of `shape`.
fn contiguous(shape: &[i64], itemsize: i64) -> Dims {
    let mut strides: Dims = smallvec::smallvec![0; shape.len()];
    let mut s = itemsize;
    for d in (0..shape.len()).rev() {
        strides[d] = s;
        s = s.saturating_mul(shape[d].max(1));
    }
    strides
}

/// An `__array_interface__` or `__cuda_array_interface__` dictionary.
fn from_interface(
    obj: &Bound<'_, PyAny>,
    d: &Bound<'_, PyAny>,
    what: &str,
    space: Space,
) -> PyResult<Layout> {
    let d = d
        .cast::<PyDict>()
        .map_err(|_| PyValueError::new_err(format!("{what}: a dict expected")))?;
    let get = |key: &str| d.get_item(key);
    let shape = int_tuple(
        &get("shape")?.ok_or_else(|| PyValueError::new_err(format!("{what}: no 'shape'")))?,
        &format!("{what}.shape"),
    )?;
    let typestr: String = get("typestr")?
        .ok_or_else(|| PyValueError::new_err(format!("{what}: no 'typestr'")))?
        .extract()
        .map_err(|_| PyValueError::new_err(format!("{what}.typestr: a string expected")))?;
    let itemsize = typestr_itemsize(&typestr, what)?;
    let strides = match get("strides")? {
        Some(s) if !s.is_none() => int_tuple(&s, &format!("{what}.strides"))?,
        _ => contiguous(&shape, itemsize),
    };
    if strides.len() != shape.len() {
        return Err(PyValueError::new_err(format!(
            "{what}: {} strides for {} dimensions",
            strides.len(),
            shape.len()
        )));
    }
    let data = get("data")?;
    let address = match data {
        Some(data) if data.is_instance_of::<PyTuple>() => {
            let ptr = data
                .get_item(0)
                .and_then(|p| p.extract::<u64>())
                .map_err(|_| {
                    PyValueError::new_err(format!("{what}.data: (address, read-only) expected"))
                })?;
            ptr as i128
        }
        // The data is a buffer (or the object itself is one): its address,
        // plus the interface's `offset`.
        other => {
            let owner = match &other {
                Some(b) if !b.is_none() => b.clone(),
                _ => obj.clone(),
            };
            let Some(buf) = from_buffer(&owner, what)? else {
                return Err(PyValueError::new_err(format!(
                    "{what}.data: neither an address nor a buffer"
                )));
            };
            let offset: i64 = match get("offset")? {
                Some(o) => o.extract().map_err(|_| {
                    PyValueError::new_err(format!("{what}.offset: an integer expected"))
                })?,
                None => 0,
            };
            buf.address + offset as i128
        }
    };
    Ok(Layout {
        space,
        address,
        shape,
        strides,
        itemsize,
    })
}

/// DLPack's `DLTensor`.
#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device_type: i32,
    device_id: i32,
    ndim: i32,
    code: u8,
    bits: u8,
    lanes: u16,
    shape: *const i64,
    strides: *const i64,
    byte_offset: u64,
}

/// DLPack's `DLManagedTensorVersioned` up to its tensor.
#[repr(C)]
struct DLManagedVersioned {
    major: u32,
    minor: u32,
    manager_ctx: *mut c_void,
    deleter: *mut c_void,
    flags: u64,
    tensor: DLTensor,
}

/// A layout through `__dlpack__` (a capsule, read and left unconsumed: the
/// producer frees it when the capsule goes).
fn from_dlpack(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Layout> {
    let capsule = match obj.call_method0("__dlpack__") {
        Ok(c) => c,
        // torch refuses a tensor that requires grad: its detached twin has
        // the same bytes.
        Err(e) => match obj.call_method0("detach") {
            Ok(d) => d.call_method0("__dlpack__").map_err(|_| e)?,
            Err(_) => return Err(e),
        },
    };
    let cap = capsule.as_ptr();
    // SAFETY: a capsule's name and pointer are read while it is alive (held
    // by `capsule`); the tensor lives as long as the capsule.
    unsafe {
        let cname = pyo3::ffi::PyCapsule_GetName(cap);
        if cname.is_null() {
            let _ = PyErr::take(obj.py());
            return Err(PyTypeError::new_err(format!(
                "{name}.__dlpack__() returned no capsule"
            )));
        }
        let cname = CStr::from_ptr(cname);
        let t: &DLTensor = if cname == c"dltensor" {
            &*(pyo3::ffi::PyCapsule_GetPointer(cap, cname.as_ptr()) as *const DLTensor)
        } else if cname == c"dltensor_versioned" {
            &(*(pyo3::ffi::PyCapsule_GetPointer(cap, cname.as_ptr()) as *const DLManagedVersioned))
                .tensor
        } else {
            return Err(PyTypeError::new_err(format!(
                "{name}.__dlpack__() returned a capsule named {cname:?} (used or unknown)"
            )));
        };
        let bits = t.bits as i64 * t.lanes as i64;
        if bits % 8 != 0 || bits == 0 {
            return Err(PyValueError::new_err(format!(
                "{name}: a DLPack element of {bits} bits is not a whole number of bytes"
            )));
        }
        let itemsize = bits / 8;
        let ndim = t.ndim.max(0) as usize;
        let shape: Dims = if ndim == 0 {
            Dims::new()
        } else {
            Dims::from_slice(std::slice::from_raw_parts(t.shape, ndim))
        };
        let strides = if t.strides.is_null() || ndim == 0 {
            contiguous(&shape, itemsize)
        } else {
            std::slice::from_raw_parts(t.strides, ndim)
                .iter()
                .map(|&s| s.saturating_mul(itemsize))
                .collect()
        };
        let space = if UNIFIED.contains(&t.device_type) {
            Space::Host
        } else {
            Space::Device(t.device_type, t.device_id)
        };
        Ok(Layout {
            space,
            address: t.data as usize as i128 + t.byte_offset as i128,
            shape,
            strides,
            itemsize,
        })
    }
}

/// The layout of `obj` (argument `name`), by the first protocol it speaks.
fn read(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Layout> {
    if let Some(l) = from_buffer(obj, name)? {
        return Ok(l);
    }
    if let Ok(d) = obj.getattr(pyo3::intern!(obj.py(), "__array_interface__")) {
        return from_interface(obj, &d, &format!("{name}.__array_interface__"), Space::Host);
    }
    if let Ok(d) = obj.getattr(pyo3::intern!(obj.py(), "__cuda_array_interface__")) {
        return from_interface(
            obj,
            &d,
            &format!("{name}.__cuda_array_interface__"),
            Space::Host,
        );
    }
    if obj.hasattr(pyo3::intern!(obj.py(), "__dlpack__"))? {
        return from_dlpack(obj, name);
    }
    Err(PyTypeError::new_err(format!(
        "{name}: {} object exposes no array layout (the buffer protocol, \
         __array_interface__, __cuda_array_interface__ or __dlpack__)",
        obj.get_type().name()?
    )))
}

// ---------------------------------------------------------------- deciding ----

/// What a decision answered.
enum Answer {
    No,
    Yes,
    /// No answer within the work asked for: why.
    TooHard(&'static str),
}

/// numpy's message when `max_work` runs out.
const EXCEEDED: &str = "Exceeded max_work";
/// An exact call whose exact stage stopped at its limit (none seen).
const GAVE_UP: &str = "the exact stage reached its limit before an answer";

/// numpy's `max_work` argument: `None` takes `default`.
fn max_work(value: Option<&Bound<'_, PyAny>>, default: i64) -> PyResult<i64> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(default);
    };
    let Ok(n) = v.extract::<i128>() else {
        return Err(PyValueError::new_err("max_work must be an integer"));
    };
    let n = i64::try_from(n).map_err(|_| PyOverflowError::new_err("max_work: too large"))?;
    if n < -2 {
        return Err(PyValueError::new_err("Invalid value for max_work"));
    }
    Ok(n)
}

/// The search's node budget for `max_work` (an exact call: the default).
fn budget(max_work: i64) -> u64 {
    u64::try_from(max_work).unwrap_or(DEFAULT_BUDGET)
}

/// The whole effort for `max_work`: the search, then for an exact call
/// (`max_work < 0`) the exact stage until [`EXACT_LIMIT`] from now.
fn effort(max_work: i64) -> Effort {
    Effort {
        budget: budget(max_work),
        exact_until: (max_work < 0).then(|| Instant::now() + EXACT_LIMIT),
    }
}

fn overflow() -> PyErr {
    PyOverflowError::new_err("Integer overflow in computing overlap")
}

/// The two layouts' answer with `max_work` (numpy's meaning).
fn pair_answer(py: Python<'_>, a: Layout, b: Layout, max_work: i64) -> PyResult<Answer> {
    let (Some(a), Some(b)) = (a.normal(), b.normal()) else {
        return Ok(Answer::No);
    };
    if a.space != b.space || !(a.low < b.high && b.low < a.high) {
        return Ok(Answer::No);
    }
    if max_work == MAY_SHARE_BOUNDS {
        return Ok(Answer::TooHard(EXCEEDED));
    }
    let base = a.low.min(b.low);
    let offset = |n: &Normal| i64::try_from(n.low - base).map_err(|_| overflow());
    let (oa, ob) = (offset(&a)?, offset(&b)?);
    let k = a.itemsize;
    // Elements as the unit when both are whole elements of one size apart;
    // else bytes, each element a dimension of `itemsize` bytes.
    let elements =
        b.itemsize == k && whole_elements(k, [oa, ob].iter().chain(&a.strides).chain(&b.strides));
    let (mut a, mut b) = (a, b);
    let unit = if elements { k } else { 1 };
    for n in [&mut a, &mut b] {
        in_unit(n, elements);
    }
    let va = ViewRef {
        sizes: &a.sizes,
        strides: &a.strides,
        offset: oa / unit,
        itemsize: unit,
    };
    let vb = ViewRef {
        sizes: &b.sizes,
        strides: &b.strides,
        offset: ob / unit,
        itemsize: unit,
    };
    va.validate().map_err(|_| overflow())?;
    vb.validate().map_err(|_| overflow())?;
    // The search first, holding the GIL (most pairs end there, in well
    // under a microsecond); the exact stage, which may take a while, lets
    // other threads run (it repeats the bounded search: a few ms at most).
    let search = Effort {
        budget: budget(max_work),
        exact_until: None,
    };
    let verdict = match pair_overlap(va, vb, search) {
        Verdict::Undecided if max_work < 0 => {
            let exact = effort(max_work);
            py.detach(|| pair_overlap(va, vb, exact))
        }
        verdict => verdict,
    };
    Ok(match verdict {
        Verdict::Disjoint => Answer::No,
        Verdict::Overlap(_) => Answer::Yes,
        Verdict::Undecided => Answer::TooHard(if max_work < 0 { GAVE_UP } else { EXCEEDED }),
    })
}

/// Every byte distance in `distances` is a whole number of `itemsize`-byte
/// elements: elements can be the unit ([`in_unit`]).
fn whole_elements<'a>(itemsize: i64, mut distances: impl Iterator<Item = &'a i64>) -> bool {
    itemsize > 0 && distances.all(|d| d % itemsize == 0)
}

/// `n`'s strides in elements (`elements`: each a multiple of the
/// itemsize), else in bytes with the element's bytes as a last dimension.
fn in_unit(n: &mut Normal, elements: bool) {
    if elements {
        let k = n.itemsize;
        n.strides.iter_mut().for_each(|s| *s /= k);
    } else {
        n.sizes.push(n.itemsize);
        n.strides.push(1);
    }
}

/// Whether `a` and `b` share a byte, exactly (numpy's `shares_memory`).
#[pyfunction]
#[pyo3(signature = (a, b, /, max_work = None))]
pub fn shares_memory(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    max_work: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let work = self::max_work(max_work, -1)?;
    match pair_answer(py, read(a, "a")?, read(b, "b")?, work)? {
        Answer::No => Ok(false),
        Answer::Yes => Ok(true),
        Answer::TooHard(why) => Err(too_hard(py, why)),
    }
}

/// Whether `a` and `b` may share a byte (numpy's `may_share_memory`: the
/// extents by default; "too hard" reads as `True`).
#[pyfunction]
#[pyo3(signature = (a, b, /, max_work = None))]
pub fn may_share_memory(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    max_work: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let work = self::max_work(max_work, MAY_SHARE_BOUNDS)?;
    Ok(!matches!(
        pair_answer(py, read(a, "a")?, read(b, "b")?, work)?,
        Answer::No
    ))
}

/// Whether two different indices of `a` reach one byte, exactly (numpy's
/// `internal_overlap` with no work bound).
#[pyfunction]
pub fn array_internal_overlap(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<bool> {
    let Some(n) = read(a, "a")?.normal() else {
        return Ok(false);
    };
    let k = n.itemsize;
    let mut n = n;
    let elements = whole_elements(k, n.strides.iter());
    in_unit(&mut n, elements);
    let view = View {
        sizes: n.sizes.to_vec(),
        strides: n.strides.to_vec(),
        offset: 0,
        itemsize: if elements { k } else { 1 },
    };
    view.validate().map_err(|_| overflow())?;
    let effort = effort(-1);
    match py.detach(|| internal_overlap_with(&view, effort)) {
        Verdict::Disjoint => Ok(false),
        Verdict::Overlap(_) => Ok(true),
        Verdict::Undecided => Err(too_hard(py, GAVE_UP)),
    }
}
