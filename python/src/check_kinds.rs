//! The typed run-time checks a `FrameCheck` is built from: one native class
//! per kind, with keyword constructors, named alike in Rust (`Check`), in
//! Python (`symalias._native.PartitionCheck`, …), in the stub and in the
//! docs. Members are a frame's tensors by slot (their index among the
//! `FrameCheck`'s paths). Each class validates what it is given when it is
//! made, keeps it as plain data (it pickles with a saved artifact:
//! `__reduce__` gives the class and its constructor's arguments), and turns
//! into the checker's private form (`Check`) once the frame's slot count is
//! known.
//!
//! | class | holds at a call when |
//! | --- | --- |
//! | `OneStorageCheck` | the members share one storage |
//! | `PartitionCheck` | the members overlap as the guards state (memoised) |
//! | `PinCheck` | integer storage offsets, and a static synthetic base's layout |
//! | `CrossStorageCheck` | no mutated group shares a storage with another group |
//! | `NoSelfOverlapCheck` | no member overlaps itself |
//! | `AddressCheck` | two members' addresses compare as the user's code saw them |

use hashbrown::HashMap;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};
use std::sync::Arc;
use std::sync::Mutex;
use symalias::GuardSet;

use crate::decide::PyDecision;
use crate::document::{guards_from_text, guards_text};
use crate::error::at_field;

/// What a static synthetic base bakes in.
pub(crate) enum Base {
    /// The autograd base's layout.
    Autograd(AutogradBase),
    /// No autograd base: the storage's size in bytes.
    Storage(i64),
}

/// An autograd base's sizes, strides, offset and dtype.
pub(crate) struct AutogradBase {
    pub(crate) sizes: Vec<i64>,
    pub(crate) strides: Vec<i64>,
    pub(crate) offset: i64,
    /// A `torch.dtype`, compared by identity.
    pub(crate) dtype: Py<PyAny>,
}

impl Base {
    fn clone_ref(&self, py: Python<'_>) -> Base {
        match self {
            Base::Storage(n) => Base::Storage(*n),
            Base::Autograd(a) => Base::Autograd(AutogradBase {
                sizes: a.sizes.clone(),
                strides: a.strides.clone(),
                offset: a.offset,
                dtype: a.dtype.clone_ref(py),
            }),
        }
    }
}

/// A check in the checker's form, its members in range.
pub(crate) enum Check {
    OneStorage(Vec<usize>),
    Partition {
        members: Vec<usize>,
        merged: bool,
        symbolic: bool,
        names: Vec<String>,
        guards: Arc<symalias::GuardSet>,
        memo: Mutex<HashMap<Vec<i64>, bool>>,
    },
    Pin {
        offsets: Vec<(usize, i64)>,
        base: Option<(usize, Base)>,
    },
    CrossStorage {
        members: Vec<usize>,
        groups: Vec<u32>,
        mutated: Vec<bool>,
    },
    NoSelfOverlap(Vec<usize>),
    Address {
        a: usize,
        b: usize,
        relation: Relation,
        expected: bool,
    },
}

/// How user code compared two tensors' addresses (`AddressCheck`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Relation {
    /// `a.data_ptr() == b.data_ptr()`.
    DataPtr,
    /// `a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`.
    StorageDataPtr,
    /// `a.is_set_to(b)`.
    SetTo,
    /// `torch._C._is_alias_of(a, b)`.
    AliasOf,
}

impl Relation {
    const ALL: [(&'static str, Relation); 4] = [
        ("data_ptr", Relation::DataPtr),
        ("storage_data_ptr", Relation::StorageDataPtr),
        ("set_to", Relation::SetTo),
        ("alias_of", Relation::AliasOf),
    ];

    fn parse(name: &str) -> PyResult<Relation> {
        Relation::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, r)| r)
            .ok_or_else(|| {
                at_field(
                    "AddressCheck.relation",
                    format!("{name:?} is not one of data_ptr, storage_data_ptr, set_to, alias_of"),
                )
            })
    }

    fn name(self) -> &'static str {
        Relation::ALL
            .iter()
            .find(|(_, r)| *r == self)
            .map(|(n, _)| *n)
            .unwrap_or("data_ptr")
    }
}

