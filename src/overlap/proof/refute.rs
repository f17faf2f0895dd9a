//! Refutation: allowed assignments (random samples within the ranges, local
//! boundary samples, models from z3) at which the exact classification
//! differs from the hints' — a counterexample, checked concretely.

use super::*;

/// `true` when the values of `look` are inside every declared range and
/// satisfy every assumption.
pub(super) fn allowed_at(
    pool: &ExprPool,
    env: &Env,
    look: &dyn Fn(SymbolId) -> Option<i64>,
) -> bool {
    env.symbols().iter().all(|&s| {
        look(s).is_some_and(|v| env.info(s).is_some_and(|i| i.declared.contains(v as i128)))
    }) && env
        .assumptions()
        .iter()
        .all(|&a| pool.eval(a, look).ok().and_then(|v| v.as_bool()) == Some(true))
}

/// The range samples draw a symbol from: its declared range, an unbounded
/// side replaced by 16 below the hint / 4 times the hint.
pub(super) fn sample_range(env: &Env, s: SymbolId) -> (i64, i64) {
    let hint = env.hint(s).unwrap_or(0);
    let r = env.range(s);
    let lo = r.lo.map_or(hint.saturating_sub(16), super::clamp64);
    let hi =
        r.hi.map_or(
            hint.saturating_mul(4).max(lo.saturating_add(16)),
            super::clamp64,
        )
        .max(lo);
    (lo, hi)
}

/// The `k`-th sample of `count` for the symbols `syms`: every symbol at its
/// lower bound, one above it, at its upper bound, then uniform values from
/// `next`.
pub(super) fn sample_at(
    env: &Env,
    syms: &[SymbolId],
    k: usize,
    next: &mut impl FnMut() -> u64,
) -> Vec<(SymbolId, i64)> {
    syms.iter()
        .map(|&s| {
            let (lo, hi) = sample_range(env, s);
            let v = match k {
                0 => lo,
                1 => lo.saturating_add(1).min(hi),
                2 => hi,
                _ => super::pick(lo, hi, next()),
            };
            (s, v)
        })
        .collect()
}

impl Prover<'_, '_> {
    pub(super) fn lookup<'e>(
        env: &'e Env,
        cx: &[(SymbolId, i64)],
    ) -> impl Fn(SymbolId) -> Option<i64> + 'e {
        let map: HashMap<SymbolId, i64> = cx.iter().copied().collect();
        move |s| map.get(&s).copied().or_else(|| env.hint(s))
    }

    /// The exact classification at an assignment, if the assignment is allowed
    /// (ranges, assumptions) and gives valid views.
    pub(super) fn classify_at(&self, cx: &[(SymbolId, i64)]) -> Option<Vec<usize>> {
        self.analyze_at(cx).map(|a| a.overlapping)
    }

    /// `true` when the assignment (others at their hints) is inside every
    /// declared range and satisfies every assumption.
    pub(super) fn allowed(&self, cx: &[(SymbolId, i64)]) -> bool {
        allowed_at(self.pool, self.env, &Self::lookup(self.env, cx))
    }

    /// The exact group answer at an assignment, if it is allowed.
    pub(super) fn analyze_at(&self, cx: &[(SymbolId, i64)]) -> Option<GroupAnswer> {
        if !self.allowed(cx) {
            return None;
        }
        let look = Self::lookup(self.env, cx);
        let views = self
            .tensors
            .iter()
            .map(|t| t.at(self.pool, &look, "a sample").ok())
            .collect::<Option<Vec<View>>>()?;
        Some(analyze_views(&views, self.opts.budget))
    }

    /// Records `cx` as a counterexample if the classification really differs there.
    pub(super) fn try_counterexample(&mut self, cx: Vec<(SymbolId, i64)>) -> bool {
        if !self.differs_at(&cx) {
            return false;
        }
        self.counterexample = Some(self.shrink(cx));
        true
    }

    fn differs_at(&self, cx: &[(SymbolId, i64)]) -> bool {
        self.classify_at(cx).is_some_and(|set| set != self.hint_set)
    }

    /// Moves each symbol of a counterexample towards its lower bound while
    /// the classification still differs there. A model may pick large
    /// values (`s2 = 30614`); a small counterexample is one a reader can
    /// follow and a test can enumerate. Tries the first `SHRINK_STEPS`
    /// values above the bound, then halvings of the distance to it: at most
    /// `2 * SHRINK_STEPS` exact classifications per symbol, and none once
    /// the case's deadline has passed.
    fn shrink(&self, mut cx: Vec<(SymbolId, i64)>) -> Vec<(SymbolId, i64)> {
        const SHRINK_STEPS: u32 = 16;
        for k in 0..cx.len() {
            if !self.time_left() {
                break; // a large group's model: keep what is shrunk so far
            }
            let (s, now) = cx[k];
            let Some(lo) = self
                .env
                .info(s)
                .and_then(|i| i.declared.lo)
                .and_then(|l| i64::try_from(l).ok())
            else {
                continue;
            };
            let near = (0..i64::from(SHRINK_STEPS)).map(|d| lo.saturating_add(d));
            let halves = (1..=SHRINK_STEPS)
                .rev()
                .map(|j| lo.saturating_add(now.saturating_sub(lo) >> j));
            for v in near.chain(halves).filter(|&v| v < now) {
                cx[k].1 = v;
                if self.differs_at(&cx) {
                    break;
                }
                cx[k].1 = now;
            }
        }
        cx
    }

    /// Concrete samples of allowed shapes; a differing classification refutes.
    pub(super) fn sample_refuter(&mut self) {
        self.samples(self.opts.samples);
    }

    pub(super) fn sample_range(&self, s: SymbolId) -> (i64, i64) {
        sample_range(self.env, s)
    }

    /// Samples that move only the symbols of `e` (each to its lower bound,
    /// one above it, its upper bound; the others keep their hints): a
    /// counterexample that changes little, found without z3.
    pub(super) fn local_samples(&mut self, e: ExprId) -> bool {
        if !self.time_left() {
            return false;
        }
        let syms = self.pool.symbols_of(e);
        for k in 0..3 {
            let cx: Vec<(SymbolId, i64)> = syms
                .iter()
                .map(|&s| {
                    let (lo, hi) = self.sample_range(s);
                    (s, [lo, lo.saturating_add(1).min(hi), hi][k])
                })
                .collect();
            if self.try_counterexample(cx) {
                return true;
            }
        }
        false
    }

    /// Tries the first `count` samples (the boundaries first: every symbol
    /// at its lower bound, one above it, at its upper bound; then uniform
    /// values); the first at which the classification differs is the
    /// counterexample.
    pub(super) fn samples(&mut self, count: usize) {
        let syms: Vec<SymbolId> = self.env.symbols().to_vec();
        if syms.is_empty() {
            return;
        }
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for &s in &syms {
            seed = seed.rotate_left(7)
                ^ (self.env.hint(s).unwrap_or(0) as u64).wrapping_mul(0x100_0000_01B3);
        }
        let mut next = xorshift(seed);
        for k in 0..count {
            if !self.time_left() {
                return;
            }
            let cx = sample_at(self.env, &syms, k, &mut next);
            if let Some(set) = self.classify_at(&cx) {
                if set != self.hint_set {
                    self.counterexample = Some(cx);
                    return;
                }
            }
        }
    }
}
