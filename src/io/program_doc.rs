//! Analysis programs (FORMATS.md §5) at the edge: the JSON document, its
//! loading into an [`analysis::Program`](crate::analysis::Program), and the
//! result document built from the [`ProgramReport`].

use super::error::InputError;
use super::guard::GuardDoc;
use super::load::{load_env, load_layout};
use super::overlap_case::{pair_results, self_overlap_results, self_overlapping};
use super::types::{ExprField, OverlapResult, SymbolSpec};
use crate::analysis::{
    Analyzer, GraphNames, Input, InputKind, Output, Program, ProgramError, ProgramOptions,
    ProgramReport, Tensor,
};
use crate::aot::dedupe::Strategy;
use crate::aot::index::InputIndex;
use crate::aot::meta::{
    DerivedCounts, InputAliasInfo, MutationType, OutputType, TangentDesc, ViewAndMutationMeta,
};
use crate::aot::signature::GraphSignature;
use crate::aot::synthetic::BaseInfo;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Tensor metadata of an input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorDoc {
    /// Object identity.
    pub object: String,
    /// Storage identity.
    pub storage: String,
    /// Object identity of the `_base` (absent/null: not a view).
    #[serde(default)]
    pub base: Option<String>,
    /// Sizes.
    pub sizes: Vec<ExprField>,
    /// Strides in elements.
    pub strides: Vec<ExprField>,
    /// Storage offset in elements.
    #[serde(default)]
    pub storage_offset: ExprField,
    /// Bytes per element.
    #[serde(default = "crate::layout::default_itemsize")]
    pub itemsize: i64,
    /// dtype name.
    #[serde(default)]
    pub dtype: Option<String>,
}

/// One forward input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputDoc {
    /// Graph placeholder name.
    #[serde(default)]
    pub name: Option<String>,
    /// Run-time source.
    #[serde(default)]
    pub source: Option<String>,
    /// Kind.
    #[serde(default)]
    pub kind: InputKind,
    /// Qualified name of a parameter or buffer.
    #[serde(default)]
    pub fqn: Option<String>,
    /// Tensor metadata (`null` for non-tensors).
    #[serde(default)]
    pub tensor: Option<TensorDoc>,
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

impl InputDoc {
    /// What the trace saw, as the metadata model's type. The flags are the
    /// document's own fields (not a flattened struct) so that an error names
    /// the flag: `inputs[0].mutates_data`.
    pub fn info(&self) -> InputAliasInfo {
        InputAliasInfo {
            is_leaf: self.is_leaf,
            mutates_data: self.mutates_data,
            mutates_metadata: self.mutates_metadata,
            mutations_hidden_from_autograd: self.mutations_hidden_from_autograd,
            mutations_under_no_grad_or_inference_mode: self
                .mutations_under_no_grad_or_inference_mode,
            mutation_inductor_storage_resize: self.mutation_inductor_storage_resize,
            mutates_storage_metadata: self.mutates_storage_metadata,
            requires_grad: self.requires_grad,
            keep_input_mutations: self.keep_input_mutations,
        }
    }
}

/// An analysis program (§5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramDoc {
    /// Program id.
    #[serde(default)]
    pub id: String,
    /// Symbol table.
    #[serde(default)]
    pub symbols: BTreeMap<String, SymbolSpec>,
    /// Assumptions.
    #[serde(default)]
    pub assumptions: Vec<String>,
    /// Options.
    #[serde(default)]
    pub options: ProgramOptions,
    /// Flat forward inputs.
    pub inputs: Vec<InputDoc>,
    /// User outputs.
    #[serde(default)]
    pub outputs: Vec<Output>,
    /// Intermediate bases appended to the forward outputs.
    #[serde(default)]
    pub num_intermediate_bases: usize,
    /// Graph names (optional; enables the signature).
    #[serde(default)]
    pub graph: Option<GraphNames>,
}

/// Runs the passes on a program document and builds the §5 result.
///
/// Bad input (malformed metadata, a bad layout) is an `Err` naming the field;
/// what a compiler would raise (e.g. mutated duplicates under export) is
/// listed in the result's `errors`, and the passes after it are skipped.
/// Written with sorted keys (`serde_json::to_value`), it is the document
/// `symalias analyze` prints.
pub fn run_program(doc: &ProgramDoc, analyzer: &mut Analyzer) -> Result<ProgramResult, InputError> {
    let mut program = load_program(doc)?;
    let report = analyzer
        .analyze(&mut program)
        .map_err(|e| program_error(&e))?;
    Ok(program_result(doc, &program, &report))
}

