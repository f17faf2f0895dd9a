//! Guard emission: for a pair the prover could not settle, the shape
//! condition that keeps its hint verdict (disjoint: the separating gap;
//! overlap: a witness condition or contiguous runs meeting).

use super::*;

impl Prover<'_, '_> {
    /// `end_x < start_y` for the order that holds at the hints: implies disjointness.
    pub(super) fn disjoint_guard(&mut self, a: usize, b: usize) -> Option<ExprId> {
        let look = |s| self.env.hint(s);
        for (x, y) in [(a, b), (b, a)] {
            let (ex, sy) = (self.fps[x].end, self.fps[y].start);
            let (Ok(e), Ok(s)) = (self.pool.eval_int(ex, &look), self.pool.eval_int(sy, &look))
            else {
                continue;
            };
            if e < s {
                let g = self.pool.binary(BinOp::Lt, ex, sy);
                return (self.pool.as_const(g).is_none()).then_some(g);
            }
        }
        None
    }

    /// A condition implying the overlap: for two runs, "both non-empty and the
    /// extents meet"; otherwise a witness (indices in range, addresses equal).
    pub(super) fn overlap_guard(
        &mut self,
        a: usize,
        b: usize,
        hint: &GroupAnswer,
    ) -> Option<ExprId> {
        let cond = match self.runs_meet(a, b) {
            Some(c) => c,
            None => {
                let w = self.witnesses(a, b, hint).into_iter().next()?;
                self.witness_condition(a, b, &w)
            }
        };
        (self.pool.as_const(cond).is_none()).then_some(cond)
    }
}
