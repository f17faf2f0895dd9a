//! Tensor layouts: the one description of where a tensor's elements live in
//! its storage, shared by overlap, aot, guards and the run-time checker.
//!
//! * [`Layout`] — sizes, strides and storage offset as expressions
//!   ([`ExprId`]s of one pool) and the itemsize in bytes. The itemsize is a
//!   property of the dtype, never symbolic, so it is a plain integer.
//! * [`View`] / [`ViewRef`] — the evaluated form (every field an integer),
//!   validated once ([`ViewRef::validate`]); what the exact decision and the
//!   checker read.
//!
//! Invariant: a [`View`] produced by [`Layout::at`] is valid (ranks agree, no
//! negative size, stride or offset, itemsize ≥ 1, every byte address fits
//! `i64`).

mod view;

pub(crate) use view::default_itemsize;
pub use view::{View, ViewError, ViewRef};

use crate::expr::{EvalError, ExprId, ExprPool, SymbolId};
use thiserror::Error;

/// Bytes per element when a format does not say (FORMATS.md §3, §5, §6).
pub(crate) const DEFAULT_ITEMSIZE: i64 = 1;

/// Where a tensor's elements live: `offset + sum_d i_d * strides[d]` for
/// `0 <= i_d < sizes[d]`, in elements of `itemsize` bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Sizes, one per dimension.
    pub sizes: Vec<ExprId>,
    /// Strides in elements, one per dimension.
    pub strides: Vec<ExprId>,
    /// Storage offset in elements.
    pub offset: ExprId,
    /// Bytes per element.
    pub itemsize: i64,
}

/// The field of a layout an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `sizes[d]`.
    Size(usize),
    /// `strides[d]`.
    Stride(usize),
    /// `storage_offset`.
    Offset,
    /// `itemsize`.
    Itemsize,
    /// The layout as a whole (rank mismatch, overflow).
    Whole,
}

impl Field {
    /// The field's name relative to a tensor: `sizes[0]`, `storage_offset`,
    /// `""` for the whole.
    pub fn name(self) -> String {
        match self {
            Field::Size(d) => format!("sizes[{d}]"),
            Field::Stride(d) => format!("strides[{d}]"),
            Field::Offset => "storage_offset".into(),
            Field::Itemsize => "itemsize".into(),
            Field::Whole => String::new(),
        }
    }
}

/// Why a layout has no valid view at some symbol values.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum LayoutError {
    /// A field cannot be evaluated (division by zero, overflow, a missing
    /// value, a boolean where an integer belongs).
    #[error("`{expr}` at {at}: {error}")]
    Eval {
        /// The field.
        field: Field,
        /// The field's expression, printed.
        expr: String,
        /// Where it was evaluated (e.g. `the hints`).
        at: String,
        /// The evaluator's error.
        error: EvalError,
    },
    /// The values do not form a valid view.
    #[error("{error}")]
    View {
        /// The field at fault.
        field: Field,
        /// What is wrong.
        error: ViewError,
    },
}

impl LayoutError {
    /// The field at fault.
    pub fn field(&self) -> Field {
        match self {
            LayoutError::Eval { field, .. } | LayoutError::View { field, .. } => *field,
        }
    }
}

/// The field a view error is about.
pub(crate) fn field_of(error: &ViewError) -> Field {
    match *error {
        ViewError::NegativeSize(d) => Field::Size(d),
        ViewError::NegativeStride(d) => Field::Stride(d),
        ViewError::NegativeOffset => Field::Offset,
        ViewError::BadItemsize => Field::Itemsize,
        ViewError::RankMismatch { .. } | ViewError::Overflow => Field::Whole,
    }
}

impl Layout {
    /// A concrete layout: integer fields, interned in `pool`.
    pub fn concrete(pool: &mut ExprPool, view: ViewRef) -> Layout {
        Layout {
            sizes: view.sizes.iter().map(|&v| pool.int(v)).collect(),
            strides: view.strides.iter().map(|&v| pool.int(v)).collect(),
            offset: pool.int(view.offset),
            itemsize: view.itemsize,
        }
    }

    /// Every expression field (sizes, strides, offset) with its [`Field`].
    pub fn fields(&self) -> impl Iterator<Item = (Field, ExprId)> + '_ {
        let sizes = self
            .sizes
            .iter()
            .enumerate()
            .map(|(d, &e)| (Field::Size(d), e));
        let strides = self
            .strides
            .iter()
            .enumerate()
            .map(|(d, &e)| (Field::Stride(d), e));
        sizes
            .chain(strides)
            .chain(std::iter::once((Field::Offset, self.offset)))
    }

    /// `true` when some size, stride or the offset mentions a symbol.
    pub fn is_symbolic(&self, pool: &ExprPool) -> bool {
        self.fields().any(|(_, e)| pool.as_int(e).is_none())
    }

    /// Dimensions whose size is not a constant.
    pub fn dynamic_dims(&self, pool: &ExprPool) -> Vec<usize> {
        (0..self.sizes.len())
            .filter(|&d| pool.as_int(self.sizes[d]).is_none())
            .collect()
    }

    /// The same layout with every field mapped by `f` (e.g. simplified).
    pub fn map(&self, mut f: impl FnMut(ExprId) -> ExprId) -> Layout {
        Layout {
            sizes: self.sizes.iter().map(|&e| f(e)).collect(),
            strides: self.strides.iter().map(|&e| f(e)).collect(),
            offset: f(self.offset),
            itemsize: self.itemsize,
        }
    }

    /// The concrete view at symbol values from `lookup` (described as `at` in
    /// errors), validated.
    pub fn at(
        &self,
        pool: &ExprPool,
        lookup: &dyn Fn(SymbolId) -> Option<i64>,
        at: &str,
    ) -> Result<View, LayoutError> {
        if self.sizes.len() != self.strides.len() {
            return Err(LayoutError::View {
                field: Field::Whole,
                error: ViewError::RankMismatch {
                    sizes: self.sizes.len(),
                    strides: self.strides.len(),
                },
            });
        }
        let eval = |e: ExprId, field: Field| -> Result<i64, LayoutError> {
            pool.eval_int(e, lookup).map_err(|error| LayoutError::Eval {
                field,
                expr: pool.display(e).to_string(),
                at: at.to_string(),
                error,
            })
        };
        let sizes = (0..self.sizes.len())
            .map(|d| eval(self.sizes[d], Field::Size(d)))
            .collect::<Result<Vec<_>, _>>()?;
        let strides = (0..self.strides.len())
            .map(|d| eval(self.strides[d], Field::Stride(d)))
            .collect::<Result<Vec<_>, _>>()?;
        let offset = eval(self.offset, Field::Offset)?;
        let view = View {
            sizes,
            strides,
            offset,
            itemsize: self.itemsize,
        };
        view.validate().map_err(|error| LayoutError::View {
            field: field_of(&error),
            error,
        })?;
        Ok(view)
    }

    /// The concrete view at the environment's hints, validated.
    pub fn at_hints(&self, pool: &ExprPool, env: &crate::env::Env) -> Result<View, LayoutError> {
        self.at(pool, &|s| env.hint(s), "the hints")
    }
}
