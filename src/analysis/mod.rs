//! The analysis layer: typed inputs in, typed reports out.
//!
//! An embedder builds a [`Scope`] (one [`ExprPool`] and its [`Env`]), the
//! [`Group`]s or [`Program`]s whose layouts are [`ExprId`]s of that pool, and
//! asks an [`Analyzer`] (which owns the solver and the limits):
//!
//! * [`Analyzer::overlap`] — which views of one storage overlap, exactly at
//!   the hints, proved or refuted for all allowed shapes, and the guards that
//!   keep the answer true ([`OverlapReport`]);
//! * [`Analyzer::overlap_views`] — the short road for concrete groups: the
//!   exact decision alone, no pool, no simplifier, no prover;
//! * [`Analyzer::analyze`] — the metadata passes of a program (dedupe,
//!   synthetic bases with the exact overlap answer per storage group, the
//!   graph signature) and its guard list ([`ProgramReport`]).
//!
//! Guards carry [`ExprId`]s of the scope's pool; [`GuardSet::prepare`]
//! compiles them for checking calls. Text and JSON exist only in `io`.
//!
//! [`ExprId`]: crate::expr::ExprId
//! [`GuardSet::prepare`]: crate::guards::check::GuardSet::prepare
//!
//! Pipeline of one group, one function per pass (`group.rs`): simplify the
//! environment's assumptions and the layouts, evaluate at the hints, decide
//! exactly, prove, build the guards. A program (`program.rs`): validate,
//! outer metadata, export bans, dedupe, identity guards, synthetic bases
//! (asking the group pipeline), group guards, inner metadata, signature.

mod error;
mod group;
mod program;
mod report;

pub use error::{CompileError, GroupError, ProgramError};
pub use group::{Disjointness, Group, Member};
pub use program::{
    GraphNames, Input, InputKind, MergeOption, Output, Program, ProgramOptions, Tensor,
};
pub use report::{
    Invariance, OverlapReport, PairReport, ProgramReport, SelfOverlapReport, StorageGroupReport,
    SyntheticReport,
};

use crate::env::Env;
use crate::expr::ExprPool;
use crate::overlap::{ProofOptions, DEFAULT_BUDGET};
use crate::simplify::SimplifyOptions;
use std::collections::BTreeMap;
use symalias_solver::{Budget, Solver};

/// The expressions and symbols of one analysis: every [`ExprId`] of its
/// groups, programs and reports is a handle into `pool`.
///
/// [`ExprId`]: crate::expr::ExprId
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// The expressions.
    pub pool: ExprPool,
    /// The symbols (hints, ranges, sources) and assumptions.
    pub env: Env,
}

impl Scope {
    /// An empty scope.
    pub fn new() -> Scope {
        Scope::default()
    }

    /// Symbol name → run-time source, for the symbols that have one (what a
    /// checker binds shape guards from).
    pub fn sources(&self) -> BTreeMap<String, String> {
        self.env
            .symbols()
            .iter()
            .filter_map(|&s| {
                let src = self.env.info(s)?.source.clone()?;
                Some((self.pool.symbol_name(s).to_string(), src))
            })
            .collect()
    }
}

/// How an [`Analyzer`] works.
#[derive(Clone, Copy, Debug)]
pub struct AnalyzerOptions {
    /// Work bound of the exact search, in nodes per pair.
    pub budget: u64,
    /// Prove symbolic groups for all shapes (else: answers at the hints).
    pub prove: bool,
    /// Limits of the proof (time limit, rlimit, queries, samples).
    pub proof: ProofOptions,
    /// Simplify assumptions, sizes, strides and offsets first (`None`: as written).
    pub simplify: Option<SimplifyOptions>,
    /// Most intermediate bases a program may declare (a bare count that sizes
    /// the metadata: checked before anything is allocated for it).
    pub max_intermediate_bases: usize,
    /// Overlapping pairs a group lists before it lists only the pairs that
    /// join two components (the rest are counted in `pairs_left_out`).
    pub max_listed_pairs: usize,
    /// What the guard lists of overlap reports may take for granted.
    pub guards: GuardOptions,
}

/// What an overlap report's guard list may take for granted of the
/// embedder that checks it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GuardOptions {
    /// The embedder pins each member's layout (sizes, strides, storage
    /// offset, itemsize) and the values its symbols are bound from with
    /// guards of its own, as torch's Dynamo does before symalias's check
    /// runs: the list then holds only what those leave open (proved answers
    /// carry no guard; shape guards alone stand in for the exact check).
    ///
    /// Off (the default): the list stands alone: every call it passes has
    /// the report's partition and self-overlaps
    /// (`guards::plan::stand_alone`).
    pub layouts_pinned: bool,
}

/// Default of [`AnalyzerOptions::max_intermediate_bases`].
pub(crate) const MAX_INTERMEDIATE_BASES: usize = 10_000;

impl Default for AnalyzerOptions {
    fn default() -> Self {
        AnalyzerOptions {
            budget: DEFAULT_BUDGET,
            prove: true,
            proof: ProofOptions::default(),
            simplify: Some(SimplifyOptions::default()),
            max_intermediate_bases: MAX_INTERMEDIATE_BASES,
            max_listed_pairs: crate::overlap::PAIR_LIST_CAP,
            guards: GuardOptions::default(),
        }
    }
}

/// Runs analyses: owns the solver (its context and query cache) and the
/// limits. One analyzer per thread; answers do not depend on what it was
/// asked before (the cache only saves time).
#[derive(Debug)]
pub struct Analyzer {
    options: AnalyzerOptions,
    solver: Solver,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer::new(AnalyzerOptions::default())
    }
}

/// A solver (empty cache, no context yet) under the options' query limits.
fn new_solver(options: &AnalyzerOptions) -> Solver {
    Solver::new(Budget {
        rlimit: options.proof.rlimit,
        ..Budget::default()
    })
}

impl Analyzer {
    /// An analyzer with these options.
    pub fn new(options: AnalyzerOptions) -> Analyzer {
        let solver = new_solver(&options);
        Analyzer { options, solver }
    }

    /// Its options.
    pub fn options(&self) -> &AnalyzerOptions {
        &self.options
    }

    /// What the solver did so far (queries, cache hits, …).
    pub fn solver_stats(&self) -> symalias_solver::Stats {
        self.solver.stats()
    }
}
