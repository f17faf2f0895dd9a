//! Internal overlap: does one view reach some byte from two different
//! indices? (ATen's `has_internal_overlap` answers this only for a stride-0
//! dimension and "too hard" otherwise.)
//!
//! All elements of one view have one itemsize and addresses `offset + Σ i_e·s_e`
//! in elements, so two elements share a byte exactly when their addresses are
//! equal: the view overlaps itself when the index map is not injective on
//! its index box. Sizes-1 dimensions play no part; an empty view overlaps
//! nothing; a stride-0 dimension of size ≥ 2 overlaps at once. Otherwise two
//! distinct indices `i ≠ j` with equal addresses have a first dimension `d`
//! (in the order of the remaining dimensions) where they differ; order them
//! so that `j_d = i_d + t`, `t ≥ 1`, and take `i_e = j_e = 0` before `d`
//! (those terms cancel) and `i_d = 0`:
//!
//! `s_d·t + Σ_{e>d} s_e·j_e = Σ_{e>d} s_e·i_e`, `1 ≤ t ≤ n_d − 1`, `0 ≤ i_e, j_e ≤ n_e − 1`.
//!
//! With `j'_e = n_e − 1 − j_e` and `t' = n_d − 1 − t` every coefficient is
//! positive — `Σ s_e·i_e + Σ s_e·j'_e + s_d·t' = s_d·(n_d − 1) + Σ s_e·(n_e − 1)`
//! with `0 ≤ t' ≤ n_d − 2` — one bounded Diophantine system per dimension,
//! decided by the same solver as a pair of views. The work is in the number of
//! dimensions and the solver's search, never in the number of elements.

use std::time::Instant;

use super::diophantine::{solve_within, Solve, Term};
use super::pair::{exact_system, with_exact_session, Verdict, Witness, EXACT_COST};
use crate::layout::View;

/// Decides whether `view` (validated) reaches some byte from two different
/// indices: [`Verdict::Overlap`] with a witness (the byte address and both
/// indices), [`Verdict::Disjoint`], or [`Verdict::Undecided`] when the
/// search hits `budget` nodes (to be read as "may overlap").
///
/// ```
/// use symalias::layout::View;
/// use symalias::overlap::{internal_overlap, DEFAULT_BUDGET, Verdict};
/// // as_strided((4, 3), (2, 1)): rows of 3 every 2 elements overlap.
/// let windows = View::new(&[4, 3], &[2, 1], 0);
/// let Verdict::Overlap(w) = internal_overlap(&windows, DEFAULT_BUDGET) else { panic!() };
/// assert_ne!(w.index_a, w.index_b);
/// // A transposed contiguous matrix does not.
/// let t = View::new(&[3, 4], &[1, 3], 0);
/// assert_eq!(internal_overlap(&t, DEFAULT_BUDGET), Verdict::Disjoint);
/// ```
pub fn internal_overlap(view: &View, budget: u64) -> Verdict {
    let mut work = budget;
    internal_overlap_until(view, budget, &mut work, None)
}

/// [`internal_overlap`] with the exact stage: a dimension's system the
/// search leaves undecided is decided by `pair::exact_system` until
/// `deadline` (one z3 session for the view, started only if needed).
/// Each system's search takes at most `budget` nodes, drawn from `work`
/// (a case's views share one: `analysis::group`), and each exact stage
/// costs [`EXACT_COST`] of it: a work bound, not a clock.
pub(crate) fn internal_overlap_until(
    view: &View,
    budget: u64,
    work: &mut u64,
    deadline: Option<Instant>,
) -> Verdict {
    if view.sizes.contains(&0) {
        return Verdict::Disjoint;
    }
    // The dimensions that can tell two indices apart.
    let dims: Vec<usize> = (0..view.sizes.len())
        .filter(|&d| view.sizes[d] >= 2)
        .collect();
    if let Some(&d) = dims.iter().find(|&&d| view.strides[d] == 0) {
        let zero = vec![0; view.sizes.len()];
        let mut other = zero.clone();
        other[d] = 1;
        return witness(view, zero, other);
    }
    let mut undecided: Vec<(usize, Vec<Term>, i128)> = Vec::new();
    for k in 0..dims.len() {
        let (terms, r) = system(view, &dims, k);
        match solve_within(&terms, r, budget, work, deadline) {
            Solve::Found(x) => return found(view, &dims, k, &x),
            Solve::None => {}
            Solve::Undecided => undecided.push((k, terms, r)),
        }
    }
    if undecided.is_empty() {
        return Verdict::Disjoint;
    }
    let Some(deadline) = deadline else {
        return Verdict::Undecided;
    };
    with_exact_session(deadline, |session| {
        let mut left = false;
        for (k, terms, r) in &undecided {
            if *work < EXACT_COST {
                left = true;
                break;
            }
            *work -= EXACT_COST;
            match exact_system(terms, *r, deadline, session) {
                Solve::Found(x) => return found(view, &dims, *k, &x),
                Solve::None => {}
                Solve::Undecided => left = true,
            }
        }
        if left {
            Verdict::Undecided
        } else {
            Verdict::Disjoint
        }
    })
}

