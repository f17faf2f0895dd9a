//! Analysis programs (FORMATS.md §5): reading a program, running the metadata
//! passes (dedupe, synthetic bases with exact overlap per storage group, the
//! graph signature) and building the result document.

use super::error::InputError;
use super::overlap_case::{run_overlap_case, OverlapOptions};
use super::types::{ExprField, Guard, OverlapCase, OverlapResult, SymbolSpec, TensorSpec};
use crate::aot::dedupe::{self, Dedupe, Strategy};
use crate::aot::index::{DedupedIdx, InnerIdx, InputIndex, OuterIdx};
use crate::aot::meta::{
    InputAliasInfo, MetaError, OutputAliasInfo, OutputType, TangentDesc, ViewAndMutationMeta,
};
use crate::aot::signature::{create_graph_signature, GraphSignature, SigGraph, SigInput, SigKind};
use crate::aot::synthetic::{self, BaseInfo, GroupOverlap, Merge, SyntheticOptions, TensorInput};
use crate::expr::{parse, ExprPool};
use crate::guards::plan::{group_guards, identity_guards, GroupFacts, InputFacts, Member};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use symalias_solver::Solver;

/// Options of a program (§5 `options`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramOptions {
    /// Inference: keep data-only mutations in the graph.
    #[serde(default)]
    pub keep_input_mutations: bool,
    /// Training (default) or inference.
    #[serde(default = "yes")]
    pub is_train: bool,
    /// Export: dupes and synthetic bases with mutations are errors.
    #[serde(default)]
    pub is_export: bool,
    /// `group` (PyTorch: merge the whole storage group) or `components`
    /// (merge only connected components of the overlap graph).
    #[serde(default)]
    pub merge: MergeOption,
}

fn yes() -> bool {
    true
}

impl Default for ProgramOptions {
    fn default() -> Self {
        ProgramOptions {
            keep_input_mutations: false,
            is_train: true,
            is_export: false,
            merge: MergeOption::Group,
        }
    }
}

/// How much of an aliased storage group is merged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MergeOption {
    /// The whole group (PyTorch).
    #[default]
    Group,
    /// Connected components of the overlap graph.
    Components,
}

/// Kind of a forward input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// A user input.
    #[default]
    UserInput,
    /// A parameter (with `fqn`).
    Parameter,
    /// A buffer (with `fqn`).
    Buffer,
    /// A side-effect token.
    Token,
    /// A non-tensor input.
    Other,
}

/// Tensor metadata of an input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramTensor {
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
    #[serde(default = "one")]
    pub itemsize: i64,
    /// dtype name.
    #[serde(default)]
    pub dtype: Option<String>,
}

fn one() -> i64 {
    1
}

/// One forward input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramInput {
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
    pub tensor: Option<ProgramTensor>,
    /// What the trace saw.
    #[serde(flatten)]
    pub info: InputAliasInfo,
}

fn tensor_dims() -> Option<Vec<usize>> {
    Some(Vec::new())
}

/// One user output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramOutput {
    /// Graph output name.
    #[serde(default)]
    pub name: Option<String>,
    /// Output type.
    pub output_type: OutputType,
    /// Base index, in the space the type implies.
    #[serde(default)]
    pub base_idx: Option<usize>,
    /// The output requires grad.
    #[serde(default)]
    pub requires_grad: bool,
    /// Dynamic dims (`null`: not a tensor; absent: a tensor with none).
    #[serde(default = "tensor_dims")]
    pub dynamic_dims: Option<Vec<usize>>,
}

/// Graph names for the signature (§5 `graph`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphNames {
    /// Placeholder names.
    #[serde(default)]
    pub input_names: Vec<String>,
    /// Output names (`null` for non-node outputs).
    #[serde(default)]
    pub output_names: Vec<Option<String>>,
    /// Parameter FQNs in order.
    #[serde(default)]
    pub parameters: Vec<String>,
    /// Buffer FQNs in order.
    #[serde(default)]
    pub buffers: Vec<String>,
    /// Joint (forward + backward) graph.
    #[serde(default)]
    pub trace_joint: bool,
    /// Forward user outputs in a joint graph.
    #[serde(default)]
    pub num_user_fw_outs: Option<usize>,
    /// Index of the loss among the outputs.
    #[serde(default)]
    pub loss_index: Option<usize>,
}

