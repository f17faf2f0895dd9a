//! The JSON form of guards (FORMATS.md §3, §5, §6): expressions as §1 text.
//!
//! [`GuardDoc::from_guard`] prints an analysis's guard; [`load_guards`]
//! parses a list read from a result into a pool, for the checker.

use super::error::InputError;
use crate::expr::{parse, ExprPool};
use crate::guards::{Guard, GuardKind};
use crate::layout::Layout;
use serde::{Deserialize, Serialize};

/// A guard as JSON: the condition's fields and `reason` side by side,
/// `{"kind": "duplicate_input", "kept": "L['a']", "dupe": "L['b']", "reason": "…"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardDoc {
    /// The condition.
    #[serde(flatten)]
    pub kind: GuardKindDoc,
    /// Why the analysis depends on it (empty when not known).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// A fast path for the StorageOverlap guard after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fast_path: bool,
}

/// The condition of a [`GuardDoc`] (see [`GuardKind`] for the meaning).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum GuardKindDoc {
    StorageOverlap {
        overlapping: Vec<String>,
        non_overlapping: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        components: Vec<Vec<String>>,
    },
    Shape {
        expr: String,
    },
    Layout {
        sources: Vec<String>,
        sizes: Vec<Vec<String>>,
        strides: Vec<Vec<String>>,
        storage_offsets: Vec<String>,
    },
    DistinctObjects {
        sources: Vec<String>,
        others: Vec<String>,
    },
    StoragePartition {
        groups: Vec<Vec<String>>,
        #[serde(default)]
        others: Vec<String>,
    },
    DuplicateInput {
        kept: String,
        dupe: String,
    },
    SelfOverlap {
        overlapping: Vec<String>,
        non_overlapping: Vec<String>,
    },
}

impl GuardDoc {
    /// The JSON form of `g`, whose expressions are in `pool`.
    pub fn from_guard(pool: &ExprPool, g: &Guard) -> GuardDoc {
        let text = |e| pool.display(e).to_string();
        let texts = |xs: &[crate::expr::ExprId]| xs.iter().map(|&e| text(e)).collect::<Vec<_>>();
        let kind = match &g.kind {
            GuardKind::StorageOverlap {
                overlapping,
                non_overlapping,
                components,
            } => GuardKindDoc::StorageOverlap {
                overlapping: overlapping.clone(),
                non_overlapping: non_overlapping.clone(),
                components: components.clone(),
            },
            GuardKind::Shape { expr } => GuardKindDoc::Shape { expr: text(*expr) },
            GuardKind::Layout { sources, layouts } => GuardKindDoc::Layout {
                sources: sources.clone(),
                sizes: layouts.iter().map(|l| texts(&l.sizes)).collect(),
                strides: layouts.iter().map(|l| texts(&l.strides)).collect(),
                storage_offsets: layouts.iter().map(|l| text(l.offset)).collect(),
            },
            GuardKind::DistinctObjects { sources, others } => GuardKindDoc::DistinctObjects {
                sources: sources.clone(),
                others: others.clone(),
            },
            GuardKind::StoragePartition { groups, others } => GuardKindDoc::StoragePartition {
                groups: groups.clone(),
                others: others.clone(),
            },
            GuardKind::DuplicateInput { kept, dupe } => GuardKindDoc::DuplicateInput {
                kept: kept.clone(),
                dupe: dupe.clone(),
            },
            GuardKind::SelfOverlap {
                overlapping,
                non_overlapping,
            } => GuardKindDoc::SelfOverlap {
                overlapping: overlapping.clone(),
                non_overlapping: non_overlapping.clone(),
            },
        };
        GuardDoc {
            kind,
            reason: g.reason.clone(),
            fast_path: g.fast_path,
        }
    }
}

