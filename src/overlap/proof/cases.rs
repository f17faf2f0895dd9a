//! Proof by cases: small values of a symbol one by one, a proof for the rest.
//!
//! The staged prover often fails only because of a few small values of a
//! symbol. The stride split (`split.rs`) needs its remainders inside
//! `[0, g)`, and that fails where the modulus `g` is small. An example is
//! `[s0]:[s0]@0` against `[4]:[s0]@3*s0 + 3`. The views can meet only
//! where `s0 ∣ 3`, and the split's side condition `3 <= s0 - 1` fails at
//! `s0 ∈ {2, 3}`.
//!
//! When the staged proof of a case is undecided, the domain is cut in two:
//! * **the rest**: a symbol `s` with a lower bound `lo` is narrowed to
//!   `s >= lo + SMALL`, and the staged prover runs again on that region;
//! * **the small values**: each `s = v` for `v` in `lo .. lo + SMALL` is a
//!   region of its own, proved the same way, at most `DEPTH` cuts deep.
//!
//! A region whose box of symbol values is small (at most `BOX_POINTS`
//! points) is decided by **exhaustion**. The exact classification is
//! computed at each point, the same exact test as at the hints. Points
//! outside the domain are skipped: an assumption fails there, or a field is
//! negative. A point where that test is undecided abandons the region.
//!
//! The case is proved when every region is proved. It is refuted when a
//! region holds an allowed point where the classification differs: a
//! counterexample for the whole case, since each region is part of its
//! domain. The staged prover then runs once more from that point, for the
//! refuted pairs and the guards. Anything else leaves the first answer as it
//! was. The regions share the case's deadline.

use super::refute::allowed_at;
use super::{prove_region, Case, CaseProof, PairStatus, Proof, ProofOptions};
use crate::env::{Env, Interval};
use crate::expr::{ExprPool, SymbolId};
use crate::layout::{Layout, View};
use crate::overlap::{analyze_views, GroupAnswer, Verdict};
use std::time::Instant;
use symalias_solver::Solver;

/// Regions with at most this many points are decided by exhaustion.
const BOX_POINTS: i128 = 1024;

/// Values of a symbol split off one by one, from its lower bound.
const SMALL: i128 = 8;

/// At most this many cuts, one inside the other.
const DEPTH: usize = 2;

/// Cases of more views are left as the staged prover answers them: each
/// region re-runs it over every view, and a large group's proof rests on
/// its chain and guards.
const MAX_VIEWS: usize = 8;

/// What a region came to.
enum RegionVerdict {
    Proved,
    /// An allowed assignment (of `Cases::syms`) where the classification
    /// differs from the hints'.
    Refuted(Vec<(SymbolId, i64)>),
    Unknown,
}

/// The case being proved, and what every region shares.
struct Cases<'a, 's> {
    pool: &'a mut ExprPool,
    case: Case<'a>,
    solver: &'s mut Solver,
    opts: ProofOptions,
    /// The symbols that decide the classification: those of the layouts
    /// and of the assumptions. Every other symbol keeps its hint.
    syms: Vec<SymbolId>,
    /// z3 queries the regions may still ask, together.
    queries_left: usize,
}