/// An analysis program (§5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
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
    pub inputs: Vec<ProgramInput>,
    /// User outputs.
    #[serde(default)]
    pub outputs: Vec<ProgramOutput>,
    /// Intermediate bases appended to the forward outputs.
    #[serde(default)]
    pub num_intermediate_bases: usize,
    /// Graph names (optional; enables the signature).
    #[serde(default)]
    pub graph: Option<GraphNames>,
}

fn source_of(p: &Program, i: usize) -> String {
    p.inputs[i]
        .source
        .clone()
        .or_else(|| p.inputs[i].name.clone())
        .unwrap_or_else(|| format!("inputs[{i}]"))
}

fn check_program(p: &Program) -> Result<(), InputError> {
    let mut storage_of: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, x) in p.inputs.iter().enumerate() {
        let field = |f: &str| format!("inputs[{i}].{f}");
        match (&x.kind, &x.tensor) {
            (InputKind::Other, Some(_)) => {
                return Err(InputError::field(
                    field("tensor"),
                    "an input of kind `other` has no tensor",
                ))
            }
            (k, None) if *k != InputKind::Other && *k != InputKind::Token => {
                return Err(InputError::field(
                    field("tensor"),
                    "a tensor input needs `tensor` (use kind `other` for non-tensors)",
                ))
            }
            _ => {}
        }
        if matches!(x.kind, InputKind::Parameter | InputKind::Buffer) && x.fqn.is_none() {
            return Err(InputError::field(
                field("fqn"),
                "parameters and buffers need an `fqn`",
            ));
        }
        if let Some(t) = &x.tensor {
            if t.object.is_empty() {
                return Err(InputError::field(
                    field("tensor.object"),
                    "empty object identity",
                ));
            }
            if t.storage.is_empty() {
                return Err(InputError::field(
                    field("tensor.storage"),
                    "empty storage identity",
                ));
            }
            if t.sizes.len() != t.strides.len() {
                return Err(InputError::field(
                    field("tensor.strides"),
                    format!("{} strides for {} sizes", t.strides.len(), t.sizes.len()),
                ));
            }
            if let Some(prev) = storage_of.insert(&t.object, &t.storage) {
                if prev != t.storage {
                    return Err(InputError::field(
                        field("tensor.storage"),
                        format!(
                            "object `{}` is in storage `{prev}` at an earlier input, here in `{}`",
                            t.object, t.storage
                        ),
                    ));
                }
            }
        }
    }
    for (i, x) in p.inputs.iter().enumerate() {
        if let Some(t) = &x.tensor {
            if let Some(b) = &t.base {
                if let Some(bs) = storage_of.get(b.as_str()) {
                    if *bs != t.storage {
                        return Err(InputError::field(
                            format!("inputs[{i}].tensor.base"),
                            format!("dangling storage: the view is in storage `{}` but its base `{b}` is in `{bs}`", t.storage),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

fn outer_meta(p: &Program) -> Result<ViewAndMutationMeta<OuterIdx>, InputError> {
    let sizes = (p.inputs.len(), p.num_intermediate_bases, p.outputs.len());
    let outputs = p
        .outputs
        .iter()
        .enumerate()
        .map(|(j, o)| {
            OutputAliasInfo::new(
                o.output_type,
                o.base_idx,
                sizes,
                o.requires_grad,
                o.dynamic_dims.clone(),
            )
            .map_err(|e| InputError::field(format!("outputs[{j}].base_idx"), e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let meta = ViewAndMutationMeta::new(
        p.inputs.iter().map(|x| x.info).collect(),
        outputs,
        p.num_intermediate_bases,
        p.options.keep_input_mutations,
    );
    match meta.mutation_types() {
        // Malformed metadata (an invariant of §1.4) is bad input; a resize or
        // `set_` that cannot stay in the graph is a compiler error (reported
        // by `run_program` in `errors`).
        Err(e @ MetaError::StorageMetadataWithoutMetadata(i)) => {
            Err(InputError::field(format!("inputs[{i}]"), e.to_string()))
        }
        _ => Ok(meta),
    }
}

fn dynamic_dims(t: &ProgramTensor) -> Vec<usize> {
    t.sizes
        .iter()
        .enumerate()
        .filter(|(_, s)| match s {
            ExprField::Int(_) => false,
            ExprField::Text(x) => x.trim().parse::<i64>().is_err(),
        })
        .map(|(d, _)| d)
        .collect()
}

fn meta_json<I: InputIndex>(m: &ViewAndMutationMeta<I>) -> Value {
    let inputs: Vec<Value> = m
        .input_info
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let mut v = serde_json::to_value(x).expect("serialises");
            // `null` where the derivation fails (the error is in `errors`).
            v["mutation_type"] = x.mutation_type(i).ok().map_or(Value::Null, |t| {
                serde_json::to_value(t).expect("serialises")
            });
            v
        })
        .collect();
    let outputs: Vec<Value> = m
        .output_info
        .iter()
        .map(|o| {
            json!({"output_type": o.output_type, "base_idx": o.base.index(),
                   "requires_grad": o.requires_grad, "dynamic_dims": o.dynamic_dims, "raw_type": o.raw_type})
        })
        .collect();
    let tangents: Vec<Value> = m
        .traced_tangents()
        .iter()
        .map(|t| match t {
            TangentDesc::InputMutation(i) => json!({"kind": "input_mutation", "input": i.pos()}),
            TangentDesc::UserOutput(o) => json!({"kind": "user_output", "output": o.0}),
            TangentDesc::IntermediateBase(b) => json!({"kind": "intermediate_base", "base": b.0}),
        })
        .collect();
    let mut v = json!({
        "input_info": inputs,
        "output_info": outputs,
        "num_intermediate_bases": m.num_intermediate_bases,
        "keep_input_mutations": m.keep_input_mutations,
        "traced_tangents": tangents,
        "mutated_inp_runtime_indices": m.mutated_inp_runtime_indices().iter().map(|i| i.pos()).collect::<Vec<_>>(),
        "mutated_graph_handled_indices": m.mutated_graph_handled_indices().iter().map(|i| i.pos()).collect::<Vec<_>>(),
        "aliased_out_indices": m.aliased_out_indices().iter().map(|i| i.0).collect::<Vec<_>>(),
        "unsafe_view_out_indices": m.unsafe_view_out_indices().iter().map(|i| i.0).collect::<Vec<_>>(),
    });
    let counts = serde_json::to_value(m.counts()).expect("serialises");
    if let (Some(obj), Value::Object(c)) = (v.as_object_mut(), counts) {
        obj.extend(c);
    }
    v
}

/// Runs the passes on a program and builds the §5 result document.
///
/// Bad input (malformed metadata) is an `Err` naming the field; what a
/// compiler would raise (e.g. mutated duplicates under export) is listed in
/// the result's `errors`, and the passes after it are skipped.
pub fn run_program(p: &Program, solver: &mut Solver) -> Result<Value, InputError> {
    // One time bound for the whole program, shared by its storage groups.
    let deadline = std::time::Instant::now() + crate::overlap::ProofOptions::default().time_limit;
    check_program(p)?;
    let meta = outer_meta(p)?;
    let n = p.inputs.len();
    let mut errors: Vec<String> = Vec::new();
    let mut guards: Vec<Guard> = Vec::new();
    if let Err(e) = meta.mutation_types() {
        errors.push(e.to_string());
    }

    // Dedupe.
    let objects: Vec<Option<&str>> = p
        .inputs
        .iter()
        .map(|x| x.tensor.as_ref().map(|t| t.object.as_str()))
        .collect();
    let mutated: Vec<bool> = p
        .inputs
        .iter()
        .map(|x| x.info.mutates_data || x.info.mutates_metadata)
        .collect();
    if p.options.is_export {
        // aot_export rejects these before any pass runs (§5.1).
        let at = |f: &dyn Fn(&ProgramInput) -> bool| -> Vec<usize> {
            (0..n).filter(|&i| f(&p.inputs[i])).collect()
        };
        let meta_mut = at(&|x| x.info.mutates_metadata);
        if !meta_mut.is_empty() {
            errors.push(format!(
                "Found an input that received a metadata mutation, through e.g. a call to `.resize_()` or `.transpose_()`. This is currently banned in the aot_export workflow. (inputs {meta_mut:?})"
            ));
        }
        // Banned only when the joint graph is traced (PyTorch: `... and
        // aot_config.export_trace_joint`): an inference export may mutate a
        // parameter. The joint trace is `graph.trace_joint`, else training.
        let trace_joint = p
            .graph
            .as_ref()
            .map_or(p.options.is_train, |g| g.trace_joint);
        let grad_mut = at(&|x| x.info.mutates_data && x.info.requires_grad);
        if trace_joint && !grad_mut.is_empty() {
            errors.push(format!(
                "Found a graph input that requires gradients, and received a mutation. This is currently banned in the aot_export workflow. (inputs {grad_mut:?})"
            ));
        }
        // (aot_export_module's ban on mutated user inputs in inference depends
        // on the export entry point, which a program does not state: not modelled.)
    }
    let d: Dedupe = dedupe::detect(&objects, &mutated);
    if d.strategy == Strategy::Remove && p.options.is_export {
        errors.push("Encountered duplicated inputs that are mutated in the graph you are trying to export. This functionality is currently not supported. If needed, please file a github issue.".into());
    }
    let facts: Vec<InputFacts> = p
        .inputs
        .iter()
        .enumerate()
        .map(|(i, x)| InputFacts {
            source: source_of(p, i),
            object: x.tensor.as_ref().map(|t| t.object.clone()),
            storage: x.tensor.as_ref().map(|t| t.storage.clone()),
            mutates_data: x.info.mutates_data,
            mutates_metadata: x.info.mutates_metadata,
            kept: d.keep_arg_mask[i],
        })
        .collect();
    let removed: Vec<(usize, usize)> = d.removed.iter().map(|&(k, r)| (k.0, r.0)).collect();
    guards.extend(identity_guards(&facts, &removed));
    let deduped_meta = dedupe::remove_dupe_metadata(&meta, &d);
    let kept: Vec<usize> = (0..n).filter(|&i| d.keep_arg_mask[i]).collect();
    let dedupe_json = json!({
        "strategy": d.strategy,
        "keep_arg_mask": d.keep_arg_mask,
        "add_dupe_map": d.add_dupe_map.iter().map(|i| i.0).collect::<Vec<_>>(),
    });

    // Synthetic bases, with the exact overlap answer per storage group.
    let tensors: Vec<Option<TensorInput>> = kept
        .iter()
        .map(|&i| {
            p.inputs[i].tensor.as_ref().map(|t| TensorInput {
                object: t.object.clone(),
                storage: t.storage.clone(),
                base: t.base.clone(),
                dtype: t.dtype.clone(),
                dynamic_dims: dynamic_dims(t),
            })
        })
        .collect();
    let mut overlap_results: Vec<(String, Vec<usize>, OverlapResult)> = Vec::new();
    let mut overlap_error: Option<InputError> = None;
    let opts = SyntheticOptions {
        is_train: p.options.is_train,
        is_export: p.options.is_export,
        merge: match p.options.merge {
            MergeOption::Group => Merge::Group,
            MergeOption::Components => Merge::Components,
        },
    };
    let mut ask = |members: &[DedupedIdx]| -> GroupOverlap {
        let outer: Vec<usize> = members.iter().map(|m| kept[m.0]).collect();
        let case = OverlapCase {
            id: format!("{}/storage", p.id),
            symbols: p.symbols.clone(),
            assumptions: p.assumptions.clone(),
            tensors: outer
                .iter()
                .map(|&i| {
                    let t = p.inputs[i].tensor.as_ref().expect("tensor member");
                    TensorSpec {
                        source: Some(source_of(p, i)),
                        sizes: t.sizes.clone(),
                        strides: t.strides.clone(),
                        storage_offset: t.storage_offset.clone(),
                        itemsize: t.itemsize,
                    }
                })
                .collect(),
            expect: None,
        };
        let oopts = OverlapOptions {
            no_timing: true,
            proof: crate::overlap::ProofOptions {
                deadline: Some(deadline),
                ..crate::overlap::ProofOptions::default()
            },
            ..OverlapOptions::default()
        };
        match run_overlap_case(&case, &oopts, solver) {
            Ok(r) => {
                let answer = GroupOverlap {
                    overlapping: r.overlapping.clone(),
                    pairs: r
                        .pairs
                        .iter()
                        .filter(|x| x.overlap)
                        .map(|x| (x.a, x.b))
                        .collect(),
                };
                let storage = p.inputs[outer[0]]
                    .tensor
                    .as_ref()
                    .map(|t| t.storage.clone())
                    .unwrap_or_default();
                overlap_results.push((storage, outer, r));
                answer
            }
            Err(mut e) => {
                // Name the program's field, not the overlap case's.
                if let Some(f) = &e.field {
                    let mapped = outer.iter().enumerate().fold(f.clone(), |m, (k, &i)| {
                        m.replace(&format!("tensors[{k}]."), &format!("inputs[{i}].tensor."))
                    });
                    e.field = Some(mapped);
                }
                overlap_error.get_or_insert(e);
                // Treat as overlapping: never merge less than needed.
                GroupOverlap {
                    overlapping: (0..members.len()).collect(),
                    pairs: vec![],
                }
            }
        }
    };
    let sb = if errors.is_empty() {
        match synthetic::merge_view_inputs(&tensors, &deduped_meta.input_info, opts, &mut ask) {
            Ok(sb) => Some(sb),
            Err(e) => {
                errors.push(e);
                None
            }
        }
    } else {
        None
    };
    if let Some(e) = overlap_error {
        return Err(e);
    }
    let merged_outer: Vec<usize> = sb
        .as_ref()
        .map(|sb| {
            sb.bases
                .iter()
                .flat_map(|b| b.members.iter().map(|m| kept[m.0]))
                .collect()
        })
        .unwrap_or_default();
    for (storage, members, r) in &overlap_results {
        let t = |i: usize| {
            p.inputs[i]
                .tensor
                .as_ref()
                .expect("group members are tensors")
        };
        let texts = |xs: &[ExprField]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let symbolic = members.iter().any(|&i| {
            let t = t(i);
            t.sizes
                .iter()
                .chain(&t.strides)
                .chain(std::iter::once(&t.storage_offset))
                .any(|f| matches!(f, ExprField::Text(x) if x.trim().parse::<i64>().is_err()))
        });
        guards.extend(group_guards(&GroupFacts {
            storage,
            members: members
                .iter()
                .map(|&i| Member {
                    source: source_of(p, i),
                    sizes: texts(&t(i).sizes),
                    strides: texts(&t(i).strides),
                    storage_offset: t(i).storage_offset.to_string(),
                    merged: merged_outer.contains(&i),
                })
                .collect(),
            symbolic,
            overlapping: r.overlapping.clone(),
            proof_guards: &r.guards,
            domain: if symbolic {
                domain_of(p, members)
            } else {
                None
            },
            components: (p.options.merge == MergeOption::Components).then(|| {
                let pairs: Vec<(usize, usize)> = r
                    .pairs
                    .iter()
                    .filter(|x| x.overlap)
                    .map(|x| (x.a, x.b))
                    .collect();
                crate::overlap::components(members.len(), &pairs)
            }),
        }));
    }
    let mut result = json!({
        "id": p.id,
        "dedupe": dedupe_json,
        "overlap": overlap_results.iter().map(|(s, members, r)| json!({"storage": s, "inputs": members, "result": r})).collect::<Vec<_>>(),
    });
    match sb.as_ref().map(|sb| {
        synthetic::create_synthetic_base_metadata(&deduped_meta, sb, &tensors).map(|m| (sb, m))
    }) {
        Some(Ok((sb, (inner, aliased_meta)))) => {
            let info: Vec<Value> = sb
                .info
                .iter()
                .enumerate()
                .map(|(i, b)| match b {
                    BaseInfo::Inner(j) => json!(j.0),
                    BaseInfo::View(j) => {
                        let t = p.inputs[kept[i]].tensor.as_ref().expect("merged inputs are tensors");
                        json!({"base": j.0, "sizes": t.sizes, "strides": t.strides, "storage_offset": t.storage_offset})
                    }
                })
                .collect();
            result["synthetic_bases"] = json!({
                "synthetic_base_info": if sb.merged_any() { Value::from(info) } else { Value::Null },
                "aliased_arg_idx_with_metadata_mutations": aliased_meta.iter().map(|i| i.0).collect::<Vec<_>>(),
                "bases": sb.bases.iter().map(|b| json!({"storage": b.storage, "members": b.members.iter().map(|m| m.0).collect::<Vec<_>>(), "base": b.base_object})).collect::<Vec<_>>(),
                "num_inner_inputs": sb.num_inner(),
            });
            result["meta"] = meta_json::<InnerIdx>(&inner);
        }
        Some(Err(e)) => errors.push(e),
        None => {}
    }
    if let Some(g) = &p.graph {
        let merged = sb.as_ref().is_some_and(|sb| sb.merged_any());
        if d.strategy == Strategy::Remove || merged {
            errors.push("no graph signature: it needs a graph without removed duplicates or synthetic bases (export forbids both)".into());
        } else {
            match signature_of(p, g, meta.mutated_inp_runtime_indices().len()) {
                Ok(sig) => result["signature"] = serde_json::to_value(sig).expect("serialises"),
                Err(e) => errors.push(e),
            }
        }
    }
    if result.get("meta").is_none() {
        result["meta"] = meta_json::<DedupedIdx>(&deduped_meta);
    }
    result["outer_meta"] = meta_json::<OuterIdx>(&meta);
    result["guards"] = serde_json::to_value(&guards).expect("serialises");
    // Symbol → source, so that `check-guards` can bind shape guards.
    result["symbols"] = p
        .symbols
        .iter()
        .filter_map(|(n, s)| s.source.clone().map(|src| (n.clone(), Value::from(src))))
        .collect::<serde_json::Map<String, Value>>()
        .into();
    let sources: BTreeMap<String, String> = p
        .symbols
        .iter()
        .filter_map(|(n, s)| s.source.clone().map(|src| (n.clone(), src)))
        .collect();
    result["guard_text"] = guards
        .iter()
        .map(|g| g.kind.render(&sources))
        .collect::<Vec<_>>()
        .into();
    result["errors"] = errors.into();
    Ok(result)
}

fn signature_of(p: &Program, g: &GraphNames, num_mutated: usize) -> Result<GraphSignature, String> {
    let inputs: Vec<SigInput> = p
        .inputs
        .iter()
        .map(|x| SigInput {
            kind: match x.kind {
                InputKind::Parameter => SigKind::Parameter,
                InputKind::Buffer => SigKind::Buffer,
                InputKind::Token => SigKind::Token,
                InputKind::UserInput | InputKind::Other => SigKind::UserInput,
            },
            fqn: x.fqn.clone(),
            requires_grad: x.info.requires_grad,
            mutates_data: x.info.mutates_data,
        })
        .collect();
    let fqns = |k: InputKind| -> Vec<String> {
        p.inputs
            .iter()
            .filter(|x| x.kind == k)
            .filter_map(|x| x.fqn.clone())
            .collect()
    };
    if !g.parameters.is_empty() && g.parameters != fqns(InputKind::Parameter) {
        return Err("graph.parameters differ from the inputs of kind `parameter`".into());
    }
    if !g.buffers.is_empty() && g.buffers != fqns(InputKind::Buffer) {
        return Err("graph.buffers differ from the inputs of kind `buffer`".into());
    }
    create_graph_signature(
        &SigGraph {
            input_names: g.input_names.clone(),
            output_names: g.output_names.clone(),
            trace_joint: g.trace_joint,
            num_user_fw_outs: g.num_user_fw_outs,
            loss_index: g.loss_index,
        },
        &inputs,
        num_mutated,
    )
}

/// The ranges and assumptions of the symbols in the members' fields (and of
/// the symbols those assumptions relate them to): the domain an overlap proof
/// holds in, as one condition.
fn domain_of(p: &Program, members: &[usize]) -> Option<String> {
    let mut pool = ExprPool::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    let add = |pool: &mut ExprPool, text: &str, names: &mut BTreeSet<String>| {
        if let Ok(e) = parse(pool, text) {
            for s in pool.symbols_of(e) {
                names.insert(pool.symbol_name(s).to_string());
            }
        }
    };
    for &i in members {
        if let Some(t) = &p.inputs[i].tensor {
            for f in t.sizes.iter().chain(&t.strides).chain([&t.storage_offset]) {
                if let ExprField::Text(x) = f {
                    add(&mut pool, x, &mut names);
                }
            }
        }
    }
    // Assumptions that mention a symbol of the group, to a fixpoint.
    let mut used = vec![false; p.assumptions.len()];
    loop {
        let before = names.len();
        for (k, a) in p.assumptions.iter().enumerate() {
            if used[k] {
                continue;
            }
            let mut mine = BTreeSet::new();
            add(&mut pool, a, &mut mine);
            if mine.iter().any(|s| names.contains(s)) {
                used[k] = true;
                names.extend(mine);
            }
        }
        if names.len() == before {
            break;
        }
    }
    let mut parts: Vec<String> = Vec::new();
    for name in &names {
        if let Some(spec) = p.symbols.get(name) {
            if let Some(lo) = spec.min {
                parts.push(format!("{lo} <= {name}"));
            }
            if let Some(hi) = spec.max {
                parts.push(format!("{name} <= {hi}"));
            }
        }
    }
    for (k, a) in p.assumptions.iter().enumerate() {
        if used[k] {
            parts.push(a.clone());
        }
    }
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ => Some(
            parts
                .iter()
                .map(|x| format!("({x})"))
                .collect::<Vec<_>>()
                .join(" & "),
        ),
    }
}