/// `members` checked against the frame's `n` slots (`kind`: the class, for
/// the error).
fn in_range(kind: &str, members: &[usize], n: usize) -> PyResult<Vec<usize>> {
    match members.iter().find(|&&i| i >= n) {
        Some(i) => Err(at_field(
            format!("{kind}.members"),
            format!("slot {i} out of range (the frame has {n})"),
        )),
        None => Ok(members.to_vec()),
    }
}

fn non_empty(kind: &str, members: Vec<usize>) -> PyResult<Vec<usize>> {
    if members.is_empty() {
        return Err(at_field(format!("{kind}.members"), "no members"));
    }
    Ok(members)
}

/// A check class whose only field is its members (non-empty): the struct,
/// its Python name and its doc.
macro_rules! members_check {
    ($ty:ident, $name:literal, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(module = "symalias._native", name = $name, frozen)]
        pub struct $ty {
            /// The slots of the members.
            #[pyo3(get)]
            members: Vec<usize>,
        }

        #[pymethods]
        impl $ty {
            #[new]
            #[pyo3(signature = (*, members))]
            fn new(members: Vec<usize>) -> PyResult<Self> {
                Ok($ty {
                    members: non_empty($name, members)?,
                })
            }

            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
                reduced(slf.as_any(), &["members"])
            }

            fn __repr__(&self) -> String {
                format!(concat!($name, "(members={:?})"), self.members)
            }
        }
    };
}

members_check!(
    PyOneStorageCheck,
    "OneStorageCheck",
    "The members share one storage (a merged group)."
);
members_check!(
    PyNoSelfOverlapCheck,
    "NoSelfOverlapCheck",
    "No member overlaps itself, decided exactly from its sizes and strides \
     (mutated inputs whose non-overlap with themselves was not proved for \
     all shapes)."
);

/// Which members of one storage group overlap, as the guards state them --
/// taken from `decision` (a `Decision`'s partition guards, compiled once
/// from its typed report), or from `guards` (their JSON text: what a
/// pickled check carries, compiled when unpickled) -- checked by symalias's
/// exact checker and memoised on what it reads. The compiled guards are
/// shared with every `FrameCheck` made from it; text is printed only to
/// pickle.
#[pyclass(module = "symalias._native", name = "PartitionCheck", frozen)]
pub struct PyPartitionCheck {
    /// The slots of the group's members.
    #[pyo3(get)]
    members: Vec<usize>,
    /// The group was merged into a synthetic base: its members must also
    /// share one storage.
    #[pyo3(get)]
    merged: bool,
    /// Some layout was symbolic: whole layouts are read and memoised.
    #[pyo3(get)]
    symbolic: bool,
    /// The members' sources, as the guards name them.
    #[pyo3(get)]
    names: Vec<String>,
    compiled: Arc<GuardSet>,
}

#[pymethods]
impl PyPartitionCheck {
    #[new]
    #[pyo3(signature = (*, members, merged, symbolic, names, decision = None, guards = None))]
    fn new(
        members: Vec<usize>,
        merged: bool,
        symbolic: bool,
        names: Vec<String>,
        decision: Option<PyRef<'_, PyDecision>>,
        guards: Option<String>,
    ) -> PyResult<Self> {
        let members = non_empty("PartitionCheck", members)?;
        if names.len() != members.len() {
            return Err(at_field("PartitionCheck.names", "one name per member"));
        }
        let compiled = match (decision, guards) {
            (Some(d), None) => d.partition_guards()?,
            // A pickled check's state (the file edge).
            (None, Some(text)) => Arc::new(guards_from_text(&text, "PartitionCheck.guards")?),
            _ => {
                return Err(at_field(
                    "PartitionCheck.decision",
                    "give the decision, or the guards of a pickled check, not both",
                ))
            }
        };
        Ok(PyPartitionCheck {
            members,
            merged,
            symbolic,
            names,
            compiled,
        })
    }

