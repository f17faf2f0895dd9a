//! The last stage of a persistence proof: z3's quantified question.
//!
//! Where no witness form carries (constant, from the end, symbol + constant,
//! the first element of a contiguous run), the question is asked as it
//! stands: is there an allowed shape at which *no* pair of in-range indices
//! of the two views reaches one address? Unsat proves that the overlap
//! persists for all shapes; a model is a candidate counterexample, kept only
//! if the exact classification differs there. It runs under the same query
//! limits (`rlimit`, deadline) as every other question.

use super::{Asked, PairProof, Prover};
use symalias_solver::{Cmp, Formula, Term};

/// The quantified query's `rlimit`, in multiples of an ordinary query's:
/// quantifier instantiation needs more steps than a ground question.
const QUANTIFIED_RLIMIT: u32 = 5;

impl Prover<'_, '_> {
    /// Proves that views `a` and `b` overlap at every allowed shape by the
    /// quantified query `∃ shape. domain ∧ ∀ indices. ¬meet` being unsat.
    pub(super) fn quantified_overlap(&mut self, a: usize, b: usize) -> PairProof {
        if !self.can_ask() {
            return PairProof::Unknown;
        }
        let mut enc = self.enc.clone();
        let mut bound = Vec::new();
        let mut meet = Vec::new();
        let mut idx = [Vec::new(), Vec::new()];
        for (k, t) in [a, b].into_iter().enumerate() {
            for (d, &(n, _)) in self.fps[t].dims.iter().enumerate() {
                let v = enc.fresh(&format!("q{t}_{d}"));
                let Ok(size) = enc.term(self.pool, n) else {
                    return PairProof::Unknown;
                };
                bound.push(v);
                meet.push(Term::Var(v).cmp(Cmp::Ge, Term::Int(0)));
                meet.push(Term::Var(v).cmp(Cmp::Lt, size));
                idx[k].push(Term::Var(v));
            }
        }
        let (Some(xa), Some(xb)) = (
            self.address(&mut enc, a, &idx[0]),
            self.address(&mut enc, b, &idx[1]),
        ) else {
            return PairProof::Unknown;
        };
        meet.push(xa.cmp(Cmp::Eq, xb));
        let never = Formula::ForAll(bound, Box::new(Formula::Not(Box::new(Formula::And(meet)))));
        let rlimit = self.opts.rlimit.saturating_mul(QUANTIFIED_RLIMIT);
        let _span = tracing::debug_span!("quantified", a, b).entered();
        match self.ask_within(&enc, vec![never], rlimit) {
            Asked::Unsat => PairProof::Proved,
            Asked::Model(cx) if self.try_counterexample(cx.clone()) => PairProof::Refuted,
            Asked::Model(_) | Asked::Unknown => PairProof::Unknown,
        }
    }
}
