//! The lattice reformulation of a bounded linear Diophantine system, for
//! the exact stage (`pair::pair_verdict_exact`).
//!
//! The system `Σ c_i·x_i = r`, `0 <= x_i <= u_i` is hard for a search over
//! `x` when the coefficients are large and share a hidden structure (numpy's
//! documented instance; strides `M·p_i + s_i` whose residues modulo `M`
//! keep two footprints apart). Its integer solutions are exactly
//! `x = x0 + Σ λ_j·b_j` for one particular solution `x0` and a basis `b_j`
//! of the kernel lattice `{y : Σ c_i·y_i = 0}` (Aardal, Hurkens and Lenstra's
//! reformulation). After lattice reduction (LLL, each coordinate weighted
//! by its range) the basis vectors are short against the box, so the box in
//! `λ`-space is thin and an integer solver settles it quickly (the
//! 40-pair family of `python/benches/bench_hard.py`: z3 on the plain
//! system passes its 2 s limit on most; on the reduced one each answers in
//! milliseconds).
//!
//! Exactness does not depend on the reduction's quality: the basis is only
//! ever changed by integer unimodular steps (checked arithmetic), so it
//! spans the same lattice whatever the floating-point Gram–Schmidt
//! estimates say; those only choose the steps. Overflow gives `None` (the
//! caller asks the plain system instead).

use super::diophantine::Term;

/// The solutions of a system, as a point and a lattice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Lattice {
    /// No integer solution at all (the gcd of the coefficients does not
    /// divide the right-hand side).
    Empty,
    /// Solutions `x0 + Σ λ_j·basis[j]` for all integers `λ`; `basis` is
    /// empty for a single term.
    Solutions {
        x0: Vec<i128>,
        basis: Vec<Vec<i128>>,
    },
}

/// Most LLL steps (swaps and size reductions): a bound on the time spent,
/// not on correctness.
const MAX_STEPS: usize = 20_000;

/// Reformulates `Σ terms[i].coef·x_i = rhs` (bounds ignored: they are the
/// caller's constraints on `x0 + Σ λ_j·b_j`), with a reduced kernel basis
/// and `x0` moved next to the middle of the box. `None` when a value
/// leaves `i128`.
pub(crate) fn reformulate(terms: &[Term], rhs: i128) -> Option<Lattice> {
    let n = terms.len();
    if n == 0 {
        return Some(if rhs == 0 {
            Lattice::Solutions {
                x0: vec![],
                basis: vec![],
            }
        } else {
            Lattice::Empty
        });
    }
    // Column Euclid: u_j are unit vectors at first and `c_j = coefs·u_j`
    // stays true; at the end one `c_p = ±g` is left and the other u_j span
    // the kernel.
    let mut c: Vec<i128> = terms.iter().map(|t| t.coef).collect();
    let mut u: Vec<Vec<i128>> = (0..n)
        .map(|j| (0..n).map(|i| i128::from(i == j)).collect())
        .collect();
    loop {
        let nonzero: Vec<usize> = (0..n).filter(|&j| c[j] != 0).collect();
        let Some(&p) = nonzero.iter().min_by_key(|&&j| c[j].unsigned_abs()) else {
            // All coefficients zero: every x solves `0 = rhs` or none does.
            return Some(if rhs == 0 {
                Lattice::Solutions {
                    x0: vec![0; n],
                    basis: u,
                }
            } else {
                Lattice::Empty
            });
        };
        if nonzero.len() == 1 {
            let g = c[p];
            if rhs % g != 0 {
                return Some(Lattice::Empty);
            }
            let k = rhs / g;
            let x0 = u[p]
                .iter()
                .map(|v| v.checked_mul(k))
                .collect::<Option<Vec<i128>>>()?;
            let mut basis: Vec<Vec<i128>> =
                (0..n).filter(|&j| j != p).map(|j| u[j].clone()).collect();
            let weights: Vec<f64> = terms.iter().map(|t| 1.0 / (t.ub as f64 + 1.0)).collect();
            lll(&mut basis, &weights)?;
            let center: Vec<f64> = terms.iter().map(|t| t.ub as f64 / 2.0).collect();
            let x0 = closest(x0, &basis, &weights, &center)?;
            return Some(Lattice::Solutions { x0, basis });
        }
        for &j in &nonzero {
            if j == p {
                continue;
            }
            let q = c[j] / c[p];
            c[j] -= q * c[p];
            let (src, dst) = if j < p {
                let (lo, hi) = u.split_at_mut(p);
                (&hi[0], &mut lo[j])
            } else {
                let (lo, hi) = u.split_at_mut(j);
                (&lo[p], &mut hi[0])
            };
            axpy(dst, -q, src)?;
        }
    }
}

