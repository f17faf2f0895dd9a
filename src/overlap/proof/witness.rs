//! Overlap that persists: a partner element inside a contiguous view.
//!
//! A view whose footprint is one contiguous run for every allowed shape
//! (after dropping stride-0 and size-1 dims, each stride is the previous
//! stride times its size, the innermost stride being 1) covers every address
//! between its first and its last. Another view then overlaps it whenever
//! both are non-empty and the other's first (or last) address lies in that
//! range — conditions on sizes and extents only, with no index that has to
//! be guessed. They are proved conjunct by conjunct: the expanded difference
//! by intervals, else z3.

use super::Prover;
use crate::expr::{BinOp, ExprId, SymbolId};
use crate::simplify::poly::expand;
use hashbrown::HashMap;

impl Prover<'_, '_> {
    /// `true` when view `t`'s footprint is one contiguous run whenever the
    /// view is non-empty, for all shapes (decided on the expressions as
    /// written: equal strides must be equal expressions).
    fn is_contiguous(&mut self, t: usize) -> bool {
        let mut dims: Vec<(ExprId, ExprId)> = Vec::new();
        for &(n, s) in &self.fps[t].dims {
            if self.pool.as_int(s) == Some(0) || self.pool.as_int(n) == Some(1) {
                continue;
            }
            dims.push((n, s));
        }
        // Innermost first: stride 1, then each stride = previous * size.
        let Some(k) = dims.iter().position(|d| self.pool.as_int(d.1) == Some(1)) else {
            return dims.is_empty();
        };
        let mut order = vec![dims.remove(k)];
        while !dims.is_empty() {
            let (n, s) = *order.last().expect("not empty");
            let next = self.pool.mul(&[n, s]);
            let next = expand(self.pool, next);
            let Some(k) = dims
                .iter()
                .position(|d| d.1 == next || expand(self.pool, d.1) == next)
            else {
                return false;
            };
            order.push(dims.remove(k));
        }
        true
    }

    /// `true` when every expression of `exprs` is `>= 0` for all shapes.
    fn all_nonnegative(&mut self, exprs: &[ExprId]) -> bool {
        let mut open = Vec::new();
        for &e in exprs {
            if !self.time_left() {
                return false;
            }
            let x = expand(self.pool, e);
            if self.env.interval(self.pool, x).lo.is_some_and(|l| l >= 0) {
                continue;
            }
            let zero = self.pool.int(0);
            open.push(self.pool.binary(BinOp::Ge, x, zero));
        }
        if open.is_empty() {
            return true;
        }
        let cond = self.pool.and(&open);
        self.always(cond)
    }

    /// The overlap of `a` and `b` persists because both are contiguous runs
    /// whose extents meet, or one of them is a contiguous run holding the
    /// other's first or last address.
    pub(super) fn run_holds_partner(&mut self, a: usize, b: usize) -> bool {
        if !self.time_left() {
            return false;
        }
        let one = self.pool.int(-1);
        let mut sizes: Vec<ExprId> = Vec::new();
        for t in [a, b] {
            for &n in &self.tensors[t].sizes {
                sizes.push(self.pool.add(&[n, one]));
            }
        }
        let contiguous = [self.is_contiguous(a), self.is_contiguous(b)];
        if contiguous == [true, true] {
            // Two runs meet exactly when their extents intersect.
            let mut conds = sizes.clone();
            conds.push(self.pool.sub(self.fps[b].end, self.fps[a].start));
            conds.push(self.pool.sub(self.fps[a].end, self.fps[b].start));
            if self.all_nonnegative(&conds) {
                return true;
            }
        }
        for (k, (run, other)) in [(a, b), (b, a)].into_iter().enumerate() {
            if !contiguous[k] {
                continue;
            }
            let (rs, re) = (self.fps[run].start, self.fps[run].end);
            for p in [self.fps[other].start, self.fps[other].end] {
                let mut conds = sizes.clone();
                conds.push(self.pool.sub(p, rs));
                conds.push(self.pool.sub(re, p));
                if self.all_nonnegative(&conds) {
                    return true;
                }
            }
        }
        false
    }
}

/// Most index combinations tried per witness.
const MAX_COMBOS: usize = 512;
/// Most generalised witnesses sent to z3 per pair.
const MAX_CHECKS: usize = 3;
/// Allowed shapes a generalised witness must fit before z3 is asked.
const SAMPLES: usize = 24;

/// A hint witness: indices into both views and the byte inside each element.
pub(super) type HintWitness = (Vec<i64>, Vec<i64>, i64, i64);

