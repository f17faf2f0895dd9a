//! The run-time checker (FORMATS.md §6): given a guard list and one concrete
//! call, pass, or fail with the first failing guard and why.
//!
//! Symbols of shape guards are bound from their sources:
//! `L['x'].size()[0]`, `L['x'].stride()[1]`, `L['x'].storage_offset()` read the
//! call's tensor `L['x']`; any other source reads the input's `value`. The
//! StorageOverlap partition is re-decided exactly with the overlap module's
//! sweep (O(k log k) plus the pairs whose extents meet), not pairwise.
//!
//! [`GuardSet::new`] does the per-list work once (parsing expressions,
//! resolving symbol sources); [`GuardSet::check`] is the per-call part.

use super::model::{with_sources, Guard, GuardKind};
use crate::expr::{ExprId, ExprPool, Node, Symbol, Value};
use crate::layout::{View, ViewRef};
use crate::overlap::{analyze_view_refs, Verdict, DEFAULT_BUDGET};
use hashbrown::HashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use thiserror::Error;

/// A tensor of a call: identities and its concrete layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallTensor {
    /// Object identity.
    pub object: String,
    /// Storage identity.
    pub storage: String,
    /// Sizes, strides, storage offset and itemsize (§6: the keys of the
    /// tensor object itself).
    #[serde(flatten)]
    pub view: View,
    /// dtype name.
    #[serde(default)]
    pub dtype: Option<String>,
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every guard holds.
    Pass,
    /// A guard fails: the first one in list order.
    Fail(Failure),
}

/// The first failing guard of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Position of the failing guard in the list.
    pub index: usize,
    /// Its text, with sources for symbols.
    pub guard: String,
    /// Why it fails.
    pub reason: String,
}

impl Outcome {
    /// `true` when every guard holds.
    pub fn passed(&self) -> bool {
        matches!(self, Outcome::Pass)
    }

    /// The failure, if a guard fails.
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            Outcome::Pass => None,
            Outcome::Fail(f) => Some(f),
        }
    }
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
    /// A guard is malformed.
    #[error("guard `{0}`: {1}")]
    BadGuard(String, String),
    /// A tensor of the call is malformed.
    #[error("input `{0}`: {1}")]
    BadTensor(String, String),
}

/// Checks `guards` (expressions in `pool`) in order on `call`; `symbols`
/// maps symbol names to sources. (One-off form of [`GuardSet`]; a compiler
/// checking many calls against one list prepares the set once.)
///
/// ```
/// use std::collections::BTreeMap;
/// use symalias::expr::ExprPool;
/// use symalias::guards::{check::{check, Call}, Guard, GuardKind};
/// let guards = vec![Guard::new(GuardKind::StorageOverlap {
///     overlapping: vec!["L['a']".into(), "L['b']".into()],
///     non_overlapping: vec!["L['c']".into()],
///     components: vec![],
/// }, "the graph mutates L['a'] through a synthetic base")];
/// let call = |b_offset: i64| -> Call { serde_json::from_value(serde_json::json!({"inputs": [
///     {"source": "L['a']", "tensor": {"object": "a", "storage": "S", "sizes": [5], "strides": [1], "storage_offset": 0}},
///     {"source": "L['b']", "tensor": {"object": "b", "storage": "S", "sizes": [5], "strides": [1], "storage_offset": b_offset}},
///     {"source": "L['c']", "tensor": {"object": "c", "storage": "S", "sizes": [5], "strides": [1], "storage_offset": 10}}
/// ]})).unwrap() };
/// let pool = ExprPool::new();
/// assert!(check(&pool, &guards, &BTreeMap::new(), &call(4)).unwrap().passed());
/// assert!(!check(&pool, &guards, &BTreeMap::new(), &call(8)).unwrap().passed()); // b now meets c
/// ```
pub fn check(
    pool: &ExprPool,
    guards: &[Guard],
    symbols: &BTreeMap<String, String>,
    call: &Call,
) -> Result<Outcome, CheckError> {
    GuardSet::prepare(pool, guards, symbols)?.check(call)
}

/// Where a symbol's value is read from.
#[derive(Clone, Debug)]
enum Read {
    Size(usize),
    Stride(usize),
    Offset,
    Value,
}

/// An expression with the symbols it reads.
#[derive(Clone, Debug)]
struct Expr {
    id: ExprId,
    /// (symbol, source index, what to read)
    reads: Vec<(Symbol, usize, Read)>,
    /// The shapes most layout fields have, evaluated without the evaluator.
    shape: Simple,
}

