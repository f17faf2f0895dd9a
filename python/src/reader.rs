//! The native tensor reader: a tensor's storage, offset, sizes, strides and
//! itemsize read below Python, for the run-time checks (`checks`).
//!
//! Nothing here is trusted until `symalias.torch.install()` has verified
//! it on the installed torch (`reader_enable`), and it reads only tensors
//! whose type is exactly one of the types install gave (`torch.Tensor`,
//! `torch.nn.Parameter`: no `__torch_function__` of their own); every
//! other object, and every tensor while the reader is off, is read through
//! torch's Python methods, with the same answers (`checks::Reads`).
//!
//! What it reads, and why each step is sound:
//!
//! - The tensor handle: `THPVariable` is `{PyObject_HEAD; at::Tensor
//!   cdata; …}` (torch's `python_variable.h`, which install checks in the
//!   installed headers), so `obj + sizeof(PyObject)` is an `at::Tensor*`:
//!   the `AtenTensorHandle` of torch's C shim for AOTInductor, an ABI torch
//!   keeps stable across releases.
//! - Offset, sizes, strides, dtype: the shim's `aoti_torch_get_*`
//!   functions, looked up in the loaded `libtorch_cpu`; a non-zero return
//!   (a C++ exception caught in the shim) is a failed read.
//! - The storage's identity: `c10::TensorImpl`'s first field is its
//!   `Storage` (an intrusive pointer to the `StorageImpl`), after the
//!   `intrusive_ptr_target` header (a vtable pointer and one or two
//!   refcount words). Install finds which of the two offsets holds, on a
//!   battery of tensors, by comparing with `untyped_storage()._cdata` (the
//!   same `StorageImpl*`, the identity the Python path compares too);
//!   reading either offset stays inside a live `TensorImpl`.
//! - The itemsize: per dtype code, learnt at install from one tensor of
//!   each dtype; a code install did not see is a failed read.
//!
//! A failed read sends that tensor to the Python path.

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyType;
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::OnceLock;

type Handle = *mut c_void;
type GetI64 = unsafe extern "C" fn(Handle, *mut i64) -> i32;
type GetPtr = unsafe extern "C" fn(Handle, *mut *mut i64) -> i32;
type GetI32 = unsafe extern "C" fn(Handle, *mut i32) -> i32;

/// The shim's functions, the layout facts, and the types read natively.
struct Native {
    storage_offset: GetI64,
    dim: GetI64,
    sizes: GetPtr,
    strides: GetPtr,
    dtype: GetI32,
    /// Byte offset of the `Storage` field in a `TensorImpl`.
    storage_field: usize,
    /// Itemsize per dtype code (0: not seen).
    itemsizes: Vec<i64>,
    /// `PyTypeObject*` of the types read natively.
    types: Vec<usize>,
}

// The pointers are functions of a loaded library and type objects that
// install keeps alive (held in `TYPES`).
unsafe impl Send for Native {}
unsafe impl Sync for Native {}

static NATIVE: OnceLock<Native> = OnceLock::new();
static TYPES: OnceLock<Vec<Py<PyType>>> = OnceLock::new();
/// Off by `reader_disable` (tests run both ways in one process).
static ON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// What the reader gives of one tensor.
pub(crate) struct Layout {
    pub sizes: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
    pub itemsize: i64,
}

fn native() -> Option<&'static Native> {
    if ON.load(std::sync::atomic::Ordering::Relaxed) {
        NATIVE.get()
    } else {
        None
    }
}

/// The tensor handle of `obj`, when its type is one the reader reads.
fn handle(n: &Native, obj: &Bound<'_, PyAny>) -> Option<Handle> {
    let ty = unsafe { ffi::Py_TYPE(obj.as_ptr()) } as usize;
    if !n.types.contains(&ty) {
        return None;
    }
    let base = obj.as_ptr() as *mut u8;
    Some(unsafe { base.add(std::mem::size_of::<ffi::PyObject>()) } as Handle)
}