impl Prover<'_, '_> {
    /// The hints and up to `count - 1` other allowed assignments of
    /// `syms` (deterministic).
    fn allowed_samples(&self, syms: &[SymbolId], count: usize) -> Vec<HashMap<SymbolId, i64>> {
        let hints: HashMap<SymbolId, i64> = syms
            .iter()
            .filter_map(|&s| self.env.hint(s).map(|h| (s, h)))
            .collect();
        let mut out = vec![hints.clone()];
        let mut next = super::xorshift(0x2545_F491_4F6C_DD1D);
        for _ in 0..count * 4 {
            if out.len() >= count {
                break;
            }
            let cx: Vec<(SymbolId, i64)> = syms
                .iter()
                .map(|&s| {
                    let hint = hints.get(&s).copied().unwrap_or(0);
                    let r = self.env.range(s);
                    let lo = r.lo.map_or(hint.saturating_sub(16), super::clamp64);
                    let hi =
                        r.hi.map_or(
                            hint.saturating_mul(3).max(lo.saturating_add(16)),
                            super::clamp64,
                        )
                        .max(lo);
                    (s, super::pick(lo, hi, next()))
                })
                .collect();
            if self.allowed(&cx) {
                out.push(cx.into_iter().collect());
            }
        }
        out
    }

    /// The address (in the case's unit) of view `t` at index expressions.
    fn address_at(&mut self, t: usize, idx: &[ExprId], byte: i64) -> ExprId {
        let scale = if self.bytes_mode {
            self.tensors[t].itemsize
        } else {
            1
        };
        let mut parts = vec![self.fps[t].start];
        let strides = self.tensors[t].strides.clone();
        let k = self.pool.int(scale);
        for (&i, &s) in idx.iter().zip(&strides) {
            parts.push(self.pool.mul(&[i, s, k]));
        }
        if self.bytes_mode {
            parts.push(self.pool.int(byte));
        }
        self.pool.add(&parts)
    }

    /// The hint witness generalised per index: each index stays constant,
    /// keeps its distance from the end of its dim, or moves with a symbol
    /// (`s + c`). Combinations that stay in range and keep meeting on
    /// sampled allowed shapes are checked for all shapes by z3.
    pub(super) fn generalised_witness(&mut self, a: usize, b: usize, w: &HintWitness) -> bool {
        if !self.time_left() {
            return false;
        }
        let mut syms: Vec<SymbolId> = Vec::new();
        for t in [a, b] {
            let t = &self.tensors[t];
            for &e in t.sizes.iter().chain(&t.strides).chain([&t.offset]) {
                for s in self.pool.symbols_of(e) {
                    if !syms.contains(&s) {
                        syms.push(s);
                    }
                }
            }
        }
        let samples = self.allowed_samples(&syms, SAMPLES);
        let at = |p: &Self, e: ExprId, m: &HashMap<SymbolId, i64>| {
            p.pool
                .eval_int(e, &|s| m.get(&s).copied().or_else(|| p.env.hint(s)))
                .ok()
        };
        // Candidates per index position (dims of `a`, then of `b`).
        let mut cands: Vec<Vec<ExprId>> = Vec::new();
        for (t, idx) in [(a, &w.0), (b, &w.1)] {
            for (d, &k) in idx.iter().enumerate() {
                let n = self.tensors[t].sizes[d];
                let n_hint = at(self, n, &samples[0]).unwrap_or(0);
                let mut c = vec![self.pool.int(k)];
                let from_end = self.pool.int(k - n_hint);
                c.push(self.pool.add(&[n, from_end]));
                for &s in &syms {
                    let shift = self.pool.int(k - self.env.hint(s).unwrap_or(0));
                    let sym = self.pool.sym(s);
                    c.push(self.pool.add(&[sym, shift]));
                }
                c.sort_unstable();
                c.dedup();
                c.retain(|&e| {
                    samples
                        .iter()
                        .all(|m| match (at(self, e, m), at(self, n, m)) {
                            (Some(i), Some(n)) => 0 <= i && i < n,
                            _ => false,
                        })
                });
                if c.is_empty() {
                    return false;
                }
                cands.push(c);
            }
        }
        let split = w.0.len();
        let mut pick = vec![0usize; cands.len()];
        let mut checks = 0;
        for _ in 0..MAX_COMBOS {
            if !self.time_left() {
                return false;
            }
            let idx: Vec<ExprId> = pick.iter().zip(&cands).map(|(&k, c)| c[k]).collect();
            let xa = self.address_at(a, &idx[..split], w.2);
            let xb = self.address_at(b, &idx[split..], w.3);
            let meets = samples.iter().all(
                |m| matches!((at(self, xa, m), at(self, xb, m)), (Some(x), Some(y)) if x == y),
            );
            if meets {
                let mut conds = vec![self.pool.sub(xa, xb), self.pool.sub(xb, xa)];
                let one = self.pool.int(-1);
                for (t, range) in [(a, 0..split), (b, split..idx.len())] {
                    for (d, k) in range.enumerate() {
                        let n = self.tensors[t].sizes[d];
                        conds.push(idx[k]);
                        let last = self.pool.add(&[n, one]);
                        conds.push(self.pool.sub(last, idx[k]));
                    }
                }
                if self.all_nonnegative(&conds) {
                    return true;
                }
                checks += 1;
                if checks >= MAX_CHECKS {
                    return false;
                }
            }
            // Next combination (odometer).
            let mut k = 0;
            loop {
                if k == pick.len() {
                    return false;
                }
                pick[k] += 1;
                if pick[k] < cands[k].len() {
                    break;
                }
                pick[k] = 0;
                k += 1;
            }
        }
        false
    }
}
