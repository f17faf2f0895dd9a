//! Running an overlap case (FORMATS.md §3): load, evaluate at the hints,
//! analyse the group, and build the result line.

use super::error::InputError;
use super::load::{load_env, load_env_simplified, load_expr, Loaded};
use super::types::{ExprField, Guard, OverlapCase, OverlapResult, PairResult, PairWitness};
use crate::expr::ExprId;
use crate::guards::{compact_shape_guards, GuardKind};
use crate::overlap::{
    analyze_views, prove_case, PairProof, ProofOptions, SymTensor, Verdict, DEFAULT_BUDGET,
};
use crate::simplify::{simplify, SimplifyOptions};
use std::collections::BTreeMap;
use std::time::Instant;
use symalias_solver::Solver;
use tracing::debug_span;

/// Shape-guard lists up to this length are simplified guard by guard.
pub const SIMPLIFY_GUARDS_MAX: usize = 32;

/// How `run_overlap_case` works.
#[derive(Clone, Copy, Debug)]
pub struct OverlapOptions {
    /// Work bound of the exact search, in nodes per pair.
    pub budget: u64,
    /// Prove symbolic cases for all shapes (else: hint-only answers).
    pub prove: bool,
    /// Limits of the proof.
    pub proof: ProofOptions,
    /// Report `micros: 0` so that output is byte-for-byte reproducible.
    pub no_timing: bool,
    /// Simplify sizes, strides, offsets and assumptions first (`None`: as written).
    pub simplify: Option<SimplifyOptions>,
}

impl Default for OverlapOptions {
    fn default() -> Self {
        OverlapOptions {
            budget: DEFAULT_BUDGET,
            prove: true,
            proof: ProofOptions::default(),
            no_timing: false,
            simplify: Some(SimplifyOptions::default()),
        }
    }
}

