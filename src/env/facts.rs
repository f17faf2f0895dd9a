//! Facts learned from assumptions: bounds on a single symbol and congruences.
//!
//! Only shapes that are certainly implied are used: a conjunction's parts,
//! `c*s + k OP 0` (after moving everything to one side) with a constant `c`,
//! and `Eq(Mod(s, m), r)`. Anything else is kept as an assumption only.

use super::{Env, Interval};
use crate::expr::{arith, BinOp, ExprId, ExprPool, Node, SymbolId};

/// `value ≡ residue (mod modulus)`, with `modulus >= 1` and `0 <= residue < modulus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Congruence {
    /// The modulus.
    pub modulus: i64,
    /// The residue.
    pub residue: i64,
}

pub(super) fn learn(env: &mut Env, pool: &mut ExprPool, a: ExprId) {
    match pool.node(a).clone() {
        Node::And(xs) => {
            for x in xs.iter() {
                learn(env, pool, *x);
            }
        }
        Node::Binary(op, [l, r]) if op.is_relation() => {
            if let Some((s, m, res)) = congruence(pool, op, l, r) {
                env.add_congruence(
                    s,
                    Congruence {
                        modulus: m,
                        residue: res,
                    },
                );
                return;
            }
            let d = pool.sub(l, r);
            if let Some((c, s, k)) = linear(pool, d) {
                if let Some(iv) = bound(op, c, k) {
                    env.narrow(s, iv);
                }
            }
        }
        _ => {}
    }
}

/// `Eq(Mod(s, m), r)` or `Eq(r, Mod(s, m))` with constants `m >= 1`, `r`.
fn congruence(pool: &ExprPool, op: BinOp, l: ExprId, r: ExprId) -> Option<(SymbolId, i64, i64)> {
    if op != BinOp::Eq {
        return None;
    }
    let (m_expr, rv) = match (pool.as_int(l), pool.as_int(r)) {
        (None, Some(v)) => (l, v),
        (Some(v), None) => (r, v),
        _ => return None,
    };
    let Node::Binary(BinOp::Mod | BinOp::PythonMod, [x, m]) = pool.node(m_expr) else {
        return None;
    };
    let (Node::Sym(s), Some(m)) = (pool.node(*x), pool.as_int(*m)) else {
        return None;
    };
    (m >= 1 && (0..m).contains(&rv)).then_some((*s, m, rv))
}

/// `d` as `c*s + k` with constants `c != 0`, `k`.
fn linear(pool: &ExprPool, d: ExprId) -> Option<(i64, SymbolId, i64)> {
    let term = |t: ExprId| -> Option<(i64, SymbolId)> {
        match pool.node(t) {
            Node::Sym(s) => Some((1, *s)),
            Node::Mul(xs) if xs.len() == 2 => match (pool.as_int(xs[0]), pool.node(xs[1])) {
                (Some(c), Node::Sym(s)) => Some((c, *s)),
                _ => None,
            },
            _ => None,
        }
    };
    match pool.node(d) {
        Node::Add(xs) if xs.len() == 2 => {
            let k = pool.as_int(xs[1])?;
            let (c, s) = term(xs[0])?;
            Some((c, s, k))
        }
        _ => term(d).map(|(c, s)| (c, s, 0)),
    }
}

/// The values of `s` with `c*s + k OP 0`.
fn bound(op: BinOp, c: i64, k: i64) -> Option<Interval> {
    let (c, k) = (c as i128, k as i128);
    let fd = |a: i128, b: i128| arith::floordiv(a, b).ok();
    let cd = |a: i128, b: i128| arith::ceildiv(a, b).ok();
    // Normalise to c > 0 by flipping the relation.
    let (c, k, op) = if c < 0 {
        let flipped = match op {
            BinOp::Lt => BinOp::Gt,
            BinOp::Le => BinOp::Ge,
            BinOp::Gt => BinOp::Lt,
            BinOp::Ge => BinOp::Le,
            other => other,
        };
        (-c, -k, flipped)
    } else {
        (c, k, op)
    };
    // c*s + k OP 0  <=>  s OP -k/c
    Some(match op {
        BinOp::Lt => Interval::new(None, Some(cd(-k, c)? - 1)),
        BinOp::Le => Interval::new(None, Some(fd(-k, c)?)),
        BinOp::Gt => Interval::new(Some(fd(-k, c)? + 1), None),
        BinOp::Ge => Interval::new(Some(cd(-k, c)?), None),
        BinOp::Eq => {
            if (-k) % c != 0 {
                return None; // never true; the hint check would have failed
            }
            Interval::point(-k / c)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_bounds_match_enumeration() {
        for op in [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq] {
            for c in [-3i64, -2, -1, 1, 2, 3] {
                for k in -7i64..=7 {
                    let Some(iv) = bound(op, c, k) else { continue };
                    for s in -20i128..=20 {
                        let v = c as i128 * s + k as i128;
                        let holds = match op {
                            BinOp::Lt => v < 0,
                            BinOp::Le => v <= 0,
                            BinOp::Gt => v > 0,
                            BinOp::Ge => v >= 0,
                            _ => v == 0,
                        };
                        assert_eq!(iv.contains(s), holds, "{c}*s + {k} {op:?} 0 at s={s}: {iv}");
                    }
                }
            }
        }
    }
}
