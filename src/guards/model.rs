//! The guard model: what a later call must satisfy, and why.
//!
//! A [`Guard`] is a condition ([`GuardKind`]) with the `reason` the analysis
//! needs it for. A guard list is a conjunction, with one refinement: guards
//! marked `fast_path` stand in for the StorageOverlap guard that follows them.
//! When every fast-path guard of the run holds, that StorageOverlap guard holds
//! (the analysis proved it) and its sweep is skipped; when one fails, the
//! StorageOverlap guard is checked and decides. A checker that ignores the mark
//! and checks every guard is still sound, only stricter. Rendering follows
//! PyTorch's guard syntax; [`GuardKind::render`] prints symbols of expressions
//! as their sources (`2 <= L['x'].size()[0]`).

use crate::expr::{ExprId, ExprPool};
use crate::layout::Layout;
use std::collections::BTreeMap;

/// A guard: a condition and why the analysis depends on it.
///
/// Expressions are [`ExprId`]s of the pool of the analysis that made the
/// guard (or of the pool a guard list was loaded into); the JSON form is
/// `io::GuardDoc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The condition.
    pub kind: GuardKind,
    /// Why the analysis depends on it (empty when not known, e.g. read from
    /// an older result).
    pub reason: String,
    /// A cheap condition that, with the other fast-path guards before the
    /// next StorageOverlap guard, implies it (see the module documentation).
    pub fast_path: bool,
}

/// The condition of a guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GuardKind {
    /// The members share one storage and exactly `overlapping` overlap some
    /// other member (re-decided exactly at run time, sort-and-sweep).
    StorageOverlap {
        /// Sources of the members that overlap some other member.
        overlapping: Vec<String>,
        /// Sources of the members disjoint from all others.
        non_overlapping: Vec<String>,
        /// When not empty: the connected components of the overlap graph with
        /// two or more members must also be exactly these (merging by
        /// components depends on them, not only on the overlapping set).
        components: Vec<Vec<String>>,
    },
    /// A condition over the symbols (symbols are bound from sources).
    Shape {
        /// The condition (boolean).
        expr: ExprId,
    },
    /// The inputs share one storage and have exactly these layouts (expressions
    /// over the symbols, and the itemsize: a float64 view of a float32
    /// layout's numbers reaches other bytes): what an overlap proof and the
    /// views regenerated from a synthetic base (bug B6) depend on.
    Layout {
        /// Sources of the members.
        sources: Vec<String>,
        /// Per member: its layout as compiled.
        layouts: Vec<Layout>,
    },
    /// Each of `sources` is a different object from every other listed input
    /// (a later duplicate of one of them would change the dedupe decision:
    /// the mutated inputs, or every kept input when duplicates are removed).
    /// One O(k) check.
    DistinctObjects {
        /// Sources that must each be a different object.
        sources: Vec<String>,
        /// Sources of the other tensor inputs.
        others: Vec<String>,
    },
    /// Each group's members share one storage, and no other group or listed
    /// input is in it (split storages, B7; inputs distinct at compile time
    /// that alias later, #139789/B8). One O(k) check.
    StoragePartition {
        /// Groups of sources, one per compile-time storage that holds a
        /// mutated input.
        groups: Vec<Vec<String>>,
        /// Other tensor inputs, which must stay out of the groups' storages.
        others: Vec<String>,
    },
    /// Each listed input overlaps itself (two of its own indices reach one
    /// byte) exactly as at compile time: `overlapping` do, `non_overlapping`
    /// do not. Decided exactly at run time per input from sizes and strides
    /// (no element enumerated); a search past its budget fails the guard.
    SelfOverlap {
        /// Sources of the inputs that overlap themselves.
        overlapping: Vec<String>,
        /// Sources of the inputs that do not.
        non_overlapping: Vec<String>,
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
    /// A guard with its reason.
    pub fn new(kind: GuardKind, reason: impl Into<String>) -> Guard {
        Guard {
            kind,
            reason: reason.into(),
            fast_path: false,
        }
    }

    /// The same guard as a fast path for the StorageOverlap guard after it.
    pub fn fast(mut self) -> Guard {
        self.fast_path = true;
        self
    }

    /// PyTorch's text form, with symbols as printed (see [`GuardKind::render`]).
    pub fn text(&self, pool: &ExprPool) -> String {
        self.kind.render(pool, &BTreeMap::new())
    }
}

