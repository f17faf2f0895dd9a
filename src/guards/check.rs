//! The run-time checker (FORMATS.md §6): given a guard list and one concrete
//! call, pass, or fail with the first failing guard and why.
//!
//! Symbols of shape guards are bound from their sources:
//! `L['x'].size()[0]`, `L['x'].stride()[1]`, `L['x'].storage_offset()` read the
//! call's tensor `L['x']`; any other source reads the input's `value`. The
//! StorageOverlap partition is re-decided exactly with the overlap module's
//! sweep (O(k log k) plus the pairs whose extents meet), not pairwise.

use super::model::Guard;
use crate::expr::{parse, ExprPool, Value};
use crate::overlap::{analyze_views, Verdict as PairVerdict, View, DEFAULT_BUDGET};
use hashbrown::{HashMap, HashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// A tensor of a call, with concrete metadata.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallTensor {
    /// Object identity.
    pub object: String,
    /// Storage identity.
    pub storage: String,
    /// Sizes.
    pub sizes: Vec<i64>,
    /// Strides in elements.
    pub strides: Vec<i64>,
    /// Storage offset in elements.
    #[serde(default)]
    pub storage_offset: i64,
    /// Bytes per element.
    #[serde(default = "one")]
    pub itemsize: i64,
    /// dtype name.
    #[serde(default)]
    pub dtype: Option<String>,
}

fn one() -> i64 {
    1
}

/// One input of a call, keyed by source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallInput {
    /// The source, e.g. `L['a']`.
    pub source: String,
    /// A tensor input.
    #[serde(default)]
    pub tensor: Option<CallTensor>,
    /// A scalar input.
    #[serde(default)]
    pub value: Option<i64>,
}

/// A concrete call (§6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The inputs.
    pub inputs: Vec<CallInput>,
}

/// The checker's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Every guard holds.
    pub pass: bool,
    /// The first failing guard's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Why it fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The call does not fit the guards (bad input, not a failing guard).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum CheckError {
    /// A guard names a source the call does not have.
    #[error("the call has no input with source `{0}`")]
    MissingSource(String),
    /// A source that must be a tensor is not.
    #[error("input `{0}` is not a tensor in the call")]
    NotATensor(String),
    /// A symbol of a shape guard has no known source.
    #[error("symbol `{0}` of a shape guard has no source to bind it from")]
    UnboundSymbol(String),
    /// A source reads what the call does not provide.
    #[error("source `{0}`: {1}")]
    BadSource(String, String),
    /// A shape guard does not parse.
    #[error("shape guard `{0}`: {1}")]
    BadGuard(String, String),
    /// A tensor of the call is malformed.
    #[error("input `{0}`: {1}")]
    BadTensor(String, String),
}

fn fail(g: &Guard, reason: String) -> Outcome {
    Outcome {
        pass: false,
        failed: Some(g.text()),
        reason: Some(reason),
    }
}

