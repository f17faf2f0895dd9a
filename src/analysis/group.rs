//! The overlap pipeline of one storage group, one function per pass:
//! [`simplified_env`] → [`simplify_layouts`] → [`views_at_hints`] → the exact
//! decision → [`prove`] (symbolic groups) → [`proof_guards`] /
//! [`hint_guards`] → the report.

use super::error::GroupError;
use super::report::{Invariance, OverlapReport, PairReport, SelfOverlapReport};
use super::{Analyzer, AnalyzerOptions, Scope};
use crate::env::Env;
use crate::expr::{ExprId, ExprPool};
use crate::guards::plan::{stand_alone, GuardMember, SelfKnown, StandAlone};
use crate::guards::{compact_shape_guards, Guard, GuardKind};
use crate::layout::{Layout, View};
use crate::overlap::{
    analyze_views_listing, disjoint_by_extents, internal_overlap_until, prove_case, prove_internal,
    GroupAnswer, Proof, ProofOptions, Verdict, Witness,
};
use crate::simplify::{simplify, SimplifyOptions};
use hashbrown::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::time::Instant;
use symalias_solver::clock::Watch;
use tracing::debug_span;

/// Shape-guard lists up to this length are simplified guard by guard.
pub(crate) const SIMPLIFY_GUARDS_MAX: usize = 32;

/// One view of a storage group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Run-time source (names the member in guards), e.g. `L['a']`.
    pub source: String,
    /// Where its elements are.
    pub layout: Layout,
}

/// Views of one storage, asked which of them overlap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// A label for guard reasons (e.g. the case id).
    pub id: String,
    /// The views.
    pub members: Vec<Member>,
}

/// The answer of [`Analyzer::disjoint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disjointness {
    /// Pairwise disjoint for every allowed shape (proved).
    Proved,
    /// Some two members overlap at the hints (exact): at an allowed shape.
    OverlapsAtHints,
    /// Not settled: disjoint at the hints but not proved for every allowed
    /// shape (in time), or a pair past the exact search's budget.
    Unknown,
}

impl Analyzer {
    /// Which members of `group` overlap: exact at the hints, then (for
    /// symbolic groups) proved or refuted for all allowed shapes, with the
    /// guards that keep the answer true. Simplified forms are added to
    /// `scope.pool`; the report's guards are expressions of that pool.
    ///
    /// Concrete groups are exact (`Proved`, pairs `Proved`) unless a pair hit
    /// the search's work bound (then it counts as overlapping, its proof is
    /// `Unknown`, and the StorageOverlap guard is emitted). Symbolic groups
    /// are `Proved` only with a proof, `Refuted` with a counterexample
    /// checked concretely, `Unknown` otherwise; when not proved, the guards
    /// are shape guards if they cover every unproved requirement (then the
    /// StorageOverlap guard as the fallback), else the StorageOverlap guard.
    pub fn overlap(
        &mut self,
        scope: &mut Scope,
        group: &Group,
    ) -> Result<OverlapReport, GroupError> {
        let (start, watch) = (Instant::now(), Watch::start());
        // One z3 context for the case, handed from session to session.
        let _contexts = symalias_solver::Reuse::scope();
        let deadline = self.options.proof.deadline_from(start);
        let env = simplified_env(&mut scope.pool, &scope.env, self.options.simplify.as_ref());
        let mut report = self.overlap_in(&mut scope.pool, &env, group, start, deadline)?;
        // (A program's groups get their fast paths from `guards::plan`'s
        // `group_guards`, from the proof's own list: `overlap_in` alone.)
        self.finish_guards(&mut scope.pool, &scope.env, group, &mut report);
        report.time_limit_hit |= watch.fired();
        Ok(report)
    }

