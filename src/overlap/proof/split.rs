//! The stride split: disjointness of two views through `g*Q + R`.
//!
//! The hard z3 questions multiply an index by a symbolic stride
//! (`i*S + c1 = j*S + c2`). Pick a symbolic stride `g` the two views share,
//! and write every address of a view as `g*Q + R`: `Q` collects the dims whose
//! stride is a multiple of `g` (and the `g`-multiple part of the offset), `R`
//! the rest. Once `0 <= R <= g - 1` holds for all allowed shapes (for every
//! element of each view), two equal addresses need `Q_a = Q_b` and
//! `R_a = R_b`, because `g*(Q_a - Q_b) = R_b - R_a` lies strictly between
//! `-g` and `g`. So the pair is disjoint when the `R` ranges (or the `Q`
//! ranges) are separated for all shapes — intervals of the expanded
//! differences, terms cancelled — or else when z3 finds the split system,
//! which no longer multiplies indices by `g`, unsatisfiable.
//!
//! Every side condition is proved (intervals, else z3) before it is used; a
//! condition that cannot be proved abandons the split (unknown, never a
//! wrong "disjoint").

use super::{Proof, Prover};
use crate::expr::{ExprId, Node};
use crate::simplify::poly::{expand, primitive_part};
use symalias_solver::{Cmp, Term};

/// At most this many candidate strides `g` are tried per pair.
const MAX_CANDIDATES: usize = 4;

/// One view written as `g*Q + R`.
struct Split {
    /// `Q`'s constant part (the offset's multiple of `g`).
    q0: ExprId,
    /// Dims of `Q`: (size, coefficient of `g`).
    q_dims: Vec<(ExprId, ExprId)>,
    /// `R`'s constant part (the rest of the offset).
    r0: ExprId,
    /// Dims of `R`: (size, stride).
    r_dims: Vec<(ExprId, ExprId)>,
}

impl Prover<'_, '_> {
    /// `Some(c)` when `t = c * g` as written (after expansion of `t`).
    fn coefficient(&mut self, t: ExprId, g: ExprId) -> Option<ExprId> {
        if t == g {
            return Some(self.pool.int(1));
        }
        let Node::Mul(xs) = self.pool.node(t).clone() else {
            return None;
        };
        let gs: Vec<ExprId> = match self.pool.node(g) {
            Node::Mul(gs) => gs.to_vec(),
            _ => vec![g],
        };
        let mut rest = xs.to_vec();
        for f in gs {
            let k = rest.iter().position(|&x| x == f)?;
            rest.remove(k);
        }
        Some(self.pool.mul(&rest))
    }

    /// `g = x + c` with `x` a symbol and `c` free of it (or `g = x`):
    /// `(x, c)`. Such a
    /// `g` divides polynomials in `x` exactly as a number would
    /// (synthetic division), so that `2*s0 + 2` is `2*g` for `g = s0 + 1`
    /// (issue 60's non-linear family), which no term of it shows.
    fn monic_linear(&mut self, g: ExprId) -> Option<(ExprId, ExprId)> {
        if matches!(self.pool.node(g), Node::Sym(_)) {
            // A symbol: `x + 0` (its powers divide too: `s0*s0` is `s0*g`).
            let zero = self.pool.int(0);
            return Some((g, zero));
        }
        let Node::Add(xs) = self.pool.node(g).clone() else {
            return None;
        };
        for &t in xs.iter() {
            let Node::Sym(s) = *self.pool.node(t) else {
                continue;
            };
            let rest: Vec<ExprId> = xs.iter().copied().filter(|&u| u != t).collect();
            if rest.iter().all(|&u| !self.pool.symbols_of(u).contains(&s)) {
                let c = self.pool.add(&rest);
                return Some((t, c));
            }
        }
        None
    }

    /// The degree of `x` in the monomial `t`, and the rest of `t`.
    fn degree_in(&mut self, t: ExprId, x: ExprId) -> (u32, ExprId) {
        let factors = match self.pool.node(t) {
            Node::Mul(fs) => fs.to_vec(),
            _ => vec![t],
        };
        let (mut k, mut rest) = (0u32, Vec::new());
        for f in factors {
            match *self.pool.node(f) {
                _ if f == x => k += 1,
                Node::Pow(b, e) if b == x => k += e,
                _ => rest.push(f),
            }
        }
        (k, self.pool.mul(&rest))
    }

