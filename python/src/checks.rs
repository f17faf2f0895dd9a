//! Run-time checks of `symalias.torch`: one native call per compiled frame.
//!
//! A `FrameCheck` holds every check symalias installs for one compiled
//! frame (one Dynamo lambda guard calls it with the frame's tensor inputs)
//! and decides them in Rust, in the order given, reading each tensor at most
//! once per call and only what the checks need: its storage identity, its
//! storage offset, and for symbolic groups its whole layout. Tensors
//! reachable from the frame's locals by item and attribute steps
//! (`L['params'][3]`, `L['self'].w`) are fetched here from `L`; others are
//! passed by the guard's code. The checks are the typed classes of
//! `check_kinds` (`OneStorageCheck`, `PartitionCheck`, `PinCheck`,
//! `CrossStorageCheck`, `NoSelfOverlapCheck`); a partition is memoised on
//! what it reads (the storage pattern and offsets, or whole layouts for
//! symbolic groups), so no Python object is built per call.
//!
//! Storage identity is the address of the `StorageImpl`: read natively
//! (`reader`, for exact `torch.Tensor` and `Parameter` objects once
//! `install()` has verified the reader) or through Python as
//! `untyped_storage()._cdata` -- the same number either way, so a call may
//! mix both (with the reader off, every read is Python's and the storage
//! object's own identity stands in: torch keeps one per live storage). The call holds every tensor (and every storage object) it
//! read until it returns, so no storage is freed and its address reused
//! within a call (the only span over which identities are compared: memo
//! keys hold the storage *pattern*, not identities).
//!
//! Every call is counted in process-wide counters (calls, failures, time),
//! read by `symalias.torch.stats`.

use hashbrown::HashMap;
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString, PyTuple};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;
use symalias::{Call, CallInput, CallTensor, View};

use crate::check_kinds::{AnyCheck, Base, Check, Relation};
use crate::tensors::{call, call_with, int, ints, Method};

static CALLS: AtomicU64 = AtomicU64::new(0);
static FAILURES: AtomicU64 = AtomicU64::new(0);
static NANOS: AtomicU64 = AtomicU64::new(0);

/// The run-time check counters since the last reset: `(calls, failures,
/// nanoseconds)`.
#[pyfunction]
pub fn check_counters() -> (u64, u64, u64) {
    (
        CALLS.load(Ordering::Relaxed),
        FAILURES.load(Ordering::Relaxed),
        NANOS.load(Ordering::Relaxed),
    )
}

/// Sets the run-time check counters to zero.
#[pyfunction]
pub fn reset_check_counters() {
    CALLS.store(0, Ordering::Relaxed);
    FAILURES.store(0, Ordering::Relaxed);
    NANOS.store(0, Ordering::Relaxed);
    RECORDED.store(0, Ordering::Relaxed);
    FETCHED.store(0, Ordering::Relaxed);
}

static RECORDED: AtomicU64 = AtomicU64::new(0);
static FETCHED: AtomicU64 = AtomicU64::new(0);

/// The tensors the counted checks took from recorders, and those they
/// fetched themselves, since the last reset: `(recorded, fetched)`.
#[pyfunction]
pub fn tensor_counters() -> (u64, u64) {
    (
        RECORDED.load(Ordering::Relaxed),
        FETCHED.load(Ordering::Relaxed),
    )
}

/// Entries a partition's memo keeps before it starts afresh.
const MEMO_LIMIT: usize = 4096;

/// What one call read of each tensor (lazily, at most once).
struct Reads<'py> {
    /// None where the frame no longer holds a value at the tensor's path
    /// (a shorter list, a missing key or attribute): the facts that read it
    /// fail.
    tensors: Vec<Option<Bound<'py, PyAny>>>,
    storage: Vec<Option<i64>>,
    /// The storage objects read, held until the call returns.
    held: Vec<Bound<'py, PyAny>>,
    offset: Vec<Option<i64>>,
}

impl<'py> Reads<'py> {
    fn new(tensors: Vec<Option<Bound<'py, PyAny>>>) -> Self {
        let n = tensors.len();
        Reads {
            tensors,
            storage: vec![None; n],
            held: Vec::new(),
            offset: vec![None; n],
        }
    }