    /// Whether the members of `group` are pairwise disjoint for every
    /// allowed shape -- the question of a caller for which any overlap is
    /// final (Inductor's reinplace pass: an overlap only keeps a copy), so
    /// that no proof is spent on overlaps. Cheapest first:
    /// 1. every two members apart by their extents' interval gaps (the
    ///    proof's first step, on the layouts as written): `Proved`;
    /// 2. the exact answer at the hints: some members overlap there (an
    ///    allowed shape): `OverlapsAtHints`; a pair past the search budget:
    ///    `Unknown`;
    /// 3. all disjoint at the hints: [`Analyzer::overlap`] (simplification,
    ///    the whole proof), `Proved` only when it proves the partition.
    ///
    /// Errors as [`Analyzer::overlap`] (a field that does not evaluate at
    /// the hints).
    pub fn disjoint(
        &mut self,
        scope: &mut Scope,
        group: &Group,
    ) -> Result<Disjointness, GroupError> {
        let _contexts = symalias_solver::Reuse::scope();
        let layouts: Vec<Layout> = group.members.iter().map(|m| m.layout.clone()).collect();
        if disjoint_by_extents(&mut scope.pool, &scope.env, &layouts) {
            return Ok(Disjointness::Proved);
        }
        let views = views_at_hints(&scope.pool, &scope.env, &layouts)?;
        let answer = analyze_views_listing(
            &views,
            self.options.budget,
            self.options.max_listed_pairs,
            Some(self.options.proof.deadline_from(Instant::now())),
        );
        if answer.pairs.iter().any(|p| p.verdict == Verdict::Undecided) {
            return Ok(Disjointness::Unknown);
        }
        if !answer.overlapping.is_empty() {
            return Ok(Disjointness::OverlapsAtHints);
        }
        let symbolic = layouts.iter().any(|l| l.is_symbolic(&scope.pool));
        if !symbolic {
            return Ok(Disjointness::Proved);
        }
        if !self.options.prove {
            return Ok(Disjointness::Unknown);
        }
        let report = self.overlap(scope, group)?;
        Ok(match report.invariance {
            Invariance::Proved if report.overlapping.is_empty() => Disjointness::Proved,
            _ => Disjointness::Unknown,
        })
    }

    /// [`Analyzer::overlap`] in an environment already prepared with
    /// [`simplified_env`], within `deadline`.
    pub(crate) fn overlap_in(
        &mut self,
        pool: &mut ExprPool,
        env: &Env,
        group: &Group,
        start: Instant,
        deadline: Instant,
    ) -> Result<OverlapReport, GroupError> {
        let _span = debug_span!("overlap", id = %group.id).entered();
        let watch = Watch::start();
        let limits = |opts: &Option<SimplifyOptions>| within(opts.as_ref(), deadline);
        let layouts = simplify_layouts(pool, env, &group.members, &|| {
            limits(&self.options.simplify)
        });
        let views = views_at_hints(pool, env, &layouts)?;
        let answer = analyze_views_listing(
            &views,
            self.options.budget,
            self.options.max_listed_pairs,
            Some(deadline),
        );
        let symbolic = layouts.iter().any(|l| l.is_symbolic(pool));
        let undecided = answer.pairs.iter().any(|p| p.verdict == Verdict::Undecided);
        let mut report = if symbolic && self.options.prove && !undecided {
            self.prove(pool, env, group, &layouts, &views, answer, deadline)
        } else {
            let source = |i: usize| group.members[i].source.clone();
            hint_report(Labels::of(group, &source), answer, symbolic, undecided)
        };
        report.self_overlap = self.self_overlap(pool, env, &layouts, &views, deadline);
        if let Some(g) = self_overlap_guard(group, &report.self_overlap) {
            report.guards.push(g);
        }
        report.elapsed = start.elapsed();
        report.time_limit_hit = watch.fired();
        Ok(report)
    }