/// Layout fields are mostly constants or `c*s + d` in one symbol.
#[derive(Clone, Copy, Debug)]
enum Simple {
    Const(i64),
    /// `coef * reads[0] + constant`.
    Affine {
        coef: i64,
        constant: i64,
    },
    General,
}

/// `c*s + d` (any of the parts may be absent) as `(c, d)`.
fn affine(pool: &ExprPool, id: ExprId) -> Option<(i64, i64)> {
    let term = |t: ExprId| -> Option<i64> {
        match pool.node(t) {
            Node::Sym(_) => Some(1),
            Node::Mul(xs) if xs.len() == 2 => match (pool.node(xs[0]), pool.node(xs[1])) {
                (Node::Int(c), Node::Sym(_)) | (Node::Sym(_), Node::Int(c)) => Some(*c),
                _ => None,
            },
            _ => None,
        }
    };
    match pool.node(id) {
        Node::Add(xs) if xs.len() == 2 => match (pool.node(xs[0]), pool.node(xs[1])) {
            (Node::Int(d), _) => Some((term(xs[1])?, *d)),
            (_, Node::Int(d)) => Some((term(xs[0])?, *d)),
            _ => None,
        },
        _ => Some((term(id)?, 0)),
    }
}

/// A guard prepared for checking: sources are indices into `GuardSet::sources`.
#[derive(Clone, Debug)]
enum Prepared {
    StorageOverlap {
        members: Vec<usize>,
        overlapping: usize,
        /// Components (as local member indices, sorted), when guarded.
        components: Vec<Vec<usize>>,
    },
    Shape(Expr),
    Layout {
        members: Vec<usize>,
        sizes: Vec<Vec<Expr>>,
        strides: Vec<Vec<Expr>>,
        offsets: Vec<Expr>,
    },
    DistinctObjects {
        sources: Vec<usize>,
        others: Vec<usize>,
    },
    StoragePartition {
        groups: Vec<Vec<usize>>,
        others: Vec<usize>,
    },
    DuplicateInput {
        kept: usize,
        dupe: usize,
    },
}

/// A guard list prepared for checking many calls.
///
/// Fast-path guards stand in for the StorageOverlap guard after them: while
/// they hold the sweep is skipped; when one fails, the partition decides.
///
/// ```
/// use std::collections::BTreeMap;
/// use symalias::guards::{check::{Call, GuardSet}, Guard, GuardKind};
/// use symalias::expr::{parse, ExprPool};
/// use symalias::layout::Layout;
/// let mut pool = ExprPool::new();
/// let mut e = |t: &str| parse(&mut pool, t).unwrap();
/// // With c = x[9:] (this layout), the partition holds when 10 <= s0.
/// let c = Layout { sizes: vec![e("s0 - 9")], strides: vec![e("1")], offset: e("9"), itemsize: 1 };
/// let shape = e("10 <= s0");
/// let guards = vec![
///     Guard::new(GuardKind::Layout { sources: vec!["L['c']".into()], layouts: vec![c] },
///         "the proof holds for this layout").fast(),
///     Guard::new(GuardKind::Shape { expr: shape }, "implies the partition").fast(),
///     Guard::new(GuardKind::StorageOverlap {
///         overlapping: vec!["L['b']".into(), "L['c']".into()],
///         non_overlapping: vec!["L['a']".into()],
///         components: vec![],
///     }, "which inputs overlap decides the synthetic base"),
/// ];
/// let symbols = BTreeMap::from([("s0".to_string(), "L['x'].size()[0]".to_string())]);
/// let set = GuardSet::prepare(&pool, &guards, &symbols).unwrap();
/// // x[:5], x[7:13], x[9:] of x = ones(n), as PyTorch's #29.
/// let call = |n: i64, c: (i64, i64)| -> Call { serde_json::from_value(serde_json::json!({"inputs": [
///     {"source": "L['x']", "tensor": {"object": "x", "storage": "X", "sizes": [n], "strides": [1]}},
///     {"source": "L['a']", "tensor": {"object": "a", "storage": "X", "sizes": [5], "strides": [1]}},
///     {"source": "L['b']", "tensor": {"object": "b", "storage": "X", "sizes": [6], "strides": [1], "storage_offset": 7}},
///     {"source": "L['c']", "tensor": {"object": "c", "storage": "X", "sizes": [c.0], "strides": [1], "storage_offset": c.1}}
/// ]})).unwrap() };
/// assert!(set.check(&call(20, (11, 9))).unwrap().passed()); // the fast path holds
/// assert!(set.check(&call(20, (3, 8))).unwrap().passed()); // it fails, the partition holds
/// let out = set.check(&call(20, (2, 13))).unwrap(); // PyTorch's call 2
/// assert!(out.failure().unwrap().guard.starts_with("check_overlapping("));
/// ```
#[derive(Debug)]
pub struct GuardSet {
    guards: Vec<Guard>,
    symbols: BTreeMap<String, String>,
    pool: ExprPool,
    /// Every source a guard or a symbol reads.
    sources: Vec<String>,
    /// Per source: its position in the last call that had it (a hint).
    last_seen: Vec<AtomicU32>,
    prepared: Vec<Prepared>,
}

