//! Symbolic expressions: the hash-consed DAG of FORMATS.md §1.
//!
//! * [`ExprPool`] interns nodes and hands out [`ExprId`] handles; its
//!   constructors apply light canonicalisation (constant folding, flattening,
//!   like-term collection, sorted operands).
//! * [`parse`] reads the SymPy/PyTorch text form, [`ExprPool::display`] prints it
//!   back, and the two round-trip: `print(parse(print(e))) == print(e)`.
//! * [`ExprPool::eval`] evaluates with Python integer semantics (floor division,
//!   remainder with the sign of the divisor), never wrapping on overflow.
//!
//! Invariants: a handle is only meaningful with the pool that made it; nodes are
//! immutable once interned; integer constants in the pool fit `i64`.

internal! { pub mod arith; }
mod eval;
mod node;
internal! { pub mod order; }
mod parse;
mod pool;
mod print;

pub use eval::{EvalError, EvalErrorKind, Value};
internal! { pub use eval::narrow; }
pub use node::{BinOp, ExprId, Node, SymbolId, TernOp, Ty, UnOp};
pub use parse::{parse, ParseError, MAX_DEPTH, MAX_TEXT};
internal! { pub use parse::{is_reserved, lower, parse_ast, Ast, AstKind, InfixOp}; }
pub use pool::ExprPool;
pub use print::Display;
internal! { pub use print::python_float; }
