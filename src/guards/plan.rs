//! Which guards a program's decisions depend on, and why.
//!
//! Two families, each built from plain facts (no I/O types):
//!
//! * [`identity_guards`]: object identity and storage sharing, which decide
//!   dedupe and which inputs form a storage group. Only what a mutation makes
//!   relevant is guarded: a later duplicate of a *mutated* object changes the
//!   dedupe decision (a duplicate of an unmutated one is leafified, same
//!   graph); a storage that holds a *data-mutated* input decides synthetic
//!   bases, so its members must stay together and nobody else may join it.
//! * [`group_guards`]: per storage group that was asked about overlap, the
//!   layouts baked into a synthetic base (bug B6) and the overlap partition:
//!   the StorageOverlap guard, preceded by fast-path guards (layouts as
//!   compiled, the domain, the proof's shape guards) that imply it, so the
//!   sweep runs only when they fail, and a shape guard that is merely
//!   sufficient never forces a recompile.

use super::compact_shape_guards;
use super::model::{Guard, GuardKind};
use crate::expr::{ExprId, ExprPool};
use crate::layout::Layout;

/// One forward input, as the identity guards see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFacts {
    /// Run-time source.
    pub source: String,
    /// Object identity (`None`: not a tensor).
    pub object: Option<String>,
    /// Storage identity (`None`: not a tensor).
    pub storage: Option<String>,
    /// Data mutation.
    pub mutates_data: bool,
    /// Metadata mutation.
    pub mutates_metadata: bool,
    /// Kept by dedupe (not a removed duplicate).
    pub kept: bool,
}

/// Duplicate-input guards for the removed positions `(kept, dupe)`, then the
/// distinct-object and storage-partition guards the mutations make necessary.
///
/// ```
/// use symalias::guards::plan::{identity_guards, InputFacts};
/// let t = |s: &str, o: &str, st: &str, m: bool| InputFacts {
///     source: s.into(), object: Some(o.into()), storage: Some(st.into()),
///     mutates_data: m, mutates_metadata: false, kept: true,
/// };
/// // a is mutated; b, c are read-only in other storages.
/// let gs = identity_guards(&[t("a", "A", "S", true), t("b", "B", "T", false), t("c", "C", "U", false)], &[]);
/// let pool = symalias::expr::ExprPool::new();
/// let text: Vec<String> = gs.iter().map(|g| g.text(&pool)).collect();
/// assert_eq!(text, vec![
///     "distinct_objects([a], others=[b, c])",
///     "storage_partition(groups=[[a]], others=[b, c])",
/// ]);
/// ```
pub fn identity_guards(inputs: &[InputFacts], removed: &[(usize, usize)]) -> Vec<Guard> {
    let mut guards: Vec<Guard> = removed
        .iter()
        .map(|&(kept, dupe)| {
            let (k, d) = (&inputs[kept].source, &inputs[dupe].source);
            Guard::new(
                GuardKind::DuplicateInput {
                    kept: k.clone(),
                    dupe: d.clone(),
                },
                format!("{d} was removed as a duplicate of {k} (a duplicated input is mutated, so duplicates are removed): the graph reads it through {k}"),
            )
        })
        .collect();
    let tensors: Vec<&InputFacts> = inputs
        .iter()
        .filter(|x| x.kept && x.object.is_some())
        .collect();
    // An object is mutated if any position that passes it mutates it.
    let mutated_object = |o: &Option<String>| {
        inputs
            .iter()
            .any(|y| &y.object == o && (y.mutates_data || y.mutates_metadata))
    };
    // Under the `remove` strategy every later occurrence of any object is
    // removed: a new duplicate of any kept input changes the decision. Else
    // only a duplicate of a mutated object does (others are leafified).
    let removing = !removed.is_empty();
    let (distinct, others): (Vec<&InputFacts>, Vec<&InputFacts>) = tensors
        .iter()
        .partition(|x| removing || mutated_object(&x.object));
    let names = |xs: &[&InputFacts]| xs.iter().map(|x| x.source.clone()).collect::<Vec<_>>();
    if !distinct.is_empty() && tensors.len() >= 2 {
        let reason = if removing {
            "duplicates are removed from this graph's inputs: one more duplicate among the kept inputs would change which are removed".to_string()
        } else {
            format!(
                "{} mutated input{}: passing one again, or as another input, would make it a duplicate to remove; the graph was compiled with them distinct (#139789/B8)",
                distinct.len(),
                if distinct.len() == 1 { "" } else { "s" }
            )
        };
        guards.push(Guard::new(
            GuardKind::DistinctObjects {
                sources: names(&distinct),
                others: names(&others),
            },
            reason,
        ));
    }
    // Storages that hold a data-mutated input decide the synthetic bases.
    let mut groups: Vec<(&str, Vec<&InputFacts>)> = Vec::new();
    for x in &tensors {
        let st = x.storage.as_deref().unwrap_or_default();
        match groups.iter_mut().find(|g| g.0 == st) {
            Some(g) => g.1.push(x),
            None => groups.push((st, vec![x])),
        }
    }
    // As the synthetic-base pass: a group is asked when a kept member's own
    // (deduped) metadata has a data mutation.
    let (watched, rest): (Vec<_>, Vec<_>) = groups
        .into_iter()
        .partition(|g| g.1.iter().any(|x| x.mutates_data));
    let others: Vec<&InputFacts> = rest.into_iter().flat_map(|g| g.1).collect();
    let worth = watched.len() + others.len() >= 2 || watched.iter().any(|g| g.1.len() >= 2);
    if !watched.is_empty() && worth {
        guards.push(Guard::new(
            GuardKind::StoragePartition {
                groups: watched.iter().map(|g| names(&g.1)).collect(),
                others: names(&others),
            },
            "storages holding a data-mutated input decide the synthetic bases: a member that leaves one (B7) or an input that joins one (inputs distinct at compile time that alias later, #139789/B8) changes them",
        ));
    }
    guards
}

