//! Printing in the style of SymPy's `str()` with PyTorch's functions, so that a
//! printed expression can be pasted back into Python and parses back here.
//!
//! Precedences follow SymPy's printer: Atom 1000, Not 100, functions 70, Pow 60,
//! Mul 50, Add 40 (also a negative number or product), `&` 38, `|` 36, and 35 for
//! relations and for PyTorch's `FloorDiv`, `Mod`, `PythonMod`, `ModularIndexing`
//! and `Where`, which therefore get
//! parentheses inside sums and products: `s0 - (((s1 + 1)//2))`.

use super::node::{BinOp, ExprId, Node, UnOp};
use super::pool::ExprPool;
use std::fmt::{self, Write};

const ATOM: u32 = 1000;
const NOT: u32 = 100;
const FUNC: u32 = 70;
const POW: u32 = 60;
const MUL: u32 = 50;
const ADD: u32 = 40;
const BIT_AND: u32 = 38;
const BIT_OR: u32 = 36;
const REL: u32 = 35;

/// A [`fmt::Display`] view of an expression; see [`ExprPool::display`].
pub struct Display<'a> {
    pool: &'a ExprPool,
    id: ExprId,
}

impl ExprPool {
    /// Displays `id` in SymPy/PyTorch text form.
    pub fn display(&self, id: ExprId) -> Display<'_> {
        Display { pool: self, id }
    }
}

impl fmt::Display for Display<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        Printer { pool: self.pool }.print(self.id, &mut s);
        f.write_str(&s)
    }
}