    /// The guards as JSON text (what the check pickles as).
    #[getter]
    fn guards(&self) -> String {
        guards_text(&self.compiled)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduced(
            slf.as_any(),
            &["members", "merged", "symbolic", "names", "guards"],
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "PartitionCheck(members={:?}, merged={}, symbolic={}, names={:?})",
            self.members, self.merged, self.symbolic, self.names
        )
    }
}

/// What a compiled graph bakes in and torch guards nowhere: integer storage
/// offsets, and for a static synthetic base (at slot `base_member`) either
/// its autograd base's layout (`base_sizes`, `base_strides`, `base_offset`,
/// `base_dtype`) or, with no autograd base, its storage's size
/// (`storage_nbytes`).
#[pyclass(module = "symalias._native", name = "PinCheck", frozen)]
pub struct PyPinCheck {
    /// `(slot, storage offset)` pairs.
    #[pyo3(get)]
    offsets: Vec<(usize, i64)>,
    /// The member whose base is pinned, and what is pinned.
    base: Option<(usize, Base)>,
}

impl PyPinCheck {
    /// The autograd base's layout, when that is what is pinned.
    fn autograd(&self) -> Option<&AutogradBase> {
        match &self.base {
            Some((_, Base::Autograd(a))) => Some(a),
            _ => None,
        }
    }
}

#[pymethods]
impl PyPinCheck {
    #[new]
    #[pyo3(signature = (*, offsets, base_member = None, storage_nbytes = None, base_sizes = None, base_strides = None, base_offset = None, base_dtype = None))]
    fn new(
        offsets: Vec<(usize, i64)>,
        base_member: Option<usize>,
        storage_nbytes: Option<i64>,
        base_sizes: Option<Vec<i64>>,
        base_strides: Option<Vec<i64>>,
        base_offset: Option<i64>,
        base_dtype: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let layout = (base_sizes, base_strides, base_offset, base_dtype);
        let base = match (base_member, storage_nbytes, layout) {
            (None, None, (None, None, None, None)) => None,
            (Some(i), Some(n), (None, None, None, None)) => Some((i, Base::Storage(n))),
            (Some(i), None, (Some(sizes), Some(strides), Some(offset), Some(dtype))) => {
                let layout = AutogradBase {
                    sizes,
                    strides,
                    offset,
                    dtype,
                };
                Some((i, Base::Autograd(layout)))
            }
            _ => {
                return Err(at_field(
                    "PinCheck.base_member",
                    "a pinned base takes storage_nbytes, or all of base_sizes, base_strides, \
                     base_offset and base_dtype",
                ))
            }
        };
        Ok(PyPinCheck { offsets, base })
    }

    /// The member whose base is pinned, if any.
    #[getter]
    fn base_member(&self) -> Option<usize> {
        self.base.as_ref().map(|(i, _)| *i)
    }

    /// Its storage's size in bytes, when it has no autograd base.
    #[getter]
    fn storage_nbytes(&self) -> Option<i64> {
        match &self.base {
            Some((_, Base::Storage(n))) => Some(*n),
            _ => None,
        }
    }

    /// Its autograd base's sizes …
    #[getter]
    fn base_sizes(&self) -> Option<Vec<i64>> {
        self.autograd().map(|a| a.sizes.clone())
    }

    /// … strides …
    #[getter]
    fn base_strides(&self) -> Option<Vec<i64>> {
        self.autograd().map(|a| a.strides.clone())
    }

    /// … storage offset …
    #[getter]
    fn base_offset(&self) -> Option<i64> {
        self.autograd().map(|a| a.offset)
    }