    /// Storage identities and offsets the recorders read.
    fn prefill(&mut self, read: Vec<Option<(i64, i64)>>) {
        // Native numbers only while the reader is on: off, this call's
        // other reads compare storage objects instead.
        if !crate::reader::enabled() {
            return;
        }
        for (i, r) in read.into_iter().enumerate() {
            if let Some((s, o)) = r {
                self.storage[i] = Some(s);
                self.offset[i] = Some(o);
            }
        }
    }

    fn tensor(&self, i: usize) -> PyResult<Bound<'py, PyAny>> {
        self.tensors[i]
            .clone()
            .ok_or_else(|| PyValueError::new_err(format!("tensor {i} is gone from the frame")))
    }

    /// The identity of tensor `i`'s storage: its `StorageImpl*`, read
    /// natively (`reader`) or as `untyped_storage()._cdata` (the same
    /// number), its offset read alongside when native.
    fn storage(&mut self, i: usize) -> PyResult<i64> {
        if let Some(s) = self.storage[i] {
            return Ok(s);
        }
        let t = self.tensor(i)?;
        if let Some((s, o)) = crate::reader::storage_and_offset(&t) {
            self.storage[i] = Some(s);
            self.offset[i] = Some(o);
            return Ok(s);
        }
        let obj = call(t.py(), &t, Method::UntypedStorage)?;
        // With the reader on, other tensors of this call may have been read
        // natively: compare in its numbers. Off, every read is Python's,
        // and the storage object's identity is as good and cheaper.
        let s: i64 = if crate::reader::enabled() {
            obj.getattr(intern!(t.py(), "_cdata"))?.extract()?
        } else {
            obj.as_ptr() as i64
        };
        self.held.push(obj);
        self.storage[i] = Some(s);
        Ok(s)
    }

    fn offset(&mut self, i: usize) -> PyResult<i64> {
        if let Some(o) = self.offset[i] {
            return Ok(o);
        }
        let t = self.tensor(i)?;
        if let Some((s, o)) = crate::reader::storage_and_offset(&t) {
            self.storage[i] = Some(s);
            self.offset[i] = Some(o);
            return Ok(o);
        }
        let o: i64 = call(t.py(), &t, Method::StorageOffset)?.extract()?;
        self.offset[i] = Some(o);
        Ok(o)
    }

    fn view(&mut self, i: usize) -> PyResult<View> {
        let t = self.tensor(i)?;
        if let Some(l) = crate::reader::layout(&t) {
            return Ok(View {
                sizes: l.sizes,
                strides: l.strides,
                offset: l.offset,
                itemsize: l.itemsize,
            });
        }
        let py = t.py();
        let sizes = ints(&call(py, &t, Method::Size)?)?;
        let strides = ints(&call(py, &t, Method::Stride)?)?;
        let itemsize: i64 = call(py, &t, Method::ElementSize)?.extract()?;
        let (Some(sizes), Some(strides)) = (sizes, strides) else {
            return Err(PyValueError::new_err(
                "a run-time tensor has a symbolic layout",
            ));
        };
        Ok(View {
            sizes,
            strides,
            offset: self.offset(i)?,
            itemsize,
        })
    }

    /// Each member's first member of its storage.
    fn pattern(&mut self, members: &[usize], key: &mut Vec<i64>) -> PyResult<()> {
        if members.len() <= 8 {
            for (k, &i) in members.iter().enumerate() {
                let s = self.storage(i)?;
                let first = members[..k]
                    .iter()
                    .position(|&j| self.storage[j] == Some(s))
                    .unwrap_or(k);
                key.push(first as i64);
            }
            return Ok(());
        }
        let mut first: HashMap<i64, i64> = HashMap::with_capacity(members.len());
        for (k, &i) in members.iter().enumerate() {
            let s = self.storage(i)?;
            key.push(*first.entry(s).or_insert(k as i64));
        }
        Ok(())
    }
}

