//! Lowering [`Query`]s to z3 and reading answers back.

use crate::term::{Cmp, Formula, Term};
use crate::watchdog::Watchdog;
use crate::{Answer, Budget, Query};
use std::time::Instant;
use z3::ast::{Bool, Int};

/// The reason of an answer cut short by the wall-clock watchdog.
pub(crate) const INTERRUPTED: &str = "interrupted: wall-clock limit of the query";

/// Runs `f` with a fresh thread-local z3 context (model generation on) and a
/// watchdog thread that can interrupt it (see [`Watchdog`]).
pub(crate) fn with_context<R: Send + Sync>(f: impl FnOnce(&Watchdog) -> R + Send + Sync) -> R {
    let mut cfg = z3::Config::new();
    cfg.set_model_generation(true);
    z3::with_z3_config(&cfg, || {
        let ctx = z3::Context::thread_local();
        let handle = ctx.handle();
        let dog = Watchdog::default();
        // Stops the watchdog however `f` ends (a panic too): otherwise the
        // scope would wait for it forever.
        struct Stop<'d>(&'d Watchdog);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.stop();
            }
        }
        std::thread::scope(|s| {
            let stop = Stop(&dog);
            s.spawn(|| dog.run(|| handle.interrupt()));
            let r = f(&dog);
            drop(stop);
            r
        })
    })
}

/// A solver with the budget's seed and resource limit.
pub(crate) fn new_solver(budget: Budget) -> z3::Solver {
    let solver = z3::Solver::new();
    set_rlimit(&solver, budget.rlimit, budget.seed);
    solver
}

/// Sets the solver's `rlimit` for the next checks.
pub(crate) fn set_rlimit(solver: &z3::Solver, rlimit: u32, seed: u32) {
    let mut params = z3::Params::new();
    params.set_u32("rlimit", rlimit);
    params.set_u32("random_seed", seed);
    solver.set_params(&params);
}

/// Asserts `fs` (and the side conditions their lowering needs) and checks,
/// under the watchdog until `deadline`: z3 may spend unbounded time in the
/// assertions' preprocessing as well as in the check.
fn assert_and_run(
    solver: &z3::Solver,
    dog: &Watchdog,
    deadline: Instant,
    q: &Query,
    vars: &[Int],
    fs: &[&Formula],
) -> Answer {
    let mut side = Vec::new();
    let lowered: Vec<Bool> = fs.iter().map(|f| formula(f, vars, &mut side)).collect();
    if Instant::now() >= deadline {
        return Answer::Unknown(INTERRUPTED.into());
    }
    let armed = dog.arm(deadline);
    for b in lowered.iter().chain(&side) {
        solver.assert(b);
    }
    let answer = run(solver, q, vars);
    if dog.disarm(armed) {
        // Whatever z3 said after an interrupt, it is not an answer to rely on
        // for reproducibility: only unknown is reported.
        return Answer::Unknown(INTERRUPTED.into());
    }
    answer
}

/// Checks `q` in a push/pop scope of `solver`, interrupted at `deadline`:
/// the answer and the resource units the check spent (z3's `rlimit count`,
/// deterministic for the same queries in the same order).
pub(crate) fn check_scoped(
    solver: &z3::Solver,
    dog: &Watchdog,
    deadline: Instant,
    q: &Query,
) -> (Answer, u64) {
    solver.push();
    let before = rlimit_count(solver);
    let vars: Vec<Int> = q.vars.iter().map(|n| Int::new_const(n.as_str())).collect();
    let fs: Vec<&Formula> = q.assertions.iter().collect();
    let a = assert_and_run(solver, dog, deadline, q, &vars, &fs);
    let spent = rlimit_count(solver).wrapping_sub(before);
    solver.pop(1);
    (a, spent)
}

/// The resource counter of `solver` (z3's statistic `rlimit count`, which
/// its `rlimit` bounds), 0 when z3 does not report it.
fn rlimit_count(solver: &z3::Solver) -> u64 {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(v)) => u64::from(v),
        Some(z3::StatisticsValue::Double(v)) => v as u64,
        None => 0,
    }
}

fn run(solver: &z3::Solver, q: &Query, vars: &[Int]) -> Answer {
    match solver.check() {
        z3::SatResult::Unsat => Answer::Unsat,
        z3::SatResult::Unknown => Answer::Unknown(
            solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".to_string()),
        ),
        z3::SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return Answer::Unknown("no model".into());
            };
            let values: Option<Vec<i64>> = vars
                .iter()
                .map(|v| model.eval(v, true).and_then(|x| x.as_i64()))
                .collect();
            let Some(values) = values else {
                return Answer::Unknown("a model value does not fit in 64 bits".into());
            };
            // Never trust a model blindly: re-check every assertion exactly
            // (a quantified one cannot be: its caller checks what the model
            // means in its own terms).
            let holds = q
                .assertions
                .iter()
                .all(|f| f.quantified() || f.eval(&values) == Some(true));
            if holds {
                Answer::Sat(values)
            } else {
                Answer::Unknown("the model failed the exact re-check".into())
            }
        }
    }
}

