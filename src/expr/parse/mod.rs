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
    /// An infix operation (`//`, `%`, `**`, comparisons; `+ - * & |` of two
    /// operands only when built by hand: the parser makes chains n-ary).
    Infix(InfixOp, Box<Ast>, Box<Ast>),
    /// A chain `a + b - c ...`: terms with `true` where subtracted (the
    /// first term is never subtracted). Parsed flat, so a long sum is not a
    /// deep tree.
    Sum(Vec<(bool, Ast)>),
    /// A chain of one associative operator (`*`, `&`, `|`) over two or
    /// more operands, as written.
    Nary(InfixOp, Vec<Ast>),
    /// A function call.
    Call(String, Vec<Ast>),
}

/// The deepest syntax tree `parse` accepts (its height, counting each
/// operator, call and unary sign as one level; flat chains of `+ - * & |`
/// count once). Every expression the pool builds from accepted text stays
/// within it, so everything downstream (printing, evaluation, simplification,
/// the solver encoding) recurses at most this deep; and whatever `print`
/// writes for such an expression, `parse` reads back.
pub const MAX_DEPTH: usize = 1000;

/// A syntax-tree node with the byte offset where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Ast {
    /// The node.
    pub kind: AstKind,
    /// Byte offset of the node's first token.
    pub offset: usize,
    /// Height of the tree (a leaf is 1).
    pub depth: usize,
}

impl Ast {
    /// A node; its depth from its children's.
    pub fn new(kind: AstKind, offset: usize) -> Ast {
        let below = match &kind {
            AstKind::Int(_) | AstKind::Float(_) | AstKind::Bool(_) | AstKind::Name(_) => 0,
            AstKind::Neg(a) | AstKind::Invert(a) => a.depth,
            AstKind::Infix(_, a, b) => a.depth.max(b.depth),
            AstKind::Sum(xs) => xs.iter().map(|x| x.1.depth).max().unwrap_or(0),
            AstKind::Nary(_, xs) | AstKind::Call(_, xs) => {
                xs.iter().map(|x| x.depth).max().unwrap_or(0)
            }
        };
        Ast {
            kind,
            offset,
            depth: below + 1,
        }
    }

    /// Number of nodes of the tree (for tests).
    #[cfg(any(test, feature = "internals"))]
    pub fn size(&self) -> usize {
        1 + match &self.kind {
            AstKind::Int(_) | AstKind::Float(_) | AstKind::Bool(_) | AstKind::Name(_) => 0,
            AstKind::Neg(a) | AstKind::Invert(a) => a.size(),
            AstKind::Infix(_, a, b) => a.size() + b.size(),
            AstKind::Sum(xs) => xs.iter().map(|x| x.1.size()).sum(),
            AstKind::Nary(_, xs) => xs.iter().map(Ast::size).sum(),
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

/// The longest expression text `parse` accepts, in bytes (1 MiB): far
/// longer than any shape expression a compiler writes (torch's run to a
/// few hundred bytes; the hostile-input tests parse 40,000-term sums), and
/// short enough that parsing and everything after it stay well inside a
/// case's time limit with memory proportional to the text (a 10 MB
/// `Max(...)` took 8 s and 1.28 GB before the cap).
pub const MAX_TEXT: usize = 1 << 20;

/// Parses `text` into a syntax tree without building expressions.
pub fn parse_ast(text: &str) -> Result<Ast, ParseError> {
    if text.len() > MAX_TEXT {
        return err(
            MAX_TEXT,
            format!(
                "expression of {} bytes, longer than the {MAX_TEXT} bytes accepted",
                text.len()
            ),
        );
    }
    let toks = tokenize(text)?;
    let mut p = Parser {
        toks,
        pos: 0,
        nesting: 0,
    };
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