/// One member of an asked storage group, as its guards name it (its
/// source, its layout as compiled, whether it was merged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardMember {
    /// Run-time source.
    pub source: String,
    /// Its layout as compiled (as the program states it, not simplified).
    pub layout: Layout,
    /// Merged into a synthetic base (regenerated from the base's layout).
    pub merged: bool,
}

/// What the analysis decided about one storage group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupFacts<'a> {
    /// Storage identity (for the reasons).
    pub storage: &'a str,
    /// The members, in the group's order.
    pub members: Vec<GuardMember>,
    /// Some field is an expression over symbols.
    pub symbolic: bool,
    /// Members (local indices, sorted) that overlap some other member.
    pub overlapping: Vec<usize>,
    /// The overlap result's guards: empty when proved for all shapes, shape
    /// guards that imply the partition (then the StorageOverlap guard), or
    /// the StorageOverlap guard alone.
    pub proof_guards: &'a [Guard],
    /// The domain the proof assumed (ranges and assumptions of the group's
    /// symbols), as a conjunction of conditions; empty when unconstrained.
    pub domain: Vec<ExprId>,
    /// When inputs are merged by connected components of the overlap graph:
    /// the components (local indices). The proof covers the overlapping set,
    /// not the components, so they are re-checked exactly on every call.
    pub components: Option<Vec<Vec<usize>>>,
}