struct Builder<'a> {
    symbols: &'a BTreeMap<String, String>,
    pool: ExprPool,
    sources: Vec<String>,
    index: HashMap<String, usize>,
}

impl Builder<'_> {
    fn source(&mut self, s: &str) -> usize {
        if let Some(&k) = self.index.get(s) {
            return k;
        }
        self.sources.push(s.to_string());
        self.index.insert(s.to_string(), self.sources.len() - 1);
        self.sources.len() - 1
    }

    fn sources(&mut self, xs: &[String]) -> Vec<usize> {
        xs.iter().map(|s| self.source(s)).collect()
    }

    fn expr(&mut self, id: ExprId) -> Result<Expr, CheckError> {
        let mut reads = Vec::new();
        for s in self.pool.symbols_of(id) {
            let name = self.pool.symbol_name(s).to_string();
            let src = self
                .symbols
                .get(&name)
                .ok_or_else(|| CheckError::UnboundSymbol(name.clone()))?
                .clone();
            let (base, read) = parse_source(&src)?;
            reads.push((s, self.source(base), read));
        }
        let shape = match (self.pool.node(id), affine(&self.pool, id)) {
            (Node::Int(v), _) => Simple::Const(*v),
            (_, Some((coef, constant))) if reads.len() == 1 => Simple::Affine { coef, constant },
            _ => Simple::General,
        };
        Ok(Expr { id, reads, shape })
    }

    fn exprs(&mut self, xs: &[ExprId]) -> Result<Vec<Expr>, CheckError> {
        xs.iter().map(|&x| self.expr(x)).collect()
    }

    fn prepare(&mut self, g: &GuardKind) -> Result<Prepared, CheckError> {
        Ok(match g {
            GuardKind::StorageOverlap {
                overlapping,
                non_overlapping,
                components,
            } => {
                let mut members = self.sources(overlapping);
                members.extend(self.sources(non_overlapping));
                let local = |src: &String| -> Result<usize, CheckError> {
                    overlapping
                        .iter()
                        .chain(non_overlapping)
                        .position(|m| m == src)
                        .ok_or_else(|| {
                            CheckError::BadGuard(
                                "storage_overlap".into(),
                                format!("component member {src} is not a member"),
                            )
                        })
                };
                let mut comps = components
                    .iter()
                    .map(|c| {
                        let mut c = c.iter().map(local).collect::<Result<Vec<_>, _>>()?;
                        c.sort_unstable();
                        Ok(c)
                    })
                    .collect::<Result<Vec<_>, CheckError>>()?;
                comps.sort();
                Prepared::StorageOverlap {
                    members,
                    overlapping: overlapping.len(),
                    components: comps,
                }
            }
            GuardKind::Shape { expr } => Prepared::Shape(self.expr(*expr)?),
            GuardKind::Layout { sources, layouts } => {
                if layouts.len() != sources.len() {
                    return Err(CheckError::BadGuard(
                        "layout".into(),
                        "sources and layouts differ in length".into(),
                    ));
                }
                if let Some(j) =
                    (0..layouts.len()).find(|&j| layouts[j].sizes.len() != layouts[j].strides.len())
                {
                    return Err(CheckError::BadGuard(
                        format!("layout of {}", sources[j]),
                        "sizes and strides differ in length".into(),
                    ));
                }
                Prepared::Layout {
                    members: self.sources(sources),
                    sizes: layouts
                        .iter()
                        .map(|l| self.exprs(&l.sizes))
                        .collect::<Result<_, _>>()?,
                    strides: layouts
                        .iter()
                        .map(|l| self.exprs(&l.strides))
                        .collect::<Result<_, _>>()?,
                    offsets: layouts
                        .iter()
                        .map(|l| self.expr(l.offset))
                        .collect::<Result<_, _>>()?,
                }
            }
            GuardKind::DistinctObjects { sources, others } => Prepared::DistinctObjects {
                sources: self.sources(sources),
                others: self.sources(others),
            },
            GuardKind::StoragePartition { groups, others } => Prepared::StoragePartition {
                groups: groups.iter().map(|g| self.sources(g)).collect(),
                others: self.sources(others),
            },
            GuardKind::DuplicateInput { kept, dupe } => Prepared::DuplicateInput {
                kept: self.source(kept),
                dupe: self.source(dupe),
            },
        })
    }
}

