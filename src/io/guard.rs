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
///
/// Read strictly: a key given twice, a field the kind does not have, and
/// `fast_path` on a kind that cannot stand in for an exact guard (only
/// `shape` and `layout` can) are errors, never silently dropped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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

impl<'de> Deserialize<'de> for GuardDoc {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GuardDoc, D::Error> {
        use serde::de::Error;
        let super::strict::Strict(value) = super::strict::Strict::deserialize(d)?;
        let serde_json::Value::Object(mut map) = value else {
            return Err(D::Error::custom("a guard is a JSON object"));
        };
        let reason = match map.remove("reason") {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(s)) => s,
            Some(_) => return Err(D::Error::custom("field `reason`: expected a string")),
        };
        let fast_path = match map.remove("fast_path") {
            None | Some(serde_json::Value::Null) => false,
            Some(serde_json::Value::Bool(b)) => b,
            Some(_) => return Err(D::Error::custom("field `fast_path`: expected a boolean")),
        };
        let kind =
            GuardKindDoc::deserialize(serde_json::Value::Object(map)).map_err(D::Error::custom)?;
        if fast_path && !kind.can_be_fast() {
            return Err(D::Error::custom(format!(
                "`fast_path` on a `{}` guard: only `shape` and `layout` guards can stand in for the exact guard after them",
                kind.name()
            )));
        }
        Ok(GuardDoc {
            kind,
            reason,
            fast_path,
        })
    }
}

/// The condition of a [`GuardDoc`] (see [`GuardKind`] for the meaning).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
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
        itemsizes: Vec<i64>,
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

impl GuardKindDoc {
    /// The kind's name, as the document spells it.
    pub fn name(&self) -> &'static str {
        match self {
            GuardKindDoc::StorageOverlap { .. } => "storage_overlap",
            GuardKindDoc::Shape { .. } => "shape",
            GuardKindDoc::Layout { .. } => "layout",
            GuardKindDoc::DistinctObjects { .. } => "distinct_objects",
            GuardKindDoc::StoragePartition { .. } => "storage_partition",
            GuardKindDoc::DuplicateInput { .. } => "duplicate_input",
            GuardKindDoc::SelfOverlap { .. } => "self_overlap",
        }
    }

    /// Whether a guard of this kind may be marked `fast_path`.
    pub fn can_be_fast(&self) -> bool {
        matches!(
            self,
            GuardKindDoc::Shape { .. } | GuardKindDoc::Layout { .. }
        )
    }
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
                itemsizes: layouts.iter().map(|l| l.itemsize).collect(),
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
                    itemsizes,
                } => {
                    let n = sources.len();
                    if sizes.len() != n
                        || strides.len() != n
                        || storage_offsets.len() != n
                        || itemsizes.len() != n
                    {
                        return Err(InputError::field(
                            format!("guards[{k}]"),
                            "sources, sizes, strides, storage_offsets and itemsizes differ in length",
                        ));
                    }
                    let mut layouts = Vec::with_capacity(n);
                    for j in 0..n {
                        let mut list = |name: &str, xs: &[String]| {
                            xs.iter()
                                .enumerate()
                                .map(|(d, t)| expr(format!("{name}[{j}][{d}]"), t))
                                .collect::<Result<Vec<_>, _>>()
                        };
                        let sizes = list("sizes", &sizes[j])?;
                        let strides = list("strides", &strides[j])?;
                        let offset = expr(format!("storage_offsets[{j}]"), &storage_offsets[j])?;
                        if sizes.len() != strides.len() {
                            return Err(InputError::field(
                                format!("guards[{k}].strides[{j}]"),
                                format!("{} strides for {} sizes", strides.len(), sizes.len()),
                            ));
                        }
                        let itemsize = itemsizes[j];
                        if itemsize < 1 {
                            return Err(InputError::field(
                                format!("guards[{k}].itemsizes[{j}]"),
                                format!("itemsize must be at least 1, found {itemsize}"),
                            ));
                        }
                        layouts.push(Layout {
                            sizes,
                            strides,
                            offset,
                            itemsize,
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
