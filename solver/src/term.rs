//! A small integer term and formula language, independent of any application.
//!
//! Semantics are Python's on integers: `FloorDiv` rounds toward −∞, `Mod` takes
//! the sign of the divisor. A division or modulo by zero makes the enclosing
//! assignment invalid: the lowering adds `divisor != 0` to the query's domain,
//! so models never divide by zero and "unsat" speaks only of valid assignments.

use std::fmt;

/// An integer term over variables `Var(i)` (indices into [`Query::vars`](crate::Query)).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A constant.
    Int(i64),
    /// A variable.
    Var(u32),
    /// Sum.
    Add(Vec<Term>),
    /// Product (nonlinear when two factors mention variables).
    Mul(Vec<Term>),
    /// Floor division.
    FloorDiv(Box<Term>, Box<Term>),
    /// Remainder with the sign of the divisor.
    Mod(Box<Term>, Box<Term>),
    /// Minimum.
    Min(Vec<Term>),
    /// Maximum.
    Max(Vec<Term>),
    /// `then` if the condition holds, else `otherwise`.
    Ite(Box<Formula>, Box<Term>, Box<Term>),
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `=`
    Eq,
    /// `≠`
    Ne,
    /// `<`
    Lt,
    /// `≤`
    Le,
    /// `>`
    Gt,
    /// `≥`
    Ge,
}

/// A formula over terms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    /// Truth.
    True,
    /// Falsity.
    False,
    /// A comparison.
    Cmp(Cmp, Term, Term),
    /// Conjunction.
    And(Vec<Formula>),
    /// Disjunction.
    Or(Vec<Formula>),
    /// Negation.
    Not(Box<Formula>),
    /// For every value of the listed variables, the body holds (an
    /// assignment of them at which a division by zero occurs in the body is
    /// excluded). Not evaluated by [`Formula::eval`]: a model of a query
    /// with a quantifier is checked by the caller, in its own terms.
    ForAll(Vec<u32>, Box<Formula>),
}

impl Term {
    /// `self OP other`.
    pub fn cmp(self, op: Cmp, other: Term) -> Formula {
        Formula::Cmp(op, self, other)
    }

    /// Evaluates with Python semantics; `None` on division by zero, overflow or
    /// a missing variable.
    pub fn eval(&self, vars: &[i64]) -> Option<i128> {
        Some(match self {
            Term::Int(v) => *v as i128,
            Term::Var(i) => *vars.get(*i as usize)? as i128,
            Term::Add(xs) => xs
                .iter()
                .try_fold(0i128, |acc, x| acc.checked_add(x.eval(vars)?))?,
            Term::Mul(xs) => xs
                .iter()
                .try_fold(1i128, |acc, x| acc.checked_mul(x.eval(vars)?))?,
            Term::FloorDiv(a, b) => {
                let (a, b) = (a.eval(vars)?, b.eval(vars)?);
                if b == 0 {
                    return None;
                }
                let q = a.checked_div(b)?;
                if (a % b != 0) && ((a < 0) != (b < 0)) {
                    q - 1
                } else {
                    q
                }
            }
            Term::Mod(a, b) => {
                let (x, y) = (a.eval(vars)?, b.eval(vars)?);
                if y == 0 {
                    return None;
                }
                let r = x.checked_rem(y).unwrap_or(0);
                if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }
            }
            Term::Min(xs) => xs
                .iter()
                .map(|x| x.eval(vars))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .min()?,
            Term::Max(xs) => xs
                .iter()
                .map(|x| x.eval(vars))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .max()?,
            Term::Ite(c, a, b) => {
                if c.eval(vars)? {
                    a.eval(vars)?
                } else {
                    b.eval(vars)?
                }
            }
        })
    }
}

impl Term {
    /// Appends the variables the term mentions (with repeats) to `out`.
    pub fn vars_into(&self, out: &mut Vec<u32>) {
        match self {
            Term::Int(_) => {}
            Term::Var(i) => out.push(*i),
            Term::Add(xs) | Term::Mul(xs) | Term::Min(xs) | Term::Max(xs) => {
                xs.iter().for_each(|x| x.vars_into(out))
            }
            Term::FloorDiv(a, b) | Term::Mod(a, b) => {
                a.vars_into(out);
                b.vars_into(out);
            }
            Term::Ite(c, a, b) => {
                c.vars_into(out);
                a.vars_into(out);
                b.vars_into(out);
            }
        }
    }

    /// The same term with every variable `v` renamed to `f(v)`.
    pub fn map_vars(&self, f: &impl Fn(u32) -> u32) -> Term {
        let all = |xs: &[Term]| xs.iter().map(|x| x.map_vars(f)).collect();
        match self {
            Term::Int(v) => Term::Int(*v),
            Term::Var(i) => Term::Var(f(*i)),
            Term::Add(xs) => Term::Add(all(xs)),
            Term::Mul(xs) => Term::Mul(all(xs)),
            Term::Min(xs) => Term::Min(all(xs)),
            Term::Max(xs) => Term::Max(all(xs)),
            Term::FloorDiv(a, b) => {
                Term::FloorDiv(Box::new(a.map_vars(f)), Box::new(b.map_vars(f)))
            }
            Term::Mod(a, b) => Term::Mod(Box::new(a.map_vars(f)), Box::new(b.map_vars(f))),
            Term::Ite(c, a, b) => Term::Ite(
                Box::new(c.map_vars(f)),
                Box::new(a.map_vars(f)),
                Box::new(b.map_vars(f)),
            ),
        }
    }
}

