//! The simplifier, specified as `input => output` under stated facts, like
//! egg's own tests; plus its limits, reports and explanations.

use std::time::Duration;
use symalias::env::{Env, SymbolDecl};
use symalias::expr::{parse, ExprPool};
use symalias::simplify::{simplify, Limits, SimplifyOptions, Stop};

/// `(name, min, max)` of each symbol; hints are the minimum.
type Syms<'a> = &'a [(&'a str, i64, Option<i64>)];

fn simp(
    syms: Syms,
    assumptions: &[&str],
    input: &str,
    opts: &SimplifyOptions,
) -> (String, symalias::simplify::Simplified) {
    let mut pool = ExprPool::new();
    let mut env = Env::new();
    for &(name, lo, hi) in syms {
        let decl = SymbolDecl {
            max: hi,
            ..SymbolDecl::new(name).hint(lo).min(lo)
        };
        env.declare(&mut pool, &decl).unwrap();
    }
    for a in assumptions {
        let f = parse(&mut pool, a).unwrap();
        env.assume(&mut pool, f).unwrap();
    }
    let e = parse(&mut pool, input).unwrap();
    let out = simplify(&mut pool, &env, e, opts);
    (pool.display(out.expr).to_string(), out)
}

fn check(syms: Syms, assumptions: &[&str], input: &str, goal: &str) {
    let (got, out) = simp(syms, assumptions, input, &SimplifyOptions::default());
    assert_eq!(
        got, goal,
        "{input} => {goal} (got {got}, stopped: {})",
        out.stop
    );
}

const POS: Syms = &[("x", 0, None), ("s0", 2, None), ("s1", 2, None)];

#[test]
fn remainder_and_quotient_of_small_values() {
    check(&[("x", 0, Some(7))], &[], "Mod(x, 8)", "x");
    check(&[("x", 0, Some(7))], &[], "x//8", "0");
    check(&[("x", 0, Some(7))], &[], "ModularIndexing(x, 1, 8)", "x");
    check(&[("x", -3, Some(7))], &[], "Mod(x, 8)", "Mod(x, 8)");
}

#[test]
fn loop_bounds_from_assumptions() {
    check(POS, &["x < s1"], "ModularIndexing(s0*s1 + x, 1, s1)", "x");
    check(POS, &["x < s1"], "(s0*s1 + x)//s1", "s0");
    check(POS, &[], "(s0*s1 + x)//s1", "s0 + ((x//s1))");
}

#[test]
fn divisibility_facts() {
    let s = &[("s", 8, None)];
    check(s, &["Eq(Mod(s, 8), 0)"], "Mod(s, 4)", "0");
    check(s, &["Eq(Mod(s, 8), 0)"], "4*(s//4)", "s");
    check(POS, &[], "Mod(6*s0 + 4, 2)", "0");
    check(POS, &[], "(4*x + 2)//2", "2*x + 1");
    check(POS, &[], "CleanDiv(s0*s1, s1)", "s0");
}

#[test]
fn max_and_min_decided_by_bounds() {
    check(&[("x", 0, Some(5))], &[], "Min(x, 5)", "x");
    check(POS, &[], "Max(1, s0//2)", "(s0//2)");
    check(POS, &[], "Max(1, s0 - 1)", "s0 - 1");
    check(POS, &[], "Max(s0, s0 + s1)", "s0 + s1");
    check(POS, &[], "Min(s0, s1)", "Min(s0, s1)");
}

#[test]
fn relations_decided_or_solved() {
    check(POS, &[], "s0 >= 2", "True");
    check(POS, &[], "Eq(s0, 1)", "False");
    check(&[("q", 0, Some(6))], &[], "13*q < 7", "q < 1");
    check(&[("s0", 3, None)], &[], "Ne(s0 - 2, 1)", "Ne(s0, 3)");
    check(POS, &[], "s0 + s1 < s1 + 5", "s0 < 5");
    check(POS, &["x < s0"], "(x < s0) & (s1 > 1)", "True");
    // Like terms of the two sides cancel; the rest is decided by bounds.
    check(
        &[("s53", 9, None)],
        &[],
        "(((s53 - 1)//4)) >= 6*(((s53 - 1)//4))",
        "False",
    );
    check(POS, &[], "s0 < s0**2", "True");
    check(POS, &[], "s0*s1 >= s1", "True");
}

#[test]
fn digits_of_a_mixed_radix_index() {
    check(POS, &[], "Ne(Mod(s0, s1*s0), 0)", "True");
    check(
        POS,
        &["x < 4*s0"],
        "Mod(x, 4) + 4*ModularIndexing(x, 4, s0)",
        "x",
    );
    check(
        POS,
        &[],
        "Mod(x, 4) + 4*ModularIndexing(x, 4, s0)",
        "Mod(x, 4*s0)",
    );
}

#[test]
fn factoring_and_cancellation() {
    check(POS, &[], "2*s0*s1 + 6*s0", "2*s0*(s1 + 3)");
    check(POS, &[], "s0*(s1 + 1) - s0", "s0*s1");
    check(
        POS,
        &[],
        "s1*(s0 + 5)*(x - 1) + (s0 + 5)*(s1 - 1) + 1",
        "-s0 + s1*x*(s0 + 5) - 4",
    );
}

#[test]
fn floats_are_left_alone() {
    check(POS, &[], "ToFloat(s0) + 0.5", "ToFloat(s0) + 0.5");
    check(
        POS,
        &[],
        "TruncToInt(ToFloat(s0)*2.0) + Mod(x, 1)",
        "TruncToInt(ToFloat(s0)*2.0)",
    );
}

#[test]
fn never_larger_and_unchanged_when_nothing_is_smaller() {
    let (got, out) = simp(POS, &[], "s0*s1 + 3", &SimplifyOptions::default());
    assert_eq!(got, "s0*s1 + 3");
    assert_eq!(out.size_in, out.size_out);
    let (_, out) = simp(POS, &[], "s0", &SimplifyOptions::default());
    assert_eq!(out.stop, Stop::Trivial);
}

#[test]
fn limits_give_the_best_expression_so_far() {
    let input = "s1*(s0 + 5)*(x - 1) + (s0 + 5)*(s1 - 1) + Max(1, s0//2) + Mod(4*x + 2, 2)";
    let tight = [
        Limits {
            iterations: 0,
            nodes: 10_000,
            time: Duration::from_secs(1),
            ring_iterations: 50,
        },
        Limits {
            iterations: 1,
            nodes: 10_000,
            time: Duration::from_secs(1),
            ring_iterations: 50,
        },
        Limits {
            iterations: 50,
            nodes: 5,
            time: Duration::from_secs(1),
            ring_iterations: 50,
        },
        Limits {
            iterations: 50,
            nodes: 10_000,
            time: Duration::ZERO,
            ring_iterations: 50,
        },
    ];
    let (best, full) = simp(POS, &[], input, &SimplifyOptions::default());
    for limits in tight {
        let opts = SimplifyOptions {
            limits,
            explain: false,
        };
        let (got, out) = simp(POS, &[], input, &opts);
        assert!(out.size_out <= out.size_in, "{limits:?}");
        assert!(
            matches!(
                out.stop,
                Stop::IterationLimit | Stop::NodeLimit | Stop::TimeLimit
            ),
            "{limits:?}: {}",
            out.stop
        );
        assert!(
            out.size_out >= full.size_out,
            "{limits:?}: {got} beats {best}"
        );
    }
}

#[test]
fn reports_iterations_and_explains_the_chain() {
    let opts = SimplifyOptions {
        explain: true,
        ..Default::default()
    };
    let (got, out) = simp(
        &[("x", 0, Some(7))],
        &[],
        "ModularIndexing(x, 1, 8) + 0*x",
        &opts,
    );
    assert_eq!(got, "x");
    assert!(!out.iterations.is_empty());
    assert!(out
        .iterations
        .iter()
        .any(|it| it.applied.iter().any(|(r, _)| r == "mi-one")));
    let chain = out.explanation.expect("explanation");
    let steps: Vec<&str> = chain.lines().collect();
    assert_eq!(steps.first().copied(), Some("(mi x 1 8)"));
    assert!(chain.contains("Rewrite=> mi-one"), "{chain}");
    assert!(chain.contains("Rewrite=> mod-small"), "{chain}");
}
