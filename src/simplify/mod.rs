//! The simplifier: equality saturation with [`egg`] under the environment's
//! facts, then extraction of the smallest equivalent expression.
//!
//! * `lang`: the e-graph language and the conversions to and from the pool.
//! * `analysis`: per-class type, interval and congruence (the facts that
//!   conditional rules consult), constants added as e-nodes.
//! * `rules`: rewrite rules by topic, as checkable data.
//! * `cost`: the tree-size cost of extraction.
//!
//! Invariants: the result equals the input at every assignment allowed by the
//! environment where the input is defined; its tree size is never larger than
//! the input's (if extraction does not win, the input is returned unchanged);
//! the same input and limits give the same result (egg's `deterministic`
//! hashing; the wall-clock limit is a backstop that the default limits do not
//! reach on the corpora).

pub(crate) mod analysis;
pub(crate) mod cost;
internal! { pub mod lang; }
pub(crate) mod poly;
internal! { pub mod rules; }

use crate::env::Env;
use crate::expr::{ExprId, ExprPool, Node};
use analysis::FactsAnalysis;
use cost::TreeSize;
use egg::{BackoffScheduler, Extractor, Rewrite, Runner, StopReason};
use lang::Sym;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tracing::trace;

/// Limits of one equality-saturation run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Rewrite iterations.
    pub iterations: usize,
    /// Rewrite iterations for polynomials (only `+`, `*`, powers), whose
    /// expanded and factored forms are seeded.
    pub ring_iterations: usize,
    /// E-nodes in the e-graph.
    pub nodes: usize,
    /// Wall-clock backstop.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            iterations: 5,
            ring_iterations: 3,
            nodes: 2_000,
            time: Duration::from_millis(500),
        }
    }
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Nothing to do (a leaf).
    Trivial,
    /// No rule applied any more.
    Saturated,
    /// The iteration limit.
    IterationLimit,
    /// The e-node limit.
    NodeLimit,
    /// The wall-clock limit.
    TimeLimit,
    /// Something else egg reported.
    Other(String),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Trivial => f.write_str("trivial"),
            Stop::Saturated => f.write_str("saturated"),
            Stop::IterationLimit => f.write_str("iteration limit"),
            Stop::NodeLimit => f.write_str("e-node limit"),
            Stop::TimeLimit => f.write_str("time limit"),
            Stop::Other(s) => f.write_str(s),
        }
    }
}

/// One iteration of the runner, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterationReport {
    /// E-nodes after the iteration.
    pub nodes: usize,
    /// E-classes after the iteration.
    pub classes: usize,
    /// Rules that fired, with their number of applications.
    pub applied: Vec<(String, usize)>,
}

/// The result of simplifying one expression.
#[derive(Clone, Debug)]
pub struct Simplified {
    /// The simplified expression (the input itself when nothing smaller was found).
    pub expr: ExprId,
    /// Tree size of the input.
    pub size_in: usize,
    /// Tree size of the result.
    pub size_out: usize,
    /// Why the runner stopped.
    pub stop: Stop,
    /// Per-iteration reports.
    pub iterations: Vec<IterationReport>,
    /// The rewrite chain from input to result (with `explain`).
    pub explanation: Option<String>,
}

/// Options of [`simplify`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SimplifyOptions {
    /// Runner limits.
    pub limits: Limits,
    /// Record the rewrite chain (slower).
    pub explain: bool,
}

/// The compiled rules of the topics in `mask` (built once per mask).
fn rewrites(mask: u8) -> &'static [Rewrite<Sym, FactsAnalysis>] {
    type Compiled = Vec<Rewrite<Sym, FactsAnalysis>>;
    static SETS: [OnceLock<Compiled>; 32] = [const { OnceLock::new() }; 32];
    SETS[(mask & 31) as usize].get_or_init(|| {
        rules::all_rules()
            .iter()
            .filter(|r| r.topic_bit() & mask != 0)
            .map(|r| r.rewrite())
            .collect()
    })
}

/// The environment's assumptions, each conjunct apart, as e-graph terms.
fn assumed_facts(pool: &ExprPool, env: &Env) -> Vec<egg::RecExpr<Sym>> {
    let mut facts = Vec::new();
    for &a in env.assumptions() {
        match pool.node(a) {
            Node::And(xs) => facts.extend(xs.iter().map(|&x| lang::to_rec(pool, x))),
            _ => facts.push(lang::to_rec(pool, a)),
        }
    }
    facts
}