    /// The concrete short road: every field is an integer, so the exact
    /// decision is the whole answer — no pool, no simplifier, no prover.
    /// `views` must be valid ([`View::validate`]); `source(i)` names view `i`
    /// in guards (asked only when a guard is emitted).
    pub fn overlap_views(
        &self,
        id: &str,
        views: &[View],
        source: &dyn Fn(usize) -> String,
    ) -> OverlapReport {
        let (start, watch) = (Instant::now(), Watch::start());
        let _contexts = symalias_solver::Reuse::scope();
        let deadline = self.options.proof.deadline_from(start);
        let answer = analyze_views_listing(
            views,
            self.options.budget,
            self.options.max_listed_pairs,
            Some(deadline),
        );
        let undecided = answer.pairs.iter().any(|p| p.verdict == Verdict::Undecided);
        let labels = Labels {
            id,
            n: views.len(),
            source,
        };
        let mut report = hint_report(labels, answer, false, undecided);
        let mut work = SelfWork::new(&self.options);
        report.self_overlap = views
            .iter()
            .enumerate()
            .filter_map(|(member, v)| {
                concrete_self_overlap(member, work.concrete(v, Some(deadline)))
            })
            .collect();
        report.elapsed = start.elapsed();
        report.time_limit_hit = watch.fired();
        report
    }

    /// Makes `report`'s guards stand alone
    /// (`guards::plan::stand_alone`: the members' layouts, itemsize
    /// included, and the domain in every fast path), unless the options say
    /// the embedder pins layouts itself ([`super::GuardOptions`]).
    /// [`Analyzer::overlap`] does this; a caller of the concrete short road
    /// ([`Analyzer::overlap_views`]) calls it with the group's layouts.
    pub fn finish_guards(
        &self,
        pool: &mut ExprPool,
        env: &Env,
        group: &Group,
        report: &mut OverlapReport,
    ) {
        if self.options.guards.layouts_pinned {
            return;
        }
        let layouts: Vec<&Layout> = group.members.iter().map(|m| &m.layout).collect();
        let symbolic = layouts.iter().any(|l| l.is_symbolic(pool));
        let domain = if symbolic {
            super::program::domain_of(pool, env, &layouts)
        } else {
            Vec::new()
        };
        let bindable = layouts
            .iter()
            .flat_map(|l| l.fields())
            .map(|(_, e)| e)
            .chain(domain.iter().copied())
            .all(|e| {
                pool.symbols_of(e)
                    .iter()
                    .all(|&s| env.info(s).is_some_and(|i| i.source.is_some()))
            });
        let claims_all_shapes = self.options.prove || !symbolic;
        let self_overlap = {
            // Members the report's own SelfOverlap guard already checks exactly.
            let guarded: HashSet<&str> = report
                .guards
                .iter()
                .filter_map(|g| match &g.kind {
                    GuardKind::SelfOverlap {
                        overlapping,
                        non_overlapping,
                    } => Some(overlapping.iter().chain(non_overlapping)),
                    _ => None,
                })
                .flatten()
                .map(String::as_str)
                .collect();
            let mut listed: Vec<Option<&SelfOverlapReport>> = vec![None; group.members.len()];
            for r in &report.self_overlap {
                listed[r.member] = Some(r);
            }
            group
                .members
                .iter()
                .zip(listed)
                .map(|(m, listed)| {
                    let known = match listed.map(|r| r.proof) {
                        _ if guarded.contains(m.source.as_str()) => SelfKnown::Guarded,
                        Some(Proof::Proved) | None if claims_all_shapes => SelfKnown::Proved,
                        _ => SelfKnown::HintOnly,
                    };
                    (listed.is_some_and(|r| r.overlap), known)
                })
                .collect()
        };
        let facts = StandAlone {
            id: &group.id,
            members: group
                .members
                .iter()
                .map(|m| GuardMember {
                    source: m.source.clone(),
                    layout: m.layout.clone(),
                    merged: false,
                })
                .collect(),
            domain,
            overlapping: &report.overlapping,
            self_overlap,
            bindable,
        };
        report.guards = stand_alone(pool, &facts, std::mem::take(&mut report.guards));
    }

