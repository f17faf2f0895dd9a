//! The recursive-descent parser: tokens → [`Ast`] (one method per
//! precedence level, lowest first).

use super::lexer::{Tok, Token};
use super::{err, Ast, AstKind, InfixOp, ParseError, MAX_DEPTH};

pub(super) struct Parser {
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    /// Recursion depth of the descent (parentheses, calls, unary signs,
    /// `**`): bounded before it can exhaust the stack.
    pub(super) nesting: usize,
}

/// Stack left below which the descent moves to a new segment.
const STACK_RED_ZONE: usize = 64 * 1024;
/// Size of each new stack segment.
const STACK_SEGMENT: usize = 1024 * 1024;

/// Parentheses, calls and unary signs nested deeper than this are an error
/// (the printer writes at most two parentheses per level of a tree within
/// [`MAX_DEPTH`]).
const MAX_NESTING: usize = 2 * MAX_DEPTH + 64;

/// The node, or an error when it makes the tree deeper than [`MAX_DEPTH`].
fn checked(kind: AstKind, offset: usize) -> Result<Ast, ParseError> {
    let ast = Ast::new(kind, offset);
    if ast.depth > MAX_DEPTH {
        return err(
            offset,
            format!("expression nested deeper than {MAX_DEPTH} levels"),
        );
    }
    Ok(ast)
}

impl Parser {
    pub(super) fn peek(&self) -> &Token {
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

    fn infix(op: InfixOp, a: Ast, b: Ast) -> Result<Ast, ParseError> {
        let offset = a.offset;
        checked(AstKind::Infix(op, Box::new(a), Box::new(b)), offset)
    }

    /// Enters one level of recursive descent.
    fn enter(&mut self) -> Result<(), ParseError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return err(
                self.peek().offset,
                format!("expression nested deeper than {MAX_DEPTH} levels"),
            );
        }
        Ok(())
    }

    /// A chain of one associative operator over its operands (one operand: itself).
    fn nary(op: InfixOp, mut xs: Vec<Ast>) -> Result<Ast, ParseError> {
        if xs.len() == 1 {
            return Ok(xs.pop().expect("one operand"));
        }
        let offset = xs[0].offset;
        checked(AstKind::Nary(op, xs), offset)
    }

    pub(super) fn comparison(&mut self) -> Result<Ast, ParseError> {
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
        Self::infix(op, lhs, rhs)
    }

    fn bitor(&mut self) -> Result<Ast, ParseError> {
        let mut xs = vec![self.bitand()?];
        while self.eat_op(&["|"]).is_some() {
            xs.push(self.bitand()?);
        }
        Self::nary(InfixOp::Or, xs)
    }

    fn bitand(&mut self) -> Result<Ast, ParseError> {
        let mut xs = vec![self.arith()?];
        while self.eat_op(&["&"]).is_some() {
            xs.push(self.arith()?);
        }
        Self::nary(InfixOp::And, xs)
    }

    fn arith(&mut self) -> Result<Ast, ParseError> {
        let first = self.term()?;
        let mut terms = vec![(false, first)];
        while let Some((o, _)) = self.eat_op(&["+", "-"]) {
            terms.push((o == "-", self.term()?));
        }
        if terms.len() == 1 {
            return Ok(terms.pop().expect("one term").1);
        }
        let offset = terms[0].1.offset;
        checked(AstKind::Sum(terms), offset)
    }

    /// A run of `*` is one n-ary product; `//` and `%` bind left to right
    /// around the runs (`a*b//c*d` is `((a*b)//c)*d`).
    fn term(&mut self) -> Result<Ast, ParseError> {
        let mut run = vec![self.factor()?];
        while let Some((o, _)) = self.eat_op(&["*", "//", "%"]) {
            let rhs = self.factor()?;
            if o == "*" {
                run.push(rhs);
                continue;
            }
            let lhs = Self::nary(InfixOp::Mul, std::mem::take(&mut run))?;
            let op = if o == "//" {
                InfixOp::FloorDiv
            } else {
                InfixOp::Mod
            };
            run.push(Self::infix(op, lhs, rhs)?);
        }
        Self::nary(InfixOp::Mul, run)
    }

    fn factor(&mut self) -> Result<Ast, ParseError> {
        self.enter()?;
        // Every nesting level (parenthesis, call, sign) passes here, several
        // frames deep: on a small thread stack (2 MB is Rust's default for
        // spawned threads) the descent continues on a heap-allocated segment
        // instead of overflowing. The nesting limit bounds the total.
        let out = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.factor_inner());
        self.nesting -= 1;
        out
    }

    fn factor_inner(&mut self) -> Result<Ast, ParseError> {
        if let Some((o, offset)) = self.eat_op(&["-", "+", "~"]) {
            let inner = self.factor()?;
            return Ok(match o {
                "+" => inner,
                "-" => match inner.kind {
                    // A negated literal is a negative literal (so that
                    // -9223372036854775808 fits); `-2**2` is still -(2**2).
                    AstKind::Int(v) => Ast::new(AstKind::Int(-v), offset),
                    AstKind::Float(v) => Ast::new(AstKind::Float(-v), offset),
                    _ => checked(AstKind::Neg(Box::new(inner)), offset)?,
                },
                _ => checked(AstKind::Invert(Box::new(inner)), offset)?,
            });
        }
        self.power()
    }

    fn power(&mut self) -> Result<Ast, ParseError> {
        let base = self.atom()?;
        if self.eat_op(&["**"]).is_some() {
            let exp = self.factor()?;
            return Self::infix(InfixOp::Pow, base, exp);
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Ast, ParseError> {
        let t = self.next();
        let offset = t.offset;
        match t.tok {
            Tok::Int(v) => Ok(Ast::new(AstKind::Int(v), offset)),
            Tok::Float(v) => Ok(Ast::new(AstKind::Float(v), offset)),
            Tok::Name(n) if n == "True" => Ok(Ast::new(AstKind::Bool(true), offset)),
            Tok::Name(n) if n == "False" => Ok(Ast::new(AstKind::Bool(false), offset)),
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
                    checked(AstKind::Call(n, args), offset)
                } else {
                    Ok(Ast::new(AstKind::Name(n), offset))
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
