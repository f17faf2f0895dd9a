//! Overlap of strided views of one storage: footprints, the exact pair
//! decision at concrete values, and the sub-quadratic group algorithm.
//!
//! Soundness contract: a pair is reported disjoint only when its footprints
//! share no byte; a pair the search cannot settle within its work bound is
//! reported as overlapping and marked undecided. Every overlapping pair carries
//! a witness (a shared byte address and the indices of both views reaching it).

mod boxes;
mod diophantine;
mod domain;
mod encode;
mod footprint;
mod group;
mod pair;
mod proof;

pub use diophantine::{gcd, solve, Solve, Term};
pub use encode::{Encoder, Unsupported};
pub use footprint::{View, ViewError, ViewRef};
pub use group::{components, GroupAnswer};
pub use pair::{Verdict, Witness, DEFAULT_BUDGET};
pub use proof::{prove_case, CaseProof, PairProof, ProofOptions};

use crate::env::Env;
use crate::expr::{EvalError, ExprId, ExprPool};
use std::fmt;

/// A tensor of a case: symbolic sizes, strides and offset, and an itemsize.
#[derive(Clone, Debug)]
pub struct SymTensor {
    /// Run-time source, if known.
    pub source: Option<String>,
    /// Sizes.
    pub sizes: Vec<ExprId>,
    /// Strides in elements.
    pub strides: Vec<ExprId>,
    /// Storage offset in elements.
    pub offset: ExprId,
    /// Bytes per element.
    pub itemsize: i64,
}

/// The field of a tensor an error is about.
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
    /// The tensor as a whole (e.g. rank mismatch, overflow).
    Whole,
}

/// A bad tensor: which tensor, which field, what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorError {
    /// Index of the tensor in the case.
    pub tensor: usize,
    /// The field at fault.
    pub field: Field,
    /// What is wrong.
    pub message: String,
}

impl TensorError {
    /// The JSON field path, e.g. `tensors[1].sizes[0]`.
    pub fn path(&self) -> String {
        let t = format!("tensors[{}]", self.tensor);
        match self.field {
            Field::Size(d) => format!("{t}.sizes[{d}]"),
            Field::Stride(d) => format!("{t}.strides[{d}]"),
            Field::Offset => format!("{t}.storage_offset"),
            Field::Itemsize => format!("{t}.itemsize"),
            Field::Whole => t,
        }
    }
}

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path(), self.message)
    }
}

impl std::error::Error for TensorError {}

impl SymTensor {
    /// `true` when some size, stride or the offset mentions a symbol.
    pub fn is_symbolic(&self, pool: &ExprPool) -> bool {
        self.sizes
            .iter()
            .chain(&self.strides)
            .chain(std::iter::once(&self.offset))
            .any(|&e| pool.as_int(e).is_none())
    }

    /// The concrete view at the environment's hints, validated.
    pub fn at_hints(&self, index: usize, pool: &ExprPool, env: &Env) -> Result<View, TensorError> {
        self.at(index, pool, &|s| env.hint(s), "the hints")
    }

    /// The concrete view at symbol values from `lookup` (described as `at` in
    /// errors), validated.
    pub fn at(
        &self,
        index: usize,
        pool: &ExprPool,
        lookup: &dyn Fn(crate::expr::Symbol) -> Option<i64>,
        at: &str,
    ) -> Result<View, TensorError> {
        let err = |field, message: String| TensorError {
            tensor: index,
            field,
            message,
        };
        let eval = |e: ExprId, field: Field| -> Result<i64, TensorError> {
            pool.eval_int(e, lookup)
                .map_err(|x: EvalError| err(field, format!("`{}` at {at}: {x}", pool.display(e))))
        };
        if self.sizes.len() != self.strides.len() {
            return Err(err(
                Field::Whole,
                format!(
                    "{} sizes but {} strides",
                    self.sizes.len(),
                    self.strides.len()
                ),
            ));
        }
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
        view.validate().map_err(|e| {
            let field = match e {
                ViewError::NegativeSize(d) => Field::Size(d),
                ViewError::NegativeStride(d) => Field::Stride(d),
                ViewError::NegativeOffset => Field::Offset,
                ViewError::BadItemsize => Field::Itemsize,
                ViewError::RankMismatch { .. } | ViewError::Overflow => Field::Whole,
            };
            err(field, e.to_string())
        })?;
        Ok(view)
    }
}

/// Analyses concrete views of one storage (validated with [`View::validate`]).
///
/// ```
/// use symalias::overlap::{analyze_views, View, DEFAULT_BUDGET};
/// // Bug B0 of PyTorch: (4,4),(9,1) at offsets 0 and 9 overlap (addresses 9..12, ...).
/// let a = View::new(&[4, 4], &[9, 1], 0);
/// let b = View::new(&[4, 4], &[9, 1], 9);
/// let c = View::new(&[4, 4], &[9, 1], 4 * 9 + 100);
/// let ans = analyze_views(&[a, b, c], DEFAULT_BUDGET);
/// assert_eq!(ans.overlapping, vec![0, 1]);
/// ```
pub fn analyze_views(views: &[View], budget: u64) -> GroupAnswer {
    let refs: Vec<ViewRef> = views.iter().map(View::view_ref).collect();
    analyze_view_refs(&refs, budget)
}

/// [`analyze_views`] on borrowed views (validated with [`ViewRef::validate`]).
pub fn analyze_view_refs(views: &[ViewRef], budget: u64) -> GroupAnswer {
    let first = views.first().map(|v| v.itemsize);
    let bytes = views.iter().any(|v| Some(v.itemsize) != first);
    let fps: Vec<footprint::Footprint> = views
        .iter()
        .map(|&v| footprint::Footprint::new(v, bytes))
        .collect();
    group::analyze_group(&fps, budget)
}