/// Python floor division: `div` for a positive divisor, `div(-a, -b)` for a
/// negative one; a zero divisor is excluded through `side`.
fn floordiv(a: &Int, b: &Int, side: &mut Vec<Bool>) -> Int {
    let zero = Int::from_i64(0);
    side.push(b.eq(&zero).not());
    let pos = a.div(b);
    let neg = a.unary_minus().div(b.unary_minus());
    b.gt(&zero).ite(&pos, &neg)
}

fn term(t: &Term, vars: &[Int], side: &mut Vec<Bool>) -> Int {
    match t {
        Term::Int(v) => Int::from_i64(*v),
        Term::Var(i) => vars[*i as usize].clone(),
        Term::Add(xs) => {
            let xs: Vec<Int> = xs.iter().map(|x| term(x, vars, side)).collect();
            if xs.is_empty() {
                Int::from_i64(0)
            } else {
                Int::add(&xs)
            }
        }
        Term::Mul(xs) => {
            let xs: Vec<Int> = xs.iter().map(|x| term(x, vars, side)).collect();
            if xs.is_empty() {
                Int::from_i64(1)
            } else {
                Int::mul(&xs)
            }
        }
        Term::FloorDiv(a, b) => {
            let (a, b) = (term(a, vars, side), term(b, vars, side));
            floordiv(&a, &b, side)
        }
        Term::Mod(a, b) => {
            let (a, b) = (term(a, vars, side), term(b, vars, side));
            let q = floordiv(&a, &b, side);
            Int::sub(&[a, Int::mul(&[b, q])])
        }
        Term::Min(xs) | Term::Max(xs) => {
            let is_max = matches!(t, Term::Max(_));
            let mut it = xs.iter().map(|x| term(x, vars, side));
            let first = it.next().unwrap_or_else(|| Int::from_i64(0));
            it.fold(first, |acc, x| {
                let pick_x = if is_max { x.gt(&acc) } else { x.lt(&acc) };
                pick_x.ite(&x, &acc)
            })
        }
        Term::Ite(c, a, b) => {
            let c = formula(c, vars, side);
            let (a, b) = (term(a, vars, side), term(b, vars, side));
            c.ite(&a, &b)
        }
    }
}

fn formula(f: &Formula, vars: &[Int], side: &mut Vec<Bool>) -> Bool {
    match f {
        Formula::True => Bool::from_bool(true),
        Formula::False => Bool::from_bool(false),
        Formula::Cmp(op, a, b) => {
            let (a, b) = (term(a, vars, side), term(b, vars, side));
            match op {
                Cmp::Eq => a.eq(&b),
                Cmp::Ne => a.eq(&b).not(),
                Cmp::Lt => a.lt(&b),
                Cmp::Le => a.le(&b),
                Cmp::Gt => a.gt(&b),
                Cmp::Ge => a.ge(&b),
            }
        }
        Formula::And(xs) => {
            let xs: Vec<Bool> = xs.iter().map(|x| formula(x, vars, side)).collect();
            Bool::and(&xs)
        }
        Formula::Or(xs) => {
            let xs: Vec<Bool> = xs.iter().map(|x| formula(x, vars, side)).collect();
            Bool::or(&xs)
        }
        Formula::Not(x) => formula(x, vars, side).not(),
        Formula::ForAll(bound, x) => {
            // The body's own side conditions stay inside the quantifier.
            let mut inner = Vec::new();
            let body = formula(x, vars, &mut inner);
            let body = Bool::and(&inner).implies(&body);
            let bound: Vec<&dyn z3::ast::Ast> = bound
                .iter()
                .map(|&v| &vars[v as usize] as &dyn z3::ast::Ast)
                .collect();
            z3::ast::forall_const(&bound, &[], &body)
        }
    }
}

/// Checks `q` in a fresh context without a push/pop scope (z3 then keeps its
/// non-incremental solver, which decides some nonlinear queries that the
/// incremental one gives up on), interrupted after the budget's `wall` time.
pub(crate) fn check_fresh(q: &Query, budget: Budget) -> Answer {
    with_context(|dog| {
        let solver = new_solver(budget);
        let vars: Vec<Int> = q.vars.iter().map(|n| Int::new_const(n.as_str())).collect();
        let fs: Vec<&Formula> = q.assertions.iter().collect();
        assert_and_run(&solver, dog, Instant::now() + budget.wall, q, &vars, &fs)
    })
}