impl Check {
    fn holds(&self, r: &mut Reads<'_>) -> PyResult<bool> {
        match self {
            Check::OneStorage(members) => one_storage(members, r),
            Check::Partition {
                members,
                merged,
                symbolic,
                names,
                guards,
                memo,
            } => {
                let mut key = Vec::with_capacity(members.len() * 2);
                r.pattern(members, &mut key)?;
                if *merged && key.iter().any(|&p| p != 0) {
                    return Ok(false);
                }
                let mut views = Vec::new();
                for &i in members {
                    if *symbolic {
                        let v = r.view(i)?;
                        key.extend(&v.sizes);
                        key.extend(&v.strides);
                        key.push(v.offset);
                        key.push(v.itemsize);
                        views.push(v);
                    } else {
                        key.push(r.offset(i)?);
                    }
                }
                if let Some(&hit) = memo.lock().expect("memo lock").get(&key) {
                    return Ok(hit);
                }
                if !*symbolic {
                    for &i in members {
                        views.push(r.view(i)?);
                    }
                }
                let ok = partition_holds(guards, names, &key, views);
                let mut memo = memo.lock().expect("memo lock");
                if memo.len() >= MEMO_LIMIT {
                    memo.clear();
                }
                memo.insert(key, ok);
                Ok(ok)
            }
            Check::Pin { offsets, base } => {
                for &(i, want) in offsets {
                    if r.offset(i)? != want {
                        return Ok(false);
                    }
                }
                match base {
                    None => Ok(true),
                    Some((i, want)) => base_holds(&r.tensor(*i)?, want),
                }
            }
            Check::NoSelfOverlap(members) => no_self_overlap(members, r),
            Check::CrossStorage {
                members,
                groups,
                mutated,
            } => cross_storage(members, groups, mutated, r),
            Check::Address {
                a,
                b,
                relation,
                expected,
            } => Ok(address(*relation, &r.tensor(*a)?, &r.tensor(*b)?)? == *expected),
        }
    }
}

/// The comparison user code made, on this call's tensors (torch's own
/// methods of `TensorBase`, its own `_is_alias_of`).
fn address(relation: Relation, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = a.py();
    let ptr = |t: &Bound<'_, PyAny>| -> PyResult<u64> { call(py, t, Method::DataPtr)?.extract() };
    let storage_ptr = |t: &Bound<'_, PyAny>| -> PyResult<u64> {
        call(py, t, Method::UntypedStorage)?
            .call_method0(intern!(py, "data_ptr"))?
            .extract()
    };
    match relation {
        Relation::DataPtr => Ok(ptr(a)? == ptr(b)?),
        Relation::StorageDataPtr => Ok(storage_ptr(a)? == storage_ptr(b)?),
        Relation::SetTo => call_with(py, a, Method::IsSetTo, b)?.extract(),
        Relation::AliasOf => py
            .import(intern!(py, "torch"))?
            .getattr(intern!(py, "_C"))?
            .getattr(intern!(py, "_is_alias_of"))?
            .call1((a, b))?
            .extract(),
    }
}