/// Parses guards read from a result into `pool`; errors name the guard
/// (`guards[3].expr`).
pub fn load_guards(pool: &mut ExprPool, docs: &[GuardDoc]) -> Result<Vec<Guard>, InputError> {
    docs.iter()
        .enumerate()
        .map(|(k, d)| {
            let mut expr = |field: String, t: &str| {
                parse(pool, t).map_err(|e| {
                    InputError::field(
                        format!("guards[{k}].{field}"),
                        format!("`{}`: {e}", super::error::abbrev(t)),
                    )
                })
            };
            let kind = match &d.kind {
                GuardKindDoc::StorageOverlap {
                    overlapping,
                    non_overlapping,
                    components,
                } => GuardKind::StorageOverlap {
                    overlapping: overlapping.clone(),
                    non_overlapping: non_overlapping.clone(),
                    components: components.clone(),
                },
                GuardKindDoc::Shape { expr: t } => GuardKind::Shape {
                    expr: expr("expr".into(), t)?,
                },
                GuardKindDoc::Layout {
                    sources,
                    sizes,
                    strides,
                    storage_offsets,
                } => {
                    let k = sources.len();
                    if sizes.len() != k || strides.len() != k || storage_offsets.len() != k {
                        return Err(InputError::field(
                            format!("guards[{k}]"),
                            "sources, sizes, strides and storage_offsets differ in length",
                        ));
                    }
                    let mut layouts = Vec::with_capacity(k);
                    for j in 0..k {
                        let mut list = |name: &str, xs: &[String]| {
                            xs.iter()
                                .enumerate()
                                .map(|(d, t)| expr(format!("{name}[{j}][{d}]"), t))
                                .collect::<Result<Vec<_>, _>>()
                        };
                        let sizes = list("sizes", &sizes[j])?;
                        let strides = list("strides", &strides[j])?;
                        let offset = expr(format!("storage_offsets[{j}]"), &storage_offsets[j])?;
                        layouts.push(Layout {
                            sizes,
                            strides,
                            offset,
                            itemsize: crate::layout::DEFAULT_ITEMSIZE,
                        });
                    }
                    GuardKind::Layout {
                        sources: sources.clone(),
                        layouts,
                    }
                }
                GuardKindDoc::DistinctObjects { sources, others } => GuardKind::DistinctObjects {
                    sources: sources.clone(),
                    others: others.clone(),
                },
                GuardKindDoc::StoragePartition { groups, others } => GuardKind::StoragePartition {
                    groups: groups.clone(),
                    others: others.clone(),
                },
                GuardKindDoc::DuplicateInput { kept, dupe } => GuardKind::DuplicateInput {
                    kept: kept.clone(),
                    dupe: dupe.clone(),
                },
                GuardKindDoc::SelfOverlap {
                    overlapping,
                    non_overlapping,
                } => GuardKind::SelfOverlap {
                    overlapping: overlapping.clone(),
                    non_overlapping: non_overlapping.clone(),
                },
            };
            Ok(Guard {
                kind,
                reason: d.reason.clone(),
                fast_path: d.fast_path,
            })
        })
        .collect()
}

/// The checker's answer as JSON (FORMATS.md §6): `{"pass": true}` or
/// `{"pass": false, "failed": "<guard text>", "reason": "…"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeDoc {
    /// Every guard holds.
    pub pass: bool,
    /// The first failing guard's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Why it fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl From<&crate::guards::check::Outcome> for OutcomeDoc {
    fn from(o: &crate::guards::check::Outcome) -> OutcomeDoc {
        match o.failure() {
            None => OutcomeDoc {
                pass: true,
                failed: None,
                reason: None,
            },
            Some(f) => OutcomeDoc {
                pass: false,
                failed: Some(f.guard.clone()),
                reason: Some(f.reason.clone()),
            },
        }
    }
}

/// A guard list read from a result (with its `symbols`: name → source),
/// prepared for checking calls.
pub fn prepare_guards(
    docs: &[GuardDoc],
    symbols: &std::collections::BTreeMap<String, String>,
) -> Result<crate::guards::check::GuardSet, InputError> {
    let mut pool = ExprPool::new();
    let guards = load_guards(&mut pool, docs)?;
    crate::guards::check::GuardSet::prepare(&pool, &guards, symbols)
        .map_err(|e| InputError::field("guards", e.to_string()))
}

/// The guards of a prepared set as their JSON documents (what a pickled
/// check or a C caller reads), in order.
pub fn guard_set_docs(set: &crate::guards::check::GuardSet) -> Vec<GuardDoc> {
    set.guards()
        .iter()
        .map(|g| GuardDoc::from_guard(set.pool(), g))
        .collect()
}

/// A guard as its JSON text (FORMATS §3), its expressions in `pool`.
pub fn guard_json(pool: &ExprPool, guard: &Guard) -> String {
    serde_json::to_string(&GuardDoc::from_guard(pool, guard)).unwrap_or_default()
}
