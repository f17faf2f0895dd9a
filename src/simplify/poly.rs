//! Polynomial normal forms used as extra starting points ("seeds") of the
//! e-graph: the expanded form and the form with common factors pulled out of
//! every sum (SymPy's `factor_terms`), applied to every subterm.
//!
//! Both are ring identities (`a*(b + c) = a*b + a*c`, `g*a + g*b = g*(a + b)`),
//! so each seed is equal to the input at every point; it is added to the
//! e-graph in the input's class. Commutativity and associativity in the
//! e-graph would find these forms too, but only after many iterations: seeding
//! them keeps the runner's limits small.

use crate::expr::{BinOp, ExprId, ExprPool, Node, Ty};
use hashbrown::HashMap;

/// Largest number of terms an expansion may produce (else the node stays as is).
const MAX_TERMS: usize = 64;

/// Rebuilds `e` with new children through the pool's constructors.
fn with_children(pool: &mut ExprPool, e: ExprId, kids: &[ExprId]) -> ExprId {
    match pool.node(e).clone() {
        Node::Int(_) | Node::Float(_) | Node::Bool(_) | Node::Sym(_) => e,
        Node::Add(_) => pool.add(kids),
        Node::Mul(_) => pool.mul(kids),
        Node::Pow(_, k) => pool.pow(kids[0], k),
        Node::Max(_) => pool.max(kids),
        Node::Min(_) => pool.min(kids),
        Node::And(_) => pool.and(kids),
        Node::Or(_) => pool.or(kids),
        Node::Unary(op, _) => pool.unary(op, kids[0]),
        Node::Binary(op, _) => pool.binary(op, kids[0], kids[1]),
        Node::Ternary(op, _) => pool.ternary(op, kids[0], kids[1], kids[2]),
    }
}

/// `true` for float-valued terms and terms over floats (left alone).
fn touches_float(pool: &ExprPool, e: ExprId) -> bool {
    pool.ty(e) == Ty::Float
        || pool
            .node(e)
            .children()
            .iter()
            .any(|&c| pool.ty(c) == Ty::Float)
}

/// Applies `f` bottom-up to every subterm.
fn bottom_up(
    pool: &mut ExprPool,
    e: ExprId,
    memo: &mut HashMap<ExprId, ExprId>,
    f: &mut dyn FnMut(&mut ExprPool, ExprId) -> ExprId,
) -> ExprId {
    if let Some(&r) = memo.get(&e) {
        return r;
    }
    let r = if touches_float(pool, e) {
        e
    } else {
        let kids: Vec<ExprId> = pool.node(e).children().to_vec();
        let new: Vec<ExprId> = kids.iter().map(|&k| bottom_up(pool, k, memo, f)).collect();
        let rebuilt = if new == kids {
            e
        } else {
            with_children(pool, e, &new)
        };
        f(pool, rebuilt)
    };
    memo.insert(e, r);
    r
}

/// The summands of `e` (itself when it is not a sum).
fn summands(pool: &ExprPool, e: ExprId) -> Vec<ExprId> {
    match pool.node(e) {
        Node::Add(xs) => xs.to_vec(),
        _ => vec![e],
    }
}

/// Distributes products (and small powers) of integer sums over their terms.
pub(crate) fn expand(pool: &mut ExprPool, e: ExprId) -> ExprId {
    let mut memo = HashMap::new();
    bottom_up(pool, e, &mut memo, &mut |pool, x| {
        if pool.ty(x) != Ty::Int {
            return x;
        }
        let factors: Vec<ExprId> = match pool.node(x) {
            Node::Mul(xs) => xs.to_vec(),
            Node::Pow(b, k) if *k <= 4 && matches!(pool.node(*b), Node::Add(_)) => {
                vec![*b; *k as usize]
            }
            _ => return x,
        };
        if !factors
            .iter()
            .any(|&f| matches!(pool.node(f), Node::Add(_)))
        {
            return x;
        }
        let mut terms = vec![pool.int(1)];
        for f in factors {
            let parts = summands(pool, f);
            if terms.len() * parts.len() > MAX_TERMS {
                return x;
            }
            let mut next = Vec::with_capacity(terms.len() * parts.len());
            for &t in &terms {
                for &p in &parts {
                    next.push(pool.mul(&[t, p]));
                }
            }
            terms = next;
        }
        pool.add(&terms)
    })
}

