//! Loading a case's symbols, assumptions and expression fields into a pool and
//! an environment, with errors that name the field.

use super::error::InputError;
use super::types::{ExprField, SymbolSpec};
use crate::env::Env;
use crate::expr::{parse, ExprId, ExprPool};
use crate::simplify::{simplify, SimplifyOptions};
use std::collections::BTreeMap;

/// A pool and a validated environment.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The expressions of the case.
    pub pool: ExprPool,
    /// Its shape environment.
    pub env: Env,
}

/// Builds the environment of a case: declares every symbol (checking ranges and
/// hints), then parses and checks every assumption.
///
/// ```
/// use std::collections::BTreeMap;
/// use symalias::io::{load_env, SymbolSpec};
/// let mut symbols = BTreeMap::new();
/// symbols.insert("s0".to_string(), SymbolSpec { hint: Some(1), min: Some(2), ..Default::default() });
/// let err = load_env(&symbols, &[]).unwrap_err();
/// assert_eq!(err.to_string(), "field `symbols.s0`: symbol `s0`: hint 1 is outside its range [2, oo)");
/// ```
pub fn load_env(
    symbols: &BTreeMap<String, SymbolSpec>,
    assumptions: &[String],
) -> Result<Loaded, InputError> {
    load_env_with(symbols, assumptions, None)
}

/// [`load_env`], simplifying each assumption first (under the symbols' ranges
/// alone, so that an assumption cannot be used to simplify itself away).
pub fn load_env_simplified(
    symbols: &BTreeMap<String, SymbolSpec>,
    assumptions: &[String],
    opts: &SimplifyOptions,
) -> Result<Loaded, InputError> {
    load_env_with(symbols, assumptions, Some(opts))
}

fn load_env_with(
    symbols: &BTreeMap<String, SymbolSpec>,
    assumptions: &[String],
    simplify_opts: Option<&SimplifyOptions>,
) -> Result<Loaded, InputError> {
    let mut out = Loaded::default();
    for (name, spec) in symbols {
        valid_name(name).map_err(|m| InputError::field(format!("symbols.{name}"), m))?;
        out.env
            .declare(
                &mut out.pool,
                name,
                spec.hint,
                spec.min,
                spec.max,
                spec.source.clone(),
            )
            .map_err(|e| InputError::field(format!("symbols.{name}"), e.to_string()))?;
    }
    let ranges = simplify_opts.map(|_| out.env.clone());
    for (i, text) in assumptions.iter().enumerate() {
        let field = format!("assumptions[{i}]");
        let mut a = parse(&mut out.pool, text)
            .map_err(|e| InputError::field(&field, format!("`{text}`: {e}")))?;
        if let (Some(opts), Some(ranges)) = (simplify_opts, &ranges) {
            out.env
                .check_symbols(&out.pool, a, false)
                .map_err(|e| InputError::field(&field, e.to_string()))?;
            a = simplify(&mut out.pool, ranges, a, opts).expr;
        }
        out.env
            .assume(&mut out.pool, a)
            .map_err(|e| InputError::field(&field, e.to_string()))?;
    }
    Ok(out)
}

fn valid_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a symbol name ([A-Za-z_][A-Za-z0-9_]*)"
        ))
    }
}

/// Parses an expression field of a case and checks that its symbols are declared
/// (and have hints, with `need_hints`).
pub fn load_expr(
    loaded: &mut Loaded,
    field: &str,
    value: &ExprField,
    need_hints: bool,
) -> Result<ExprId, InputError> {
    let e = match value {
        ExprField::Int(v) => loaded.pool.int(*v),
        ExprField::Text(t) => parse(&mut loaded.pool, t)
            .map_err(|e| InputError::field(field, format!("`{t}`: {e}")))?,
    };
    loaded
        .env
        .check_symbols(&loaded.pool, e, need_hints)
        .map_err(|e| InputError::field(field, e.to_string()))?;
    Ok(e)
}
