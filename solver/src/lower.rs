//! Lowering [`Query`]s to z3 and reading answers back.

use crate::term::{Cmp, Formula, Term};
use crate::{Answer, Budget, Query};
use z3::ast::{Bool, Int};

/// Runs `f` with a fresh thread-local z3 context (model generation on).
pub(crate) fn with_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    let mut cfg = z3::Config::new();
    cfg.set_model_generation(true);
    z3::with_z3_config(&cfg, f)
}

/// A solver with the budget's seed and resource limit.
pub(crate) fn new_solver(budget: Budget) -> z3::Solver {
    let solver = z3::Solver::new();
    let mut params = z3::Params::new();
    params.set_u32("rlimit", budget.rlimit);
    params.set_u32("random_seed", budget.seed);
    solver.set_params(&params);
    solver
}

/// Checks `q` in a push/pop scope of `solver`.
pub(crate) fn check_scoped(solver: &z3::Solver, q: &Query) -> Answer {
    solver.push();
    let vars: Vec<Int> = q.vars.iter().map(|n| Int::new_const(n.as_str())).collect();
    let mut side = Vec::new();
    for a in &q.assertions {
        let b = formula(a, &vars, &mut side);
        solver.assert(&b);
    }
    for s in side {
        solver.assert(&s);
    }
    let a = run(solver, q, &vars, &[]);
    solver.pop(1);
    a
}

/// Checks `q` (and, when `variants` is not empty, `q` plus each variant in a
/// push/pop scope) in one fresh context.
pub(crate) fn check(q: &Query, variants: &[Vec<Formula>], budget: Budget) -> Vec<Answer> {
    with_context(|| {
        let solver = new_solver(budget);
        let vars: Vec<Int> = q.vars.iter().map(|n| Int::new_const(n.as_str())).collect();
        let mut side = Vec::new();
        for a in &q.assertions {
            let b = formula(a, &vars, &mut side);
            solver.assert(&b);
        }
        for s in side.drain(..) {
            solver.assert(&s);
        }
        if variants.is_empty() {
            return vec![run(&solver, q, &vars, &[])];
        }
        variants
            .iter()
            .map(|extra| {
                solver.push();
                for f in extra {
                    let b = formula(f, &vars, &mut side);
                    solver.assert(&b);
                }
                for s in side.drain(..) {
                    solver.assert(&s);
                }
                let a = run(&solver, q, &vars, extra);
                solver.pop(1);
                a
            })
            .collect()
    })
}

fn run(solver: &z3::Solver, q: &Query, vars: &[Int], extra: &[Formula]) -> Answer {
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
            // Never trust a model blindly: re-check every assertion exactly.
            let holds = q
                .assertions
                .iter()
                .chain(extra)
                .all(|f| f.eval(&values) == Some(true));
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
    }
}
