//! The e-graph language: the integer and boolean operators of FORMATS.md §1 in
//! binary form, and conversions between pool expressions and [`RecExpr`]s.
//!
//! `Add`, `Mul`, `Max`, `Min`, `And`, `Or` are n-ary in the pool and binary here
//! (folded left in the pool's operand order). `a > b` and `a >= b` become
//! `b < a` and `b <= a`. Float-valued subterms, and integer terms that contain
//! them (`TruncToInt(x)`, a relation between floats), are [`Opaque`] leaves: the
//! simplifier keeps them as they are.

use crate::expr::{BinOp, ExprId, ExprPool, Node, SymbolId, TernOp, Ty, UnOp};
use egg::{define_language, Id, RecExpr};
use std::fmt;
use std::str::FromStr;

/// A truth value leaf, written `True` / `False` as in the expression text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Truth(pub bool);

impl fmt::Display for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0 { "True" } else { "False" })
    }
}

impl FromStr for Truth {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "True" => Ok(Truth(true)),
            "False" => Ok(Truth(false)),
            _ => Err(()),
        }
    }
}

/// A pool expression the simplifier does not look into (written `#<index>`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Opaque(pub u32);

impl fmt::Display for Opaque {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

impl FromStr for Opaque {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        s.strip_prefix('#')
            .and_then(|d| d.parse().ok())
            .map(Opaque)
            .ok_or(())
    }
}

define_language! {
    /// The simplifier's language (s-expressions in rule files). The operators
    /// are those of FORMATS.md §1: `+ * pow` (ring), `// ceildiv cleandiv mod
    /// pymod mi` (division, `mi` = ModularIndexing), `max min abs`, `== != < <=`,
    /// `and or not where`; leaves are numbers, `True`/`False`, symbols and
    /// opaque pool handles `#n`.
    #[allow(missing_docs)]
    pub enum Sym {
        "+" = Add([Id; 2]),
        "*" = Mul([Id; 2]),
        "pow" = Pow([Id; 2]),
        "//" = FloorDiv([Id; 2]),
        "ceildiv" = CeilDiv([Id; 2]),
        "cleandiv" = CleanDiv([Id; 2]),
        "mod" = Mod([Id; 2]),
        "pymod" = PythonMod([Id; 2]),
        "mi" = ModularIndexing([Id; 3]),
        "max" = Max([Id; 2]),
        "min" = Min([Id; 2]),
        "abs" = Abs([Id; 1]),
        "==" = Eq([Id; 2]),
        "!=" = Ne([Id; 2]),
        "<" = Lt([Id; 2]),
        "<=" = Le([Id; 2]),
        "and" = And([Id; 2]),
        "or" = Or([Id; 2]),
        "not" = Not([Id; 1]),
        "where" = Where([Id; 3]),
        Num(i64),
        Bool(Truth),
        Opaque(Opaque),
        Var(egg::Symbol),
    }
}

impl Sym {
    /// The type of the values of this node (`Opaque` leaves are looked up by the caller).
#[cfg(any(test, feature = "internals"))]
    pub fn ty(&self) -> Option<Ty> {
        Some(match self {
            Sym::Eq(_)
            | Sym::Ne(_)
            | Sym::Lt(_)
            | Sym::Le(_)
            | Sym::And(_)
            | Sym::Or(_)
            | Sym::Not(_)
            | Sym::Bool(_) => Ty::Bool,
            Sym::Opaque(_) => return None,
            _ => Ty::Int,
        })
    }
}

/// `true` when the simplifier must treat `e` as an opaque leaf.
fn is_opaque(pool: &ExprPool, e: ExprId) -> bool {
    if pool.ty(e) == Ty::Float {
        return true;
    }
    match pool.node(e) {
        Node::Unary(UnOp::ToFloat | UnOp::TruncToInt, _) => true,
        Node::Binary(BinOp::FloatTrueDiv | BinOp::IntTrueDiv | BinOp::FloatPow, _) => true,
        n => n.children().iter().any(|&c| pool.ty(c) == Ty::Float),
    }
}

/// A pool symbol's name inside egg: `v<index>`, not its own name. egg
/// interns names for the life of the process, so a service answering
/// queries with ever new symbol names (a C caller's, 10 KB each) grew
/// without bound; indices are reused by every pool (at most as many names
/// as the largest pool has symbols).
pub(crate) fn var_name(s: SymbolId) -> egg::Symbol {
    egg::Symbol::from(format!("v{}", s.index()))
}