    /// Each member's overlap with itself: exact at the hints, proved for all
    /// shapes when `prove` is on (layouts with one sizes-and-strides pair
    /// are asked once: the offset plays no part).
    fn self_overlap(
        &mut self,
        pool: &mut ExprPool,
        env: &Env,
        layouts: &[Layout],
        views: &[View],
        deadline: Instant,
    ) -> Vec<SelfOverlapReport> {
        let mut asked: HashMap<(&[ExprId], &[ExprId]), Option<SelfOverlapReport>> = HashMap::new();
        let mut out = Vec::new();
        let mut work = SelfWork::new(&self.options);
        for (member, (l, v)) in layouts.iter().zip(views).enumerate() {
            let known = match asked.get(&(&l.sizes[..], &l.strides[..])) {
                Some(r) => r.clone(),
                None => {
                    let r = self.self_overlap_of(pool, env, l, v, deadline, &mut work);
                    asked.insert((&l.sizes[..], &l.strides[..]), r.clone());
                    r
                }
            };
            out.extend(known.map(|r| SelfOverlapReport { member, ..r }));
        }
        out
    }

    /// One layout's self-overlap report (as member 0), if it is listed.
    ///
    /// The proof has a solver of its own (a fresh query cache and z3
    /// context): with the analyzer's, a query near its rlimit answered
    /// differently depending on which cases had filled the cache before on
    /// the thread, and batch output must not depend on `--jobs`.
    fn self_overlap_of(
        &mut self,
        pool: &mut ExprPool,
        env: &Env,
        l: &Layout,
        v: &View,
        deadline: Instant,
        work: &mut SelfWork,
    ) -> Option<SelfOverlapReport> {
        let symbolic = l.is_symbolic(pool);
        if !(self.options.prove && symbolic) {
            // Without a proof only the hints are claimed: listed when it
            // overlaps itself there.
            let mut r = concrete_self_overlap(0, work.concrete(v, Some(deadline)))?;
            if symbolic && r.proof == Proof::Proved {
                r.proof = Proof::HintOnly;
            }
            return Some(r);
        }
        let opts = ProofOptions {
            deadline: Some(deadline),
            ..self.options.proof
        };
        let mut solver = super::new_solver(&self.options);
        solver.set_work(Some(work.z3));
        let p = prove_internal(pool, env, l, v, &mut solver, opts);
        work.z3 = solver.work_left().unwrap_or(0);
        let proof = match p.invariant {
            Some(true) => Proof::Proved,
            Some(false) => Proof::Refuted,
            None => Proof::Unknown,
        };
        let overlap = p.verdict.may_overlap();
        (overlap || proof != Proof::Proved).then(|| SelfOverlapReport {
            member: 0,
            overlap,
            proof,
            witness: witness_of(p.verdict),
            counterexample: p.counterexample.map(|c| c.into_iter().collect()),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn prove(
        &mut self,
        pool: &mut ExprPool,
        env: &Env,
        group: &Group,
        layouts: &[Layout],
        views: &[View],
        answer: GroupAnswer,
        deadline: Instant,
    ) -> OverlapReport {
        // The case's z3 work bound: what decides how far the proof goes.
        self.solver.set_work(Some(self.options.proof.work));
        let proof = prove_case(
            pool,
            env,
            layouts,
            views,
            &answer,
            &mut self.solver,
            ProofOptions {
                deadline: Some(deadline),
                ..self.options.proof
            },
        );
        self.solver.set_work(None);
        let source = |i: usize| group.members[i].source.clone();
        let labels = Labels::of(group, &source);
        let invariance = match proof.invariant {
            Some(true) => Invariance::Proved,
            Some(false) => Invariance::Refuted,
            None => Invariance::Unknown,
        };
        let guards = match (&proof.invariant, &proof.shape_guards) {
            (Some(true), _) => Vec::new(),
            (_, Some(gs)) if !gs.is_empty() => {
                let simplify_opts = within(self.options.simplify.as_ref(), deadline);
                proof_guards(pool, env, &labels, &answer, gs, simplify_opts)
            }
            _ => vec![storage_guard(
                &labels,
                &answer,
                "the partition is exact at the hints, but not proved for all shapes and no shape guard implies it: re-checked exactly at run time",
            )],
        };
        let pairs = {
            let witness = witnesses(&answer);
            proof
                .pairs
                .iter()
                .map(|p| PairReport {
                    a: p.a,
                    b: p.b,
                    overlap: p.overlap,
                    proof: p.proof,
                    witness: if p.overlap { witness(p.a, p.b) } else { None },
                })
                .collect()
        };
        let counterexample = proof
            .counterexample
            .map(|c| c.into_iter().collect::<BTreeMap<String, i64>>());
        finish(
            group.members.len(),
            answer,
            invariance,
            guards,
            pairs,
            counterexample,
        )
    }
}

/// The report of a concrete member's overlap with itself, if it is listed
/// (it overlaps itself, or the search could not tell).
fn concrete_self_overlap(member: usize, verdict: Verdict) -> Option<SelfOverlapReport> {
    let proof = match verdict {
        Verdict::Disjoint => return None,
        Verdict::Overlap(_) => Proof::Proved,
        Verdict::Undecided => Proof::Unknown,
    };
    Some(SelfOverlapReport {
        member,
        overlap: true,
        proof,
        witness: witness_of(verdict),
        counterexample: None,
    })
}

fn witness_of(verdict: Verdict) -> Option<Witness> {
    match verdict {
        Verdict::Overlap(w) => Some(w),
        _ => None,
    }
}

/// The environment the analysis works in: with simplification, each
/// assumption simplified under the symbols' ranges alone (so that an
/// assumption cannot simplify itself to `True`) and assumed again.
pub(crate) fn simplified_env(
    pool: &mut ExprPool,
    env: &Env,
    opts: Option<&SimplifyOptions>,
) -> Env {
    let Some(opts) = opts else {
        return env.clone();
    };
    let ranges = env.ranges_only();
    let mut out = env.ranges_only();
    for &a in env.assumptions() {
        let s = simplify(pool, &ranges, a, opts).expr;
        // Equal at every allowed point, so true at the hints like `a`; should
        // the simplified form be rejected, the assumption as written is kept.
        if out.assume(pool, s).is_err() {
            let _ = out.assume(pool, a);
        }
    }
    out
}

/// Simplifier options bounded by what is left until `deadline` (`None` once
/// it has passed or without simplification).
fn within(opts: Option<&SimplifyOptions>, deadline: Instant) -> Option<SimplifyOptions> {
    let opts = opts?;
    if symalias_solver::clock::past(deadline) {
        return None;
    }
    let mut so = *opts;
    so.limits.time = so
        .limits
        .time
        .min(deadline.saturating_duration_since(Instant::now()));
    Some(so)
}

/// Every distinct field expression simplified once, under the environment's
/// facts (`opts` is asked before each run: the deadline shrinks it).
pub(crate) fn simplify_layouts(
    pool: &mut ExprPool,
    env: &Env,
    members: &[Member],
    opts: &dyn Fn() -> Option<SimplifyOptions>,
) -> Vec<Layout> {
    let mut done: hashbrown::HashMap<ExprId, ExprId> = hashbrown::HashMap::new();
    members
        .iter()
        .map(|m| {
            m.layout.map(|e| {
                if let Some(&s) = done.get(&e) {
                    return s;
                }
                match opts() {
                    Some(so) => {
                        let s = simplify(pool, env, e, &so).expr;
                        done.insert(e, s);
                        s
                    }
                    None => e,
                }
            })
        })
        .collect()
}

/// The members' concrete views at the hints, validated.
pub fn views_at_hints(
    pool: &ExprPool,
    env: &Env,
    layouts: &[Layout],
) -> Result<Vec<View>, GroupError> {
    layouts
        .iter()
        .enumerate()
        .map(|(member, l)| {
            l.at_hints(pool, env).map_err(|error| GroupError {
                member,
                error: Box::new(error),
            })
        })
        .collect()
}

/// What guards and reasons need of a group: its label, size and member
/// sources (asked only when a guard names them).
struct Labels<'a> {
    id: &'a str,
    n: usize,
    source: &'a dyn Fn(usize) -> String,
}

impl<'a> Labels<'a> {
    fn of(group: &'a Group, source: &'a dyn Fn(usize) -> String) -> Labels<'a> {
        Labels {
            id: &group.id,
            n: group.members.len(),
            source,
        }
    }
}

fn non_overlapping(n: usize, answer: &GroupAnswer) -> Vec<usize> {
    (0..n)
        .filter(|i| answer.overlapping.binary_search(i).is_err())
        .collect()
}

/// The SelfOverlap guard of the members whose overlap with themselves was
/// examined for all shapes and not proved (unknown, or refuted: some allowed
/// shape changes it), keeping each one's verdict at the hints; `None` when
/// every verdict is proved (or none was examined: proofs off).
fn self_overlap_guard(group: &Group, reports: &[SelfOverlapReport]) -> Option<Guard> {
    let open: Vec<&SelfOverlapReport> = reports
        .iter()
        .filter(|r| matches!(r.proof, Proof::Unknown | Proof::Refuted))
        .collect();
    if open.is_empty() {
        return None;
    }
    let names = |overlap: bool| -> Vec<String> {
        open.iter()
            .filter(|r| r.overlap == overlap)
            .map(|r| group.members[r.member].source.clone())
            .collect()
    };
    Some(Guard::new(
        GuardKind::SelfOverlap {
            overlapping: names(true),
            non_overlapping: names(false),
        },
        format!(
            "{}: overlap of an input with itself not proved for all shapes",
            group.id
        ),
    ))
}

/// The StorageOverlap guard of the partition at the hints.
fn storage_guard(labels: &Labels, answer: &GroupAnswer, why: &str) -> Guard {
    let names = |xs: &[usize]| xs.iter().map(|&i| (labels.source)(i)).collect();
    Guard::new(
        GuardKind::StorageOverlap {
            overlapping: names(&answer.overlapping),
            non_overlapping: names(&non_overlapping(labels.n, answer)),
            components: Vec::new(),
        },
        format!("{}: {why}", labels.id),
    )
}

/// The hint answer's witness of a listed pair.
fn witnesses(
    answer: &GroupAnswer,
) -> impl Fn(usize, usize) -> Option<crate::overlap::Witness> + '_ {
    let by_pair: hashbrown::HashMap<(usize, usize), &crate::overlap::Witness> = answer
        .pairs
        .iter()
        .filter_map(|p| match &p.verdict {
            Verdict::Overlap(w) => Some(((p.a, p.b), w)),
            _ => None,
        })
        .collect();
    move |a, b| by_pair.get(&(a, b)).map(|w| (*w).clone())
}

