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
use super::pair::{
    pair_verdict, pair_verdict_counted, pair_verdict_exact, with_exact_session, Verdict, EXACT_COST,
};
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
///
/// The sweeps see one representative per class of equal footprints (the
/// class's first view, [`Classes`]); a pair of representatives stands for
/// every pair of their members, which the sink lists (witness turned round
/// where the member order is the other way) while under the cap and, past
/// it, counts in `left_out` but for one pair that joins the two classes:
/// its cost is linear in the members, not in their pairs.
pub(crate) struct PairSink {
    cap: usize,
    parent: Vec<usize>,
    /// The members of each class of two or more views, by representative.
    classes: hashbrown::HashMap<usize, Vec<usize>>,
    pub(crate) pairs: Vec<ListedPair>,
    pub(crate) left_out: usize,
}

impl PairSink {
    fn new(n: usize, cap: usize, classes: hashbrown::HashMap<usize, Vec<usize>>) -> PairSink {
        PairSink {
            cap,
            parent: (0..n).collect(),
            classes,
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

    fn class_len(&self, rep: usize) -> usize {
        self.classes.get(&rep).map_or(1, Vec::len)
    }

    fn member(&self, rep: usize, k: usize) -> usize {
        self.classes.get(&rep).map_or(rep, |m| m[k])
    }

    /// Whether the pair of representatives `(a, b)` still needs deciding:
    /// under the cap, or their classes are not yet known to be connected.
    pub(crate) fn wants(&mut self, a: usize, b: usize) -> bool {
        if self.pairs.len() < self.cap {
            return true;
        }
        let same = self.root(a) == self.root(b);
        if same {
            self.left_out += self.class_len(a) * self.class_len(b);
        }
        !same
    }

    fn list(&mut self, p: ListedPair) {
        let (ra, rb) = (self.root(p.a), self.root(p.b));
        if ra != rb {
            self.parent[ra] = rb;
        }
        self.pairs.push(p);
    }

    /// Records an overlapping (or undecided) pair of representatives that
    /// [`PairSink::wants`] asked for, with the verdict of `(a, b)` in that
    /// order: every member pair under the cap, then one joining pair.
    pub(crate) fn push(&mut self, p: ListedPair) {
        let (na, nb) = (self.class_len(p.a), self.class_len(p.b));
        let total = na * nb;
        for k in 0..total {
            let (x, y) = (self.member(p.a, k / nb), self.member(p.b, k % nb));
            if self.pairs.len() >= self.cap {
                // Past the cap: each class is connected already (its own
                // pairs came first), so one pair joins them, if any.
                let joins = self.root(x) != self.root(y);
                if joins {
                    self.list(oriented(x, y, &p.verdict));
                }
                self.left_out += total - k - usize::from(joins);
                return;
            }
            self.list(oriented(x, y, &p.verdict));
        }
    }

    /// The pairs inside each class of equal footprints: all overlap, with
    /// the witness `same` (both at index zero of the first address).
    fn class_pairs(&mut self, rep: usize, same: &Verdict) {
        let Some(members) = self.classes.get(&rep).cloned() else {
            return;
        };
        let n = members.len();
        let total = n * (n - 1) / 2;
        let mut done = 0;
        for (i, &x) in members.iter().enumerate() {
            for &y in &members[i + 1..] {
                if self.pairs.len() >= self.cap {
                    // Past the cap: a chain from the representative.
                    let mut joined = 0;
                    for &m in &members[1..] {
                        if self.root(rep) != self.root(m) {
                            self.list(oriented(rep, m, same));
                            joined += 1;
                        }
                    }
                    self.left_out += total - done - joined;
                    return;
                }
                self.list(oriented(x, y, same));
                done += 1;
            }
        }
    }
}

/// The listed pair `(x, y)` with the verdict of a pair in that order,
/// smaller index first (the witness's indices exchanged if turned round).
fn oriented(x: usize, y: usize, v: &Verdict) -> ListedPair {
    if x < y {
        ListedPair {
            a: x,
            b: y,
            verdict: v.clone(),
        }
    } else {
        let verdict = match v {
            Verdict::Overlap(w) => Verdict::Overlap(super::pair::Witness {
                address: w.address,
                index_a: w.index_b.clone(),
                index_b: w.index_a.clone(),
            }),
            other => other.clone(),
        };
        ListedPair {
            a: y,
            b: x,
            verdict,
        }
    }
}

/// Views of equal footprints (the same addresses reached by the same
/// indices): a class is decided once, by its first view.
struct Classes {
    /// The live views that stand for their class, ascending.
    reps: Vec<usize>,
    /// The members of each class of two or more, by representative.
    members: hashbrown::HashMap<usize, Vec<usize>>,
}

impl Classes {
    fn of(fps: &[Footprint], live: &[usize]) -> Classes {
        let mut first: hashbrown::HashMap<&Footprint, usize> = hashbrown::HashMap::new();
        let mut reps = Vec::new();
        let mut members: hashbrown::HashMap<usize, Vec<usize>> = hashbrown::HashMap::new();
        for &i in live {
            match first.entry(&fps[i]) {
                hashbrown::hash_map::Entry::Occupied(e) => {
                    let rep = *e.get();
                    members.entry(rep).or_insert_with(|| vec![rep]).push(i);
                }
                hashbrown::hash_map::Entry::Vacant(e) => {
                    e.insert(i);
                    reps.push(i);
                }
            }
        }
        Classes { reps, members }
    }
}

/// Work units of one group's exact decisions (a candidate pair costs one,
/// a search node one, a pair sent to the exact stage `EXACT_COST`): the
/// deterministic bound of the sweep, sized to finish well inside the
/// default time limit on a two-core machine of 2026 (about 0.1 µs a node
/// there; a group past it answers its remaining candidates undecided:
/// sound, and guarded).
pub(crate) const GROUP_WORK: u64 = 1 << 21;

/// Analyses one storage group of footprints (all in the same unit).
/// `listed_pairs` is the listing cap ([`PAIR_LIST_CAP`] by default).
/// `deadline`: pairs the search leaves undecided get the exact stage
/// ([`pair_verdict_exact`]) until then; `None`: they stay undecided.
pub(crate) fn analyze_group(
    fps: &[Footprint],
    budget: u64,
    listed_pairs: usize,
    deadline: Option<Instant>,
) -> GroupAnswer {
    let Some(deadline) = deadline else {
        return group(fps, budget, listed_pairs, None, &mut |_, _| {
            Verdict::Undecided
        });
    };
    // One z3 context for the group's undecided pairs, if any.
    with_exact_session(deadline, |s| {
        group(fps, budget, listed_pairs, Some(deadline), &mut |a, b| {
            pair_verdict_exact(a, b, deadline, s)
        })
    })
}

/// [`analyze_group`] with `exact` deciding the pairs the search leaves
/// undecided. The search is bounded by `budget` per pair and by
/// [`GROUP_WORK`] for the group, not by a clock: the answer at the hints
/// is the same on every machine (`overlap_corpus::a_spent_time_limit_...`);
/// the `deadline`, a backstop, is looked at only between pairs.
fn group(
    fps: &[Footprint],
    budget: u64,
    listed_pairs: usize,
    deadline: Option<Instant>,
    exact: &mut dyn FnMut(&Footprint, &Footprint) -> Verdict,
) -> GroupAnswer {
    let live: Vec<usize> = (0..fps.len()).filter(|&i| !fps[i].empty).collect();
    let Classes { reps, members } = Classes::of(fps, &live);
    let mut is_box = vec![false; fps.len()];
    let mut sink = PairSink::new(fps.len(), listed_pairs, members);
    let mut with_class: Vec<usize> = sink.classes.keys().copied().collect();
    with_class.sort_unstable();
    for rep in with_class {
        let same = pair_verdict(&fps[rep], &fps[rep], budget);
        sink.class_pairs(rep, &same);
    }
    if let Some(ch) = chain(&reps.iter().map(|&i| &fps[i]).collect::<Vec<_>>()) {
        let mut items = Vec::with_capacity(reps.len());
        for &i in &reps {
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
    let mut work = GROUP_WORK;
    if reps.iter().any(|&i| !is_box[i]) {
        let mut keyed: Vec<(i64, usize)> = reps.iter().map(|&i| (fps[i].start, i)).collect();
        keyed.sort_unstable();
        let mut active_box: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::new();
        let mut active_other: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::new();
        for (pos, &(start, i)) in keyed.iter().enumerate() {
            for heap in [&mut active_box, &mut active_other] {
                while heap.peek().is_some_and(|Reverse((end, _))| *end < start) {
                    heap.pop();
                }
            }
            if work == 0 || symalias_solver::clock::past_opt(deadline) {
                // Out of work (or, as a backstop, of time): what is still
                // open and what is left meet as undecided pairs, chained
                // (linear, sound: they may overlap; every one is guarded).
                let mut rest: Vec<usize> = active_other
                    .iter()
                    .chain(active_box.iter())
                    .map(|Reverse((_, j))| *j)
                    .chain(keyed[pos..].iter().map(|k| k.1))
                    .collect();
                rest.sort_unstable();
                debug!(left = rest.len(), "group work spent: the rest undecided");
                for w in rest.windows(2) {
                    if sink.wants(w[0], w[1]) {
                        sink.push(ListedPair {
                            a: w[0],
                            b: w[1],
                            verdict: Verdict::Undecided,
                        });
                    }
                }
                break;
            }
            let boxes = if is_box[i] {
                None
            } else {
                Some(active_box.iter())
            };
            for Reverse((_, j)) in active_other.iter().chain(boxes.into_iter().flatten()) {
                let (a, b) = (i.min(*j), i.max(*j));
                work = work.saturating_sub(1);
                if !sink.wants(a, b) {
                    continue;
                }
                exact_tests += 1;
                let mut v = pair_verdict_counted(&fps[a], &fps[b], budget, &mut work, deadline);
                if v == Verdict::Undecided && work >= EXACT_COST {
                    work -= EXACT_COST;
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
        let mut y = x;
        while p[y] != r {
            let next = p[y];
            p[y] = r;
            y = next;
        }
        r
    }
    for &(a, b) in pairs {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    // Roots are each component's smallest member: components come in the
    // order of their roots, found by index (linear, not per component).
    let mut slot: Vec<usize> = vec![usize::MAX; n];
    let mut comps: Vec<Vec<usize>> = Vec::new();
    for x in 0..n {
        let r = find(&mut parent, x);
        if slot[r] == usize::MAX {
            slot[r] = comps.len();
            comps.push(Vec::new());
        }
        comps[slot[r]].push(x);
    }
    comps
}
