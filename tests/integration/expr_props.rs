//! Property tests of the expression layer against an independent reference:
//! random integer expressions are rendered as fully parenthesised text, parsed,
//! and checked against a Python-semantics evaluator written here in `i128`.
//!
//! * canonicalisation (folding, flattening, collecting, sorting) keeps values;
//! * constant-only expressions fold to the constant evaluation gives;
//! * printing and re-parsing gives the same canonical expression;
//! * interval evaluation contains every value in the symbols' ranges;
//! * simplification under random ranges (and an assumption) keeps the value at
//!   every point of the box where the input is defined, and never grows.

use proptest::prelude::*;
use symalias::env::{Env, SymbolDecl};
use symalias::expr::{parse, parse_ast, ExprPool, Node, Value};

const SYMS: [&str; 3] = ["s0", "s1", "u2"];

#[derive(Clone, Debug)]
enum T {
    Int(i64),
    Sym(usize),
    Add(Box<T>, Box<T>),
    Sub(Box<T>, Box<T>),
    Mul(Box<T>, Box<T>),
    Neg(Box<T>),
    FloorDiv(Box<T>, Box<T>),
    Mod(Box<T>, Box<T>),
    CeilDiv(Box<T>, Box<T>),
    Pow(Box<T>, u32),
    Max(Box<T>, Box<T>, Box<T>),
    Min(Box<T>, Box<T>),
    Abs(Box<T>),
    ModIdx(Box<T>, Box<T>, Box<T>),
    Where(Box<T>, Box<T>, Box<T>, Box<T>),
}

fn render(t: &T) -> String {
    use T::*;
    match t {
        Int(v) if *v < 0 => format!("({v})"),
        Int(v) => v.to_string(),
        Sym(i) => SYMS[*i].to_string(),
        Add(a, b) => format!("({} + {})", render(a), render(b)),
        Sub(a, b) => format!("({} - {})", render(a), render(b)),
        Mul(a, b) => format!("({}*{})", render(a), render(b)),
        Neg(a) => format!("(-{})", render(a)),
        FloorDiv(a, b) => format!("({}//{})", render(a), render(b)),
        Mod(a, b) => format!("Mod({}, {})", render(a), render(b)),
        CeilDiv(a, b) => format!("CeilDiv({}, {})", render(a), render(b)),
        Pow(a, k) => format!("({}**{k})", render(a)),
        Max(a, b, c) => format!("Max({}, {}, {})", render(a), render(b), render(c)),
        Min(a, b) => format!("Min({}, {})", render(a), render(b)),
        Abs(a) => format!("Abs({})", render(a)),
        ModIdx(a, b, c) => format!(
            "ModularIndexing({}, {}, {})",
            render(a),
            render(b),
            render(c)
        ),
        Where(l, r, a, b) => format!(
            "Where({} < {}, {}, {})",
            render(l),
            render(r),
            render(a),
            render(b)
        ),
    }
}

/// Python semantics, written independently of the engine. `None` = error.
/// `widest` records the largest magnitude of any intermediate value.
fn py(t: &T, at: &[i64; 3], widest: &mut i128) -> Option<i128> {
    use T::*;
    let fdiv = |a: i128, b: i128| -> Option<i128> {
        if b == 0 {
            None
        } else if b > 0 {
            Some(a.div_euclid(b))
        } else {
            Some((-a).div_euclid(-b))
        }
    };
    let v = match t {
        Int(v) => *v as i128,
        Sym(i) => at[*i] as i128,
        Add(a, b) => py(a, at, widest)?.checked_add(py(b, at, widest)?)?,
        Sub(a, b) => py(a, at, widest)?.checked_sub(py(b, at, widest)?)?,
        Mul(a, b) => py(a, at, widest)?.checked_mul(py(b, at, widest)?)?,
        Neg(a) => -py(a, at, widest)?,
        FloorDiv(a, b) => fdiv(py(a, at, widest)?, py(b, at, widest)?)?,
        Mod(a, b) => {
            let (x, y) = (py(a, at, widest)?, py(b, at, widest)?);
            x - y * fdiv(x, y)?
        }
        CeilDiv(a, b) => -fdiv(-py(a, at, widest)?, py(b, at, widest)?)?,
        Pow(a, k) => py(a, at, widest)?.checked_pow(*k)?,
        Max(a, b, c) => py(a, at, widest)?
            .max(py(b, at, widest)?)
            .max(py(c, at, widest)?),
        Min(a, b) => py(a, at, widest)?.min(py(b, at, widest)?),
        Abs(a) => py(a, at, widest)?.abs(),
        ModIdx(a, b, c) => {
            let q = fdiv(py(a, at, widest)?, py(b, at, widest)?)?;
            let m = py(c, at, widest)?;
            q - m * fdiv(q, m)?
        }
        Where(l, r, a, b) => {
            let (x, y) = (py(l, at, widest)?, py(r, at, widest)?);
            // Evaluate both branches: the engine is lazy, the reference eager,
            // so the reference succeeds only where the engine must.
            let (p, q) = (py(a, at, widest)?, py(b, at, widest)?);
            if x < y {
                p
            } else {
                q
            }
        }
    };
    *widest = (*widest).max(v.abs());
    Some(v)
}

