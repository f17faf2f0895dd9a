//! Division and remainder: `//` (floor), `CeilDiv`, `CleanDiv`, `Mod`/`PythonMod`
//! (sign of the divisor), `ModularIndexing(x, d, m) = (x // d) % m`, `Abs`.
//!
//! Side conditions, and why:
//! * A rule whose right side drops a division (`(a*m)//m → a`) needs `m != 0`:
//!   the left side is undefined at `m = 0`, the right side is not.
//! * `x % m → x` and `x // m → 0` need `0 <= x < m` (for negative `x` Python's
//!   remainder wraps around).
//! * Nested floor divisions merge only for positive divisors
//!   (`(x//a)//b = x//(a*b)` fails for `a = -1, b = 2, x = 1`).
//! * Rules that keep a division by the same divisor on both sides need no
//!   condition: both sides are undefined at `m = 0`.

use super::{rule, Compute, Cond, RuleSpec};

/// `c / d` when `d > 0` divides `c`.
fn exact_quotient(a: &[i128]) -> Option<i128> {
    let (c, d) = (a[0], a[1]);
    (d > 0 && c % d == 0).then(|| c / d)
}

pub(super) fn rules() -> Vec<RuleSpec> {
    let r = |name, lhs, rhs| rule("divmod", name, lhs, rhs);
    let below = |x: &'static str, m: &'static str| Cond::All(vec![Cond::NonNeg(x), Cond::Lt(x, m)]);
    vec![
        r("floordiv-one", "(// ?x 1)", "?x"),
        r("floordiv-minus-one", "(// ?x -1)", "(* -1 ?x)"),
        r("floordiv-small", "(// ?x ?m)", "0").when(below("x", "m")),
        r("floordiv-multiple", "(// (* ?a ?m) ?m)", "?a").when(Cond::NonZero("m")),
        r(
            "floordiv-split",
            "(// (+ (* ?a ?m) ?b) ?m)",
            "(+ ?a (// ?b ?m))",
        ),
        r("floordiv-nested", "(// (// ?x ?a) ?b)", "(// ?x (* ?a ?b))")
            .when(Cond::All(vec![Cond::Pos("a"), Cond::Pos("b")])),
        // (c*x) // (c*d) = x // d for c > 0.
        r("floordiv-cancel", "(// (* ?c ?x) (* ?c ?d))", "(// ?x ?d)").when(Cond::Pos("c")),
        r("floordiv-exact", "(* (// ?x ?m) ?m)", "?x").when(Cond::Divides("m", "x")),
        // With constants: (c*x + b) // d = (c/d)*x + b // d when d > 0 divides c.
        r(
            "floordiv-split-const",
            "(// (+ (* ?c ?x) ?b) ?d)",
            "(+ (* ?k ?x) (// ?b ?d))",
        )
        .when(Cond::All(vec![Cond::Const("c"), Cond::Const("d")]))
        .computing(Compute {
            out: "k",
            args: &["c", "d"],
            f: exact_quotient,
        }),
        r("floordiv-scale-const", "(// (* ?c ?x) ?d)", "(* ?k ?x)")
            .when(Cond::All(vec![Cond::Const("c"), Cond::Const("d")]))
            .computing(Compute {
                out: "k",
                args: &["c", "d"],
                f: exact_quotient,
            }),
        r(
            "mod-split-const",
            "(mod (+ (* ?c ?x) ?b) ?d)",
            "(mod ?b ?d)",
        )
        .when(Cond::All(vec![Cond::Const("c"), Cond::Const("d")]))
        .computing(Compute {
            out: "k",
            args: &["c", "d"],
            f: exact_quotient,
        }),
        r("cleandiv-floordiv", "(cleandiv ?x ?m)", "(// ?x ?m)"),
        r(
            "ceildiv-floordiv",
            "(ceildiv ?x ?m)",
            "(* -1 (// (* -1 ?x) ?m))",
        ),
        r(
            "floordiv-ceildiv",
            "(* -1 (// (* -1 ?x) ?m))",
            "(ceildiv ?x ?m)",
        ),
        r("pymod-mod", "(pymod ?x ?m)", "(mod ?x ?m)"),
        r("mod-one", "(mod ?x 1)", "0"),
        r("mod-small", "(mod ?x ?m)", "?x").when(below("x", "m")),
        r("mod-multiple", "(mod (* ?a ?m) ?m)", "0").when(Cond::NonZero("m")),
        r("mod-split", "(mod (+ (* ?a ?m) ?b) ?m)", "(mod ?b ?m)"),
        // 0 <= a < a*b when a > 0 and b >= 2.
        r("mod-of-multiple", "(mod ?a (* ?a ?b))", "?a")
            .when(Cond::All(vec![Cond::Pos("a"), Cond::AtLeast("b", 2)])),
        // x % m + m*((x // m) % n) = x % (m*n) for m, n > 0 (mixed radix digits).
        r(
            "mod-digits",
            "(+ (mod ?x ?m) (* ?m (mi ?x ?m ?n)))",
            "(mod ?x (* ?m ?n))",
        )
        .when(Cond::All(vec![Cond::Pos("m"), Cond::Pos("n")])),
        r("mod-mod", "(mod (mod ?x ?m) ?m)", "(mod ?x ?m)"),
        r("mod-divisible", "(mod ?x ?m)", "0").when(Cond::Divides("m", "x")),
        // m*(x//m) + x%m = x, defined on the right even where m = 0.
        r(
            "div-mod-identity",
            "(+ (* ?m (// ?x ?m)) (mod ?x ?m))",
            "?x",
        )
        .when(Cond::NonZero("m")),
        r("mi-one", "(mi ?x 1 ?m)", "(mod ?x ?m)"),
        r("mi-expand", "(mi ?x ?d ?m)", "(mod (// ?x ?d) ?m)"),
        r("mi-fold", "(mod (// ?x ?d) ?m)", "(mi ?x ?d ?m)"),
        r("abs-nonneg", "(abs ?x)", "?x").when(Cond::NonNeg("x")),
        r("abs-nonpos", "(abs ?x)", "(* -1 ?x)").when(Cond::NonPos("x")),
    ]
}