/// `L['x'].size()[0]` → (`L['x']`, size 0); a plain source reads `value`.
fn parse_source(src: &str) -> Result<(&str, Read), CheckError> {
    let bad = |m: &str| CheckError::BadSource(src.to_string(), m.to_string());
    let index = |rest: &str| -> Result<usize, CheckError> {
        rest.strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|d| d.trim().parse().ok())
            .ok_or_else(|| bad("expected `[i]` after the method"))
    };
    if let Some((base, rest)) = src.rsplit_once(".size()") {
        return Ok((base, Read::Size(index(rest)?)));
    }
    if let Some((base, rest)) = src.rsplit_once(".stride()") {
        return Ok((base, Read::Stride(index(rest)?)));
    }
    if let Some(base) = src.strip_suffix(".storage_offset()") {
        return Ok((base, Read::Offset));
    }
    Ok((src, Read::Value))
}

/// The call's inputs for one check, by source index.
struct Bound<'c> {
    names: &'c [String],
    inputs: Vec<Option<&'c CallInput>>,
}

impl<'c> Bound<'c> {
    fn input(&self, k: usize) -> Result<&'c CallInput, CheckError> {
        self.inputs[k].ok_or_else(|| CheckError::MissingSource(self.names[k].clone()))
    }

    fn tensor(&self, k: usize) -> Result<&'c CallTensor, CheckError> {
        self.input(k)?
            .tensor
            .as_ref()
            .ok_or_else(|| CheckError::NotATensor(self.names[k].clone()))
    }

    fn read(&self, k: usize, what: &Read, symbol: &str) -> Result<i64, CheckError> {
        let bad = |m: &str| {
            let src = match what {
                Read::Size(d) => format!("{}.size()[{d}]", self.names[k]),
                Read::Stride(d) => format!("{}.stride()[{d}]", self.names[k]),
                Read::Offset => format!("{}.storage_offset()", self.names[k]),
                Read::Value => self.names[k].clone(),
            };
            CheckError::BadSource(src, format!("{m} (symbol {symbol})"))
        };
        match what {
            Read::Size(d) => self.tensor(k)?.view.sizes.get(*d).copied(),
            Read::Stride(d) => self.tensor(k)?.view.strides.get(*d).copied(),
            Read::Offset => Some(self.tensor(k)?.view.offset),
            Read::Value => {
                return self
                    .input(k)?
                    .value
                    .ok_or_else(|| bad("the input has no `value`"))
            }
        }
        .ok_or_else(|| bad("dimension out of range"))
    }
}

impl GuardSet {
    /// Prepares `guards`, whose expressions live in `pool` (the set keeps a
    /// copy); `symbols` maps the symbols of their expressions to sources.
    /// Fails on a symbol without source or a malformed guard.
    pub fn prepare(
        pool: &ExprPool,
        guards: &[Guard],
        symbols: &BTreeMap<String, String>,
    ) -> Result<Self, CheckError> {
        let mut b = Builder {
            symbols,
            pool: pool.clone(),
            sources: Vec::new(),
            index: HashMap::new(),
        };
        let prepared = guards
            .iter()
            .map(|g| b.prepare(&g.kind))
            .collect::<Result<_, _>>()?;
        Ok(GuardSet {
            guards: guards.to_vec(),
            symbols: symbols.clone(),
            pool: b.pool,
            last_seen: (0..b.sources.len() as u32).map(AtomicU32::new).collect(),
            sources: b.sources,
            prepared,
        })
    }