fn one_storage(members: &[usize], r: &mut Reads<'_>) -> PyResult<bool> {
    let first = r.storage(members[0])?;
    for &i in &members[1..] {
        if r.storage(i)? != first {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The partition's guards on one call's views (`key`: each member's first
/// member of its storage, first).
fn partition_holds(
    guards: &symalias::GuardSet,
    names: &[String],
    key: &[i64],
    views: Vec<View>,
) -> bool {
    let call = Call {
        inputs: views
            .into_iter()
            .enumerate()
            .map(|(k, view)| CallInput {
                source: names[k].clone(),
                tensor: Some(CallTensor {
                    object: k.to_string(),
                    storage: key[k].to_string(),
                    view,
                    dtype: None,
                }),
                value: None,
            })
            .collect(),
    };
    matches!(guards.check(&call), Ok(o) if o.passed())
}

fn no_self_overlap(members: &[usize], r: &mut Reads<'_>) -> PyResult<bool> {
    for &i in members {
        let v = r.view(i)?;
        let verdict = symalias::overlap::internal_overlap(&v, symalias::overlap::DEFAULT_BUDGET);
        if verdict.may_overlap() {
            return Ok(false);
        }
    }
    Ok(true)
}

fn cross_storage(
    members: &[usize],
    groups: &[u32],
    mutated: &[bool],
    r: &mut Reads<'_>,
) -> PyResult<bool> {
    // Per run-time storage: its first compile-time group, whether it holds
    // another, whether one of them was mutated.
    let mut seen: HashMap<i64, (u32, bool, bool)> = HashMap::with_capacity(members.len());
    for (k, &i) in members.iter().enumerate() {
        let g = groups[k];
        let m = mutated[g as usize];
        let e = seen.entry(r.storage(i)?).or_insert((g, false, false));
        e.1 |= e.0 != g;
        e.2 |= m;
        if e.1 && e.2 {
            return Ok(false);
        }
    }
    Ok(true)
}

fn base_holds(t: &Bound<'_, PyAny>, want: &Base) -> PyResult<bool> {
    let py = t.py();
    let b = t.getattr(intern!(py, "_base"))?;
    match want {
        Base::Storage(nbytes) => {
            if !b.is_none() {
                return Ok(false);
            }
            let n: i64 = call(py, t, Method::UntypedStorage)?
                .call_method0(intern!(py, "nbytes"))?
                .extract()?;
            Ok(n == *nbytes)
        }
        Base::Autograd(want) => {
            if b.is_none() {
                return Ok(false);
            }
            let s = ints(&call(py, &b, Method::Size)?)?;
            let st = ints(&call(py, &b, Method::Stride)?)?;
            let o = int(&call(py, &b, Method::StorageOffset)?)?;
            Ok(s.as_deref() == Some(&want.sizes[..])
                && st.as_deref() == Some(&want.strides[..])
                && o == Some(want.offset)
                && b.getattr(intern!(py, "dtype"))?.is(want.dtype.bind(py)))
        }
    }
}

/// One step from the frame's locals to a tensor.
enum Step {
    Item(Py<PyAny>),
    Attr(Py<PyString>),
}

fn parse_path(path: &Bound<'_, PyAny>) -> PyResult<Option<Vec<Step>>> {
    if path.is_none() {
        return Ok(None);
    }
    let mut steps = Vec::new();
    for step in path.try_iter()? {
        let (kind, key): (String, Bound<'_, PyAny>) = step?.extract()?;
        steps.push(match kind.as_str() {
            "item" => Step::Item(key.unbind()),
            "attr" => Step::Attr(key.cast_into::<PyString>()?.unbind()),
            other => {
                return Err(crate::error::at_field(
                    "paths",
                    format!("unknown path step {other:?}"),
                ))
            }
        });
    }
    Ok(Some(steps))
}

/// Every run-time fact of one compiled frame, checked in one call.
#[pyclass(module = "symalias._native", name = "FrameCheck", frozen, weakref)]
pub struct PyFrameCheck {
    /// Per tensor: its path from the locals, or None (passed by the code).
    paths: Vec<Option<Vec<Step>>>,
    passed: usize,
    checks: Vec<Check>,
    /// The passed tensors come as one thunk (`lambda L: (t0, t1, ...)`),
    /// called with the locals only when a passed tensor was not recorded.
    lazy: bool,
    /// Per tensor: what its recorder (a leaf on the tensor's own guard
    /// manager) saw in this evaluation.
    slots: Vec<Slot>,
    /// How many tensors the last counted call took from recorders.
    recorded: AtomicUsize,
}

/// A tensor its recorder saw, with its storage and offset when read then.
type Taken<'py> = (Bound<'py, PyAny>, Option<(i64, i64)>);

/// The frame's tensors (None: no longer reachable), and what recorders read
/// of them.
type Fetched<'py> = (Vec<Option<Bound<'py, PyAny>>>, Vec<Option<(i64, i64)>>);

/// One tensor as its recorder saw it: a strong reference, and the
/// evaluation it was seen in (stale ones are never used).
struct Slot {
    generation: AtomicU64,
    object: AtomicPtr<ffi::PyObject>,
    /// Its storage identity and offset, read natively when recorded (the
    /// tensor is in the caches then: Dynamo's own guards just read it);
    /// 0: not read (a `StorageImpl*` is never null).
    storage: AtomicI64,
    offset: AtomicI64,
}

impl Drop for PyFrameCheck {
    fn drop(&mut self) {
        for s in &self.slots {
            let old = s.object.swap(std::ptr::null_mut(), Ordering::Relaxed);
            if !old.is_null() {
                // Dropped by its Python object's deallocation: attached.
                unsafe { ffi::Py_DECREF(old) };
            }
        }
    }
}

impl PyFrameCheck {
    /// The frame's tensors: from `locals` by path, the others from `args`;
    /// None where a path no longer leads to a value (the frame's structure
    /// changed). Err only when the guard's code passed the wrong count.
    fn tensors<'py>(
        &self,
        locals: &Bound<'py, PyAny>,
        args: &Bound<'py, PyTuple>,
        guard: bool,
    ) -> PyResult<Fetched<'py>> {
        // The guard's own call (`guard`) takes what the recorders saw and
        // the passed tensors as one thunk (when `lazy`); every other call
        // (a recompile reason, a test) passes the tensors themselves.
        let lazy = guard && self.lazy;
        // `direct`: the epilogue builtin, called with the locals alone (every
        // passed tensor has a recorder); a passed tensor not recorded in
        // this evaluation then fails the check.
        let direct = lazy && args.is_empty();
        let expected = if direct {
            0
        } else if lazy {
            usize::from(self.passed > 0)
        } else {
            self.passed
        };
        if args.len() != expected {
            return Err(PyValueError::new_err(format!(
                "FrameCheck: {} arguments passed, {} expected",
                args.len(),
                expected
            )));
        }
        let py = locals.py();
        let generation = EVALUATION.with(Cell::get);
        let mut next = 0;
        let mut thunk: Option<Bound<'py, PyTuple>> = None;
        let mut taken = 0;
        let mut out = Vec::with_capacity(self.paths.len());
        let mut reads = vec![None; self.paths.len()];
        for (k, path) in self.paths.iter().enumerate() {
            if guard {
                if let Some((t, read)) = self.take(k, generation, py) {
                    taken += 1;
                    out.push(Some(t));
                    reads[k] = read;
                    next += usize::from(path.is_none());
                    continue;
                }
            }
            match path {
                None if direct => {
                    return Err(PyValueError::new_err(format!(
                        "FrameCheck: tensor {k} was not recorded in this evaluation"
                    )));
                }
                None if lazy => {
                    if thunk.is_none() {
                        let t = args.get_item(0)?.call1((locals,))?.cast_into::<PyTuple>()?;
                        if t.len() != self.passed {
                            return Err(PyValueError::new_err(
                                "FrameCheck: the thunk gave another count of tensors",
                            ));
                        }
                        thunk = Some(t);
                    }
                    out.push(Some(thunk.as_ref().expect("set above").get_item(next)?));
                    next += 1;
                }
                None => {
                    out.push(Some(args.get_item(next)?));
                    next += 1;
                }
                Some(steps) => {
                    let mut obj = Some(locals.clone());
                    for step in steps {
                        obj = obj.and_then(|o| {
                            let py = o.py();
                            match step {
                                Step::Item(k) => o.get_item(k.bind(py)).ok(),
                                Step::Attr(a) => o.getattr(a.bind(py)).ok(),
                            }
                        });
                    }
                    out.push(obj);
                }
            }
        }
        if guard {
            self.recorded.store(taken, Ordering::Relaxed);
            RECORDED.fetch_add(taken as u64, Ordering::Relaxed);
            FETCHED.fetch_add((out.len() - taken) as u64, Ordering::Relaxed);
        }
        Ok((out, reads))
    }

    /// What tensor `k`'s recorder saw in evaluation `generation` (taken:
    /// the slot is empty after), or None.
    fn take<'py>(&self, k: usize, generation: u64, py: Python<'py>) -> Option<Taken<'py>> {
        let slot = self.slots.get(k)?;
        if slot.generation.load(Ordering::Relaxed) != generation {
            return None;
        }
        let obj = slot.object.swap(std::ptr::null_mut(), Ordering::Relaxed);
        if obj.is_null() {
            return None;
        }
        // Owned: the recorder took a strong reference.
        let tensor = unsafe { Bound::from_owned_ptr(py, obj) };
        let storage = slot.storage.load(Ordering::Relaxed);
        let read = (storage != 0).then(|| (storage, slot.offset.load(Ordering::Relaxed)));
        Some((tensor, read))
    }

    /// Tensor `k`'s recorder saw `obj` (a borrowed reference) in this
    /// evaluation.
    fn record(&self, k: usize, obj: *mut ffi::PyObject) {
        let Some(slot) = self.slots.get(k) else {
            return;
        };
        let py = unsafe { Python::assume_attached() };
        let (storage, offset) =
            crate::reader::storage_and_offset(unsafe { &Bound::from_borrowed_ptr(py, obj) })
                .unwrap_or((0, 0));
        slot.storage.store(storage, Ordering::Relaxed);
        slot.offset.store(offset, Ordering::Relaxed);
        unsafe { ffi::Py_INCREF(obj) };
        let old = slot.object.swap(obj, Ordering::Relaxed);
        slot.generation
            .store(EVALUATION.with(Cell::get), Ordering::Relaxed);
        if !old.is_null() {
            // A stale reference from an evaluation that failed before the
            // check ran.
            unsafe { ffi::Py_DECREF(old) };
        }
    }

    /// The guard's call: counted, timed, never raising.
    fn counted(&self, locals: &Bound<'_, PyAny>, tensors: &Bound<'_, PyTuple>) -> bool {
        let start = Instant::now();
        let ok = self.first_failing(locals, tensors, true).is_none();
        CALLS.fetch_add(1, Ordering::Relaxed);
        NANOS.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if !ok {
            FAILURES.fetch_add(1, Ordering::Relaxed);
        }
        ok
    }

    /// The first fact that fails. A guard never raises: a fact that cannot
    /// be read on this call (a tensor became `None` or an int, a list got
    /// shorter) fails, and so does every fact when the call's arguments
    /// are not what the guard's code passes.
    fn first_failing(
        &self,
        locals: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        guard: bool,
    ) -> Option<usize> {
        let Ok(tensors) = self.tensors(locals, args, guard) else {
            return Some(0).filter(|_| !self.checks.is_empty());
        };
        let (tensors, read) = tensors;
        let mut reads = Reads::new(tensors);
        reads.prefill(read);
        self.checks
            .iter()
            .position(|f| !matches!(f.holds(&mut reads), Ok(true)))
    }
}

