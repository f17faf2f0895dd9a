//! The parser: expression text (FORMATS.md §1) → [`Ast`] → pool expression.
//!
//! The grammar is Python's, restricted to what SymPy prints for PyTorch shape
//! expressions. Operator precedence, lowest first: comparisons (not chained),
//! `|`, `&`, `+ -`, `* // %`, unary `- + ~`, `**` (right-associative, binding
//! tighter than a unary minus on its left: `-x**2` is `-(x**2)`).

use super::node::{BinOp, ExprId, TernOp, Ty, UnOp};
use super::pool::ExprPool;
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

fn err<T>(offset: usize, message: impl Into<String>) -> Result<T, ParseError> {
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

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i128),
    Float(f64),
    Name(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Int(v) => write!(f, "number `{v}`"),
            Tok::Float(v) => write!(f, "number `{v}`"),
            Tok::Name(n) => write!(f, "name `{n}`"),
            Tok::Op(o) => write!(f, "`{o}`"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::End => f.write_str("end of input"),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    offset: usize,
}

const OPS: &[&str] = &[
    "**", "//", "<=", ">=", "+", "-", "*", "%", "<", ">", "&", "|", "~",
];

fn tokenize(text: &str) -> Result<Vec<Token>, ParseError> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            let mut is_float = false;
            if i < b.len() && b[i] == b'.' {
                is_float = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    is_float = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let lit: String = text[start..i].chars().filter(|&c| c != '_').collect();
            if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_') {
                return err(i, format!("invalid number literal `{}`", &text[start..=i]));
            }
            if is_float {
                let v: f64 = lit.parse().map_err(|_| ParseError {
                    offset: start,
                    message: format!("invalid float literal `{lit}`"),
                })?;
                if !v.is_finite() {
                    return err(start, format!("float literal `{lit}` is out of range"));
                }
                out.push(Token {
                    tok: Tok::Float(v),
                    offset: start,
                });
            } else {
                let v: i128 = lit.parse().map_err(|_| ParseError {
                    offset: start,
                    message: format!("integer literal `{lit}` does not fit in 64 bits"),
                })?;
                out.push(Token {
                    tok: Tok::Int(v),
                    offset: start,
                });
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Name(text[start..i].to_string()),
                offset: start,
            });
            continue;
        }
        let tok = match c {
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b',' => Some(Tok::Comma),
            _ => None,
        };
        if let Some(tok) = tok {
            out.push(Token { tok, offset: start });
            i += 1;
            continue;
        }
        let rest = &text[i..];
        if let Some(o) = OPS.iter().find(|o| rest.starts_with(**o)) {
            out.push(Token {
                tok: Tok::Op(o),
                offset: start,
            });
            i += o.len();
            continue;
        }
        let hint = if rest.starts_with("==") {
            Some("`==` is not an expression operator; write Eq(a, b)")
        } else if rest.starts_with("!=") {
            Some("`!=` is not an expression operator; write Ne(a, b)")
        } else if c == b'/' {
            Some("true division `/` is not an integer operation; write a//b, FloatTrueDiv(a, b) or IntTrueDiv(a, b)")
        } else if c == b'^' {
            Some("`^` is not supported; write a**k for powers")
        } else {
            None
        };
        if let Some(h) = hint {
            return err(start, h);
        }
        let ch = rest.chars().next().unwrap_or(' ');
        return err(start, format!("unexpected character `{ch}`"));
    }
    out.push(Token {
        tok: Tok::End,
        offset: text.len(),
    });
    Ok(out)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.toks[self.pos]
    }

    fn next(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn eat_op(&mut self, ops: &[&'static str]) -> Option<(&'static str, usize)> {
        if let Tok::Op(o) = self.peek().tok {
            if ops.contains(&o) {
                let off = self.peek().offset;
                self.next();
                return Some((o, off));
            }
        }
        None
    }

    fn infix(op: InfixOp, a: Ast, b: Ast) -> Ast {
        let offset = a.offset;
        Ast {
            kind: AstKind::Infix(op, Box::new(a), Box::new(b)),
            offset,
        }
    }

    fn comparison(&mut self) -> Result<Ast, ParseError> {
        let lhs = self.bitor()?;
        let Some((o, _)) = self.eat_op(&["<", "<=", ">", ">="]) else {
            return Ok(lhs);
        };
        let rhs = self.bitor()?;
        if let Tok::Op("<" | "<=" | ">" | ">=") = self.peek().tok {
            return err(
                self.peek().offset,
                "chained comparisons are not supported; write And(a < b, b < c)",
            );
        }
        let op = match o {
            "<" => InfixOp::Lt,
            "<=" => InfixOp::Le,
            ">" => InfixOp::Gt,
            _ => InfixOp::Ge,
        };
        Ok(Self::infix(op, lhs, rhs))
    }

    fn bitor(&mut self) -> Result<Ast, ParseError> {
        let mut lhs = self.bitand()?;
        while self.eat_op(&["|"]).is_some() {
            let rhs = self.bitand()?;
            lhs = Self::infix(InfixOp::Or, lhs, rhs);
        }
        Ok(lhs)
    }

    fn bitand(&mut self) -> Result<Ast, ParseError> {
        let mut lhs = self.arith()?;
        while self.eat_op(&["&"]).is_some() {
            let rhs = self.arith()?;
            lhs = Self::infix(InfixOp::And, lhs, rhs);
        }
        Ok(lhs)
    }

    fn arith(&mut self) -> Result<Ast, ParseError> {
        let mut lhs = self.term()?;
        while let Some((o, _)) = self.eat_op(&["+", "-"]) {
            let rhs = self.term()?;
            let op = if o == "+" { InfixOp::Add } else { InfixOp::Sub };
            lhs = Self::infix(op, lhs, rhs);
        }
        Ok(lhs)
    }

    fn term(&mut self) -> Result<Ast, ParseError> {
        let mut lhs = self.factor()?;
        while let Some((o, _)) = self.eat_op(&["*", "//", "%"]) {
            let rhs = self.factor()?;
            let op = match o {
                "*" => InfixOp::Mul,
                "//" => InfixOp::FloorDiv,
                _ => InfixOp::Mod,
            };
            lhs = Self::infix(op, lhs, rhs);
        }
        Ok(lhs)
    }

    fn factor(&mut self) -> Result<Ast, ParseError> {
        if let Some((o, offset)) = self.eat_op(&["-", "+", "~"]) {
            let inner = self.factor()?;
            return Ok(match o {
                "+" => inner,
                "-" => match inner.kind {
                    // A negated literal is a negative literal (so that
                    // -9223372036854775808 fits); `-2**2` is still -(2**2).
                    AstKind::Int(v) => Ast {
                        kind: AstKind::Int(-v),
                        offset,
                    },
                    AstKind::Float(v) => Ast {
                        kind: AstKind::Float(-v),
                        offset,
                    },
                    _ => Ast {
                        kind: AstKind::Neg(Box::new(inner)),
                        offset,
                    },
                },
                _ => Ast {
                    kind: AstKind::Invert(Box::new(inner)),
                    offset,
                },
            });
        }
        self.power()
    }

    fn power(&mut self) -> Result<Ast, ParseError> {
        let base = self.atom()?;
        if self.eat_op(&["**"]).is_some() {
            let exp = self.factor()?;
            return Ok(Self::infix(InfixOp::Pow, base, exp));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Ast, ParseError> {
        let t = self.next();
        let offset = t.offset;
        match t.tok {
            Tok::Int(v) => Ok(Ast {
                kind: AstKind::Int(v),
                offset,
            }),
            Tok::Float(v) => Ok(Ast {
                kind: AstKind::Float(v),
                offset,
            }),
            Tok::Name(n) if n == "True" => Ok(Ast {
                kind: AstKind::Bool(true),
                offset,
            }),
            Tok::Name(n) if n == "False" => Ok(Ast {
                kind: AstKind::Bool(false),
                offset,
            }),
            Tok::Name(n) => {
                if matches!(self.peek().tok, Tok::LParen) {
                    self.next();
                    let mut args = Vec::new();
                    if matches!(self.peek().tok, Tok::RParen) {
                        self.next();
                    } else {
                        loop {
                            args.push(self.comparison()?);
                            let t = self.next();
                            match t.tok {
                                Tok::Comma => continue,
                                Tok::RParen => break,
                                other => {
                                    return err(
                                        t.offset,
                                        format!("expected `,` or `)` in the arguments of `{n}`, found {other}"),
                                    )
                                }
                            }
                        }
                    }
                    Ok(Ast {
                        kind: AstKind::Call(n, args),
                        offset,
                    })
                } else {
                    Ok(Ast {
                        kind: AstKind::Name(n),
                        offset,
                    })
                }
            }
            Tok::LParen => {
                let e = self.comparison()?;
                let t = self.next();
                if !matches!(t.tok, Tok::RParen) {
                    return err(t.offset, format!("expected `)`, found {}", t.tok));
                }
                Ok(e)
            }
            other => err(offset, format!("expected an operand, found {other}")),
        }
    }
}

/// The functions of FORMATS.md §1 and their arities (`None` = n-ary).
#[derive(Clone, Copy, Debug)]
enum Func {
    Un(UnOp),
    Bin(BinOp),
    Tern(TernOp),
    Max,
    Min,
    And,
    Or,
}

fn function(name: &str) -> Option<Func> {
    Some(match name {
        "FloorDiv" => Func::Bin(BinOp::FloorDiv),
        "CeilDiv" => Func::Bin(BinOp::CeilDiv),
        "CleanDiv" => Func::Bin(BinOp::CleanDiv),
        "Mod" => Func::Bin(BinOp::Mod),
        "PythonMod" => Func::Bin(BinOp::PythonMod),
        "ModularIndexing" => Func::Tern(TernOp::ModularIndexing),
        "Max" => Func::Max,
        "Min" => Func::Min,
        "Abs" => Func::Un(UnOp::Abs),
        "Eq" => Func::Bin(BinOp::Eq),
        "Ne" => Func::Bin(BinOp::Ne),
        "Lt" => Func::Bin(BinOp::Lt),
        "Le" => Func::Bin(BinOp::Le),
        "Gt" => Func::Bin(BinOp::Gt),
        "Ge" => Func::Bin(BinOp::Ge),
        "And" => Func::And,
        "Or" => Func::Or,
        "Not" => Func::Un(UnOp::Not),
        "Where" => Func::Tern(TernOp::Where),
        "ToFloat" => Func::Un(UnOp::ToFloat),
        "TruncToInt" => Func::Un(UnOp::TruncToInt),
        "FloatTrueDiv" => Func::Bin(BinOp::FloatTrueDiv),
        "IntTrueDiv" => Func::Bin(BinOp::IntTrueDiv),
        "FloatPow" => Func::Bin(BinOp::FloatPow),
        _ => return None,
    })
}

/// `true` for names reserved by FORMATS.md §1 (functions, `True`, `False`).
pub fn is_reserved(name: &str) -> bool {
    name == "True" || name == "False" || function(name).is_some()
}

/// Which operand types an operator accepts.
#[derive(Clone, Copy)]
enum Want {
    Int,
    Numeric,
    Bool,
    Any,
}

fn check(pool: &ExprPool, id: ExprId, want: Want, what: &str, at: &Ast) -> Result<(), ParseError> {
    let ty = pool.ty(id);
    let ok = match want {
        Want::Int => ty == Ty::Int,
        Want::Numeric => ty.is_numeric(),
        Want::Bool => ty == Ty::Bool,
        Want::Any => true,
    };
    if ok {
        return Ok(());
    }
    let expected = match want {
        Want::Int => "an integer",
        Want::Numeric => "a number",
        Want::Bool => "a boolean",
        Want::Any => "anything",
    };
    err(
        at.offset,
        format!("{what} expects {expected}, found a {ty} operand"),
    )
}

/// Builds the pool expression of a syntax tree, checking operand types.
pub fn lower(pool: &mut ExprPool, ast: &Ast) -> Result<ExprId, ParseError> {
    match &ast.kind {
        AstKind::Int(v) => match i64::try_from(*v) {
            Ok(v) => Ok(pool.int(v)),
            Err(_) => err(
                ast.offset,
                format!("integer literal `{v}` does not fit in 64 bits"),
            ),
        },
        AstKind::Float(v) => Ok(pool.float(*v)),
        AstKind::Bool(b) => Ok(pool.bool(*b)),
        AstKind::Name(n) => {
            if function(n).is_some() {
                return err(
                    ast.offset,
                    format!("`{n}` is a function; call it as {n}(...)"),
                );
            }
            Ok(pool.symbol(n))
        }
        AstKind::Neg(a) => {
            let x = lower(pool, a)?;
            check(pool, x, Want::Numeric, "unary `-`", a)?;
            Ok(pool.neg(x))
        }
        AstKind::Invert(a) => {
            let x = lower(pool, a)?;
            check(pool, x, Want::Bool, "`~`", a)?;
            Ok(pool.not(x))
        }
        AstKind::Infix(op, a, b) => lower_infix(pool, *op, a, b),
        AstKind::Call(name, args) => lower_call(pool, ast, name, args),
    }
}

/// Collects the factors of a product chain `a*b*c`, with every unary minus
/// on a factor counted apart: `-(x + 1)*y` is the product of -1, `x + 1` and `y`.
fn mul_chain<'a>(ast: &'a Ast, factors: &mut Vec<&'a Ast>, negs: &mut usize) {
    match &ast.kind {
        AstKind::Infix(InfixOp::Mul, a, b) => {
            mul_chain(a, factors, negs);
            mul_chain(b, factors, negs);
        }
        AstKind::Neg(a) => {
            *negs += 1;
            mul_chain(a, factors, negs);
        }
        _ => factors.push(ast),
    }
}

/// Lowers a whole product chain at once, so that its canonical form does not
/// depend on the grouping of the text (`2*(x + 1)*y` is one product of three
/// factors, not `(2*x + 2)*y`); printing and re-parsing then agree.
fn lower_product(pool: &mut ExprPool, a: &Ast, b: &Ast) -> Result<ExprId, ParseError> {
    let (mut factors, mut negs) = (Vec::new(), 0);
    mul_chain(a, &mut factors, &mut negs);
    mul_chain(b, &mut factors, &mut negs);
    let mut xs = Vec::with_capacity(factors.len() + 1);
    if negs % 2 == 1 {
        xs.push(pool.int(-1));
    }
    for f in factors {
        let x = lower(pool, f)?;
        check(pool, x, Want::Numeric, "`*`", f)?;
        xs.push(x);
    }
    Ok(pool.mul(&xs))
}

fn lower_infix(pool: &mut ExprPool, op: InfixOp, a: &Ast, b: &Ast) -> Result<ExprId, ParseError> {
    if op == InfixOp::Mul {
        return lower_product(pool, a, b);
    }
    if op == InfixOp::Pow {
        let x = lower(pool, a)?;
        check(pool, x, Want::Numeric, "`**`", a)?;
        return match b.kind {
            AstKind::Int(k) if (0..=u32::MAX as i128).contains(&k) => Ok(pool.pow(x, k as u32)),
            _ => err(
                b.offset,
                "the exponent of `**` must be a non-negative integer literal (use FloatPow for others)",
            ),
        };
    }
    let x = lower(pool, a)?;
    let y = lower(pool, b)?;
    let (want, name) = match op {
        InfixOp::Add => (Want::Numeric, "`+`"),
        InfixOp::Sub => (Want::Numeric, "`-`"),
        InfixOp::Mul => (Want::Numeric, "`*`"),
        InfixOp::FloorDiv => (Want::Int, "`//`"),
        InfixOp::Mod => (Want::Int, "`%`"),
        InfixOp::Lt | InfixOp::Le | InfixOp::Gt | InfixOp::Ge => (Want::Numeric, "a comparison"),
        InfixOp::And => (Want::Bool, "`&`"),
        InfixOp::Or => (Want::Bool, "`|`"),
        InfixOp::Pow => unreachable!("handled above"),
    };
    check(pool, x, want, name, a)?;
    check(pool, y, want, name, b)?;
    Ok(match op {
        InfixOp::Add => pool.add(&[x, y]),
        InfixOp::Sub => pool.sub(x, y),
        InfixOp::Mul => unreachable!("handled above"),
        InfixOp::FloorDiv => pool.binary(BinOp::FloorDiv, x, y),
        InfixOp::Mod => pool.binary(BinOp::Mod, x, y),
        InfixOp::Lt => pool.binary(BinOp::Lt, x, y),
        InfixOp::Le => pool.binary(BinOp::Le, x, y),
        InfixOp::Gt => pool.binary(BinOp::Gt, x, y),
        InfixOp::Ge => pool.binary(BinOp::Ge, x, y),
        InfixOp::And => pool.and(&[x, y]),
        InfixOp::Or => pool.or(&[x, y]),
        InfixOp::Pow => unreachable!("handled above"),
    })
}

fn lower_call(
    pool: &mut ExprPool,
    ast: &Ast,
    name: &str,
    args: &[Ast],
) -> Result<ExprId, ParseError> {
    let Some(func) = function(name) else {
        return err(ast.offset, format!("unknown function `{name}`"));
    };
    let arity = match func {
        Func::Un(_) => Some(1),
        Func::Bin(_) => Some(2),
        Func::Tern(_) => Some(3),
        Func::Max | Func::Min => None,
        Func::And | Func::Or => None,
    };
    if let Some(n) = arity {
        if args.len() != n {
            return err(
                ast.offset,
                format!(
                    "`{name}` takes {n} argument{}, found {}",
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
            );
        }
    }
    if matches!(func, Func::Max | Func::Min) && args.is_empty() {
        return err(ast.offset, format!("`{name}` needs at least one argument"));
    }
    let mut xs = Vec::with_capacity(args.len());
    for a in args {
        xs.push(lower(pool, a)?);
    }
    let what = format!("`{name}`");
    let want_all = |pool: &ExprPool, w: Want| -> Result<(), ParseError> {
        for (x, a) in xs.iter().zip(args) {
            check(pool, *x, w, &what, a)?;
        }
        Ok(())
    };
    Ok(match func {
        Func::Max => {
            want_all(pool, Want::Numeric)?;
            pool.max(&xs)
        }
        Func::Min => {
            want_all(pool, Want::Numeric)?;
            pool.min(&xs)
        }
        Func::And => {
            want_all(pool, Want::Bool)?;
            pool.and(&xs)
        }
        Func::Or => {
            want_all(pool, Want::Bool)?;
            pool.or(&xs)
        }
        Func::Un(op) => {
            let w = match op {
                UnOp::Not => Want::Bool,
                UnOp::ToFloat | UnOp::TruncToInt | UnOp::Abs => Want::Numeric,
            };
            want_all(pool, w)?;
            if op == UnOp::Not {
                pool.not(xs[0])
            } else {
                pool.unary(op, xs[0])
            }
        }
        Func::Bin(op) => {
            match op {
                BinOp::Eq | BinOp::Ne => {
                    let (tx, ty) = (pool.ty(xs[0]), pool.ty(xs[1]));
                    if (tx == Ty::Bool) != (ty == Ty::Bool) {
                        return err(
                            ast.offset,
                            format!("`{name}` compares a boolean with a number"),
                        );
                    }
                    want_all(pool, Want::Any)?
                }
                BinOp::FloatTrueDiv
                | BinOp::FloatPow
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge => want_all(pool, Want::Numeric)?,
                _ => want_all(pool, Want::Int)?,
            }
            pool.binary(op, xs[0], xs[1])
        }
        Func::Tern(op) => {
            match op {
                TernOp::ModularIndexing => want_all(pool, Want::Int)?,
                TernOp::Where => {
                    check(
                        pool,
                        xs[0],
                        Want::Bool,
                        "the condition of `Where`",
                        &args[0],
                    )?;
                    let (ta, tb) = (pool.ty(xs[1]), pool.ty(xs[2]));
                    if (ta == Ty::Bool) != (tb == Ty::Bool) {
                        return err(
                            ast.offset,
                            "the branches of `Where` mix a boolean and a number",
                        );
                    }
                }
            }
            pool.ternary(op, xs[0], xs[1], xs[2])
        }
    })
}

impl Ast {
    /// Evaluates the tree as written, eagerly and without any canonicalisation:
    /// the reference the pool's canonical forms are tested against.
    pub fn eval(
        &self,
        lookup: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<super::arith::Wide, super::arith::ArithError> {
        use super::arith::{self, ArithError, Wide};
        let ev = |a: &Ast| a.eval(lookup);
        Ok(match &self.kind {
            AstKind::Int(v) => Wide::Int(*v),
            AstKind::Float(v) => Wide::Float(*v),
            AstKind::Bool(b) => Wide::Bool(*b),
            AstKind::Name(n) => Wide::Int(
                lookup(n).ok_or_else(|| ArithError::Type(format!("unbound symbol {n}")))? as i128,
            ),
            AstKind::Neg(a) => match ev(a)? {
                Wide::Int(v) => Wide::Int(v.checked_neg().ok_or(ArithError::Overflow)?),
                Wide::Float(f) => Wide::Float(-f),
                Wide::Bool(_) => return Err(ArithError::Type("-bool".into())),
            },
            AstKind::Invert(a) => arith::unary(UnOp::Not, ev(a)?)?,
            AstKind::Infix(op, a, b) => {
                let x = ev(a)?;
                if *op == InfixOp::Pow {
                    let AstKind::Int(k) = b.kind else {
                        return Err(ArithError::Type("exponent".into()));
                    };
                    return arith::pow(x, u32::try_from(k).map_err(|_| ArithError::Overflow)?);
                }
                let y = ev(b)?;
                match op {
                    InfixOp::Add => arith::add(x, y)?,
                    InfixOp::Sub => match (x, y) {
                        (Wide::Int(p), Wide::Int(q)) => {
                            Wide::Int(p.checked_sub(q).ok_or(ArithError::Overflow)?)
                        }
                        (Wide::Bool(_), _) | (_, Wide::Bool(_)) => {
                            return Err(ArithError::Type("-".into()))
                        }
                        _ => Wide::Float(as_f64(x) - as_f64(y)),
                    },
                    InfixOp::Mul => arith::mul(x, y)?,
                    InfixOp::FloorDiv => arith::binary(BinOp::FloorDiv, x, y)?,
                    InfixOp::Mod => arith::binary(BinOp::Mod, x, y)?,
                    InfixOp::Lt => arith::binary(BinOp::Lt, x, y)?,
                    InfixOp::Le => arith::binary(BinOp::Le, x, y)?,
                    InfixOp::Gt => arith::binary(BinOp::Gt, x, y)?,
                    InfixOp::Ge => arith::binary(BinOp::Ge, x, y)?,
                    InfixOp::And | InfixOp::Or => match (x, y) {
                        (Wide::Bool(p), Wide::Bool(q)) => {
                            Wide::Bool(if *op == InfixOp::And { p && q } else { p || q })
                        }
                        _ => return Err(ArithError::Type("&|".into())),
                    },
                    InfixOp::Pow => unreachable!("handled above"),
                }
            }
            AstKind::Call(name, args) => {
                let vals = args.iter().map(ev).collect::<Result<Vec<_>, _>>()?;
                match function(name)
                    .ok_or_else(|| ArithError::Type(format!("unknown function {name}")))?
                {
                    Func::Un(op) => arith::unary(op, vals[0])?,
                    Func::Bin(op) => arith::binary(op, vals[0], vals[1])?,
                    Func::Tern(op) => arith::ternary(op, vals[0], vals[1], vals[2])?,
                    Func::Max => arith::extreme(&vals, std::cmp::Ordering::Greater)?,
                    Func::Min => arith::extreme(&vals, std::cmp::Ordering::Less)?,
                    Func::And | Func::Or => {
                        let is_and = matches!(function(name), Some(Func::And));
                        let mut out = is_and;
                        for v in vals {
                            let Wide::Bool(b) = v else {
                                return Err(ArithError::Type("And/Or".into()));
                            };
                            out = if is_and { out && b } else { out || b };
                        }
                        Wide::Bool(out)
                    }
                }
            }
        })
    }
}

fn as_f64(w: super::arith::Wide) -> f64 {
    match w {
        super::arith::Wide::Int(i) => i as f64,
        super::arith::Wide::Float(f) => f,
        super::arith::Wide::Bool(b) => b as u8 as f64,
    }
}