    /// Checks the guards in order on `call`: pass, or the first failing guard
    /// (its text with sources for symbols) and why it fails.
    pub fn check(&self, call: &Call) -> Result<Outcome, CheckError> {
        let bound = self.bind(call)?;
        let fail = |index: usize, reason: String| {
            Outcome::Fail(Failure {
                index,
                guard: self.guards[index].kind.render(&self.pool, &self.symbols),
                reason,
            })
        };
        // The first fast-path guard of the current run that failed, if any;
        // `run` says whether a run of fast-path guards is open.
        let mut run = false;
        let mut fast_failed: Option<(usize, String)> = None;
        for (i, p) in self.prepared.iter().enumerate() {
            if self.guards[i].fast_path {
                run = true;
                if fast_failed.is_none() {
                    if let Some(reason) = self.holds(p, &bound)? {
                        fast_failed = Some((i, reason));
                    }
                }
                continue;
            }
            let closes_run = run && matches!(p, Prepared::StorageOverlap { .. });
            if closes_run && fast_failed.is_none() {
                // Implied by the fast path: no sweep.
                run = false;
                continue;
            }
            if !closes_run {
                // A fast path that stands in for nothing binds like any guard.
                if let Some((j, reason)) = fast_failed.take() {
                    return Ok(fail(j, reason));
                }
            }
            run = false;
            fast_failed = None;
            if let Some(reason) = self.holds(p, &bound)? {
                return Ok(fail(i, reason));
            }
        }
        if let Some((j, reason)) = fast_failed {
            return Ok(fail(j, reason));
        }
        Ok(Outcome::Pass)
    }

    /// Resolves every source to the call's input. Calls of one compiled
    /// graph list their inputs in the same order: the position where each
    /// source was found last time is tried first, and the call is indexed
    /// by source only on a miss.
    ///
    /// Every tensor a guard reads is validated here, once: ranks agree, no
    /// negative size, stride or offset, itemsize at least 1, every byte
    /// address fits 64 bits (bad input, not a failing guard).
    fn bind<'c>(&'c self, call: &'c Call) -> Result<Bound<'c>, CheckError> {
        let mut index: Option<HashMap<&str, usize>> = None;
        let inputs: Vec<Option<&CallInput>> = self
            .sources
            .iter()
            .zip(&self.last_seen)
            .map(|(s, seen)| {
                let at = seen.load(Ordering::Relaxed) as usize;
                if let Some(x) = call.inputs.get(at).filter(|x| &x.source == s) {
                    return Some(x);
                }
                let m = index.get_or_insert_with(|| {
                    call.inputs
                        .iter()
                        .enumerate()
                        .map(|(i, x)| (x.source.as_str(), i))
                        .collect()
                });
                let i = *m.get(s.as_str())?;
                seen.store(i as u32, Ordering::Relaxed);
                Some(&call.inputs[i])
            })
            .collect();
        for (k, x) in inputs.iter().enumerate() {
            if let Some(t) = x.and_then(|x| x.tensor.as_ref()) {
                t.view
                    .validate()
                    .map_err(|e| CheckError::BadTensor(self.sources[k].clone(), e.to_string()))?;
            }
        }
        Ok(Bound {
            names: &self.sources,
            inputs,
        })
    }

    /// The value of an expression at the call; the inner `Err` says why it
    /// cannot be evaluated (e.g. a division by zero), the outer one is bad input.
    fn eval(&self, e: &Expr, b: &Bound) -> Result<Result<Value, String>, CheckError> {
        match e.shape {
            Simple::Const(v) => return Ok(Ok(Value::Int(v))),
            Simple::Affine { coef, constant } => {
                let (s, k, what) = &e.reads[0];
                let x = b.read(*k, what, self.pool.symbol_name(*s))?;
                // Out of i64: let the evaluator report it.
                if let Some(v) = coef.checked_mul(x).and_then(|v| v.checked_add(constant)) {
                    return Ok(Ok(Value::Int(v)));
                }
            }
            Simple::General => {}
        }
        let mut values: Vec<(Symbol, i64)> = Vec::with_capacity(e.reads.len());
        for (s, k, what) in &e.reads {
            values.push((*s, b.read(*k, what, self.pool.symbol_name(*s))?));
        }
        Ok(self
            .pool
            .eval(e.id, &|s| values.iter().find(|v| v.0 == s).map(|v| v.1))
            .map_err(|err| err.to_string()))
    }

