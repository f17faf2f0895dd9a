//! Differential tests: the exact overlap engine against brute-force enumeration
//! of byte addresses, on random groups of views.
//!
//! `SYMALIAS_DIFF_CASES` sets the number of random groups per test (default
//! 20,000; the notes report a run with 1,000,000).

use crate::common::views::{brute_group, covers};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use symalias::layout::View;
use symalias::overlap::{
    analyze_views, internal_overlap, overlapping_views, Verdict, DEFAULT_BUDGET,
};

fn cases() -> u32 {
    crate::common::env_count("SYMALIAS_DIFF_CASES", 20_000)
}

fn view(itemsizes: &'static [i64]) -> impl Strategy<Value = View> {
    (1usize..=4)
        .prop_flat_map(move |rank| {
            (
                prop::collection::vec(0i64..=6, rank),
                prop::collection::vec(0i64..=12, rank),
                0i64..=40,
                prop::sample::select(itemsizes),
            )
        })
        .prop_map(|(sizes, strides, offset, itemsize)| View {
            sizes,
            strides,
            offset,
            itemsize,
        })
}

/// Views on a common stride lattice (chain 24 > 6 > 1 or 12 > 3 > 1), which
/// exercise the box path: column splits, row blocks, tilings.
fn lattice_view() -> impl Strategy<Value = View> {
    (
        prop::sample::select(&[[24i64, 6, 1], [12, 3, 1]][..]),
        1usize..=3,
    )
        .prop_flat_map(|(chain, rank)| {
            (
                prop::collection::vec(0i64..=4, rank),
                prop::sample::subsequence(chain.to_vec(), rank),
                0i64..=60,
            )
                .prop_map(|(sizes, strides, offset)| View {
                    sizes,
                    strides,
                    offset,
                    itemsize: 1,
                })
        })
}

fn check(views: &[View]) -> Result<(), TestCaseError> {
    for v in views {
        prop_assume!(v.validate().is_ok());
    }
    let (want_pairs, want_set) = brute_group(views);
    let got = analyze_views(views, DEFAULT_BUDGET);
    let got_pairs: Vec<(usize, usize)> = got.pairs.iter().map(|p| (p.a, p.b)).collect();
    prop_assert_eq!(&got_pairs, &want_pairs, "pairs of {:?}", views);
    prop_assert_eq!(&got.overlapping, &want_set);
    let refs: Vec<_> = views.iter().map(View::view_ref).collect();
    let set_only = overlapping_views(&refs, DEFAULT_BUDGET);
    prop_assert_eq!(&set_only, &want_set, "set only, {:?}", views);
    for symalias::overlap::ListedPair { a, b, verdict: v } in &got.pairs {
        match v {
            Verdict::Overlap(w) => {
                prop_assert!(
                    covers(&views[*a], &w.index_a, w.address),
                    "witness {:?} not in view {}",
                    w,
                    a
                );
                prop_assert!(
                    covers(&views[*b], &w.index_b, w.address),
                    "witness {:?} not in view {}",
                    w,
                    b
                );
            }
            other => prop_assert!(false, "small case undecided: {:?}", other),
        }
    }
    Ok(())
}

fn run(strategy: impl Strategy<Value = Vec<View>>) {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        max_global_rejects: u32::MAX,
        ..Config::default()
    });
    runner.run(&strategy, |views| check(&views)).unwrap();
}

#[test]
fn random_views_with_one_itemsize() {
    run(prop::collection::vec(view(&[4]), 2..=5));
}

#[test]
fn random_views_with_mixed_itemsizes() {
    run(prop::collection::vec(view(&[1, 2, 4, 8]), 2..=5));
}

#[test]
fn views_on_a_stride_lattice() {
    run(prop::collection::vec(lattice_view(), 2..=8));
}

/// Internal overlap against enumeration: the view reaches some address from
/// two indices exactly when `internal_overlap` says so, and its witness is
/// two distinct in-range indices at the reported byte.
fn check_internal(v: &View) -> Result<(), TestCaseError> {
    use std::collections::HashMap;
    let mut seen: HashMap<i64, Vec<i64>> = HashMap::new();
    let mut repeated = false;
    let total: i64 = v.sizes.iter().product();
    for flat in 0..total {
        let mut rest = flat;
        let mut index = vec![0; v.sizes.len()];
        for d in (0..v.sizes.len()).rev() {
            index[d] = rest % v.sizes[d];
            rest /= v.sizes[d];
        }
        let addr = v.offset
            + index
                .iter()
                .zip(&v.strides)
                .map(|(i, s)| i * s)
                .sum::<i64>();
        if seen.insert(addr, index).is_some() {
            repeated = true;
            break;
        }
    }
    match internal_overlap(v, DEFAULT_BUDGET) {
        Verdict::Disjoint => prop_assert!(!repeated, "{v:?}: said disjoint, an address repeats"),
        Verdict::Undecided => prop_assert!(false, "{v:?}: undecided on a small view"),
        Verdict::Overlap(w) => {
            prop_assert!(
                repeated,
                "{v:?}: said overlapping, every address is distinct"
            );
            prop_assert_ne!(&w.index_a, &w.index_b);
            let at = |ix: &[i64]| {
                prop_assert!(ix.iter().zip(&v.sizes).all(|(&i, &n)| 0 <= i && i < n));
                Ok(v.offset + ix.iter().zip(&v.strides).map(|(i, s)| i * s).sum::<i64>())
            };
            let (a, b) = (at(&w.index_a)?, at(&w.index_b)?);
            prop_assert_eq!(a, b);
            prop_assert_eq!(a * v.itemsize, w.address);
        }
    }
    Ok(())
}

#[test]
fn internal_overlap_agrees_with_enumeration() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&view(&[1, 2, 4, 8]), |v| check_internal(&v))
        .unwrap();
}

/// Sliding windows `as_strided((n, w), (step, 1))` and their transposes:
/// overlapping exactly when the step is below the window.
#[test]
fn internal_overlap_of_sliding_windows() {
    let mut runner = TestRunner::new(Config {
        cases: cases() / 4,
        failure_persistence: None,
        ..Config::default()
    });
    let windows = (1i64..=8, 1i64..=6, 0i64..=7, any::<bool>()).prop_map(|(n, w, step, t)| {
        let (sizes, strides) = if t {
            (vec![w, n], vec![1, step])
        } else {
            (vec![n, w], vec![step, 1])
        };
        View {
            sizes,
            strides,
            offset: 3,
            itemsize: 4,
        }
    });
    runner.run(&windows, |v| check_internal(&v)).unwrap();
}