/// Formats a float as Python's `repr` does (`0.5`, `2.0`, `1e-05`, `1e+16`).
pub fn python_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let sci = format!("{:e}", x.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let decpt = exp + 1;
        let body = if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(decpt as usize - digits.len()))
        } else {
            let (a, b) = digits.split_at(decpt as usize);
            format!("{a}.{b}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

struct Printer<'a> {
    pool: &'a ExprPool,
}

impl Printer<'_> {
    fn prec(&self, id: ExprId) -> u32 {
        match self.pool.node(id) {
            Node::Int(v) if *v < 0 => ADD,
            Node::Float(b) if f64::from_bits(*b).is_sign_negative() => ADD,
            Node::Int(_) | Node::Float(_) | Node::Bool(_) | Node::Sym(_) => ATOM,
            Node::Add(_) => ADD,
            Node::Mul(xs) => {
                if self.prec(xs[0]) == ADD && self.pool.node(xs[0]).is_const() {
                    ADD
                } else {
                    MUL
                }
            }
            Node::Pow(..) => POW,
            Node::Unary(UnOp::Not, _) => NOT,
            Node::Unary(..) => FUNC,
            // PyTorch gives these functions precedence 35, below `+`.
            Node::Binary(BinOp::FloorDiv | BinOp::CleanDiv | BinOp::Mod | BinOp::PythonMod, _) => {
                REL
            }
            Node::Binary(op, _) if op.infix().is_some() => REL,
            Node::Binary(..) => FUNC,
            Node::Ternary(..) => REL,
            Node::Max(_) | Node::Min(_) => FUNC,
            Node::And(_) => 30,
            Node::Or(_) => 20,
        }
    }

    /// Prints `id`, in parentheses when its precedence is at most `level`
    /// (SymPy's `parenthesize(..., strict=False)`).
    fn paren(&self, id: ExprId, level: u32, out: &mut String) {
        if self.prec(id) <= level {
            out.push('(');
            self.print(id, out);
            out.push(')');
        } else {
            self.print(id, out);
        }
    }

    fn call(&self, name: &str, args: &[ExprId], out: &mut String) {
        out.push_str(name);
        out.push('(');
        for (i, &a) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.print(a, out);
        }
        out.push(')');
    }

    fn print(&self, id: ExprId, out: &mut String) {
        match self.pool.node(id) {
            Node::Int(v) => {
                let _ = write!(out, "{v}");
            }
            Node::Float(b) => out.push_str(&python_float(f64::from_bits(*b))),
            Node::Bool(true) => out.push_str("True"),
            Node::Bool(false) => out.push_str("False"),
            Node::Sym(s) => out.push_str(self.pool.symbol_name(*s)),
            Node::Add(xs) => self.print_add(xs, out),
            Node::Mul(xs) => self.print_mul(xs, out),
            Node::Pow(b, k) => {
                self.paren(*b, POW, out);
                let _ = write!(out, "**{k}");
            }
            Node::Unary(UnOp::Not, a) => {
                out.push('~');
                self.paren(*a, NOT - 1, out);
            }
            Node::Unary(op, a) => self.call(&format!("{op:?}"), &[*a], out),
            Node::Binary(BinOp::FloorDiv | BinOp::CleanDiv, [a, b]) => {
                out.push('(');
                self.paren(*a, ATOM - 1, out);
                out.push_str("//");
                self.paren(*b, ATOM - 1, out);
                out.push(')');
            }
            Node::Binary(op, [a, b]) => match op.infix() {
                Some(sym) => {
                    self.paren(*a, REL, out);
                    let _ = write!(out, " {sym} ");
                    self.paren(*b, REL, out);
                }
                None => self.call(&format!("{op:?}"), &[*a, *b], out),
            },
            Node::Ternary(op, args) => self.call(&format!("{op:?}"), args, out),
            Node::Max(xs) => self.call("Max", xs, out),
            Node::Min(xs) => self.call("Min", xs, out),
            Node::And(xs) => self.join(xs, " & ", BIT_AND, out),
            Node::Or(xs) => self.join(xs, " | ", BIT_OR, out),
        }
    }

    fn join(&self, xs: &[ExprId], sep: &str, level: u32, out: &mut String) {
        for (i, &x) in xs.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            self.paren(x, level, out);
        }
    }

    fn print_add(&self, xs: &[ExprId], out: &mut String) {
        // SymPy prints `3 - 3*x` (not `-3*x + 3`) for a positive constant plus
        // a negated product; the pool keeps the constant last.
        let swapped;
        let xs = match xs {
            [m, c]
                if self.is_neg_product(*m)
                    && matches!(self.pool.node(*c), Node::Int(v) if *v > 0) =>
            {
                swapped = [*c, *m];
                &swapped[..]
            }
            _ => xs,
        };
        for (i, &t) in xs.iter().enumerate() {
            let mut s = String::new();
            self.print(t, &mut s);
            let is_add = matches!(self.pool.node(t), Node::Add(_));
            let (neg, body) = match s.strip_prefix('-') {
                Some(rest) if !is_add => (true, rest.to_string()),
                _ => (false, s),
            };
            if i == 0 {
                if neg {
                    out.push('-');
                }
            } else {
                out.push_str(if neg { " - " } else { " + " });
            }
            // A later operand that is itself a sum (float sums stay binary)
            // needs parentheses to keep its grouping.
            if self.prec(t) < ADD || (is_add && i > 0) {
                let _ = write!(out, "({body})");
            } else {
                out.push_str(&body);
            }
        }
    }

    fn is_neg_product(&self, id: ExprId) -> bool {
        match self.pool.node(id) {
            Node::Mul(fs) => matches!(self.pool.node(fs[0]), Node::Int(v) if *v < 0),
            _ => false,
        }
    }

    fn print_mul(&self, xs: &[ExprId], out: &mut String) {
        let mut rest: &[ExprId] = xs;
        if let Node::Int(-1) = self.pool.node(xs[0]) {
            if xs.len() > 1 {
                out.push('-');
                rest = &xs[1..];
            }
        }
        for (i, &f) in rest.iter().enumerate() {
            if i > 0 {
                out.push('*');
            }
            let leading_const = i == 0 && self.pool.node(f).is_const();
            if leading_const {
                self.print(f, out);
            } else {
                self.paren(f, MUL, out);
            }
        }
    }
}
