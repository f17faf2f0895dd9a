//! Python value semantics for every operator of FORMATS.md §1.
//!
//! Integers are computed in `i128` with checked operations, so that no
//! intermediate result can wrap; a result that does not fit the `i64` the
//! engine exchanges is reported as overflow by the caller
//! (evaluation, in `eval.rs`). Floats follow IEEE double arithmetic as Python does,
//! including Python's exceptions (division by zero, `OverflowError` of `**`).
//!
//! Constant folding in the pool and evaluation share these functions, so they
//! cannot disagree.

use super::node::{BinOp, TernOp, UnOp};
use std::cmp::Ordering;
use std::fmt;

/// A value during evaluation: integers are wide so that no intermediate wraps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wide {
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

/// What went wrong while applying an operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArithError {
    /// Division or modulo by zero.
    DivisionByZero,
    /// An integer result does not fit (or a float `**` overflowed, as in Python).
    Overflow,
    /// An operand has the wrong type for the operator.
    Type(String),
    /// An operand is outside the operator's domain (e.g. `TruncToInt(nan)`).
    Domain(String),
}

impl fmt::Display for ArithError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArithError::DivisionByZero => f.write_str("division by zero"),
            ArithError::Overflow => f.write_str("integer overflow (result does not fit in i64)"),
            ArithError::Type(m) => write!(f, "type error: {m}"),
            ArithError::Domain(m) => write!(f, "domain error: {m}"),
        }
    }
}

type R = Result<Wide, ArithError>;

