//! The overlap cases of docs/PYTORCH.md §3.5–§3.7 and §6.1, as
//! `views => exact overlapping set`. Element offsets, itemsize 1.

use symalias::layout::View;
use symalias::overlap::{analyze_views, DEFAULT_BUDGET};

fn v(sizes: &[i64], strides: &[i64], offset: i64) -> View {
    View::new(sizes, strides, offset)
}

fn overlapping(views: &[View]) -> Vec<usize> {
    analyze_views(views, DEFAULT_BUDGET).overlapping
}

macro_rules! pair_cases {
    ($($name:ident: $a:expr, $b:expr => $overlap:expr;)*) => {$(
        #[test]
        fn $name() {
            let got = overlapping(&[$a, $b]);
            let want: Vec<usize> = if $overlap { vec![0, 1] } else { vec![] };
            assert_eq!(got, want);
        }
    )*};
}

// §3.5 worked examples: PyTorch and the exact answer agree.
pair_cases! {
    a1_row_blocks: v(&[2, 4], &[4, 1], 0), v(&[2, 4], &[4, 1], 8) => false;
    a2_last_address_rule: v(&[4, 4], &[8, 1], 0), v(&[4, 4], &[8, 1], 28) => false;
    a3_column_split: v(&[4, 2], &[4, 1], 0), v(&[4, 2], &[4, 1], 2) => false;
    a4_padded_rows: v(&[4, 4], &[9, 1], 0), v(&[4, 4], &[9, 1], 22) => false;
    a5_padded_rows: v(&[4, 4], &[9, 1], 0), v(&[4, 4], &[9, 1], 23) => false;
    a6_3d_then_1d: v(&[2, 4, 3], &[110, 24, 4], 5), v(&[24], &[1], 196) => false;
    o1_padded_rows_overlap: v(&[4, 4], &[9, 1], 0), v(&[4, 4], &[9, 1], 24) => true;
    o2_padded_rows_overlap: v(&[4, 4], &[9, 1], 0), v(&[4, 4], &[9, 1], 25) => true;
    o3_touching_last_element: v(&[2, 4, 3], &[110, 24, 4], 5), v(&[24], &[1], 195) => true;
    c1_narrow_columns: v(&[4, 4], &[8, 1], 0), v(&[4, 4], &[8, 1], 3) => true;
    k4_shampoo_transposes: v(&[128, 512], &[1, 128], 0), v(&[128, 512], &[1, 128], 65536) => false;
    k7_unfold_windows: v(&[20], &[1], 0), v(&[20], &[1], 10) => true;
    k15_short_rows: v(&[4, 4], &[9, 1], 0), v(&[2, 2], &[9, 1], 4) => false;
    k16_long_rows: v(&[4, 4], &[9, 1], 0), v(&[4, 6], &[9, 1], 4) => true;
    k10_expanded: v(&[4], &[0], 3), v(&[1], &[1], 4) => false;
}

// §3.6: PyTorch says "may overlap"; they are disjoint.
pair_cases! {
    k1_columns_of_2x2: v(&[2], &[2], 0), v(&[2], &[2], 1) => false;
    k2_even_odd: v(&[4], &[2], 0), v(&[4], &[2], 1) => false;
    k6_3d_interleave: v(&[2, 2, 2], &[8, 4, 1], 0), v(&[2, 2, 2], &[8, 4, 1], 2) => false;
    k12_different_outer_strides: v(&[2, 2], &[8, 1], 0), v(&[2, 2], &[4, 1], 2) => false;
    k14_inner_stride_2: v(&[3, 2], &[6, 2], 0), v(&[3, 2], &[6, 2], 1) => false;
}

// §3.7, bug B0: PyTorch says "disjoint"; they overlap.
pair_cases! {
    u1_shifted_by_one_row: v(&[4, 4], &[9, 1], 0), v(&[4, 4], &[9, 1], 9) => true;
    u2_shifted_by_two_rows: v(&[4, 4], &[9, 1], 0), v(&[4, 4], &[9, 1], 18) => true;
    u3_shift_inside_a_row: v(&[4, 4], &[9, 1], 0), v(&[4, 4], &[9, 1], 11) => true;
    u4_small: v(&[3, 2], &[4, 1], 0), v(&[3, 2], &[4, 1], 5) => true;
}