/// Analyses one overlap case: exact at the hints, then (for symbolic cases)
/// proved or refuted for all allowed shapes.
///
/// Concrete cases are exact (`invariant: true`, pairs `proved`) unless a pair
/// hit the search's work bound (then it counts as overlapping, its proof is
/// `unknown`, `invariant` is `null` and the StorageOverlap guard is emitted).
/// Symbolic cases get `invariant: true` only with a proof, `false` with a
/// counterexample checked concretely, `null` otherwise; when not proved, the
/// guards are shape guards if they cover every unproved requirement, else the
/// StorageOverlap guard.
///
/// ```
/// use symalias::io::{parse_line, run_overlap_case, OverlapCase};
/// let line = r#"{"id": "b0", "tensors": [
///     {"source": "L['a']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 0},
///     {"source": "L['b']", "sizes": [4, 4], "strides": [9, 1], "storage_offset": 9}]}"#;
/// let case: OverlapCase = parse_line(1, line).value.unwrap();
/// let mut solver = symalias_solver::Solver::default();
/// let result = run_overlap_case(&case, &Default::default(), &mut solver).unwrap();
/// assert_eq!(result.overlapping, vec![0, 1]);
/// assert_eq!(result.invariant, Some(true));
/// ```
pub fn run_overlap_case(
    case: &OverlapCase,
    opts: &OverlapOptions,
    solver: &mut Solver,
) -> Result<OverlapResult, InputError> {
    let budget = opts.budget;
    let _span = debug_span!("overlap_case", id = %case.id).entered();
    let start = Instant::now();
    // One deadline for the whole case: simplification gets what is left of
    // it (and is skipped once it is spent), the proof stops at it.
    let deadline = opts.proof.deadline_from(start);
    let simplify_opts = || {
        opts.simplify.as_ref().and_then(|so| {
            let left = deadline.saturating_duration_since(Instant::now());
            (!left.is_zero()).then(|| {
                let mut so = *so;
                so.limits.time = so.limits.time.min(left);
                so
            })
        })
    };
    let mut loaded = match &opts.simplify {
        Some(so) => load_env_simplified(&case.symbols, &case.assumptions, so)?,
        None => load_env(&case.symbols, &case.assumptions)?,
    };
    // Each distinct field expression is simplified once, under the case's facts.
    let mut simplified: hashbrown::HashMap<ExprId, ExprId> = hashbrown::HashMap::new();
    let mut load = |loaded: &mut Loaded, field: &str, value: &ExprField| {
        let e = load_expr(loaded, field, value, true)?;
        Ok::<ExprId, InputError>(match simplify_opts() {
            Some(so) => *simplified
                .entry(e)
                .or_insert_with(|| simplify(&mut loaded.pool, &loaded.env, e, &so).expr),
            None => e,
        })
    };
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
            .map(|(d, f)| load(&mut loaded, &field(&format!("sizes[{d}]")), f))
            .collect::<Result<Vec<_>, _>>()?;
        let strides = t
            .strides
            .iter()
            .enumerate()
            .map(|(d, f)| load(&mut loaded, &field(&format!("strides[{d}]")), f))
            .collect::<Result<Vec<_>, _>>()?;
        let offset = load(&mut loaded, &field("storage_offset"), &t.storage_offset)?;
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
    let non_overlapping: Vec<usize> = (0..tensors.len())
        .filter(|i| answer.overlapping.binary_search(i).is_err())
        .collect();
    let source = |i: usize| {
        tensors[i]
            .source
            .clone()
            .unwrap_or_else(|| format!("tensors[{i}]"))
    };
    let storage_guard = |why: &str| {
        Guard::new(
            GuardKind::StorageOverlap {
                overlapping: answer.overlapping.iter().map(|&i| source(i)).collect(),
                non_overlapping: non_overlapping.iter().map(|&i| source(i)).collect(),
                components: Vec::new(),
            },
            format!("{}: {why}", case.id),
        )
    };
    // The hint answer's witnesses, looked up per listed pair.
    let witnesses: hashbrown::HashMap<(usize, usize), PairWitness> = answer
        .pairs
        .iter()
        .filter_map(|(a, b, v)| match v {
            Verdict::Overlap(w) => Some((
                (*a, *b),
                PairWitness {
                    address: w.address,
                    index_a: w.index_a.clone(),
                    index_b: w.index_b.clone(),
                },
            )),
            _ => None,
        })
        .collect();
    let witness_of = |a: usize, b: usize| witnesses.get(&(a, b)).cloned();
    let (invariant, guards, pairs, counterexample) = if symbolic && opts.prove && !undecided {
        let proof = prove_case(
            &mut loaded.pool,
            &loaded.env,
            &tensors,
            &views,
            &answer,
            solver,
            ProofOptions {
                deadline: Some(deadline),
                ..opts.proof
            },
        );
        let guards = match (&proof.invariant, &proof.shape_guards) {
            (Some(true), _) => Vec::new(),
            (_, Some(gs)) if !gs.is_empty() => {
                // Guards are read within the case's domain, like every other
                // fact of the analysis: simplify them there, then merge bounds
                // on one symbol and drop repeats (the list is a conjunction).
                // A long list (a chain of many views) is left in the pool's
                // canonical form over the simplified fields: an egg run per
                // guard would make the case quadratic-looking in time.
                let short = gs.len() <= SIMPLIFY_GUARDS_MAX;
                let simplified: Vec<_> = gs
                    .iter()
                    .map(|&g| match simplify_opts().filter(|_| short) {
                        Some(so) => simplify(&mut loaded.pool, &loaded.env, g, &so).expr,
                        None => g,
                    })
                    .collect();
                // Fast path for the StorageOverlap guard that closes the
                // list (FORMATS §3: "preceded by cheaper shape guards that
                // imply it"): when they hold, the sweep is skipped.
                let mut gs: Vec<Guard> = compact_shape_guards(&mut loaded.pool, &simplified)
                    .into_iter()
                    .map(|g| {
                        Guard::new(
                            GuardKind::Shape {
                                expr: loaded.pool.display(g).to_string(),
                            },
                            format!(
                                "{}: with what z3 proved, implies the overlap partition (overlapping {:?})",
                                case.id, answer.overlapping
                            ),
                        )
                        .fast()
                    })
                    .collect();
                gs.push(storage_guard(
                    "not proved for all shapes; implied by the shape guards before it (skipped when they hold), re-checked exactly when one fails",
                ));
                gs
            }
            _ => vec![storage_guard(
                "the partition is exact at the hints, but not proved for all shapes and no shape guard implies it: re-checked exactly at run time",
            )],
        };
        let pairs = proof
            .pairs
            .iter()
            .map(|&(a, b, overlap, st)| PairResult {
                a,
                b,
                overlap,
                proof: match st {
                    PairProof::Proved => "proved",
                    PairProof::Refuted => "refuted",
                    PairProof::Unknown => "unknown",
                    PairProof::HintOnly => "hint_only",
                }
                .to_string(),
                witness: if overlap { witness_of(a, b) } else { None },
            })
            .collect();
        let cx = proof
            .counterexample
            .map(|c| c.into_iter().collect::<BTreeMap<String, i64>>());
        (proof.invariant, guards, pairs, cx)
    } else {
        let invariant = (!symbolic && !undecided).then_some(true);
        let guards = if invariant == Some(true) {
            Vec::new()
        } else if undecided {
            vec![storage_guard(
                "some pair is undecided within the search budget (treated as overlapping): re-checked at run time",
            )]
        } else {
            vec![storage_guard(
                "the partition is exact at the hints; no proof was asked for: re-checked exactly at run time",
            )]
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
                witness: witness_of(*a, *b),
            })
            .collect();
        (invariant, guards, pairs, None)
    };
    let symbols = if guards
        .iter()
        .any(|g| matches!(g.kind, GuardKind::Shape { .. }))
    {
        case.symbols
            .iter()
            .filter_map(|(name, spec)| spec.source.clone().map(|src| (name.clone(), src)))
            .collect()
    } else {
        BTreeMap::new()
    };
    Ok(OverlapResult {
        id: case.id.clone(),
        overlapping: answer.overlapping.clone(),
        non_overlapping,
        invariant,
        guards,
        pairs,
        counterexample,
        symbols,
        micros: if opts.no_timing {
            0
        } else {
            start.elapsed().as_micros() as u64
        },
    })
}
