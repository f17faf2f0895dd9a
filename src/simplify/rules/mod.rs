//! Rewrite rules, one file per topic, written as data ([`RuleSpec`]) so that the
//! test suite can check every rule independently of the e-graph.
//!
//! A rule `lhs => rhs` may carry a side condition ([`Cond`]) over its pattern
//! variables and a computed constant ([`Compute`]). In the e-graph the condition
//! is decided on the classes' intervals and congruences (`Cond::holds_on`),
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
    /// `x >= k` for a literal `k`.
    AtLeast(&'static str, i64),
    /// `x` is a constant (in the e-graph: the class has a single value).
    Const(&'static str),
    /// `x` is not known to be a constant (always true pointwise: a heuristic
    /// restriction that only makes a rule apply less often).
    NotConst(&'static str),
    /// `m > 0` and `m` divides `x`.
    Divides(&'static str, &'static str),
    /// All of these.
    All(Vec<Cond>),
}

impl Cond {
    /// The condition decided on class facts: `true` only if it holds at every
    /// allowed assignment.
    ///
    /// `known(strict, x, y)` says whether the e-graph knows `x < y` (strict) or
    /// `x <= y` to be true (from an assumption); relations also hold by bounds.
    pub(crate) fn holds_on(
        &self,
        f: &dyn Fn(&str) -> Facts,
        known: &dyn Fn(bool, &str, &str) -> bool,
    ) -> bool {
        let lo = |v: &str| f(v).interval.lo;
        let hi = |v: &str| f(v).interval.hi;
        match self {
            Cond::NonNeg(x) => lo(x).is_some_and(|l| l >= 0),
            Cond::NonPos(x) => hi(x).is_some_and(|h| h <= 0),
            Cond::Pos(x) => lo(x).is_some_and(|l| l > 0),
            Cond::NonZero(x) => lo(x).is_some_and(|l| l > 0) || hi(x).is_some_and(|h| h < 0),
            Cond::Lt(x, y) => {
                matches!((hi(x), lo(y)), (Some(a), Some(b)) if a < b) || known(true, x, y)
            }
            Cond::Le(x, y) => {
                matches!((hi(x), lo(y)), (Some(a), Some(b)) if a <= b)
                    || known(false, x, y)
                    || known(true, x, y)
            }
            Cond::AtLeast(x, k) => lo(x).is_some_and(|l| l >= *k as i128),
            Cond::Const(x) => f(x).constant().is_some(),
            Cond::NotConst(x) => f(x).constant().is_none(),
            Cond::Divides(m, x) => match f(m).constant() {
                Some(k) if k > 0 => f(x).cong.multiple_of(k),
                _ => false,
            },
            Cond::All(cs) => cs.iter().all(|c| c.holds_on(f, known)),
        }
    }

    /// The variables the condition names.
    pub fn names(&self, out: &mut Vec<&'static str>) {
        match self {
            Cond::NonNeg(x)
            | Cond::NonPos(x)
            | Cond::Pos(x)
            | Cond::NonZero(x)
            | Cond::Const(x)
            | Cond::NotConst(x)
            | Cond::AtLeast(x, _) => out.push(x),
            Cond::Lt(x, y) | Cond::Le(x, y) | Cond::Divides(x, y) => out.extend([*x, *y]),
            Cond::All(cs) => cs.iter().for_each(|c| c.names(out)),
        }
    }

    /// The condition at one point (variable values, booleans as 0/1).
#[cfg(any(test, feature = "internals"))]
    pub fn holds_at(&self, v: &dyn Fn(&str) -> i128) -> bool {
        match self {
            Cond::NonNeg(x) => v(x) >= 0,
            Cond::NonPos(x) => v(x) <= 0,
            Cond::Pos(x) => v(x) > 0,
            Cond::NonZero(x) => v(x) != 0,
            Cond::Lt(x, y) => v(x) < v(y),
            Cond::Le(x, y) => v(x) <= v(y),
            Cond::AtLeast(x, k) => v(x) >= *k as i128,
            Cond::Const(_) | Cond::NotConst(_) => true,
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
        self.rewrite_from(self.name, self.lhs)
    }

    fn rewrite_from(&self, name: &'static str, lhs: &'static str) -> Rewrite<Sym, FactsAnalysis> {
        let lhs: Pattern<Sym> = lhs.parse().expect("rule lhs parses");
        let rhs: Pattern<Sym> = self.rhs.parse().expect("rule rhs parses");
        let bound = lhs.vars();
        let mut names: Vec<&'static str> = Vec::new();
        if let Some(c) = &self.cond {
            c.names(&mut names);
        }
        if let Some(k) = &self.compute {
            names.extend(k.args.iter().copied());
            names.push(k.out);
        }
        let applier = SpecApplier {
            rhs,
            cond: self.cond.clone(),
            compute: self.compute,
            bound,
            named: names.into_iter().map(|n| (n, var(n))).collect(),
        };
        Rewrite::new(name, lhs, applier).expect("rule is well formed")
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
    /// The variables the condition and computation name, resolved once.
    named: Vec<(&'static str, Var)>,
}

impl SpecApplier {
    fn var(&self, name: &str) -> Var {
        self.named
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .expect("condition variable is named")
    }
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
        let facts = |v: &str| egraph[subst[self.var(v)]].data.clone();
        let known = |strict: bool, x: &str, y: &str| {
            let (a, b) = (subst[self.var(x)], subst[self.var(y)]);
            let node = if strict {
                Sym::Lt([a, b])
            } else {
                Sym::Le([a, b])
            };
            egraph
                .lookup(node)
                .is_some_and(|id| egraph[id].data.constant() == Some(1))
        };
        if let Some(c) = &self.cond {
            if !c.holds_on(&facts, &known) {
                return vec![];
            }
        }
        let Some(k) = &self.compute else {
            return self
                .rhs
                .apply_one(egraph, eclass, subst, searcher_ast, rule_name);
        };
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
        // Only rules with a computed constant need their own substitution.
        let mut subst = subst.clone();
        let id = egraph.add(Sym::Num(v));
        subst.insert(self.var(k.out), id);
        self.rhs
            .apply_one(egraph, eclass, &subst, searcher_ast, rule_name)
    }

    fn vars(&self) -> Vec<Var> {
        self.bound.clone()
    }
}

/// Topics a rule can belong to, as bits of a mask (see `topics_needed`).
pub mod topic {
    /// Ring rules (always needed).
    pub(crate) const RING: u8 = 1;
    /// Division and remainder.
    pub(crate) const DIVMOD: u8 = 2;
    /// Max and Min.
    pub(crate) const MINMAX: u8 = 4;
    /// Relations.
    pub(crate) const RELATIONS: u8 = 8;
    /// Connectives and `Where`.
    pub(crate) const BOOLEANS: u8 = 16;
}

impl RuleSpec {
    /// The topic bit of this rule.
    pub(crate) fn topic_bit(&self) -> u8 {
        match self.topic {
            "divmod" => topic::DIVMOD,
            "minmax" => topic::MINMAX,
            "relations" => topic::RELATIONS,
            "booleans" => topic::BOOLEANS,
            _ => topic::RING,
        }
    }
}

/// The topics whose rules can fire on an expression with these operators.
///
/// No rule creates an operator of a topic from operators outside it (ring
/// rules create only ring operators, division rules only division operators,
/// and so on), so leaving out the rules of absent topics loses nothing; it
/// only saves the search.
pub(crate) fn topics_needed(nodes: &[Sym]) -> u8 {
    let mut m = topic::RING;
    for n in nodes {
        m |= match n {
            Sym::FloorDiv(_)
            | Sym::CeilDiv(_)
            | Sym::CleanDiv(_)
            | Sym::Mod(_)
            | Sym::PythonMod(_)
            | Sym::ModularIndexing(_)
            | Sym::Abs(_) => topic::DIVMOD,
            Sym::Max(_) | Sym::Min(_) => topic::MINMAX,
            Sym::Eq(_) | Sym::Ne(_) | Sym::Lt(_) | Sym::Le(_) => topic::RELATIONS,
            Sym::And(_) | Sym::Or(_) | Sym::Not(_) | Sym::Where(_) | Sym::Bool(_) => {
                topic::BOOLEANS | topic::RELATIONS
            }
            _ => 0,
        };
    }
    m
}

/// Every rule, by topic.
pub fn all_rules() -> Vec<RuleSpec> {
    let mut v = ring::rules();
    v.extend(divmod::rules());
    v.extend(minmax::rules());
    v.extend(relations::rules());
    v
}