/// The `StorageImpl*` of the tensor behind `h` (None: no storage).
unsafe fn storage_of(n: &Native, h: Handle) -> Option<i64> {
    let imp = *(h as *const *const u8);
    if imp.is_null() {
        return None;
    }
    let s = *(imp.add(n.storage_field) as *const usize);
    (s != 0).then_some(s as i64)
}

/// The storage identity and offset of `obj`, or None (read it in Python).
pub(crate) fn storage_and_offset(obj: &Bound<'_, PyAny>) -> Option<(i64, i64)> {
    let n = native()?;
    let h = handle(n, obj)?;
    unsafe {
        let s = storage_of(n, h)?;
        let mut o = 0i64;
        ((n.storage_offset)(h, &mut o) == 0).then_some((s, o))
    }
}

/// The whole layout of `obj`, or None (read it in Python).
pub(crate) fn layout(obj: &Bound<'_, PyAny>) -> Option<Layout> {
    let n = native()?;
    let h = handle(n, obj)?;
    unsafe { read_layout(n, h) }
}

unsafe fn read_layout(n: &Native, h: Handle) -> Option<Layout> {
    let mut dim = 0i64;
    let mut offset = 0i64;
    let mut code = 0i32;
    let mut sp: *mut i64 = std::ptr::null_mut();
    let mut tp: *mut i64 = std::ptr::null_mut();
    if (n.dim)(h, &mut dim) != 0
        || (n.storage_offset)(h, &mut offset) != 0
        || (n.dtype)(h, &mut code) != 0
        || (n.sizes)(h, &mut sp) != 0
        || (n.strides)(h, &mut tp) != 0
        || dim < 0
    {
        return None;
    }
    let itemsize = *n.itemsizes.get(usize::try_from(code).ok()?)?;
    if itemsize == 0 || (dim > 0 && (sp.is_null() || tp.is_null())) {
        return None;
    }
    let d = dim as usize;
    let (sizes, strides) = if d == 0 {
        (Vec::new(), Vec::new())
    } else {
        (
            std::slice::from_raw_parts(sp, d).to_vec(),
            std::slice::from_raw_parts(tp, d).to_vec(),
        )
    };
    Some(Layout {
        sizes,
        strides,
        offset,
        itemsize,
    })
}

/// One symbol of the loaded library `lib`.
unsafe fn symbol(lib: *mut c_void, name: &str) -> PyResult<*mut c_void> {
    let c = CString::new(name).expect("no NUL in a symbol name");
    let p = libc::dlsym(lib, c.as_ptr() as *const c_char);
    if p.is_null() {
        return Err(PyValueError::new_err(format!(
            "{name} not found in libtorch_cpu"
        )));
    }
    Ok(p)
}

/// What install expects of one probe tensor: its `untyped_storage()._cdata`,
/// `storage_offset()`, sizes, strides and `element_size()`.
type Expected = (i64, i64, Vec<i64>, Vec<i64>, i64);

