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
    /// The inputs share one storage and have exactly these layouts (expressions
    /// over the symbols): what the overlap decision of a symbolic group and the
    /// views regenerated from a synthetic base (bug B6) depend on.
    Layout {
        /// Sources of the members.
        sources: Vec<String>,
        /// Per member: sizes.
        sizes: Vec<Vec<String>>,
        /// Per member: strides.
        strides: Vec<Vec<String>>,
        /// Per member: storage offset.
        storage_offsets: Vec<String>,
    },
    /// These inputs are pairwise different objects (a later duplicate of a
    /// mutated input would change the dedupe decision). One O(k) check.
    DistinctObjects {
        /// Sources of the inputs.
        sources: Vec<String>,
    },
    /// The inputs' storages are partitioned as at compile time: members of a
    /// group share one storage, different groups have different storages
    /// (inputs distinct at compile time that alias later, #139789/B8; split
    /// storages, B7). One O(k) check.
    StoragePartition {
        /// Groups of sources, one per compile-time storage.
        groups: Vec<Vec<String>>,
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
            Guard::DistinctObjects { sources } => {
                format!("distinct_objects({})", sources.join(", "))
            }
            Guard::StoragePartition { groups } => format!(
                "storage_partition({})",
                groups
                    .iter()
                    .map(|g| format!("[{}]", g.join(", ")))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Guard::Layout {
                sources,
                sizes,
                strides,
                storage_offsets,
            } => {
                let one = |k: usize| {
                    format!(
                        "{}: size ({}), stride ({}), offset {}",
                        sources[k],
                        sizes[k].join(", "),
                        strides[k].join(", "),
                        storage_offsets[k]
                    )
                };
                format!(
                    "same_storage_and_layout({})",
                    (0..sources.len()).map(one).collect::<Vec<_>>().join("; ")
                )
            }
        }
    }
}