/// Python `a // b` on integers.
pub fn floordiv(a: i128, b: i128) -> Result<i128, ArithError> {
    if b == 0 {
        return Err(ArithError::DivisionByZero);
    }
    let q = a.checked_div(b).ok_or(ArithError::Overflow)?;
    let r = a - q * b;
    Ok(if r != 0 && ((r < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Python `a % b` on integers (the sign of the result is the sign of `b`).
pub fn pymod(a: i128, b: i128) -> Result<i128, ArithError> {
    if b == 0 {
        return Err(ArithError::DivisionByZero);
    }
    if b == -1 {
        return Ok(0);
    }
    let r = a % b;
    Ok(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// Ceiling division `-((-a) // b)`.
pub fn ceildiv(a: i128, b: i128) -> Result<i128, ArithError> {
    let q = floordiv(a, b)?;
    if pymod(a, b)? != 0 {
        q.checked_add(1).ok_or(ArithError::Overflow)
    } else {
        Ok(q)
    }
}

/// Exact comparison of two numbers (Python compares int and float exactly).
/// `None` when a NaN is involved.
pub(crate) fn num_cmp(a: Wide, b: Wide) -> Result<Option<Ordering>, ArithError> {
    Ok(match (a, b) {
        (Wide::Int(x), Wide::Int(y)) => Some(x.cmp(&y)),
        (Wide::Float(x), Wide::Float(y)) => x.partial_cmp(&y),
        (Wide::Int(x), Wide::Float(y)) => cmp_int_float(x, y),
        (Wide::Float(x), Wide::Int(y)) => cmp_int_float(y, x).map(Ordering::reverse),
        _ => return Err(ArithError::Type("comparison of a boolean".into())),
    })
}

fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    let t = f.floor();
    const LIM: f64 = 1.7014118346046923e38; // 2^127
    if t < -LIM {
        return Some(Ordering::Greater);
    }
    if t >= LIM {
        return Some(Ordering::Less);
    }
    let ti = t as i128;
    Some(match i.cmp(&ti) {
        Ordering::Less => Ordering::Less,
        Ordering::Equal if f == t => Ordering::Equal,
        Ordering::Equal => Ordering::Less,
        Ordering::Greater => Ordering::Greater,
    })
}

fn to_f64(v: Wide, op: &str) -> Result<f64, ArithError> {
    match v {
        Wide::Int(i) => Ok(i as f64),
        Wide::Float(f) => Ok(f),
        Wide::Bool(_) => Err(ArithError::Type(format!("{op} of a boolean"))),
    }
}

fn to_int(v: Wide, op: &str) -> Result<i128, ArithError> {
    match v {
        Wide::Int(i) => Ok(i),
        _ => Err(ArithError::Type(format!("{op} expects integers"))),
    }
}

fn to_bool(v: Wide, op: &str) -> Result<bool, ArithError> {
    match v {
        Wide::Bool(b) => Ok(b),
        _ => Err(ArithError::Type(format!("{op} expects booleans"))),
    }
}

/// `a + b`.
pub fn add(a: Wide, b: Wide) -> R {
    match (a, b) {
        (Wide::Int(x), Wide::Int(y)) => x.checked_add(y).map(Wide::Int).ok_or(ArithError::Overflow),
        _ => Ok(Wide::Float(to_f64(a, "+")? + to_f64(b, "+")?)),
    }
}

/// `a * b`.
pub fn mul(a: Wide, b: Wide) -> R {
    match (a, b) {
        (Wide::Int(x), Wide::Int(y)) => x.checked_mul(y).map(Wide::Int).ok_or(ArithError::Overflow),
        _ => Ok(Wide::Float(to_f64(a, "*")? * to_f64(b, "*")?)),
    }
}

/// `a ** k` for a non-negative integer exponent.
pub fn pow(a: Wide, k: u32) -> R {
    match a {
        Wide::Int(x) => x.checked_pow(k).map(Wide::Int).ok_or(ArithError::Overflow),
        Wide::Float(f) => float_pow(f, k as f64),
        Wide::Bool(_) => Err(ArithError::Type("** of a boolean".into())),
    }
}

/// Python's float `**`: errors where Python raises.
fn float_pow(a: f64, b: f64) -> R {
    if a == 0.0 && b < 0.0 {
        return Err(ArithError::DivisionByZero);
    }
    if a < 0.0 && b.is_finite() && b.fract() != 0.0 {
        return Err(ArithError::Domain(format!(
            "{a} ** {b} is complex in Python"
        )));
    }
    let r = a.powf(b);
    if r.is_infinite() && a.is_finite() && b.is_finite() {
        return Err(ArithError::Overflow);
    }
    Ok(Wide::Float(r))
}

/// n-ary `Max` (`want = Greater`) or `Min` (`want = Less`): the first extreme
/// element, as Python's `max`/`min` return it.
pub fn extreme(vals: &[Wide], want: Ordering) -> R {
    let mut best = *vals
        .first()
        .ok_or_else(|| ArithError::Type("Max/Min of nothing".into()))?;
    for &v in &vals[1..] {
        if num_cmp(v, best)? == Some(want) {
            best = v;
        }
    }
    // A NaN operand poisons the comparison; Python keeps whichever came first,
    // which is what the loop above does.
    Ok(best)
}

/// Unary operators.
pub fn unary(op: UnOp, a: Wide) -> R {
    match op {
        UnOp::Abs => match a {
            Wide::Int(x) => x.checked_abs().map(Wide::Int).ok_or(ArithError::Overflow),
            Wide::Float(f) => Ok(Wide::Float(f.abs())),
            Wide::Bool(_) => Err(ArithError::Type("Abs of a boolean".into())),
        },
        UnOp::Not => Ok(Wide::Bool(!to_bool(a, "Not")?)),
        UnOp::ToFloat => Ok(Wide::Float(to_f64(a, "ToFloat")?)),
        UnOp::TruncToInt => match a {
            Wide::Int(x) => Ok(Wide::Int(x)),
            Wide::Float(f) => {
                if !f.is_finite() {
                    return Err(ArithError::Domain(format!("TruncToInt({f})")));
                }
                let t = f.trunc();
                if t.abs() >= 1.7014118346046923e38 {
                    return Err(ArithError::Overflow);
                }
                Ok(Wide::Int(t as i128))
            }
            Wide::Bool(_) => Err(ArithError::Type("TruncToInt of a boolean".into())),
        },
    }
}

/// Binary operators.
pub fn binary(op: BinOp, a: Wide, b: Wide) -> R {
    let name = format!("{op:?}");
    match op {
        BinOp::FloorDiv | BinOp::CleanDiv => {
            Ok(Wide::Int(floordiv(to_int(a, &name)?, to_int(b, &name)?)?))
        }
        BinOp::CeilDiv => Ok(Wide::Int(ceildiv(to_int(a, &name)?, to_int(b, &name)?)?)),
        BinOp::Mod | BinOp::PythonMod => {
            Ok(Wide::Int(pymod(to_int(a, &name)?, to_int(b, &name)?)?))
        }
        BinOp::Eq | BinOp::Ne => {
            let eq = match (a, b) {
                (Wide::Bool(x), Wide::Bool(y)) => x == y,
                (Wide::Bool(_), _) | (_, Wide::Bool(_)) => {
                    return Err(ArithError::Type(format!(
                        "{name} of a boolean and a number"
                    )))
                }
                _ => num_cmp(a, b)? == Some(Ordering::Equal),
            };
            Ok(Wide::Bool(if op == BinOp::Eq { eq } else { !eq }))
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let c = num_cmp(a, b)?;
            Ok(Wide::Bool(match c {
                None => false,
                Some(c) => match op {
                    BinOp::Lt => c == Ordering::Less,
                    BinOp::Le => c != Ordering::Greater,
                    BinOp::Gt => c == Ordering::Greater,
                    _ => c != Ordering::Less,
                },
            }))
        }
        BinOp::FloatTrueDiv => {
            let (x, y) = (to_f64(a, &name)?, to_f64(b, &name)?);
            if y == 0.0 {
                return Err(ArithError::DivisionByZero);
            }
            Ok(Wide::Float(x / y))
        }
        BinOp::IntTrueDiv => {
            let (x, y) = (to_int(a, &name)?, to_int(b, &name)?);
            if y == 0 {
                return Err(ArithError::DivisionByZero);
            }
            // Python rounds int/int correctly for any size; float(x)/float(y) is
            // correctly rounded only while both are exact doubles.
            const EXACT: i128 = 1 << 53;
            if x.abs() > EXACT || y.abs() > EXACT {
                return Err(ArithError::Domain(format!(
                    "IntTrueDiv({x}, {y}): operands beyond 2**53 are not supported"
                )));
            }
            Ok(Wide::Float(x as f64 / y as f64))
        }
        BinOp::FloatPow => float_pow(to_f64(a, &name)?, to_f64(b, &name)?),
    }
}

/// `ModularIndexing(x, d, m)` = `(x // d) % m`.
pub(crate) fn modular_indexing(x: Wide, d: Wide, m: Wide) -> R {
    let n = "ModularIndexing";
    let q = floordiv(to_int(x, n)?, to_int(d, n)?)?;
    Ok(Wide::Int(pymod(q, to_int(m, n)?)?))
}

/// Ternary operators whose operands are all evaluated (`Where` is lazy in the
/// evaluator and only reaches here for constant folding).
pub fn ternary(op: TernOp, a: Wide, b: Wide, c: Wide) -> R {
    match op {
        TernOp::ModularIndexing => modular_indexing(a, b, c),
        TernOp::Where => Ok(if to_bool(a, "Where")? { b } else { c }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python: `[(a // b, a % b) for a in (7, -7) for b in (2, -2)]` and friends.
    #[test]
    fn floor_division_and_remainder_follow_python_on_all_signs() {
        let table: &[(i128, i128, i128, i128)] = &[
            (7, 2, 3, 1),
            (-7, 2, -4, 1),
            (7, -2, -4, -1),
            (-7, -2, 3, -1),
            (6, 3, 2, 0),
            (-6, 3, -2, 0),
            (6, -3, -2, 0),
            (-6, -3, 2, 0),
            (0, 5, 0, 0),
            (0, -5, 0, 0),
            (1, 5, 0, 1),
            (-1, 5, -1, 4),
            (1, -5, -1, -4),
            (-1, -5, 0, -1),
        ];
        for &(a, b, q, r) in table {
            assert_eq!(floordiv(a, b), Ok(q), "{a} // {b}");
            assert_eq!(pymod(a, b), Ok(r), "{a} % {b}");
            // Python's identity: a == (a // b) * b + a % b.
            assert_eq!(q * b + r, a);
        }
    }

    #[test]
    fn ceil_division_follows_python() {
        // -(-a // b) in Python.
        for &(a, b, c) in &[
            (7i128, 2i128, 4i128),
            (-7, 2, -3),
            (7, -2, -3),
            (-7, -2, 4),
            (6, 3, 2),
        ] {
            assert_eq!(ceildiv(a, b), Ok(c), "CeilDiv({a}, {b})");
        }
    }

    #[test]
    fn division_by_zero_is_an_error() {
        assert_eq!(floordiv(1, 0), Err(ArithError::DivisionByZero));
        assert_eq!(pymod(1, 0), Err(ArithError::DivisionByZero));
        assert_eq!(ceildiv(1, 0), Err(ArithError::DivisionByZero));
        assert_eq!(
            binary(BinOp::FloatTrueDiv, Wide::Float(1.0), Wide::Int(0)),
            Err(ArithError::DivisionByZero)
        );
        assert_eq!(
            binary(BinOp::FloatPow, Wide::Float(0.0), Wide::Float(-1.0)),
            Err(ArithError::DivisionByZero)
        );
    }

    #[test]
    fn wide_overflow_is_an_error_not_a_wrap() {
        assert_eq!(floordiv(i128::MIN, -1), Err(ArithError::Overflow));
        assert_eq!(pymod(i128::MIN, -1), Ok(0));
        assert_eq!(
            add(Wide::Int(i128::MAX), Wide::Int(1)),
            Err(ArithError::Overflow)
        );
        assert_eq!(pow(Wide::Int(2), 200), Err(ArithError::Overflow));
        assert_eq!(
            binary(BinOp::FloatPow, Wide::Float(10.0), Wide::Float(400.0)),
            Err(ArithError::Overflow)
        );
    }

    #[test]
    fn int_float_comparison_is_exact() {
        let big = (1i128 << 53) + 1;
        // In Python, 2**53 + 1 > float(2**53) is True although float(2**53 + 1) == float(2**53).
        assert_eq!(
            num_cmp(Wide::Int(big), Wide::Float(9007199254740992.0)),
            Ok(Some(Ordering::Greater))
        );
        assert_eq!(
            num_cmp(Wide::Int(2), Wide::Float(2.5)),
            Ok(Some(Ordering::Less))
        );
        assert_eq!(
            num_cmp(Wide::Int(-3), Wide::Float(-2.5)),
            Ok(Some(Ordering::Less))
        );
        assert_eq!(
            num_cmp(Wide::Int(3), Wide::Float(3.0)),
            Ok(Some(Ordering::Equal))
        );
        assert_eq!(num_cmp(Wide::Int(3), Wide::Float(f64::NAN)), Ok(None));
        assert_eq!(
            num_cmp(Wide::Int(3), Wide::Float(f64::INFINITY)),
            Ok(Some(Ordering::Less))
        );
    }

    #[test]
    fn float_forms_follow_python() {
        assert_eq!(
            unary(UnOp::TruncToInt, Wide::Float(-2.7)),
            Ok(Wide::Int(-2))
        );
        assert!(matches!(
            unary(UnOp::TruncToInt, Wide::Float(f64::NAN)),
            Err(ArithError::Domain(_))
        ));
        assert_eq!(
            binary(BinOp::IntTrueDiv, Wide::Int(7), Wide::Int(2)),
            Ok(Wide::Float(3.5))
        );
        assert!(matches!(
            binary(BinOp::FloatPow, Wide::Float(-8.0), Wide::Float(0.5)),
            Err(ArithError::Domain(_))
        ));
        // max(1, 1.0) is 1 in Python: the first of equal elements wins.
        assert_eq!(
            extreme(&[Wide::Int(1), Wide::Float(1.0)], Ordering::Greater),
            Ok(Wide::Int(1))
        );
    }
}
