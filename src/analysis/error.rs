//! Errors of the analysis layer: bad input (the analysis cannot run:
//! [`GroupError`], [`ProgramError`]) versus what a compiler would raise
//! about a well-formed program ([`CompileError`], listed in the report).

use crate::aot::meta::{BaseError, MetaError};
use crate::aot::signature::SignatureError;
use crate::aot::synthetic::SyntheticError;
use crate::layout::LayoutError;
use thiserror::Error;

/// A group that cannot be analysed: a member has no valid view at the hints.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("member {member}: {error}")]
pub struct GroupError {
    /// The member (index into the group).
    pub member: usize,
    /// What is wrong with its layout.
    pub error: Box<LayoutError>,
}

/// A malformed program. Each variant names the input or output at fault.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ProgramError {
    /// An input of kind `other` has a tensor.
    #[error("an input of kind `other` has no tensor")]
    OtherWithTensor(usize),
    /// A tensor input without a tensor.
    #[error("a tensor input needs `tensor` (use kind `other` for non-tensors)")]
    MissingTensor(usize),
    /// A parameter or buffer without a qualified name.
    #[error("parameters and buffers need an `fqn`")]
    MissingFqn(usize),
    /// An empty object identity.
    #[error("empty object identity")]
    EmptyObject(usize),
    /// An empty storage identity.
    #[error("empty storage identity")]
    EmptyStorage(usize),
    /// Sizes and strides differ in length.
    #[error("{strides} strides for {sizes} sizes")]
    Rank {
        /// The input.
        input: usize,
        /// Number of sizes.
        sizes: usize,
        /// Number of strides.
        strides: usize,
    },
    /// One object in two storages.
    #[error("object `{object}` is in storage `{before}` at an earlier input, here in `{here}`")]
    ObjectInTwoStorages {
        /// The input.
        input: usize,
        /// The object.
        object: String,
        /// Its earlier storage.
        before: String,
        /// Its storage here.
        here: String,
    },
    /// More intermediate bases than the analyzer allows.
    #[error("{count} intermediate bases, more than the limit of {max} (raise it with --max-intermediate-bases)")]
    TooManyIntermediateBases {
        /// The program's count.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// One object given with two different layouts.
    #[error("object `{object}` has another layout at inputs[{first}]: one object has one layout")]
    ObjectWithTwoLayouts {
        /// The input.
        input: usize,
        /// The object.
        object: String,
        /// The earlier input with the object.
        first: usize,
    },
    /// A view whose base is in another storage.
    #[error("dangling storage: the view is in storage `{storage}` but its base `{base}` is in `{base_storage}`")]
    DanglingBase {
        /// The input.
        input: usize,
        /// The view's storage.
        storage: String,
        /// The base object.
        base: String,
        /// The base's storage.
        base_storage: String,
    },
    /// An output's base index does not fit its type.
    #[error("{error}")]
    OutputBase {
        /// The output.
        output: usize,
        /// What is wrong.
        error: BaseError,
    },
    /// Malformed input metadata (a §1.4 invariant).
    #[error("{error}")]
    Meta {
        /// The input.
        input: usize,
        /// What is wrong.
        error: MetaError,
    },
    /// A tensor of an asked storage group has no valid view at the hints.
    #[error("{error}")]
    Layout {
        /// The input.
        input: usize,
        /// What is wrong.
        error: Box<LayoutError>,
    },
}

/// What a compiler would raise for a well-formed program; the passes after
/// it are skipped and the report lists it in `errors`.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum CompileError {
    /// A mutation that cannot be expressed (e.g. a resize out of the graph).
    #[error("{0}")]
    Meta(MetaError),
    /// Export: an input's metadata is mutated.
    #[error("Found an input that received a metadata mutation, through e.g. a call to `.resize_()` or `.transpose_()`. This is currently banned in the aot_export workflow. (inputs {0:?})")]
    ExportMetadataMutation(Vec<usize>),
    /// Export of a joint graph: an input that requires grad is mutated.
    #[error("Found a graph input that requires gradients, and received a mutation. This is currently banned in the aot_export workflow. (inputs {0:?})")]
    ExportGradMutation(Vec<usize>),
    /// Export: duplicated inputs are mutated.
    #[error("Encountered duplicated inputs that are mutated in the graph you are trying to export. This functionality is currently not supported. If needed, please file a github issue.")]
    ExportMutatedDuplicates,
    /// The synthetic-base pass refused.
    #[error("{0}")]
    Synthetic(SyntheticError),
    /// A signature was asked for a graph with removed duplicates or synthetic bases.
    #[error("no graph signature: it needs a graph without removed duplicates or synthetic bases (export forbids both)")]
    NoSignature,
    /// `graph.parameters` disagree with the inputs.
    #[error("graph.parameters differ from the inputs of kind `parameter`")]
    GraphParameters,
    /// `graph.buffers` disagree with the inputs.
    #[error("graph.buffers differ from the inputs of kind `buffer`")]
    GraphBuffers,
    /// The signature cannot be built.
    #[error("{0}")]
    Signature(SignatureError),
}
