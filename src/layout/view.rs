//! Concrete strided views: the evaluated form of a [`Layout`](super::Layout)
//! (every field an integer), validated once and then read by the exact
//! decision and the run-time checker.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Serde default of `itemsize` (every format's tensors use it).
pub(crate) fn default_itemsize() -> i64 {
    super::DEFAULT_ITEMSIZE
}

/// A concrete strided view (all values at the hints, or a call's).
///
/// In JSON (FORMATS.md §6 call tensors) its keys are `sizes`, `strides`,
/// `storage_offset` (default 0) and `itemsize` (default 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Sizes, one per dimension.
    pub sizes: Vec<i64>,
    /// Strides in elements, one per dimension.
    pub strides: Vec<i64>,
    /// Storage offset in elements.
    #[serde(rename = "storage_offset", default)]
    pub offset: i64,
    /// Bytes per element.
    #[serde(default = "default_itemsize")]
    pub itemsize: i64,
}

/// A borrowed strided view: what footprints are built from (no copies of
/// sizes and strides, e.g. in the run-time guard checker).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewRef<'a> {
    /// Sizes, one per dimension.
    pub sizes: &'a [i64],
    /// Strides in elements, one per dimension.
    pub strides: &'a [i64],
    /// Storage offset in elements.
    pub offset: i64,
    /// Bytes per element.
    pub itemsize: i64,
}

impl ViewRef<'_> {
    /// Checks ranks, signs, and that every byte address fits `i64`.
    pub fn validate(&self) -> Result<(), ViewError> {
        if self.sizes.len() != self.strides.len() {
            return Err(ViewError::RankMismatch {
                sizes: self.sizes.len(),
                strides: self.strides.len(),
            });
        }
        if let Some(d) = self.sizes.iter().position(|&s| s < 0) {
            return Err(ViewError::NegativeSize(d));
        }
        if let Some(d) = self.strides.iter().position(|&s| s < 0) {
            return Err(ViewError::NegativeStride(d));
        }
        if self.offset < 0 {
            return Err(ViewError::NegativeOffset);
        }
        if self.itemsize < 1 {
            return Err(ViewError::BadItemsize);
        }
        let mut last = self.offset as i128;
        for (&n, &s) in self.sizes.iter().zip(self.strides) {
            last += (n.max(1) as i128 - 1) * s as i128;
        }
        let end = (last + 1) * self.itemsize as i128 - 1;
        if end > i64::MAX as i128 {
            return Err(ViewError::Overflow);
        }
        Ok(())
    }

    /// `true` when some size is 0.
    pub fn is_empty(&self) -> bool {
        self.sizes.contains(&0)
    }
}

/// What is wrong with a view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewError {
    /// `sizes` and `strides` have different lengths.
    RankMismatch {
        /// Number of sizes.
        sizes: usize,
        /// Number of strides.
        strides: usize,
    },
    /// A size is negative.
    NegativeSize(usize),
    /// A stride is negative.
    NegativeStride(usize),
    /// The storage offset is negative.
    NegativeOffset,
    /// The itemsize is not positive.
    BadItemsize,
    /// A byte address of the footprint does not fit in 64 bits.
    Overflow,
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewError::RankMismatch { sizes, strides } => {
                write!(f, "{sizes} sizes but {strides} strides")
            }
            ViewError::NegativeSize(d) => write!(f, "size of dimension {d} is negative"),
            ViewError::NegativeStride(d) => write!(f, "stride of dimension {d} is negative"),
            ViewError::NegativeOffset => f.write_str("storage offset is negative"),
            ViewError::BadItemsize => f.write_str("itemsize must be at least 1"),
            ViewError::Overflow => {
                f.write_str("a byte address of the view does not fit in 64 bits")
            }
        }
    }
}

impl View {
    /// A view with itemsize 1.
    pub fn new(sizes: &[i64], strides: &[i64], offset: i64) -> Self {
        View {
            sizes: sizes.to_vec(),
            strides: strides.to_vec(),
            offset,
            itemsize: super::DEFAULT_ITEMSIZE,
        }
    }

    /// Checks ranks, signs, and that every byte address fits `i64`.
    pub fn validate(&self) -> Result<(), ViewError> {
        self.view_ref().validate()
    }

    /// `true` when some size is 0.
    pub fn is_empty(&self) -> bool {
        self.sizes.contains(&0)
    }

    /// The view, borrowed.
    pub fn view_ref(&self) -> ViewRef<'_> {
        ViewRef {
            sizes: &self.sizes,
            strides: &self.strides,
            offset: self.offset,
            itemsize: self.itemsize,
        }
    }

    /// The byte address of the element at `index`.
    pub fn byte_address(&self, index: &[i64]) -> i128 {
        let e: i128 = self.offset as i128
            + index
                .iter()
                .zip(&self.strides)
                .map(|(&i, &s)| i as i128 * s as i128)
                .sum::<i128>();
        e * self.itemsize as i128
    }
}