/// The guards of one asked storage group (new conditions are built in `pool`,
/// the pool of the members' layouts).
///
/// ```
/// use symalias::expr::ExprPool;
/// use symalias::guards::plan::{group_guards, GroupFacts, GuardMember};
/// use symalias::layout::{Layout, View};
/// let mut pool = ExprPool::new();
/// let mut m = |s: &str, off: i64, merged: bool| GuardMember {
///     source: s.into(), layout: Layout::concrete(&mut pool, View::new(&[5], &[1], off).view_ref()), merged,
/// };
/// let (a, b, a2, b2) = (m("a", 0, false), m("b", 10, false), m("a", 0, true), m("b", 3, true));
/// // Concrete and not merged: the partition alone (fixes B4).
/// let g = GroupFacts { storage: "S", members: vec![a, b],
///     symbolic: false, overlapping: vec![], proof_guards: &[], domain: vec![], components: None };
/// let text: Vec<String> = group_guards(&mut pool, &g).iter().map(|g| g.text(&pool)).collect();
/// assert_eq!(text, vec!["check_overlapping(overlapping=[], non_overlapping=[a, b])"]);
/// // Concrete and merged: the layouts baked into the graph fix the partition too.
/// let g = GroupFacts { members: vec![a2, b2], overlapping: vec![0, 1], ..g };
/// let text: Vec<String> = group_guards(&mut pool, &g).iter().map(|g| g.text(&pool)).collect();
/// assert_eq!(text, vec!["same_storage_and_layout(a: size (5), stride (1), offset 0, itemsize 1; b: size (5), stride (1), offset 3, itemsize 1)"]);
/// ```
pub fn group_guards(pool: &mut ExprPool, g: &GroupFacts) -> Vec<Guard> {
    let mut guards = Vec::new();
    let all = |f: &dyn Fn(&GuardMember) -> bool| g.members.iter().all(f);
    let merged: Vec<&GuardMember> = g.members.iter().filter(|m| m.merged).collect();
    let all_merged = all(&|m| m.merged);
    if !merged.is_empty() {
        guards.push(Guard::new(
            layout(&merged),
            format!(
                "storage {}: the graph regenerates these inputs as views of a synthetic base with exactly these layouts; another layout would read and write other elements (B6)",
                g.storage
            ),
        ));
    }
    let exact = exact_partition(g);
    let partition_reason = format!(
        "storage {}: which of its inputs overlap decides the synthetic base",
        g.storage
    );
    if g.components.is_some() && (g.symbolic || !all_merged) {
        guards.push(Guard::new(
            exact,
            format!("storage {}: inputs are merged by connected components of the overlap graph, which the proof does not cover: the partition and its components are re-checked exactly", g.storage),
        ));
        return guards;
    }
    if !g.symbolic {
        if !all_merged {
            guards.push(Guard::new(
                exact,
                format!("{partition_reason}; the layouts are concrete, so the partition is re-checked exactly (PyTorch 2.9.1 has no guard here: B4)"),
            ));
        }
        return guards;
    }
    let shapes: Vec<GuardKind> = g
        .proof_guards
        .iter()
        .filter(|x| matches!(x.kind, GuardKind::Shape { .. }))
        .map(|x| x.kind.clone())
        .collect();
    // Shape guards (fast path) followed by the StorageOverlap guard: the
    // proof's conditions; the StorageOverlap guard alone: no proof covers it.
    if shapes.is_empty()
        && g.proof_guards
            .iter()
            .any(|x| matches!(x.kind, GuardKind::StorageOverlap { .. }))
    {
        guards.push(Guard::new(
            exact,
            format!("{partition_reason}; no proof covers it, so it is re-checked exactly"),
        ));
        return guards;
    }
    let fast = fast_path(pool, g, &shapes, all_merged);
    if fast.is_empty() {
        return guards;
    }
    guards.extend(fast);
    guards.push(Guard::new(
        exact,
        format!("{partition_reason}; skipped when the fast-path guards before it hold, else re-checked exactly"),
    ));
    guards
}

/// The group's partition, to be re-checked exactly (torch's
/// `StorageOverlap` guard, with the merged components).
fn exact_partition(g: &GroupFacts) -> GuardKind {
    partition_of(
        &g.members,
        &g.overlapping,
        g.components.as_deref().unwrap_or_default(),
    )
}

/// The StorageOverlap guard of `members`' partition: `overlapping` (local
/// indices) meet some other member; `components` of two or more members
/// are kept too.
fn partition_of(members: &[GuardMember], overlapping: &[usize], components: &[Vec<usize>]) -> GuardKind {
    let source = |k: usize| members[k].source.clone();
    GuardKind::StorageOverlap {
        overlapping: overlapping.iter().map(|&k| source(k)).collect(),
        non_overlapping: (0..members.len())
            .filter(|k| !overlapping.contains(k))
            .map(source)
            .collect(),
        components: components
            .iter()
            .filter(|c| c.len() >= 2)
            .map(|c| c.iter().map(|&k| source(k)).collect())
            .collect(),
    }
}

/// One fast-path shape guard: the conjunction of `conds` with the bounds
/// on one symbol merged (`None` when there is no condition).
fn conjunction(pool: &mut ExprPool, conds: &[ExprId], reason: String) -> Option<Guard> {
    if conds.is_empty() {
        return None;
    }
    let atoms = compact_shape_guards(pool, conds);
    let expr = pool.and(&atoms);
    Some(Guard::new(GuardKind::Shape { expr }, reason).fast())
}

