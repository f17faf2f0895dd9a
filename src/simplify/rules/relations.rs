//! Relations and booleans: decisions by bounds, cancelling common summands and
//! factors, solving `c*x OP d` for a constant `c`, integer strictness
//! (`a < b` ⇔ `a + 1 <= b`), negation, and the boolean algebra of `And`, `Or`,
//! `Not`, `Where`.
//!
//! Side conditions: cancelling a factor needs it non-zero (for `==`) or positive
//! (for `<`, `<=`); bound decisions need the intervals to separate.

use super::{rule, Compute, Cond, RuleSpec};

fn floor_div(a: i128, b: i128) -> Option<i128> {
    crate::expr::arith::floordiv(a, b).ok()
}

fn ceil_div(a: i128, b: i128) -> Option<i128> {
    crate::expr::arith::ceildiv(a, b).ok()
}

pub(super) fn rules() -> Vec<RuleSpec> {
    let mut out = decided();
    out.extend(solved());
    out.extend(logic());
    out
}

fn r(name: &'static str, lhs: &'static str, rhs: &'static str) -> RuleSpec {
    rule("relations", name, lhs, rhs)
}

fn b(name: &'static str, lhs: &'static str, rhs: &'static str) -> RuleSpec {
    rule("booleans", name, lhs, rhs)
}

/// Both `c` and `d` constant, and `rest`.
fn cd(rest: Cond) -> Cond {
    Cond::All(vec![Cond::Const("c"), Cond::Const("d"), rest])
}

/// x + c OP d  →  x OP k with k = d - c, for constants c and d.
fn shift(name: &'static str, lhs: &'static str, rhs: &'static str) -> RuleSpec {
    r(name, lhs, rhs)
        .when(Cond::All(vec![Cond::Const("c"), Cond::Const("d")]))
        .computing(Compute {
            out: "k",
            args: &["d", "c"],
            f: |a| a[0].checked_sub(a[1]),
        })
}

/// Relations decided by bounds, reflexivity and symmetry, and by common
/// summands and factors.
fn decided() -> Vec<RuleSpec> {
    vec![
        // Decided by the bounds of the two sides.
        r("lt-true", "(< ?a ?b)", "True").when(Cond::Lt("a", "b")),
        r("lt-false", "(< ?a ?b)", "False").when(Cond::Le("b", "a")),
        r("le-true", "(<= ?a ?b)", "True").when(Cond::Le("a", "b")),
        r("le-false", "(<= ?a ?b)", "False").when(Cond::Lt("b", "a")),
        r("eq-false-lt", "(== ?a ?b)", "False").when(Cond::Lt("a", "b")),
        r("ne-true-lt", "(!= ?a ?b)", "True").when(Cond::Lt("a", "b")),
        r("eq-refl", "(== ?a ?a)", "True"),
        r("ne-refl", "(!= ?a ?a)", "False"),
        r("le-refl", "(<= ?a ?a)", "True"),
        r("lt-refl", "(< ?a ?a)", "False"),
        r("eq-comm", "(== ?a ?b)", "(== ?b ?a)"),
        r("ne-comm", "(!= ?a ?b)", "(!= ?b ?a)"),
        // Common summands and factors.
        r("lt-cancel-add", "(< (+ ?a ?c) (+ ?b ?c))", "(< ?a ?b)"),
        r("le-cancel-add", "(<= (+ ?a ?c) (+ ?b ?c))", "(<= ?a ?b)"),
        r("eq-cancel-add", "(== (+ ?a ?c) (+ ?b ?c))", "(== ?a ?b)"),
        r("ne-cancel-add", "(!= (+ ?a ?c) (+ ?b ?c))", "(!= ?a ?b)"),
        r("lt-cancel-add-left", "(< (+ ?a ?c) ?c)", "(< ?a 0)"),
        r("lt-cancel-add-right", "(< ?c (+ ?b ?c))", "(< 0 ?b)"),
        r("le-cancel-add-left", "(<= (+ ?a ?c) ?c)", "(<= ?a 0)"),
        r("le-cancel-add-right", "(<= ?c (+ ?b ?c))", "(<= 0 ?b)"),
        r("lt-cancel-mul", "(< (* ?c ?a) (* ?c ?b))", "(< ?a ?b)").when(Cond::Pos("c")),
        r("le-cancel-mul", "(<= (* ?c ?a) (* ?c ?b))", "(<= ?a ?b)").when(Cond::Pos("c")),
        r("eq-cancel-mul", "(== (* ?c ?a) (* ?c ?b))", "(== ?a ?b)").when(Cond::NonZero("c")),
        r("ne-cancel-mul", "(!= (* ?c ?a) (* ?c ?b))", "(!= ?a ?b)").when(Cond::NonZero("c")),
        r("eq-unit-factor", "(== (* ?a ?b) ?b)", "(== ?a 1)").when(Cond::NonZero("b")),
        r("ne-unit-factor", "(!= (* ?a ?b) ?b)", "(!= ?a 1)").when(Cond::NonZero("b")),
    ]
}

