//! Overlap of strided views of one storage: footprints, the exact pair
//! decision at concrete values, the sub-quadratic group algorithm, and a
//! view's overlap with itself (`internal`).
//!
//! Soundness contract: a pair is reported disjoint only when its footprints
//! share no byte; a pair the search cannot settle within its work bound is
//! reported as overlapping and marked undecided. Every overlapping pair carries
//! a witness (a shared byte address and the indices of both views reaching it).

mod boxes;
mod diophantine;
mod domain;
mod encode;
mod footprint;
mod internal;
mod lattice;
mod pair;
mod proof;
mod sweep;

internal! { pub use sweep::{components, GroupAnswer, ListedPair, PAIR_LIST_CAP}; }
pub use internal::internal_overlap;
pub(crate) use internal::internal_overlap_until;
pub use pair::{Verdict, Witness, DEFAULT_BUDGET};
pub(crate) use proof::{disjoint_by_extents, prove_case};
pub(crate) use sweep::GROUP_WORK;
internal! { pub use proof::prove_internal; }
pub use proof::{InternalProof, Proof, ProofOptions};

use crate::layout::{View, ViewRef};

internal! {
    /// Analyses concrete views of one storage (validated with
    /// [`View::validate`]): the overlapping set, the listed pairs with their
    /// verdicts and witnesses. Embedders: [`crate::Analyzer::overlap_views`].
    pub fn analyze_views(views: &[View], budget: u64) -> GroupAnswer {
        analyze_views_listing(views, budget, PAIR_LIST_CAP, None)
    }
}

/// [`analyze_views`] listing at most `listed_pairs` pairs before it lists
/// only the pairs that join two components (see [`GroupAnswer::pairs`]);
/// with a `deadline`, a pair the search leaves undecided is decided by an
/// exact integer solver until then (`pair::pair_verdict_exact`).
pub(crate) fn analyze_views_listing(
    views: &[View],
    budget: u64,
    listed_pairs: usize,
    deadline: Option<std::time::Instant>,
) -> GroupAnswer {
    let refs: Vec<ViewRef> = views.iter().map(View::view_ref).collect();
    analyze_refs(&refs, budget, listed_pairs, deadline)
}

/// [`analyze_views`] on borrowed views (validated with [`ViewRef::validate`]).
pub(crate) fn analyze_view_refs(views: &[ViewRef], budget: u64) -> GroupAnswer {
    analyze_refs(views, budget, PAIR_LIST_CAP, None)
}

/// Only the overlapping set of `analyze_view_refs` (views that overlap, or
/// may, some other view; ascending): no pair is listed beyond those that join
/// two components, so a dense group (sliding windows, many copies) decides
/// one pair per view it joins rather than every meeting pair.
///
/// ```
/// use symalias::layout::ViewRef;
/// use symalias::overlap::{overlapping_views, DEFAULT_BUDGET};
/// // Windows of 4 elements at offsets 0, 1, 2 and one at 10.
/// let v = |offset| ViewRef { sizes: &[4], strides: &[1], offset, itemsize: 4 };
/// assert_eq!(overlapping_views(&[v(0), v(1), v(2), v(10)], DEFAULT_BUDGET), vec![0, 1, 2]);
///
/// // Bug B0 of PyTorch: (4,4),(9,1) at offsets 0 and 9 overlap (addresses 9..12, ...).
/// let w = |offset| ViewRef { sizes: &[4, 4], strides: &[9, 1], offset, itemsize: 4 };
/// assert_eq!(overlapping_views(&[w(0), w(9), w(4 * 9 + 100)], DEFAULT_BUDGET), vec![0, 1]);
/// ```
pub fn overlapping_views(views: &[ViewRef], budget: u64) -> Vec<usize> {
    analyze_refs(views, budget, 0, None).overlapping
}

