//! The metadata model (docs/PYTORCH.md §1): per-input and per-output alias
//! information, the mutation type and its derivation, `ViewAndMutationMeta`
//! with its derived properties, and traced tangents as descriptors.
//!
//! `ViewAndMutationMeta<I>` is generic over the input index space `I`
//! (outer, deduped or inner inputs). Output bases are a typed enum: only
//! `OutputBase::Input` carries an input index, so the input passes can only
//! remap input aliases (bug B3 cannot be written). Traced tangents are derived
//! from their definition every time they are asked for (bugs B1, B2).

use super::index::{InputIndex, IntermediateBaseIdx, UserOutputIdx};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use thiserror::Error;

/// What a user output is (§1.1), in PyTorch's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputType {
    /// A fresh tensor or a non-tensor.
    NonAlias,
    /// A view of a forward input.
    AliasOfInput,
    /// A forward input itself.
    IsInput,
    /// A view of an intermediate that is appended as an intermediate base.
    AliasOfIntermediateSaveAsOutput,
    /// A view of an intermediate whose base is already an intermediate base.
    AliasOfIntermediate,
    /// A view of an intermediate that is itself a user output.
    AliasOfIntermediateBaseIsUserOutput,
    /// A hidden alias, treated like a fresh output.
    UnsafeViewAlias,
    /// An alias made by a custom autograd.Function, treated like a fresh output.
    CustomFunctionView,
}

impl OutputType {
    /// The §1.1 name (`alias_of_input`, …), as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            OutputType::NonAlias => "non_alias",
            OutputType::AliasOfInput => "alias_of_input",
            OutputType::IsInput => "is_input",
            OutputType::AliasOfIntermediateSaveAsOutput => "alias_of_intermediate_save_as_output",
            OutputType::AliasOfIntermediate => "alias_of_intermediate",
            OutputType::AliasOfIntermediateBaseIsUserOutput => {
                "alias_of_intermediate_base_is_user_output"
            }
            OutputType::UnsafeViewAlias => "unsafe_view_alias",
            OutputType::CustomFunctionView => "custom_function_view",
        }
    }

    /// `non_alias`, `unsafe_view_alias`, `custom_function_view`.
    pub(crate) fn is_non_aliased_like(self) -> bool {
        matches!(
            self,
            OutputType::NonAlias | OutputType::UnsafeViewAlias | OutputType::CustomFunctionView
        )
    }

    /// `alias_of_input`, `is_input`.
    pub(crate) fn is_input_alias(self) -> bool {
        matches!(self, OutputType::AliasOfInput | OutputType::IsInput)
    }

    /// The three `alias_of_intermediate*` types.
    pub(crate) fn is_intermediate_alias(self) -> bool {
        matches!(
            self,
            OutputType::AliasOfIntermediateSaveAsOutput
                | OutputType::AliasOfIntermediate
                | OutputType::AliasOfIntermediateBaseIsUserOutput
        )
    }
}

/// How an input's mutation is handled (§1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MutationType {
    /// No mutation.
    NotMutated,
    /// A `copy_` at the end of the graph.
    MutatedInGraph,
    /// Returned from the graph and applied by the runtime wrapper.
    MutatedOutGraph,
}

/// Errors of the metadata model and the passes (messages as a compiler raises them).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum MetaError {
    /// A storage resize or `set_()` that cannot stay in the graph (§1.3).
    #[error("input {0}: Encountered a resize_/set_ on a graph input, but the input has other mutations that we cannot keep in the graph")]
    ResizeOutOfGraph(usize),
    /// `mutates_storage_metadata` without `mutates_metadata` (§1.4 invariant).
    #[error("input {0}: mutates_storage_metadata requires mutates_metadata")]
    StorageMetadataWithoutMetadata(usize),
}

/// Per-input alias and mutation information (§1.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InputAliasInfo {
    /// An autograd leaf.
    #[serde(default)]
    pub is_leaf: bool,
    /// The function wrote into the input's memory.
    #[serde(default)]
    pub mutates_data: bool,
    /// In-place change of size/stride/offset.
    #[serde(default)]
    pub mutates_metadata: bool,
    /// All mutations were invisible to autograd.
    #[serde(default)]
    pub mutations_hidden_from_autograd: bool,
    /// Every mutation happened with grad disabled or in inference mode.
    #[serde(default)]
    pub mutations_under_no_grad_or_inference_mode: bool,
    /// The storage was resized through inductor's resize op.
    #[serde(default)]
    pub mutation_inductor_storage_resize: bool,
    /// The input saw `set_()`.
    #[serde(default)]
    pub mutates_storage_metadata: bool,
    /// requires_grad after running the function.
    #[serde(default)]
    pub requires_grad: bool,
    /// Inference option copied from the meta.
    #[serde(default)]
    pub keep_input_mutations: bool,
}

