//! `Max` and `Min`: lattice laws, decisions by bounds, and pulling out a common
//! summand or a non-negative factor.
//!
//! Side conditions: `Max(a, b) → a` needs `b <= a` at every allowed assignment
//! (decided on the classes' intervals); `Max(c*a, c*b) → c*Max(a, b)` needs
//! `c >= 0` (a negative factor swaps Max and Min).

use super::{rule, Cond, RuleSpec};

pub(super) fn rules() -> Vec<RuleSpec> {
    let r = |name, lhs, rhs| rule("minmax", name, lhs, rhs);
    vec![
        r("max-comm", "(max ?a ?b)", "(max ?b ?a)"),
        r("min-comm", "(min ?a ?b)", "(min ?b ?a)"),
        r("max-assoc", "(max ?a (max ?b ?c))", "(max (max ?a ?b) ?c)"),
        r("min-assoc", "(min ?a (min ?b ?c))", "(min (min ?a ?b) ?c)"),
        r("max-idem", "(max ?a ?a)", "?a"),
        r("min-idem", "(min ?a ?a)", "?a"),
        r("max-left", "(max ?a ?b)", "?a").when(Cond::Le("b", "a")),
        r("min-left", "(min ?a ?b)", "?a").when(Cond::Le("a", "b")),
        // a + b >= a exactly when b >= 0 (bounds of `a` alone may not decide).
        r("max-add-nonneg", "(max ?a (+ ?a ?b))", "(+ ?a ?b)").when(Cond::NonNeg("b")),
        r("min-add-nonneg", "(min ?a (+ ?a ?b))", "?a").when(Cond::NonNeg("b")),
        r("max-min-absorb", "(max ?a (min ?a ?b))", "?a"),
        r("min-max-absorb", "(min ?a (max ?a ?b))", "?a"),
        r("max-add", "(max (+ ?a ?c) (+ ?b ?c))", "(+ (max ?a ?b) ?c)"),
        r("min-add", "(min (+ ?a ?c) (+ ?b ?c))", "(+ (min ?a ?b) ?c)"),
        r("max-mul", "(max (* ?c ?a) (* ?c ?b))", "(* ?c (max ?a ?b))").when(Cond::NonNeg("c")),
        r("min-mul", "(min (* ?c ?a) (* ?c ?b))", "(* ?c (min ?a ?b))").when(Cond::NonNeg("c")),
    ]
}
