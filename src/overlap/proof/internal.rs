//! Internal overlap for all shapes: does a symbolic view reach some byte
//! from two different indices at every allowed shape, or at none?
//!
//! The question is reduced to pairs, so that every stage of the pair proof
//! (interval bounds, chains, witness persistence, z3, refutation) serves it
//! unchanged. Two distinct indices with one address have a first dimension
//! `d` where they differ (dimensions in order); ordered so that `j_d > i_d`
//! and with `i_e = j_e = 0` before `d`, the concrete decision's equation
//! (`internal.rs`) reads
//!
//! `s_d·t' + Σ_{e>d} s_e·i_e + Σ_{e>d} s_e·j'_e = s_d·(n_d − 1) + Σ_{e>d} s_e·(n_e − 1)`
//!
//! with `0 ≤ t' ≤ n_d − 2` and `0 ≤ i_e, j'_e ≤ n_e − 1`: the view
//! `V_d` (offset 0; sizes `max(n_d − 1, 0)`, then each later size twice;
//! strides `s_d`, then each later stride twice; see below for earlier ones) meets the single element
//! `P_d` at that right-hand side. So the view overlaps itself at a shape
//! exactly when some pair `(V_d, P_d)` overlaps there, and
//!
//! * "overlaps itself" holds for all shapes when one pair's overlap does;
//! * "does not" holds for all shapes when every pair's disjointness does;
//! * a counterexample of a pair counts only if the whole view's exact
//!   verdict differs there (checked concretely);
//! * shape guards: those of the persistent pair, or of every pair.
//!
//! An empty dimension empties `V_d` as it empties the view: `max(n_d − 1, 0)`
//! keeps its sizes valid, and each earlier dimension adds a dimension of size
//! `min(n_e, 1)` and stride 0 (both indices sit at 0 there).

use super::{prove_case, ProofOptions};
use crate::env::Env;
use crate::expr::{ExprId, ExprPool};
use crate::layout::{Layout, View};
use crate::overlap::{analyze_views, internal_overlap, Verdict};
use symalias_solver::Solver;

/// What is known of one view's overlap with itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InternalProof {
    /// The exact verdict at the hints (with a witness when it overlaps).
    pub verdict: Verdict,
    /// `Some(true)`: the verdict holds for every allowed shape;
    /// `Some(false)`: some allowed shape changes it (see `counterexample`);
    /// `None`: not settled. Concrete views are exact (`Some(true)`) unless
    /// the search hit its bound.
    pub invariant: Option<bool>,
    /// With `invariant: Some(false)`: symbol values (the others at their
    /// hints) at which the exact verdict differs, checked concretely.
    pub counterexample: Option<Vec<(String, i64)>>,
    /// Shape conditions that, with what was proved, imply the verdict; `None`
    /// when some unproved part has none (then only a run-time check keeps it).
    pub shape_guards: Option<Vec<ExprId>>,
}

/// The two views of the reduction for first differing dimension `d`.
///
/// Where a size is at least 1 for all shapes (by intervals), the clamps are
/// left out (`n − 1`, `1`): the same values, and z3 gets no `ite` to split.
fn pair_for(pool: &mut ExprPool, env: &Env, layout: &Layout, d: usize) -> [Layout; 2] {
    let one = pool.int(1);
    let zero = pool.int(0);
    let solid = |pool: &ExprPool, e: ExprId| env.interval(pool, e).lo.is_some_and(|l| l >= 1);
    let less = |pool: &mut ExprPool, e: ExprId| {
        let m = pool.sub(e, one);
        if solid(pool, e) {
            m
        } else {
            pool.max(&[m, zero])
        }
    };
    let mut sizes = vec![less(pool, layout.sizes[d])];
    let mut strides = vec![layout.strides[d]];
    let first = pool.mul(&[layout.strides[d], sizes[0]]);
    let mut rhs = vec![first];
    for e in d + 1..layout.sizes.len() {
        let (n, s) = (layout.sizes[e], layout.strides[e]);
        sizes.extend([n, n]);
        strides.extend([s, s]);
        let last = less(pool, n);
        rhs.push(pool.mul(&[s, last]));
    }
    // Earlier dimensions hold both indices at 0: they need not tell them
    // apart, but an empty one empties the view.
    for e in 0..d {
        let n = if solid(pool, layout.sizes[e]) {
            one
        } else {
            pool.min(&[layout.sizes[e], one])
        };
        sizes.push(n);
        strides.push(zero);
    }
    let offset = pool.add(&rhs);
    let v = Layout {
        sizes,
        strides,
        offset: zero,
        itemsize: layout.itemsize,
    };
    let p = Layout {
        sizes: Vec::new(),
        strides: Vec::new(),
        offset,
        itemsize: layout.itemsize,
    };
    [v, p]
}

impl InternalProof {
    /// Proved for all shapes: no guard needed.
    fn proved(verdict: Verdict) -> Self {
        InternalProof {
            verdict,
            invariant: Some(true),
            counterexample: None,
            shape_guards: Some(Vec::new()),
        }
    }

