//! `symalias-solver`: a thin, deterministic wrapper around z3 (5.4.1, the
//! pinned `z3-solver` wheel's libz3: `.ci/setup`, [`z3_version`]).
//!
//! This crate knows nothing about tensors. It owns the z3 configuration that the
//! rest of symalias relies on:
//!
//! * a **fresh context per query session** (resource counts in a shared context
//!   depend on earlier queries, which breaks reproducibility);
//! * a **fixed random seed**;
//! * a **resource limit** (`rlimit`) instead of z3's wall-clock `timeout`, which can
//!   deadlock libz3 4.8.12 once it fires (see `DESIGN.md`);
//! * a **hard wall-clock bound** on every query, because z3 has not honoured
//!   `rlimit` everywhere (4.8.12 measured; no later version is assumed better): a watchdog thread interrupts the context
//!   (`Z3_interrupt`) when a query outlives its deadline, and the query answers
//!   [`Answer::Unknown`] (see the `watchdog` module);
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

pub mod clock;
mod lower;
mod term;
mod watchdog;
mod worker;

pub use term::{Cmp, Formula, Term};
pub use worker::{abandoned_workers, Reuse, GRACE, MAX_ABANDONED};
pub use z3;

use hashbrown::HashMap;
use std::time::{Duration, Instant};
use worker::Worker;

/// The version of the libz3 this process runs, `major.minor.build.revision`
/// (`5.4.1.0`: the pinned `z3-solver` wheel's, see `.ci/setup`). Read from
/// the loaded library, not from the header the build used.
///
/// ```
/// let v = symalias_solver::z3_version();
/// assert_eq!(v.split('.').count(), 4, "{v}");
/// ```
pub fn z3_version() -> String {
    let full = z3::full_version();
    full.strip_prefix("Z3 ").unwrap_or(full).to_string()
}

/// Resource budget of one query. `rlimit` is z3's deterministic resource
/// counter and the primary bound; `wall` is the backstop for the queries where
/// z3 ignores it (measured with 4.8.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// z3 `rlimit` (resource units); 0 means unlimited.
    pub rlimit: u32,
    /// z3 `random_seed`, fixed so that the same query gives the same answer.
    pub seed: u32,
    /// Wall-clock bound of one query: past it the query is interrupted and
    /// answers unknown (within a few milliseconds of z3 noticing).
    pub wall: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            rlimit: 20_000,
            seed: 0,
            wall: Duration::from_secs(1),
        }
    }
}