/// `dst += k·src`, checked.
fn axpy(dst: &mut [i128], k: i128, src: &[i128]) -> Option<()> {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = d.checked_add(k.checked_mul(*s)?)?;
    }
    Some(())
}

fn wdot(a: &[f64], b: &[f64], w: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .zip(w)
        .map(|((x, y), w)| x * y * w * w)
        .sum()
}

fn as_f64(v: &[i128]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

/// Gram–Schmidt of `b` under the weighted product: `(b*, μ)`.
fn gram_schmidt(b: &[Vec<i128>], w: &[f64]) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let m = b.len();
    let mut star: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut mu = vec![vec![0.0; m]; m];
    for i in 0..m {
        let mut v = as_f64(&b[i]);
        for j in 0..i {
            let norm = wdot(&star[j], &star[j], w);
            mu[i][j] = if norm > 0.0 {
                wdot(&as_f64(&b[i]), &star[j], w) / norm
            } else {
                0.0
            };
            for (x, s) in v.iter_mut().zip(&star[j]) {
                *x -= mu[i][j] * s;
            }
        }
        star.push(v);
    }
    (star, mu)
}

/// A float to an integer step, `None` past what `i128` holds safely.
fn step(x: f64) -> Option<i128> {
    let q = x.round();
    (q.abs() < 1e30).then_some(q as i128)
}

/// LLL reduction (δ = 3/4) under the weighted product, by integer steps.
fn lll(b: &mut [Vec<i128>], w: &[f64]) -> Option<()> {
    let m = b.len();
    let mut k = 1;
    let mut steps = 0;
    while k < m && steps < MAX_STEPS {
        steps += 1;
        let (_, mu) = gram_schmidt(&b[..=k], w);
        for j in (0..k).rev() {
            let q = step(mu[k][j])?;
            if q != 0 {
                let (lo, hi) = b.split_at_mut(k);
                axpy(&mut hi[0], -q, &lo[j])?;
            }
        }
        let (star, mu) = gram_schmidt(&b[..=k], w);
        let now = wdot(&star[k], &star[k], w);
        let before = wdot(&star[k - 1], &star[k - 1], w);
        if now >= (0.75 - mu[k][k - 1] * mu[k][k - 1]) * before {
            k += 1;
        } else {
            b.swap(k, k - 1);
            k = (k - 1).max(1);
        }
    }
    Some(())
}

/// `x0` moved by lattice vectors next to `center` (Babai's nearest plane
/// under the weighted product).
fn closest(mut x0: Vec<i128>, b: &[Vec<i128>], w: &[f64], center: &[f64]) -> Option<Vec<i128>> {
    if b.is_empty() {
        return Some(x0);
    }
    let (star, _) = gram_schmidt(b, w);
    for j in (0..b.len()).rev() {
        let norm = wdot(&star[j], &star[j], w);
        if norm <= 0.0 {
            continue;
        }
        let off: Vec<f64> = x0.iter().zip(center).map(|(&x, c)| x as f64 - c).collect();
        let q = step(wdot(&off, &star[j], w) / norm)?;
        if q != 0 {
            axpy(&mut x0, -q, &b[j])?;
        }
    }
    Some(x0)
}

/// The outcome of [`search_box`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BoxSearch {
    /// A point `x` of the lattice inside the box.
    Found(Vec<i128>),
    /// No lattice point is inside the box.
    Empty,
    /// The node bound or the deadline was reached first.
    Undecided,
}