/// The report of a group answered at the hints only: concrete (exact), or
/// symbolic without a proof (asked not to prove, or undecided pairs).
fn hint_report(
    labels: Labels,
    answer: GroupAnswer,
    symbolic: bool,
    undecided: bool,
) -> OverlapReport {
    let invariance = if !symbolic && !undecided {
        Invariance::Proved
    } else {
        Invariance::Unknown
    };
    let guards = if invariance == Invariance::Proved {
        Vec::new()
    } else if undecided {
        vec![storage_guard(
            &labels,
            &answer,
            "some pair is undecided within the search budget (treated as overlapping): re-checked at run time",
        )]
    } else {
        vec![storage_guard(
            &labels,
            &answer,
            "the partition is exact at the hints; no proof was asked for: re-checked exactly at run time",
        )]
    };
    let pairs: Vec<PairReport> = answer
        .pairs
        .iter()
        .map(|p| PairReport {
            a: p.a,
            b: p.b,
            overlap: true,
            proof: match p.verdict {
                Verdict::Undecided => Proof::Unknown,
                _ if symbolic => Proof::HintOnly,
                _ => Proof::Proved,
            },
            witness: match &p.verdict {
                Verdict::Overlap(w) => Some(w.clone()),
                _ => None,
            },
        })
        .collect();
    finish(labels.n, answer, invariance, guards, pairs, None)
}

