//! The simplifier on every expression of the development corpora (`tests/data/`): the result equals
//! the input at the hints and at ≥ 100 random points that satisfy the ranges and
//! assumptions, and is never larger (tree size).

use crate::common::{corpus_lines, Rng};
use symalias::analysis::Scope as Loaded;
use symalias::env::{Env, Interval};
use symalias::expr::{BinOp, ExprId, ExprPool, Node, SymbolId, Value};
use symalias::io::{load_env, load_expr, ExprCase, ExprField, OverlapCase};
use symalias::simplify::{simplify, SimplifyOptions};

/// Points per expression that must satisfy ranges and assumptions.
const POINTS: usize = 100;

struct Checked {
    exprs: usize,
    smaller: usize,
    points: usize,
}

trait UpperFromAssumptions {
    fn interval_of_upper(&self, pool: &ExprPool, s: SymbolId, r: Interval) -> Interval;
}

impl UpperFromAssumptions for Env {
    /// Tightens the upper end of `s` by assumptions `s < rhs` / `s <= rhs` (loop bounds).
    fn interval_of_upper(&self, pool: &ExprPool, s: SymbolId, r: Interval) -> Interval {
        let mut hi = r.hi;
        for &a in self.assumptions() {
            if let Node::Binary(op @ (BinOp::Lt | BinOp::Le), [x, y]) = pool.node(a) {
                if *pool.node(*x) == Node::Sym(s) {
                    if let Some(h) = self.interval(pool, *y).hi {
                        let h = if *op == BinOp::Lt { h - 1 } else { h };
                        hi = Some(hi.map_or(h, |old| old.min(h)));
                    }
                }
            }
        }
        Interval::new(r.lo, hi)
    }
}

/// Random assignments inside the ranges that satisfy every assumption.
fn sample_points(loaded: &Loaded, rng: &mut Rng, want: usize) -> Vec<Vec<(SymbolId, i64)>> {
    let env = &loaded.env;
    let pool = &loaded.pool;
    let syms: Vec<SymbolId> = env.symbols().to_vec();
    // Per symbol a narrow box (around the hint's scale) and a wide one.
    let bounds: Vec<[(i64, i64); 2]> = syms
        .iter()
        .map(|&s| {
            let r = env.range(s);
            let hint = env.hint(s).unwrap_or(0);
            let lo = r.lo.map_or(hint.min(0) - 16, |l| l as i64);
            let r = env.interval_of_upper(pool, s, r);
            let narrow = r.hi.map_or(lo + 2 * (hint - lo).max(0) + 8, |h| h as i64);
            let wide = r.hi.map_or(lo.max(hint) * 3 + 16, |h| h as i64);
            [(lo, narrow.max(lo)), (lo, wide.max(lo))]
        })
        .collect();
    let mut out = Vec::new();
    for _ in 0..want * 200 {
        if out.len() == want {
            break;
        }
        let point: Vec<(SymbolId, i64)> = syms
            .iter()
            .zip(&bounds)
            .map(|(&s, b)| {
                let (lo, hi) = b[(rng.next_u64() % 4 == 0) as usize];
                (s, rng.range(lo, hi))
            })
            .collect();
        let look = |s: SymbolId| point.iter().find(|p| p.0 == s).map(|p| p.1);
        let ok = env
            .assumptions()
            .iter()
            .all(|&a| pool.eval(a, &look) == Ok(Value::Bool(true)));
        if ok {
            out.push(point);
        }
    }
    out
}

fn hints(env: &Env) -> Vec<(SymbolId, i64)> {
    env.symbols()
        .iter()
        .filter_map(|&s| env.hint(s).map(|h| (s, h)))
        .collect()
}