#[pymethods]
impl PyFrameCheck {
    /// The frame's tensors, one path each (a list of `("item", key)` /
    /// `("attr", name)` steps from the frame's locals, or None for a tensor
    /// the guard's code passes), and the checks naming them by slot (the
    /// classes of `check_kinds`).
    #[new]
    #[pyo3(signature = (paths, checks, lazy = false))]
    fn new(paths: Vec<Bound<'_, PyAny>>, checks: Vec<AnyCheck<'_>>, lazy: bool) -> PyResult<Self> {
        let paths = paths.iter().map(parse_path).collect::<PyResult<Vec<_>>>()?;
        let n = paths.len();
        let checks = checks
            .into_iter()
            .map(|c| c.into_check(n))
            .collect::<PyResult<_>>()?;
        Ok(PyFrameCheck {
            passed: paths.iter().filter(|p| p.is_none()).count(),
            slots: (0..n)
                .map(|_| Slot {
                    generation: AtomicU64::new(0),
                    object: AtomicPtr::new(std::ptr::null_mut()),
                    storage: AtomicI64::new(0),
                    offset: AtomicI64::new(0),
                })
                .collect(),
            paths,
            checks,
            lazy,
            recorded: AtomicUsize::new(0),
        })
    }

    /// True when every fact holds on the frame's tensors (`locals`: the
    /// frame's `L`; `tensors`: those without a path, in order); counted.
    /// Never raises: a fact that cannot be read fails.
    #[pyo3(signature = (locals, *tensors))]
    fn __call__(&self, locals: &Bound<'_, PyAny>, tensors: &Bound<'_, PyTuple>) -> bool {
        self.counted(locals, tensors)
    }

