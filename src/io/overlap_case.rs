//! Running an overlap case (FORMATS.md §3): load, evaluate at the hints,
//! analyse the group, and build the result line.

use super::error::InputError;
use super::load::{load_env, load_expr};
use super::types::{Guard, OverlapCase, OverlapResult, PairResult, PairWitness};
use crate::overlap::{analyze_views, SymTensor, Verdict};
use std::time::Instant;
use tracing::debug_span;

/// Analyses one overlap case at its hints.
///
/// Concrete cases are exact (`invariant: true`, pairs `proved`) unless a pair
/// hit the search's work bound (then it counts as overlapping, its proof is
/// `unknown`, `invariant` is `null` and the StorageOverlap guard is emitted).
/// Symbolic cases are answered at the hints only (`hint_only`, `invariant: null`)
/// with the StorageOverlap guard.
///
/// ```
/// use symalias::io::{parse_line, run_overlap_case, OverlapCase};
/// let line = r#"{"id": "b0", "tensors": [
///     {"source": "L['a']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 0},
///     {"source": "L['b']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 9}]}"#;
/// let case: OverlapCase = parse_line(1, line).value.unwrap();
/// let result = run_overlap_case(&case, 1 << 18).unwrap();
/// assert_eq!(result.overlapping, vec![0, 1]);
/// assert_eq!(result.invariant, Some(true));
/// ```
pub fn run_overlap_case(case: &OverlapCase, budget: u64) -> Result<OverlapResult, InputError> {
    let _span = debug_span!("overlap_case", id = %case.id).entered();
    let start = Instant::now();
    let mut loaded = load_env(&case.symbols, &case.assumptions)?;
    let mut tensors = Vec::with_capacity(case.tensors.len());
    for (i, t) in case.tensors.iter().enumerate() {
        let field = |name: &str| format!("tensors[{i}].{name}");
        if t.itemsize < 1 {
            return Err(InputError::field(
                field("itemsize"),
                format!("itemsize must be at least 1, found {}", t.itemsize),
            ));
        }
        let sizes = t
            .sizes
            .iter()
            .enumerate()
            .map(|(d, f)| load_expr(&mut loaded, &field(&format!("sizes[{d}]")), f, true))
            .collect::<Result<Vec<_>, _>>()?;
        let strides = t
            .strides
            .iter()
            .enumerate()
            .map(|(d, f)| load_expr(&mut loaded, &field(&format!("strides[{d}]")), f, true))
            .collect::<Result<Vec<_>, _>>()?;
        let offset = load_expr(
            &mut loaded,
            &field("storage_offset"),
            &t.storage_offset,
            true,
        )?;
        tensors.push(SymTensor {
            source: t.source.clone(),
            sizes,
            strides,
            offset,
            itemsize: t.itemsize,
        });
    }
    let views = tensors
        .iter()
        .enumerate()
        .map(|(i, t)| t.at_hints(i, &loaded.pool, &loaded.env))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| InputError::field(e.path(), e.message))?;
    let answer = analyze_views(&views, budget);
    let symbolic = tensors.iter().any(|t| t.is_symbolic(&loaded.pool));
    let undecided = answer.pairs.iter().any(|p| p.2 == Verdict::Undecided);
    let invariant = (!symbolic && !undecided).then_some(true);
    let non_overlapping: Vec<usize> = (0..tensors.len())
        .filter(|i| answer.overlapping.binary_search(i).is_err())
        .collect();
    let source = |i: usize| {
        tensors[i]
            .source
            .clone()
            .unwrap_or_else(|| format!("tensors[{i}]"))
    };
    let guards = if invariant == Some(true) {
        Vec::new()
    } else {
        vec![Guard::StorageOverlap {
            overlapping: answer.overlapping.iter().map(|&i| source(i)).collect(),
            non_overlapping: non_overlapping.iter().map(|&i| source(i)).collect(),
        }]
    };
    let pairs = answer
        .pairs
        .iter()
        .map(|(a, b, v)| PairResult {
            a: *a,
            b: *b,
            overlap: true,
            proof: match v {
                Verdict::Undecided => "unknown",
                _ if symbolic => "hint_only",
                _ => "proved",
            }
            .to_string(),
            witness: match v {
                Verdict::Overlap(w) => Some(PairWitness {
                    address: w.address,
                    index_a: w.index_a.clone(),
                    index_b: w.index_b.clone(),
                }),
                _ => None,
            },
        })
        .collect();
    Ok(OverlapResult {
        id: case.id.clone(),
        overlapping: answer.overlapping,
        non_overlapping,
        invariant,
        guards,
        pairs,
        micros: start.elapsed().as_micros() as u64,
    })
}
