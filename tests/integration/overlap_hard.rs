//! Hard concrete instances: pairs the bounded search cannot settle within
//! its work bound are decided exactly by the exact stage (an integer
//! solver at concrete values) within the case's time limit.

use std::time::{Duration, Instant};
use symalias::layout::View;
use symalias::overlap::{analyze_views, Verdict, DEFAULT_BUDGET};
use symalias::Analyzer;

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
