//! Duplicate inputs (docs/PYTORCH.md §2.1, §2.2): detection by object
//! identity, the two strategies, and `remove_dupe_metadata`.

use super::index::{DedupedIdx, OuterIdx};
use super::meta::ViewAndMutationMeta;
use serde::Serialize;

/// How duplicates are handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// No tensor is passed twice.
    None,
    /// No duplicate is mutated: later occurrences become fresh aliases; the
    /// graph and the metadata are unchanged.
    Leafify,
    /// A duplicate is mutated: later occurrences are removed from the graph's inputs.
    Remove,
}

/// The dedupe decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dedupe {
    /// The strategy.
    pub strategy: Strategy,
    /// Per outer input: kept (a non-tensor or the first occurrence of its tensor).
    pub keep_arg_mask: Vec<bool>,
    /// Per outer input: the deduped position of its kept occurrence.
    pub add_dupe_map: Vec<DedupedIdx>,
    /// Every removed position with the position of the occurrence it duplicates.
    #[serde(skip)]
    pub removed: Vec<(OuterIdx, OuterIdx)>,
}

/// Decides the strategy. `objects[i]` is the object identity of tensor input
/// `i` (`None` for non-tensors); `mutated[i]` says whether input `i` has a
/// data or metadata mutation. Duplicates are leafified when no occurrence of
/// a duplicated object is mutated, else removed.
///
/// ```
/// use symalias::aot::dedupe::{detect, Strategy};
/// let objects = [Some("a"), Some("b"), Some("a"), Some("c")];
/// let d = detect(&objects, &[true, false, false, false]);
/// assert_eq!(d.strategy, Strategy::Remove);
/// assert_eq!(d.keep_arg_mask, vec![true, true, false, true]);
/// assert_eq!(d.add_dupe_map.iter().map(|i| i.0).collect::<Vec<_>>(), vec![0, 1, 0, 2]);
/// ```
pub fn detect(objects: &[Option<&str>], mutated: &[bool]) -> Dedupe {
    let n = objects.len();
    let first = |i: usize| -> Option<usize> {
        let o = objects[i]?;
        (0..i).find(|&j| objects[j] == Some(o))
    };
    let firsts: Vec<Option<usize>> = (0..n).map(first).collect();
    let identity = Dedupe {
        strategy: Strategy::None,
        keep_arg_mask: vec![true; n],
        add_dupe_map: (0..n).map(DedupedIdx).collect(),
        removed: vec![],
    };
    if firsts.iter().all(Option::is_none) {
        return identity;
    }
    // A duplicated object any of whose occurrences is mutated cannot be
    // leafified: the graph must see the mutation through every position.
    let dupe_mutated = (0..n).any(|i| {
        firsts[i].is_some_and(|j| mutated[i] || mutated[j])
            || (mutated[i] && (0..n).any(|k| firsts[k] == Some(i)))
    });
    if !dupe_mutated {
        return Dedupe {
            strategy: Strategy::Leafify,
            ..identity
        };
    }
    let keep_arg_mask: Vec<bool> = firsts.iter().map(Option::is_none).collect();
    let mut deduped_pos = vec![0usize; n];
    let mut next = 0;
    for i in 0..n {
        if keep_arg_mask[i] {
            deduped_pos[i] = next;
            next += 1;
        }
    }
    let add_dupe_map = (0..n)
        .map(|i| DedupedIdx(deduped_pos[firsts[i].unwrap_or(i)]))
        .collect();
    let removed = (0..n)
        .filter_map(|i| firsts[i].map(|j| (OuterIdx(j), OuterIdx(i))))
        .collect();
    Dedupe {
        strategy: Strategy::Remove,
        keep_arg_mask,
        add_dupe_map,
        removed,
    }
}

/// The metadata of the deduped function (§2.2): kept inputs only, input-alias
/// output bases remapped through `add_dupe_map` (intermediate aliases cannot
/// be: their bases are a different type), tangents re-derived from the
/// definition.
pub(crate) fn remove_dupe_metadata(
    meta: &ViewAndMutationMeta<OuterIdx>,
    d: &Dedupe,
) -> ViewAndMutationMeta<DedupedIdx> {
    let input_info = meta
        .input_info
        .iter()
        .zip(&d.keep_arg_mask)
        .filter(|(_, &keep)| keep)
        .map(|(x, _)| *x)
        .collect();
    let output_info = meta
        .output_info
        .iter()
        .map(|o| o.map_input(|i| d.add_dupe_map[i.0]))
        .collect();
    ViewAndMutationMeta::new(
        input_info,
        output_info,
        meta.num_intermediate_bases,
        meta.keep_input_mutations,
    )
}
