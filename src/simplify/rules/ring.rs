//! Ring rules: commutativity, associativity, identities, factoring, like
//! terms, powers. (General expansion is not a rule: the expanded form of every
//! input is seeded into the e-graph by `poly.rs`, which keeps the e-graph small;
//! no rule distributes.) All hold for every integer; the conditions below
//! only restrict where rules fire (constants are factored by the seeds,
//! `pow-succ` needs a literal exponent).

use super::{rule, Compute, Cond, RuleSpec};

pub(super) fn rules() -> Vec<RuleSpec> {
    let r = |name, lhs, rhs| rule("ring", name, lhs, rhs);
    vec![
        r("add-comm", "(+ ?a ?b)", "(+ ?b ?a)"),
        r("add-assoc", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"),
        r("mul-comm", "(* ?a ?b)", "(* ?b ?a)"),
        r("mul-assoc", "(* ?a (* ?b ?c))", "(* (* ?a ?b) ?c)"),
        r("add-zero", "(+ ?a 0)", "?a"),
        r("mul-one", "(* ?a 1)", "?a"),
        r("mul-zero", "(* ?a 0)", "0"),
        // Numeric content is pulled out by the polynomial seeds (poly.rs);
        // factoring on numbers too would only grow the e-graph.
        r("factor", "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))").when(Cond::NotConst("a")),
        r("factor-one", "(+ ?a (* ?a ?c))", "(* ?a (+ ?c 1))").when(Cond::NotConst("a")),
        r("double", "(+ ?a ?a)", "(* 2 ?a)"),
        r("cancel", "(+ ?a (* -1 ?a))", "0"),
        r("square", "(* ?a ?a)", "(pow ?a 2)"),
        r("square-rev", "(pow ?a 2)", "(* ?a ?a)"),
        // a * a**k = a**(k+1) for a constant exponent k >= 2.
        r("pow-succ", "(* ?a (pow ?a ?k))", "(pow ?a ?j)")
            .when(Cond::Const("k"))
            .computing(Compute {
                out: "j",
                args: &["k"],
                f: |a| (a[0] >= 2 && a[0] < 64).then(|| a[0] + 1),
            }),
    ]
}
