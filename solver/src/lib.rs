//! `symalias-solver`: a thin, deterministic wrapper around the system z3.
//!
//! This crate knows nothing about tensors. It owns the z3 configuration that the
//! rest of symalias relies on:
//!
//! * a **fresh context per query session** (resource counts in a shared context
//!   depend on earlier queries, which breaks reproducibility);
//! * a **fixed random seed**;
//! * a **resource limit** (`rlimit`) instead of z3's wall-clock `timeout`, which can
//!   deadlock libz3 4.8.12 once it fires (see `DESIGN.md`);
//! * an explicit three-valued [`Answer`].
//!
//! Vocabulary: a [`Query`] is a list of integer variables and [`Formula`]s over
//! [`Term`]s; [`Solver::check`] answers [`Answer::Sat`] with a model that was
//! re-checked exactly, [`Answer::Unsat`], or [`Answer::Unknown`] with z3's reason.
//! Answers are cached by the query's canonical text.
//!
//! ```
//! use symalias_solver::{Answer, Cmp, Formula, Query, Solver, Term};
//!
//! // x >= 1 and y >= 1 and x*y < 1 has no integer solution.
//! let (x, y) = (Term::Var(0), Term::Var(1));
//! let q = Query::new(
//!     &["x", "y"],
//!     vec![
//!         x.clone().cmp(Cmp::Ge, Term::Int(1)),
//!         y.clone().cmp(Cmp::Ge, Term::Int(1)),
//!         (x * y).cmp(Cmp::Lt, Term::Int(1)),
//!     ],
//! );
//! let mut solver = Solver::default();
//! assert_eq!(solver.check(&q), Answer::Unsat);
//! ```

mod lower;
mod term;

pub use term::{Cmp, Formula, Term};
pub use z3;

use hashbrown::HashMap;

/// Resource budget of one query. `rlimit` is z3's deterministic resource counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// z3 `rlimit` (resource units); 0 means unlimited.
    pub rlimit: u32,
    /// z3 `random_seed`, fixed so that the same query gives the same answer.
    pub seed: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            rlimit: 20_000,
            seed: 0,
        }
    }
}

/// The answer of a satisfiability check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The assertions have a model: one value per variable, re-checked exactly.
    Sat(Vec<i64>),
    /// The assertions have no model.
    Unsat,
    /// z3 gave up (e.g. "max. resource limit exceeded"), or the query could not
    /// be expressed or checked.
    Unknown(String),
}

/// A satisfiability question: integer variables and assertions over them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Query {
    /// Variable names (`Term::Var(i)` is `vars[i]`).
    pub vars: Vec<String>,
    /// The assertions (conjunction).
    pub assertions: Vec<Formula>,
}

impl Query {
    /// A query over named variables.
    pub fn new(vars: &[&str], assertions: Vec<Formula>) -> Self {
        Query {
            vars: vars.iter().map(|v| v.to_string()).collect(),
            assertions,
        }
    }

    /// The canonical text of the query (its cache key).
    pub fn key(&self) -> String {
        let mut k = format!("{}|", self.vars.len());
        for a in &self.assertions {
            k.push_str(&a.to_string());
            k.push('\n');
        }
        k
    }
}

/// Counters of a solver's work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Queries answered.
    pub queries: u64,
    /// Of which from the cache.
    pub cache_hits: u64,
    /// Answers `Unknown`.
    pub unknown: u64,
}

/// A deterministic z3 front end with a query cache.
///
/// [`Solver::check`] runs a query in a fresh z3 context (about 30 ms of set-up
/// here); [`Solver::session`] opens one context for a whole analysis and runs
/// each query in a push/pop scope (about 0.2 ms of set-up). Either way the seed
/// is fixed and each check has an `rlimit`, so the same sequence of queries gives
/// the same answers; the cache makes repeated questions free.
#[derive(Debug, Default)]
pub struct Solver {
    budget: Budget,
    cache: HashMap<String, Answer>,
    stats: Stats,
}

impl Solver {
    /// A solver with the given per-query budget.
    pub fn new(budget: Budget) -> Self {
        Solver {
            budget,
            cache: HashMap::new(),
            stats: Stats::default(),
        }
    }

    /// The work counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Checks a query in a fresh context.
    pub fn check(&mut self, q: &Query) -> Answer {
        let budget = self.budget;
        cached(&mut self.cache, &mut self.stats, q, |q| {
            lower::check(q, &[], budget)
                .pop()
                .unwrap_or(Answer::Unknown("no answer".into()))
        })
    }

    /// Runs `f` with a [`Session`]: one fresh z3 context for all its queries.
    pub fn session<R, F>(&mut self, f: F) -> R
    where
        F: FnOnce(&mut Session<'_>) -> R + Send,
        R: Send + Sync,
    {
        let budget = self.budget;
        let cell = std::sync::Mutex::new((Some(f), &mut self.cache, &mut self.stats));
        lower::with_context(|| {
            let mut guard = cell.lock().expect("session lock");
            let (f, cache, stats) = &mut *guard;
            let f = f.take().expect("session runs once");
            let mut session = Session {
                z3: lower::new_solver(budget),
                cache,
                stats,
            };
            f(&mut session)
        })
    }

    /// Checks `base` extended by each of `variants` in turn, incrementally
    /// (push/pop in one context): one answer per variant.
    pub fn check_each(&mut self, base: &Query, variants: &[Vec<Formula>]) -> Vec<Answer> {
        self.stats.queries += variants.len() as u64;
        let answers = lower::check(base, variants, self.budget);
        self.stats.unknown += answers
            .iter()
            .filter(|a| matches!(a, Answer::Unknown(_)))
            .count() as u64;
        answers
    }
}

/// Queries sharing one z3 context (see [`Solver::session`]).
pub struct Session<'a> {
    z3: z3::Solver,
    cache: &'a mut HashMap<String, Answer>,
    stats: &'a mut Stats,
}