impl InputAliasInfo {
    /// The mutation type (§1.3); `index` only labels errors.
    pub fn mutation_type(&self, index: usize) -> Result<MutationType, MetaError> {
        if self.mutates_storage_metadata && !self.mutates_metadata {
            return Err(MetaError::StorageMetadataWithoutMetadata(index));
        }
        if !self.mutates_data && !self.mutates_metadata && !self.mutation_inductor_storage_resize {
            return Ok(MutationType::NotMutated);
        }
        let in_graph = self.keep_input_mutations
            && (self.mutates_data
                || self.mutates_storage_metadata
                || self.mutation_inductor_storage_resize)
            && ((!self.mutates_metadata && !self.requires_grad)
                || self.mutations_hidden_from_autograd
                || self.mutations_under_no_grad_or_inference_mode);
        if !in_graph && (self.mutation_inductor_storage_resize || self.mutates_storage_metadata) {
            return Err(MetaError::ResizeOutOfGraph(index));
        }
        Ok(if in_graph {
            MutationType::MutatedInGraph
        } else {
            MutationType::MutatedOutGraph
        })
    }
}

/// What an output aliases, in the index space its type implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputBase<I> {
    /// Nothing (non-aliased-like outputs).
    None,
    /// A forward input (`alias_of_input`, `is_input`).
    Input(I),
    /// An intermediate base (`alias_of_intermediate_save_as_output`, `alias_of_intermediate`).
    IntermediateBase(IntermediateBaseIdx),
    /// A user output (`alias_of_intermediate_base_is_user_output`).
    UserOutput(UserOutputIdx),
}

impl<I: InputIndex> OutputBase<I> {
    /// The plain index (`None` for no base).
    pub fn index(&self) -> Option<usize> {
        match *self {
            OutputBase::None => None,
            OutputBase::Input(i) => Some(i.pos()),
            OutputBase::IntermediateBase(b) => Some(b.0),
            OutputBase::UserOutput(o) => Some(o.0),
        }
    }
}

/// Per-output alias information (§1.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputAliasInfo<I> {
    /// The output type.
    pub output_type: OutputType,
    /// The aliased base, typed by index space.
    pub base: OutputBase<I>,
    /// The output requires grad.
    pub requires_grad: bool,
    /// Non-concrete dims (`None` for a non-tensor output).
    pub dynamic_dims: Option<Vec<usize>>,
    /// Python type of the output (`Tensor`, `FunctionalTensor`, `int`, …).
    pub raw_type: String,
}

/// Why an output's `base_idx` does not fit its type.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum BaseError {
    /// A base index on an output that has none.
    #[error("output_type `{0}` takes no base_idx, found {1}")]
    Unexpected(String, usize),
    /// No base index where the type needs one.
    #[error("output_type `{0}` needs a base_idx")]
    Missing(String),
    /// The index is outside its space.
    #[error("base_idx {index} is out of range: there are {len} {space}")]
    OutOfRange {
        /// The index.
        index: usize,
        /// Size of the space.
        len: usize,
        /// The space's name.
        space: &'static str,
    },
}

impl<I: InputIndex> OutputAliasInfo<I> {
    /// Builds the typed base from a plain `base_idx`, checking its index space.
    pub fn new(
        output_type: OutputType,
        base_idx: Option<usize>,
        sizes: (usize, usize, usize),
        requires_grad: bool,
        dynamic_dims: Option<Vec<usize>>,
    ) -> Result<Self, BaseError> {
        let (num_inputs, num_bases, num_outputs) = sizes;
        let name = output_type.name().to_string();
        let check = |i: usize, len: usize, space: &'static str| {
            if i < len {
                Ok(i)
            } else {
                Err(BaseError::OutOfRange {
                    index: i,
                    len,
                    space,
                })
            }
        };
        let base = match (output_type, base_idx) {
            (t, None) if t.is_non_aliased_like() => OutputBase::None,
            (t, Some(i)) if t.is_non_aliased_like() => return Err(BaseError::Unexpected(name, i)),
            (_, None) => return Err(BaseError::Missing(name)),
            (t, Some(i)) if t.is_input_alias() => {
                OutputBase::Input(I::at(check(i, num_inputs, "inputs")?))
            }
            (OutputType::AliasOfIntermediateBaseIsUserOutput, Some(i)) => {
                OutputBase::UserOutput(UserOutputIdx(check(i, num_outputs, "user outputs")?))
            }
            (_, Some(i)) => OutputBase::IntermediateBase(IntermediateBaseIdx(check(
                i,
                num_bases,
                "intermediate bases",
            )?)),
        };
        Ok(OutputAliasInfo {
            output_type,
            base,
            requires_grad,
            dynamic_dims,
            raw_type: "Tensor".to_string(),
        })
    }

    /// `true` for tensor outputs.
    pub(crate) fn is_tensor(&self) -> bool {
        self.dynamic_dims.is_some()
    }

    /// The same output in another input index space: only input aliases move.
    pub(crate) fn map_input<J>(&self, f: impl Fn(I) -> J) -> OutputAliasInfo<J> {
        OutputAliasInfo {
            output_type: self.output_type,
            base: match self.base {
                OutputBase::None => OutputBase::None,
                OutputBase::Input(i) => OutputBase::Input(f(i)),
                OutputBase::IntermediateBase(b) => OutputBase::IntermediateBase(b),
                OutputBase::UserOutput(o) => OutputBase::UserOutput(o),
            },
            requires_grad: self.requires_grad,
            dynamic_dims: self.dynamic_dims.clone(),
            raw_type: self.raw_type.clone(),
        }
    }
}

