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
//! Box pairs are enumerated by a sweep along the least crowded level, with the
//! open boxes ordered on a second level, so the cost is O(d·k + k log k +
//! candidate pairs) rather than O(k²).

use super::footprint::Footprint;
use super::pair::{Verdict, Witness};
use super::sweep::{ListedPair, PairSink};
use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// A view as a box in digit space: inclusive `(lo, hi)` per chain level.
#[derive(Clone, Debug)]
pub(crate) struct DigitBox {
    pub ranges: SmallVec<[(i64, i64); 4]>,
    /// For each normalised dim of the footprint, its chain level.
    pub level_of_dim: SmallVec<[usize; 4]>,
}

/// The stride chain of a group, if all strides form one.
pub(crate) fn chain(footprints: &[&Footprint]) -> Option<Vec<i64>> {
    // Distinct strides are few: a linear set beats sorting every stride.
    let mut strides: Vec<i64> = vec![1];
    for d in footprints.iter().flat_map(|f| f.dims.iter()) {
        if !strides.contains(&d.stride) {
            strides.push(d.stride);
        }
    }
    strides.sort_unstable_by(|a, b| b.cmp(a));
    strides
        .windows(2)
        .all(|w| w[0] % w[1] == 0)
        .then_some(strides)
}

/// The digits of an address.
fn digits(chain: &[i64], a: i64) -> SmallVec<[i64; 4]> {
    let mut out = SmallVec::new();
    out.push(a.div_euclid(chain[0]));
    for k in 1..chain.len() {
        out.push(a.rem_euclid(chain[k - 1]).div_euclid(chain[k]));
    }
    out
}

/// The box of a footprint on the chain, if it is one.
pub(crate) fn digit_box(chain: &[i64], f: &Footprint) -> Option<DigitBox> {
    let lo = digits(chain, f.start);
    let mut size: SmallVec<[i64; 4]> = smallvec::smallvec![1i64; chain.len()];
    let mut level_of_dim = SmallVec::new();
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

/// How crowded the boxes' projections on one level are: total length over the
/// span (about the number of boxes over a typical point). The sweep runs along
/// the least crowded level, which keeps the candidate pairs few.
fn crowding(items: &[(usize, &Footprint, DigitBox)], level: usize) -> f64 {
    let (mut lo, mut hi, mut total) = (i64::MAX, i64::MIN, 0f64);
    for it in items {
        let (a, b) = it.2.ranges[level];
        lo = lo.min(a);
        hi = hi.max(b);
        total += (b - a + 1) as f64;
    }
    total / (hi - lo + 1) as f64
}

/// All intersecting pairs of boxes, with witnesses. `items` are (view index,
/// footprint, box); the result lists pairs as (smaller index, larger index).
///
/// Sweep along the primary level (the one whose projected intervals overlap
/// least); the boxes still open there are kept ordered by their start on the
/// secondary level, so that a new box only meets the open boxes whose
/// secondary interval can reach it (start within the longest secondary length).
pub(crate) fn overlapping_pairs(
    chain: &[i64],
    items: &[(usize, &Footprint, DigitBox)],
    sink: &mut PairSink,
) {
    if items.len() < 2 {
        return;
    }
    let mut levels: Vec<(f64, usize)> = (0..chain.len()).map(|k| (crowding(items, k), k)).collect();
    levels.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let primary = levels[0].1;
    let secondary = levels.get(1).map_or(primary, |p| p.1);
    let longest = items
        .iter()
        .map(|it| it.2.ranges[secondary].1 - it.2.ranges[secondary].0)
        .max()
        .unwrap_or(0);
    let mut keyed: Vec<(i64, usize, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.2.ranges[primary].0, it.0, i))
        .collect();
    keyed.sort_unstable();
    let order = keyed.iter().map(|k| k.2);
    // Open boxes: by secondary start, and by primary end for expiry.
    let mut open: BTreeMap<(i64, usize), ()> = BTreeMap::new();
    let mut expiry: BinaryHeap<Reverse<(i64, i64, usize)>> = BinaryHeap::new();
    for i in order {
        let (lo, hi) = items[i].2.ranges[primary];
        while let Some(&Reverse((end, s_lo, j))) = expiry.peek() {
            if end >= lo {
                break;
            }
            expiry.pop();
            open.remove(&(s_lo, j));
        }
        let (s_lo, s_hi) = items[i].2.ranges[secondary];
        for (&(_, j), _) in open.range((s_lo - longest, 0)..=(s_hi, usize::MAX)) {
            let (a, b) = (items[j].0, items[i].0);
            if !sink.wants(a.min(b), a.max(b)) {
                continue;
            }
            if let Some(v) = intersect(chain, &items[j], &items[i]) {
                sink.push(if a < b {
                    ListedPair { a, b, verdict: v }
                } else {
                    ListedPair {
                        a: b,
                        b: a,
                        verdict: swap(v),
                    }
                });
            }
        }
        open.insert((s_lo, i), ());
        expiry.push(Reverse((hi, s_lo, i)));
    }
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
    chain: &[i64],
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
    let address: i64 = corner.iter().zip(chain).map(|(d, s)| d * s).sum();
    let values = |x: &(usize, &Footprint, DigitBox)| -> SmallVec<[i64; 4]> {
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