/// [`overlapping_views`] with the exact stage: a pair the search leaves
/// undecided is decided exactly (a lattice reformulation, a box search,
/// then z3) until `deadline`, and only past it counted as overlapping.
///
/// ```
/// use std::time::{Duration, Instant};
/// use symalias::layout::ViewRef;
/// use symalias::overlap::{overlapping_views, overlapping_views_until, DEFAULT_BUDGET};
/// // numpy's documented hard instance (int8): disjoint, beyond the search.
/// let a = ViewRef { sizes: &[1049, 1049, 1049], strides: &[36674, 61119, 85569], offset: 0, itemsize: 1 };
/// let b = ViewRef { sizes: &[1049, 1049, 1], strides: &[12223, 12224, 1], offset: 64023025, itemsize: 1 };
/// assert_eq!(overlapping_views(&[a, b], DEFAULT_BUDGET), vec![0, 1]); // undecided: may overlap
/// let deadline = Instant::now() + Duration::from_secs(2);
/// assert!(overlapping_views_until(&[a, b], DEFAULT_BUDGET, deadline).is_empty());
/// ```
pub fn overlapping_views_until(
    views: &[ViewRef],
    budget: u64,
    deadline: std::time::Instant,
) -> Vec<usize> {
    analyze_refs(views, budget, 0, Some(deadline)).overlapping
}

/// How hard one concrete decision ([`pair_overlap`], [`internal_overlap_with`])
/// may work: the bounded search's node budget, then, for what it leaves
/// undecided, the exact stage until `exact_until` (none: it stays
/// [`Verdict::Undecided`]). numpy's `max_work` maps onto it: a positive
/// budget is the search's nodes, "exact" is the exact stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effort {
    /// Nodes of the bounded search, per system.
    pub budget: u64,
    /// The exact stage's deadline, if it runs at all.
    pub exact_until: Option<std::time::Instant>,
}

/// The verdict for two concrete views of one address space (validated with
/// [`ViewRef::validate`]; offsets relative to a common base, compared in
/// bytes when the itemsizes differ), with at most `effort`.
///
/// ```
/// use symalias::layout::ViewRef;
/// use symalias::overlap::{pair_overlap, Effort, Verdict, DEFAULT_BUDGET};
/// // Even and odd elements of one buffer: apart.
/// let even = ViewRef { sizes: &[50], strides: &[2], offset: 0, itemsize: 8 };
/// let odd = ViewRef { sizes: &[50], strides: &[2], offset: 1, itemsize: 8 };
/// let effort = Effort { budget: DEFAULT_BUDGET, exact_until: None };
/// assert_eq!(pair_overlap(even, odd, effort), Verdict::Disjoint);
/// // The same bytes read as 16-byte elements: every one straddles both.
/// let wide = ViewRef { sizes: &[50], strides: &[1], offset: 0, itemsize: 16 };
/// assert!(matches!(pair_overlap(even, wide, effort), Verdict::Overlap(_)));
/// ```
pub fn pair_overlap(a: ViewRef, b: ViewRef, effort: Effort) -> Verdict {
    let bytes = a.itemsize != b.itemsize;
    let (fa, fb) = (
        footprint::Footprint::new(a, bytes),
        footprint::Footprint::new(b, bytes),
    );
    let mut work = effort.budget;
    match pair::pair_verdict_counted(&fa, &fb, effort.budget, &mut work, None) {
        Verdict::Undecided => match effort.exact_until {
            Some(deadline) => pair::with_exact_session(deadline, |session| {
                pair::pair_verdict_exact(&fa, &fb, deadline, session)
            }),
            None => Verdict::Undecided,
        },
        verdict => verdict,
    }
}

/// [`internal_overlap`] with at most `effort` (the exact stage included
/// when it has a deadline).
pub fn internal_overlap_with(view: &View, effort: Effort) -> Verdict {
    let mut work = if effort.exact_until.is_some() {
        u64::MAX
    } else {
        effort.budget
    };
    internal::internal_overlap_until(view, effort.budget, &mut work, effort.exact_until)
}

fn analyze_refs(
    views: &[ViewRef],
    budget: u64,
    listed_pairs: usize,
    deadline: Option<std::time::Instant>,
) -> GroupAnswer {
    let first = views.first().map(|v| v.itemsize);
    let bytes = views.iter().any(|v| Some(v.itemsize) != first);
    let fps: Vec<footprint::Footprint> = views
        .iter()
        .map(|&v| footprint::Footprint::new(v, bytes))
        .collect();
    sweep::analyze_group(&fps, budget, listed_pairs, deadline)
}
