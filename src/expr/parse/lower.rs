//! Lowering: [`Ast`] → pool expression through the canonicalising
//! constructors, checking operand types (errors point at the operator).

use super::{err, Ast, AstKind, InfixOp, ParseError};
use crate::expr::node::{BinOp, ExprId, TernOp, Ty, UnOp};
use crate::expr::pool::ExprPool;

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
        AstKind::Sum(terms) => lower_sum(pool, terms),
        AstKind::Nary(InfixOp::Mul, xs) => lower_factors(pool, xs.iter()),
        AstKind::Nary(op @ (InfixOp::And | InfixOp::Or), xs) => {
            let name = if *op == InfixOp::And { "`&`" } else { "`|`" };
            let mut ys = Vec::with_capacity(xs.len());
            for x in xs {
                let y = lower(pool, x)?;
                check(pool, y, Want::Bool, name, x)?;
                ys.push(y);
            }
            Ok(if *op == InfixOp::And {
                pool.and(&ys)
            } else {
                pool.or(&ys)
            })
        }
        AstKind::Nary(op, xs) => {
            // Not made by the parser: fold as binary operations.
            let Some(mut acc) = xs.first().cloned() else {
                return err(ast.offset, "an empty chain");
            };
            for x in &xs[1..] {
                acc = Ast::new(
                    AstKind::Infix(*op, Box::new(acc), Box::new(x.clone())),
                    ast.offset,
                );
            }
            lower(pool, &acc)
        }
        AstKind::Call(name, args) => lower_call(pool, ast, name, args),
    }
}

/// Collects the factors of a product chain `a*b*c`, with every unary minus
/// on a factor counted apart: `-(x + 1)*y` is the product of -1, `x + 1` and
/// `y`. A parenthesised product inside the chain stays one factor (lowered
/// on its own): integer products flatten in the pool anyway, and float
/// products keep the grouping the text gives them, as the printer wrote it.
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

/// Lowers a sum chain at once: one n-ary sum (linear in the number of
/// terms), subtracted terms negated; float sums keep their left-to-right
/// binary shape (the pool folds them).
fn lower_sum(pool: &mut ExprPool, terms: &[(bool, Ast)]) -> Result<ExprId, ParseError> {
    let op_name = |minus: bool| if minus { "`-`" } else { "`+`" };
    let mut xs = Vec::with_capacity(terms.len());
    for (i, (minus, t)) in terms.iter().enumerate() {
        let x = lower(pool, t)?;
        // The first term is checked under the operator after it.
        let name = if i == 0 {
            op_name(terms.get(1).is_some_and(|t| t.0))
        } else {
            op_name(*minus)
        };
        check(pool, x, Want::Numeric, name, t)?;
        xs.push(if *minus { pool.neg(x) } else { x });
    }
    Ok(pool.add(&xs))
}

/// Lowers a whole product chain at once, so that its canonical form does not
/// depend on the grouping of the text (`2*(x + 1)*y` is one product of three
/// factors, not `(2*x + 2)*y`); printing and re-parsing then agree.
fn lower_product(pool: &mut ExprPool, a: &Ast, b: &Ast) -> Result<ExprId, ParseError> {
    lower_factors(pool, [a, b].into_iter())
}

/// Lowers the product of `operands` (each one's chain of factors flattened).
fn lower_factors<'a>(
    pool: &mut ExprPool,
    operands: impl Iterator<Item = &'a Ast>,
) -> Result<ExprId, ParseError> {
    let (mut factors, mut negs) = (Vec::new(), 0);
    for x in operands {
        mul_chain(x, &mut factors, &mut negs);
    }
    let mut xs = Vec::with_capacity(factors.len() + 1);
    if negs % 2 == 1 {
        xs.push(pool.int(-1));
    }
    for f in factors {
        let x = lower(pool, f)?;
        check(pool, x, Want::Numeric, "`*`", f)?;
        xs.push(x);
    }
    // Python multiplies left to right. The leading run of integer factors
    // is exact in any order: one canonical product; from the first float
    // on, the binary left-to-right shape is kept. (So the printed form of
    // the result, parenthesised or not, lowers to the same expression.)
    let ints = xs.iter().take_while(|&&x| pool.ty(x) == Ty::Int).count();
    let head = pool.mul(&xs[..ints]);
    let mut acc = if ints == 0 { xs[0] } else { head };
    for &x in &xs[ints.max(1)..] {
        acc = pool.mul(&[acc, x]);
    }
    Ok(acc)
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
            AstKind::Int(k) if k > u32::MAX as i128 => err(
                b.offset,
                format!("the exponent {k} of `**` is too large (at most {})", u32::MAX),
            ),
            _ => err(
                b.offset,
                "the exponent of `**` must be a non-negative integer literal (use FloatPow for others)",
            ),
        };
    }
    let x = lower(pool, a)?;
    let y = lower(pool, b)?;
    let (want, name) = match op {
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
