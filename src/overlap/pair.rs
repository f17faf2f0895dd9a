//! The exact decision for one pair of footprints.
//!
//! Fast paths first (an empty view; disjoint extents; identical footprints;
//! two contiguous runs), then the bounded Diophantine system
//! `a.start + Σ i_k·a_k = b.start + Σ j_k·b_k`, rewritten with `j'_k = n_k-1-j_k`
//! into positive coefficients: `Σ i_k·a_k + Σ j'_k·b_k = b.end − a.start`.

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
    let terms: Vec<Term> = a
        .dims
        .iter()
        .chain(&b.dims)
        .map(|d| Term {
            coef: d.stride as i128,
            ub: d.size as i128 - 1,
        })
        .collect();
    match solve(&terms, (b.end - a.start) as i128, budget) {
        Solve::None => Verdict::Disjoint,
        Solve::Undecided => Verdict::Undecided,
        Solve::Found(x) => {
            // Every value is below a size, so it fits i64.
            let x: Vec<i64> = x.into_iter().map(|v| v as i64).collect();
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
    }
}

fn witness(a: &Footprint, b: &Footprint, at: i64, va: Vec<i64>, vb: Vec<i64>) -> Verdict {
    Verdict::Overlap(Witness {
        address: at * a.unit_bytes,
        index_a: a.index_of(&va),
        index_b: b.index_of(&vb),
    })
}
