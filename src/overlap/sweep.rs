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
use super::pair::{decide, decide_exact, with_exact_session, Verdict};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;
use tracing::debug;

/// One listed pair of a group answer: `a < b` and what the exact test says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedPair {
    /// The first view.
    pub a: usize,
    /// The second view (`a < b`).
    pub b: usize,
    /// Overlap (with a witness) or undecided; disjoint pairs are not listed.
    pub verdict: Verdict,
}

/// Listed pairs beyond which only pairs that join two components of the
/// overlap graph are listed (a group of many identical views has
/// quadratically many overlapping pairs; the overlapping set and the
/// components stay exact, the answer stays linear in size).
pub const PAIR_LIST_CAP: usize = 4096;

/// The answer for one group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupAnswer {
    /// Views that overlap (or may, if undecided) some other view, ascending.
    pub overlapping: Vec<usize>,
    /// Overlapping or undecided pairs, sorted by `(a, b)`: every one while
    /// fewer than the cap ([`PAIR_LIST_CAP`] by default), then only those that join two
    /// components of the overlap graph (so that the components of the listed
    /// pairs are the true components, and every overlapping view is listed).
    pub pairs: Vec<ListedPair>,
    /// Candidate pairs (extents meet) within an already connected component,
    /// past the cap: neither decided nor listed (whatever they are, they
    /// change neither the overlapping set nor the components).
    pub pairs_left_out: usize,
    /// Number of pairs decided by the exact pair test (for statistics).
    pub exact_tests: usize,
}

/// Where found pairs go: listed while under the cap or when they connect
/// two components (union-find over the views).
pub(crate) struct PairSink {
    cap: usize,
    parent: Vec<usize>,
    pub(crate) pairs: Vec<ListedPair>,
    pub(crate) left_out: usize,
}

impl PairSink {
    fn new(n: usize, cap: usize) -> PairSink {
        PairSink {
            cap,
            parent: (0..n).collect(),
            pairs: Vec::new(),
            left_out: 0,
        }
    }

    fn root(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Whether the pair `(a, b)` still needs deciding: under the cap, or
    /// `a` and `b` are not yet known to be connected.
    pub(crate) fn wants(&mut self, a: usize, b: usize) -> bool {
        if self.pairs.len() < self.cap {
            return true;
        }
        let same = self.root(a) == self.root(b);
        if same {
            self.left_out += 1;
        }
        !same
    }

    /// Records an overlapping (or undecided) pair that [`PairSink::wants`]
    /// asked for (so it is under the cap or joins two components: listed).
    pub(crate) fn push(&mut self, p: ListedPair) {
        let (ra, rb) = (self.root(p.a), self.root(p.b));
        if ra != rb {
            self.parent[ra] = rb;
        }
        self.pairs.push(p);
    }
}

/// Analyses one storage group of footprints (all in the same unit).
/// `listed_pairs` is the listing cap ([`PAIR_LIST_CAP`] by default).
/// `deadline`: pairs the search leaves undecided get the exact stage
/// ([`decide_exact`]) until then; `None`: they stay undecided.
pub(crate) fn analyze_group(
    fps: &[Footprint],
    budget: u64,
    listed_pairs: usize,
    deadline: Option<Instant>,
) -> GroupAnswer {
    let Some(deadline) = deadline else {
        return group(fps, budget, listed_pairs, &mut |_, _| Verdict::Undecided);
    };
    // One z3 context for the group's undecided pairs, if any.
    with_exact_session(deadline, |s| {
        group(fps, budget, listed_pairs, &mut |a, b| {
            decide_exact(a, b, deadline, s)
        })
    })
}

/// [`analyze_group`] with `exact` deciding the pairs the search leaves
/// undecided. The search itself is bounded by `budget`, not by a clock:
/// the answer at the hints stays exact when a program's shared deadline
/// is spent (`overlap_corpus::a_spent_time_limit_...`).
fn group(
    fps: &[Footprint],
    budget: u64,
    listed_pairs: usize,
    exact: &mut dyn FnMut(&Footprint, &Footprint) -> Verdict,
) -> GroupAnswer {
    let live: Vec<usize> = (0..fps.len()).filter(|&i| !fps[i].empty).collect();
    let mut is_box = vec![false; fps.len()];
    let mut sink = PairSink::new(fps.len(), listed_pairs);
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
        overlapping_pairs(&ch, &items, &mut sink);
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
                if !sink.wants(a, b) {
                    continue;
                }
                exact_tests += 1;
                let mut v = decide(&fps[a], &fps[b], budget);
                if v == Verdict::Undecided {
                    v = exact(&fps[a], &fps[b]);
                }
                if v.may_overlap() {
                    sink.push(ListedPair { a, b, verdict: v });
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
    let PairSink {
        mut pairs,
        left_out,
        ..
    } = sink;
    pairs.sort_by_key(|p| (p.a, p.b));
    let mut overlapping: Vec<usize> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    overlapping.sort_unstable();
    overlapping.dedup();
    GroupAnswer {
        overlapping,
        pairs,
        pairs_left_out: left_out,
        exact_tests,
    }
}

/// Connected components of the overlap graph on `n` members (pairs of member
/// indices), each sorted, in order of their smallest member; a member that
/// overlaps nothing is a component of its own.
///
/// ```
/// use symalias::overlap::components;
/// assert_eq!(components(5, &[(3, 1), (0, 2)]), vec![vec![0, 2], vec![1, 3], vec![4]]);
/// ```
pub fn components(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    for &(a, b) in pairs {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut comps: Vec<Vec<usize>> = Vec::new();
    for x in 0..n {
        let r = find(&mut parent, x);
        match comps.iter_mut().find(|c| c[0] == r) {
            Some(c) => c.push(x),
            None => comps.push(vec![x]),
        }
    }
    comps
}