/// Simplifies `e` under `env` and checks it; returns whether it got smaller.
fn check(
    what: &str,
    loaded: &mut Loaded,
    env: &Env,
    e: ExprId,
    rng: &mut Rng,
    stats: &mut Checked,
) {
    let out = simplify(&mut loaded.pool, env, e, &SimplifyOptions::default());
    let pool: &ExprPool = &loaded.pool;
    assert!(
        out.size_out <= out.size_in,
        "{what}: result is larger: {} -> {}",
        pool.display(e),
        pool.display(out.expr)
    );
    assert_eq!(out.size_in, pool.tree_size(e), "{what}");
    assert_eq!(out.size_out, pool.tree_size(out.expr), "{what}");
    stats.exprs += 1;
    if out.size_out < out.size_in {
        stats.smaller += 1;
    }
    if out.expr == e {
        return;
    }
    let mut points = vec![hints(env)];
    let sampled = sample_points(loaded, rng, POINTS);
    assert!(
        sampled.len() >= POINTS || env.symbols().is_empty(),
        "{what}: only {} points satisfy the assumptions",
        sampled.len()
    );
    points.extend(sampled);
    for p in &points {
        let look = |s: SymbolId| p.iter().find(|q| q.0 == s).map(|q| q.1);
        let Ok(want) = pool.eval(e, &look) else {
            continue; // undefined input: nothing to preserve
        };
        let got = pool.eval(out.expr, &look);
        assert!(
            got.as_ref().is_ok_and(|g| g.same(want)),
            "{what}: {} simplified to {} differs at {:?}: {want} vs {got:?}",
            pool.display(e),
            pool.display(out.expr),
            p.iter()
                .map(|(s, v)| format!("{}={v}", pool.symbol_name(*s)))
                .collect::<Vec<_>>(),
        );
        stats.points += 1;
    }
}

#[test]
fn every_expression_of_the_expression_corpus_keeps_its_value_and_never_grows() {
    let mut rng = Rng(0x5151);
    let mut stats = Checked {
        exprs: 0,
        smaller: 0,
        points: 0,
    };
    for v in corpus_lines("exprs_dev.jsonl") {
        let case: ExprCase = serde_json::from_value(v).expect("case");
        let mut loaded = load_env(&case.symbols, &case.assumptions).expect("env");
        let e = load_expr(&mut loaded, "expr", &case.expr, false).expect("expr");
        let env = loaded.env.clone();
        check(&case.id, &mut loaded, &env, e, &mut rng, &mut stats);
    }
    eprintln!(
        "exprs_dev: {} expressions, {} smaller, {} points checked",
        stats.exprs, stats.smaller, stats.points
    );
    assert_eq!(stats.exprs, 2468);
    assert!(stats.smaller > 1000, "only {} got smaller", stats.smaller);
}

#[test]
fn every_expression_of_the_overlap_corpus_keeps_its_value_and_never_grows() {
    let mut rng = Rng(0x0e1a);
    let mut stats = Checked {
        exprs: 0,
        smaller: 0,
        points: 0,
    };
    for v in corpus_lines("overlap_dev.jsonl") {
        let case: OverlapCase = serde_json::from_value(v).expect("case");
        // Assumptions are simplified under the ranges alone (as the pipeline does).
        let mut ranges_only = load_env(&case.symbols, &[]).expect("env");
        for (i, a) in case.assumptions.iter().enumerate() {
            let field = ExprField::Text(a.clone());
            let e = load_expr(&mut ranges_only, "assumption", &field, false).expect("assumption");
            let env = ranges_only.env.clone();
            let what = format!("{} assumptions[{i}]", case.id);
            check(&what, &mut ranges_only, &env, e, &mut rng, &mut stats);
        }
        let mut loaded = load_env(&case.symbols, &case.assumptions).expect("env");
        let env = loaded.env.clone();
        for (t, tensor) in case.tensors.iter().enumerate() {
            let fields = tensor
                .sizes
                .iter()
                .chain(&tensor.strides)
                .chain(std::iter::once(&tensor.storage_offset));
            for (k, f) in fields.enumerate() {
                let e = load_expr(&mut loaded, "field", f, true).expect("field");
                let what = format!("{} tensors[{t}] field {k}", case.id);
                check(&what, &mut loaded, &env, e, &mut rng, &mut stats);
            }
        }
    }
    eprintln!(
        "overlap_dev: {} expressions, {} smaller, {} points checked",
        stats.exprs, stats.smaller, stats.points
    );
    assert!(stats.exprs > 5000);
}
