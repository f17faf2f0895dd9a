//! Typed index spaces (docs/PYTORCH.md §1.10).
//!
//! Outer inputs (as the compiler passes them), deduped inputs, inner inputs
//! (after synthetic bases), intermediate bases and user outputs are different
//! types, so that remapping an intermediate-alias output through an input map
//! does not compile (PyTorch bug B3):
//!
//! ```compile_fail
//! use symalias::aot::index::{DedupedIdx, IntermediateBaseIdx, OuterIdx};
//! let add_dupe_map: Vec<DedupedIdx> = vec![DedupedIdx(0)];
//! let remap = |i: OuterIdx| add_dupe_map[i.0];
//! // An intermediate base is not an input index: this is a type error.
//! let _ = remap(IntermediateBaseIdx(0));
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub usize);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

index_type!(
    /// Position in the forward inputs as the compiler passes them.
    OuterIdx
);
index_type!(
    /// Position after duplicate inputs were removed.
    DedupedIdx
);
index_type!(
    /// Position in the compiled graph's inputs (synthetic bases first).
    InnerIdx
);
index_type!(
    /// Position among the intermediate bases appended to the forward outputs.
    IntermediateBaseIdx
);
index_type!(
    /// Position among the user outputs.
    UserOutputIdx
);

/// An index type of an input list.
pub trait InputIndex: Copy + Eq + Ord + fmt::Debug + fmt::Display + Serialize {
    /// The index at position `i`.
    fn at(i: usize) -> Self;
    /// The position.
    fn pos(self) -> usize;
}

macro_rules! input_index {
    ($name:ident) => {
        impl InputIndex for $name {
            fn at(i: usize) -> Self {
                $name(i)
            }
            fn pos(self) -> usize {
                self.0
            }
        }
    };
}

input_index!(OuterIdx);
input_index!(DedupedIdx);
input_index!(InnerIdx);