    /// … and dtype (a `torch.dtype`, compared by identity).
    #[getter]
    fn base_dtype(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.autograd().map(|a| a.dtype.clone_ref(py))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let fields = [
            "offsets",
            "base_member",
            "storage_nbytes",
            "base_sizes",
            "base_strides",
            "base_offset",
            "base_dtype",
        ];
        reduced(slf.as_any(), &fields)
    }

    fn __repr__(&self) -> String {
        format!(
            "PinCheck(offsets={:?}, base_member={:?})",
            self.offsets,
            self.base_member()
        )
    }
}

/// No member of a mutated group shares its storage with a member of
/// another group (`groups`: each member's compile-time storage group;
/// `mutated`: per group, whether one of its members is mutated).
#[pyclass(module = "symalias._native", name = "CrossStorageCheck", frozen)]
pub struct PyCrossStorageCheck {
    /// The slots of the frame's tensor inputs.
    #[pyo3(get)]
    members: Vec<usize>,
    /// Each member's group.
    #[pyo3(get)]
    groups: Vec<u32>,
    /// Per group: one of its members is mutated.
    #[pyo3(get)]
    mutated: Vec<bool>,
}

#[pymethods]
impl PyCrossStorageCheck {
    #[new]
    #[pyo3(signature = (*, members, groups, mutated))]
    fn new(members: Vec<usize>, groups: Vec<u32>, mutated: Vec<bool>) -> PyResult<Self> {
        let members = non_empty("CrossStorageCheck", members)?;
        if groups.len() != members.len() || groups.iter().any(|&g| g as usize >= mutated.len()) {
            return Err(at_field(
                "CrossStorageCheck.groups",
                "one group per member, each with a mutation flag",
            ));
        }
        Ok(PyCrossStorageCheck {
            members,
            groups,
            mutated,
        })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduced(slf.as_any(), &["members", "groups", "mutated"])
    }

    fn __repr__(&self) -> String {
        format!(
            "CrossStorageCheck(members={:?}, groups={:?}, mutated={:?})",
            self.members, self.groups, self.mutated
        )
    }
}

/// Two members' addresses compare at a call as user code compared them
/// when the frame was compiled (`relation`, `expected`): the constant
/// symalias gave Dynamo for `a.data_ptr() == b.data_ptr()`,
/// `a.untyped_storage().data_ptr() == ...`, `a.is_set_to(b)` or
/// `torch._C._is_alias_of(a, b)`, kept true by this check.
#[pyclass(module = "symalias._native", name = "AddressCheck", frozen)]
pub struct PyAddressCheck {
    /// The slots of the two tensors, in the order compared.
    #[pyo3(get)]
    members: Vec<usize>,
    relation: Relation,
    /// What the comparison gave at compile time.
    #[pyo3(get)]
    expected: bool,
}

#[pymethods]
impl PyAddressCheck {
    #[new]
    #[pyo3(signature = (*, members, relation, expected))]
    fn new(members: Vec<usize>, relation: &str, expected: bool) -> PyResult<Self> {
        if members.len() != 2 {
            return Err(at_field("AddressCheck.members", "two members"));
        }
        Ok(PyAddressCheck {
            members,
            relation: Relation::parse(relation)?,
            expected,
        })
    }

    /// `data_ptr`, `storage_data_ptr`, `set_to` or `alias_of`.
    #[getter]
    fn relation(&self) -> &'static str {
        self.relation.name()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduced(slf.as_any(), &["members", "relation", "expected"])
    }

    fn __repr__(&self) -> String {
        format!(
            "AddressCheck(members={:?}, relation={:?}, expected={})",
            self.members,
            self.relation.name(),
            if self.expected { "True" } else { "False" }
        )
    }
}

