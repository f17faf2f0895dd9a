//! The group algorithm: which views of one storage overlap at least one other.
//!
//! 1. Empty views are disjoint from everything.
//! 2. Views that are boxes on the group's stride chain are paired by the box
//!    sweep (`boxes.rs`): no search at all.
//! 3. Every other pair whose byte extents intersect is found by one sweep over
//!    the views sorted by start address, and decided exactly (`pair.rs`).
//!    Box views are kept in their own active set so that box-box pairs, already
//!    decided, cost nothing here.
//!
//! Cost: O(k log k + pairs that reach an exact test).

use super::boxes::{chain, digit_box, overlapping_pairs};
use super::footprint::Footprint;
use super::pair::{decide, Verdict};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tracing::debug;

/// The answer for one group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupAnswer {
    /// Views that overlap (or may, if undecided) some other view, ascending.
    pub overlapping: Vec<usize>,
    /// Every pair that overlaps or is undecided, as (a < b, verdict), sorted.
    pub pairs: Vec<(usize, usize, Verdict)>,
    /// Number of pairs decided by the exact pair test (for statistics).
    pub exact_tests: usize,
}

/// Analyses one storage group of footprints (all in the same unit).
pub(crate) fn analyze_group(fps: &[Footprint], budget: u64) -> GroupAnswer {
    let live: Vec<usize> = (0..fps.len()).filter(|&i| !fps[i].empty).collect();
    let mut is_box = vec![false; fps.len()];
    let mut pairs = Vec::new();
    if let Some(ch) = chain(&live.iter().map(|&i| &fps[i]).collect::<Vec<_>>()) {
        let mut items = Vec::with_capacity(live.len());
        for &i in &live {
            if let Some(b) = digit_box(&ch, &fps[i]) {
                items.push((i, &fps[i], b));
            }
        }
        for it in &items {
            is_box[it.0] = true;
        }
        debug!(boxes = items.len(), levels = ch.len(), "box path");
        pairs.extend(overlapping_pairs(&ch, &items));
    }
    // Sweep by start address; pairs with a non-box view get the exact test.
    let mut exact_tests = 0;
    if live.iter().any(|&i| !is_box[i]) {
        let mut keyed: Vec<(i64, usize)> = live.iter().map(|&i| (fps[i].start, i)).collect();
        keyed.sort_unstable();
        let order = keyed.iter().map(|k| k.1);
        let mut active_box: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::new();
        let mut active_other: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::new();
        for i in order {
            let start = fps[i].start;
            for heap in [&mut active_box, &mut active_other] {
                while heap.peek().is_some_and(|Reverse((end, _))| *end < start) {
                    heap.pop();
                }
            }
            let boxes = if is_box[i] {
                None
            } else {
                Some(active_box.iter())
            };
            for Reverse((_, j)) in active_other.iter().chain(boxes.into_iter().flatten()) {
                let (a, b) = (i.min(*j), i.max(*j));
                exact_tests += 1;
                let v = decide(&fps[a], &fps[b], budget);
                if v.may_overlap() {
                    pairs.push((a, b, v));
                }
            }
            let heap = if is_box[i] {
                &mut active_box
            } else {
                &mut active_other
            };
            heap.push(Reverse((fps[i].end, i)));
        }
    }
    pairs.sort_by_key(|p| (p.0, p.1));
    let mut overlapping: Vec<usize> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    overlapping.sort_unstable();
    overlapping.dedup();
    GroupAnswer {
        overlapping,
        pairs,
        exact_tests,
    }
}
