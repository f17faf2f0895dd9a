//! The last stage of a persistence proof: z3's quantified question.
//!
//! Where no witness form carries (constant, from the end, symbol + constant,
//! the first element of a contiguous run), the question is asked as it
//! stands: is there an allowed shape at which *no* pair of in-range indices
//! of the two views reaches one address? Unsat proves that the overlap
//! persists for all shapes; a model is a candidate counterexample, kept only
//! if the exact classification differs there. It runs under the same query
//! limits (`rlimit`, deadline) as every other question.

use super::{Asked, Proof, Prover};
use symalias_solver::Formula;

/// The quantified query's `rlimit`, in multiples of an ordinary query's:
/// quantifier instantiation needs more steps than a ground question.
const QUANTIFIED_RLIMIT: u32 = 5;

impl Prover<'_, '_> {
    /// Proves that views `a` and `b` overlap at every allowed shape by the
    /// quantified query `∃ shape. domain ∧ ∀ indices. ¬meet` being unsat.
    pub(super) fn quantified_overlap(&mut self, a: usize, b: usize) -> Proof {
        if !self.can_ask() {
            return Proof::Unknown;
        }
        let mut enc = self.enc.clone();
        let Some((bound, meet)) = self.meet(&mut enc, a, b, "q") else {
            return Proof::Unknown;
        };
        let never = Formula::ForAll(bound, Box::new(Formula::Not(Box::new(Formula::And(meet)))));
        let rlimit = self.opts.rlimit.saturating_mul(QUANTIFIED_RLIMIT);
        let _span = tracing::debug_span!("quantified", a, b).entered();
        match self.ask_within(&enc, vec![never], rlimit) {
            Asked::Unsat => Proof::Proved,
            Asked::Model(cx) if self.try_counterexample(cx.clone()) => Proof::Refuted,
            Asked::Model(_) | Asked::Unknown => Proof::Unknown,
        }
    }
}
