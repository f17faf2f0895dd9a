//! The metadata passes of a program (FORMATS.md §5), one function per pass:
//! [`validate`] → outer metadata → export bans → dedupe → identity guards →
//! synthetic bases (asking [`Analyzer::overlap`]'s pipeline per storage
//! group) → group guards → inner metadata → signature.

use super::error::{CompileError, ProgramError};
use super::group::{simplified_env, Group, Member};
use super::report::{ProgramReport, StorageGroupReport, SyntheticReport};
use super::{Analyzer, Scope};
use crate::aot::dedupe::{self, Dedupe, Strategy};
use crate::aot::index::{DedupedIdx, OuterIdx};
use crate::aot::meta::{
    InputAliasInfo, MetaError, OutputAliasInfo, OutputType, ViewAndMutationMeta,
};
use crate::aot::signature::{create_graph_signature, GraphSignature, SigGraph, SigInput, SigKind};
use crate::aot::synthetic::{self, GroupOverlap, Merge, SyntheticOptions, TensorInput};
use crate::env::Env;
use crate::expr::{BinOp, ExprId, ExprPool};
use crate::guards::plan::{group_guards, identity_guards, GroupFacts, InputFacts};
use crate::layout::Layout;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

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

fn tensor_dims() -> Option<Vec<usize>> {
    Some(Vec::new())
}

/// One user output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Output {
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

/// A tensor input's identities and layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Object identity.
    pub object: String,
    /// Storage identity.
    pub storage: String,
    /// Object identity of the `_base` (`None`: not a view).
    pub base: Option<String>,
    /// Sizes, strides, offset, itemsize.
    pub layout: Layout,
    /// dtype name.
    pub dtype: Option<String>,
}

/// One forward input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Graph placeholder name.
    pub name: Option<String>,
    /// Run-time source.
    pub source: Option<String>,
    /// Kind.
    pub kind: InputKind,
    /// Qualified name of a parameter or buffer.
    pub fqn: Option<String>,
    /// The tensor (`None` for non-tensors and tokens).
    pub tensor: Option<Tensor>,
    /// What the trace saw.
    pub info: InputAliasInfo,
}

/// A program: a graph's inputs and outputs as the trace saw them, with
/// layouts in `scope`'s pool.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Program id (labels guard reasons).
    pub id: String,
    /// The expressions and symbols of the layouts.
    pub scope: Scope,
    /// Options.
    pub options: ProgramOptions,
    /// Flat forward inputs.
    pub inputs: Vec<Input>,
    /// User outputs.
    pub outputs: Vec<Output>,
    /// Intermediate bases appended to the forward outputs.
    pub num_intermediate_bases: usize,
    /// Graph names (enable the signature).
    pub graph: Option<GraphNames>,
}

impl Program {
    /// The run-time source of input `i` (its name, else `inputs[i]`).
    pub(crate) fn source_of(&self, i: usize) -> String {
        self.inputs[i]
            .source
            .clone()
            .or_else(|| self.inputs[i].name.clone())
            .unwrap_or_else(|| format!("inputs[{i}]"))
    }
}

