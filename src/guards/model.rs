//! The guard model: what a later call must satisfy.

use serde::{Deserialize, Serialize};

/// A guard: the StorageOverlap partition, a shape condition, or a
/// duplicate-input identity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Guard {
    /// Checked at run time: the same members overlap / are disjoint.
    StorageOverlap {
        /// Sources of the members that overlap some other member.
        overlapping: Vec<String>,
        /// Sources of the members disjoint from all others.
        non_overlapping: Vec<String>,
    },
    /// A condition over the symbols.
    Shape {
        /// The condition, in §1 text.
        expr: String,
    },
    /// Two inputs are the same object (a removed duplicate): `<kept> is <dupe>`.
    DuplicateInput {
        /// Source of the kept occurrence.
        kept: String,
        /// Source of the removed duplicate.
        dupe: String,
    },
}

impl Guard {
    /// PyTorch's text form (`check_overlapping(...)`, `L['a'] is L['b']`, the expression).
    pub fn text(&self) -> String {
        match self {
            Guard::StorageOverlap {
                overlapping,
                non_overlapping,
            } => format!(
                "check_overlapping(overlapping=[{}], non_overlapping=[{}])",
                overlapping.join(", "),
                non_overlapping.join(", ")
            ),
            Guard::Shape { expr } => expr.clone(),
            Guard::DuplicateInput { kept, dupe } => format!("{kept} is {dupe}"),
        }
    }
}
