//! What the analyses answer: typed reports, serialized by `io`.

use super::error::CompileError;
use crate::aot::dedupe::Dedupe;
use crate::aot::index::{DedupedIdx, InnerIdx, OuterIdx};
use crate::aot::meta::ViewAndMutationMeta;
use crate::aot::signature::GraphSignature;
use crate::aot::synthetic::SyntheticBases;
use crate::guards::Guard;
use crate::overlap::{Proof, Witness};
use std::collections::BTreeMap;
use std::time::Duration;

/// Whether the overlap partition at the hints holds for every allowed shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariance {
    /// Proved for all allowed shapes (or exact: the group is concrete).
    Proved,
    /// Some allowed shape changes it (see the counterexample).
    Refuted,
    /// Not settled: the guards keep the answer true.
    Unknown,
}

impl Invariance {
    /// FORMATS §3 `invariant`: `true`, `false` or `null`.
    pub fn as_option(self) -> Option<bool> {
        match self {
            Invariance::Proved => Some(true),
            Invariance::Refuted => Some(false),
            Invariance::Unknown => None,
        }
    }
}

/// One listed pair of an overlap report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairReport {
    /// First member (local index).
    pub a: usize,
    /// Second member, `a < b`.
    pub b: usize,
    /// The footprints intersect at the hints (or the search could not tell).
    pub overlap: bool,
    /// What is known for all shapes.
    pub proof: Proof,
    /// A shared byte and the indices reaching it, for overlapping pairs.
    pub witness: Option<Witness>,
}

/// A member's overlap with itself (two of its own indices at one byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfOverlapReport {
    /// The member (local index).
    pub member: usize,
    /// It overlaps itself at the hints (or the search could not tell).
    pub overlap: bool,
    /// What is known for all shapes (`Proved` for concrete members).
    pub proof: Proof,
    /// The shared byte and the two indices reaching it, when it overlaps.
    pub witness: Option<Witness>,
    /// With `Refuted`: an allowed assignment at which the verdict differs.
    pub counterexample: Option<BTreeMap<String, i64>>,
}

/// The answer for one storage group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverlapReport {
    /// Members (local indices, ascending) that overlap some other member at the hints.
    pub overlapping: Vec<usize>,
    /// The others, ascending.
    pub non_overlapping: Vec<usize>,
    /// Whether the partition holds for all allowed shapes.
    pub invariance: Invariance,
    /// Guards that keep the partition true (empty when proved).
    pub guards: Vec<Guard>,
    /// Every overlapping or undecided pair, and pairs whose proof status
    /// matters; pairs not listed are disjoint — unless `pairs_left_out` is
    /// not zero (past a cap, only pairs that join two components of the
    /// overlap graph are listed).
    pub pairs: Vec<PairReport>,
    /// Candidate pairs inside an already connected component that were not
    /// decided or listed (a degenerate group: many views over one place).
    pub pairs_left_out: usize,
    /// With [`Invariance::Refuted`]: an allowed assignment (symbol name →
    /// value) at which the exact partition differs.
    pub counterexample: Option<BTreeMap<String, i64>>,
    /// Members that overlap themselves at the hints, or (when the group was
    /// proved) whose verdict is not proved for all shapes, by member. A
    /// member not listed overlaps itself at no allowed shape — with proof
    /// off, at none at the hints (then a symbolic member's proof is `HintOnly`).
    pub self_overlap: Vec<SelfOverlapReport>,
    /// Wall time of the analysis.
    pub elapsed: Duration,
    /// `true` when the wall-clock backstop (the time limit) stopped some of
    /// the work: the answer is still sound, but a faster or idler machine
    /// may decide more (`symalias_solver::clock`). `false`: the answer is a
    /// function of the input and the options alone.
    pub time_limit_hit: bool,
}

impl OverlapReport {
    /// `true` when some guard is a shape guard (its symbols are bound from
    /// sources at run time).
    pub(crate) fn has_shape_guards(&self) -> bool {
        self.guards
            .iter()
            .any(|g| matches!(g.kind, crate::guards::GuardKind::Shape { .. }))
    }
}

/// The overlap answer of one storage group of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageGroupReport {
    /// The storage.
    pub storage: String,
    /// Its members, as program input positions.
    pub inputs: Vec<usize>,
    /// The answer (member indices local to `inputs`).
    pub report: OverlapReport,
}

/// The synthetic-base decision and the inner graph's metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntheticReport {
    /// Which deduped inputs are merged into which bases.
    pub bases: SyntheticBases,
    /// Metadata of the compiled graph's inputs (bases first).
    pub meta: ViewAndMutationMeta<InnerIdx>,
    /// Merged inputs whose metadata is mutated (returned as outputs).
    pub aliased_with_metadata_mutations: Vec<DedupedIdx>,
}

/// What the passes decided for one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramReport {
    /// Duplicate-input removal.
    pub dedupe: Dedupe,
    /// The storage groups asked about overlap, in asking order.
    pub groups: Vec<StorageGroupReport>,
    /// Synthetic bases, when the pass ran and succeeded.
    pub synthetic: Option<SyntheticReport>,
    /// Metadata over the deduped inputs.
    pub deduped_meta: ViewAndMutationMeta<DedupedIdx>,
    /// Metadata over the program's inputs.
    pub outer_meta: ViewAndMutationMeta<OuterIdx>,
    /// The graph signature, when graph names were given and it applies.
    pub signature: Option<GraphSignature>,
    /// The guard list (a conjunction; see `guards::model`).
    pub guards: Vec<Guard>,
    /// What a compiler would raise (the passes after it are skipped).
    pub errors: Vec<CompileError>,
}