/// Is there a `λ` with `0 <= x0 + Σ λ_j·basis[j] <= ub`? An exact
/// branch and bound over `λ` in integer arithmetic: first bounds for every
/// `λ_j` from as many independent coordinates as there are `λ`s (the
/// adjugate of that square block, fraction-free), then interval propagation
/// through all the box constraints and a branch on the narrowest `λ`. With a
/// reduced basis the box is thin in `λ`-space and few nodes are needed.
/// `Undecided` past `max_nodes` nodes, past `deadline`, or when a value
/// leaves `i128`.
pub(crate) fn search_box(
    x0: &[i128],
    basis: &[Vec<i128>],
    ub: &[i128],
    max_nodes: u64,
    deadline: std::time::Instant,
) -> BoxSearch {
    let n = x0.len();
    let m = basis.len();
    // Rows `lo_i <= Σ_j a[i][j]·λ_j <= hi_i`.
    let a: Vec<Vec<i128>> = (0..n)
        .map(|i| basis.iter().map(|b| b[i]).collect())
        .collect();
    let lo: Vec<i128> = x0.iter().map(|&x| -x).collect();
    let Some(hi) = ub
        .iter()
        .zip(x0)
        .map(|(&u, &x)| u.checked_sub(x))
        .collect::<Option<Vec<_>>>()
    else {
        return BoxSearch::Undecided;
    };
    if m == 0 {
        return if lo.iter().all(|&l| l <= 0) && hi.iter().all(|&h| h >= 0) {
            BoxSearch::Found(x0.to_vec())
        } else {
            BoxSearch::Empty
        };
    }
    let Some(bounds) = initial_bounds(&a, &lo, &hi) else {
        return BoxSearch::Undecided;
    };
    let mut nodes = 0u64;
    let problem = Rows {
        a: &a,
        lo: &lo,
        hi: &hi,
    };
    match problem.branch(bounds, &mut nodes, max_nodes, deadline) {
        Branch::Found(lambda) => {
            let mut x = x0.to_vec();
            for (l, b) in lambda.iter().zip(basis) {
                if axpy(&mut x, *l, b).is_none() {
                    return BoxSearch::Undecided;
                }
            }
            BoxSearch::Found(x)
        }
        Branch::Empty => BoxSearch::Empty,
        Branch::Stop => BoxSearch::Undecided,
    }
}

/// Bounds of each `λ_j` implied by `m` linearly independent rows alone:
/// `λ = adj(A_S)·y_S / det(A_S)` with each `y_s` in `[lo_s, hi_s]`.
fn initial_bounds(a: &[Vec<i128>], lo: &[i128], hi: &[i128]) -> Option<Vec<(i128, i128)>> {
    let m = a[0].len();
    // Pick independent rows greedily by fraction-free elimination.
    let mut rows: Vec<usize> = Vec::with_capacity(m);
    let mut echelon: Vec<Vec<i128>> = Vec::with_capacity(m);
    for (i, row) in a.iter().enumerate() {
        let mut v = row.clone();
        for e in &echelon {
            let p = e.iter().position(|&x| x != 0)?;
            if v[p] != 0 {
                let (f, g) = (e[p], v[p]);
                for (x, y) in v.iter_mut().zip(e) {
                    *x = x.checked_mul(f)?.checked_sub(y.checked_mul(g)?)?;
                }
                let d = v.iter().fold(0, |d, &x| super::diophantine::gcd(d, x));
                if d > 1 {
                    v.iter_mut().for_each(|x| *x /= d);
                }
            }
        }
        if v.iter().any(|&x| x != 0) {
            rows.push(i);
            echelon.push(v);
            if rows.len() == m {
                break;
            }
        }
    }
    if rows.len() < m {
        return None;
    }
    let square: Vec<Vec<i128>> = rows.iter().map(|&i| a[i].clone()).collect();
    let (det, adj) = adjugate(&square)?;
    let mut out = Vec::with_capacity(m);
    for adj_row in &adj {
        // det·λ_j = Σ_s adj[j][s]·y_s (`adj = det·A_S⁻¹`).
        let (mut min, mut max) = (0i128, 0i128);
        for (&c, &i) in adj_row.iter().zip(&rows) {
            let (p, q) = (c.checked_mul(lo[i])?, c.checked_mul(hi[i])?);
            min = min.checked_add(p.min(q))?;
            max = max.checked_add(p.max(q))?;
        }
        let (l, h) = if det > 0 {
            (min, max)
        } else {
            (max.checked_neg()?, min.checked_neg()?)
        };
        let d = det.abs();
        out.push((ceil_div(l, d), floor_div(h, d)));
    }
    Some(out)
}