/// Verifies the reader on the installed torch and turns it on: `library`
/// is the loaded `libtorch_cpu` (opened with `RTLD_NOLOAD`: never a second
/// copy), `types` the tensor types read natively, `probes` tensors of every
/// dtype and many layouts with what Python reads of them. Errors name what
/// did not hold; the reader then stays off.
#[pyfunction]
pub fn reader_enable(
    library: &str,
    types: Vec<Bound<'_, PyType>>,
    probes: Vec<Bound<'_, PyAny>>,
    expected: Vec<Expected>,
) -> PyResult<()> {
    if let Some(n) = NATIVE.get() {
        // Verified once per process; later installs only turn it back on
        // (on the same types: torch is imported once).
        let _ = n;
        ON.store(true, std::sync::atomic::Ordering::Relaxed);
        return Ok(());
    }
    if probes.len() != expected.len() || probes.is_empty() {
        return Err(PyValueError::new_err(
            "reader_enable: one expectation per probe",
        ));
    }
    let path = CString::new(library).map_err(|_| PyValueError::new_err("library: NUL in path"))?;
    let lib = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    if lib.is_null() {
        return Err(PyValueError::new_err(format!(
            "{library} is not loaded in this process"
        )));
    }
    let mut n = unsafe {
        Native {
            storage_offset: std::mem::transmute::<*mut c_void, GetI64>(symbol(
                lib,
                "aoti_torch_get_storage_offset",
            )?),
            dim: std::mem::transmute::<*mut c_void, GetI64>(symbol(lib, "aoti_torch_get_dim")?),
            sizes: std::mem::transmute::<*mut c_void, GetPtr>(symbol(lib, "aoti_torch_get_sizes")?),
            strides: std::mem::transmute::<*mut c_void, GetPtr>(symbol(
                lib,
                "aoti_torch_get_strides",
            )?),
            dtype: std::mem::transmute::<*mut c_void, GetI32>(symbol(lib, "aoti_torch_get_dtype")?),
            storage_field: 0,
            itemsizes: Vec::new(),
            types: types.iter().map(|t| t.as_ptr() as usize).collect(),
        }
    };
    // Every probe must be of a native type (a wrong type here would be
    // install's mistake, not torch's).
    for (k, p) in probes.iter().enumerate() {
        if handle(&n, p).is_none() {
            return Err(PyValueError::new_err(format!(
                "probe {k} is not of a native type"
            )));
        }
    }
    // The storage field: the one candidate offset that gives every
    // probe's `StorageImpl*`.
    let candidates = [16usize, 24];
    let fits: Vec<usize> = candidates
        .into_iter()
        .filter(|&field| {
            n.storage_field = field;
            probes.iter().zip(&expected).all(|(p, e)| {
                let h = handle(&n, p).expect("checked above");
                (unsafe { storage_of(&n, h) }) == Some(e.0)
            })
        })
        .collect();
    let [field] = fits[..] else {
        return Err(PyValueError::new_err(format!(
            "the TensorImpl storage field is not at one of {candidates:?} (fits {fits:?})"
        )));
    };
    n.storage_field = field;
    // The itemsize per dtype code, then every probe's layout.
    for (p, e) in probes.iter().zip(&expected) {
        let h = handle(&n, p).expect("checked above");
        let mut code = 0i32;
        if unsafe { (n.dtype)(h, &mut code) } != 0 || !(0..4096).contains(&code) {
            return Err(PyValueError::new_err(format!(
                "dtype code {code} out of range"
            )));
        }
        let c = code as usize;
        if n.itemsizes.len() <= c {
            n.itemsizes.resize(c + 1, 0);
        }
        if n.itemsizes[c] != 0 && n.itemsizes[c] != e.4 {
            return Err(PyValueError::new_err(format!(
                "dtype code {code} has itemsizes {} and {}",
                n.itemsizes[c], e.4
            )));
        }
        n.itemsizes[c] = e.4;
    }
    for (k, (p, e)) in probes.iter().zip(&expected).enumerate() {
        let h = handle(&n, p).expect("checked above");
        let got = unsafe { read_layout(&n, h) }
            .ok_or_else(|| PyValueError::new_err(format!("probe {k}: the shim refused a read")))?;
        if (got.offset, &got.sizes, &got.strides, got.itemsize) != (e.1, &e.2, &e.3, e.4) {
            return Err(PyValueError::new_err(format!(
                "probe {k}: read offset {} sizes {:?} strides {:?} itemsize {}, Python says {} {:?} {:?} {}",
                got.offset, got.sizes, got.strides, got.itemsize, e.1, e.2, e.3, e.4
            )));
        }
    }
    let _ = TYPES.set(types.into_iter().map(Bound::unbind).collect());
    let _ = NATIVE.set(n);
    ON.store(true, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// Turns the native reader off (reads go through Python); `reader_enable`
/// turns it back on.
#[pyfunction]
pub fn reader_disable() {
    ON.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the native reader is on.
#[pyfunction]
pub fn reader_enabled() -> bool {
    enabled()
}

pub(crate) fn enabled() -> bool {
    native().is_some()
}

// `c_int` is the dlopen flag type on every target libc supports.
const _: c_int = libc::RTLD_NOW;