    /// Decided at the hints only.
    fn unsettled(verdict: Verdict) -> Self {
        InternalProof {
            verdict,
            invariant: None,
            counterexample: None,
            shape_guards: None,
        }
    }
}

/// Decides `layout`'s overlap with itself at the hints (`view` is the layout
/// there, validated) and proves or refutes that verdict for every shape the
/// environment allows, within `opts`.
///
/// ```
/// use symalias::env::{Env, SymbolDecl};
/// use symalias::expr::{parse, ExprPool};
/// use symalias::layout::Layout;
/// use symalias::overlap::{prove_internal, ProofOptions, Verdict};
/// use symalias_solver::{Budget, Solver};
/// let mut pool = ExprPool::new();
/// let mut env = Env::new();
/// env.declare(&mut pool, &SymbolDecl::new("s0").hint(5).min(2)).unwrap();
/// let mut e = |t: &str| parse(&mut pool, t).unwrap();
/// // A contiguous (s0, 3) matrix never overlaps itself, whatever s0 is;
/// // rows of s0 elements every 2 do whenever s0 > 2.
/// let (n, three, one, two, zero) = (e("s0"), e("3"), e("1"), e("2"), e("0"));
/// let rows = Layout { sizes: vec![n, three], strides: vec![three, one], offset: zero, itemsize: 4 };
/// let windows = Layout { sizes: vec![three, n], strides: vec![two, one], offset: zero, itemsize: 4 };
/// let mut solver = Solver::new(Budget::default());
/// for (l, overlaps, invariant) in [(rows, false, Some(true)), (windows, true, Some(false))] {
///     let view = l.at_hints(&pool, &env).unwrap();
///     let p = prove_internal(&mut pool, &env, &l, &view, &mut solver, ProofOptions::default());
///     assert_eq!((p.verdict.may_overlap(), p.invariant), (overlaps, invariant));
/// }
/// ```
pub fn prove_internal(
    pool: &mut ExprPool,
    env: &Env,
    layout: &Layout,
    view: &View,
    solver: &mut Solver,
    opts: ProofOptions,
) -> InternalProof {
    let _span = tracing::debug_span!("prove_internal", dims = layout.sizes.len()).entered();
    let verdict = internal_overlap(view, opts.budget);
    let unsettled = InternalProof::unsettled;
    if verdict == Verdict::Undecided {
        return unsettled(verdict);
    }
    if !layout.is_symbolic(pool) {
        return InternalProof::proved(verdict);
    }
    let overlaps = verdict.may_overlap();
    if symalias_solver::clock::past_opt(opts.deadline) {
        return unsettled(verdict);
    }
    if !overlaps && strides_separate(pool, env, layout, view, solver, &opts) {
        return InternalProof::proved(verdict);
    }
    if let Some(cx) = sampled_counterexample(pool, env, layout, overlaps, &opts) {
        return InternalProof {
            verdict,
            invariant: Some(false),
            counterexample: Some(cx),
            shape_guards: None,
        };
    }
    let env = &valid_only(pool, env, layout);
    let lookup = |s| env.hint(s);
    // Overlap: the first pair that meets at the hints and has shape guards.
    let mut persist_guards: Option<Vec<ExprId>> = None;
    // No overlap: every unproved pair's guards (None once one has none).
    let mut disjoint_guards: Option<Vec<ExprId>> = Some(Vec::new());
    let mut all_proved = true;
    let mut counterexample = None;
    for d in 0..layout.sizes.len() {
        let pair = pair_for(pool, env, layout, d);
        let Ok(views) = pair
            .iter()
            .map(|l| l.at(pool, &lookup, "the hints"))
            .collect::<Result<Vec<View>, _>>()
        else {
            return unsettled(verdict);
        };
        let hint = analyze_views(&views, opts.budget);
        if hint.pairs.iter().any(|p| p.verdict == Verdict::Undecided) {
            return unsettled(verdict);
        }
        let meets = !hint.overlapping.is_empty();
        if meets && !overlaps {
            // The reduction and the exact decision disagree: never at valid
            // views; answer nothing rather than a wrong proof.
            return unsettled(verdict);
        }
        if overlaps && !meets {
            continue; // this dimension does not show the overlap at the hints
        }
        let proof = prove_case(pool, env, &pair, &views, &hint, solver, opts);
        if let Some(cx) = &proof.counterexample {
            if counterexample.is_none() && differs_at(pool, env, layout, cx, overlaps, opts.budget)
            {
                counterexample = Some(cx.clone());
            }
        }
        if proof.invariant == Some(true) {
            if overlaps {
                // One persistent pair keeps the view overlapping everywhere.
                return InternalProof::proved(verdict);
            }
            continue;
        }
        all_proved = false;
        let guards = proof.shape_guards.filter(|g| !g.is_empty());
        if overlaps {
            persist_guards = persist_guards.or(guards);
        } else {
            disjoint_guards = match (disjoint_guards, guards) {
                (Some(mut g), Some(more)) => {
                    g.extend(more);
                    Some(g)
                }
                _ => None,
            };
        }
    }
    if all_proved && !overlaps {
        return InternalProof::proved(verdict);
    }
    let shape_guards = if overlaps {
        persist_guards
    } else {
        disjoint_guards
    };
    InternalProof {
        verdict,
        invariant: counterexample.as_ref().map(|_| false),
        counterexample,
        shape_guards: shape_guards.filter(|g| !g.is_empty()),
    }
}