    /// The check as Dynamo's epilogue leaf: a builtin taking the frame's
    /// locals alone (no guard code, no argument tuple), for a frame whose
    /// passed tensors all have recorders; counted like a call.
    fn epilogue(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        builtin(slf.as_any(), &EPILOGUE)
    }

    /// The index of the first fact that fails (None when all hold); not
    /// counted.
    #[pyo3(signature = (locals, *tensors))]
    fn failing(&self, locals: &Bound<'_, PyAny>, tensors: &Bound<'_, PyTuple>) -> Option<usize> {
        self.first_failing(locals, tensors, false)
    }

    /// Whether fact `k` alone holds (false where it cannot be read); not
    /// counted (the recompile reason's evaluation).
    #[pyo3(signature = (k, locals, *tensors))]
    fn check_holds(
        &self,
        k: usize,
        locals: &Bound<'_, PyAny>,
        tensors: &Bound<'_, PyTuple>,
    ) -> PyResult<bool> {
        let check = self
            .checks
            .get(k)
            .ok_or_else(|| PyValueError::new_err(format!("FrameCheck: no check {k}")))?;
        let Ok(tensors) = self.tensors(locals, tensors, false) else {
            return Ok(false);
        };
        Ok(matches!(check.holds(&mut Reads::new(tensors.0)), Ok(true)))
    }

    fn __len__(&self) -> usize {
        self.checks.len()
    }

    /// The leaf that opens a guard evaluation (on Dynamo's root, before
    /// any tensor's recorder): a builtin taking one argument, returning
    /// True. It numbers the evaluation for this thread.
    fn begin(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        builtin(slf.as_any(), &BEGIN)
    }