/// Proves (or refutes) the hint classification of a symbolic case: the
/// staged prover, then, when it leaves the case undecided, by cases.
pub(crate) fn prove_case(
    pool: &mut ExprPool,
    env: &Env,
    tensors: &[Layout],
    views: &[View],
    hint: &GroupAnswer,
    solver: &mut Solver,
    opts: ProofOptions,
) -> CaseProof {
    // Every region runs under the one deadline of the case.
    let opts = ProofOptions {
        deadline: Some(opts.deadline_from(Instant::now())),
        ..opts
    };
    let case = Case {
        tensors,
        views,
        hint,
    };
    let first = prove_region(pool, env, case, solver, opts, None);
    if first.invariant.is_some() || tensors.len() > MAX_VIEWS {
        return first;
    }
    let mut syms: Vec<SymbolId> = Vec::new();
    for t in tensors {
        for &e in t.sizes.iter().chain(&t.strides).chain([&t.offset]) {
            syms.extend(pool.symbols_of(e));
        }
    }
    for &a in env.assumptions() {
        syms.extend(pool.symbols_of(a));
    }
    if syms.iter().any(|s| !env.symbols().contains(s)) {
        // A symbol without a range cannot be enumerated; every point would
        // fail to evaluate and look outside the domain (a vacuous "proof").
        return first;
    }
    syms.sort_unstable();
    syms.dedup();
    let mut cases = Cases {
        pool,
        case,
        solver,
        opts,
        syms,
        queries_left: opts.max_queries,
    };
    match cases.by_cases(env, 0) {
        RegionVerdict::Proved => proved(first, hint),
        RegionVerdict::Refuted(cx) => {
            // The counterexample's report gets an allowance of its own.
            cases.queries_left = opts.max_queries;
            cases.staged(env, Some(cx))
        }
        RegionVerdict::Unknown => first,
    }
}

/// The first answer, proved: every pair it left open holds (disjoint pairs
/// proved; overlapping ones were settled through the classification, not
/// one by one), and no shape guard is needed.
fn proved(first: CaseProof, hint: &GroupAnswer) -> CaseProof {
    let overlapping = |a: usize, b: usize| hint.pairs.iter().any(|p| (p.a, p.b) == (a, b));
    let pairs = first
        .pairs
        .into_iter()
        .map(|p| {
            let proof = match p.proof {
                Proof::Unknown if overlapping(p.a, p.b) => Proof::HintOnly,
                Proof::Unknown => Proof::Proved,
                other => other,
            };
            PairStatus { proof, ..p }
        })
        .collect();
    CaseProof {
        invariant: Some(true),
        counterexample: None,
        pairs,
        shape_guards: Some(Vec::new()),
        queries: first.queries,
    }
}

impl Cases<'_, '_> {
    /// The staged prover on a region (from a counterexample, if `seed`).
    /// The regions share one allowance of `max_queries` queries (the
    /// whole case's first try had its own): a work bound, so that how far
    /// the cutting goes does not depend on the machine.
    fn staged(&mut self, env: &Env, seed: Option<Vec<(SymbolId, i64)>>) -> CaseProof {
        let opts = ProofOptions {
            max_queries: self.queries_left,
            ..self.opts
        };
        let p = prove_region(self.pool, env, self.case, self.solver, opts, seed);
        self.queries_left = self.queries_left.saturating_sub(p.queries);
        p
    }

    fn time_left(&self) -> bool {
        !symalias_solver::clock::past_opt(self.opts.deadline)
    }

    /// A region: by exhaustion when small, else the staged prover, else cut.
    fn region(&mut self, env: &Env, depth: usize) -> RegionVerdict {
        if self.points(env).is_some() {
            return self.exhaust(env);
        }
        let p = self.staged(env, None);
        match p.invariant {
            Some(true) => RegionVerdict::Proved,
            Some(false) => self.refuted_at(p),
            None => self.by_cases(env, depth),
        }
    }

    /// Cuts the region at the small values of one symbol (the first whose
    /// rest is proved), each small value a region of its own.
    fn by_cases(&mut self, env: &Env, depth: usize) -> RegionVerdict {
        if self.points(env).is_some() {
            return self.exhaust(env);
        }
        if depth >= DEPTH {
            return RegionVerdict::Unknown;
        }
        for s in self.syms.clone() {
            if !self.time_left() {
                return RegionVerdict::Unknown;
            }
            let r = env.range(s);
            let Some(lo) = r.lo else { continue };
            let cut = lo + SMALL;
            if r.hi.is_some_and(|hi| hi < cut) {
                continue;
            }
            let mut rest = env.clone();
            rest.narrow(s, Interval::new(Some(cut), None));
            let p = self.staged(&rest, None);
            match p.invariant {
                Some(true) => {}
                Some(false) => return self.refuted_at(p),
                None => continue,
            }
            for v in lo..cut {
                let mut small = env.clone();
                small.narrow(s, Interval::new(Some(v), Some(v)));
                match self.region(&small, depth + 1) {
                    RegionVerdict::Proved => {}
                    other => return other,
                }
            }
            return RegionVerdict::Proved;
        }
        RegionVerdict::Unknown
    }