fn list(xs: &[String]) -> String {
    xs.join(", ")
}

impl GuardKind {
    /// PyTorch's text form (`check_overlapping(...)`, `L['a'] is L['b']`, the
    /// expression), with every symbol that `symbols` maps printed as its
    /// source.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use symalias::expr::{parse, ExprPool};
    /// use symalias::guards::GuardKind;
    /// let mut pool = ExprPool::new();
    /// let g = GuardKind::Shape { expr: parse(&mut pool, "(2 <= s0) & Eq(Mod(s10, 8), 0)").unwrap() };
    /// let sources = BTreeMap::from([
    ///     ("s0".to_string(), "L['x'].size()[0]".to_string()),
    ///     ("s10".to_string(), "L['y'].size()[1]".to_string()),
    /// ]);
    /// // (the pool orders the conjunction canonically)
    /// assert_eq!(g.render(&pool, &sources), "Eq(Mod(L['y'].size()[1], 8), 0) & (2 <= L['x'].size()[0])");
    /// ```
    pub fn render(&self, pool: &ExprPool, symbols: &BTreeMap<String, String>) -> String {
        let sub = |e: ExprId| with_sources(&pool.display(e).to_string(), symbols);
        match self {
            GuardKind::StorageOverlap {
                overlapping,
                non_overlapping,
                components,
            } => {
                let comps = if components.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", components=[{}]",
                        components
                            .iter()
                            .map(|c| format!("[{}]", list(c)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                format!(
                    "check_overlapping(overlapping=[{}], non_overlapping=[{}]{comps})",
                    list(overlapping),
                    list(non_overlapping)
                )
            }
            GuardKind::Shape { expr } => sub(*expr),
            GuardKind::DuplicateInput { kept, dupe } => format!("{kept} is {dupe}"),
            GuardKind::SelfOverlap {
                overlapping,
                non_overlapping,
            } => format!(
                "check_self_overlap(overlapping=[{}], non_overlapping=[{}])",
                list(overlapping),
                list(non_overlapping)
            ),
            GuardKind::DistinctObjects { sources, others } => format!(
                "distinct_objects([{}], others=[{}])",
                list(sources),
                list(others)
            ),
            GuardKind::StoragePartition { groups, others } => format!(
                "storage_partition(groups=[{}], others=[{}])",
                groups
                    .iter()
                    .map(|g| format!("[{}]", list(g)))
                    .collect::<Vec<_>>()
                    .join(", "),
                list(others)
            ),
            GuardKind::Layout { sources, layouts } => {
                let subs = |xs: &[ExprId]| xs.iter().map(|&x| sub(x)).collect::<Vec<_>>();
                let one = |k: usize| {
                    format!(
                        "{}: size ({}), stride ({}), offset {}, itemsize {}",
                        sources[k],
                        list(&subs(&layouts[k].sizes)),
                        list(&subs(&layouts[k].strides)),
                        sub(layouts[k].offset),
                        layouts[k].itemsize
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

/// `text` with every identifier that `symbols` maps replaced by its source.
pub(crate) fn with_sources(text: &str, symbols: &BTreeMap<String, String>) -> String {
    if symbols.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    // The current word: an identifier (maybe dotted) or a number literal.
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match symbols.get(word.as_str()) {
            Some(src) => out.push_str(src),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || (!word.is_empty() && c == '.') {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_replace_whole_symbols_only() {
        let m = BTreeMap::from([("s1".to_string(), "L['n']".to_string())]);
        assert_eq!(
            with_sources("s1 + s11*s1 - 2.5e1", &m),
            "L['n'] + s11*L['n'] - 2.5e1"
        );
        assert_eq!(with_sources("Max(1, s1)", &m), "Max(1, L['n'])");
    }
}
