//! A total, structural order on expressions.
//!
//! The pool sorts the operands of commutative nodes with it, so the canonical
//! form of an expression does not depend on the order in which its parts were
//! created (handle numbers do). Symbols compare by name.

use super::node::{ExprId, Node};
use super::pool::ExprPool;
use std::cmp::Ordering;

fn rank(n: &Node) -> u8 {
    match n {
        Node::Int(_) => 0,
        Node::Float(_) => 1,
        Node::Bool(_) => 2,
        Node::Sym(_) => 3,
        Node::Pow(..) => 4,
        Node::Mul(_) => 5,
        Node::Add(_) => 6,
        Node::Unary(..) => 7,
        Node::Binary(..) => 8,
        Node::Ternary(..) => 9,
        Node::Max(_) => 10,
        Node::Min(_) => 11,
        Node::And(_) => 12,
        Node::Or(_) => 13,
    }
}

/// Compares two expressions of `pool` structurally.
pub fn cmp(pool: &ExprPool, a: ExprId, b: ExprId) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (na, nb) = (pool.node(a), pool.node(b));
    rank(na).cmp(&rank(nb)).then_with(|| match (na, nb) {
        (Node::Int(x), Node::Int(y)) => x.cmp(y),
        (Node::Float(x), Node::Float(y)) => f64::from_bits(*x).total_cmp(&f64::from_bits(*y)),
        (Node::Bool(x), Node::Bool(y)) => x.cmp(y),
        (Node::Sym(x), Node::Sym(y)) => pool
            .symbol_name(*x)
            .cmp(pool.symbol_name(*y))
            .then(x.cmp(y)),
        (Node::Pow(x, k), Node::Pow(y, l)) => cmp(pool, *x, *y).then(k.cmp(l)),
        (Node::Unary(o, _), Node::Unary(p, _)) if o != p => o.cmp(p),
        (Node::Binary(o, _), Node::Binary(p, _)) if o != p => o.cmp(p),
        (Node::Ternary(o, _), Node::Ternary(p, _)) if o != p => o.cmp(p),
        _ => cmp_slices(pool, na.children(), nb.children()),
    })
}

/// The factors of a term as `(base, exponent)` pairs, sorted by base.
fn monomial(pool: &ExprPool, t: ExprId) -> Vec<(ExprId, u32)> {
    let one = |f: ExprId| match pool.node(f) {
        Node::Pow(b, k) => (*b, *k),
        _ => (f, 1),
    };
    match pool.node(t) {
        Node::Mul(xs) => xs
            .iter()
            .filter(|&&f| !pool.node(f).is_const())
            .map(|&f| one(f))
            .collect(),
        _ => vec![one(t)],
    }
}

/// The order of the terms of a sum, as SymPy prints them: monomials in
/// descending lexicographic order over the generators (symbols by name, then
/// composite factors), ties broken structurally. `a` and `b` are terms without
/// their integer coefficient.
pub(crate) fn cmp_terms(pool: &ExprPool, a: ExprId, b: ExprId) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (ma, mb) = (monomial(pool, a), monomial(pool, b));
    let (mut i, mut j) = (0, 0);
    loop {
        match (ma.get(i), mb.get(j)) {
            (None, None) => break,
            // The term that still has a generator has the higher exponent on it.
            (Some(_), None) => return Ordering::Less,
            (None, Some(_)) => return Ordering::Greater,
            (Some(&(ga, ka)), Some(&(gb, kb))) => match cmp(pool, ga, gb) {
                Ordering::Less => return Ordering::Less,
                Ordering::Greater => return Ordering::Greater,
                Ordering::Equal => {
                    if ka != kb {
                        return kb.cmp(&ka);
                    }
                    i += 1;
                    j += 1;
                }
            },
        }
    }
    cmp(pool, a, b)
}

/// Lexicographic comparison of operand lists.
pub(crate) fn cmp_slices(pool: &ExprPool, xs: &[ExprId], ys: &[ExprId]) -> Ordering {
    for (x, y) in xs.iter().zip(ys) {
        let c = cmp(pool, *x, *y);
        if c != Ordering::Equal {
            return c;
        }
    }
    xs.len().cmp(&ys.len())
}