    /// `e = g*Q + R` for `g = x + c` by synthetic division in `x`: `R` is
    /// free of `x`. `None` past a degree of 8 (not a layout's).
    fn divide_linear(&mut self, e: ExprId, x: ExprId, c: ExprId) -> Option<(ExprId, ExprId)> {
        let e = expand(self.pool, e);
        let terms = match self.pool.node(e) {
            Node::Add(xs) => xs.to_vec(),
            _ => vec![e],
        };
        let mut by_degree: Vec<Vec<ExprId>> = Vec::new();
        for t in terms {
            let (k, rest) = self.degree_in(t, x);
            if k > 8 {
                return None;
            }
            if by_degree.len() <= k as usize {
                by_degree.resize(k as usize + 1, Vec::new());
            }
            by_degree[k as usize].push(rest);
        }
        let a: Vec<ExprId> = by_degree.iter().map(|ts| self.pool.add(ts)).collect();
        let n = a.len() - 1;
        if n == 0 {
            let zero = self.pool.int(0);
            return Some((zero, e));
        }
        // q[n-1] = a[n]; q[k-1] = a[k] - c*q[k]; R = a[0] - c*q[0].
        let mut q = vec![a[n]; n];
        for k in (1..n).rev() {
            let cq = self.pool.mul(&[c, q[k]]);
            q[k - 1] = self.pool.sub(a[k], cq);
        }
        let cq0 = self.pool.mul(&[c, q[0]]);
        let r = self.pool.sub(a[0], cq0);
        let parts: Vec<ExprId> = (0..n)
            .map(|k| {
                let xk = self.pool.pow(x, k as u32);
                self.pool.mul(&[q[k], xk])
            })
            .collect();
        let quotient = self.pool.add(&parts);
        Some((expand(self.pool, quotient), expand(self.pool, r)))
    }

