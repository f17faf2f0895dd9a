//! Byte footprints as runs: what the picture draws of each view.

use crate::layout::View;

/// At most this many elements are enumerated per view; a larger view is
/// drawn by its extent (and says so).
pub(super) const ENUMERATED: u64 = 1 << 16;

/// A view's bytes: sorted, merged runs `[start, end)`, the bytes it reaches
/// twice (self-overlap), and whether the runs are its extent only.
pub(super) struct Footprint {
    pub runs: Vec<(i64, i64)>,
    pub twice: Vec<(i64, i64)>,
    pub extent_only: bool,
}

impl Footprint {
    pub fn of(v: &View) -> Footprint {
        let none = Footprint {
            runs: vec![],
            twice: vec![],
            extent_only: false,
        };
        if v.sizes.iter().any(|&s| s <= 0) {
            return none;
        }
        let n = v
            .sizes
            .iter()
            .try_fold(1u64, |acc, &s| acc.checked_mul(s as u64));
        let Some(n) = n.filter(|&n| n <= ENUMERATED) else {
            // Too many elements to list: the extent, marked as such.
            let (mut lo, mut hi) = (v.offset as i128, v.offset as i128);
            for (&s, &t) in v.sizes.iter().zip(&v.strides) {
                let reach = (s as i128 - 1) * t as i128;
                if reach < 0 {
                    lo += reach;
                } else {
                    hi += reach;
                }
            }
            let k = v.itemsize as i128;
            let clamp = |x: i128| x.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            return Footprint {
                runs: vec![(clamp(lo * k), clamp((hi + 1) * k))],
                twice: vec![],
                extent_only: true,
            };
        };
        let mut starts = Vec::with_capacity(n as usize);
        let mut index = vec![0i64; v.sizes.len()];
        loop {
            let e: i64 = v.offset
                + index
                    .iter()
                    .zip(&v.strides)
                    .map(|(i, t)| i * t)
                    .sum::<i64>();
            starts.push(e.saturating_mul(v.itemsize));
            // The next index, last dimension fastest.
            let mut d = v.sizes.len();
            loop {
                if d == 0 {
                    starts.sort_unstable();
                    return Footprint::merge(&starts, v.itemsize);
                }
                d -= 1;
                index[d] += 1;
                if index[d] < v.sizes[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }

    /// Runs from sorted element starts of `width` bytes each.
    fn merge(starts: &[i64], width: i64) -> Footprint {
        let mut runs: Vec<(i64, i64)> = vec![];
        let mut twice: Vec<(i64, i64)> = vec![];
        for &s in starts {
            let e = s.saturating_add(width);
            match runs.last_mut() {
                Some(last) if s <= last.1 => {
                    if s < last.1 {
                        push_run(&mut twice, s, e.min(last.1));
                    }
                    last.1 = last.1.max(e);
                }
                _ => runs.push((s, e)),
            }
        }
        Footprint {
            runs,
            twice,
            extent_only: false,
        }
    }
}

/// Appends `[s, e)`, merged with the last run when they touch.
fn push_run(runs: &mut Vec<(i64, i64)>, s: i64, e: i64) {
    match runs.last_mut() {
        Some(last) if s <= last.1 => last.1 = last.1.max(e),
        _ => runs.push((s, e)),
    }
}

/// The bytes at least two of `footprints` reach.
pub(super) fn shared(footprints: &[Footprint]) -> Vec<(i64, i64)> {
    let mut events: Vec<(i64, i32)> = footprints
        .iter()
        .flat_map(|f| f.runs.iter().flat_map(|&(s, e)| [(s, 1), (e, -1)]))
        .collect();
    events.sort_unstable();
    let (mut depth, mut out, mut from) = (0, Vec::new(), 0);
    for (x, d) in events {
        let before = depth;
        depth += d;
        if before < 2 && depth >= 2 {
            from = x;
        } else if before >= 2 && depth < 2 && x > from {
            push_run(&mut out, from, x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(sizes: &[i64], strides: &[i64], offset: i64, itemsize: i64) -> View {
        View {
            sizes: sizes.to_vec(),
            strides: strides.to_vec(),
            offset,
            itemsize,
        }
    }

    #[test]
    fn runs_are_the_bytes_of_the_elements() {
        let f = Footprint::of(&view(&[2, 3], &[9, 1], 1, 4));
        assert_eq!(f.runs, vec![(4, 16), (40, 52)]);
        assert!(f.twice.is_empty() && !f.extent_only);
    }

    #[test]
    fn a_view_reaching_a_byte_twice_says_where() {
        // Windows of 4 every 2: elements 2, 3 twice.
        let f = Footprint::of(&view(&[2, 4], &[2, 1], 0, 1));
        assert_eq!(f.runs, vec![(0, 6)]);
        assert_eq!(f.twice, vec![(2, 4)]);
    }

    #[test]
    fn shared_bytes_are_those_two_views_reach() {
        let a = Footprint::of(&view(&[4, 4], &[9, 1], 0, 4));
        let b = Footprint::of(&view(&[4, 4], &[9, 1], 9, 4));
        assert_eq!(shared(&[a, b]), vec![(36, 52), (72, 88), (108, 124)]);
    }

    #[test]
    fn a_huge_view_is_drawn_by_its_extent() {
        let f = Footprint::of(&view(&[1049, 1049, 1049], &[36674, 61119, 85569], 0, 1));
        assert!(f.extent_only);
        assert_eq!(f.runs, vec![(0, 1048 * (36674 + 61119 + 85569) + 1)]);
    }
}
