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
//! The term language and query cache arrive with the proof work; today the crate
//! offers [`Session::check`], which runs a closure that asserts z3 formulas in a
//! fresh context and reports the answer.
//!
//! ```
//! use symalias_solver::{Answer, Budget, Session};
//! use z3::ast::Int;
//!
//! // x >= 1 and y >= 1 and x*y < 1 has no integer solution.
//! let answer = Session::new(Budget::default()).check(|solver| {
//!     let x = Int::new_const("x");
//!     let y = Int::new_const("y");
//!     let one = Int::from_i64(1);
//!     solver.assert(x.ge(&one));
//!     solver.assert(y.ge(&one));
//!     solver.assert((&x * &y).lt(&one));
//! });
//! assert_eq!(answer, Answer::Unsat);
//! ```

pub use z3;

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
            rlimit: 2_000_000,
            seed: 0,
        }
    }
}

/// The answer of a satisfiability check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The assertions have a model.
    Sat,
    /// The assertions have no model.
    Unsat,
    /// z3 gave up; the string is z3's reason (e.g. "max. resource limit exceeded").
    Unknown(String),
}

/// A query session: one fresh z3 context with a fixed configuration.
#[derive(Clone, Debug)]
pub struct Session {
    budget: Budget,
}

impl Session {
    /// Creates a session with the given budget.
    pub fn new(budget: Budget) -> Self {
        Session { budget }
    }

    /// Runs `assert` against a new solver in a fresh context and checks satisfiability.
    pub fn check<F>(&self, assert: F) -> Answer
    where
        F: FnOnce(&z3::Solver) + Send,
    {
        let mut cfg = z3::Config::new();
        cfg.set_model_generation(true);
        let budget = self.budget;
        // `with_z3_config` wants a Sync closure; a Mutex makes the FnOnce shareable.
        let cell = std::sync::Mutex::new(Some(assert));
        z3::with_z3_config(&cfg, || {
            let solver = z3::Solver::new();
            let mut params = z3::Params::new();
            params.set_u32("rlimit", budget.rlimit);
            params.set_u32("random_seed", budget.seed);
            solver.set_params(&params);
            if let Some(f) = cell.lock().ok().and_then(|mut g| g.take()) {
                f(&solver);
            }
            match solver.check() {
                z3::SatResult::Sat => Answer::Sat,
                z3::SatResult::Unsat => Answer::Unsat,
                z3::SatResult::Unknown => Answer::Unknown(
                    solver
                        .get_reason_unknown()
                        .unwrap_or_else(|| "unknown".to_string()),
                ),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Int;

    #[test]
    fn proves_a_nonlinear_integer_fact() {
        // For all x, y >= 2: x*y >= x + y. Its negation must be unsat.
        let answer = Session::new(Budget::default()).check(|s| {
            let x = Int::new_const("x");
            let y = Int::new_const("y");
            let two = Int::from_i64(2);
            s.assert(x.ge(&two));
            s.assert(y.ge(&two));
            s.assert((&x * &y).lt(&x + &y));
        });
        assert_eq!(answer, Answer::Unsat);
    }

    #[test]
    fn finds_a_model_when_one_exists() {
        // i*3 == j*3 + 1 has no solution, but i*3 == j*3 + 3 does.
        let unsat = Session::new(Budget::default()).check(|s| {
            let i = Int::new_const("i");
            let j = Int::new_const("j");
            s.assert((&i * 3).eq(&j * 3 + 1));
        });
        assert_eq!(unsat, Answer::Unsat);
        let sat = Session::new(Budget::default()).check(|s| {
            let i = Int::new_const("i");
            let j = Int::new_const("j");
            s.assert((&i * 3).eq(&j * 3 + 3));
        });
        assert_eq!(sat, Answer::Sat);
    }
}
