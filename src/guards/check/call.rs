//! The call of §6 (inputs keyed by source, concrete tensors or values) and
//! its binding to a prepared guard list's sources.

use super::prepare::Read;
use super::{CheckError, SourceProblem};
use crate::layout::View;
use serde::{Deserialize, Serialize};

/// A tensor of a call: identities and its concrete layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallTensor {
    /// Object identity.
    pub object: String,
    /// Storage identity.
    pub storage: String,
    /// Sizes, strides, storage offset and itemsize (§6: the keys of the
    /// tensor object itself).
    #[serde(flatten)]
    pub view: View,
    /// dtype name.
    #[serde(default)]
    pub dtype: Option<String>,
}

/// One input of a call, keyed by source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallInput {
    /// The source, e.g. `L['a']`.
    pub source: String,
    /// A tensor input.
    #[serde(default)]
    pub tensor: Option<CallTensor>,
    /// A scalar input.
    #[serde(default)]
    pub value: Option<i64>,
}

/// A concrete call (§6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The inputs.
    pub inputs: Vec<CallInput>,
}

impl CallTensor {
    /// A tensor of object `object` in storage `storage` with this layout
    /// (no dtype).
    ///
    /// ```
    /// use symalias::{Call, CallTensor, View};
    /// let view = View { sizes: vec![5], strides: vec![1], offset: 0, itemsize: 4 };
    /// let call = Call::new()
    ///     .tensor("L['a']", CallTensor::new("a", "X", view))
    ///     .value("L['k']", 3);
    /// assert_eq!(call.inputs.len(), 2);
    /// assert_eq!(call.inputs[1].value, Some(3));
    /// ```
    pub fn new(object: impl Into<String>, storage: impl Into<String>, view: View) -> Self {
        CallTensor {
            object: object.into(),
            storage: storage.into(),
            view,
            dtype: None,
        }
    }
}

impl Call {
    /// A call with no inputs yet.
    pub fn new() -> Self {
        Call { inputs: Vec::new() }
    }

    /// The call with one more tensor input, at `source`.
    pub fn tensor(mut self, source: impl Into<String>, tensor: CallTensor) -> Self {
        self.inputs.push(CallInput {
            source: source.into(),
            tensor: Some(tensor),
            value: None,
        });
        self
    }

    /// The call with one more integer input, at `source`.
    pub fn value(mut self, source: impl Into<String>, value: i64) -> Self {
        self.inputs.push(CallInput {
            source: source.into(),
            tensor: None,
            value: Some(value),
        });
        self
    }
}

impl Default for Call {
    fn default() -> Self {
        Call::new()
    }
}

/// The call's inputs for one check, by source index.
pub(super) struct Bound<'c> {
    pub(super) names: &'c [String],
    pub(super) inputs: Vec<Option<&'c CallInput>>,
}

impl<'c> Bound<'c> {
    pub(super) fn input(&self, k: usize) -> Result<&'c CallInput, CheckError> {
        self.inputs[k].ok_or_else(|| CheckError::MissingSource(self.names[k].clone()))
    }

    pub(super) fn tensor(&self, k: usize) -> Result<&'c CallTensor, CheckError> {
        self.input(k)?
            .tensor
            .as_ref()
            .ok_or_else(|| CheckError::NotATensor(self.names[k].clone()))
    }

    pub(super) fn read(&self, k: usize, what: &Read, symbol: &str) -> Result<i64, CheckError> {
        let bad = |problem: SourceProblem| {
            let at = match what {
                Read::Size(d) => format!("{}.size()[{d}]", self.names[k]),
                Read::Stride(d) => format!("{}.stride()[{d}]", self.names[k]),
                Read::Offset => format!("{}.storage_offset()", self.names[k]),
                Read::Value => self.names[k].clone(),
            };
            CheckError::BadSource { at, problem }
        };
        match what {
            Read::Size(d) => self.tensor(k)?.view.sizes.get(*d).copied(),
            Read::Stride(d) => self.tensor(k)?.view.strides.get(*d).copied(),
            Read::Offset => Some(self.tensor(k)?.view.offset),
            Read::Value => {
                return self
                    .input(k)?
                    .value
                    .ok_or_else(|| bad(SourceProblem::NoValue(symbol.to_string())))
            }
        }
        .ok_or_else(|| bad(SourceProblem::DimensionOutOfRange(symbol.to_string())))
    }
}

/// The members' tensors, or why they no longer share the first one's storage.
pub(super) fn one_storage<'c>(
    members: &[usize],
    b: &Bound<'c>,
) -> Result<Result<Vec<&'c CallTensor>, String>, CheckError> {
    let ts = members
        .iter()
        .map(|&k| b.tensor(k))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(match ts.iter().position(|t| t.storage != ts[0].storage) {
        None => Ok(ts),
        Some(k) => Err(format!(
            "{} is no longer in the storage of {} (storage identity changed)",
            b.names[members[k]], b.names[members[0]]
        )),
    })
}