/// Loads a program document: its symbols, assumptions and every tensor's
/// layout into one scope.
pub fn load_program(doc: &ProgramDoc) -> Result<Program, InputError> {
    let mut scope = load_env(&doc.symbols, &doc.assumptions)?;
    let mut inputs = Vec::with_capacity(doc.inputs.len());
    for (i, x) in doc.inputs.iter().enumerate() {
        let tensor = match &x.tensor {
            None => None,
            Some(t) => {
                if t.itemsize < 1 {
                    return Err(InputError::field(
                        format!("inputs[{i}].tensor.itemsize"),
                        format!("itemsize must be at least 1, found {}", t.itemsize),
                    ));
                }
                let layout = load_layout(
                    &mut scope,
                    &format!("inputs[{i}].tensor"),
                    (&t.sizes, &t.strides, &t.storage_offset, t.itemsize),
                )?;
                Some(Tensor {
                    object: t.object.clone(),
                    storage: t.storage.clone(),
                    base: t.base.clone(),
                    layout,
                    dtype: t.dtype.clone(),
                })
            }
        };
        inputs.push(Input {
            name: x.name.clone(),
            source: x.source.clone(),
            kind: x.kind,
            fqn: x.fqn.clone(),
            tensor,
            info: x.info(),
        });
    }
    Ok(Program {
        id: doc.id.clone(),
        scope,
        options: doc.options.clone(),
        inputs,
        outputs: doc.outputs.clone(),
        num_intermediate_bases: doc.num_intermediate_bases,
        graph: doc.graph.clone(),
    })
}

/// A program error, located at its field.
fn program_error(e: &ProgramError) -> InputError {
    use ProgramError as E;
    let input = |i: &usize, f: &str| format!("inputs[{i}]{f}");
    let field = match e {
        E::OtherWithTensor(i) | E::MissingTensor(i) => input(i, ".tensor"),
        E::MissingFqn(i) => input(i, ".fqn"),
        E::EmptyObject(i) => input(i, ".tensor.object"),
        E::EmptyStorage(i) => input(i, ".tensor.storage"),
        E::Rank { input: i, .. } => input(i, ".tensor.strides"),
        E::ObjectInTwoStorages { input: i, .. } => input(i, ".tensor.storage"),
        E::ObjectWithTwoLayouts { input: i, .. } => input(i, ".tensor"),
        E::DanglingBase { input: i, .. } => input(i, ".tensor.base"),
        E::OutputBase { output, .. } => format!("outputs[{output}].base_idx"),
        E::TooManyIntermediateBases { .. } => "num_intermediate_bases".to_string(),
        E::Meta { input: i, .. } => input(i, ""),
        E::Layout { input: i, error } => {
            let name = error.field().name();
            if name.is_empty() {
                input(i, ".tensor")
            } else {
                input(i, &format!(".tensor.{name}"))
            }
        }
    };
    InputError::field(field, e.to_string())
}

/// The §5 result document.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProgramResult {
    /// Program id.
    pub id: String,
    /// Duplicate-input removal.
    pub dedupe: DedupeDoc,
    /// Per asked storage group: its inputs and the §3 overlap result.
    pub overlap: Vec<GroupDoc>,
    /// Synthetic bases (absent when the pass did not run or failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthetic_bases: Option<SyntheticDoc>,
    /// The graph signature (absent without `graph` or on error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<GraphSignature>,
    /// Metadata of the compiled graph's inputs (inner when synthetic bases
    /// were made, else deduped).
    pub meta: MetaDoc,
    /// Metadata over the program's inputs.
    pub outer_meta: MetaDoc,
    /// The guards.
    pub guards: Vec<GuardDoc>,
    /// Symbol → source, so that `check-guards` can bind shape guards.
    pub symbols: BTreeMap<String, String>,
    /// The guards in PyTorch's text form, symbols printed as sources.
    pub guard_text: Vec<String>,
    /// What a compiler would raise.
    pub errors: Vec<String>,
}

/// `dedupe` of a §5 result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DedupeDoc {
    /// `none`, `leafify` or `remove`.
    pub strategy: Strategy,
    /// Kept positions.
    pub keep_arg_mask: Vec<bool>,
    /// Outer position → deduped position.
    pub add_dupe_map: Vec<usize>,
}

