//! Rewrite rules, one file per topic, written as data ([`RuleSpec`]) so that the
//! test suite can check every rule independently of the e-graph.
//!
//! A rule `lhs => rhs` may carry a side condition ([`Cond`]) over its pattern
//! variables and a computed constant ([`Compute`]). In the e-graph the condition
//! is decided on the classes' intervals and congruences ([`Cond::holds_on`]),
//! which over-approximate the values; the test suite checks the rule at every
//! point where the pointwise version ([`Cond::holds_at`]) is true, so a rule that
//! passes its check is sound under the interval version too.
//!
//! Contract of every rule: at each assignment of its variables where the
//! condition holds, the left side is defined exactly when the right side is, and
//! then both have the same value.

mod divmod;
mod minmax;
mod relations;
mod ring;

use super::analysis::{Facts, FactsAnalysis};
use super::lang::Sym;
use egg::{Applier, EGraph, Id, Pattern, PatternAst, Rewrite, Subst, Symbol, Var};
use std::str::FromStr;

/// Side condition of a rule, over pattern variables (written without `?`).
#[derive(Clone, Debug)]
pub enum Cond {
    /// `x >= 0`.
    NonNeg(&'static str),
    /// `x <= 0`.
    NonPos(&'static str),
    /// `x > 0`.
    Pos(&'static str),
    /// `x != 0`.
    NonZero(&'static str),
    /// `x < y`.
    Lt(&'static str, &'static str),
    /// `x <= y`.
    Le(&'static str, &'static str),
    /// `x` is a constant (in the e-graph: the class has a single value).
    Const(&'static str),
    /// `m > 0` and `m` divides `x`.
    Divides(&'static str, &'static str),
    /// All of these.
    All(Vec<Cond>),
}

impl Cond {
    /// The condition decided on class facts: `true` only if it holds at every
    /// allowed assignment.
    pub fn holds_on(&self, f: &dyn Fn(&str) -> Facts) -> bool {
        let lo = |v: &str| f(v).interval.lo;
        let hi = |v: &str| f(v).interval.hi;
        match self {
            Cond::NonNeg(x) => lo(x).is_some_and(|l| l >= 0),
            Cond::NonPos(x) => hi(x).is_some_and(|h| h <= 0),
            Cond::Pos(x) => lo(x).is_some_and(|l| l > 0),
            Cond::NonZero(x) => lo(x).is_some_and(|l| l > 0) || hi(x).is_some_and(|h| h < 0),
            Cond::Lt(x, y) => matches!((hi(x), lo(y)), (Some(a), Some(b)) if a < b),
            Cond::Le(x, y) => matches!((hi(x), lo(y)), (Some(a), Some(b)) if a <= b),
            Cond::Const(x) => f(x).constant().is_some(),
            Cond::Divides(m, x) => match f(m).constant() {
                Some(k) if k > 0 => f(x).cong.multiple_of(k),
                _ => false,
            },
            Cond::All(cs) => cs.iter().all(|c| c.holds_on(f)),
        }
    }

    /// The condition at one point (variable values, booleans as 0/1).
    pub fn holds_at(&self, v: &dyn Fn(&str) -> i128) -> bool {
        match self {
            Cond::NonNeg(x) => v(x) >= 0,
            Cond::NonPos(x) => v(x) <= 0,
            Cond::Pos(x) => v(x) > 0,
            Cond::NonZero(x) => v(x) != 0,
            Cond::Lt(x, y) => v(x) < v(y),
            Cond::Le(x, y) => v(x) <= v(y),
            Cond::Const(_) => true,
            Cond::Divides(m, x) => v(m) > 0 && v(x) % v(m) == 0,
            Cond::All(cs) => cs.iter().all(|c| c.holds_at(v)),
        }
    }
}

/// A constant computed from constants bound by the left side.
#[derive(Clone, Copy, Debug)]
pub struct Compute {
    /// The variable (without `?`) the right side uses for the result.
    pub out: &'static str,
    /// The variables whose constant values are the inputs (each needs `Cond::Const`).
    pub args: &'static [&'static str],
    /// The computation; `None` means the rule does not apply.
    pub f: fn(&[i128]) -> Option<i128>,
}

/// One rewrite rule as data.
#[derive(Clone, Debug)]
pub struct RuleSpec {
    /// Unique name (shown by `--explain`).
    pub name: &'static str,
    /// Topic file: `ring`, `divmod`, `minmax`, `relations`.
    pub topic: &'static str,
    /// Left side (s-expression pattern).
    pub lhs: &'static str,
    /// Right side.
    pub rhs: &'static str,
    /// Side condition (`None`: always).
    pub cond: Option<Cond>,
    /// Computed constant used by the right side.
    pub compute: Option<Compute>,
}

/// `lhs => rhs`, unconditional.
pub(crate) fn rule(
    topic: &'static str,
    name: &'static str,
    lhs: &'static str,
    rhs: &'static str,
) -> RuleSpec {
    RuleSpec {
        name,
        topic,
        lhs,
        rhs,
        cond: None,
        compute: None,
    }
}

impl RuleSpec {
    pub(crate) fn when(mut self, cond: Cond) -> Self {
        self.cond = Some(cond);
        self
    }

    pub(crate) fn computing(mut self, compute: Compute) -> Self {
        self.compute = Some(compute);
        self
    }

    /// The egg rewrite.
    ///
    /// # Panics
    /// On a malformed pattern (rule files are fixed; the test suite builds every rule).
    pub fn rewrite(&self) -> Rewrite<Sym, FactsAnalysis> {
        let lhs: Pattern<Sym> = self.lhs.parse().expect("rule lhs parses");
        let rhs: Pattern<Sym> = self.rhs.parse().expect("rule rhs parses");
        let bound = lhs.vars();
        let applier = SpecApplier {
            rhs,
            cond: self.cond.clone(),
            compute: self.compute,
            bound,
        };
        Rewrite::new(self.name, lhs, applier).expect("rule is well formed")
    }
}

fn var(name: &str) -> Var {
    Var::from_str(&format!("?{name}")).expect("variable name")
}

struct SpecApplier {
    rhs: Pattern<Sym>,
    cond: Option<Cond>,
    compute: Option<Compute>,
    bound: Vec<Var>,
}

impl Applier<Sym, FactsAnalysis> for SpecApplier {
    fn apply_one(
        &self,
        egraph: &mut EGraph<Sym, FactsAnalysis>,
        eclass: Id,
        subst: &Subst,
        searcher_ast: Option<&PatternAst<Sym>>,
        rule_name: Symbol,
    ) -> Vec<Id> {
        let facts = |v: &str| egraph[subst[var(v)]].data.clone();
        if let Some(c) = &self.cond {
            if !c.holds_on(&facts) {
                return vec![];
            }
        }
        let mut subst = subst.clone();
        if let Some(k) = &self.compute {
            let mut args = Vec::with_capacity(k.args.len());
            for a in k.args {
                match facts(a).constant() {
                    Some(v) => args.push(v),
                    None => return vec![],
                }
            }
            let Some(v) = (k.f)(&args).and_then(|v| i64::try_from(v).ok()) else {
                return vec![];
            };
            let id = egraph.add(Sym::Num(v));
            subst.insert(var(k.out), id);
        }
        self.rhs
            .apply_one(egraph, eclass, &subst, searcher_ast, rule_name)
    }

    fn vars(&self) -> Vec<Var> {
        self.bound.clone()
    }
}

/// Every rule, by topic.
pub fn all_rules() -> Vec<RuleSpec> {
    let mut v = ring::rules();
    v.extend(divmod::rules());
    v.extend(minmax::rules());
    v.extend(relations::rules());
    v
}
