//! Synthetic bases (docs/PYTORCH.md §2.3, §2.4): inputs that share a storage,
//! really overlap, and include a data mutation are merged into one base input
//! of the compiled graph; the members are regenerated as views of it.
//!
//! The overlap question is answered by the caller (exactly, with the `overlap`
//! module): PyTorch's false aliasing (disjoint views merged) and its missed
//! overlaps (bug B0, itemsize) cannot happen here.

use super::index::{DedupedIdx, InnerIdx};
use super::meta::OutputAliasInfo;
use super::meta::{InputAliasInfo, OutputBase, OutputType, ViewAndMutationMeta};

/// What the pass needs to know about a tensor input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TensorInput {
    /// Object identity.
    pub object: String,
    /// Storage identity.
    pub storage: String,
    /// Object identity of its `_base` (`None`: not a view).
    pub base: Option<String>,
    /// dtype name, when known.
    pub dtype: Option<String>,
    /// Dims whose size is not a constant.
    pub dynamic_dims: Vec<usize>,
}

/// Which members of one storage group overlap (local indices into the group).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupOverlap {
    /// Members that overlap some other member.
    pub overlapping: Vec<usize>,
    /// Overlapping (or undecided, hence treated as overlapping) pairs.
    pub pairs: Vec<(usize, usize)>,
}

/// How much of a storage group is merged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Merge {
    /// The whole group, as PyTorch does (default).
    #[default]
    Group,
    /// Each connected component of the overlap graph that has a data mutation.
    Components,
}

/// Options of the pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SyntheticOptions {
    /// Training (views must be differentiable views of one another).
    pub is_train: bool,
    /// Export (merging is an error).
    pub is_export: bool,
    /// Whole groups or components.
    pub merge: Merge,
}

/// Where a deduped input goes in the compiled graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseInfo {
    /// It is inner input `i`.
    Inner(InnerIdx),
    /// It is regenerated as a view of synthetic base `base`.
    View(InnerIdx),
}

/// One synthetic base.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntheticBase {
    /// The storage.
    pub storage: String,
    /// Members, ascending.
    pub members: Vec<DedupedIdx>,
    /// The common `_base` object, or `None` for a fresh 1-D view of the whole storage.
    pub base_object: Option<String>,
}

/// A storage group the pass looked at (the glossary's *storage group*).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageGroup {
    /// The storage.
    pub storage: String,
    /// Members (deduped indices).
    pub members: Vec<DedupedIdx>,
    /// The overlap answer, when asked (groups with ≥ 2 members and a data mutation).
    pub overlap: Option<GroupOverlap>,
}

/// The pass's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntheticBases {
    /// Per deduped input.
    pub info: Vec<BaseInfo>,
    /// The synthetic bases, in inner order (they come first).
    pub bases: Vec<SyntheticBase>,
    /// Every storage group with ≥ 2 tensor members, in first-appearance order.
    pub groups: Vec<StorageGroup>,
}

impl SyntheticBases {
    /// `true` when some input was merged.
    pub(crate) fn merged_any(&self) -> bool {
        !self.bases.is_empty()
    }

    /// Number of inner inputs.
    pub fn num_inner(&self) -> usize {
        let others = self
            .info
            .iter()
            .filter(|b| matches!(b, BaseInfo::Inner(_)))
            .count();
        self.bases.len() + others
    }
}

fn group_by_storage(inputs: &[Option<TensorInput>]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, t) in inputs.iter().enumerate() {
        let Some(t) = t else { continue };
        match groups.iter_mut().find(|g| g.0 == t.storage) {
            Some(g) => g.1.push(i),
            None => groups.push((t.storage.clone(), vec![i])),
        }
    }
    groups
}

/// Two members may share a synthetic base in training only if they are
/// differentiable views of one another.
fn differentiable_views(a: &TensorInput, b: &TensorInput) -> bool {
    a.object == b.object
        || (a.base.is_some() && a.base == b.base)
        || a.base.as_deref() == Some(b.object.as_str())
        || b.base.as_deref() == Some(a.object.as_str())
}