impl Answer {
    /// `true` when the answer is unknown because the wall-clock watchdog
    /// interrupted the query (such answers are never cached).
    pub fn interrupted(&self) -> bool {
        matches!(self, Answer::Unknown(r) if r == lower::INTERRUPTED || r == worker::BUSY)
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

    /// The query restricted to the variables its assertions mention, numbered
    /// densely in order of first mention: the compact query and, for each of
    /// its variables, the index of the variable in `self`.
    pub fn compact(&self) -> (Query, Vec<u32>) {
        let mut used = Vec::new();
        for a in &self.assertions {
            a.vars_into(&mut used);
        }
        let mut new_of: HashMap<u32, u32> = HashMap::new();
        let mut old = Vec::new();
        for v in used {
            new_of.entry(v).or_insert_with(|| {
                old.push(v);
                (old.len() - 1) as u32
            });
        }
        let rename = |v: u32| new_of[&v];
        let q = Query {
            vars: old.iter().map(|&v| self.vars[v as usize].clone()).collect(),
            assertions: self
                .assertions
                .iter()
                .map(|a| a.map_vars(&rename))
                .collect(),
        };
        (q, old)
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
    /// Resource units its sessions may still spend together (`None`: no
    /// bound but each query's `rlimit`); see [`Solver::set_work`].
    work: Option<u64>,
    cache: HashMap<String, Cached>,
    stats: Stats,
}

/// A cached answer and the `rlimit` it was found under (an unknown found
/// under a smaller budget does not answer a query with a larger one).
#[derive(Clone, Debug)]
struct Cached {
    answer: Answer,
    rlimit: u32,
}

impl Solver {
    /// A solver with the given per-query budget.
    pub fn new(budget: Budget) -> Self {
        Solver {
            budget,
            work: None,
            cache: HashMap::new(),
            stats: Stats::default(),
        }
    }

    /// Bounds the resource units (z3's `rlimit count`) that this solver's
    /// sessions may spend from now on, together: each query's `rlimit` is
    /// cut to what is left, and once less than [`MIN_WORK`] is left,
    /// queries answer unknown without z3. A work bound, not a clock: the
    /// same queries spend the same units on every machine. `None` lifts it.
    pub fn set_work(&mut self, units: Option<u64>) {
        self.work = units;
    }

    /// What is left of the bound [`Solver::set_work`] set.
    pub fn work_left(&self) -> Option<u64> {
        self.work
    }

    /// The work counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Checks a query in a fresh context, interrupted after the budget's
    /// `wall` time (on the calling thread: unlike a session's queries it does
    /// not walk away from a z3 call that ignores the interrupt).
    pub fn check(&mut self, q: &Query) -> Answer {
        let budget = self.budget;
        cached(&mut self.cache, &mut self.stats, q, budget.rlimit, |q| {
            lower::check_fresh(q, budget)
        })
    }

    /// Runs `f` with a [`Session`]: one z3 context for all its queries, on a
    /// worker thread started at the first query; each query is bounded by
    /// its deadline plus [`GRACE`] whatever z3 does.
    pub fn session<R, F>(&mut self, f: F) -> R
    where
        F: FnOnce(&mut Session<'_>) -> R,
    {
        let mut session = Session {
            worker: None,
            spent: 0,
            work: &mut self.work,
            budget: self.budget,
            cache: &mut self.cache,
            stats: &mut self.stats,
        };
        f(&mut session)
    }

    /// Checks `base` extended by each of `variants` in turn, in one context
    /// (push/pop): one answer per variant.
    pub fn check_each(&mut self, base: &Query, variants: &[Vec<Formula>]) -> Vec<Answer> {
        self.session(|s| {
            variants
                .iter()
                .map(|extra| {
                    let mut q = base.clone();
                    q.assertions.extend(extra.iter().cloned());
                    s.check(&q)
                })
                .collect()
        })
    }
}

/// Queries sharing one z3 context (see [`Solver::session`]).
pub struct Session<'a> {
    /// The worker holding the context; started at the first query, replaced
    /// when one is abandoned.
    worker: Option<Worker>,
    /// z3 resource units the session's checks spent (cache hits: none).
    spent: u64,
    /// The solver's work bound, drawn down by every check.
    work: &'a mut Option<u64>,
    budget: Budget,
    cache: &'a mut HashMap<String, Cached>,
    stats: &'a mut Stats,
}

impl Session<'_> {
    /// Checks a query in its own push/pop scope of the session's context,
    /// under the solver's budget.
    pub fn check(&mut self, q: &Query) -> Answer {
        let deadline = Instant::now() + self.budget.wall;
        self.check_with(q, self.budget.rlimit, deadline)
    }

    /// Checks a query with its own `rlimit`, interrupted at `deadline` at the
    /// latest (or after the budget's `wall` time, whichever comes first). The
    /// call returns by that time plus [`GRACE`], whatever z3 does.
    pub fn check_with(&mut self, q: &Query, rlimit: u32, deadline: Instant) -> Answer {
        let rlimit = match *self.work {
            Some(left) if left < MIN_WORK => {
                return match self.cache.get(&q.key()) {
                    Some(c) if !matches!(c.answer, Answer::Unknown(_)) => c.answer.clone(),
                    _ => Answer::Unknown(WORK_SPENT.into()),
                };
            }
            Some(left) if rlimit == 0 || u64::from(rlimit) > left => {
                left.min(u64::from(u32::MAX)) as u32
            }
            _ => rlimit,
        };
        let deadline = deadline.min(Instant::now() + self.budget.wall);
        let (seed, slot) = (self.budget.seed, &mut self.worker);
        let mut spent = 0;
        let answer = cached(self.cache, self.stats, q, rlimit, |q| {
            let fresh = || worker::take_spare(seed).or_else(|| Worker::spawn(seed));
            let Some(w) = slot.take().or_else(fresh) else {
                return Answer::Unknown(worker::BUSY.into());
            };
            let (back, (answer, units)) = w.check(q, rlimit, deadline);
            *slot = back;
            spent = units;
            answer
        });
        self.spent += spent;
        if let Some(left) = self.work.as_mut() {
            *left = left.saturating_sub(spent);
        }
        answer
    }

    /// The z3 resource units (`rlimit count`) this session's checks have
    /// spent so far: deterministic for the same queries, so a caller can
    /// bound a whole analysis by work rather than by the clock.
    pub fn spent(&self) -> u64 {
        self.spent
    }
}

/// Below this many resource units left, [`Session::check_with`] asks z3
/// nothing (a query with less is all but sure to come back unknown).
pub const MIN_WORK: u64 = 1_000;

/// The reason of an answer given because the work bound is spent.
const WORK_SPENT: &str = "work bound spent";

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if let Some(w) = self.worker.take() {
            worker::keep(w);
        }
    }
}

