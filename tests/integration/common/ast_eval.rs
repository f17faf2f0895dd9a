//! Test support: the as-written reference evaluator of syntax trees.

use symalias::expr::arith::{self, ArithError, Wide};
use symalias::expr::{Ast, AstKind, BinOp, InfixOp, TernOp, UnOp};

#[derive(Clone, Copy)]
enum Func {
    Un(UnOp),
    Bin(BinOp),
    Tern(TernOp),
    Max,
    Min,
    And,
    Or,
}

/// The functions of FORMATS.md §1, as the reference reads them.
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

/// Evaluates a syntax tree as written, eagerly and without any
/// canonicalisation: the reference the pool's canonical forms are tested
/// against (its own table of function names, independent of the parser's).
pub fn eval_ast(ast: &Ast, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<Wide, ArithError> {
    let ev = |a: &Ast| eval_ast(a, lookup);
    Ok(match &ast.kind {
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
        AstKind::Sum(terms) => {
            let mut acc: Option<Wide> = None;
            for (minus, t) in terms {
                let x = ev(t)?;
                acc = Some(match acc {
                    None => x,
                    Some(a) if *minus => sub(a, x)?,
                    Some(a) => arith::add(a, x)?,
                });
            }
            acc.ok_or_else(|| ArithError::Type("empty sum".into()))?
        }
        AstKind::Nary(op, xs) => {
            let mut acc: Option<Wide> = None;
            for x in xs {
                let y = ev(x)?;
                acc = Some(match acc {
                    None => y,
                    Some(a) => match op {
                        InfixOp::Mul => arith::mul(a, y)?,
                        InfixOp::And | InfixOp::Or => match (a, y) {
                            (Wide::Bool(p), Wide::Bool(q)) => {
                                Wide::Bool(if *op == InfixOp::And { p && q } else { p || q })
                            }
                            _ => return Err(ArithError::Type("&|".into())),
                        },
                        _ => return Err(ArithError::Type("chain".into())),
                    },
                });
            }
            acc.ok_or_else(|| ArithError::Type("empty chain".into()))?
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

/// `x - y` with Python semantics.
fn sub(x: Wide, y: Wide) -> Result<Wide, ArithError> {
    Ok(match (x, y) {
        (Wide::Int(p), Wide::Int(q)) => Wide::Int(p.checked_sub(q).ok_or(ArithError::Overflow)?),
        (Wide::Bool(_), _) | (_, Wide::Bool(_)) => return Err(ArithError::Type("-".into())),
        _ => Wide::Float(as_f64(x) - as_f64(y)),
    })
}

fn as_f64(w: Wide) -> f64 {
    match w {
        Wide::Int(i) => i as f64,
        Wide::Float(f) => f,
        Wide::Bool(b) => b as u8 as f64,
    }
}