/// One asked storage group of a §5 result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupDoc {
    /// The storage.
    pub storage: String,
    /// Member input positions.
    pub inputs: Vec<usize>,
    /// The §3 result (no timing).
    pub result: OverlapResult,
}

/// `synthetic_bases` of a §5 result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SyntheticDoc {
    /// Per deduped input: its inner position, or the base it is a view of
    /// and its layout (`null` when nothing was merged).
    pub synthetic_base_info: Option<Vec<BaseInfoDoc>>,
    /// Merged inputs with metadata mutations.
    pub aliased_arg_idx_with_metadata_mutations: Vec<usize>,
    /// The bases.
    pub bases: Vec<BaseDoc>,
    /// Inputs of the compiled graph.
    pub num_inner_inputs: usize,
}

/// One entry of `synthetic_base_info`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum BaseInfoDoc {
    /// An inner input.
    Inner(usize),
    /// A view of a synthetic base, with its layout as the program wrote it.
    View {
        /// The base's inner position.
        base: usize,
        /// Sizes.
        sizes: Vec<ExprField>,
        /// Strides.
        strides: Vec<ExprField>,
        /// Storage offset.
        storage_offset: ExprField,
    },
}

/// One synthetic base.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BaseDoc {
    /// The storage.
    pub storage: String,
    /// Deduped members.
    pub members: Vec<usize>,
    /// The common `_base` object.
    pub base: Option<String>,
}

/// A `ViewAndMutationMeta` in JSON, with its derived properties.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MetaDoc {
    /// Per input.
    pub input_info: Vec<InputInfoDoc>,
    /// Per user output.
    pub output_info: Vec<OutputInfoDoc>,
    /// Intermediate bases.
    pub num_intermediate_bases: usize,
    /// Inference option.
    pub keep_input_mutations: bool,
    /// The traced tangents.
    pub traced_tangents: Vec<TangentDoc>,
    /// Inputs mutated out of the graph.
    pub mutated_inp_runtime_indices: Vec<usize>,
    /// Inputs mutated in the graph.
    pub mutated_graph_handled_indices: Vec<usize>,
    /// Outputs that alias.
    pub aliased_out_indices: Vec<usize>,
    /// `unsafe_view_alias` outputs.
    pub unsafe_view_out_indices: Vec<usize>,
    /// The derived counts.
    #[serde(flatten)]
    pub counts: DerivedCounts,
}

/// One input of a [`MetaDoc`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputInfoDoc {
    /// What the trace saw.
    #[serde(flatten)]
    pub info: InputAliasInfo,
    /// Its mutation type (`null` where the derivation fails: see `errors`).
    pub mutation_type: Option<MutationType>,
}

/// One output of a [`MetaDoc`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutputInfoDoc {
    /// Output type.
    pub output_type: OutputType,
    /// Base index in the space the type implies.
    pub base_idx: Option<usize>,
    /// Requires grad.
    pub requires_grad: bool,
    /// Dynamic dims.
    pub dynamic_dims: Option<Vec<usize>>,
    /// Python type.
    pub raw_type: String,
}

/// One traced tangent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TangentDoc {
    /// Of a mutated input.
    InputMutation {
        /// The input.
        input: usize,
    },
    /// Of a user output.
    UserOutput {
        /// The output.
        output: usize,
    },
    /// Of an intermediate base.
    IntermediateBase {
        /// The base.
        base: usize,
    },
}

fn meta_doc<I: InputIndex>(m: &ViewAndMutationMeta<I>) -> MetaDoc {
    MetaDoc {
        input_info: m
            .input_info
            .iter()
            .enumerate()
            .map(|(i, x)| InputInfoDoc {
                info: *x,
                mutation_type: x.mutation_type(i).ok(),
            })
            .collect(),
        output_info: m
            .output_info
            .iter()
            .map(|o| OutputInfoDoc {
                output_type: o.output_type,
                base_idx: o.base.index(),
                requires_grad: o.requires_grad,
                dynamic_dims: o.dynamic_dims.clone(),
                raw_type: o.raw_type.clone(),
            })
            .collect(),
        num_intermediate_bases: m.num_intermediate_bases,
        keep_input_mutations: m.keep_input_mutations,
        traced_tangents: m
            .traced_tangents()
            .iter()
            .map(|t| match t {
                TangentDesc::InputMutation(i) => TangentDoc::InputMutation { input: i.pos() },
                TangentDesc::UserOutput(o) => TangentDoc::UserOutput { output: o.0 },
                TangentDesc::IntermediateBase(b) => TangentDoc::IntermediateBase { base: b.0 },
            })
            .collect(),
        mutated_inp_runtime_indices: m
            .mutated_inp_runtime_indices()
            .iter()
            .map(|i| i.pos())
            .collect(),
        mutated_graph_handled_indices: m
            .mutated_graph_handled_indices()
            .iter()
            .map(|i| i.pos())
            .collect(),
        aliased_out_indices: m.aliased_out_indices().iter().map(|i| i.0).collect(),
        unsafe_view_out_indices: m.unsafe_view_out_indices().iter().map(|i| i.0).collect(),
        counts: m.counts(),
    }
}

