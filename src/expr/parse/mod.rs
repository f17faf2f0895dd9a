//! The parser: expression text (FORMATS.md §1) → [`Ast`] → pool expression.
//!
//! The grammar is Python's, restricted to what SymPy prints for PyTorch shape
//! expressions. Operator precedence, lowest first: comparisons (not chained),
//! `|`, `&`, `+ -`, `* // %`, unary `- + ~`, `**` (right-associative, binding
//! tighter than a unary minus on its left: `-x**2` is `-(x**2)`).

//!
//! * [`lexer`](self) — text → tokens with byte offsets;
//! * the recursive-descent parser — tokens → [`Ast`];
//! * lowering — [`Ast`] → pool expression, type-checking each operator.

mod lexer;
mod lower;
mod parser;

pub use lower::{is_reserved, lower};

use super::node::ExprId;
use super::pool::ExprPool;
use lexer::{tokenize, Tok};
use parser::Parser;
use std::fmt;

/// A parse or type error, with the byte offset in the text where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset into the text (0-based).
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at column {}: {}", self.offset + 1, self.message)
    }
}

impl std::error::Error for ParseError {}

pub(super) fn err<T>(offset: usize, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        offset,
        message: message.into(),
    })
}

/// Infix operators of the syntax tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InfixOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&`
    And,
    /// `|`
    Or,
}

/// The syntax tree of an expression, as written (no canonicalisation).
#[derive(Clone, Debug, PartialEq)]
pub enum AstKind {
    /// Integer literal (arbitrary size until lowering).
    Int(i128),
    /// Float literal.
    Float(f64),
    /// `True` / `False`.
    Bool(bool),
    /// A symbol.
    Name(String),
    /// Unary minus.
    Neg(Box<Ast>),
    /// `~`.
    Invert(Box<Ast>),
    /// An infix operation.
    Infix(InfixOp, Box<Ast>, Box<Ast>),
    /// A function call.
    Call(String, Vec<Ast>),
}

/// A syntax-tree node with the byte offset where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Ast {
    /// The node.
    pub kind: AstKind,
    /// Byte offset of the node's first token.
    pub offset: usize,
}

impl Ast {
    /// Number of nodes of the tree.
    pub fn size(&self) -> usize {
        1 + match &self.kind {
            AstKind::Int(_) | AstKind::Float(_) | AstKind::Bool(_) | AstKind::Name(_) => 0,
            AstKind::Neg(a) | AstKind::Invert(a) => a.size(),
            AstKind::Infix(_, a, b) => a.size() + b.size(),
            AstKind::Call(_, args) => args.iter().map(Ast::size).sum(),
        }
    }
}

/// Parses `text` into an expression of `pool`.
///
/// ```
/// use symalias::expr::{parse, ExprPool};
/// let mut pool = ExprPool::new();
/// let e = parse(&mut pool, "s1*(s0 + 1) + (((s1 + 1)//2))").unwrap();
/// assert_eq!(pool.display(e).to_string(), "s1*(s0 + 1) + (((s1 + 1)//2))");
/// let bad = parse(&mut pool, "Max(s0,").unwrap_err();
/// assert_eq!(bad.offset, 7);
/// ```
pub fn parse(pool: &mut ExprPool, text: &str) -> Result<ExprId, ParseError> {
    let ast = parse_ast(text)?;
    lower(pool, &ast)
}

/// Parses `text` into a syntax tree without building expressions.
pub fn parse_ast(text: &str) -> Result<Ast, ParseError> {
    let toks = tokenize(text)?;
    let mut p = Parser { toks, pos: 0 };
    if matches!(p.peek().tok, Tok::End) {
        return err(0, "empty expression");
    }
    let e = p.comparison()?;
    let t = p.peek();
    if !matches!(t.tok, Tok::End) {
        return err(
            t.offset,
            format!("unexpected {} after the expression", t.tok),
        );
    }
    Ok(e)
}