impl std::ops::Add for Term {
    type Output = Term;
    /// `a + b`.
    fn add(self, b: Term) -> Term {
        Term::Add(vec![self, b])
    }
}

impl std::ops::Sub for Term {
    type Output = Term;
    /// `a - b`.
    fn sub(self, b: Term) -> Term {
        Term::Add(vec![self, Term::Mul(vec![Term::Int(-1), b])])
    }
}

impl std::ops::Mul for Term {
    type Output = Term;
    /// `a * b`.
    fn mul(self, b: Term) -> Term {
        Term::Mul(vec![self, b])
    }
}

impl Formula {
    /// Appends the variables the formula mentions (with repeats) to `out`.
    pub fn vars_into(&self, out: &mut Vec<u32>) {
        match self {
            Formula::True | Formula::False => {}
            Formula::Cmp(_, a, b) => {
                a.vars_into(out);
                b.vars_into(out);
            }
            Formula::And(xs) | Formula::Or(xs) => xs.iter().for_each(|x| x.vars_into(out)),
            Formula::Not(x) => x.vars_into(out),
            Formula::ForAll(bound, x) => {
                out.extend(bound);
                x.vars_into(out);
            }
        }
    }

    /// The same formula with every variable `v` renamed to `f(v)`.
    pub fn map_vars(&self, f: &impl Fn(u32) -> u32) -> Formula {
        match self {
            Formula::True => Formula::True,
            Formula::False => Formula::False,
            Formula::Cmp(op, a, b) => Formula::Cmp(*op, a.map_vars(f), b.map_vars(f)),
            Formula::And(xs) => Formula::And(xs.iter().map(|x| x.map_vars(f)).collect()),
            Formula::Or(xs) => Formula::Or(xs.iter().map(|x| x.map_vars(f)).collect()),
            Formula::Not(x) => Formula::Not(Box::new(x.map_vars(f))),
            Formula::ForAll(bound, x) => Formula::ForAll(
                bound.iter().map(|&v| f(v)).collect(),
                Box::new(x.map_vars(f)),
            ),
        }
    }

    /// `true` when a quantifier occurs in the formula.
    pub fn quantified(&self) -> bool {
        match self {
            Formula::True | Formula::False | Formula::Cmp(..) => false,
            Formula::And(xs) | Formula::Or(xs) => xs.iter().any(Formula::quantified),
            Formula::Not(x) => x.quantified(),
            Formula::ForAll(..) => true,
        }
    }

    /// Evaluates; `None` where a term cannot be evaluated (or a quantifier
    /// occurs).
    pub fn eval(&self, vars: &[i64]) -> Option<bool> {
        Some(match self {
            Formula::True => true,
            Formula::False => false,
            Formula::Cmp(op, a, b) => {
                let (a, b) = (a.eval(vars)?, b.eval(vars)?);
                match op {
                    Cmp::Eq => a == b,
                    Cmp::Ne => a != b,
                    Cmp::Lt => a < b,
                    Cmp::Le => a <= b,
                    Cmp::Gt => a > b,
                    Cmp::Ge => a >= b,
                }
            }
            Formula::And(xs) => {
                for x in xs {
                    if !x.eval(vars)? {
                        return Some(false);
                    }
                }
                true
            }
            Formula::Or(xs) => {
                for x in xs {
                    if x.eval(vars)? {
                        return Some(true);
                    }
                }
                false
            }
            Formula::Not(x) => !x.eval(vars)?,
            Formula::ForAll(..) => return None,
        })
    }
}

impl fmt::Display for Term {
    /// SMT-LIB-like text (also the cache key).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, op: &str, xs: &[Term]| {
            write!(f, "({op}")?;
            for x in xs {
                write!(f, " {x}")?;
            }
            f.write_str(")")
        };
        match self {
            Term::Int(v) => write!(f, "{v}"),
            Term::Var(i) => write!(f, "v{i}"),
            Term::Add(xs) => list(f, "+", xs),
            Term::Mul(xs) => list(f, "*", xs),
            Term::FloorDiv(a, b) => write!(f, "(floordiv {a} {b})"),
            Term::Mod(a, b) => write!(f, "(pymod {a} {b})"),
            Term::Min(xs) => list(f, "min", xs),
            Term::Max(xs) => list(f, "max", xs),
            Term::Ite(c, a, b) => write!(f, "(ite {c} {a} {b})"),
        }
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, op: &str, xs: &[Formula]| {
            write!(f, "({op}")?;
            for x in xs {
                write!(f, " {x}")?;
            }
            f.write_str(")")
        };
        match self {
            Formula::True => f.write_str("true"),
            Formula::False => f.write_str("false"),
            Formula::Cmp(op, a, b) => {
                let s = match op {
                    Cmp::Eq => "=",
                    Cmp::Ne => "distinct",
                    Cmp::Lt => "<",
                    Cmp::Le => "<=",
                    Cmp::Gt => ">",
                    Cmp::Ge => ">=",
                };
                write!(f, "({s} {a} {b})")
            }
            Formula::And(xs) => list(f, "and", xs),
            Formula::Or(xs) => list(f, "or", xs),
            Formula::Not(x) => write!(f, "(not {x})"),
            Formula::ForAll(bound, x) => {
                f.write_str("(forall (")?;
                for (k, v) in bound.iter().enumerate() {
                    write!(f, "{}v{v}", if k > 0 { " " } else { "" })?;
                }
                write!(f, ") {x})")
            }
        }
    }
}