/// Relations solved for a symbol: constants moved across, constant factors
/// divided out, integer strictness.
fn solved() -> Vec<RuleSpec> {
    vec![
        // Move a constant summand across: x + c OP d  →  x OP d - c.
        shift("lt-shift", "(< (+ ?x ?c) ?d)", "(< ?x ?k)"),
        shift("lt-shift-right", "(< ?d (+ ?x ?c))", "(< ?k ?x)"),
        shift("le-shift", "(<= (+ ?x ?c) ?d)", "(<= ?x ?k)"),
        shift("le-shift-right", "(<= ?d (+ ?x ?c))", "(<= ?k ?x)"),
        shift("eq-shift", "(== (+ ?x ?c) ?d)", "(== ?x ?k)"),
        shift("ne-shift", "(!= (+ ?x ?c) ?d)", "(!= ?x ?k)"),
        // Solve c*x OP d for a constant c > 0: x < ceil(d/c), x <= floor(d/c).
        r("lt-scale", "(< (* ?c ?x) ?d)", "(< ?x ?k)")
            .when(cd(Cond::Pos("c")))
            .computing(Compute {
                out: "k",
                args: &["d", "c"],
                f: |a| ceil_div(a[0], a[1]),
            }),
        r("le-scale", "(<= (* ?c ?x) ?d)", "(<= ?x ?k)")
            .when(cd(Cond::Pos("c")))
            .computing(Compute {
                out: "k",
                args: &["d", "c"],
                f: |a| floor_div(a[0], a[1]),
            }),
        r("lt-scale-right", "(< ?d (* ?c ?x))", "(< ?k ?x)")
            .when(cd(Cond::Pos("c")))
            .computing(Compute {
                out: "k",
                args: &["d", "c"],
                f: |a| floor_div(a[0], a[1]),
            }),
        r("le-scale-right", "(<= ?d (* ?c ?x))", "(<= ?k ?x)")
            .when(cd(Cond::Pos("c")))
            .computing(Compute {
                out: "k",
                args: &["d", "c"],
                f: |a| ceil_div(a[0], a[1]),
            }),
        r("eq-scale", "(== (* ?c ?x) ?d)", "(== ?x ?k)")
            .when(cd(Cond::NonZero("c")))
            .computing(Compute {
                out: "k",
                args: &["d", "c"],
                f: |a| (a[1] != 0 && a[0] % a[1] == 0).then(|| a[0] / a[1]),
            }),
        r("eq-scale-never", "(== (* ?c ?x) ?d)", "False")
            .when(cd(Cond::NonZero("c")))
            .computing(Compute {
                out: "unused",
                args: &["d", "c"],
                f: |a| (a[1] != 0 && a[0] % a[1] != 0).then_some(0),
            }),
        // Integer strictness.
        r("lt-le", "(< ?a (+ ?b 1))", "(<= ?a ?b)"),
        r("le-lt", "(<= (+ ?a 1) ?b)", "(< ?a ?b)"),
    ]
}

/// Negation and the connectives.
fn logic() -> Vec<RuleSpec> {
    vec![
        // Negation.
        r("not-lt", "(not (< ?a ?b))", "(<= ?b ?a)"),
        r("not-le", "(not (<= ?a ?b))", "(< ?b ?a)"),
        r("not-eq", "(not (== ?a ?b))", "(!= ?a ?b)"),
        r("not-ne", "(not (!= ?a ?b))", "(== ?a ?b)"),
        b("not-not", "(not (not ?p))", "?p"),
        r("not-true", "(not True)", "False"),
        r("not-false", "(not False)", "True"),
        // Connectives.
        b("and-comm", "(and ?p ?q)", "(and ?q ?p)"),
        b("or-comm", "(or ?p ?q)", "(or ?q ?p)"),
        b("and-assoc", "(and ?p (and ?q ?r))", "(and (and ?p ?q) ?r)"),
        b("or-assoc", "(or ?p (or ?q ?r))", "(or (or ?p ?q) ?r)"),
        b("and-true", "(and ?p True)", "?p"),
        b("and-false", "(and ?p False)", "False"),
        b("or-true", "(or ?p True)", "True"),
        b("or-false", "(or ?p False)", "?p"),
        b("and-idem", "(and ?p ?p)", "?p"),
        b("or-idem", "(or ?p ?p)", "?p"),
        b("and-absorb", "(and ?p (or ?p ?q))", "?p"),
        b("or-absorb", "(or ?p (and ?p ?q))", "?p"),
        r(
            "and-factor",
            "(and (or ?p ?q) (or ?p ?r))",
            "(or ?p (and ?q ?r))",
        ),
        r(
            "or-factor",
            "(or (and ?p ?q) (and ?p ?r))",
            "(and ?p (or ?q ?r))",
        ),
        b("and-contradiction", "(and ?p (not ?p))", "False"),
        b("or-excluded-middle", "(or ?p (not ?p))", "True"),
        b("where-true", "(where True ?a ?b)", "?a"),
        b("where-false", "(where False ?a ?b)", "?b"),
        b("where-same", "(where ?p ?a ?a)", "?a"),
    ]
}