    /// The leaf that records tensor `k` (on the tensor's own guard
    /// manager): a builtin taking the tensor, returning True.
    fn recorder(slf: &Bound<'_, Self>, k: usize) -> PyResult<Py<PyAny>> {
        if k >= slf.get().paths.len() {
            return Err(PyValueError::new_err(format!("FrameCheck: no tensor {k}")));
        }
        let slot = Bound::new(
            slf.py(),
            PySlotRef {
                check: slf.clone().unbind(),
                k,
            },
        )?;
        builtin(slot.as_any(), &RECORD)
    }

    /// How many tensors the last guard call took from recorders.
    #[getter]
    fn recorded(&self) -> usize {
        self.recorded.load(Ordering::Relaxed)
    }
}

/// Guard evaluations begun in this process: each gets its own number.
static EVALUATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The number of the guard evaluation this thread last began. A
    /// recorder stamps its tensor with it, and a check takes only tensors
    /// stamped with it: another thread's evaluation of the same frame (the
    /// GIL may pass between guards that run Python), or one that failed
    /// before its check ran, never hands this one its tensors.
    static EVALUATION: Cell<u64> = const { Cell::new(0) };
}

/// The self of a recorder: its frame check and tensor.
#[pyclass(module = "symalias._native", name = "SlotRef", frozen)]
pub struct PySlotRef {
    check: Py<PyFrameCheck>,
    k: usize,
}

/// A `PyMethodDef` with a stable address (`PyCFunction_NewEx` keeps it).
struct Def(std::cell::UnsafeCell<ffi::PyMethodDef>);

// Read by CPython only, never written after construction.
unsafe impl Sync for Def {}

impl Def {
    /// A one-argument (`METH_O`) builtin named `name` calling `f`.
    const fn one_argument(name: &'static std::ffi::CStr, f: ffi::PyCFunction) -> Def {
        Def(std::cell::UnsafeCell::new(ffi::PyMethodDef {
            ml_name: name.as_ptr(),
            ml_meth: ffi::PyMethodDefPointer { PyCFunction: f },
            ml_flags: ffi::METH_O,
            ml_doc: std::ptr::null(),
        }))
    }
}

static BEGIN: Def = Def::one_argument(c"symalias_begin", begin);

static EPILOGUE: Def = Def::one_argument(c"symalias_check", epilogue);

/// Never raises: whether every fact holds on the locals `arg`.
unsafe extern "C" fn epilogue(
    slf: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let py = unsafe { Python::assume_attached() };
    let b = unsafe { Bound::from_borrowed_ptr(py, slf) };
    let locals = unsafe { Bound::from_borrowed_ptr(py, arg) };
    let ok = match b.cast::<PyFrameCheck>() {
        Ok(c) => c.get().counted(&locals, &PyTuple::empty(py)),
        Err(_) => false,
    };
    PyBool::new(py, ok).to_owned().into_ptr()
}

static RECORD: Def = Def::one_argument(c"symalias_record", record);

/// A builtin function of `def` bound to `slf` (CPython calls it with one
/// argument and no tuple: the cheapest call Dynamo's lambda leaf makes).
fn builtin(slf: &Bound<'_, PyAny>, def: &'static Def) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    unsafe {
        let f = ffi::PyCFunction_NewEx(def.0.get(), slf.as_ptr(), std::ptr::null_mut());
        Bound::from_owned_ptr_or_err(py, f).map(Bound::unbind)
    }
}

/// Never raises: True, always (the check itself decides, at the end).
unsafe extern "C" fn begin(
    _slf: *mut ffi::PyObject,
    _arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let number = EVALUATIONS.fetch_add(1, Ordering::Relaxed) + 1;
    EVALUATION.with(|e| e.set(number));
    // CPython calls it with the GIL held.
    let py = unsafe { Python::assume_attached() };
    PyBool::new(py, true).to_owned().into_ptr()
}

/// Never raises: True, always (the tensor is read when the check runs).
unsafe extern "C" fn record(
    slf: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let py = unsafe { Python::assume_attached() };
    let b = unsafe { Bound::from_borrowed_ptr(py, slf) };
    if let Ok(r) = b.cast::<PySlotRef>() {
        let r = r.get();
        r.check.get().record(r.k, arg);
    }
    PyBool::new(py, true).to_owned().into_ptr()
}