/// `true` when, ordered by their strides at the hints, every dimension's
/// stride exceeds the farthest reach of the dimensions inside it
/// (`s_k > Σ_{j inner} s_j·(n_j − 1)`) for all shapes, by expansion and
/// interval bounds, else by one z3 question for the rest: then no two
/// indices share an address (mixed radix), the common case of contiguous,
/// permuted and sliced layouts. An empty view satisfies nothing it needs to,
/// but cannot overlap itself either.
fn strides_separate(
    pool: &mut ExprPool,
    env: &Env,
    layout: &Layout,
    view: &View,
    solver: &mut Solver,
    opts: &ProofOptions,
) -> bool {
    let mut order: Vec<usize> = (0..layout.sizes.len()).collect();
    order.sort_by_key(|&d| (view.strides[d], view.sizes[d]));
    let minus_one = pool.int(-1);
    let mut reach: Vec<ExprId> = Vec::new();
    let mut open = Vec::new();
    for &d in &order {
        let (n, s) = (layout.sizes[d], layout.strides[d]);
        // s - reach - 1 >= 0
        let mut parts = vec![s, minus_one];
        for &r in &reach {
            parts.push(pool.mul(&[minus_one, r]));
        }
        let gap = pool.add(&parts);
        let gap = crate::simplify::poly::expand(pool, gap);
        if env.interval(pool, gap).lo.is_none_or(|l| l < 0) {
            let zero = pool.int(0);
            open.push(pool.binary(crate::expr::BinOp::Ge, gap, zero));
        }
        let last = pool.add(&[n, minus_one]);
        reach.push(pool.mul(&[s, last]));
    }
    if open.is_empty() {
        return true;
    }
    let cond = pool.and(&open);
    opts.max_queries > 0 && super::always_in(pool, env, cond, solver, opts)
}

/// The environment with "every field of `layout` is non-negative" assumed:
/// the reduction's views clamp sizes (`max(n − 1, 0)`, `min(n, 1)`), so
/// without it the pair proofs would range over shapes at which the view
/// itself is not valid (and z3 would keep answering with such models).
fn valid_only(pool: &mut ExprPool, env: &Env, layout: &Layout) -> Env {
    let mut env = env.clone();
    let zero = pool.int(0);
    for &e in layout.sizes.iter().chain(&layout.strides) {
        if !pool.symbols_of(e).is_empty() && env.interval(pool, e).lo.is_none_or(|l| l < 0) {
            let fact = pool.binary(crate::expr::BinOp::Ge, e, zero);
            // True at the hints (the view is valid there), so never refused.
            let _ = env.assume(pool, fact);
        }
    }
    env
}

/// An allowed shape among `opts.samples` (boundaries first, then uniform
/// values; the same sampler as the pair refuter's) at which the view's exact
/// verdict is not `overlaps`: refutation without z3.
fn sampled_counterexample(
    pool: &ExprPool,
    env: &Env,
    layout: &Layout,
    overlaps: bool,
    opts: &ProofOptions,
) -> Option<Vec<(String, i64)>> {
    let mut syms: Vec<_> = layout
        .sizes
        .iter()
        .chain(&layout.strides)
        .flat_map(|&e| pool.symbols_of(e))
        .collect();
    syms.sort_unstable();
    syms.dedup();
    let mut next = super::xorshift(0x9E37_79B9_7F4A_7C15);
    let started = std::time::Instant::now();
    (0..opts.samples)
        .take_while(|_| !symalias_solver::clock::past(opts.deadline_from(started)))
        .map(|k| super::refute::sample_at(env, &syms, k, &mut next))
        .map(|cx| {
            cx.into_iter()
                .map(|(s, v)| (pool.symbol_name(s).to_string(), v))
                .collect::<Vec<_>>()
        })
        .find(|cx| differs_at(pool, env, layout, cx, overlaps, opts.budget))
}

/// `true` when, at `cx` (others at their hints), the view's exact verdict is
/// not `overlaps` (an invalid or disallowed assignment counts as no).
fn differs_at(
    pool: &ExprPool,
    env: &Env,
    layout: &Layout,
    cx: &[(String, i64)],
    overlaps: bool,
    budget: u64,
) -> bool {
    let values: Vec<_> = cx
        .iter()
        .filter_map(|(name, v)| pool.lookup_symbol(name).map(|s| (s, *v)))
        .collect();
    let lookup = |s| {
        values
            .iter()
            .find(|(t, _)| *t == s)
            .map(|&(_, v)| v)
            .or_else(|| env.hint(s))
    };
    if !super::refute::allowed_at(pool, env, &lookup) {
        return false;
    }
    match layout.at(pool, &lookup, "a counterexample") {
        Ok(v) => match internal_overlap(&v, budget) {
            Verdict::Undecided => false,
            w => w.may_overlap() != overlaps,
        },
        Err(_) => false,
    }
}
