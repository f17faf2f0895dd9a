//! The recursive-descent parser: tokens → [`Ast`] (one method per
//! precedence level, lowest first).

use super::lexer::{Tok, Token};
use super::{err, Ast, AstKind, InfixOp, ParseError};

pub(super) struct Parser {
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
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

    fn infix(op: InfixOp, a: Ast, b: Ast) -> Ast {
        let offset = a.offset;
        Ast {
            kind: AstKind::Infix(op, Box::new(a), Box::new(b)),
            offset,
        }
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