/// Shape guards that imply the partition where what z3 proved holds, read
/// within the group's domain like every other fact: simplified there (a
/// long list, a chain of many views, is left in the pool's canonical form:
/// an egg run per guard would make the group quadratic-looking in time),
/// bounds on one symbol merged, repeats dropped; then the StorageOverlap
/// guard as their fallback (FORMATS §3: "preceded by cheaper shape guards
/// that imply it"; while they hold, its sweep is skipped).
fn proof_guards(
    pool: &mut ExprPool,
    env: &Env,
    labels: &Labels,
    answer: &GroupAnswer,
    shape_guards: &[ExprId],
    simplify_opts: Option<SimplifyOptions>,
) -> Vec<Guard> {
    let short = shape_guards.len() <= SIMPLIFY_GUARDS_MAX;
    let simplified: Vec<ExprId> = shape_guards
        .iter()
        .map(|&g| match simplify_opts.as_ref().filter(|_| short) {
            Some(so) => simplify(pool, env, g, so).expr,
            None => g,
        })
        .collect();
    let mut guards: Vec<Guard> = compact_shape_guards(pool, &simplified)
        .into_iter()
        .map(|expr| {
            Guard::new(
                GuardKind::Shape { expr },
                format!(
                    "{}: with what z3 proved, implies the overlap partition (overlapping {:?})",
                    labels.id, answer.overlapping
                ),
            )
            .fast()
        })
        .collect();
    guards.push(storage_guard(
        labels,
        answer,
        "not proved for all shapes; implied by the shape guards before it (skipped when they hold), re-checked exactly when one fails",
    ));
    guards
}