impl Session<'_> {
    /// Checks a query in its own push/pop scope of the session's context.
    pub fn check(&mut self, q: &Query) -> Answer {
        let z3 = &self.z3;
        cached(self.cache, self.stats, q, |q| lower::check_scoped(z3, q))
    }
}

/// Answers `q` from the cache, or by `run` (then caches the answer).
fn cached(
    cache: &mut HashMap<String, Answer>,
    stats: &mut Stats,
    q: &Query,
    run: impl FnOnce(&Query) -> Answer,
) -> Answer {
    stats.queries += 1;
    let key = q.key();
    if let Some(a) = cache.get(&key) {
        stats.cache_hits += 1;
        return a.clone();
    }
    let answer = run(q);
    if matches!(answer, Answer::Unknown(_)) {
        stats.unknown += 1;
    }
    cache.insert(key, answer.clone());
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(i: u32) -> Term {
        Term::Var(i)
    }

    #[test]
    fn proves_a_nonlinear_integer_fact() {
        // For all x, y >= 2: x*y >= x + y. Its negation must be unsat.
        let q = Query::new(
            &["x", "y"],
            vec![
                v(0).cmp(Cmp::Ge, Term::Int(2)),
                v(1).cmp(Cmp::Ge, Term::Int(2)),
                (v(0) * v(1)).cmp(Cmp::Lt, v(0) + v(1)),
            ],
        );
        assert_eq!(Solver::default().check(&q), Answer::Unsat);
    }

    #[test]
    fn models_are_checked_and_follow_python_division() {
        // (x // -3) == -2 and Mod(x, -3) == -1 and x > 0: in Python only x = 5.
        let q = Query::new(
            &["x"],
            vec![
                Term::FloorDiv(Box::new(v(0)), Box::new(Term::Int(-3))).cmp(Cmp::Eq, Term::Int(-2)),
                Term::Mod(Box::new(v(0)), Box::new(Term::Int(-3))).cmp(Cmp::Eq, Term::Int(-1)),
                v(0).cmp(Cmp::Gt, Term::Int(0)),
            ],
        );
        assert_eq!(Solver::default().check(&q), Answer::Sat(vec![5]));
    }

    #[test]
    fn division_by_zero_is_outside_the_domain() {
        // x // y == 5 with y == 0 has no valid assignment.
        let q = Query::new(
            &["x", "y"],
            vec![
                Term::FloorDiv(Box::new(v(0)), Box::new(v(1))).cmp(Cmp::Eq, Term::Int(5)),
                v(1).cmp(Cmp::Eq, Term::Int(0)),
            ],
        );
        assert_eq!(Solver::default().check(&q), Answer::Unsat);
    }

    #[test]
    fn cache_and_incremental_checks() {
        let mut s = Solver::default();
        let q = Query::new(
            &["i", "j"],
            vec![(v(0) * Term::Int(3)).cmp(Cmp::Eq, (v(1) * Term::Int(3)) + Term::Int(1))],
        );
        assert_eq!(s.check(&q), Answer::Unsat);
        assert_eq!(s.check(&q), Answer::Unsat);
        assert_eq!(s.stats().cache_hits, 1);
        let base = Query::new(&["x"], vec![v(0).cmp(Cmp::Ge, Term::Int(0))]);
        let answers = s.check_each(
            &base,
            &[
                vec![v(0).cmp(Cmp::Lt, Term::Int(0))],
                vec![v(0).cmp(Cmp::Eq, Term::Int(7))],
            ],
        );
        assert_eq!(answers, vec![Answer::Unsat, Answer::Sat(vec![7])]);
    }

    #[test]
    fn sessions_answer_like_fresh_contexts() {
        let qs: Vec<Query> = (0..6)
            .map(|k| {
                Query::new(
                    &["i", "j"],
                    vec![(v(0) * Term::Int(3)).cmp(Cmp::Eq, (v(1) * Term::Int(3)) + Term::Int(k))],
                )
            })
            .collect();
        let fresh: Vec<Answer> = qs.iter().map(|q| Solver::default().check(q)).collect();
        let shared =
            Solver::default().session(|s| qs.iter().map(|q| s.check(q)).collect::<Vec<_>>());
        for (a, b) in fresh.iter().zip(&shared) {
            assert_eq!(matches!(a, Answer::Unsat), matches!(b, Answer::Unsat));
            assert_eq!(matches!(a, Answer::Sat(_)), matches!(b, Answer::Sat(_)));
        }
        assert_eq!(
            shared.iter().filter(|a| matches!(a, Answer::Unsat)).count(),
            4
        );
    }

    #[test]
    fn tiny_budgets_give_unknown_not_wrong_answers() {
        // A hard nonlinear question under a tiny rlimit: never a wrong Sat/Unsat.
        let q = Query::new(
            &["a", "b", "c"],
            vec![
                Term::Mul(vec![v(0), v(0), v(0)]).cmp(
                    Cmp::Eq,
                    Term::Mul(vec![v(1), v(1), v(1)]) + Term::Mul(vec![v(2), v(2), v(2)]),
                ),
                v(1).cmp(Cmp::Ge, Term::Int(1)),
                v(2).cmp(Cmp::Ge, Term::Int(1)),
            ],
        );
        let a = Solver::new(Budget {
            rlimit: 1000,
            seed: 0,
        })
        .check(&q);
        assert!(matches!(a, Answer::Unknown(_)), "{a:?}");
    }
}