/// What a compiler raises instead of merging (PyTorch's messages).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntheticError {
    /// Export cannot merge.
    #[error("Encountered aliased inputs that are mutated in the graph you are trying to export. This functionality is currently not supported.")]
    ExportAliasedMutation,
    /// Training: the members are not differentiable views of one another.
    #[error("inputs {0} and {1}: aot_autograd() does not yet handle non-differentiable view input mutations.")]
    NonDifferentiableViews(usize, usize),
    /// The members have different dtypes.
    #[error("inputs {0} and {1}: aot_autograd() does not yet handle input mutations on views with different dtypes.")]
    DifferentDtypes(usize, usize),
    /// The members' `_base`s differ.
    #[error("input {input}: aot_autograd() does not yet handle input mutations on views whose _base differs from the other aliased inputs' ({base}).")]
    DifferentBases {
        /// The deduped input whose base differs.
        input: usize,
        /// The first member's base.
        base: String,
    },
    /// A base's members mix leaves and non-leaves.
    #[error("synthetic base {0}: its members are neither all leaves nor all non-leaves")]
    MixedLeaves(usize),
}

/// Decides which inputs are merged (§2.3). `overlap` answers, for the members
/// of one storage group, which of them overlap.
pub(crate) fn merge_view_inputs(
    inputs: &[Option<TensorInput>],
    info: &[InputAliasInfo],
    opts: SyntheticOptions,
    overlap: &mut dyn FnMut(&[DedupedIdx]) -> GroupOverlap,
) -> Result<SyntheticBases, SyntheticError> {
    let n = inputs.len();
    let mut merged_into: Vec<Option<usize>> = vec![None; n];
    let mut bases: Vec<SyntheticBase> = Vec::new();
    let mut groups = Vec::new();
    let any_data_mutation = info.iter().any(|x| x.mutates_data);
    for (storage, members) in group_by_storage(inputs) {
        if members.len() < 2 {
            continue;
        }
        let mut report = StorageGroup {
            storage: storage.clone(),
            members: members.iter().map(|&i| DedupedIdx(i)).collect(),
            overlap: None,
        };
        if !any_data_mutation || !members.iter().any(|&i| info[i].mutates_data) {
            groups.push(report);
            continue;
        }
        let answer = overlap(&report.members);
        report.overlap = Some(answer.clone());
        groups.push(report);
        if answer.overlapping.len() <= 1 {
            continue; // false aliasing: every member stays a separate input
        }
        let parts: Vec<Vec<usize>> = match opts.merge {
            Merge::Group => vec![(0..members.len()).collect()],
            Merge::Components => crate::overlap::components(members.len(), &answer.pairs)
                .into_iter()
                .filter(|c| c.len() >= 2 && c.iter().any(|&l| info[members[l]].mutates_data))
                .collect(),
        };
        for part in parts {
            let idx: Vec<usize> = part.iter().map(|&l| members[l]).collect();
            if opts.is_export {
                return Err(SyntheticError::ExportAliasedMutation);
            }
            let t = |i: usize| inputs[i].as_ref().expect("group members are tensors");
            for w in idx.windows(2) {
                let (a, b) = (t(w[0]), t(w[1]));
                if opts.is_train && !differentiable_views(a, b) {
                    return Err(SyntheticError::NonDifferentiableViews(w[0], w[1]));
                }
                if a.dtype.is_some() && b.dtype.is_some() && a.dtype != b.dtype {
                    return Err(SyntheticError::DifferentDtypes(w[0], w[1]));
                }
            }
            let with_base: Vec<&TensorInput> = idx
                .iter()
                .map(|&i| t(i))
                .filter(|x| x.base.is_some())
                .collect();
            let base_object = if with_base.is_empty() {
                None
            } else {
                // Every member's `_base` (or the member itself) must be one object.
                let common = |x: &TensorInput| x.base.clone().unwrap_or_else(|| x.object.clone());
                let first = common(t(idx[0]));
                if let Some(&bad) = idx.iter().find(|&&i| common(t(i)) != first) {
                    return Err(SyntheticError::DifferentBases {
                        input: bad,
                        base: first,
                    });
                }
                Some(first)
            };
            for &i in &idx {
                merged_into[i] = Some(bases.len());
            }
            bases.push(SyntheticBase {
                storage: storage.clone(),
                members: idx.into_iter().map(DedupedIdx).collect(),
                base_object,
            });
        }
    }
    let mut info_out = Vec::with_capacity(n);
    let mut next = bases.len();
    for b in &merged_into {
        info_out.push(match b {
            Some(k) => BaseInfo::View(InnerIdx(*k)),
            None => {
                next += 1;
                BaseInfo::Inner(InnerIdx(next - 1))
            }
        });
    }
    Ok(SyntheticBases {
        info: info_out,
        bases,
        groups,
    })
}

