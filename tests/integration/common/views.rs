//! Brute-force ground truth for overlap: enumerate every byte of every view.

#![allow(dead_code)]

use hashbrown::HashSet;
use symalias::layout::View;

/// Every byte address a view covers.
pub fn bytes_of(v: &View) -> HashSet<i64> {
    let mut out = HashSet::new();
    if v.sizes.contains(&0) {
        return out;
    }
    let mut idx = vec![0i64; v.sizes.len()];
    loop {
        let e: i64 = v.offset + idx.iter().zip(&v.strides).map(|(i, s)| i * s).sum::<i64>();
        for b in 0..v.itemsize {
            out.insert(e * v.itemsize + b);
        }
        // odometer
        let mut d = v.sizes.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < v.sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// The exact overlapping pairs and set of a group, by enumeration.
pub fn brute_group(views: &[View]) -> (Vec<(usize, usize)>, Vec<usize>) {
    let sets: Vec<HashSet<i64>> = views.iter().map(bytes_of).collect();
    let mut pairs = Vec::new();
    for a in 0..views.len() {
        for b in a + 1..views.len() {
            if sets[a].iter().any(|x| sets[b].contains(x)) {
                pairs.push((a, b));
            }
        }
    }
    let mut set: Vec<usize> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    set.sort_unstable();
    set.dedup();
    (pairs, set)
}

/// `true` when `index` is inside the view and its element covers `address`.
pub fn covers(v: &View, index: &[i64], address: i64) -> bool {
    if index.len() != v.sizes.len() || index.iter().zip(&v.sizes).any(|(i, n)| *i < 0 || i >= n) {
        return false;
    }
    let start = v.byte_address(index);
    start <= address as i128 && (address as i128) < start + v.itemsize as i128
}

/// Whether two distinct indices of `v` reach one element (enumerating every
/// index: small views only).
pub fn repeats_an_element(v: &View) -> bool {
    let mut seen = HashSet::new();
    let total: i64 = v.sizes.iter().product();
    for flat in 0..total {
        let mut rest = flat;
        let mut addr = v.offset;
        for d in (0..v.sizes.len()).rev() {
            addr += (rest % v.sizes[d]) * v.strides[d];
            rest /= v.sizes[d];
        }
        if !seen.insert(addr) {
            return true;
        }
    }
    false
}

/// The views of a FORMATS §3 case whose symbols are `s0`, `s1`, … at the
/// values `at` (by position), or `None` when some field is not a valid
/// non-negative value there (no valid views: outside the domain).
pub fn case_views_at(case: &serde_json::Value, at: &[i64]) -> Option<Vec<View>> {
    use symalias::expr::{parse, ExprPool};
    let mut pool = ExprPool::new();
    let mut val = |v: &serde_json::Value| -> Option<i64> {
        if let Some(k) = v.as_i64() {
            return Some(k);
        }
        let e = parse(&mut pool, v.as_str()?).ok()?;
        let look = |s| {
            pool.symbol_name(s)[1..]
                .parse::<usize>()
                .ok()
                .map(|i| at[i])
        };
        pool.eval_int(e, &look).ok().filter(|&x| x >= 0)
    };
    case["tensors"]
        .as_array()?
        .iter()
        .map(|t| {
            let list = |key: &str, val: &mut dyn FnMut(&serde_json::Value) -> Option<i64>| {
                t[key]
                    .as_array()?
                    .iter()
                    .map(val)
                    .collect::<Option<Vec<i64>>>()
            };
            Some(View {
                sizes: list("sizes", &mut val)?,
                strides: list("strides", &mut val)?,
                offset: val(&t["storage_offset"])?,
                itemsize: t["itemsize"].as_i64()?,
            })
        })
        .collect()
}
