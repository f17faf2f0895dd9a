//! The node vocabulary of the expression DAG: handles, operators and types.

use std::fmt;

/// Handle of an interned expression inside an [`ExprPool`](super::ExprPool).
///
/// Two handles from the same pool are equal exactly when the expressions are
/// structurally equal (after the pool's light canonicalisation).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ExprId(pub(crate) u32);

impl ExprId {
    /// The handle's index in its pool (dense, in creation order).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Handle of an interned symbol name inside an [`ExprPool`](super::ExprPool).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct SymbolId(pub(crate) u32);

impl SymbolId {
    /// The symbol's index in its pool (dense, in creation order).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The static type of an expression.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Ty {
    /// A (Python) integer.
    Int,
    /// An IEEE double (the float forms of FORMATS.md §1).
    Float,
    /// A boolean (relations and connectives).
    Bool,
}

impl Ty {
    /// `true` for `Int` and `Float`.
    pub(crate) fn is_numeric(self) -> bool {
        matches!(self, Ty::Int | Ty::Float)
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ty::Int => "integer",
            Ty::Float => "float",
            Ty::Bool => "boolean",
        })
    }
}

/// Unary operators.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum UnOp {
    /// `Abs(a)`.
    Abs,
    /// `~p` / `Not(p)`.
    Not,
    /// `ToFloat(a)`: integer to float.
    ToFloat,
    /// `TruncToInt(x)`: float to integer, rounding toward zero.
    TruncToInt,
}

/// Binary operators.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum BinOp {
    /// `a//b`, `FloorDiv(a, b)`: floor division.
    FloorDiv,
    /// `CeilDiv(a, b)`: ceiling division.
    CeilDiv,
    /// `CleanDiv(a, b)`: floor division known to be exact (prints as `//`).
    CleanDiv,
    /// `Mod(a, b)` / `a % b`: remainder with the sign of `b`.
    Mod,
    /// `PythonMod(a, b)`: the same value as `Mod`, kept apart for printing.
    PythonMod,
    /// `Eq(a, b)`.
    Eq,
    /// `Ne(a, b)`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
    /// `FloatTrueDiv(a, b)`: float division.
    FloatTrueDiv,
    /// `IntTrueDiv(a, b)`: true division of integers, a float.
    IntTrueDiv,
    /// `FloatPow(a, b)`: float power.
    FloatPow,
}

impl BinOp {
    /// `true` for the six relations.
    pub(crate) fn is_relation(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// The infix symbol of an infix relation (`<`, `<=`, `>`, `>=`).
    pub(crate) fn infix(self) -> Option<&'static str> {
        match self {
            BinOp::Lt => Some("<"),
            BinOp::Le => Some("<="),
            BinOp::Gt => Some(">"),
            BinOp::Ge => Some(">="),
            _ => None,
        }
    }
}

/// Ternary operators.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum TernOp {
    /// `ModularIndexing(x, d, m)` = `(x // d) % m`.
    ModularIndexing,
    /// `Where(c, a, b)` = `a` if `c` else `b`.
    Where,
}

/// One interned node. Children are [`ExprId`]s of the same pool.
///
/// Canonical-form invariants kept by the pool's constructors (integer-typed nodes):
/// `Add` and `Mul` have at least two operands, no nested operand of the same kind,
/// at most one integer constant (last in `Add`, first in `Mul`), operands sorted
/// by the pool's total order; `Pow` has an exponent of at least 2; `Max`, `Min`, `And`,
/// `Or` are flattened, deduplicated and sorted. Float-typed `Add`/`Mul` are kept
/// binary and in source order, because float addition is not associative.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// Integer constant.
    Int(i64),
    /// Float constant, stored as its IEEE bits.
    Float(u64),
    /// `True` / `False`.
    Bool(bool),
    /// A shape symbol.
    Sym(SymbolId),
    /// n-ary sum.
    Add(Box<[ExprId]>),
    /// n-ary product.
    Mul(Box<[ExprId]>),
    /// `base**k` with a non-negative integer exponent.
    Pow(ExprId, u32),
    /// n-ary maximum.
    Max(Box<[ExprId]>),
    /// n-ary minimum.
    Min(Box<[ExprId]>),
    /// n-ary conjunction.
    And(Box<[ExprId]>),
    /// n-ary disjunction.
    Or(Box<[ExprId]>),
    /// Unary operator application.
    Unary(UnOp, ExprId),
    /// Binary operator application.
    Binary(BinOp, [ExprId; 2]),
    /// Ternary operator application.
    Ternary(TernOp, [ExprId; 3]),
}

impl Node {
    /// The children of this node, in order (the exponent of `Pow` is not a child).
    pub fn children(&self) -> &[ExprId] {
        match self {
            Node::Int(_) | Node::Float(_) | Node::Bool(_) | Node::Sym(_) => &[],
            Node::Add(xs)
            | Node::Mul(xs)
            | Node::Max(xs)
            | Node::Min(xs)
            | Node::And(xs)
            | Node::Or(xs) => xs,
            Node::Pow(b, _) | Node::Unary(_, b) => std::slice::from_ref(b),
            Node::Binary(_, xs) => xs,
            Node::Ternary(_, xs) => xs,
        }
    }

    /// `true` for constants (`Int`, `Float`, `Bool`).
    pub(crate) fn is_const(&self) -> bool {
        matches!(self, Node::Int(_) | Node::Float(_) | Node::Bool(_))
    }
}