/// One traced tangent, by what it is the tangent of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TangentDesc<I> {
    /// The data-mutated, grad-requiring input `I` (mutated out of the graph).
    InputMutation(I),
    /// A non-aliased tensor user output that requires grad.
    UserOutput(UserOutputIdx),
    /// An intermediate base.
    IntermediateBase(IntermediateBaseIdx),
}

/// The refined metadata of a graph's inputs and outputs (§1.6), in the input
/// index space `I`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewAndMutationMeta<I> {
    /// One per input.
    pub input_info: Vec<InputAliasInfo>,
    /// One per user output.
    pub output_info: Vec<OutputAliasInfo<I>>,
    /// Intermediate bases appended to the forward outputs.
    pub num_intermediate_bases: usize,
    /// Inference option: keep data-only mutations in the graph.
    pub keep_input_mutations: bool,
    _space: PhantomData<I>,
}

impl<I: InputIndex> ViewAndMutationMeta<I> {
    /// A meta; each input's `keep_input_mutations` is set from the meta's.
    pub fn new(
        mut input_info: Vec<InputAliasInfo>,
        output_info: Vec<OutputAliasInfo<I>>,
        num_intermediate_bases: usize,
        keep_input_mutations: bool,
    ) -> Self {
        for i in &mut input_info {
            i.keep_input_mutations = keep_input_mutations;
        }
        ViewAndMutationMeta {
            input_info,
            output_info,
            num_intermediate_bases,
            keep_input_mutations,
            _space: PhantomData,
        }
    }

    /// The mutation type of every input.
    pub(crate) fn mutation_types(&self) -> Result<Vec<MutationType>, MetaError> {
        self.input_info
            .iter()
            .enumerate()
            .map(|(i, x)| x.mutation_type(i))
            .collect()
    }

    fn inputs_where(&self, want: MutationType) -> Vec<I> {
        self.input_info
            .iter()
            .enumerate()
            .filter(|(i, x)| x.mutation_type(*i).ok() == Some(want))
            .map(|(i, _)| I::at(i))
            .collect()
    }

    /// Inputs mutated out of the graph, ascending.
    pub fn mutated_inp_runtime_indices(&self) -> Vec<I> {
        self.inputs_where(MutationType::MutatedOutGraph)
    }

    /// Inputs mutated in the graph, ascending.
    pub(crate) fn mutated_graph_handled_indices(&self) -> Vec<I> {
        self.inputs_where(MutationType::MutatedInGraph)
    }

    /// Those of the previous list whose mutations autograd sees.
    pub(crate) fn mutated_graph_handled_indices_seen_by_autograd(&self) -> Vec<I> {
        self.mutated_graph_handled_indices()
            .into_iter()
            .filter(|i| !self.input_info[i.pos()].mutations_hidden_from_autograd)
            .collect()
    }

    /// Outputs that alias something.
    pub(crate) fn aliased_out_indices(&self) -> Vec<UserOutputIdx> {
        self.outputs_where(|t| !t.is_non_aliased_like())
    }

    /// Outputs of type `unsafe_view_alias`.
    pub(crate) fn unsafe_view_out_indices(&self) -> Vec<UserOutputIdx> {
        self.outputs_where(|t| t == OutputType::UnsafeViewAlias)
    }

    fn outputs_where(&self, f: impl Fn(OutputType) -> bool) -> Vec<UserOutputIdx> {
        self.output_info
            .iter()
            .enumerate()
            .filter(|(_, o)| f(o.output_type))
            .map(|(i, _)| UserOutputIdx(i))
            .collect()
    }