/// The fast-path guards of a symbolic group's partition: its layouts (where
/// not every member is merged) and one conjunction of the domain and the
/// proof's shape conditions (`shapes`), bounds merged.
fn fast_path(pool: &mut ExprPool, g: &GroupFacts, shapes: &[GuardKind], all_merged: bool) -> Vec<Guard> {
    let proved = shapes.is_empty();
    let mut fast: Vec<Guard> = Vec::new();
    if !all_merged {
        fast.push(
            Guard::new(
                layout(&g.members.iter().collect::<Vec<_>>()),
                format!(
                    "fast path for the partition of storage {}: the proof holds for these layouts",
                    g.storage
                ),
            )
            .fast(),
        );
    }
    // The domain and the shape guards form one conjunction: merge bounds.
    let conds: Vec<ExprId> = g
        .domain
        .iter()
        .copied()
        .chain(shapes.iter().filter_map(|x| match x {
            GuardKind::Shape { expr } => Some(*expr),
            _ => None,
        }))
        .collect();
    let what = match (!g.domain.is_empty(), proved) {
        (true, true) => "the ranges and assumptions under which the partition was proved",
        (true, false) => "the ranges and assumptions of the proof, and shape conditions that imply the partition there",
        _ => "shape conditions that imply the partition",
    };
    let reason = format!("fast path for the partition of storage {}: {what}", g.storage);
    fast.extend(conjunction(pool, &conds, reason));
    fast
}

fn layout(members: &[&GuardMember]) -> GuardKind {
    GuardKind::Layout {
        sources: members.iter().map(|m| m.source.clone()).collect(),
        layouts: members.iter().map(|m| m.layout.clone()).collect(),
    }
}

/// What a member's overlap with itself is known to be, for the guards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfKnown {
    /// Proved for every allowed shape (or exact: a concrete member): holds
    /// while the member keeps its layout inside the domain.
    Proved,
    /// Only at the hints, and not guarded by the report: checked exactly.
    HintOnly,
    /// Already in the report's SelfOverlap guard (checked exactly).
    Guarded,
}

/// An overlap report as a stand-alone list is built from it: the group's
/// members as the case states them, the domain the proofs hold in, and the
/// report's verdicts.
#[derive(Clone, Debug)]
pub struct StandAlone<'a> {
    /// The case's id (for the reasons).
    pub id: &'a str,
    /// The members: source and layout as stated (`merged` is not read).
    pub members: Vec<GuardMember>,
    /// The ranges and assumptions the proofs hold in (empty: concrete).
    pub domain: Vec<ExprId>,
    /// Members (sorted) that overlap some other member.
    pub overlapping: &'a [usize],
    /// Per member: overlaps itself at the hints, and what is known.
    pub self_overlap: Vec<(bool, SelfKnown)>,
    /// Every symbol of the layouts and the domain has a source, so that a
    /// call binds it: else no fast path can be checked, and each exact
    /// guard decides on its own.
    pub bindable: bool,
}