/// The system of the `k`-th dimension that tells indices apart (module
/// docs): `i_e`, `j'_e` for each later dimension, then `t'`.
fn system(view: &View, dims: &[usize], k: usize) -> (Vec<Term>, i128) {
    let d = dims[k];
    let rest = &dims[k + 1..];
    let (n_d, s_d) = (view.sizes[d] as i128, view.strides[d] as i128);
    let mut terms = Vec::with_capacity(2 * rest.len() + 1);
    let mut r = s_d * (n_d - 1);
    for &e in rest {
        let (n, s) = (view.sizes[e] as i128, view.strides[e] as i128);
        terms.push(Term { coef: s, ub: n - 1 }); // i_e
        terms.push(Term { coef: s, ub: n - 1 }); // j'_e
        r += s * (n - 1);
    }
    terms.push(Term {
        coef: s_d,
        ub: n_d - 2,
    }); // t'
    (terms, r)
}

/// The two indices a solution `x` of [`system`]`(k)` shows.
fn found(view: &View, dims: &[usize], k: usize, x: &[i128]) -> Verdict {
    let d = dims[k];
    let rest = &dims[k + 1..];
    let n_d = view.sizes[d] as i128;
    let mut a = vec![0; view.sizes.len()];
    let mut b = vec![0; view.sizes.len()];
    for (m, &e) in rest.iter().enumerate() {
        a[e] = x[2 * m] as i64;
        b[e] = (view.sizes[e] as i128 - 1 - x[2 * m + 1]) as i64;
    }
    b[d] = (n_d - 1 - x[2 * rest.len()]) as i64;
    witness(view, a, b)
}

fn witness(view: &View, index_a: Vec<i64>, index_b: Vec<i64>) -> Verdict {
    let element = view.offset as i128
        + index_a
            .iter()
            .zip(&view.strides)
            .map(|(&i, &s)| i as i128 * s as i128)
            .sum::<i128>();
    Verdict::Overlap(Witness {
        address: (element * view.itemsize as i128) as i64,
        index_a,
        index_b,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::overlap::DEFAULT_BUDGET;

    fn internal_verdict(sizes: &[i64], strides: &[i64]) -> Verdict {
        internal_overlap(&View::new(sizes, strides, 0), DEFAULT_BUDGET)
    }

    #[test]
    fn contiguous_and_permuted_layouts_do_not_overlap() {
        assert_eq!(internal_verdict(&[2, 3, 4], &[12, 4, 1]), Verdict::Disjoint);
        assert_eq!(internal_verdict(&[4, 3, 2], &[1, 4, 12]), Verdict::Disjoint);
        assert_eq!(internal_verdict(&[5], &[7]), Verdict::Disjoint);
    }

    #[test]
    fn expand_and_sliding_windows_overlap() {
        assert!(internal_verdict(&[3, 4], &[0, 1]).may_overlap()); // expand
        assert!(internal_verdict(&[4, 3], &[2, 1]).may_overlap()); // as_strided windows
        assert!(internal_verdict(&[2, 2], &[1, 1]).may_overlap()); // (0,1) and (1,0)
    }

    #[test]
    fn size_one_and_empty_dimensions_decide_nothing() {
        assert_eq!(internal_verdict(&[1, 4], &[0, 1]), Verdict::Disjoint);
        assert_eq!(internal_verdict(&[0, 4], &[0, 0]), Verdict::Disjoint);
        assert_eq!(internal_verdict(&[], &[]), Verdict::Disjoint);
    }
}