fn program_result(doc: &ProgramDoc, p: &Program, r: &ProgramReport) -> ProgramResult {
    let pool = &p.scope.pool;
    let kept: Vec<usize> = (0..p.inputs.len())
        .filter(|&i| r.dedupe.keep_arg_mask[i])
        .collect();
    let overlap = r
        .groups
        .iter()
        .map(|g| GroupDoc {
            storage: g.storage.clone(),
            inputs: g.inputs.clone(),
            result: OverlapResult {
                id: format!("{}/storage", p.id),
                overlapping: g.report.overlapping.clone(),
                non_overlapping: g.report.non_overlapping.clone(),
                invariant: g.report.invariance.as_option(),
                guards: g
                    .report
                    .guards
                    .iter()
                    .map(|x| GuardDoc::from_guard(pool, x))
                    .collect(),
                pairs: pair_results(&g.report),
                pairs_left_out: g.report.pairs_left_out,
                counterexample: g.report.counterexample.clone(),
                symbols: if g.report.has_shape_guards() {
                    doc.symbols
                        .iter()
                        .filter_map(|(n, s)| s.source.clone().map(|src| (n.clone(), src)))
                        .collect()
                } else {
                    BTreeMap::new()
                },
                self_overlapping: self_overlapping(&g.report),
                self_overlap: self_overlap_results(&g.report),
                time_limit_hit: g.report.time_limit_hit,
                micros: 0,
            },
        })
        .collect();
    let synthetic_bases = r.synthetic.as_ref().map(|s| SyntheticDoc {
        synthetic_base_info: s.bases.merged_any().then(|| {
            s.bases
                .info
                .iter()
                .enumerate()
                .map(|(i, b)| match b {
                    BaseInfo::Inner(j) => BaseInfoDoc::Inner(j.0),
                    BaseInfo::View(j) => {
                        let t = doc.inputs[kept[i]]
                            .tensor
                            .as_ref()
                            .expect("merged inputs are tensors");
                        BaseInfoDoc::View {
                            base: j.0,
                            sizes: t.sizes.clone(),
                            strides: t.strides.clone(),
                            storage_offset: t.storage_offset.clone(),
                        }
                    }
                })
                .collect()
        }),
        aliased_arg_idx_with_metadata_mutations: s
            .aliased_with_metadata_mutations
            .iter()
            .map(|i| i.0)
            .collect(),
        bases: s
            .bases
            .bases
            .iter()
            .map(|b| BaseDoc {
                storage: b.storage.clone(),
                members: b.members.iter().map(|m| m.0).collect(),
                base: b.base_object.clone(),
            })
            .collect(),
        num_inner_inputs: s.bases.num_inner(),
    });
    let sources = p.scope.sources();
    ProgramResult {
        id: p.id.clone(),
        dedupe: DedupeDoc {
            strategy: r.dedupe.strategy,
            keep_arg_mask: r.dedupe.keep_arg_mask.clone(),
            add_dupe_map: r.dedupe.add_dupe_map.iter().map(|i| i.0).collect(),
        },
        overlap,
        synthetic_bases,
        signature: r.signature.clone(),
        meta: match &r.synthetic {
            Some(s) => meta_doc(&s.meta),
            None => meta_doc(&r.deduped_meta),
        },
        outer_meta: meta_doc(&r.outer_meta),
        guards: r
            .guards
            .iter()
            .map(|g| GuardDoc::from_guard(pool, g))
            .collect(),
        guard_text: r
            .guards
            .iter()
            .map(|g| g.kind.render(pool, &sources))
            .collect(),
        symbols: sources,
        errors: r.errors.iter().map(|e| e.to_string()).collect(),
    }
}
