//! The exact decision for one pair of footprints.
//!
//! Fast paths first (an empty view; disjoint extents; identical footprints;
//! two contiguous runs), then the bounded Diophantine system
//! `a.start + Σ i_k·a_k = b.start + Σ j_k·b_k`, rewritten with `j'_k = n_k-1-j_k`
//! into positive coefficients: `Σ i_k·a_k + Σ j'_k·b_k = b.end − a.start`.
//! A system the bounded search cannot settle within its work bound goes to
//! the exact stage (`decide_exact`: z3 at concrete values, until the case's
//! deadline) when the caller gives one.

use std::time::Instant;

use super::diophantine::{solve, Solve, Term};
use super::footprint::Footprint;

/// A shared address and the indices of both views that reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The shared address in bytes (the first byte of the shared element(s)).
    pub address: i64,
    /// Index into the first view.
    pub index_a: Vec<i64>,
    /// Index into the second view.
    pub index_b: Vec<i64>,
}

/// The verdict for a pair at concrete values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The footprints share no address.
    Disjoint,
    /// They share at least the witness's address.
    Overlap(Witness),
    /// The search hit its work bound: treated as overlap, and reported as undecided.
    Undecided,
}

impl Verdict {
    /// `true` for `Overlap` and `Undecided` (the sound reading).
    pub fn may_overlap(&self) -> bool {
        !matches!(self, Verdict::Disjoint)
    }
}

/// Default work bound of the search, in nodes per pair.
pub const DEFAULT_BUDGET: u64 = 1 << 18;

/// Decides whether two footprints (in the same unit) intersect.
pub(crate) fn decide(a: &Footprint, b: &Footprint, budget: u64) -> Verdict {
    if a.empty || b.empty || a.end < b.start || b.end < a.start {
        return Verdict::Disjoint;
    }
    if a.dims == b.dims && a.start == b.start {
        return witness(a, b, a.start, vec![0; a.dims.len()], vec![0; b.dims.len()]);
    }
    if a.is_run() && b.is_run() {
        let at = a.start.max(b.start);
        let va = a.dims.iter().map(|_| at - a.start).collect();
        let vb = b.dims.iter().map(|_| at - b.start).collect();
        return witness(a, b, at, va, vb);
    }
    match solve(&terms(a, b), (b.end - a.start) as i128, budget) {
        Solve::None => Verdict::Disjoint,
        Solve::Undecided => Verdict::Undecided,
        // Every value is below a size, so it fits i64.
        Solve::Found(x) => solution(a, b, &x.into_iter().map(|v| v as i64).collect::<Vec<_>>()),
    }
}

/// The pair's system, `Σ i_k·a_k + Σ j'_k·b_k = b.end − a.start`: one term
/// per dimension of `a`, then of `b`.
fn terms(a: &Footprint, b: &Footprint) -> Vec<Term> {
    a.dims
        .iter()
        .chain(&b.dims)
        .map(|d| Term {
            coef: d.stride as i128,
            ub: d.size as i128 - 1,
        })
        .collect()
}

/// The overlap a solution `x` of the pair's system shows (`j'_k` turned
/// back into `b`'s indices).
fn solution(a: &Footprint, b: &Footprint, x: &[i64]) -> Verdict {
    let (xa, xb) = x.split_at(a.dims.len());
    let jb: Vec<i64> = b.dims.iter().zip(xb).map(|(d, v)| d.size - 1 - v).collect();
    let at = a.start
        + a.dims
            .iter()
            .zip(xa)
            .map(|(d, v)| d.stride * v)
            .sum::<i64>();
    witness(a, b, at, xa.to_vec(), jb)
}

/// Time the exact stage needs left before it starts: a fresh z3 context
/// takes about 30 ms to make, so a tighter limit keeps the pair undecided
/// rather than overrun.
const EXACT_MIN: std::time::Duration = std::time::Duration::from_millis(50);

/// The exact stage for a pair the search left undecided: the same bounded
/// system, `Σ c·x = r` with `0 <= x <= ub`, asked of z3 (integer
/// arithmetic at concrete values) until `deadline`. Its model (re-checked
/// exactly by the solver) is the witness; past the deadline the pair stays
/// undecided.
pub(crate) fn decide_exact(a: &Footprint, b: &Footprint, deadline: Instant) -> Verdict {
    use symalias_solver::{Answer, Budget, Cmp, Formula, Query, Solver, Term as T};
    let left = deadline.saturating_duration_since(Instant::now());
    if left < EXACT_MIN {
        return Verdict::Undecided;
    }
    let terms = terms(a, b);
    let names: Vec<String> = (0..terms.len()).map(|i| format!("x{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut assertions: Vec<Formula> = Vec::with_capacity(2 * terms.len() + 1);
    let mut sum = Vec::with_capacity(terms.len());
    for (i, t) in terms.iter().enumerate() {
        // Strides and sizes of a valid view fit i64 (`View::validate`).
        let x = T::Var(i as u32);
        assertions.push(x.clone().cmp(Cmp::Ge, T::Int(0)));
        assertions.push(x.clone().cmp(Cmp::Le, T::Int(t.ub as i64)));
        sum.push(T::Int(t.coef as i64) * x);
    }
    assertions.push(T::Add(sum).cmp(Cmp::Eq, T::Int(b.end - a.start)));
    let budget = Budget {
        rlimit: 0,
        seed: 0,
        wall: left,
    };
    match Solver::new(budget).check(&Query::new(&refs, assertions)) {
        Answer::Unsat => Verdict::Disjoint,
        // The solver re-checks a model exactly before it answers `Sat`.
        Answer::Sat(x) => solution(a, b, &x),
        Answer::Unknown(_) => Verdict::Undecided,
    }
}

fn witness(a: &Footprint, b: &Footprint, at: i64, va: Vec<i64>, vb: Vec<i64>) -> Verdict {
    Verdict::Overlap(Witness {
        address: at * a.unit_bytes,
        index_a: a.index_of(&va),
        index_b: b.index_of(&vb),
    })
}
