//! Differential tests: the exact overlap engine against brute-force enumeration
//! of byte addresses, on random groups of views.
//!
//! `SYMALIAS_DIFF_CASES` sets the number of random groups per test (default
//! 20,000; the notes report a run with 1,000,000).

mod common;

use common::views::{brute_group, covers};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use symalias::layout::View;
use symalias::overlap::{analyze_views, Verdict, DEFAULT_BUDGET};

fn cases() -> u32 {
    common::env_count("SYMALIAS_DIFF_CASES", 20_000)
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
    for symalias::overlap::PairVerdict { a, b, verdict: v } in &got.pairs {
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