    /// `e = g*A + B` term by term (the terms of the expanded `e` that are
    /// multiples of `g` go to `A`); for `g = x + c`, by division in `x`.
    fn split_expr(&mut self, e: ExprId, g: ExprId) -> (ExprId, ExprId) {
        if let Some((x, c)) = self.monic_linear(g) {
            if let Some(qr) = self.divide_linear(e, x, c) {
                return qr;
            }
        }
        let e = expand(self.pool, e);
        let terms = match self.pool.node(e) {
            Node::Add(xs) => xs.to_vec(),
            _ => vec![e],
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for t in terms {
            match self.coefficient(t, g) {
                Some(c) => a.push(c),
                None => b.push(t),
            }
        }
        (self.pool.add(&a), self.pool.add(&b))
    }

    fn split_view(&mut self, t: usize, g: ExprId) -> Split {
        let fp_start = self.fps[t].start;
        let dims = self.fps[t].dims.clone();
        let (q0, r0) = self.split_expr(fp_start, g);
        let (mut q_dims, mut r_dims) = (Vec::new(), Vec::new());
        let linear = self.monic_linear(g);
        for (n, s) in dims {
            let s_exp = expand(self.pool, s);
            let exact = match linear {
                Some((x, c)) => self
                    .divide_linear(s_exp, x, c)
                    .filter(|&(_, r)| self.pool.as_int(r) == Some(0))
                    .map(|(q, _)| q),
                None => self.coefficient(s_exp, g),
            };
            match exact {
                Some(c) => q_dims.push((n, c)),
                None => r_dims.push((n, s)),
            }
        }
        Split {
            q0,
            q_dims,
            r0,
            r_dims,
        }
    }

    /// `base + Σ (n - 1) * c` over `dims`: the largest value of a part.
    fn part_max(&mut self, base: ExprId, dims: &[(ExprId, ExprId)]) -> ExprId {
        let m1 = self.pool.int(-1);
        let mut parts = vec![base];
        for &(n, c) in dims {
            let n1 = self.pool.add(&[n, m1]);
            parts.push(self.pool.mul(&[n1, c]));
        }
        let sum = self.pool.add(&parts);
        expand(self.pool, sum)
    }

    /// `hi < lo` for all shapes, i.e. `lo - hi >= 1` (expanded, by
    /// intervals, else z3).
    fn below(&mut self, hi: ExprId, lo: ExprId) -> bool {
        let gap = self.pool.sub(lo, hi);
        let gap = expand(self.pool, gap);
        if self.env.interval(self.pool, gap).lo.is_some_and(|l| l >= 1) {
            return true;
        }
        let zero = self.pool.int(0);
        let cond = self.pool.binary(crate::expr::BinOp::Gt, gap, zero);
        self.always(cond)
    }

    /// The range `[lo, hi]` of a view's `R`, once `0 <= R <= g - 1` is
    /// proved for all shapes. The term-by-term split can leave `R` negative
    /// (`2*s0**2 - s0` gives `Q = 2`, `R = -s0`); then one `g` is borrowed
    /// from `Q` (`Q = 1`, `R = s0**2 - s0`), which keeps `g*Q + R`.
    fn remainder_in(
        &mut self,
        s: &mut Split,
        g: ExprId,
        minus_one: ExprId,
    ) -> Option<(ExprId, ExprId)> {
        for borrow in [false, true] {
            if borrow {
                s.r0 = self.pool.add(&[s.r0, g]);
                s.q0 = self.pool.add(&[s.q0, minus_one]);
            }
            let r_hi = self.part_max(s.r0, &s.r_dims);
            let r_lo = expand(self.pool, s.r0);
            if !self.below(minus_one, r_lo) {
                continue; // R may be negative: borrow (once)
            }
            return self.below(r_hi, g).then_some((r_lo, r_hi));
        }
        None
    }

    /// Candidate strides `g`: the symbolic strides of both views, as written
    /// and without their constant coefficients, those both views use first.
    fn split_candidates(&mut self, a: usize, b: usize) -> Vec<ExprId> {
        // The stride without its constant coefficient.
        let core = |p: &Self, s: ExprId| match p.pool.node(s) {
            Node::Mul(xs) if p.pool.as_int(xs[0]).is_some() => xs[1..].to_vec(),
            _ => vec![s],
        };
        let mut of: [Vec<ExprId>; 2] = [Vec::new(), Vec::new()];
        for (k, t) in [a, b].into_iter().enumerate() {
            for d in 0..self.fps[t].dims.len() {
                let s = self.fps[t].dims[d].1;
                if self.pool.as_int(s).is_some() {
                    continue;
                }
                let rest = core(self, s);
                let c = self.pool.mul(&rest);
                // `s0 + 1` of `2*s0 + 2`: the modulus a view of every other
                // row shares with a view of every row.
                let p = primitive_part(self.pool, s);
                for g in [s, c, p] {
                    if !of[k].contains(&g) {
                        of[k].push(g);
                    }
                }
            }
        }
        let mut out: Vec<ExprId> = of[0]
            .iter()
            .filter(|g| of[1].contains(g))
            .copied()
            .collect();
        for g in of[0].iter().chain(&of[1]) {
            if !out.contains(g) {
                out.push(*g);
            }
        }
        out.truncate(MAX_CANDIDATES);
        out
    }

    /// Disjointness of `a` and `b` through the stride split (see the module
    /// docs); `Unknown` when no candidate stride settles it.
    pub(super) fn split_disjoint(&mut self, a: usize, b: usize) -> Proof {
        if !self.time_left() {
            return Proof::Unknown;
        }
        for g in self.split_candidates(a, b) {
            let mut sa = self.split_view(a, g);
            let mut sb = self.split_view(b, g);
            // Both views: 0 <= R <= g - 1 for all shapes.
            let minus_one = self.pool.int(-1);
            let mut fits = true;
            let mut ranges = Vec::new();
            for s in [&mut sa, &mut sb] {
                let Some((r_lo, r_hi)) = self.remainder_in(s, g, minus_one) else {
                    fits = false;
                    break;
                };
                let q_hi = self.part_max(s.q0, &s.q_dims);
                ranges.push((r_lo, r_hi, s.q0, q_hi));
            }
            if !fits {
                continue;
            }
            let (ra_lo, ra_hi, qa_lo, qa_hi) = ranges[0];
            let (rb_lo, rb_hi, qb_lo, qb_hi) = ranges[1];
            if self.below(ra_hi, rb_lo)
                || self.below(rb_hi, ra_lo)
                || self.below(qa_hi, qb_lo)
                || self.below(qb_hi, qa_lo)
            {
                return Proof::Proved;
            }
            if let Some(p) = self.split_system(&sa, &sb) {
                return p;
            }
        }
        Proof::Unknown
    }

    /// z3 on the split system: indices in range, `Q_a = Q_b`, `R_a = R_b`.
    fn split_system(&mut self, sa: &Split, sb: &Split) -> Option<Proof> {
        if !self.can_ask() {
            return None;
        }
        let mut enc = self.enc.clone();
        let mut side = Vec::new();
        let mut parts: Vec<(Term, Term)> = Vec::new();
        for (k, s) in [sa, sb].into_iter().enumerate() {
            let mut q = vec![enc.term(self.pool, s.q0).ok()?];
            let mut r = vec![enc.term(self.pool, s.r0).ok()?];
            for (which, dims) in [(0, &s.q_dims), (1, &s.r_dims)] {
                for (d, &(n, c)) in dims.iter().enumerate() {
                    let v = Term::Var(enc.fresh(&format!("i{k}_{which}_{d}")));
                    side.push(v.clone().cmp(Cmp::Ge, Term::Int(0)));
                    side.push(v.clone().cmp(Cmp::Lt, enc.term(self.pool, n).ok()?));
                    let c = enc.term(self.pool, c).ok()?;
                    if which == 0 {
                        q.push(v * c);
                    } else {
                        r.push(v * c);
                    }
                }
            }
            parts.push((Term::Add(q), Term::Add(r)));
        }
        side.push(parts[0].0.clone().cmp(Cmp::Eq, parts[1].0.clone()));
        side.push(parts[0].1.clone().cmp(Cmp::Eq, parts[1].1.clone()));
        // A model of the split system is an overlap only under the proved
        // side conditions; the exact check decides.
        match self.ask_disjoint(&enc, side) {
            Proof::Unknown => None,
            settled => Some(settled),
        }
    }
}