/// The pool symbol behind an egg name made by [`var_name`].
pub(crate) fn var_symbol(v: egg::Symbol) -> Option<SymbolId> {
    v.as_str().strip_prefix('v')?.parse::<u32>().ok().map(SymbolId)
}

/// Text egg printed (an explanation) with each [`var_name`] replaced by
/// the pool's name of the symbol.
pub(crate) fn with_pool_names(pool: &ExprPool, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = rest.find('v') {
        // A name starts after a delimiter and is `v` and digits up to one.
        let start_ok = k == 0 || matches!(rest.as_bytes()[k - 1], b' ' | b'(' | b'\n');
        let digits = rest[k + 1..].bytes().take_while(u8::is_ascii_digit).count();
        let end = k + 1 + digits;
        let end_ok = end == rest.len() || matches!(rest.as_bytes()[end], b' ' | b')' | b'\n');
        out.push_str(&rest[..k]);
        match rest[k + 1..end].parse::<u32>() {
            Ok(i) if start_ok && end_ok && digits > 0 && (i as usize) < pool.symbol_count() => {
                out.push_str(pool.symbol_name(SymbolId(i)));
            }
            _ => out.push_str(&rest[k..end.max(k + 1)]),
        }
        rest = &rest[end.max(k + 1)..];
    }
    out.push_str(rest);
    out
}

/// Converts a pool expression into a [`RecExpr`]; opaque leaves keep their handle.
pub(crate) fn to_rec(pool: &ExprPool, e: ExprId) -> RecExpr<Sym> {
    let mut rec = RecExpr::default();
    let mut memo = hashbrown::HashMap::new();
    add_rec(pool, e, &mut rec, &mut memo);
    rec
}

fn add_rec(
    pool: &ExprPool,
    e: ExprId,
    rec: &mut RecExpr<Sym>,
    memo: &mut hashbrown::HashMap<ExprId, Id>,
) -> Id {
    if let Some(&id) = memo.get(&e) {
        return id;
    }
    let id = if is_opaque(pool, e) {
        rec.add(Sym::Opaque(Opaque(e.index() as u32)))
    } else {
        let mut kid = |c: ExprId, rec: &mut RecExpr<Sym>| add_rec(pool, c, rec, memo);
        match pool.node(e) {
            Node::Int(v) => rec.add(Sym::Num(*v)),
            Node::Bool(b) => rec.add(Sym::Bool(Truth(*b))),
            Node::Sym(s) => rec.add(Sym::Var(var_name(*s))),
            Node::Float(_) => rec.add(Sym::Opaque(Opaque(e.index() as u32))),
            Node::Add(xs)
            | Node::Mul(xs)
            | Node::Max(xs)
            | Node::Min(xs)
            | Node::And(xs)
            | Node::Or(xs) => {
                let make: fn([Id; 2]) -> Sym = match pool.node(e) {
                    Node::Add(_) => Sym::Add,
                    Node::Mul(_) => Sym::Mul,
                    Node::Max(_) => Sym::Max,
                    Node::Min(_) => Sym::Min,
                    Node::And(_) => Sym::And,
                    _ => Sym::Or,
                };
                let xs = xs.to_vec();
                let mut acc = kid(xs[0], rec);
                for &x in &xs[1..] {
                    let b = kid(x, rec);
                    acc = rec.add(make([acc, b]));
                }
                acc
            }
            Node::Pow(b, k) => {
                let (b, k) = (*b, *k);
                let b = kid(b, rec);
                let k = rec.add(Sym::Num(k as i64));
                rec.add(Sym::Pow([b, k]))
            }
            Node::Unary(op, a) => {
                let (op, a) = (*op, *a);
                let a = kid(a, rec);
                rec.add(match op {
                    UnOp::Abs => Sym::Abs([a]),
                    _ => Sym::Not([a]),
                })
            }
            Node::Binary(op, [a, b]) => {
                let (op, a, b) = (*op, *a, *b);
                let (x, y) = (kid(a, rec), kid(b, rec));
                rec.add(match op {
                    BinOp::FloorDiv => Sym::FloorDiv([x, y]),
                    BinOp::CeilDiv => Sym::CeilDiv([x, y]),
                    BinOp::CleanDiv => Sym::CleanDiv([x, y]),
                    BinOp::Mod => Sym::Mod([x, y]),
                    BinOp::PythonMod => Sym::PythonMod([x, y]),
                    BinOp::Eq => Sym::Eq([x, y]),
                    BinOp::Ne => Sym::Ne([x, y]),
                    BinOp::Lt => Sym::Lt([x, y]),
                    BinOp::Le => Sym::Le([x, y]),
                    BinOp::Gt => Sym::Lt([y, x]),
                    // Float operators are opaque (above); Ge is the last case.
                    _ => Sym::Le([y, x]),
                })
            }
            Node::Ternary(op, [a, b, c]) => {
                let (op, a, b, c) = (*op, *a, *b, *c);
                let ids = [kid(a, rec), kid(b, rec), kid(c, rec)];
                rec.add(match op {
                    TernOp::ModularIndexing => Sym::ModularIndexing(ids),
                    TernOp::Where => Sym::Where(ids),
                })
            }
        }
    };
    memo.insert(e, id);
    id
}