/// Why the runner stopped, and what each iteration did.
fn stop_and_reports(runner: &Runner<Sym, FactsAnalysis, ()>) -> (Stop, Vec<IterationReport>) {
    let stop = match &runner.stop_reason {
        Some(StopReason::Saturated) => Stop::Saturated,
        Some(StopReason::IterationLimit(_)) => Stop::IterationLimit,
        Some(StopReason::NodeLimit(_)) => Stop::NodeLimit,
        Some(StopReason::TimeLimit(_)) => {
            // The wall clock cut the rewriting: what it found depends on the
            // machine (the answer says so: `symalias_solver::clock`).
            symalias_solver::clock::note_wall_stop();
            Stop::TimeLimit
        }
        Some(StopReason::Other(s)) => Stop::Other(s.clone()),
        None => Stop::Other("not run".into()),
    };
    let iterations = runner
        .iterations
        .iter()
        .map(|it| IterationReport {
            nodes: it.egraph_nodes,
            classes: it.egraph_classes,
            applied: it
                .applied
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
        })
        .collect();
    (stop, iterations)
}

/// Simplifies `e` under the facts of `env`.
///
/// ```
/// use symalias::env::{Env, SymbolDecl};
/// use symalias::expr::{parse, ExprPool};
/// use symalias::simplify::{simplify, SimplifyOptions};
/// let mut pool = ExprPool::new();
/// let mut env = Env::new();
/// env.declare(&mut pool, &SymbolDecl::new("s0").hint(4).min(2).max(5)).unwrap();
/// let e = parse(&mut pool, "Min(s0, 5) + Mod(s0, 8) + ModularIndexing(s0, 1, 16)").unwrap();
/// let out = simplify(&mut pool, &env, e, &SimplifyOptions::default());
/// assert_eq!(pool.display(out.expr).to_string(), "3*s0");
/// assert!(out.size_out < out.size_in);
/// ```
pub fn simplify(pool: &mut ExprPool, env: &Env, e: ExprId, opts: &SimplifyOptions) -> Simplified {
    let size_in = pool.tree_size(e);
    let unchanged = |stop| Simplified {
        expr: e,
        size_in,
        size_out: size_in,
        stop,
        iterations: vec![],
        explanation: None,
    };
    if pool.node(e).children().is_empty() {
        return unchanged(Stop::Trivial);
    }
    // An input larger than the e-graph may grow cannot be rewritten within
    // the limits; the seeds alone (expansion, factoring) would cost more than
    // the time limit allows on a huge tree. Returned as it is.
    if size_in > opts.limits.nodes {
        return unchanged(Stop::NodeLimit);
    }
    let start = lang::to_rec(pool, e);
    let seeds: Vec<_> = poly::seeds(pool, e)
        .into_iter()
        .map(|s| lang::to_rec(pool, s))
        .collect();
    // Assumptions (each conjunct) go into the e-graph as true facts, so that
    // conditions such as `x < m` can use a loop bound `x0 < s0`.
    let facts = assumed_facts(pool, env);
    let analysis = FactsAnalysis::new(
        pool,
        env,
        std::iter::once(&start).chain(&seeds).chain(&facts),
    );
    let mut runner = Runner::<Sym, FactsAnalysis, ()>::new(analysis)
        .with_iter_limit(opts.limits.iterations)
        .with_node_limit(opts.limits.nodes)
        .with_time_limit(opts.limits.time)
        .with_scheduler(BackoffScheduler::default());
    if opts.explain {
        runner = runner.with_explanations_enabled();
    }
    let t0 = Instant::now();
    let mask = rules::topics_needed(start.as_ref());
    let mut runner = runner.with_expr(&start);
    let root = runner.roots[0];
    for s in &seeds {
        let id = runner.egraph.add_expr(s);
        runner.egraph.union_trusted(root, id, "polynomial form");
    }
    if !facts.is_empty() {
        let truth = runner.egraph.add(Sym::Bool(lang::Truth(true)));
        for f in &facts {
            let id = runner.egraph.add_expr(f);
            runner.egraph.union_trusted(id, truth, "assumption");
        }
    }
    runner.egraph.rebuild();
    if mask == rules::topic::RING {
        // A polynomial: its expanded and factored forms are already seeded,
        // further iterations only find partial factorings.
        runner = runner.with_iter_limit(opts.limits.iterations.min(opts.limits.ring_iterations));
    }
    let mut runner = runner.run(rewrites(mask));
    let (stop, iterations) = stop_and_reports(&runner);
    let (_, best) = Extractor::new(&runner.egraph, TreeSize).find_best(root);
    let Some(candidate) = lang::from_rec(pool, &best) else {
        return Simplified {
            iterations,
            ..unchanged(stop)
        };
    };
    let size_out = pool.tree_size(candidate);
    trace!(
        micros = t0.elapsed().as_micros() as u64,
        size_in,
        size_out,
        stop = %stop,
        "simplify"
    );
    if size_out >= size_in {
        return Simplified {
            iterations,
            ..unchanged(stop)
        };
    }
    let explanation = opts.explain.then(|| {
        lang::with_pool_names(
            pool,
            &runner.explain_equivalence(&start, &best).get_flat_string(),
        )
    });
    Simplified {
        expr: candidate,
        size_in,
        size_out,
        stop,
        iterations,
        explanation,
    }
}
