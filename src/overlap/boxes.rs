//! The block-structure fast path for a whole group.
//!
//! When the strides of a group's views form a divisibility chain
//! `S_0 > S_1 > … > S_m = 1` (each dividing the previous), every address has
//! unique mixed-radix digits `D_0 = a div S_0`, `D_k = (a mod S_(k-1)) div S_k`.
//! A view whose dimensions use chain strides and whose inner digits never carry
//! (`digit_k(start) + n_k <= S_(k-1)/S_k`) covers exactly a box in digit space.
//! Two such views share an address exactly when their boxes intersect, so
//! column splits, row blocks and 2-D tilings are decided without any search.
//!
//! Box pairs are enumerated by a sweep along the dimension in which the fewest
//! projected intervals overlap (counted in O(k log k) per dimension), so the cost
//! is O(d·k log k + candidate pairs) rather than O(k²).

use super::footprint::Footprint;
use super::pair::{Verdict, Witness};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A view as a box in digit space: inclusive `(lo, hi)` per chain level.
#[derive(Clone, Debug)]
pub(crate) struct DigitBox {
    pub ranges: Vec<(i128, i128)>,
    /// For each normalised dim of the footprint, its chain level.
    pub level_of_dim: Vec<usize>,
}

/// The stride chain of a group, if all strides form one.
pub(crate) fn chain(footprints: &[&Footprint]) -> Option<Vec<i128>> {
    let mut strides: Vec<i128> = footprints
        .iter()
        .flat_map(|f| f.dims.iter().map(|d| d.stride))
        .collect();
    strides.push(1);
    strides.sort_unstable_by(|a, b| b.cmp(a));
    strides.dedup();
    strides
        .windows(2)
        .all(|w| w[0] % w[1] == 0)
        .then_some(strides)
}

/// The digits of an address.
fn digits(chain: &[i128], a: i128) -> Vec<i128> {
    let mut out = Vec::with_capacity(chain.len());
    out.push(a.div_euclid(chain[0]));
    for k in 1..chain.len() {
        out.push(a.rem_euclid(chain[k - 1]).div_euclid(chain[k]));
    }
    out
}

/// The box of a footprint on the chain, if it is one.
pub(crate) fn digit_box(chain: &[i128], f: &Footprint) -> Option<DigitBox> {
    let lo = digits(chain, f.start);
    let mut size = vec![1i128; chain.len()];
    let mut level_of_dim = Vec::with_capacity(f.dims.len());
    for d in &f.dims {
        let k = chain.iter().position(|&s| s == d.stride)?;
        if size[k] != 1 {
            return None; // two dims on one level: not a box
        }
        size[k] = d.size;
        level_of_dim.push(k);
    }
    for k in 1..chain.len() {
        if lo[k] + size[k] > chain[k - 1] / chain[k] {
            return None; // the inner digits would carry
        }
    }
    let ranges = lo
        .iter()
        .zip(&size)
        .map(|(&l, &n)| (l, l + n - 1))
        .collect();
    Some(DigitBox {
        ranges,
        level_of_dim,
    })
}

/// Number of intersecting pairs among closed intervals.
fn count_pairs(iv: &[(i128, i128)]) -> u128 {
    let mut los: Vec<i128> = iv.iter().map(|r| r.0).collect();
    let mut his: Vec<i128> = iv.iter().map(|r| r.1).collect();
    los.sort_unstable();
    his.sort_unstable();
    // For each interval in start order: the earlier-starting ones that are still open.
    los.iter()
        .enumerate()
        .map(|(i, &lo)| (i - his.partition_point(|&h| h < lo)) as u128)
        .sum()
}

/// All intersecting pairs of boxes, with witnesses. `items` are (view index,
/// footprint, box); the result lists pairs as (smaller index, larger index).
pub(crate) fn overlapping_pairs(
    chain: &[i128],
    items: &[(usize, &Footprint, DigitBox)],
) -> Vec<(usize, usize, Verdict)> {
    if items.len() < 2 {
        return Vec::new();
    }
    let levels = chain.len();
    let best = (0..levels)
        .min_by_key(|&k| count_pairs(&items.iter().map(|it| it.2.ranges[k]).collect::<Vec<_>>()))
        .unwrap_or(0);
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| (items[i].2.ranges[best].0, items[i].0));
    let mut active: BinaryHeap<Reverse<(i128, usize)>> = BinaryHeap::new();
    let mut out = Vec::new();
    for &i in &order {
        let (lo, hi) = items[i].2.ranges[best];
        while let Some(Reverse((end, _))) = active.peek() {
            if *end < lo {
                active.pop();
            } else {
                break;
            }
        }
        for Reverse((_, j)) in active.iter() {
            if let Some(v) = intersect(chain, &items[*j], &items[i]) {
                let (a, b) = (items[*j].0, items[i].0);
                out.push(if a < b { (a, b, v) } else { (b, a, swap(v)) });
            }
        }
        active.push(Reverse((hi, i)));
    }
    out
}

fn swap(v: Verdict) -> Verdict {
    match v {
        Verdict::Overlap(w) => Verdict::Overlap(Witness {
            address: w.address,
            index_a: w.index_b,
            index_b: w.index_a,
        }),
        other => other,
    }
}

/// The witness at the lower corner of the boxes' intersection, if any.
fn intersect(
    chain: &[i128],
    a: &(usize, &Footprint, DigitBox),
    b: &(usize, &Footprint, DigitBox),
) -> Option<Verdict> {
    let mut corner = Vec::with_capacity(chain.len());
    for (ra, rb) in a.2.ranges.iter().zip(&b.2.ranges) {
        let lo = ra.0.max(rb.0);
        if lo > ra.1.min(rb.1) {
            return None;
        }
        corner.push(lo);
    }
    let address: i128 = corner.iter().zip(chain).map(|(d, s)| d * s).sum();
    let values = |x: &(usize, &Footprint, DigitBox)| -> Vec<i128> {
        x.2.level_of_dim
            .iter()
            .map(|&k| corner[k] - x.2.ranges[k].0)
            .collect()
    };
    Some(Verdict::Overlap(Witness {
        address: address * a.1.unit_bytes,
        index_a: a.1.index_of(&values(a)),
        index_b: b.1.index_of(&values(b)),
    }))
}