/// A term as `coefficient * Π base**exponent`.
fn split_term(pool: &ExprPool, t: ExprId) -> (i64, Vec<(ExprId, u32)>) {
    let one = |x: ExprId| match pool.node(x) {
        Node::Pow(b, k) => (*b, *k),
        _ => (x, 1),
    };
    match pool.node(t) {
        Node::Int(c) => (*c, vec![]),
        Node::Mul(xs) => match pool.node(xs[0]) {
            Node::Int(c) => (*c, xs[1..].iter().map(|&x| one(x)).collect()),
            _ => (1, xs.iter().map(|&x| one(x)).collect()),
        },
        _ => (1, vec![one(t)]),
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(1)
}

/// A sum without its integer content, expanded first: `2*s0 + 2` is
/// `s0 + 1`. Anything else (not a sum, or content 1) is `e` as it is.
pub(crate) fn primitive_part(pool: &mut ExprPool, e: ExprId) -> ExprId {
    let x = expand(pool, e);
    let Node::Add(ts) = pool.node(x).clone() else {
        return e;
    };
    let g = ts.iter().fold(0, |g, &t| gcd(g, split_term(pool, t).0));
    if g <= 1 {
        return e;
    }
    let parts: Vec<ExprId> = ts
        .iter()
        .map(|&t| match pool.node(t).clone() {
            Node::Int(v) => pool.int(v / g),
            Node::Mul(fs) => {
                let k = pool.int(split_term(pool, t).0 / g);
                let mut rest = vec![k];
                rest.extend_from_slice(&fs[1..]);
                pool.mul(&rest)
            }
            _ => t,
        })
        .collect();
    pool.add(&parts)
}

/// Pulls the common factor (numeric content and shared powers) out of every sum.
pub(crate) fn factor_terms(pool: &mut ExprPool, e: ExprId) -> ExprId {
    let mut memo = HashMap::new();
    bottom_up(pool, e, &mut memo, &mut |pool, x| {
        let Node::Add(ts) = pool.node(x) else {
            return x;
        };
        if pool.ty(x) != Ty::Int {
            return x;
        }
        let terms: Vec<(i64, Vec<(ExprId, u32)>)> =
            ts.to_vec().iter().map(|&t| split_term(pool, t)).collect();
        let mut g = terms.iter().fold(0, |g, t| gcd(g, t.0));
        if g == 0 {
            return x;
        }
        if terms.iter().all(|t| t.0 < 0) {
            g = -g;
        }
        let mut common: Vec<(ExprId, u32)> = terms[0].1.clone();
        for (_, fs) in &terms[1..] {
            common = common
                .into_iter()
                .filter_map(|(b, k)| {
                    let other = fs.iter().find(|f| f.0 == b).map_or(0, |f| f.1);
                    let m = k.min(other);
                    (m > 0).then_some((b, m))
                })
                .collect();
        }
        if g == 1 && common.is_empty() {
            return x;
        }
        let mut rest = Vec::with_capacity(terms.len());
        for (c, fs) in &terms {
            let mut parts = vec![pool.int(c / g)];
            for &(b, k) in fs {
                let left = k - common.iter().find(|f| f.0 == b).map_or(0, |f| f.1);
                if left > 0 {
                    parts.push(pool.pow(b, left));
                }
            }
            rest.push(pool.mul(&parts));
        }
        let mut outer = vec![pool.int(g)];
        for &(b, k) in &common {
            outer.push(pool.pow(b, k));
        }
        outer.push(pool.add(&rest));
        pool.mul(&outer)
    })
}

/// Every relation `a OP b` as `0 OP b - a` (`a - b OP 0` for the others), so
/// that like terms of the two sides cancel in the pool and bounds can decide
/// what is left.
pub(crate) fn relations_as_differences(pool: &mut ExprPool, e: ExprId) -> ExprId {
    let mut memo = HashMap::new();
    bottom_up(pool, e, &mut memo, &mut |pool, x| {
        let Node::Binary(op, [a, b]) = pool.node(x).clone() else {
            return x;
        };
        if !op.is_relation() || pool.ty(a) != Ty::Int || pool.ty(b) != Ty::Int {
            return x;
        }
        let zero = pool.int(0);
        let (l, r) = match op {
            BinOp::Lt | BinOp::Le => (zero, pool.sub(b, a)),
            _ => (pool.sub(a, b), zero),
        };
        pool.binary(op, l, r)
    })
}

/// The distinct seeds of `e` (not including `e`).
pub fn seeds(pool: &mut ExprPool, e: ExprId) -> Vec<ExprId> {
    let expanded = expand(pool, e);
    let diffs = relations_as_differences(pool, expanded);
    let candidates = [
        expanded,
        factor_terms(pool, e),
        factor_terms(pool, expanded),
        factor_terms(pool, diffs),
    ];
    let mut out: Vec<ExprId> = Vec::new();
    for c in candidates {
        if c != e && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}