fn tree(with_syms: bool) -> impl Strategy<Value = T> {
    let leaf = if with_syms {
        prop_oneof![
            (-12i64..=12).prop_map(T::Int),
            (0usize..3).prop_map(T::Sym),
            (0usize..3).prop_map(T::Sym)
        ]
        .boxed()
    } else {
        (-40i64..=40).prop_map(T::Int).boxed()
    };
    leaf.prop_recursive(5, 48, 4, |inner| {
        let b = |x: T| Box::new(x);
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| T::Add(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| T::Sub(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| T::Mul(b(x), b(y))),
            inner.clone().prop_map(move |x| T::Neg(b(x))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| T::FloorDiv(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| T::Mod(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| T::CeilDiv(b(x), b(y))),
            (inner.clone(), 0u32..4).prop_map(move |(x, k)| T::Pow(b(x), k)),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(move |(x, y, z)| T::Max(
                b(x),
                b(y),
                b(z)
            )),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| T::Min(b(x), b(y))),
            inner.clone().prop_map(move |x| T::Abs(b(x))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(move |(x, y, z)| T::ModIdx(
                b(x),
                b(y),
                b(z)
            )),
            (inner.clone(), inner.clone(), inner.clone(), inner.clone())
                .prop_map(move |(l, r, x, y)| T::Where(b(l), b(r), b(x), b(y))),
        ]
    })
}

fn lookup<'a>(
    pool: &'a ExprPool,
    at: &'a [i64; 3],
) -> impl Fn(symalias::expr::SymbolId) -> Option<i64> + 'a {
    move |s| {
        SYMS.iter()
            .position(|n| *n == pool.symbol_name(s))
            .map(|i| at[i])
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn canonical_form_keeps_the_value(t in tree(true), points in prop::collection::vec(prop::array::uniform3(-30i64..=30), 6)) {
        let text = render(&t);
        let mut pool = ExprPool::new();
        let e = parse(&mut pool, &text).unwrap();
        let ast = parse_ast(&text).unwrap();
        for at in &points {
            let mut widest = 0;
            let Some(want) = py(&t, at, &mut widest) else { continue };
            let Ok(want) = i64::try_from(want) else { continue };
            let got = pool.eval(e, &lookup(&pool, at));
            prop_assert_eq!(got.clone().ok(), Some(Value::Int(want)), "`{}` -> `{}` at {:?}: {:?}", text, pool.display(e), at, got);
            let by_name = |n: &str| SYMS.iter().position(|s| *s == n).map(|i| at[i]);
            prop_assert_eq!(crate::common::ast_eval::eval_ast(&ast, &by_name).ok(), Some(symalias::expr::arith::Wide::Int(want as i128)));
        }
    }

    #[test]
    fn constant_expressions_fold_to_their_value(t in tree(false)) {
        let text = render(&t);
        let mut pool = ExprPool::new();
        let e = parse(&mut pool, &text).unwrap();
        let mut widest = 0;
        let want = py(&t, &[0; 3], &mut widest);
        match want {
            Some(v) if widest <= i64::MAX as i128 => {
                prop_assert_eq!(pool.node(e), &Node::Int(v as i64), "`{}` folded to `{}`", text, pool.display(e));
            }
            Some(v) => {
                // Intermediates beyond i64 are kept symbolic, never wrapped.
                let got = pool.eval(e, &|_| None);
                if let Ok(v) = i64::try_from(v) {
                    prop_assert_eq!(got.ok(), Some(Value::Int(v)));
                } else {
                    prop_assert!(got.is_err(), "`{}` must overflow", text);
                }
            }
            None => {
                // Errors stay errors unless folding removed the failing part
                // (0*(x//0) == 0, as in SymPy); a value is never invented
                // where the reference overflowed a final i64.
                if let Ok(Value::Int(_)) = pool.eval(e, &|_| None) {
                    prop_assert!(widest <= i64::MAX as i128 || matches!(pool.node(e), Node::Int(_)));
                }
            }
        }
    }

    #[test]
    fn printing_round_trips(t in tree(true)) {
        let mut pool = ExprPool::new();
        let e = parse(&mut pool, &render(&t)).unwrap();
        let printed = pool.display(e).to_string();
        let e2 = parse(&mut pool, &printed).unwrap();
        prop_assert_eq!(e, e2, "`{}` re-parses as `{}`", printed, pool.display(e2));
    }

    #[test]
    fn intervals_contain_every_value(
        t in tree(true),
        ranges in prop::array::uniform3((-8i64..=8, 0i64..=10)),
        picks in prop::collection::vec(prop::array::uniform3(0u64..1000), 10),
    ) {
        let mut pool = ExprPool::new();
        let mut env = Env::new();
        for (i, (lo, w)) in ranges.iter().enumerate() {
            env.declare(&mut pool, &SymbolDecl::new(SYMS[i]).hint(*lo).min(*lo).max(lo + w)).unwrap();
        }
        let e = parse(&mut pool, &render(&t)).unwrap();
        let iv = env.interval(&pool, e);
        for p in &picks {
            let at = [0, 1, 2].map(|i| ranges[i].0 + (p[i] as i64) % (ranges[i].1 + 1));
            let got = pool.eval(e, &lookup(&pool, &at));
            if let Ok(Value::Int(v)) = got {
                prop_assert!(iv.contains(v as i128), "`{}` = {} at {:?} outside {}", pool.display(e), v, at, iv);
            }
        }
    }

}

fn simplify_cases() -> u32 {
    crate::common::env_count("SYMALIAS_SIMPLIFY_CASES", 1500)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: simplify_cases(), ..ProptestConfig::default() })]

    #[test]
    fn simplification_keeps_the_value_on_every_point_of_the_box(
        t in tree(true),
        ranges in prop::array::uniform3((-6i64..=8, 0i64..=5)),
        assume in prop::option::of((0usize..3, 0usize..3, -3i64..=3)),
    ) {
        use symalias::simplify::{simplify, SimplifyOptions};
        let mut pool = ExprPool::new();
        let mut env = Env::new();
        for (i, (lo, w)) in ranges.iter().enumerate() {
            env.declare(&mut pool, &SymbolDecl::new(SYMS[i]).hint(*lo).min(*lo).max(lo + w)).unwrap();
        }
        // An optional assumption `a <= b + k`, kept only when the hints satisfy it.
        let mut assumption = None;
        if let Some((a, b, k)) = assume {
            let text = format!("{} <= {} + ({k})", SYMS[a], SYMS[b]);
            let f = parse(&mut pool, &text).unwrap();
            if env.assume(&mut pool, f).is_ok() {
                assumption = Some(f);
            }
        }
        let e = parse(&mut pool, &render(&t)).unwrap();
        let out = simplify(&mut pool, &env, e, &SimplifyOptions::default());
        prop_assert!(out.size_out <= out.size_in);
        prop_assert_eq!(out.size_out, pool.tree_size(out.expr));
        for x in 0..=ranges[0].1 {
            for y in 0..=ranges[1].1 {
                for z in 0..=ranges[2].1 {
                    let at = [ranges[0].0 + x, ranges[1].0 + y, ranges[2].0 + z];
                    let look = lookup(&pool, &at);
                    if let Some(f) = assumption {
                        if pool.eval(f, &look) != Ok(Value::Bool(true)) {
                            continue;
                        }
                    }
                    let Ok(want) = pool.eval(e, &look) else { continue };
                    let got = pool.eval(out.expr, &look);
                    prop_assert!(
                        got.as_ref().is_ok_and(|g| g.same(want)),
                        "`{}` simplified to `{}`: at {:?} {} vs {:?}",
                        pool.display(e), pool.display(out.expr), at, want, got
                    );
                }
            }
        }
    }
}
