//! Encoding pool expressions as solver terms and formulas.
//!
//! Integer expressions become [`Term`]s with Python semantics (the solver
//! crate lowers `FloorDiv`/`Mod` exactly and excludes division by zero from the
//! domain); boolean expressions become [`Formula`]s. Float-valued parts have no
//! encoding: they are reported as unsupported and the caller answers "unknown".

use crate::expr::{BinOp, ExprId, ExprPool, Node, SymbolId, TernOp, UnOp};
use hashbrown::HashMap;
use symalias_solver::{Cmp, Formula, Term};

/// An expression the solver language cannot express (floats, for example).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unsupported(pub ExprId);

/// Maps symbols to solver variables and encodes expressions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Encoder {
    vars: Vec<String>,
    of_symbol: HashMap<SymbolId, u32>,
    /// The symbol of each variable (`None` for fresh variables).
    symbols: Vec<Option<SymbolId>>,
}

impl Encoder {
    /// Variable names so far (symbols first, in the order they were met, then
    /// any fresh variables).
    pub fn vars(&self) -> &[String] {
        &self.vars
    }

    /// The variable of a symbol, created on first use.
    pub fn symbol(&mut self, pool: &ExprPool, s: SymbolId) -> u32 {
        if let Some(&v) = self.of_symbol.get(&s) {
            return v;
        }
        let v = self.fresh(pool.symbol_name(s));
        self.of_symbol.insert(s, v);
        self.symbols[v as usize] = Some(s);
        v
    }

    /// The symbol behind a variable, if it is one.
    pub(crate) fn symbol_of(&self, var: u32) -> Option<SymbolId> {
        self.symbols.get(var as usize).copied().flatten()
    }

    /// A fresh variable (e.g. an index).
    pub fn fresh(&mut self, name: &str) -> u32 {
        self.vars.push(name.to_string());
        self.symbols.push(None);
        (self.vars.len() - 1) as u32
    }

    /// Encodes an integer expression.
    pub fn term(&mut self, pool: &ExprPool, e: ExprId) -> Result<Term, Unsupported> {
        Ok(match pool.node(e) {
            Node::Int(v) => Term::Int(*v),
            Node::Sym(s) => Term::Var(self.symbol(pool, *s)),
            Node::Add(xs) => Term::Add(self.terms(pool, xs)?),
            Node::Mul(xs) => Term::Mul(self.terms(pool, xs)?),
            Node::Pow(b, k) => {
                let t = self.term(pool, *b)?;
                Term::Mul(vec![t; *k as usize])
            }
            Node::Max(xs) => Term::Max(self.terms(pool, xs)?),
            Node::Min(xs) => Term::Min(self.terms(pool, xs)?),
            Node::Unary(UnOp::Abs, a) => {
                let t = self.term(pool, *a)?;
                let neg = Term::Mul(vec![Term::Int(-1), t.clone()]);
                Term::Ite(
                    Box::new(t.clone().cmp(Cmp::Ge, Term::Int(0))),
                    Box::new(t),
                    Box::new(neg),
                )
            }
            Node::Binary(op, [a, b]) => {
                let (x, y) = (self.term(pool, *a)?, self.term(pool, *b)?);
                match op {
                    BinOp::FloorDiv | BinOp::CleanDiv => Term::FloorDiv(Box::new(x), Box::new(y)),
                    BinOp::Mod | BinOp::PythonMod => Term::Mod(Box::new(x), Box::new(y)),
                    BinOp::CeilDiv => {
                        let neg = Term::Mul(vec![Term::Int(-1), x]);
                        Term::Mul(vec![
                            Term::Int(-1),
                            Term::FloorDiv(Box::new(neg), Box::new(y)),
                        ])
                    }
                    _ => return Err(Unsupported(e)),
                }
            }
            Node::Ternary(TernOp::ModularIndexing, [x, d, m]) => {
                let (x, d, m) = (
                    self.term(pool, *x)?,
                    self.term(pool, *d)?,
                    self.term(pool, *m)?,
                );
                Term::Mod(
                    Box::new(Term::FloorDiv(Box::new(x), Box::new(d))),
                    Box::new(m),
                )
            }
            Node::Ternary(TernOp::Where, [c, a, b]) => {
                let c = self.formula(pool, *c)?;
                Term::Ite(
                    Box::new(c),
                    Box::new(self.term(pool, *a)?),
                    Box::new(self.term(pool, *b)?),
                )
            }
            _ => return Err(Unsupported(e)),
        })
    }

    fn terms(&mut self, pool: &ExprPool, xs: &[ExprId]) -> Result<Vec<Term>, Unsupported> {
        xs.iter().map(|&x| self.term(pool, x)).collect()
    }

    /// Encodes a boolean expression.
    pub(crate) fn formula(&mut self, pool: &ExprPool, e: ExprId) -> Result<Formula, Unsupported> {
        Ok(match pool.node(e) {
            Node::Bool(true) => Formula::True,
            Node::Bool(false) => Formula::False,
            Node::And(xs) => Formula::And(
                xs.iter()
                    .map(|&x| self.formula(pool, x))
                    .collect::<Result<_, _>>()?,
            ),
            Node::Or(xs) => Formula::Or(
                xs.iter()
                    .map(|&x| self.formula(pool, x))
                    .collect::<Result<_, _>>()?,
            ),
            Node::Unary(UnOp::Not, a) => Formula::Not(Box::new(self.formula(pool, *a)?)),
            Node::Binary(op, [a, b]) if op.is_relation() => {
                let cmp = match op {
                    BinOp::Eq => Cmp::Eq,
                    BinOp::Ne => Cmp::Ne,
                    BinOp::Lt => Cmp::Lt,
                    BinOp::Le => Cmp::Le,
                    BinOp::Gt => Cmp::Gt,
                    _ => Cmp::Ge,
                };
                Formula::Cmp(cmp, self.term(pool, *a)?, self.term(pool, *b)?)
            }
            _ => return Err(Unsupported(e)),
        })
    }
}