/// The inner metadata (§2.4) and `aliased_arg_idx_with_metadata_mutations`.
pub(crate) fn create_synthetic_base_metadata(
    meta: &ViewAndMutationMeta<DedupedIdx>,
    sb: &SyntheticBases,
    inputs: &[Option<TensorInput>],
) -> Result<(ViewAndMutationMeta<InnerIdx>, Vec<DedupedIdx>), SyntheticError> {
    let num_inner = sb.num_inner();
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); num_inner];
    for (i, b) in sb.info.iter().enumerate() {
        match b {
            BaseInfo::Inner(j) | BaseInfo::View(j) => groups[j.0].push(i),
        }
    }
    let mut input_info = Vec::with_capacity(num_inner);
    for (j, g) in groups.iter().enumerate() {
        let xs: Vec<&InputAliasInfo> = g.iter().map(|&i| &meta.input_info[i]).collect();
        let leaves = xs.iter().filter(|x| x.is_leaf).count();
        if leaves != 0 && leaves != xs.len() {
            return Err(SyntheticError::MixedLeaves(j));
        }
        let is_base = j < sb.bases.len();
        let mut x = if is_base {
            InputAliasInfo {
                mutates_data: true,
                ..InputAliasInfo::default()
            }
        } else {
            *xs[0]
        };
        x.is_leaf = leaves > 0;
        x.requires_grad = xs.iter().any(|y| y.requires_grad);
        x.mutations_hidden_from_autograd = xs.iter().all(|y| y.mutations_hidden_from_autograd);
        x.mutations_under_no_grad_or_inference_mode = xs
            .iter()
            .all(|y| y.mutations_under_no_grad_or_inference_mode);
        x.mutation_inductor_storage_resize = xs.iter().all(|y| y.mutation_inductor_storage_resize);
        input_info.push(x);
    }
    let merged = |i: DedupedIdx| matches!(sb.info[i.0], BaseInfo::View(_));
    let inner_of = |i: DedupedIdx| match sb.info[i.0] {
        BaseInfo::Inner(j) | BaseInfo::View(j) => j,
    };
    let mut output_info: Vec<OutputAliasInfo<InnerIdx>> = meta
        .output_info
        .iter()
        .map(|o| {
            let mut n = o.map_input(inner_of);
            if let (OutputType::IsInput, OutputBase::Input(b)) = (o.output_type, o.base) {
                if merged(b) {
                    n.output_type = OutputType::AliasOfInput;
                }
            }
            n
        })
        .collect();
    let aliased_with_metadata: Vec<DedupedIdx> = (0..meta.input_info.len())
        .map(DedupedIdx)
        .filter(|&i| merged(i) && meta.input_info[i.0].mutates_metadata)
        .collect();
    for &i in &aliased_with_metadata {
        output_info.push(OutputAliasInfo {
            output_type: OutputType::AliasOfInput,
            base: OutputBase::Input(inner_of(i)),
            requires_grad: meta.input_info[i.0].requires_grad,
            dynamic_dims: Some(
                inputs[i.0]
                    .as_ref()
                    .map(|t| t.dynamic_dims.clone())
                    .unwrap_or_default(),
            ),
            raw_type: "FunctionalTensor".to_string(),
        });
    }
    Ok((
        ViewAndMutationMeta::new(
            input_info,
            output_info,
            meta.num_intermediate_bases,
            meta.keep_input_mutations,
        ),
        aliased_with_metadata,
    ))
}