    /// A region's refutation, as an assignment of symbol ids.
    fn refuted_at(&self, p: CaseProof) -> RegionVerdict {
        let cx = p.counterexample.and_then(|cx| {
            cx.iter()
                .map(|(name, v)| Some((self.pool.lookup_symbol(name)?, *v)))
                .collect::<Option<Vec<_>>>()
        });
        cx.map_or(RegionVerdict::Unknown, RegionVerdict::Refuted)
    }

    /// The number of points of the region's box, `None` when unbounded or
    /// larger than `BOX_POINTS`.
    fn points(&self, env: &Env) -> Option<i128> {
        self.syms.iter().try_fold(1i128, |n, &s| {
            let r = env.range(s);
            let width = r.hi?.checked_sub(r.lo?)?.checked_add(1)?.max(0);
            n.checked_mul(width).filter(|&n| n <= BOX_POINTS)
        })
    }

    /// Decides a small region point by point.
    fn exhaust(&mut self, env: &Env) -> RegionVerdict {
        let ranges: Vec<(i64, i64)> = self
            .syms
            .iter()
            .filter_map(|&s| {
                let r = env.range(s);
                Some((i64::try_from(r.lo?).ok()?, i64::try_from(r.hi?).ok()?))
            })
            .collect();
        if ranges.len() != self.syms.len() {
            return RegionVerdict::Unknown;
        }
        let mut at: Vec<i64> = ranges.iter().map(|r| r.0).collect();
        if ranges.iter().any(|r| r.0 > r.1) {
            return RegionVerdict::Proved; // an empty region
        }
        loop {
            if !self.time_left() {
                return RegionVerdict::Unknown;
            }
            let point: Vec<(SymbolId, i64)> = self.syms.iter().copied().zip(at.clone()).collect();
            match self.classify(env, &point) {
                Some(Some(set)) if set != self.case.hint.overlapping => {
                    return RegionVerdict::Refuted(point);
                }
                Some(Some(_)) | None => {}
                Some(None) => return RegionVerdict::Unknown,
            }
            // The next point (odometer order).
            let mut k = 0;
            loop {
                if k == at.len() {
                    return RegionVerdict::Proved;
                }
                if at[k] < ranges[k].1 {
                    at[k] += 1;
                    break;
                }
                at[k] = ranges[k].0;
                k += 1;
            }
        }
    }

    /// The exact classification at a point: `None` outside the domain,
    /// `Some(None)` where the exact test is undecided.
    fn classify(&self, env: &Env, point: &[(SymbolId, i64)]) -> Option<Option<Vec<usize>>> {
        let look = |s: SymbolId| {
            point
                .iter()
                .find(|p| p.0 == s)
                .map(|p| p.1)
                .or_else(|| env.hint(s))
        };
        if !allowed_at(self.pool, env, &look) {
            return None;
        }
        let views = self
            .case
            .tensors
            .iter()
            .map(|t| t.at(self.pool, &look, "a point").ok())
            .collect::<Option<Vec<View>>>()?;
        let answer = analyze_views(&views, self.opts.budget);
        if answer
            .pairs
            .iter()
            .any(|p| matches!(p.verdict, Verdict::Undecided))
        {
            return Some(None);
        }
        Some(Some(answer.overlapping))
    }
}
