//! Guards: what must hold on a later call for the analysis to stay true.
//!
//! * [`model`]: the guard kinds and their PyTorch text form.
//! * [`check`]: the run-time checker on a concrete call (sort-and-sweep for the
//!   StorageOverlap partition).
//! * `compact_shape_guards`: a list of shape guards is a conjunction; bounds
//!   on one symbol (`7 < s1`, `8 < s1`, `s1 <= 43`) are merged into the
//!   tightest pair, identical conditions are listed once.

pub mod check;
pub mod model;
internal! { pub mod plan; }

pub use model::{Guard, GuardKind};

use crate::expr::{BinOp, ExprId, ExprPool, Node, SymbolId};

/// Merges single-symbol bounds of a conjunction of shape guards and drops
/// repeated conditions. The result holds exactly where all inputs hold.
pub(crate) fn compact_shape_guards(pool: &mut ExprPool, guards: &[ExprId]) -> Vec<ExprId> {
    let mut atoms: Vec<ExprId> = Vec::new();
    for &g in guards {
        match pool.node(g) {
            Node::And(xs) => atoms.extend(xs.iter().copied()),
            _ => atoms.push(g),
        }
    }
    // (symbol, lower, upper) in first-appearance order; inclusive bounds.
    let mut bounds: Vec<(SymbolId, Option<i64>, Option<i64>)> = Vec::new();
    let mut others: Vec<ExprId> = Vec::new();
    // Lists can be long (one guard per chain link): seen-set, not `contains`.
    let mut seen: hashbrown::HashSet<ExprId> = hashbrown::HashSet::new();
    let mut first_bound_at: Option<usize> = None;
    for a in atoms {
        match bound_of(pool, a) {
            Some((s, lo, hi)) => {
                first_bound_at.get_or_insert(others.len());
                match bounds.iter_mut().find(|b| b.0 == s) {
                    Some(b) => {
                        b.1 = max_opt(b.1, lo);
                        b.2 = min_opt(b.2, hi);
                    }
                    None => bounds.push((s, lo, hi)),
                }
            }
            None => {
                if seen.insert(a) {
                    others.push(a);
                }
            }
        }
    }
    let mut merged: Vec<ExprId> = Vec::new();
    for (s, lo, hi) in bounds {
        let x = pool.sym(s);
        let mut parts = Vec::new();
        if let Some(l) = lo {
            let l = pool.int(l);
            parts.push(pool.binary(BinOp::Le, l, x));
        }
        if let Some(h) = hi {
            let h = pool.int(h);
            parts.push(pool.binary(BinOp::Le, x, h));
        }
        merged.push(pool.and(&parts));
    }
    let at = first_bound_at.unwrap_or(0).min(others.len());
    let mut out = others[..at].to_vec();
    out.extend(merged);
    out.extend(&others[at..]);
    out
}

fn max_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) | (None, x) => x,
    }
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
    }
}

/// `c OP s` / `s OP c` as inclusive bounds on `s`.
fn bound_of(pool: &ExprPool, a: ExprId) -> Option<(SymbolId, Option<i64>, Option<i64>)> {
    let Node::Binary(op, [l, r]) = pool.node(a) else {
        return None;
    };
    let (op, l, r) = (*op, *l, *r);
    let (sym, c, sym_left) = match (pool.node(l), pool.node(r)) {
        (Node::Sym(s), Node::Int(c)) => (*s, *c, true),
        (Node::Int(c), Node::Sym(s)) => (*s, *c, false),
        _ => return None,
    };
    // Normalise to `s OP c`.
    let op = if sym_left {
        op
    } else {
        match op {
            BinOp::Lt => BinOp::Gt,
            BinOp::Le => BinOp::Ge,
            BinOp::Gt => BinOp::Lt,
            BinOp::Ge => BinOp::Le,
            o => o,
        }
    };
    Some(match op {
        BinOp::Lt => (sym, None, Some(c.checked_sub(1)?)),
        BinOp::Le => (sym, None, Some(c)),
        BinOp::Gt => (sym, Some(c.checked_add(1)?), None),
        BinOp::Ge => (sym, Some(c), None),
        BinOp::Eq => (sym, Some(c), Some(c)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::compact_shape_guards;
    use crate::expr::{parse, ExprPool};

    #[test]
    fn bounds_merge_and_repeats_go() {
        let mut pool = ExprPool::new();
        let gs: Vec<_> = [
            "8 < s1",
            "7 < s1",
            "(3 <= s1) & (s1 <= 43)",
            "s1 <= 21",
            "Eq(Mod(s1, 2), 0)",
        ]
        .iter()
        .map(|t| parse(&mut pool, t).unwrap())
        .collect();
        let out = compact_shape_guards(&mut pool, &gs);
        let text: Vec<String> = out.iter().map(|&g| pool.display(g).to_string()).collect();
        assert_eq!(text, vec!["(9 <= s1) & (s1 <= 21)", "Eq(Mod(s1, 2), 0)"]);
    }
}