/// Checks `guards` in order on `call`; `symbols` maps symbol names to sources.
///
/// ```
/// use std::collections::BTreeMap;
/// use symalias::guards::{check::{check, Call}, Guard};
/// let guards = vec![Guard::StorageOverlap {
///     overlapping: vec!["L['a']".into(), "L['b']".into()],
///     non_overlapping: vec!["L['c']".into()],
/// }];
/// let call = |b_offset: i64| -> Call { serde_json::from_value(serde_json::json!({"inputs": [
///     {"source": "L['a']", "tensor": {"object": "a", "storage": "S", "sizes": [5], "strides": [1], "storage_offset": 0}},
///     {"source": "L['b']", "tensor": {"object": "b", "storage": "S", "sizes": [5], "strides": [1], "storage_offset": b_offset}},
///     {"source": "L['c']", "tensor": {"object": "c", "storage": "S", "sizes": [5], "strides": [1], "storage_offset": 10}}
/// ]})).unwrap() };
/// assert!(check(&guards, &BTreeMap::new(), &call(4)).unwrap().pass);
/// assert!(!check(&guards, &BTreeMap::new(), &call(8)).unwrap().pass); // b now meets c
/// ```
pub fn check(
    guards: &[Guard],
    symbols: &BTreeMap<String, String>,
    call: &Call,
) -> Result<Outcome, CheckError> {
    let by_source: HashMap<&str, &CallInput> =
        call.inputs.iter().map(|x| (x.source.as_str(), x)).collect();
    let input = |s: &str| {
        by_source
            .get(s)
            .copied()
            .ok_or_else(|| CheckError::MissingSource(s.to_string()))
    };
    let tensor = |s: &str| {
        input(s)?
            .tensor
            .as_ref()
            .ok_or_else(|| CheckError::NotATensor(s.to_string()))
    };
    for g in guards {
        match g {
            Guard::DistinctObjects { sources } => {
                let mut seen: HashMap<&str, &str> = HashMap::new();
                for s in sources {
                    let t = tensor(s)?;
                    if let Some(prev) = seen.insert(t.object.as_str(), s.as_str()) {
                        return Ok(fail(g, format!("{prev} and {s} are now the same object")));
                    }
                }
            }
            Guard::StoragePartition { groups } => {
                let mut owner: HashMap<&str, usize> = HashMap::new();
                for (k, grp) in groups.iter().enumerate() {
                    let mut first: Option<&str> = None;
                    for s in grp {
                        let st = tensor(s)?.storage.as_str();
                        match first {
                            None => first = Some(st),
                            Some(f) if f != st => {
                                return Ok(fail(
                                    g,
                                    format!(
                                        "{s} left the storage of {} (storage identity changed)",
                                        grp[0]
                                    ),
                                ));
                            }
                            _ => {}
                        }
                        if let Some(&other) = owner.get(st) {
                            if other != k {
                                return Ok(fail(g, format!("{s} now shares a storage with {} (distinct at compile time)", groups[other][0])));
                            }
                        }
                        owner.insert(st, k);
                    }
                }
            }
            Guard::DuplicateInput { kept, dupe } => {
                let (a, b) = (tensor(kept)?, tensor(dupe)?);
                if a.object != b.object {
                    return Ok(fail(g, format!("{kept} and {dupe} are different objects")));
                }
            }
            Guard::Layout {
                sources,
                sizes,
                strides,
                storage_offsets,
            } => {
                let ts = sources
                    .iter()
                    .map(|s| tensor(s))
                    .collect::<Result<Vec<_>, _>>()?;
                if let Some(reason) = left_storage(sources, &ts) {
                    return Ok(fail(g, reason));
                }
                for (k, t) in ts.iter().enumerate() {
                    let field =
                        |what: &str, want: &str, got: i64| -> Result<Option<String>, CheckError> {
                            let v = eval_int(want, symbols, &input, &tensor)?;
                            Ok((v != Some(got)).then(|| {
                                format!(
                                    "{} {what} is {got}, compiled for {want}{}",
                                    sources[k],
                                    v.map_or(String::new(), |v| format!(" = {v}"))
                                )
                            }))
                        };
                    if t.sizes.len() != sizes[k].len() {
                        return Ok(fail(
                            g,
                            format!(
                                "{} has rank {}, compiled for {}",
                                sources[k],
                                t.sizes.len(),
                                sizes[k].len()
                            ),
                        ));
                    }
                    for d in 0..t.sizes.len() {
                        if let Some(r) = field(&format!("size {d}"), &sizes[k][d], t.sizes[d])? {
                            return Ok(fail(g, r));
                        }
                        if let Some(r) =
                            field(&format!("stride {d}"), &strides[k][d], t.strides[d])?
                        {
                            return Ok(fail(g, r));
                        }
                    }
                    if let Some(r) = field("storage offset", &storage_offsets[k], t.storage_offset)?
                    {
                        return Ok(fail(g, r));
                    }
                }
            }
            Guard::Shape { expr } => {
                let mut pool = ExprPool::new();
                let e = parse(&mut pool, expr)
                    .map_err(|err| CheckError::BadGuard(expr.clone(), err.to_string()))?;
                let values = bind_symbols(&pool, e, symbols, &input, &tensor)?;
                let v = pool.eval(e, &|s| values.get(pool.symbol_name(s)).copied());
                match v {
                    Ok(Value::Bool(true)) => {}
                    Ok(other) => {
                        let mut at: Vec<String> =
                            values.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        at.sort();
                        return Ok(fail(g, format!("{other} at {}", at.join(", "))));
                    }
                    Err(err) => return Ok(fail(g, err.to_string())),
                }
            }
            Guard::StorageOverlap {
                overlapping,
                non_overlapping,
            } => {
                let members: Vec<&String> = overlapping.iter().chain(non_overlapping).collect();
                let ts = members
                    .iter()
                    .map(|s| tensor(s))
                    .collect::<Result<Vec<_>, _>>()?;
                if let Some(reason) = left_storage(&members, &ts) {
                    return Ok(fail(g, reason));
                }
                let views = ts
                    .iter()
                    .zip(&members)
                    .map(|(t, s)| {
                        let v = View {
                            sizes: t.sizes.clone(),
                            strides: t.strides.clone(),
                            offset: t.storage_offset,
                            itemsize: t.itemsize,
                        };
                        v.validate()
                            .map(|_| v)
                            .map_err(|e| CheckError::BadTensor(s.to_string(), e.to_string()))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let answer = analyze_views(&views, DEFAULT_BUDGET);
                let now: HashSet<usize> = answer.overlapping.iter().copied().collect();
                let want: HashSet<usize> = (0..overlapping.len()).collect();
                if now != want {
                    let undecided = answer
                        .pairs
                        .iter()
                        .any(|p| matches!(p.2, PairVerdict::Undecided));
                    let names = |xs: &HashSet<usize>| {
                        let mut v: Vec<usize> = xs.iter().copied().collect();
                        v.sort();
                        v.iter()
                            .map(|&i| members[i].as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    return Ok(fail(
                        g,
                        format!(
                            "the overlapping set is now [{}]{}",
                            names(&now),
                            if undecided {
                                " (some pair undecided within the search budget)"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            }
        }
    }
    Ok(Outcome {
        pass: true,
        failed: None,
        reason: None,
    })
}

/// An integer expression at the call's symbol values (`None` if it cannot be
/// evaluated, e.g. division by zero: then it matches nothing).
fn eval_int<'a>(
    text: &str,
    symbols: &BTreeMap<String, String>,
    input: &dyn Fn(&str) -> Result<&'a CallInput, CheckError>,
    tensor: &dyn Fn(&str) -> Result<&'a CallTensor, CheckError>,
) -> Result<Option<i64>, CheckError> {
    let mut pool = ExprPool::new();
    let e = parse(&mut pool, text)
        .map_err(|err| CheckError::BadGuard(text.to_string(), err.to_string()))?;
    let values = bind_symbols(&pool, e, symbols, input, tensor)?;
    Ok(pool
        .eval(e, &|s| values.get(pool.symbol_name(s)).copied())
        .ok()
        .and_then(Value::as_int))
}

/// The value of every symbol of `e`, read from the call through its source.
fn bind_symbols<'a>(
    pool: &ExprPool,
    e: crate::expr::ExprId,
    symbols: &BTreeMap<String, String>,
    input: &dyn Fn(&str) -> Result<&'a CallInput, CheckError>,
    tensor: &dyn Fn(&str) -> Result<&'a CallTensor, CheckError>,
) -> Result<HashMap<String, i64>, CheckError> {
    let mut values = HashMap::new();
    for s in pool.symbols_of(e) {
        let name = pool.symbol_name(s).to_string();
        let src = symbols
            .get(&name)
            .ok_or_else(|| CheckError::UnboundSymbol(name.clone()))?;
        values.insert(name, bind(src, input, tensor)?);
    }
    Ok(values)
}

/// Why the tensors no longer share the first one's storage, if they do not.
fn left_storage<S: AsRef<str>>(sources: &[S], ts: &[&CallTensor]) -> Option<String> {
    let k = ts.iter().position(|t| t.storage != ts[0].storage)?;
    Some(format!(
        "{} is no longer in the storage of {} (storage identity changed)",
        sources[k].as_ref(),
        sources[0].as_ref()
    ))
}

/// The value a source reads from the call.
fn bind<'a>(
    src: &str,
    input: &dyn Fn(&str) -> Result<&'a CallInput, CheckError>,
    tensor: &dyn Fn(&str) -> Result<&'a CallTensor, CheckError>,
) -> Result<i64, CheckError> {
    let bad = |m: &str| CheckError::BadSource(src.to_string(), m.to_string());
    let index = |rest: &str| -> Result<usize, CheckError> {
        rest.strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|d| d.trim().parse().ok())
            .ok_or_else(|| bad("expected `[i]` after the method"))
    };
    if let Some((base, rest)) = src.rsplit_once(".size()") {
        let t = tensor(base)?;
        let d = index(rest)?;
        return t
            .sizes
            .get(d)
            .copied()
            .ok_or_else(|| bad("dimension out of range"));
    }
    if let Some((base, rest)) = src.rsplit_once(".stride()") {
        let t = tensor(base)?;
        let d = index(rest)?;
        return t
            .strides
            .get(d)
            .copied()
            .ok_or_else(|| bad("dimension out of range"));
    }
    if let Some(base) = src.strip_suffix(".storage_offset()") {
        return Ok(tensor(base)?.storage_offset);
    }
    input(src)?
        .value
        .ok_or_else(|| bad("the input has no `value`"))
}