#[test]
fn b0_witnesses_are_the_shared_addresses() {
    let ans = analyze_views(
        &[v(&[4, 4], &[9, 1], 0), v(&[4, 4], &[9, 1], 11)],
        DEFAULT_BUDGET,
    );
    let symalias::overlap::Verdict::Overlap(w) = &ans.pairs[0].verdict else {
        panic!("expected an overlap")
    };
    // Shared addresses are 11, 12, 20, 21, 29, 30.
    assert!([11, 12, 20, 21, 29, 30].contains(&w.address), "{w:?}");
}

#[test]
fn same_tensor_twice_overlaps_and_empty_tensors_never_do() {
    let a = v(&[3, 3], &[3, 1], 0);
    assert_eq!(overlapping(&[a.clone(), a.clone()]), vec![0, 1]);
    let empty = v(&[0, 3], &[3, 1], 0);
    assert_eq!(
        overlapping(&[a.clone(), empty.clone(), empty]),
        Vec::<usize>::new()
    );
}

#[test]
fn dtype_reinterpretation_is_compared_in_bytes() {
    // A float32 view of elements 0..4 (bytes 0..16) and a uint8 view of bytes 8..12:
    // PyTorch compares element offsets (0..4 vs 8..12) and calls them disjoint.
    let f32 = View {
        sizes: vec![4],
        strides: vec![1],
        offset: 0,
        itemsize: 4,
    };
    let u8 = View {
        sizes: vec![4],
        strides: vec![1],
        offset: 8,
        itemsize: 1,
    };
    assert_eq!(overlapping(&[f32, u8]), vec![0, 1]);
}

fn slices(ranges: &[(i64, i64)]) -> Vec<View> {
    ranges.iter().map(|&(a, b)| v(&[b - a], &[1], a)).collect()
}

#[test]
fn group_examples_of_the_dynamo_tests() {
    assert_eq!(
        overlapping(&slices(&[(0, 5), (7, 13), (9, 20)])),
        vec![1, 2]
    );
    assert_eq!(
        overlapping(&slices(&[(0, 5), (7, 13), (13, 15)])),
        Vec::<usize>::new()
    );
    assert_eq!(
        overlapping(&slices(&[(0, 5), (4, 9), (10, 15), (15, 20)])),
        vec![0, 1]
    );
    assert_eq!(
        overlapping(&slices(&[(0, 5), (4, 9), (8, 13), (15, 20)])),
        vec![0, 1, 2]
    );
    // 100 chunks of split(10) plus x[4:44]: {0, 1, 2, 3, 4, 100}.
    let mut r: Vec<(i64, i64)> = (0..100).map(|i| (10 * i, 10 * i + 10)).collect();
    r.push((4, 44));
    assert_eq!(overlapping(&slices(&r)), vec![0, 1, 2, 3, 4, 100]);
    // Not transitive: [0:4], [2:6], [10:14], [12:16] → all four, though 0 and 3 are disjoint.
    let ans = analyze_views(
        &slices(&[(0, 4), (2, 6), (10, 14), (12, 16)]),
        DEFAULT_BUDGET,
    );
    assert_eq!(ans.overlapping, vec![0, 1, 2, 3]);
    let pairs: Vec<(usize, usize)> = ans.pairs.iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(pairs, vec![(0, 1), (2, 3)]);
}

#[test]
fn column_splits_of_a_large_matrix_need_no_search() {
    // 1,000 column slices of width 3 of a 5 x 3000 row-major matrix.
    let views: Vec<View> = (0..1000).map(|i| v(&[5, 3], &[3000, 1], 3 * i)).collect();
    let ans = analyze_views(&views, DEFAULT_BUDGET);
    assert!(ans.overlapping.is_empty());
    assert_eq!(ans.exact_tests, 0, "the box path decides every pair");
}
