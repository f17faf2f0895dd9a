//! Loading a case's symbols, assumptions and expression fields into a
//! [`Scope`] (pool and environment), with errors that name the field. Loading
//! parses and checks; it does not simplify (the analysis does).

use super::error::{abbrev, InputError};
use super::types::{ExprField, SymbolSpec};
use crate::analysis::Scope;
use crate::env::SymbolDecl;
use crate::expr::{parse, ExprId};
use crate::layout::Layout;
use std::collections::BTreeMap;

/// Builds the scope of a case: declares every symbol (the environment checks
/// names, ranges and hints), then parses and checks every assumption.
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
) -> Result<Scope, InputError> {
    let mut out = Scope::new();
    for (name, spec) in symbols {
        out.env
            .declare(
                &mut out.pool,
                &SymbolDecl {
                    name: name.clone(),
                    hint: spec.hint,
                    min: spec.min,
                    max: spec.max,
                    source: spec.source.clone(),
                },
            )
            .map_err(|e| InputError::field(format!("symbols.{name}"), e.to_string()))?;
    }
    for (i, text) in assumptions.iter().enumerate() {
        let field = format!("assumptions[{i}]");
        let a = parse(&mut out.pool, text)
            .map_err(|e| InputError::field(&field, format!("`{}`: {e}", abbrev(text))))?;
        out.env
            .assume(&mut out.pool, a)
            .map_err(|e| InputError::field(&field, e.to_string()))?;
    }
    Ok(out)
}

/// Parses an expression field of a case and checks that its symbols are declared
/// (and have hints, with `need_hints`).
pub fn load_expr(
    scope: &mut Scope,
    field: &str,
    value: &ExprField,
    need_hints: bool,
) -> Result<ExprId, InputError> {
    load_field(scope, &|| field.to_string(), value, need_hints)
}

/// [`load_expr`] with the field's name made only for an error. A text that
/// is a declared symbol's name is that symbol (what the parser would
/// answer), without the parser.
fn load_field(
    scope: &mut Scope,
    field: &dyn Fn() -> String,
    value: &ExprField,
    need_hints: bool,
) -> Result<ExprId, InputError> {
    let e = match value {
        ExprField::Int(v) => scope.pool.int(*v),
        ExprField::Text(t) => match scope.pool.lookup_symbol(t) {
            Some(s) if scope.env.info(s).is_some() => scope.pool.sym(s),
            _ => parse(&mut scope.pool, t)
                .map_err(|e| InputError::field(field(), format!("`{}`: {e}", abbrev(t))))?,
        },
    };
    scope
        .env
        .check_symbols(&scope.pool, e, need_hints)
        .map_err(|e| InputError::field(field(), e.to_string()))?;
    Ok(e)
}

/// The layout fields of a tensor: sizes, strides, storage offset, itemsize.
pub type LayoutFields<'a> = (&'a [ExprField], &'a [ExprField], &'a ExprField, i64);

/// Loads a tensor's layout; errors name `{prefix}.sizes[d]` and so on. Every
/// symbol needs a hint (the analysis evaluates layouts there).
pub fn load_layout(
    scope: &mut Scope,
    prefix: &str,
    (sizes, strides, offset, itemsize): LayoutFields,
) -> Result<Layout, InputError> {
    let list = |name: &str, xs: &[ExprField], scope: &mut Scope| {
        xs.iter()
            .enumerate()
            .map(|(d, f)| load_field(scope, &|| format!("{prefix}.{name}[{d}]"), f, true))
            .collect::<Result<Vec<_>, _>>()
    };
    let sizes = list("sizes", sizes, scope)?;
    let strides = list("strides", strides, scope)?;
    let offset = load_field(scope, &|| format!("{prefix}.storage_offset"), offset, true)?;
    Ok(Layout {
        sizes,
        strides,
        offset,
        itemsize,
    })
}
