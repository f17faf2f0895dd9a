//! Concrete views and their normalised footprints.
//!
//! A view's footprint is `{ offset + sum_d i_d*stride_d : 0 <= i_d < size_d }`
//! (FORMATS.md §3), each element covering `itemsize` bytes. Footprints of one
//! case are compared in a common unit: elements when every view has the same
//! itemsize, bytes otherwise (then each view gets an extra innermost "byte"
//! dimension of size `itemsize` and stride 1).
//!
//! Normalisation keeps the address set and drops what does not change it:
//! dimensions of size 1 or stride 0, and merges a dimension into the next
//! outer one when the outer stride equals `size * stride` (a contiguous run).
//! Each normalised dimension remembers the original dimensions it stands for,
//! so that a witness can be reported in the view's own indices.

use crate::layout::ViewRef;
use smallvec::{smallvec, SmallVec};

/// Marks the byte-within-element dimension in [`Dim::parts`].
pub(crate) const BYTE_DIM: u32 = u32::MAX;

/// One normalised dimension: `size >= 2`, `stride >= 1`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Dim {
    pub size: i64,
    pub stride: i64,
    /// The original dimensions merged here, innermost first: (dim, size).
    pub parts: SmallVec<[(u32, i64); 2]>,
}

/// A normalised footprint in a common unit (elements or bytes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Footprint {
    /// Normalised dimensions, by decreasing stride.
    pub dims: SmallVec<[Dim; 3]>,
    /// First address.
    pub start: i64,
    /// Last address (inclusive).
    pub end: i64,
    /// No address at all.
    pub empty: bool,
    /// Rank of the original view (for witnesses).
    pub rank: usize,
    /// Bytes per unit of `start`/`end` (the itemsize in element mode, 1 in byte mode).
    pub unit_bytes: i64,
}

impl Footprint {
    /// The footprint of a valid view (see [`View::validate`]: every address
    /// fits `i64`), in bytes when `bytes` is set, else in elements.
    pub fn new(v: ViewRef, bytes: bool) -> Footprint {
        let scale = if bytes { v.itemsize } else { 1 };
        let mut dims: SmallVec<[Dim; 3]> = v
            .sizes
            .iter()
            .zip(v.strides)
            .enumerate()
            .filter(|(_, (&n, &s))| n >= 2 && s > 0)
            .map(|(d, (&n, &s))| Dim {
                size: n,
                stride: s * scale,
                parts: smallvec![(d as u32, n)],
            })
            .collect();
        if bytes && v.itemsize > 1 {
            dims.push(Dim {
                size: v.itemsize,
                stride: 1,
                parts: smallvec![(BYTE_DIM, v.itemsize)],
            });
        }
        dims.sort_by_key(|d| d.stride);
        let mut merged: SmallVec<[Dim; 3]> = SmallVec::new();
        for d in dims {
            match merged.last_mut() {
                Some(inner) if d.stride == inner.size * inner.stride => {
                    inner.size *= d.size;
                    inner.parts.extend(d.parts);
                }
                _ => merged.push(d),
            }
        }
        merged.reverse();
        let start = v.offset * scale;
        let end = start + merged.iter().map(|d| (d.size - 1) * d.stride).sum::<i64>();
        Footprint {
            dims: merged,
            start,
            end,
            empty: v.is_empty(),
            rank: v.sizes.len(),
            unit_bytes: if bytes { 1 } else { v.itemsize },
        }
    }

    /// `true` when the footprint is one contiguous run of addresses.
    pub(crate) fn is_run(&self) -> bool {
        self.dims.is_empty() || (self.dims.len() == 1 && self.dims[0].stride == 1)
    }

    /// The view's element index for per-dimension values of the normalised dims.
    pub(crate) fn index_of(&self, values: &[i64]) -> Vec<i64> {
        let mut idx = vec![0i64; self.rank];
        for (d, &v) in self.dims.iter().zip(values) {
            let mut v = v;
            for &(orig, n) in &d.parts {
                if orig != BYTE_DIM {
                    idx[orig as usize] = v % n;
                }
                v /= n;
            }
        }
        idx
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{View, ViewError};

    #[test]
    fn contiguous_views_normalise_to_one_run() {
        let f = Footprint::new(View::new(&[2, 3, 4], &[12, 4, 1], 5).view_ref(), false);
        assert!(f.is_run());
        assert_eq!((f.start, f.end), (5, 28));
        assert_eq!(f.index_of(&[13]), vec![1, 0, 1]);
    }

    #[test]
    fn expanded_and_unit_dims_disappear() {
        let f = Footprint::new(View::new(&[4, 1, 3], &[0, 7, 2], 1).view_ref(), false);
        assert_eq!(f.dims.len(), 1);
        assert_eq!((f.start, f.end), (1, 5));
    }

    #[test]
    fn byte_mode_adds_the_bytes_of_an_element() {
        let v = View {
            sizes: vec![2],
            strides: vec![1],
            offset: 3,
            itemsize: 4,
        };
        let f = Footprint::new(v.view_ref(), true);
        assert!(f.is_run());
        assert_eq!((f.start, f.end), (12, 19));
    }

    #[test]
    fn bad_views_are_rejected() {
        assert_eq!(
            View::new(&[2], &[1, 1], 0).validate(),
            Err(ViewError::RankMismatch {
                sizes: 1,
                strides: 2
            })
        );
        assert_eq!(
            View::new(&[-1], &[1], 0).validate(),
            Err(ViewError::NegativeSize(0))
        );
        assert_eq!(
            View::new(&[2], &[-1], 0).validate(),
            Err(ViewError::NegativeStride(0))
        );
        assert_eq!(
            View::new(&[2], &[1], -1).validate(),
            Err(ViewError::NegativeOffset)
        );
        assert_eq!(
            View::new(&[3], &[i64::MAX / 2 + 1], 1).validate(),
            Err(ViewError::Overflow)
        );
        assert_eq!(
            View {
                sizes: vec![2],
                strides: vec![1],
                offset: i64::MAX / 4,
                itemsize: 4
            }
            .validate(),
            Err(ViewError::Overflow)
        );
    }
}