/// The guard list of an overlap report made to stand alone: every call it
/// passes has the report's partition and self-overlaps, with nothing
/// pinned by the embedder.
///
/// A report's own list (`guards`) takes for granted what torch's Dynamo
/// pins before it runs: each member's sizes, strides, offset and itemsize,
/// and the values its symbols are bound from. Proved answers then carry no
/// guard, and shape guards stand in for the exact check. Here every fast
/// path starts with the members' layouts (itemsize included) and the
/// domain, so it holds only where the proof does; where it fails, the
/// exact guard after it decides:
///
/// * the partition: `layout, shape(domain ∧ the proof's conditions)` then
///   the StorageOverlap guard; a partition already checked exactly on
///   every call stays as it is;
/// * the self-overlaps proved (or exact): `layout, shape(domain)` then a
///   SelfOverlap guard; one known only at the hints: a SelfOverlap guard
///   checked on every call; the report's own SelfOverlap guard, as it is.
///
/// ```
/// use symalias::expr::ExprPool;
/// use symalias::guards::plan::{stand_alone, GuardMember, SelfKnown, StandAlone};
/// use symalias::layout::{Layout, View};
/// let mut pool = ExprPool::new();
/// let mut m = |source: &str, off: i64| GuardMember {
///     source: source.into(),
///     layout: Layout::concrete(&mut pool, View::new(&[4], &[1], off).view_ref()),
///     merged: false,
/// };
/// let members = vec![m("a", 0), m("b", 8)];
/// // Concrete, disjoint, neither overlaps itself: the report's list is empty.
/// let facts = StandAlone { id: "c", members, domain: vec![], overlapping: &[],
///     self_overlap: vec![(false, SelfKnown::Proved); 2], bindable: true };
/// let text: Vec<String> = stand_alone(&mut pool, &facts, vec![]).iter().map(|g| g.text(&pool)).collect();
/// assert_eq!(text, vec![
///     "same_storage_and_layout(a: size (4), stride (1), offset 0, itemsize 1; b: size (4), stride (1), offset 8, itemsize 1)",
///     "check_overlapping(overlapping=[], non_overlapping=[a, b])",
///     "same_storage_and_layout(a: size (4), stride (1), offset 0, itemsize 1; b: size (4), stride (1), offset 8, itemsize 1)",
///     "check_self_overlap(overlapping=[], non_overlapping=[a, b])",
/// ]);
/// ```
pub fn stand_alone(pool: &mut ExprPool, facts: &StandAlone, guards: Vec<Guard>) -> Vec<Guard> {
    let (own_self, partition): (Vec<Guard>, Vec<Guard>) = guards
        .into_iter()
        .partition(|g| matches!(g.kind, GuardKind::SelfOverlap { .. }));
    let n = facts.members.len();
    let mut out: Vec<Guard> = Vec::new();
    // The fast path of a run: the layouts of `ks`, then the domain and
    // `conds` in one conjunction (bounds merged).
    let fast = |pool: &mut ExprPool, ks: &[usize], conds: &[ExprId], what: &str| {
        let members: Vec<&GuardMember> = ks.iter().map(|&k| &facts.members[k]).collect();
        let mut run = vec![Guard::new(
            layout(&members),
            format!("{}: fast path for {what}: the layouts it was decided for", facts.id),
        )
        .fast()];
        let all: Vec<ExprId> = facts.domain.iter().chain(conds).copied().collect();
        let reason = format!(
            "{}: fast path for {what}: the ranges and assumptions it was proved under{}",
            facts.id,
            if conds.is_empty() { "" } else { ", and shape conditions that imply it there" }
        );
        run.extend(conjunction(pool, &all, reason));
        run
    };
    // The partition.
    let exact_always = partition.iter().any(|g| matches!(g.kind, GuardKind::StorageOverlap { .. }))
        && !partition.iter().any(|g| g.fast_path);
    if n < 2 || exact_always {
        out.extend(partition);
    } else {
        let shapes: Vec<ExprId> = partition
            .iter()
            .filter_map(|g| match g.kind {
                GuardKind::Shape { expr } if g.fast_path => Some(expr),
                _ => None,
            })
            .collect();
        let closer = partition
            .into_iter()
            .find(|g| matches!(g.kind, GuardKind::StorageOverlap { .. }))
            .unwrap_or_else(|| {
                Guard::new(
                    partition_of(&facts.members, facts.overlapping, &[]),
                    format!(
                        "{}: the partition, re-checked exactly when a fast-path guard before it fails",
                        facts.id
                    ),
                )
            });
        if facts.bindable {
            let all: Vec<usize> = (0..n).collect();
            out.extend(fast(pool, &all, &shapes, "the partition"));
        }
        out.push(closer);
    }
    // The self-overlaps.
    let with = |known: SelfKnown| -> Vec<usize> {
        (0..n).filter(|&k| facts.self_overlap[k].1 == known).collect()
    };
    let self_guard = |ks: &[usize], why: String| {
        let names = |over: bool| {
            ks.iter()
                .filter(|&&k| facts.self_overlap[k].0 == over)
                .map(|&k| facts.members[k].source.clone())
                .collect()
        };
        Guard::new(
            GuardKind::SelfOverlap {
                overlapping: names(true),
                non_overlapping: names(false),
            },
            why,
        )
    };
    let proved = with(SelfKnown::Proved);
    if !proved.is_empty() {
        if facts.bindable {
            out.extend(fast(pool, &proved, &[], "the overlaps of inputs with themselves"));
        }
        out.push(self_guard(
            &proved,
            format!(
                "{}: each input's overlap with itself, re-checked exactly when a fast-path guard before it fails",
                facts.id
            ),
        ));
    }
    let hint_only = with(SelfKnown::HintOnly);
    if !hint_only.is_empty() {
        out.push(self_guard(
            &hint_only,
            format!(
                "{}: overlap of an input with itself known at the hints only: re-checked exactly",
                facts.id
            ),
        ));
    }
    out.extend(own_self);
    out
}