    fn at(&self, e: &Expr, b: &Bound) -> Result<String, CheckError> {
        let mut at: Vec<String> = Vec::new();
        for (s, k, what) in &e.reads {
            let name = self.pool.symbol_name(*s);
            at.push(format!(
                "{}={}",
                self.symbols.get(name).map_or(name, String::as_str),
                b.read(*k, what, name)?
            ));
        }
        at.sort();
        Ok(at.join(", "))
    }

    /// `None` when the guard holds, else why not.
    fn holds(&self, p: &Prepared, b: &Bound) -> Result<Option<String>, CheckError> {
        let name = |k: usize| self.sources[k].as_str();
        Ok(match p {
            Prepared::DuplicateInput { kept, dupe } => (b.tensor(*kept)?.object
                != b.tensor(*dupe)?.object)
                .then(|| format!("{} and {} are different objects", name(*kept), name(*dupe))),
            Prepared::DistinctObjects { sources, others } => {
                let mut seen: HashMap<&str, usize> = HashMap::new();
                for &k in sources {
                    if let Some(prev) = seen.insert(b.tensor(k)?.object.as_str(), k) {
                        return Ok(Some(format!(
                            "{} and {} are now the same object",
                            name(prev),
                            name(k)
                        )));
                    }
                }
                for &k in others {
                    if let Some(&prev) = seen.get(b.tensor(k)?.object.as_str()) {
                        return Ok(Some(format!(
                            "{} and {} are now the same object",
                            name(prev),
                            name(k)
                        )));
                    }
                }
                None
            }
            Prepared::StoragePartition { groups, others } => {
                let mut owner: HashMap<&str, usize> = HashMap::new();
                for (g, grp) in groups.iter().enumerate() {
                    let Some(&first) = grp.first() else { continue };
                    let st = b.tensor(first)?.storage.as_str();
                    for &k in &grp[1..] {
                        if b.tensor(k)?.storage != st {
                            return Ok(Some(format!(
                                "{} left the storage of {} (storage identity changed)",
                                name(k),
                                name(first)
                            )));
                        }
                    }
                    if let Some(other) = owner.insert(st, g) {
                        return Ok(Some(format!(
                            "{} now shares a storage with {} (distinct at compile time)",
                            name(first),
                            name(groups[other][0])
                        )));
                    }
                }
                for &k in others {
                    if let Some(&g) = owner.get(b.tensor(k)?.storage.as_str()) {
                        return Ok(Some(format!(
                            "{} now shares a storage with {} (distinct at compile time)",
                            name(k),
                            name(groups[g][0])
                        )));
                    }
                }
                None
            }
            Prepared::Shape(e) => match self.eval(e, b)? {
                Ok(Value::Bool(true)) => None,
                Ok(other) => Some(format!("{other} at {}", self.at(e, b)?)),
                Err(err) => Some(err),
            },
            Prepared::Layout {
                members,
                sizes,
                strides,
                offsets,
            } => {
                let ts = match one_storage(members, b)? {
                    Ok(ts) => ts,
                    Err(why) => return Ok(Some(why)),
                };
                for (j, t) in ts.iter().map(|t| &t.view).enumerate() {
                    let who = name(members[j]);
                    if t.sizes.len() != sizes[j].len() {
                        return Ok(Some(format!(
                            "{who} has rank {}, compiled for {}",
                            t.sizes.len(),
                            sizes[j].len()
                        )));
                    }
                    // (what, dim, compiled, actual); described only on failure.
                    let fields = (0..t.sizes.len())
                        .flat_map(|d| {
                            [
                                ("size", d, &sizes[j][d], t.sizes[d]),
                                ("stride", d, &strides[j][d], t.strides[d]),
                            ]
                        })
                        .chain([("storage offset", 0, &offsets[j], t.offset)]);
                    for (what, d, want, got) in fields {
                        let v = self.eval(want, b)?.ok().and_then(Value::as_int);
                        if v != Some(got) {
                            let what = if what == "storage offset" {
                                what.to_string()
                            } else {
                                format!("{what} {d}")
                            };
                            return Ok(Some(format!(
                                "{who} {what} is {got}, compiled for {}{}",
                                with_sources(
                                    &self.pool.display(want.id).to_string(),
                                    &self.symbols
                                ),
                                v.map_or(String::new(), |v| format!(" = {v}"))
                            )));
                        }
                    }
                }
                None
            }
            Prepared::StorageOverlap {
                members,
                overlapping,
                components,
            } => {
                let ts = match one_storage(members, b)? {
                    Ok(ts) => ts,
                    Err(why) => return Ok(Some(why)),
                };
                // Validated when the call was bound.
                let views: Vec<ViewRef> = ts.iter().map(|t| t.view.view_ref()).collect();
                let answer = analyze_view_refs(&views, DEFAULT_BUDGET);
                // `answer.overlapping` is sorted; compile time listed the
                // overlapping members first.
                let same = answer.overlapping.len() == *overlapping
                    && answer.overlapping.iter().enumerate().all(|(i, &j)| i == j);
                let now_components = || -> Vec<Vec<usize>> {
                    let pairs: Vec<(usize, usize)> =
                        answer.pairs.iter().map(|p| (p.a, p.b)).collect();
                    let mut c: Vec<Vec<usize>> = crate::overlap::components(members.len(), &pairs)
                        .into_iter()
                        .filter(|c| c.len() >= 2)
                        .collect();
                    c.sort();
                    c
                };
                if same && !components.is_empty() && now_components() != *components {
                    let now: Vec<String> = now_components()
                        .iter()
                        .map(|c| {
                            let names: Vec<&str> = c.iter().map(|&i| name(members[i])).collect();
                            format!("[{}]", names.join(", "))
                        })
                        .collect();
                    Some(format!(
                        "the same inputs overlap, but the overlap graph's components are now [{}]",
                        now.join(", ")
                    ))
                } else if same {
                    None
                } else {
                    let undecided = answer
                        .pairs
                        .iter()
                        .any(|p| matches!(p.verdict, Verdict::Undecided));
                    let now: Vec<&str> = answer
                        .overlapping
                        .iter()
                        .map(|&i| name(members[i]))
                        .collect();
                    Some(format!(
                        "the overlapping set is now [{}]{}",
                        now.join(", "),
                        if undecided {
                            " (some pair undecided within the search budget)"
                        } else {
                            ""
                        }
                    ))
                }
            }
        })
    }
}