/// Converts a [`RecExpr`] back into the pool (through its canonicalising constructors).
///
/// Opaque leaves must be handles of `pool`. `None` when a `pow` exponent is not
/// a non-negative literal (extraction always yields one; this is a guard).
pub(crate) fn from_rec(pool: &mut ExprPool, rec: &RecExpr<Sym>) -> Option<ExprId> {
    let mut ids: Vec<ExprId> = Vec::with_capacity(rec.len());
    for node in rec.as_ref() {
        let c = |i: &Id| ids[usize::from(*i)];
        let e = match node {
            Sym::Num(v) => pool.int(*v),
            Sym::Bool(Truth(b)) => pool.bool(*b),
            Sym::Var(s) => pool.sym(var_symbol(*s)?),
            Sym::Opaque(Opaque(i)) => ExprId(*i),
            Sym::Add([a, b]) => pool.add(&[c(a), c(b)]),
            Sym::Mul([a, b]) => pool.mul(&[c(a), c(b)]),
            Sym::Pow([a, k]) => match &rec[*k] {
                Sym::Num(k) if (0..=u32::MAX as i64).contains(k) => pool.pow(c(a), *k as u32),
                _ => return None,
            },
            Sym::FloorDiv([a, b]) => pool.binary(BinOp::FloorDiv, c(a), c(b)),
            Sym::CeilDiv([a, b]) => pool.binary(BinOp::CeilDiv, c(a), c(b)),
            Sym::CleanDiv([a, b]) => pool.binary(BinOp::CleanDiv, c(a), c(b)),
            Sym::Mod([a, b]) => pool.binary(BinOp::Mod, c(a), c(b)),
            Sym::PythonMod([a, b]) => pool.binary(BinOp::PythonMod, c(a), c(b)),
            Sym::ModularIndexing([a, b, d]) => {
                pool.ternary(TernOp::ModularIndexing, c(a), c(b), c(d))
            }
            Sym::Max([a, b]) => pool.max(&[c(a), c(b)]),
            Sym::Min([a, b]) => pool.min(&[c(a), c(b)]),
            Sym::Abs([a]) => pool.unary(UnOp::Abs, c(a)),
            Sym::Eq([a, b]) => pool.binary(BinOp::Eq, c(a), c(b)),
            Sym::Ne([a, b]) => pool.binary(BinOp::Ne, c(a), c(b)),
            Sym::Lt([a, b]) => pool.binary(BinOp::Lt, c(a), c(b)),
            Sym::Le([a, b]) => pool.binary(BinOp::Le, c(a), c(b)),
            Sym::And([a, b]) => pool.and(&[c(a), c(b)]),
            Sym::Or([a, b]) => pool.or(&[c(a), c(b)]),
            Sym::Not([a]) => pool.not(c(a)),
            Sym::Where([p, a, b]) => pool.ternary(TernOp::Where, c(p), c(a), c(b)),
        };
        ids.push(e);
    }
    ids.last().copied()
}

#[cfg(test)]
mod var_name_tests {
    use super::*;

    /// egg's interner is for the process's life: a symbol enters it by its
    /// index, so new names (a service's ever different ones) add nothing.
    #[test]
    fn egg_sees_indices_not_names_and_explanations_show_names() {
        let (mut a, mut b) = (ExprPool::new(), ExprPool::new());
        let long = "q".repeat(10_000);
        let x = a.symbol(&long);
        let y = b.symbol("s0");
        assert_eq!(to_rec(&a, x).to_string(), to_rec(&b, y).to_string());
        let rec = to_rec(&a, x);
        assert_eq!(from_rec(&mut a, &rec), Some(x));
        let text = "(+ v0 (* v0 2))\nRewrite=> r (+ v0 v9 v)";
        let shown = with_pool_names(&b, text);
        assert_eq!(shown, "(+ s0 (* s0 2))\nRewrite=> r (+ s0 v9 v)");
    }
}