/// Answers `q` from the cache, or by `run` (then caches the answer, unless it
/// was interrupted: that depends on the machine, not on the query).
fn cached(
    cache: &mut HashMap<String, Cached>,
    stats: &mut Stats,
    q: &Query,
    rlimit: u32,
    run: impl FnOnce(&Query) -> Answer,
) -> Answer {
    stats.queries += 1;
    let key = q.key();
    if let Some(c) = cache.get(&key) {
        let unlimited = c.rlimit == 0;
        if !matches!(c.answer, Answer::Unknown(_))
            || unlimited
            || (rlimit != 0 && c.rlimit >= rlimit)
        {
            stats.cache_hits += 1;
            return c.answer.clone();
        }
    }
    let answer = run(q);
    if answer.interrupted() {
        clock::note_wall_stop();
    }
    if matches!(answer, Answer::Unknown(_)) {
        stats.unknown += 1;
    }
    if !answer.interrupted() {
        cache.insert(
            key,
            Cached {
                answer: answer.clone(),
                rlimit,
            },
        );
    }
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
            ..Budget::default()
        })
        .check(&q);
        assert!(matches!(a, Answer::Unknown(_)), "{a:?}");
    }
}

#[cfg(test)]
mod bound_tests {
    use super::*;

    /// The nonlinear query of `repro/01_hang_z3_h4.jsonl` (two views of one
    /// storage, indices times symbolic strides): z3 4.8.12 runs it for minutes
    /// under any `rlimit` >= 15,000 and does not always notice an interrupt.
    fn hanging_query() -> Query {
        let v = |i| Term::Var(i);
        // s0, s1 >= 2; 0 <= i < s0, 0 <= j < s1 - 1, 0 <= k < s1 - 1;
        // 3 + j*2*s0 == 2 + k*s0 (+ i*0).
        Query::new(
            &["s0", "s1", "i", "j", "k"],
            vec![
                v(0).cmp(Cmp::Ge, Term::Int(2)),
                v(1).cmp(Cmp::Ge, Term::Int(2)),
                v(2).cmp(Cmp::Ge, Term::Int(0)),
                v(2).cmp(Cmp::Lt, v(0)),
                v(3).cmp(Cmp::Ge, Term::Int(0)),
                v(3).cmp(Cmp::Lt, v(1) + Term::Int(-1)),
                v(4).cmp(Cmp::Ge, Term::Int(0)),
                v(4).cmp(Cmp::Lt, v(1) + Term::Int(-1)),
                (Term::Int(3) + Term::Mul(vec![v(3), Term::Int(2), v(0)]))
                    .cmp(Cmp::Eq, Term::Int(2) + Term::Mul(vec![v(4), v(0)])),
            ],
        )
    }

    #[test]
    fn every_query_returns_by_its_deadline_plus_grace() {
        let mut solver = Solver::new(Budget {
            rlimit: 0, // unlimited: only the wall clock can stop it
            ..Budget::default()
        });
        let q = hanging_query();
        for ms in [20u64, 150] {
            let t0 = Instant::now();
            let deadline = t0 + Duration::from_millis(ms);
            let a = solver.session(|s| s.check_with(&q, 0, deadline));
            let took = t0.elapsed();
            assert!(
                took <= Duration::from_millis(ms) + GRACE + Duration::from_millis(30),
                "took {took:?} for a {ms} ms deadline ({a:?})"
            );
            // The query runs for more than 5 s unbounded: here it is cut.
            assert!(a.interrupted(), "{a:?}");
        }
        // Walked-away workers are counted, and never more than the cap.
        assert!(abandoned_workers() <= MAX_ABANDONED);
        // Interrupted answers are not cached: the cache holds no unknowns
        // for this query.
        assert!(solver.cache.values().all(|c| !c.answer.interrupted()));
    }

    #[test]
    fn a_session_keeps_answering_after_an_interrupt() {
        // Interrupts at many points of a hard query, each followed by easy
        // queries in the same session: the easy ones always get the exact
        // answer (no stale interrupt, no stuck cancellation, no deadlock).
        let hard = hanging_query();
        let easy = |k: i64| {
            Query::new(
                &["i", "j"],
                vec![(Term::Var(0) * Term::Int(3))
                    .cmp(Cmp::Eq, (Term::Var(1) * Term::Int(3)) + Term::Int(k))],
            )
        };
        let mut solver = Solver::new(Budget {
            rlimit: 0,
            ..Budget::default()
        });
        solver.session(|s| {
            for round in 0..12u64 {
                let deadline = Instant::now() + Duration::from_millis(1 + 7 * round);
                let _ = s.check_with(&hard, 0, deadline);
                for k in 0..3 {
                    // Distinct text per round, so the cache cannot answer.
                    let mut q = easy(k);
                    q.assertions
                        .push(Term::Var(0).cmp(Cmp::Ge, Term::Int(-(round as i64) - 1)));
                    let far = Instant::now() + Duration::from_secs(5);
                    let a = s.check_with(&q, 20_000, far);
                    match k {
                        0 => assert!(matches!(a, Answer::Sat(_)), "round {round}: {a:?}"),
                        _ => assert_eq!(a, Answer::Unsat, "round {round}"),
                    }
                }
            }
        });
    }
}