/// The members' tensors, or why they no longer share the first one's storage.
fn one_storage<'c>(
    members: &[usize],
    b: &Bound<'c>,
) -> Result<Result<Vec<&'c CallTensor>, String>, CheckError> {
    let ts = members
        .iter()
        .map(|&k| b.tensor(k))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(match ts.iter().position(|t| t.storage != ts[0].storage) {
        None => Ok(ts),
        Some(k) => Err(format!(
            "{} is no longer in the storage of {} (storage identity changed)",
            b.names[members[k]], b.names[members[0]]
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The evaluator's shortcuts (constants, `c*s + d`) are taken where they
    /// apply and agree with the full evaluator, also where `c*s + d` would
    /// overflow.
    #[test]
    fn shortcut_evaluation_agrees_with_the_evaluator() {
        let symbols = BTreeMap::from([("s".to_string(), "L['n']".to_string())]);
        let texts = [
            ("7", true),
            ("s", true),
            ("3*s", true),
            ("s + 4", true),
            ("-2*s - 9", true),
            ("5 + 2*s", true),
            ("4611686018427387904*s", true),
            ("s*s", false),
            ("Max(s, 3)", false),
            ("s//2", false),
        ];
        for (text, short) in texts {
            let mut pool = ExprPool::new();
            let id = crate::expr::parse(&mut pool, text).unwrap();
            let mut b = Builder {
                symbols: &symbols,
                pool,
                sources: Vec::new(),
                index: HashMap::new(),
            };
            let field = b.expr(id).unwrap();
            assert_eq!(
                !matches!(field.shape, Simple::General),
                short,
                "{text}: {:?}",
                field.shape
            );
            let set = GuardSet {
                guards: vec![],
                symbols: symbols.clone(),
                pool: b.pool,
                last_seen: vec![AtomicU32::new(0)],
                sources: b.sources,
                prepared: vec![],
            };
            for n in -5..=5 {
                let call = Call {
                    inputs: vec![CallInput {
                        source: "L['n']".into(),
                        tensor: None,
                        value: Some(n),
                    }],
                };
                let fast = set.eval(&field, &set.bind(&call).unwrap()).unwrap().ok();
                let slow = set.pool.eval(field.id, &|_| Some(n)).ok();
                assert_eq!(fast, slow, "{text} at s = {n}");
            }
        }
    }
}