/// `(d, R)` with `A·R = d·I` and `d != 0` for a square integer matrix
/// (fraction-free Gauss–Jordan on `[A | I]`: the left block becomes `d·I`
/// and the right block `R = d·A⁻¹`), checked exactly before it is
/// returned; `None` on overflow or a singular matrix.
fn adjugate(a: &[Vec<i128>]) -> Option<(i128, Vec<Vec<i128>>)> {
    let m = a.len();
    let mut t: Vec<Vec<i128>> = (0..m)
        .map(|i| {
            let mut r = a[i].clone();
            r.extend((0..m).map(|j| i128::from(i == j)));
            r
        })
        .collect();
    let mut prev = 1i128;
    for k in 0..m {
        let p = (k..m).find(|&r| t[r][k] != 0)?;
        t.swap(p, k);
        for i in (0..m).filter(|&i| i != k) {
            for j in (0..2 * m).filter(|&j| j != k) {
                let v = t[k][k]
                    .checked_mul(t[i][j])?
                    .checked_sub(t[i][k].checked_mul(t[k][j])?)?;
                t[i][j] = v / prev;
            }
            t[i][k] = 0;
        }
        prev = t[k][k];
    }
    let d = t[m - 1][m - 1];
    let r: Vec<Vec<i128>> = t.iter().map(|row| row[m..].to_vec()).collect();
    // The claim the bounds rest on, checked: A·R = d·I.
    for (i, a_row) in a.iter().enumerate() {
        for j in 0..m {
            let mut v = 0i128;
            for (x, r_row) in a_row.iter().zip(&r) {
                v = v.checked_add(x.checked_mul(r_row[j])?)?;
            }
            if v != if i == j { d } else { 0 } {
                return None;
            }
        }
    }
    (d != 0).then_some((d, r))
}

fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    -floor_div(-a, b)
}

/// The rows of a box search.
struct Rows<'a> {
    a: &'a [Vec<i128>],
    lo: &'a [i128],
    hi: &'a [i128],
}

enum Branch {
    Found(Vec<i128>),
    Empty,
    Stop,
}

/// Most propagation passes per node.
const PASSES: usize = 32;

/// Nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 1024;