/// `__reduce__`'s answer for a keyword-only class: `symalias._native.rebuild`
/// with the class and its fields (each a getter named as its keyword).
fn reduced<'py>(slf: &Bound<'py, PyAny>, fields: &[&str]) -> PyResult<Bound<'py, PyTuple>> {
    let py = slf.py();
    // This module's own `rebuild` (pickle finds it by module and name).
    let rebuild = py.import("symalias._native")?.getattr("rebuild")?;
    let kwargs = PyDict::new(py);
    for &f in fields {
        kwargs.set_item(f, slf.getattr(f)?)?;
    }
    (rebuild, (slf.get_type(), kwargs)).into_pyobject(py)
}

/// Makes a check class from `__reduce__`'s parts (pickle, `copy`): the
/// class and its keywords.
#[pyfunction]
pub(crate) fn rebuild<'py>(
    cls: &Bound<'py, PyType>,
    kwargs: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    cls.call((), Some(kwargs))
}

/// Registers the check classes (and `rebuild`) in the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyOneStorageCheck>()?;
    m.add_class::<PyPartitionCheck>()?;
    m.add_class::<PyPinCheck>()?;
    m.add_class::<PyCrossStorageCheck>()?;
    m.add_class::<PyNoSelfOverlapCheck>()?;
    m.add_class::<PyAddressCheck>()?;
    m.add_function(wrap_pyfunction!(rebuild, m)?)
}

/// Any of the check classes, as a `FrameCheck` takes them.
#[derive(FromPyObject)]
pub(crate) enum AnyCheck<'py> {
    OneStorage(Bound<'py, PyOneStorageCheck>),
    Partition(Bound<'py, PyPartitionCheck>),
    Pin(Bound<'py, PyPinCheck>),
    CrossStorage(Bound<'py, PyCrossStorageCheck>),
    NoSelfOverlap(Bound<'py, PyNoSelfOverlapCheck>),
    Address(Bound<'py, PyAddressCheck>),
}

impl AnyCheck<'_> {
    /// The checker's form, every slot checked against the frame's `n`.
    pub(crate) fn into_check(self, n: usize) -> PyResult<Check> {
        Ok(match self {
            AnyCheck::OneStorage(c) => {
                Check::OneStorage(in_range("OneStorageCheck", &c.get().members, n)?)
            }
            AnyCheck::NoSelfOverlap(c) => {
                Check::NoSelfOverlap(in_range("NoSelfOverlapCheck", &c.get().members, n)?)
            }
            AnyCheck::Partition(c) => {
                let c = c.get();
                Check::Partition {
                    members: in_range("PartitionCheck", &c.members, n)?,
                    merged: c.merged,
                    symbolic: c.symbolic,
                    names: c.names.clone(),
                    guards: Arc::clone(&c.compiled),
                    memo: Mutex::new(HashMap::new()),
                }
            }
            AnyCheck::CrossStorage(c) => {
                let c = c.get();
                Check::CrossStorage {
                    members: in_range("CrossStorageCheck", &c.members, n)?,
                    groups: c.groups.clone(),
                    mutated: c.mutated.clone(),
                }
            }
            AnyCheck::Pin(c) => pin(c, n)?,
            AnyCheck::Address(c) => {
                let c = c.get();
                let m = in_range("AddressCheck", &c.members, n)?;
                Check::Address {
                    a: m[0],
                    b: m[1],
                    relation: c.relation,
                    expected: c.expected,
                }
            }
        })
    }
}

fn pin(c: Bound<'_, PyPinCheck>, n: usize) -> PyResult<Check> {
    let py = c.py();
    let c = c.get();
    let slots: Vec<usize> = c.offsets.iter().map(|&(i, _)| i).collect();
    in_range("PinCheck", &slots, n)?;
    let base = match &c.base {
        None => None,
        Some((i, b)) => {
            in_range("PinCheck", &[*i], n)?;
            Some((*i, b.clone_ref(py)))
        }
    };
    Ok(Check::Pin {
        offsets: c.offsets.clone(),
        base,
    })
}
