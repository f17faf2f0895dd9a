//! Bounded linear Diophantine feasibility: is there an integer vector `x` with
//! `0 <= x_i <= u_i` and `sum c_i * x_i == r`, for positive coefficients `c_i`?
//!
//! This is the core of the exact overlap test (two strided footprints share an
//! address exactly when such a system, built from both layouts, is feasible; see
//! `pair.rs`). The procedure, in the spirit of numpy's `solve_may_share_memory`:
//!
//! 1. merge terms with equal coefficients (their bounds add up);
//! 2. reject by the range of the sum (`0 <= r <= sum c_i u_i`) and by the gcd;
//! 3. solve one and two terms in closed form (extended Euclid);
//! 4. otherwise branch on the term with the largest coefficient, only over the
//!    values the remaining terms can complement (bounds clipping) and that
//!    match the remaining terms' gcd, depth first, under a work bound.
//!
//! The answer is exact unless the work bound is hit, which is reported as
//! [`Solve::Undecided`] and must be treated as "may share".

use smallvec::{smallvec, SmallVec};

/// One term `c * x` with `0 <= x <= ub`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// Positive coefficient.
    pub coef: i128,
    /// Inclusive upper bound of the variable.
    pub ub: i128,
}

/// The outcome of a bounded search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Solve {
    /// A solution, one value per input term (in input order).
    Found(Vec<i128>),
    /// No solution exists.
    None,
    /// The work bound was reached before an answer.
    Undecided,
}

/// Greatest common divisor (non-negative).
pub(crate) fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Extended Euclid: `(g, p, q)` with `a*p + b*q == g == gcd(a, b)`, for `a, b > 0`.
fn ext_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    let (mut r0, mut r1) = (a, b);
    let (mut s0, mut s1) = (1i128, 0i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (s0, s1) = (s1, s0 - q * s1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    (r0, s0, t0)
}

fn floor_div(a: i128, b: i128) -> i128 {
    a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    -floor_div(-a, b)
}

/// Solves `sum terms[i].coef * x_i == r` with `0 <= x_i <= terms[i].ub`,
/// visiting at most `budget` search nodes.
#[cfg(test)]
pub(crate) fn solve(terms: &[Term], r: i128, budget: u64) -> Solve {
    let mut left = budget;
    solve_counted(terms, r, &mut left, None)
}

/// [`solve`] within `cap` nodes drawn from `work`, a budget searches
/// share (a group's pairs, a case's self-overlap systems): what they take
/// is gone from it.
pub(crate) fn solve_within(
    terms: &[Term],
    r: i128,
    cap: u64,
    work: &mut u64,
    deadline: Option<std::time::Instant>,
) -> Solve {
    let mut mine = cap.min(*work);
    let before = mine;
    let solved = solve_counted(terms, r, &mut mine, deadline);
    *work -= before - mine;
    solved
}

/// [`solve`] drawing its nodes from `left` (what is left afterwards);
/// past `deadline` (a backstop, looked at every [`CLOCK_EVERY`] nodes)
/// undecided.
fn solve_counted(
    terms: &[Term],
    r: i128,
    left: &mut u64,
    deadline: Option<std::time::Instant>,
) -> Solve {
    let budget = *left;
    debug_assert!(terms.iter().all(|t| t.coef > 0 && t.ub >= 0));
    // Merge equal coefficients; remember which inputs each merged term
    // stands for. (Inline vectors: a pair of views has a handful of terms,
    // and this runs once per pair, so heap allocations were most of its
    // cost on easy pairs.)
    let mut merged: SmallVec<[(Term, SmallVec<[usize; 2]>); 8]> = SmallVec::new();
    for (i, t) in terms.iter().enumerate() {
        if t.ub == 0 {
            continue;
        }
        match merged.iter_mut().find(|m| m.0.coef == t.coef) {
            Some(m) => {
                m.0.ub += t.ub;
                m.1.push(i);
            }
            None => merged.push((*t, smallvec![i])),
        }
    }
    // Largest coefficient first: its range of values is the narrowest.
    merged.sort_by_key(|m| std::cmp::Reverse(m.0.coef));
    let ts: SmallVec<[Term; 8]> = merged.iter().map(|m| m.0).collect();
    let mut suffix_max: SmallVec<[i128; 9]> = smallvec![0i128; ts.len() + 1];
    let mut suffix_gcd: SmallVec<[i128; 9]> = smallvec![0i128; ts.len() + 1];
    for i in (0..ts.len()).rev() {
        suffix_max[i] = suffix_max[i + 1].saturating_add(ts[i].coef.saturating_mul(ts[i].ub));
        suffix_gcd[i] = gcd(suffix_gcd[i + 1], ts[i].coef);
    }
    let mut search = Search {
        ts: &ts,
        suffix_max: &suffix_max,
        suffix_gcd: &suffix_gcd,
        budget,
        deadline,
        x: smallvec![0; ts.len()],
    };
    let found = search.dfs(0, r);
    *left = search.budget;
    match found {
        Some(true) => {
            // Split merged values back over the inputs they stand for.
            let mut out = vec![0i128; terms.len()];
            for (k, (_, members)) in merged.iter().enumerate() {
                let mut v = search.x[k];
                for &i in members {
                    let take = v.min(terms[i].ub);
                    out[i] = take;
                    v -= take;
                }
                debug_assert_eq!(v, 0);
            }
            Solve::Found(out)
        }
        Some(false) => Solve::None,
        None => Solve::Undecided,
    }
}

struct Search<'a> {
    ts: &'a [Term],
    suffix_max: &'a [i128],
    suffix_gcd: &'a [i128],
    budget: u64,
    deadline: Option<std::time::Instant>,
    x: SmallVec<[i128; 8]>,
}