    /// Count of outputs of the given class.
    fn count(&self, f: impl Fn(OutputType) -> bool) -> usize {
        self.output_info.iter().filter(|o| f(o.output_type)).count()
    }

    /// Derived counts of §1.7.
    pub fn counts(&self) -> DerivedCounts {
        let num_mutated = self.mutated_inp_runtime_indices().len();
        let num_outputs = self.output_info.len();
        let to_inputs = self.count(OutputType::is_input_alias);
        let to_intermediates = self.count(OutputType::is_intermediate_alias);
        let num_forward_returns = num_mutated + num_outputs + self.num_intermediate_bases;
        DerivedCounts {
            num_mutated_inp_runtime_indices: num_mutated,
            num_mutated_graph_handled_indices: self.mutated_graph_handled_indices().len(),
            num_mutated_graph_handled_indices_seen_by_autograd: self
                .mutated_graph_handled_indices_seen_by_autograd()
                .len(),
            num_outputs,
            num_outputs_non_aliased: self.count(OutputType::is_non_aliased_like),
            num_outputs_aliased_to_inputs: to_inputs,
            num_outputs_aliased_to_intermediates: to_intermediates,
            num_outputs_aliased: to_inputs + to_intermediates,
            num_unsafe_view_outputs: self.unsafe_view_out_indices().len(),
            dynamic_outputs: self
                .output_info
                .iter()
                .any(|o| o.dynamic_dims.as_ref().is_some_and(|d| !d.is_empty())),
            num_forward_returns,
            num_forward: num_forward_returns,
            num_traced_tangents: self.traced_tangents().len(),
        }
    }

    /// The traced tangents, from their definition: inputs mutated out of the
    /// graph with data mutations that require grad, then non-aliased tensor
    /// outputs that require grad, then every intermediate base.
    pub fn traced_tangents(&self) -> Vec<TangentDesc<I>> {
        let mut out: Vec<TangentDesc<I>> = self
            .mutated_inp_runtime_indices()
            .into_iter()
            .filter(|i| {
                let x = &self.input_info[i.pos()];
                x.mutates_data && x.requires_grad
            })
            .map(TangentDesc::InputMutation)
            .collect();
        out.extend(
            self.output_info
                .iter()
                .enumerate()
                .filter(|(_, o)| {
                    o.output_type.is_non_aliased_like() && o.is_tensor() && o.requires_grad
                })
                .map(|(j, _)| TangentDesc::UserOutput(UserOutputIdx(j))),
        );
        out.extend(
            (0..self.num_intermediate_bases)
                .map(|k| TangentDesc::IntermediateBase(IntermediateBaseIdx(k))),
        );
        out
    }
}

/// The derived counts of §1.7 (all computed, none stored).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DerivedCounts {
    /// Inputs mutated out of the graph.
    pub num_mutated_inp_runtime_indices: usize,
    /// Inputs mutated in the graph.
    pub num_mutated_graph_handled_indices: usize,
    /// … whose mutations autograd sees.
    pub num_mutated_graph_handled_indices_seen_by_autograd: usize,
    /// User outputs.
    pub num_outputs: usize,
    /// Non-aliased-like outputs.
    pub num_outputs_non_aliased: usize,
    /// Outputs aliasing inputs.
    pub num_outputs_aliased_to_inputs: usize,
    /// Outputs aliasing intermediates.
    pub num_outputs_aliased_to_intermediates: usize,
    /// The two previous counts together.
    pub num_outputs_aliased: usize,
    /// `unsafe_view_alias` outputs.
    pub num_unsafe_view_outputs: usize,
    /// Some output has a dynamic dim.
    pub dynamic_outputs: bool,
    /// Mutated inputs + user outputs + intermediate bases.
    pub num_forward_returns: usize,
    /// `num_forward_returns` (+ 1 with functionalized RNG, not modelled).
    pub num_forward: usize,
    /// Length of the traced tangents.
    pub num_traced_tangents: usize,
}

#[cfg(test)]
mod name_tests {
    use super::OutputType;

    /// `name` is the serde name of every output type.
    #[test]
    fn names_match_the_json_form() {
        use OutputType::*;
        for t in [
            NonAlias,
            AliasOfInput,
            IsInput,
            AliasOfIntermediateSaveAsOutput,
            AliasOfIntermediate,
            AliasOfIntermediateBaseIsUserOutput,
            UnsafeViewAlias,
            CustomFunctionView,
        ] {
            assert_eq!(serde_json::to_value(t).unwrap(), t.name(), "{t:?}");
        }
    }
}
