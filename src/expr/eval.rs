//! Evaluation of expressions at concrete symbol values, with Python semantics.

use super::arith::{self, ArithError, Wide};
use super::node::{ExprId, Node, SymbolId, TernOp};
use super::pool::ExprPool;
use hashbrown::HashMap;
use std::cmp::Ordering;
use std::fmt;

/// A concrete value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

impl Value {
    /// The integer, if this is one.
    pub(crate) fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// Python-style equality that also treats two NaNs as the same value
    /// (what "the same result" means when comparing two evaluations).
    pub fn same(self, other: Value) -> bool {
        match (self, other) {
            (Value::Float(a), Value::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            _ => self == other,
        }
    }
}

impl fmt::Display for Value {
    /// Prints as Python would (`3`, `2.5`, `True`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(x) => f.write_str(&super::print::python_float(*x)),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
        }
    }
}

/// Why an evaluation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalErrorKind {
    /// An operator failed (division by zero, overflow, type, domain).
    Arith(ArithError),
    /// A symbol has no value in the assignment.
    Unbound(String),
}

/// An evaluation error, naming the sub-expression where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    /// What went wrong.
    pub kind: EvalErrorKind,
    /// The sub-expression (printed) that failed.
    pub expr: String,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            EvalErrorKind::Arith(e) => write!(f, "{e} in `{}`", self.expr),
            EvalErrorKind::Unbound(s) => {
                write!(f, "symbol `{s}` has no value (in `{}`)", self.expr)
            }
        }
    }
}

impl std::error::Error for EvalError {}

/// Converts a wide result to a [`Value`], checking that integers fit `i64`.
pub fn narrow(w: Wide) -> Result<Value, ArithError> {
    Ok(match w {
        Wide::Int(v) => Value::Int(i64::try_from(v).map_err(|_| ArithError::Overflow)?),
        Wide::Float(f) => Value::Float(f),
        Wide::Bool(b) => Value::Bool(b),
    })
}

impl ExprPool {
    /// Evaluates `id` with symbol values from `lookup`.
    ///
    /// Integers are computed without wrapping; the result must fit `i64`.
    /// `Where`, `And` and `Or` evaluate lazily, like Python's conditional and
    /// boolean operators.
    ///
    /// ```
    /// use symalias::expr::{parse, ExprPool, Value};
    /// let mut pool = ExprPool::new();
    /// let e = parse(&mut pool, "Mod(-7, s0) + (-7)//s0").unwrap();
    /// let s0 = pool.lookup_symbol("s0").unwrap();
    /// let v = pool.eval(e, &|s| (s == s0).then_some(2)).unwrap();
    /// assert_eq!(v, Value::Int(1 + -4));
    /// ```
    pub fn eval(
        &self,
        id: ExprId,
        lookup: &dyn Fn(SymbolId) -> Option<i64>,
    ) -> Result<Value, EvalError> {
        let mut memo = HashMap::new();
        let w = self.eval_wide(id, lookup, &mut memo)?;
        narrow(w).map_err(|e| self.error_at(id, EvalErrorKind::Arith(e)))
    }

    /// Evaluates an integer expression (a non-integer result is a type error).
    pub fn eval_int(
        &self,
        id: ExprId,
        lookup: &dyn Fn(SymbolId) -> Option<i64>,
    ) -> Result<i64, EvalError> {
        match self.eval(id, lookup)? {
            Value::Int(v) => Ok(v),
            other => Err(self.error_at(
                id,
                EvalErrorKind::Arith(ArithError::Type(format!(
                    "expected an integer, got {other}"
                ))),
            )),
        }
    }

    fn error_at(&self, id: ExprId, kind: EvalErrorKind) -> EvalError {
        EvalError {
            kind,
            expr: self.display(id).to_string(),
        }
    }

    fn eval_wide(
        &self,
        id: ExprId,
        lookup: &dyn Fn(SymbolId) -> Option<i64>,
        memo: &mut HashMap<ExprId, Wide>,
    ) -> Result<Wide, EvalError> {
        if let Some(&w) = memo.get(&id) {
            return Ok(w);
        }
        let node = self.node(id);
        let arith_err = |e: ArithError| self.error_at(id, EvalErrorKind::Arith(e));
        let r: Wide = match node {
            Node::Int(v) => Wide::Int(*v as i128),
            Node::Float(b) => Wide::Float(f64::from_bits(*b)),
            Node::Bool(b) => Wide::Bool(*b),
            Node::Sym(s) => match lookup(*s) {
                Some(v) => Wide::Int(v as i128),
                None => {
                    return Err(
                        self.error_at(id, EvalErrorKind::Unbound(self.symbol_name(*s).to_string()))
                    )
                }
            },
            Node::And(xs) | Node::Or(xs) => {
                let is_and = matches!(node, Node::And(_));
                let mut out = is_and;
                for &x in xs.iter() {
                    match self.eval_wide(x, lookup, memo)? {
                        Wide::Bool(b) if b != is_and => {
                            out = b;
                            break;
                        }
                        Wide::Bool(_) => {}
                        _ => {
                            return Err(arith_err(ArithError::Type(
                                "And/Or expects booleans".into(),
                            )))
                        }
                    }
                }
                Wide::Bool(out)
            }
            Node::Ternary(TernOp::Where, [c, a, b]) => match self.eval_wide(*c, lookup, memo)? {
                Wide::Bool(true) => self.eval_wide(*a, lookup, memo)?,
                Wide::Bool(false) => self.eval_wide(*b, lookup, memo)?,
                _ => {
                    return Err(arith_err(ArithError::Type(
                        "Where expects a boolean condition".into(),
                    )))
                }
            },
            _ => {
                let mut vals = Vec::with_capacity(node.children().len());
                for &c in node.children() {
                    vals.push(self.eval_wide(c, lookup, memo)?);
                }
                apply(node, &vals).map_err(arith_err)?
            }
        };
        memo.insert(id, r);
        Ok(r)
    }
}

/// Applies the operator of `node` to already evaluated operands.
pub(crate) fn apply(node: &Node, vals: &[Wide]) -> Result<Wide, ArithError> {
    match node {
        Node::Add(_) => vals[1..].iter().try_fold(vals[0], |a, &b| arith::add(a, b)),
        Node::Mul(_) => vals[1..].iter().try_fold(vals[0], |a, &b| arith::mul(a, b)),
        Node::Pow(_, k) => arith::pow(vals[0], *k),
        Node::Max(_) => arith::extreme(vals, Ordering::Greater),
        Node::Min(_) => arith::extreme(vals, Ordering::Less),
        Node::Unary(op, _) => arith::unary(*op, vals[0]),
        Node::Binary(op, _) => arith::binary(*op, vals[0], vals[1]),
        Node::Ternary(op, _) => arith::ternary(*op, vals[0], vals[1], vals[2]),
        Node::And(_) | Node::Or(_) => {
            let is_and = matches!(node, Node::And(_));
            let mut out = is_and;
            for v in vals {
                match v {
                    Wide::Bool(b) => {
                        if is_and {
                            out &= b
                        } else {
                            out |= b
                        }
                    }
                    _ => return Err(ArithError::Type("And/Or expects booleans".into())),
                }
            }
            Ok(Wide::Bool(out))
        }
        Node::Int(_) | Node::Float(_) | Node::Bool(_) | Node::Sym(_) => {
            Err(ArithError::Type("not an operator".into()))
        }
    }
}