/// Search nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 4096;

impl Search<'_> {
    /// `Some(found)`, or `None` when the budget ran out.
    fn dfs(&mut self, k: usize, r: i128) -> Option<bool> {
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        if self.budget % CLOCK_EVERY == 0 && symalias_solver::clock::past_opt(self.deadline) {
            self.budget = 0;
            return None;
        }
        let n = self.ts.len() - k;
        if r < 0 || r > self.suffix_max[k] {
            return Some(false);
        }
        if n == 0 {
            return Some(r == 0);
        }
        if r % self.suffix_gcd[k] != 0 {
            return Some(false);
        }
        let t = self.ts[k];
        if n == 1 {
            let v = r / t.coef;
            self.x[k] = v;
            return Some(r % t.coef == 0 && v <= t.ub);
        }
        if n == 2 {
            return Some(self.two(k, r));
        }
        // Values of x_k that leave a remainder the other terms can reach.
        let rest_max = self.suffix_max[k + 1];
        let lo = ceil_div(r - rest_max, t.coef).max(0);
        let hi = floor_div(r, t.coef).min(t.ub);
        if lo > hi {
            return Some(false);
        }
        // The other terms only reach multiples of their gcd g, so
        // c*x ≡ r (mod g): x runs over one residue class modulo g/gcd(c, g).
        let g = self.suffix_gcd[k + 1];
        let (c_mod, r_mod) = (t.coef.rem_euclid(g), r.rem_euclid(g));
        let d = gcd(c_mod, g);
        if r_mod % d != 0 {
            return Some(false);
        }
        let step = g / d;
        let x0 = if step == 1 {
            0
        } else {
            let (_, inv, _) = ext_gcd(c_mod / d, step);
            ((r_mod / d) * inv.rem_euclid(step)).rem_euclid(step)
        };
        let first = lo + (x0 - lo).rem_euclid(step);
        let mut v = first;
        while v <= hi {
            self.x[k] = v;
            match self.dfs(k + 1, r - t.coef * v)? {
                true => return Some(true),
                false => v += step,
            }
        }
        Some(false)
    }

    /// Closed form for the last two terms: `a*x + b*y == r`.
    fn two(&mut self, k: usize, r: i128) -> bool {
        let (a, b) = (self.ts[k], self.ts[k + 1]);
        let (g, p, q) = ext_gcd(a.coef, b.coef);
        if r % g != 0 {
            return false;
        }
        let m = r / g;
        let (x0, y0) = (p * m, q * m);
        let (bs, as_) = (b.coef / g, a.coef / g);
        // x = x0 + t*bs in [0, a.ub];  y = y0 - t*as_ in [0, b.ub]
        let t_lo = ceil_div(-x0, bs).max(ceil_div(y0 - b.ub, as_));
        let t_hi = floor_div(a.ub - x0, bs).min(floor_div(y0, as_));
        if t_lo > t_hi {
            return false;
        }
        self.x[k] = x0 + t_lo * bs;
        self.x[k + 1] = y0 - t_lo * as_;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over the whole box.
    fn brute(terms: &[Term], r: i128) -> bool {
        fn go(terms: &[Term], r: i128) -> bool {
            match terms.split_first() {
                None => r == 0,
                Some((t, rest)) => (0..=t.ub).any(|x| go(rest, r - t.coef * x)),
            }
        }
        go(terms, r)
    }

    #[test]
    fn agrees_with_brute_force_on_small_systems() {
        let mut seed = 12345u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..20_000 {
            let n = 1 + next(4) as usize;
            let terms: Vec<Term> = (0..n)
                .map(|_| Term {
                    coef: 1 + next(12) as i128,
                    ub: next(5) as i128,
                })
                .collect();
            let r = next(60) as i128;
            let want = brute(&terms, r);
            match solve(&terms, r, 1 << 20) {
                Solve::Found(x) => {
                    assert!(
                        want,
                        "{terms:?} = {r}: found {x:?} but brute force says none"
                    );
                    let sum: i128 = terms.iter().zip(&x).map(|(t, v)| t.coef * v).sum();
                    assert_eq!(sum, r, "{terms:?}: bad solution {x:?}");
                    assert!(terms.iter().zip(&x).all(|(t, v)| (0..=t.ub).contains(v)));
                }
                Solve::None => assert!(!want, "{terms:?} = {r}: missed a solution"),
                Solve::Undecided => panic!("small system undecided"),
            }
        }
    }

    #[test]
    fn budget_exhaustion_is_undecided_not_none() {
        // Many terms with a large common structure and no solution: the search
        // needs more than one node.
        let terms = vec![
            Term {
                coef: 1000,
                ub: 1000,
            },
            Term {
                coef: 999,
                ub: 1000,
            },
            Term {
                coef: 998,
                ub: 1000,
            },
            Term {
                coef: 997,
                ub: 1000,
            },
        ];
        // Beyond the largest reachable sum: no search needed.
        assert_eq!(solve(&terms, 4_000_000, 1), Solve::None);
        // A real search with too small a budget is undecided, never "none".
        assert_eq!(solve(&terms, 2_000_001, 2), Solve::Undecided);
        assert!(matches!(solve(&terms, 2_000_001, 1 << 20), Solve::Found(_)));
    }
}