impl Rows<'_> {
    /// Tightens `b` by every row until nothing changes; `false` when a
    /// domain empties (or a value would leave `i128`: then nothing is
    /// claimed, the caller stops).
    fn propagate(&self, b: &mut [(i128, i128)]) -> Option<bool> {
        // Interval propagation can creep (a bound moving by one per pass):
        // a fixed number of passes bounds a node's cost; stopping early only
        // leaves wider, still sound, domains.
        for _ in 0..PASSES {
            let mut changed = false;
            for (i, row) in self.a.iter().enumerate() {
                // The row's range over the current domains.
                let (mut min, mut max) = (0i128, 0i128);
                for (&c, &(l, h)) in row.iter().zip(b.iter()) {
                    if c != 0 {
                        let (p, q) = (c.checked_mul(l)?, c.checked_mul(h)?);
                        min = min.checked_add(p.min(q))?;
                        max = max.checked_add(p.max(q))?;
                    }
                }
                if max < self.lo[i] || min > self.hi[i] {
                    return Some(false);
                }
                for (j, &c) in row.iter().enumerate() {
                    if c == 0 {
                        continue;
                    }
                    let (l, h) = b[j];
                    let (p, q) = (c.checked_mul(l)?, c.checked_mul(h)?);
                    // The other terms' range: the row's minus this term's.
                    let (rest_min, rest_max) =
                        (min.checked_sub(p.min(q))?, max.checked_sub(p.max(q))?);
                    // lo - rest_max <= c·λ <= hi - rest_min.
                    let (num_lo, num_hi) = (
                        self.lo[i].checked_sub(rest_max)?,
                        self.hi[i].checked_sub(rest_min)?,
                    );
                    let (nl, nh) = if c > 0 {
                        (ceil_div(num_lo, c), floor_div(num_hi, c))
                    } else {
                        (ceil_div(num_hi, c), floor_div(num_lo, c))
                    };
                    let (nl, nh) = (nl.max(l), nh.min(h));
                    if nl > nh {
                        return Some(false);
                    }
                    if (nl, nh) != (l, h) {
                        b[j] = (nl, nh);
                        changed = true;
                        // The row's range changed with it: recompute next pass.
                    }
                }
            }
            if !changed {
                return Some(true);
            }
        }
        Some(true)
    }

    /// Whether `λ` satisfies every row (`None` past `i128`).
    fn holds(&self, lambda: &[i128]) -> Option<bool> {
        for (i, row) in self.a.iter().enumerate() {
            let mut v = 0i128;
            for (c, l) in row.iter().zip(lambda) {
                v = v.checked_add(c.checked_mul(*l)?)?;
            }
            if v < self.lo[i] || v > self.hi[i] {
                return Some(false);
            }
        }
        Some(true)
    }

    fn branch(
        &self,
        mut b: Vec<(i128, i128)>,
        nodes: &mut u64,
        max: u64,
        deadline: std::time::Instant,
    ) -> Branch {
        *nodes += 1;
        if *nodes > max || (*nodes % CLOCK_EVERY == 0 && symalias_solver::clock::past(deadline)) {
            return Branch::Stop;
        }
        match self.propagate(&mut b) {
            None => return Branch::Stop,
            Some(false) => return Branch::Empty,
            Some(true) => {}
        }
        let Some((j, _)) = b
            .iter()
            .enumerate()
            .filter(|(_, (l, h))| l < h)
            .min_by_key(|(_, (l, h))| h - l)
        else {
            // Every λ fixed: checked row by row here (the propagation may
            // have stopped on its pass bound).
            let lambda: Vec<i128> = b.iter().map(|p| p.0).collect();
            return match self.holds(&lambda) {
                Some(true) => Branch::Found(lambda),
                Some(false) => Branch::Empty,
                None => Branch::Stop,
            };
        };
        let (l, h) = b[j];
        let mut stopped = false;
        let mut v = l;
        while v <= h {
            let mut next = b.clone();
            next[j] = (v, v);
            match self.branch(next, nodes, max, deadline) {
                Branch::Found(x) => return Branch::Found(x),
                Branch::Stop => {
                    stopped = true;
                    break;
                }
                Branch::Empty => {}
            }
            v += 1;
        }
        if stopped {
            Branch::Stop
        } else {
            Branch::Empty
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(coef: i128, ub: i128) -> Term {
        Term { coef, ub }
    }

    fn dot(a: &[i128], b: &[Term]) -> i128 {
        a.iter().zip(b).map(|(x, t)| x * t.coef).sum()
    }

    /// The system of numpy's documented hard pair (int8; `pair.rs`'s terms:
    /// the first view's indices, then the second's reversed).
    fn numpys_system() -> ([Term; 5], i128) {
        let terms = [36674, 61119, 85569, 12223, 12224].map(|c| t(c, 1048));
        (terms, 64023025 + 1048 * (12223 + 12224))
    }

    #[test]
    fn the_point_solves_and_the_basis_is_in_the_kernel() {
        let (terms, rhs) = numpys_system();
        let Some(Lattice::Solutions { x0, basis }) = reformulate(&terms, rhs) else {
            panic!()
        };
        assert_eq!(dot(&x0, &terms), rhs);
        assert_eq!(basis.len(), 4);
        for b in &basis {
            assert_eq!(dot(b, &terms), 0);
        }
        // Reduced: the hidden structure shows as short vectors (three of
        // the four have entries of at most 3, as -36674 - 61119 + 85569 +
        // 12224 = 0), and none is long against the box.
        let short = basis
            .iter()
            .filter(|b| b.iter().all(|v| v.abs() <= 3))
            .count();
        assert_eq!(short, 3, "{basis:?}");
        assert!(
            basis.iter().flatten().all(|v| v.abs() < 5 * 1048),
            "{basis:?}"
        );
    }

    #[test]
    fn no_solution_when_the_gcd_does_not_divide() {
        assert_eq!(reformulate(&[t(6, 9), t(10, 9)], 7), Some(Lattice::Empty));
        assert_eq!(reformulate(&[t(0, 9)], 7), Some(Lattice::Empty));
    }

    #[test]
    fn one_term_is_one_point() {
        assert_eq!(
            reformulate(&[t(4, 9)], 12),
            Some(Lattice::Solutions {
                x0: vec![3],
                basis: vec![]
            })
        );
    }

    #[test]
    fn the_basis_spans_the_whole_kernel() {
        // 2x + 3y + 5z = 0 has (3, -2, 0), (5, 0, -2), (0, 5, -3), (1, 1, -1)
        // ...: each is an integer combination of the basis found.
        let terms = [t(2, 9), t(3, 9), t(5, 9)];
        let Some(Lattice::Solutions { basis, .. }) = reformulate(&terms, 0) else {
            panic!()
        };
        assert_eq!(basis.len(), 2);
        let det = |a: &[i128], b: &[i128], c: &[i128]| {
            a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0])
        };
        // A basis of the kernel of (2, 3, 5) has cross product ±(2, 3, 5):
        // the lattice's determinant, so no sublattice.
        let (a, b) = (&basis[0], &basis[1]);
        let cross = [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ];
        assert!(cross == [2, 3, 5] || cross == [-2, -3, -5], "{cross:?}");
        assert_eq!(det(a, b, &[2, 3, 5]).abs(), 38);
    }

    /// A small deterministic generator (xorshift), for the property below.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Every point of the box, by enumeration: does one solve the system?
    fn brute(terms: &[Term], rhs: i128) -> bool {
        let mut x = vec![0i128; terms.len()];
        loop {
            if dot(&x, terms) == rhs {
                return true;
            }
            let mut k = 0;
            while k < x.len() && x[k] == terms[k].ub {
                x[k] = 0;
                k += 1;
            }
            if k == x.len() {
                return false;
            }
            x[k] += 1;
        }
    }

    #[test]
    fn the_box_search_agrees_with_enumeration() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let far = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let (mut found, mut empty) = (0, 0);
        for _ in 0..4000 {
            let n = 1 + rng.below(4) as usize;
            // Strides `M·p + s` now and then (the hard shape), else random.
            let modulus = 20 + rng.below(200) as i128;
            let terms: Vec<Term> = (0..n)
                .map(|_| {
                    let coef = if rng.below(2) == 0 {
                        modulus * (1 + rng.below(5) as i128) + rng.below(4) as i128
                    } else {
                        1 + rng.below(300) as i128
                    };
                    t(coef, rng.below(9) as i128)
                })
                .collect();
            // Half planted (the sum at a random point), half anywhere in range.
            let rhs = if rng.below(2) == 0 {
                terms
                    .iter()
                    .map(|t| t.coef * rng.below(t.ub as u64 + 1) as i128)
                    .sum()
            } else {
                let top: i128 = terms.iter().map(|t| t.coef * t.ub).sum();
                rng.below(top as u64 + 1) as i128
            };
            let truth = brute(&terms, rhs);
            let got = match reformulate(&terms, rhs).unwrap() {
                Lattice::Empty => false,
                Lattice::Solutions { x0, basis } => {
                    let ub: Vec<i128> = terms.iter().map(|t| t.ub).collect();
                    match search_box(&x0, &basis, &ub, 1 << 20, far) {
                        BoxSearch::Found(x) => {
                            assert_eq!(dot(&x, &terms), rhs);
                            assert!(x.iter().zip(&ub).all(|(v, u)| (0..=*u).contains(v)));
                            true
                        }
                        BoxSearch::Empty => false,
                        BoxSearch::Undecided => panic!("undecided: {terms:?} = {rhs}"),
                    }
                }
            };
            assert_eq!(got, truth, "{terms:?} = {rhs}");
            if truth {
                found += 1;
            } else {
                empty += 1;
            }
        }
        // Both answers are exercised.
        assert!(found > 500 && empty > 500, "{found} / {empty}");
    }

    #[test]
    fn numpys_instance_has_no_point_in_the_box() {
        let (terms, rhs) = numpys_system();
        let Some(Lattice::Solutions { x0, basis }) = reformulate(&terms, rhs) else {
            panic!()
        };
        let far = std::time::Instant::now() + std::time::Duration::from_secs(60);
        assert_eq!(
            search_box(&x0, &basis, &[1048; 5], 1 << 16, far),
            BoxSearch::Empty
        );
    }

    #[test]
    fn the_adjugate_is_checked() {
        let a = vec![vec![2, 1, 0], vec![1, 3, 1], vec![0, 1, 4]];
        let (d, r) = adjugate(&a).unwrap();
        // A·R = d·I, column by column.
        for (j, unit) in [[1, 0, 0], [0, 1, 0], [0, 0, 1]].iter().enumerate() {
            let column: Vec<i128> = a
                .iter()
                .map(|row| row.iter().zip(&r).map(|(x, rr)| x * rr[j]).sum())
                .collect();
            assert_eq!(column, unit.map(|u| u * d));
        }
        assert_eq!(d.abs(), 18);
        assert_eq!(adjugate(&[vec![1, 2], vec![2, 4]]), None);
    }
}