/// Checks what the passes rely on: kinds and tensors agree, identities are
/// not empty, ranks agree, an object lives in one storage, a view's base is
/// in its storage.
pub fn validate(p: &Program) -> Result<(), ProgramError> {
    let mut storage_of: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, x) in p.inputs.iter().enumerate() {
        match (&x.kind, &x.tensor) {
            (InputKind::Other, Some(_)) => return Err(ProgramError::OtherWithTensor(i)),
            (k, None) if *k != InputKind::Other && *k != InputKind::Token => {
                return Err(ProgramError::MissingTensor(i))
            }
            _ => {}
        }
        if matches!(x.kind, InputKind::Parameter | InputKind::Buffer) && x.fqn.is_none() {
            return Err(ProgramError::MissingFqn(i));
        }
        let Some(t) = &x.tensor else { continue };
        if t.object.is_empty() {
            return Err(ProgramError::EmptyObject(i));
        }
        if t.storage.is_empty() {
            return Err(ProgramError::EmptyStorage(i));
        }
        if t.layout.sizes.len() != t.layout.strides.len() {
            return Err(ProgramError::Rank {
                input: i,
                sizes: t.layout.sizes.len(),
                strides: t.layout.strides.len(),
            });
        }
        if let Some(prev) = storage_of.insert(&t.object, &t.storage) {
            if prev != t.storage {
                return Err(ProgramError::ObjectInTwoStorages {
                    input: i,
                    object: t.object.clone(),
                    before: prev.to_string(),
                    here: t.storage.clone(),
                });
            }
        }
    }
    // Every tensor has a valid view at the hints (not only those of asked
    // storage groups), and one object has one layout.
    let mut layout_of: hashbrown::HashMap<&str, (usize, &Layout)> = hashbrown::HashMap::new();
    for (i, x) in p.inputs.iter().enumerate() {
        let Some(t) = &x.tensor else { continue };
        t.layout
            .at_hints(&p.scope.pool, &p.scope.env)
            .map_err(|error| ProgramError::Layout {
                input: i,
                error: Box::new(error),
            })?;
        if let Some(&(first, l)) = layout_of.get(t.object.as_str()) {
            if *l != t.layout {
                return Err(ProgramError::ObjectWithTwoLayouts {
                    input: i,
                    object: t.object.clone(),
                    first,
                });
            }
        } else {
            layout_of.insert(&t.object, (i, &t.layout));
        }
    }
    for (i, x) in p.inputs.iter().enumerate() {
        let Some(t) = &x.tensor else { continue };
        let Some(b) = &t.base else { continue };
        if let Some(bs) = storage_of.get(b.as_str()) {
            if *bs != t.storage {
                return Err(ProgramError::DanglingBase {
                    input: i,
                    storage: t.storage.clone(),
                    base: b.clone(),
                    base_storage: bs.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// The metadata over the program's inputs. Malformed metadata (an invariant
/// of §1.4) is bad input; a resize or `set_` that cannot stay in the graph
/// is a compiler error (listed by [`Analyzer::analyze`]).
pub(crate) fn outer_meta(p: &Program) -> Result<ViewAndMutationMeta<OuterIdx>, ProgramError> {
    let sizes = (p.inputs.len(), p.num_intermediate_bases, p.outputs.len());
    let outputs = p
        .outputs
        .iter()
        .enumerate()
        .map(|(output, o)| {
            OutputAliasInfo::new(
                o.output_type,
                o.base_idx,
                sizes,
                o.requires_grad,
                o.dynamic_dims.clone(),
            )
            .map_err(|error| ProgramError::OutputBase { output, error })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let meta = ViewAndMutationMeta::new(
        p.inputs.iter().map(|x| x.info).collect(),
        outputs,
        p.num_intermediate_bases,
        p.options.keep_input_mutations,
    );
    match meta.mutation_types() {
        Err(error @ MetaError::StorageMetadataWithoutMetadata(input)) => {
            Err(ProgramError::Meta { input, error })
        }
        _ => Ok(meta),
    }
}

/// What aot_export rejects before any pass runs (§5.1).
fn export_bans(p: &Program) -> Vec<CompileError> {
    let mut errors = Vec::new();
    if !p.options.is_export {
        return errors;
    }
    let at = |f: &dyn Fn(&Input) -> bool| -> Vec<usize> {
        (0..p.inputs.len()).filter(|&i| f(&p.inputs[i])).collect()
    };
    let meta_mut = at(&|x| x.info.mutates_metadata);
    if !meta_mut.is_empty() {
        errors.push(CompileError::ExportMetadataMutation(meta_mut));
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
        errors.push(CompileError::ExportGradMutation(grad_mut));
    }
    // (aot_export_module's ban on mutated user inputs in inference depends
    // on the export entry point, which a program does not state: not modelled.)
    errors
}

/// Duplicate-input removal by object identity.
fn dedupe_pass(p: &Program) -> Dedupe {
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
    dedupe::detect(&objects, &mutated)
}

/// Object-identity and storage guards.
fn identity_pass(p: &Program, d: &Dedupe) -> Vec<crate::guards::Guard> {
    let facts: Vec<InputFacts> = p
        .inputs
        .iter()
        .enumerate()
        .map(|(i, x)| InputFacts {
            source: p.source_of(i),
            object: x.tensor.as_ref().map(|t| t.object.clone()),
            storage: x.tensor.as_ref().map(|t| t.storage.clone()),
            mutates_data: x.info.mutates_data,
            mutates_metadata: x.info.mutates_metadata,
            kept: d.keep_arg_mask[i],
        })
        .collect();
    let removed: Vec<(usize, usize)> = d.removed.iter().map(|&(k, r)| (k.0, r.0)).collect();
    identity_guards(&facts, &removed)
}

/// The ranges and assumptions of the symbols in the members' layouts (and
/// of the symbols those assumptions relate them to, to a fixpoint): the
/// domain an overlap proof holds in, as a list of conditions.
pub(crate) fn domain_of(pool: &mut ExprPool, env: &Env, layouts: &[&Layout]) -> Vec<ExprId> {
    let mut names: std::collections::BTreeSet<crate::expr::SymbolId> = Default::default();
    for l in layouts {
        for (_, e) in l.fields() {
            names.extend(pool.symbols_of(e));
        }
    }
    let assumptions = env.assumptions();
    let mut used = vec![false; assumptions.len()];
    loop {
        let before = names.len();
        for (k, &a) in assumptions.iter().enumerate() {
            if used[k] {
                continue;
            }
            let mine = pool.symbols_of(a);
            if mine.iter().any(|s| names.contains(s)) {
                used[k] = true;
                names.extend(mine);
            }
        }
        if names.len() == before {
            break;
        }
    }
    // Symbols by name, as the conditions are listed.
    let mut by_name: Vec<crate::expr::SymbolId> = names.into_iter().collect();
    by_name.sort_by(|a, b| pool.symbol_name(*a).cmp(pool.symbol_name(*b)));
    let mut parts: Vec<ExprId> = Vec::new();
    for s in by_name {
        let Some(info) = env.info(s) else { continue };
        let x = pool.sym(s);
        if let Some(lo) = info.declared.lo.and_then(|v| i64::try_from(v).ok()) {
            let lo = pool.int(lo);
            parts.push(pool.binary(BinOp::Le, lo, x));
        }
        if let Some(hi) = info.declared.hi.and_then(|v| i64::try_from(v).ok()) {
            let hi = pool.int(hi);
            parts.push(pool.binary(BinOp::Le, x, hi));
        }
    }
    for (k, &a) in assumptions.iter().enumerate() {
        if used[k] {
            parts.push(a);
        }
    }
    parts
}

fn signature_of(
    p: &Program,
    g: &GraphNames,
    num_mutated: usize,
) -> Result<GraphSignature, CompileError> {
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
        return Err(CompileError::GraphParameters);
    }
    if !g.buffers.is_empty() && g.buffers != fqns(InputKind::Buffer) {
        return Err(CompileError::GraphBuffers);
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
    .map_err(CompileError::Signature)
}

/// The kept inputs as the synthetic-base pass sees them.
fn tensor_inputs(p: &Program, kept: &[usize]) -> Vec<Option<TensorInput>> {
    kept.iter()
        .map(|&i| {
            p.inputs[i].tensor.as_ref().map(|t| TensorInput {
                object: t.object.clone(),
                storage: t.storage.clone(),
                base: t.base.clone(),
                dtype: t.dtype.clone(),
                dynamic_dims: t.layout.dynamic_dims(&p.scope.pool),
            })
        })
        .collect()
}

fn synthetic_options(o: &ProgramOptions) -> SyntheticOptions {
    SyntheticOptions {
        is_train: o.is_train,
        is_export: o.is_export,
        merge: match o.merge {
            MergeOption::Group => Merge::Group,
            MergeOption::Components => Merge::Components,
        },
    }
}

/// The graph signature, when the program has a graph and neither
/// duplicates were removed nor inputs merged (PyTorch's precondition).
fn signature_pass(
    p: &Program,
    d: &Dedupe,
    synthetic: Option<&SyntheticReport>,
    meta: &ViewAndMutationMeta<OuterIdx>,
    errors: &mut Vec<CompileError>,
) -> Option<GraphSignature> {
    let g = p.graph.as_ref()?;
    let merged = synthetic.is_some_and(|s| s.bases.merged_any());
    if d.strategy == Strategy::Remove || merged {
        errors.push(CompileError::NoSignature);
        return None;
    }
    match signature_of(p, g, meta.mutated_inp_runtime_indices().len()) {
        Ok(sig) => Some(sig),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// Answers the synthetic-base pass's overlap questions for one program:
/// each asked storage group analysed (its report kept), under the
/// program's shared deadline; the environment of the proofs simplified
/// once, when the first group is asked.
struct GroupAsker<'a> {
    analyzer: &'a mut Analyzer,
    p: &'a mut Program,
    kept: &'a [usize],
    deadline: Instant,
    env: Option<Env>,
    groups: Vec<StorageGroupReport>,
    /// The first bad layout met (the program is bad input).
    bad: Option<ProgramError>,
}

impl GroupAsker<'_> {
    fn ask(&mut self, members: &[DedupedIdx]) -> GroupOverlap {
        let p = &mut *self.p;
        let outer: Vec<usize> = members.iter().map(|m| self.kept[m.0]).collect();
        let group = Group {
            id: format!("{}/storage", p.id),
            members: outer
                .iter()
                .map(|&i| Member {
                    source: p.source_of(i),
                    layout: p.inputs[i]
                        .tensor
                        .as_ref()
                        .expect("tensor member")
                        .layout
                        .clone(),
                })
                .collect(),
        };
        let options = &self.analyzer.options;
        let env = self.env.get_or_insert_with(|| {
            simplified_env(&mut p.scope.pool, &p.scope.env, options.simplify.as_ref())
        });
        let start = Instant::now();
        let case_deadline = options.proof.deadline_from(start).min(self.deadline);
        match self
            .analyzer
            .overlap_in(&mut p.scope.pool, env, &group, start, case_deadline)
        {
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
                self.groups.push(StorageGroupReport {
                    storage,
                    inputs: outer,
                    report: r,
                });
                answer
            }
            Err(e) => {
                self.bad.get_or_insert(ProgramError::Layout {
                    input: outer[e.member],
                    error: e.error,
                });
                // Treat as overlapping: never merge less than needed.
                GroupOverlap {
                    overlapping: (0..members.len()).collect(),
                    pairs: vec![],
                }
            }
        }
    }
}

impl Analyzer {
    /// Runs the passes on a program: dedupe, synthetic bases with the exact
    /// overlap answer per asked storage group, the graph signature, and the
    /// guard list. Simplified forms and guard conditions are added to the
    /// program's pool.
    ///
    /// Bad input (malformed metadata, a layout with no valid view at the
    /// hints) is an `Err`; what a compiler would raise (e.g. mutated
    /// duplicates under export) is listed in the report's `errors`, and the
    /// passes after it are skipped.
    pub fn analyze(&mut self, p: &mut Program) -> Result<ProgramReport, ProgramError> {
        // One time bound for the whole program, shared by its storage groups;
        // one z3 context handed from session to session (`Reuse`).
        let deadline = Instant::now() + self.options.proof.time_limit;
        let _contexts = symalias_solver::Reuse::scope();
        if p.num_intermediate_bases > self.options.max_intermediate_bases {
            return Err(ProgramError::TooManyIntermediateBases {
                count: p.num_intermediate_bases,
                max: self.options.max_intermediate_bases,
            });
        }
        validate(p)?;
        let meta = outer_meta(p)?;
        let n = p.inputs.len();
        let mut errors: Vec<CompileError> = Vec::new();
        if let Err(e) = meta.mutation_types() {
            errors.push(CompileError::Meta(e));
        }
        errors.extend(export_bans(p));
        let d = dedupe_pass(p);
        if d.strategy == Strategy::Remove && p.options.is_export {
            errors.push(CompileError::ExportMutatedDuplicates);
        }
        let mut guards = identity_pass(p, &d);
        let deduped_meta = dedupe::remove_dupe_metadata(&meta, &d);
        let kept: Vec<usize> = (0..n).filter(|&i| d.keep_arg_mask[i]).collect();

        // Synthetic bases, with the exact overlap answer per storage group.
        let tensors = tensor_inputs(p, &kept);
        let (sb, groups) = if errors.is_empty() {
            let mut asker = GroupAsker {
                analyzer: self,
                p,
                kept: &kept,
                deadline,
                env: None,
                groups: Vec::new(),
                bad: None,
            };
            let sb = synthetic::merge_view_inputs(
                &tensors,
                &deduped_meta.input_info,
                synthetic_options(&asker.p.options),
                &mut |members| asker.ask(members),
            );
            if let Some(e) = asker.bad {
                return Err(e);
            }
            match sb {
                Ok(sb) => (Some(sb), asker.groups),
                Err(e) => {
                    errors.push(CompileError::Synthetic(e));
                    (None, asker.groups)
                }
            }
        } else {
            (None, Vec::new())
        };
        guards.extend(self.group_guard_pass(p, &kept, sb.as_ref(), &groups));
        let synthetic = sb.and_then(|sb| {
            match synthetic::create_synthetic_base_metadata(&deduped_meta, &sb, &tensors) {
                Ok((meta, aliased)) => Some(SyntheticReport {
                    bases: sb,
                    meta,
                    aliased_with_metadata_mutations: aliased,
                }),
                Err(e) => {
                    errors.push(CompileError::Synthetic(e));
                    None
                }
            }
        });
        let signature = signature_pass(p, &d, synthetic.as_ref(), &meta, &mut errors);
        Ok(ProgramReport {
            dedupe: d,
            groups,
            synthetic,
            deduped_meta,
            outer_meta: meta,
            signature,
            guards,
            errors,
        })
    }

    /// The guards of every asked storage group: layouts baked into synthetic
    /// bases and the overlap partition with its fast path.
    fn group_guard_pass(
        &self,
        p: &mut Program,
        kept: &[usize],
        sb: Option<&synthetic::SyntheticBases>,
        groups: &[StorageGroupReport],
    ) -> Vec<crate::guards::Guard> {
        let merged_outer: Vec<usize> = sb
            .map(|sb| {
                sb.bases
                    .iter()
                    .flat_map(|b| b.members.iter().map(|m| kept[m.0]))
                    .collect()
            })
            .unwrap_or_default();
        let mut guards = Vec::new();
        for g in groups {
            let layouts: Vec<&Layout> = g
                .inputs
                .iter()
                .map(|&i| {
                    &p.inputs[i]
                        .tensor
                        .as_ref()
                        .expect("group members are tensors")
                        .layout
                })
                .collect();
            let symbolic = layouts.iter().any(|l| l.is_symbolic(&p.scope.pool));
            let domain = if symbolic {
                domain_of(&mut p.scope.pool, &p.scope.env, &layouts)
            } else {
                Vec::new()
            };
            let members = g
                .inputs
                .iter()
                .zip(&layouts)
                .map(|(&i, l)| crate::guards::plan::GuardMember {
                    source: p.source_of(i),
                    layout: (*l).clone(),
                    merged: merged_outer.contains(&i),
                })
                .collect();
            let components = (p.options.merge == MergeOption::Components).then(|| {
                let pairs: Vec<(usize, usize)> = g
                    .report
                    .pairs
                    .iter()
                    .filter(|x| x.overlap)
                    .map(|x| (x.a, x.b))
                    .collect();
                crate::overlap::components(g.inputs.len(), &pairs)
            });
            guards.extend(group_guards(
                &mut p.scope.pool,
                &GroupFacts {
                    storage: &g.storage,
                    members,
                    symbolic,
                    overlapping: g.report.overlapping.clone(),
                    proof_guards: &g.report.guards,
                    domain,
                    components,
                },
            ));
        }
        guards
    }
}
