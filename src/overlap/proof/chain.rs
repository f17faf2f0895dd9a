//! The chain of isolated views: views whose hint extents meet no other
//! view's, ordered by start; each link `end_x < start_y` is proved by
//! expanded interval gaps, a local boundary sample, then z3, and an
//! unproved link becomes a guard (at most n − 1 guards). Short chains whose
//! links fail are retried pair by pair.

use super::*;

impl Prover<'_, '_> {
    /// The views whose extents, at the hints, meet no other view's extent,
    /// ordered by start — only views non-empty for all shapes (`start <= end`
    /// carries the order along a chain).
    pub(super) fn chain(&self) -> Vec<usize> {
        let scale = |v: &View| {
            if self.bytes_mode {
                v.itemsize as i128
            } else {
                1
            }
        };
        let extent = |v: &View| {
            let start = v.offset as i128 * scale(v);
            let mut end = start;
            for (&n, &st) in v.sizes.iter().zip(&v.strides) {
                end += (n as i128 - 1) * st as i128 * scale(v);
            }
            if self.bytes_mode {
                end += v.itemsize as i128 - 1;
            }
            (start, end)
        };
        let mut order: Vec<(i128, i128, usize)> = (0..self.views.len())
            .filter(|&i| !self.views[i].is_empty())
            .map(|i| {
                let (s, e) = extent(&self.views[i]);
                (s, e, i)
            })
            .collect();
        order.sort_unstable();
        let mut chain = Vec::new();
        let mut max_end = i128::MIN;
        for (k, &(start, end, i)) in order.iter().enumerate() {
            let isolated_before = start > max_end;
            let isolated_after = order.get(k + 1).is_none_or(|next| end < next.0);
            if isolated_before && isolated_after && self.fps[i].solid {
                chain.push(i);
            }
            max_end = max_end.max(end);
        }
        chain
    }

    /// A link of the chain: `end_x < start_y` for all allowed shapes (by
    /// intervals, else z3; a z3 model is a counterexample only if the exact
    /// classification differs there).
    pub(super) fn prove_link(&mut self, x: usize, y: usize, local_tries: &mut usize) -> Proof {
        let gap = self.pool.sub(self.fps[y].start, self.fps[x].end);
        if self.positive(gap) {
            return Proof::Proved;
        }
        // Before z3: move only the link's own symbols to their bounds.
        if self.counterexample.is_none() && *local_tries > 0 {
            *local_tries -= 1;
            if self.local_samples(gap) {
                return Proof::Refuted;
            }
        }
        if !self.can_ask() {
            return Proof::Unknown;
        }
        let mut enc = self.enc.clone();
        let (Ok(end), Ok(start)) = (
            enc.term(self.pool, self.fps[x].end),
            enc.term(self.pool, self.fps[y].start),
        ) else {
            return Proof::Unknown;
        };
        self.ask_disjoint(&enc, vec![end.cmp(Cmp::Ge, start)])
    }

    /// A short chain whose links are not all proved may still be disjoint
    /// pair by pair (the views need not stay in order): tries every pair
    /// across an unproved link. Long chains are not tried (quadratic); their
    /// unproved links become guards.
    pub(super) fn chain_pairwise(
        &mut self,
        chain: &[usize],
        broken: &[(usize, usize, Proof)],
        status: &mut HashMap<(usize, usize), Proof>,
    ) -> bool {
        if chain.len() > PAIRWISE_CHAIN || broken.iter().any(|b| b.2 == Proof::Refuted) {
            return false;
        }
        let mut segment = Vec::with_capacity(chain.len());
        let mut k = 0;
        for (i, &c) in chain.iter().enumerate() {
            if i > 0 && broken.iter().any(|b| b.1 == c) {
                k += 1;
            }
            segment.push(k);
        }
        for i in 0..chain.len() {
            for j in i + 1..chain.len() {
                if segment[i] == segment[j] {
                    continue;
                }
                let key = (chain[i].min(chain[j]), chain[i].max(chain[j]));
                let st = *status
                    .entry(key)
                    .or_insert_with(|| self.prove_disjoint(key.0, key.1));
                if st != Proof::Proved {
                    return false;
                }
            }
        }
        true
    }

    /// `start_y - end_x >= 1` by intervals, as built and once expanded (so
    /// that terms both ends share cancel).
    pub(super) fn gap_positive(&mut self, x: usize, y: usize) -> bool {
        let gap = self.pool.sub(self.fps[y].start, self.fps[x].end);
        self.positive(gap)
    }

    /// `gap >= 1` by intervals, as built and once expanded (while time is left).
    pub(super) fn positive(&mut self, gap: ExprId) -> bool {
        let time_left = self.time_left();
        positive(self.pool, self.env, gap, || time_left)
    }

    /// The guard of a link: `end_x < start_y`.
    pub(super) fn link_guard(&mut self, x: usize, y: usize) -> Option<ExprId> {
        let g = self
            .pool
            .binary(BinOp::Lt, self.fps[x].end, self.fps[y].start);
        (self.pool.as_const(g).is_none()).then_some(g)
    }
}