fn finish(
    n: usize,
    answer: GroupAnswer,
    invariance: Invariance,
    guards: Vec<Guard>,
    pairs: Vec<PairReport>,
    counterexample: Option<BTreeMap<String, i64>>,
) -> OverlapReport {
    OverlapReport {
        non_overlapping: non_overlapping(n, &answer),
        pairs_left_out: answer.pairs_left_out,
        overlapping: answer.overlapping,
        invariance,
        guards,
        pairs,
        counterexample,
        self_overlap: Vec::new(),
        elapsed: Default::default(),
        time_limit_hit: false,
    }
}

/// What one case's self-overlap checks may still spend, all its views
/// together: search nodes of the concrete decisions (each view's at most
/// the per-pair `budget`) and z3 resource units of the proofs. Work bounds,
/// so that a case of many views is linear and the answer is the same on
/// every machine.
struct SelfWork {
    budget: u64,
    nodes: u64,
    z3: u64,
}

impl SelfWork {
    fn new(options: &AnalyzerOptions) -> SelfWork {
        SelfWork {
            budget: options.budget,
            nodes: crate::overlap::GROUP_WORK,
            z3: options.proof.work,
        }
    }

    /// The view's self-overlap at concrete values, within what is left
    /// (each of its systems' searches at most `budget` nodes; an exact
    /// stage where one is left undecided, while the case can pay for it).
    fn concrete(&mut self, v: &View, deadline: Option<Instant>) -> Verdict {
        internal_overlap_until(v, self.budget, &mut self.nodes, deadline)
    }
}
