//! Every rewrite rule is checked on its own, independently of the e-graph:
//!
//! * exhaustively, over a box of values for its variables: wherever the
//!   pointwise side condition holds, the left side is defined exactly when the
//!   right side is, and then both are equal (Python semantics, evaluated here
//!   with the engine's reference arithmetic);
//! * with z3, for all integers (rules without a computed constant): no
//!   assignment satisfies the condition with both sides defined and different.
//!
//! A wrong rule fails this test (see `the_checker_rejects_wrong_rules`).

use egg::{ENodeOrVar, Id, PatternAst, RecExpr};
use hashbrown::HashMap;
use symalias::expr::arith::{ceildiv, floordiv, pymod};
use symalias::simplify::lang::Sym;
use symalias::simplify::rules::{all_rules, Compute, Cond, RuleSpec};
use symalias_solver::{Answer, Budget, Cmp, Formula, Query, Solver, Term};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Bool,
    Exponent,
}

/// Variables of a pattern with the kind their position demands.
fn var_kinds(ast: &PatternAst<Sym>, out: &mut Vec<(String, Kind)>) {
    let nodes = ast.as_ref();
    let mut kinds: Vec<Kind> = vec![Kind::Int; nodes.len()];
    // The root's kind comes from the caller; children from their parent.
    for i in (0..nodes.len()).rev() {
        if let ENodeOrVar::ENode(n) = &nodes[i] {
            let kids = egg::Language::children(n);
            for (j, &c) in kids.iter().enumerate() {
                let k = match n {
                    Sym::And(_) | Sym::Or(_) | Sym::Not(_) => Kind::Bool,
                    Sym::Where(_) if j == 0 => Kind::Bool,
                    Sym::Where(_) => kinds[i],
                    Sym::Pow(_) if j == 1 => Kind::Exponent,
                    _ => Kind::Int,
                };
                kinds[usize::from(c)] = k;
            }
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        if let ENodeOrVar::Var(v) = n {
            let name = v.to_string().trim_start_matches('?').to_string();
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, kinds[i]));
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    I(i128),
    B(bool),
}

/// Evaluates a pattern; `Err` = undefined (division by zero, bad exponent).
fn eval(
    ast: &PatternAst<Sym>,
    at: Id,
    vars: &HashMap<String, i128>,
    kinds: &HashMap<String, Kind>,
) -> Result<Val, ()> {
    let node = &ast[at];
    let i = |id: &Id| match eval(ast, *id, vars, kinds)? {
        Val::I(v) => Ok(v),
        Val::B(_) => Err(()),
    };
    let b = |id: &Id| match eval(ast, *id, vars, kinds)? {
        Val::B(v) => Ok(v),
        Val::I(_) => Err(()),
    };
    let n = match node {
        ENodeOrVar::Var(v) => {
            let name = v.to_string().trim_start_matches('?').to_string();
            let x = vars[&name];
            return Ok(if kinds.get(&name) == Some(&Kind::Bool) {
                Val::B(x == 1)
            } else {
                Val::I(x)
            });
        }
        ENodeOrVar::ENode(n) => n,
    };
    let fd = |a: i128, m: i128| floordiv(a, m).map_err(|_| ());
    let md = |a: i128, m: i128| pymod(a, m).map_err(|_| ());
    Ok(match n {
        Sym::Num(v) => Val::I(*v as i128),
        Sym::Bool(t) => Val::B(t.0),
        Sym::Var(_) | Sym::Opaque(_) => return Err(()),
        Sym::Add([x, y]) => Val::I(i(x)? + i(y)?),
        Sym::Mul([x, y]) => Val::I(i(x)? * i(y)?),
        Sym::Pow([x, k]) => {
            let k = u32::try_from(i(k)?).map_err(|_| ())?;
            Val::I(i(x)?.checked_pow(k).ok_or(())?)
        }
        Sym::FloorDiv([x, y]) | Sym::CleanDiv([x, y]) => Val::I(fd(i(x)?, i(y)?)?),
        Sym::CeilDiv([x, y]) => Val::I(ceildiv(i(x)?, i(y)?).map_err(|_| ())?),
        Sym::Mod([x, y]) | Sym::PythonMod([x, y]) => Val::I(md(i(x)?, i(y)?)?),
        Sym::ModularIndexing([x, d, m]) => Val::I(md(fd(i(x)?, i(d)?)?, i(m)?)?),
        Sym::Max([x, y]) => Val::I(i(x)?.max(i(y)?)),
        Sym::Min([x, y]) => Val::I(i(x)?.min(i(y)?)),
        Sym::Abs([x]) => Val::I(i(x)?.abs()),
        Sym::Eq([x, y]) => Val::B(i(x)? == i(y)?),
        Sym::Ne([x, y]) => Val::B(i(x)? != i(y)?),
        Sym::Lt([x, y]) => Val::B(i(x)? < i(y)?),
        Sym::Le([x, y]) => Val::B(i(x)? <= i(y)?),
        // Python's `and`/`or`/conditional are lazy.
        Sym::And([x, y]) => Val::B(b(x)? && b(y)?),
        Sym::Or([x, y]) => Val::B(b(x)? || b(y)?),
        Sym::Not([x]) => Val::B(!b(x)?),
        Sym::Where([c, x, y]) => {
            if b(c)? {
                eval(ast, *x, vars, kinds)?
            } else {
                eval(ast, *y, vars, kinds)?
            }
        }
    })
}

fn root(ast: &PatternAst<Sym>) -> Id {
    Id::from(ast.as_ref().len() - 1)
}

/// Exhaustive check over a box; returns the number of points where the rule applied.
fn check_exhaustive(spec: &RuleSpec) -> Result<usize, String> {
    let lhs: PatternAst<Sym> = spec.lhs.parse().map_err(|e| format!("{e:?}"))?;
    let rhs: PatternAst<Sym> = spec.rhs.parse().map_err(|e| format!("{e:?}"))?;
    let mut vars = Vec::new();
    var_kinds(&lhs, &mut vars);
    let kinds: HashMap<String, Kind> = vars.iter().cloned().collect();
    let mut rhs_kinds = kinds.clone();
    if let Some(c) = &spec.compute {
        rhs_kinds.insert(c.out.to_string(), Kind::Int);
    }
    let ints = vars.iter().filter(|v| v.1 == Kind::Int).count();
    let b: i128 = match ints {
        0 | 1 => 40,
        2 => 20,
        3 => 9,
        4 => 5,
        _ => 3,
    };
    let ranges: Vec<Vec<i128>> = vars
        .iter()
        .map(|(_, k)| match k {
            Kind::Int => (-b..=b).collect(),
            Kind::Bool => vec![0, 1],
            Kind::Exponent => (0..=6).collect(),
        })
        .collect();
    let mut idx = vec![0usize; vars.len()];
    let mut applied = 0;
    loop {
        let mut at: HashMap<String, i128> = vars
            .iter()
            .zip(&idx)
            .zip(&ranges)
            .map(|(((n, _), &i), r)| (n.clone(), r[i]))
            .collect();
        let cond_ok = spec
            .cond
            .as_ref()
            .is_none_or(|c| c.holds_at(&|v: &str| at[v]));
        let computed = match (&spec.compute, cond_ok) {
            (_, false) => None,
            (None, true) => Some(()),
            (Some(Compute { out, args, f }), true) => {
                let a: Vec<i128> = args.iter().map(|v| at[*v]).collect();
                f(&a).map(|k| {
                    at.insert(out.to_string(), k);
                })
            }
        };
        if computed.is_some() {
            let l = eval(&lhs, root(&lhs), &at, &kinds);
            let r = eval(&rhs, root(&rhs), &at, &rhs_kinds);
            if l != r {
                return Err(format!("at {at:?}: left {l:?}, right {r:?}"));
            }
            applied += 1;
        }
        // Next point of the box.
        let mut d = 0;
        loop {
            if d == idx.len() {
                return Ok(applied);
            }
            idx[d] += 1;
            if idx[d] < ranges[d].len() {
                break;
            }
            idx[d] = 0;
            d += 1;
        }
    }
}

enum Enc {
    T(Term),
    F(Formula),
}

fn encode(ast: &PatternAst<Sym>, at: Id, vars: &[(String, Kind)]) -> Option<Enc> {
    let t = |id: &Id| match encode(ast, *id, vars)? {
        Enc::T(t) => Some(t),
        Enc::F(_) => None,
    };
    let f = |id: &Id| match encode(ast, *id, vars)? {
        Enc::F(f) => Some(f),
        Enc::T(_) => None,
    };
    let neg = |x: Term| Term::Mul(vec![Term::Int(-1), x]);
    Some(match &ast[at] {
        ENodeOrVar::Var(v) => {
            let name = v.to_string().trim_start_matches('?').to_string();
            let i = vars.iter().position(|(n, _)| *n == name)? as u32;
            match vars[i as usize].1 {
                Kind::Bool => Enc::F(Formula::Cmp(Cmp::Eq, Term::Var(i), Term::Int(1))),
                _ => Enc::T(Term::Var(i)),
            }
        }
        ENodeOrVar::ENode(n) => match n {
            Sym::Num(v) => Enc::T(Term::Int(*v)),
            Sym::Bool(b) => Enc::F(if b.0 { Formula::True } else { Formula::False }),
            Sym::Var(_) | Sym::Opaque(_) => return None,
            Sym::Add([x, y]) => Enc::T(Term::Add(vec![t(x)?, t(y)?])),
            Sym::Mul([x, y]) => Enc::T(Term::Mul(vec![t(x)?, t(y)?])),
            Sym::Pow([x, k]) => {
                let ENodeOrVar::ENode(Sym::Num(k)) = &ast[*k] else {
                    return None; // a variable exponent: exhaustive check only
                };
                Enc::T(Term::Mul(vec![t(x)?; *k as usize]))
            }
            Sym::FloorDiv([x, y]) | Sym::CleanDiv([x, y]) => {
                Enc::T(Term::FloorDiv(Box::new(t(x)?), Box::new(t(y)?)))
            }
            Sym::CeilDiv([x, y]) => {
                Enc::T(neg(Term::FloorDiv(Box::new(neg(t(x)?)), Box::new(t(y)?))))
            }
            Sym::Mod([x, y]) | Sym::PythonMod([x, y]) => {
                Enc::T(Term::Mod(Box::new(t(x)?), Box::new(t(y)?)))
            }
            Sym::ModularIndexing([x, d, m]) => Enc::T(Term::Mod(
                Box::new(Term::FloorDiv(Box::new(t(x)?), Box::new(t(d)?))),
                Box::new(t(m)?),
            )),
            Sym::Max([x, y]) => Enc::T(Term::Max(vec![t(x)?, t(y)?])),
            Sym::Min([x, y]) => Enc::T(Term::Min(vec![t(x)?, t(y)?])),
            Sym::Abs([x]) => {
                let x = t(x)?;
                Enc::T(Term::Ite(
                    Box::new(Formula::Cmp(Cmp::Ge, x.clone(), Term::Int(0))),
                    Box::new(x.clone()),
                    Box::new(neg(x)),
                ))
            }
            Sym::Eq([x, y]) => Enc::F(Formula::Cmp(Cmp::Eq, t(x)?, t(y)?)),
            Sym::Ne([x, y]) => Enc::F(Formula::Cmp(Cmp::Ne, t(x)?, t(y)?)),
            Sym::Lt([x, y]) => Enc::F(Formula::Cmp(Cmp::Lt, t(x)?, t(y)?)),
            Sym::Le([x, y]) => Enc::F(Formula::Cmp(Cmp::Le, t(x)?, t(y)?)),
            Sym::And([x, y]) => Enc::F(Formula::And(vec![f(x)?, f(y)?])),
            Sym::Or([x, y]) => Enc::F(Formula::Or(vec![f(x)?, f(y)?])),
            Sym::Not([x]) => Enc::F(Formula::Not(Box::new(f(x)?))),
            Sym::Where([c, x, y]) => match (encode(ast, *x, vars)?, encode(ast, *y, vars)?) {
                (Enc::T(a), Enc::T(b)) => {
                    Enc::T(Term::Ite(Box::new(f(c)?), Box::new(a), Box::new(b)))
                }
                (Enc::F(a), Enc::F(b)) => {
                    let c = f(c)?;
                    Enc::F(Formula::Or(vec![
                        Formula::And(vec![c.clone(), a]),
                        Formula::And(vec![Formula::Not(Box::new(c)), b]),
                    ]))
                }
                _ => return None,
            },
        },
    })
}

fn cond_formula(c: &Cond, vars: &[(String, Kind)]) -> Option<Formula> {
    let v = |n: &str| Some(Term::Var(vars.iter().position(|(m, _)| m == n)? as u32));
    let cmp = |op, a: &str, b: Term| Some(Formula::Cmp(op, v(a)?, b));
    match c {
        Cond::NonNeg(x) => cmp(Cmp::Ge, x, Term::Int(0)),
        Cond::NonPos(x) => cmp(Cmp::Le, x, Term::Int(0)),
        Cond::Pos(x) => cmp(Cmp::Gt, x, Term::Int(0)),
        Cond::NonZero(x) => cmp(Cmp::Ne, x, Term::Int(0)),
        Cond::Lt(x, y) => cmp(Cmp::Lt, x, v(y)?),
        Cond::Le(x, y) => cmp(Cmp::Le, x, v(y)?),
        Cond::Const(_) | Cond::NotConst(_) => Some(Formula::True),
        Cond::AtLeast(x, k) => cmp(Cmp::Ge, x, Term::Int(*k)),
        Cond::Divides(m, x) => Some(Formula::And(vec![
            cmp(Cmp::Gt, m, Term::Int(0))?,
            Formula::Cmp(
                Cmp::Eq,
                Term::Mod(Box::new(v(x)?), Box::new(v(m)?)),
                Term::Int(0),
            ),
        ])),
        Cond::All(cs) => Some(Formula::And(
            cs.iter()
                .map(|c| cond_formula(c, vars))
                .collect::<Option<_>>()?,
        )),
    }
}

/// z3 check for all integers; `None` when the rule is outside the encodable part.
fn check_z3(spec: &RuleSpec, solver: &mut Solver) -> Option<Answer> {
    if spec.compute.is_some() {
        return None;
    }
    let lhs: PatternAst<Sym> = spec.lhs.parse().ok()?;
    let rhs: PatternAst<Sym> = spec.rhs.parse().ok()?;
    let mut vars = Vec::new();
    var_kinds(&lhs, &mut vars);
    let mut assertions = Vec::new();
    for (i, (_, k)) in vars.iter().enumerate() {
        if *k == Kind::Bool {
            let x = Term::Var(i as u32);
            assertions.push(Formula::Cmp(Cmp::Ge, x.clone(), Term::Int(0)));
            assertions.push(Formula::Cmp(Cmp::Le, x, Term::Int(1)));
        }
    }
    if let Some(c) = &spec.cond {
        assertions.push(cond_formula(c, &vars)?);
    }
    let differ = match (
        encode(&lhs, root(&lhs), &vars)?,
        encode(&rhs, root(&rhs), &vars)?,
    ) {
        (Enc::T(a), Enc::T(b)) => Formula::Cmp(Cmp::Ne, a, b),
        (Enc::F(a), Enc::F(b)) => Formula::Or(vec![
            Formula::And(vec![a.clone(), Formula::Not(Box::new(b.clone()))]),
            Formula::And(vec![Formula::Not(Box::new(a)), b]),
        ]),
        _ => return None,
    };
    assertions.push(differ);
    let names: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
    Some(solver.check(&Query::new(&names, assertions)))
}

#[test]
fn every_rule_holds_exhaustively_and_by_z3() {
    let rules = all_rules();
    assert!(rules.len() > 80, "{} rules", rules.len());
    let mut names = hashbrown::HashSet::new();
    let mut solver = Solver::new(Budget {
        rlimit: 200_000,
        ..Budget::default()
    });
    let (mut proved, mut unknown, mut box_only) = (0, 0, 0);
    for spec in &rules {
        assert!(names.insert(spec.name), "duplicate rule name {}", spec.name);
        // The rule builds as an egg rewrite.
        let _ = spec.rewrite();
        let applied =
            check_exhaustive(spec).unwrap_or_else(|e| panic!("rule {} is wrong {e}", spec.name));
        assert!(
            applied > 0,
            "rule {}: its condition never holds in the box",
            spec.name
        );
        match check_z3(spec, &mut solver) {
            Some(Answer::Unsat) => proved += 1,
            Some(Answer::Sat(m)) => panic!("rule {}: z3 counterexample {m:?}", spec.name),
            Some(Answer::Unknown(_)) => unknown += 1,
            None => box_only += 1,
        }
    }
    eprintln!(
        "{} rules: all hold on their box; z3 proved {proved} for all integers, {unknown} unknown, {box_only} box only",
        rules.len()
    );
    assert!(proved * 10 >= rules.len() * 7, "z3 proved only {proved}");
}

#[test]
fn the_checker_rejects_wrong_rules() {
    use symalias::simplify::rules::RuleSpec;
    let wrong = [
        // Nested floor division needs positive divisors.
        (
            "nested",
            "(// (// ?x ?a) ?b)",
            "(// ?x (* ?a ?b))",
            Some(Cond::NonZero("a")),
        ),
        // x % m = x needs x < m as well.
        ("mod-small", "(mod ?x ?m)", "?x", Some(Cond::NonNeg("x"))),
        // Dropping a division needs a non-zero divisor (definedness).
        ("drop-div", "(// (* ?a ?m) ?m)", "?a", None),
        // Max is not a sum.
        ("max-add", "(max (+ ?a ?c) ?b)", "(+ (max ?a ?b) ?c)", None),
        // Strictness in the wrong direction.
        ("lt-le", "(< ?a ?b)", "(<= ?a ?b)", None),
    ];
    let mut solver = Solver::new(Budget {
        rlimit: 200_000,
        ..Budget::default()
    });
    for (name, lhs, rhs, cond) in wrong {
        let spec = RuleSpec {
            name,
            topic: "test",
            lhs,
            rhs,
            cond,
            compute: None,
        };
        assert!(
            check_exhaustive(&spec).is_err(),
            "{name} passed the box check"
        );
        if name != "drop-div" {
            let a = check_z3(&spec, &mut solver);
            assert!(matches!(a, Some(Answer::Sat(_))), "{name} passed z3: {a:?}");
        }
    }
}

#[allow(dead_code)]
fn _unused(_: RecExpr<Sym>) {}
