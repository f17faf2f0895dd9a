//! Hard concrete instances: pairs the bounded search cannot settle within
//! its work bound are decided exactly by the exact stage (an integer
//! solver at concrete values) within the case's time limit.

use crate::common::Rng;
use std::time::{Duration, Instant};
use symalias::analysis::Analyzer;
use symalias::layout::View;
use symalias::overlap::{
    analyze_views, overlapping_views, overlapping_views_until, Verdict, DEFAULT_BUDGET,
};

/// numpy's documented hard instance for `np.shares_memory`
/// (`numpy/_core/tests/test_mem_overlap.py`, int8): disjoint, which numpy
/// takes seconds to show exactly.
fn numpy_hard_pair() -> [View; 2] {
    [
        View {
            sizes: vec![1049, 1049, 1049],
            strides: vec![36674, 61119, 85569],
            offset: 0,
            itemsize: 1,
        },
        View {
            sizes: vec![1049, 1049, 1],
            strides: vec![12223, 12224, 1],
            offset: 64023025,
            itemsize: 1,
        },
    ]
}

#[test]
fn the_search_alone_leaves_numpys_instance_undecided() {
    let answer = analyze_views(&numpy_hard_pair(), DEFAULT_BUDGET);
    assert_eq!(answer.pairs.len(), 1);
    assert_eq!(answer.pairs[0].verdict, Verdict::Undecided);
}

#[test]
fn numpys_hard_instance_is_exactly_disjoint_within_the_time_limit() {
    let analyzer = Analyzer::default();
    let started = Instant::now();
    let report = analyzer.overlap_views("numpy", &numpy_hard_pair(), &|i| format!("v{i}"));
    let took = started.elapsed();
    assert!(report.overlapping.is_empty(), "{:?}", report.pairs);
    assert!(report.pairs.is_empty() && report.guards.is_empty());
    // The default time limit bounds the case (plus the solver's grace).
    eprintln!("numpy instance: {took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

/// Pairs of many large dimensions with large, unrelated strides, placed to
/// interleave: the exact stage may not finish them in a short limit.
fn wide_pair(r: &mut Rng) -> [View; 2] {
    let mut view = |offset: i64| {
        let dims = r.range(5, 7) as usize;
        View {
            sizes: (0..dims).map(|_| r.range(200, 2000)).collect(),
            strides: (0..dims).map(|_| r.range(1_000_000, 90_000_000)).collect(),
            offset,
            itemsize: 1,
        }
    };
    let a = view(0);
    let b = view(1 + (a.strides[0] * 977) % 1_000_000_000);
    [a, b]
}

/// The exact stage stops at the deadline: a group of hard pairs returns by
/// the deadline plus the bounded search's own work (a node budget, not a
/// clock: the answer at the hints stays exact when a program's deadline is
/// spent) and the slack of one clock check.
#[test]
fn the_exact_stage_keeps_the_deadline() {
    let mut r = Rng(50);
    for ms in [60u64, 150] {
        for _ in 0..6 {
            let [a, b] = wide_pair(&mut r);
            let views = [a.view_ref(), b.view_ref()];
            // The search alone, for its share of the time.
            let t0 = Instant::now();
            let searched = overlapping_views(&views, DEFAULT_BUDGET);
            let search = t0.elapsed();
            let t0 = Instant::now();
            let decided =
                overlapping_views_until(&views, DEFAULT_BUDGET, t0 + Duration::from_millis(ms));
            let took = t0.elapsed();
            let bound = Duration::from_millis(ms) + search + Duration::from_millis(50);
            assert!(
                took <= bound,
                "{took:?} for {ms} ms (search {search:?}): {views:?}"
            );
            // Never less than the search's (sound) answer claims overlap.
            assert!(decided.iter().all(|i| searched.contains(i)));
        }
    }
}

#[test]
fn overlapping_views_until_decides_numpys_instance() {
    let [a, b] = numpy_hard_pair();
    let views = [a.view_ref(), b.view_ref()];
    assert_eq!(overlapping_views(&views, DEFAULT_BUDGET), vec![0, 1]);
    let deadline = Instant::now() + Duration::from_secs(2);
    assert!(overlapping_views_until(&views, DEFAULT_BUDGET, deadline).is_empty());
}
