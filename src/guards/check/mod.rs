//! The run-time checker (FORMATS.md §6): given a guard list and one concrete
//! call, pass, or fail with the first failing guard and why.
//!
//! Symbols of shape guards are bound from their sources:
//! `L['x'].size()[0]`, `L['x'].stride()[1]`, `L['x'].storage_offset()` read the
//! call's tensor `L['x']`; any other source reads the input's `value`. The
//! StorageOverlap partition is re-decided exactly with the overlap module's
//! sweep (O(k log k) plus the pairs whose extents meet), not pairwise.
//!
//! [`GuardSet::prepare`] does the per-list work once (copying expressions,
//! resolving symbol sources); [`GuardSet::check`] is the per-call part.
//!
//! * `call.rs` — the call types and binding a call's inputs to sources;
//! * `prepare.rs` — compiling a guard list (sources to indices, expression
//!   shortcuts);
//! * `holds.rs` — one function per guard kind: does it hold on a call, and
//!   if not, why.

mod call;
mod holds;
mod prepare;

pub use call::{Call, CallInput, CallTensor};

use super::model::{Guard, GuardKind};
use crate::expr::{EvalError, ExprPool, SymbolId, Value};
use crate::layout::ViewError;
use call::Bound;
use hashbrown::HashMap;
use prepare::{Builder, Expr, Prepared, Simple};
use std::collections::BTreeMap;
use thiserror::Error;

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
    /// The call gives one source twice.
    #[error("the call gives source `{0}` twice")]
    DuplicateSource(String),
    /// A symbol of a shape guard has no known source.
    #[error("symbol `{0}` of a shape guard has no source to bind it from")]
    UnboundSymbol(String),
    /// A source reads what the call does not provide.
    #[error("source `{at}`: {problem}")]
    BadSource {
        /// The source, e.g. `L['x'].size()[2]`.
        at: String,
        /// What is wrong.
        problem: SourceProblem,
    },
    /// A guard is malformed.
    #[error("guard `{guard}`: {problem}")]
    BadGuard {
        /// Which guard.
        guard: String,
        /// What is wrong.
        problem: GuardProblem,
    },
    /// A tensor of the call is malformed.
    #[error("input `{input}`: {error}")]
    BadTensor {
        /// The input's source.
        input: String,
        /// What is wrong.
        error: ViewError,
    },
}

/// Why a source cannot be read from a call.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum SourceProblem {
    /// `.size()` or `.stride()` without `[i]`.
    #[error("expected `[i]` after the method")]
    NoIndex,
    /// A plain source whose input has no `value`.
    #[error("the input has no `value` (symbol {0})")]
    NoValue(String),
    /// `.size()[d]` / `.stride()[d]` beyond the tensor's rank.
    #[error("dimension out of range (symbol {0})")]
    DimensionOutOfRange(String),
}

/// Why a guard cannot be prepared.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum GuardProblem {
    /// A component lists a source that is not a member.
    #[error("component member {0} is not a member")]
    ComponentNotAMember(String),
    /// A layout guard's sources and layouts differ in number.
    #[error("sources and layouts differ in length")]
    LayoutCount,
    /// A layout's sizes and strides differ in number.
    #[error("sizes and strides differ in length")]
    LayoutRank,
    /// `fast_path` on a kind that cannot stand in for an exact guard.
    #[error("only shape and layout guards can be marked fast_path")]
    NotAFastPath,
    /// A run of fast-path guards not followed by the exact guard it stands
    /// in for (a StorageOverlap or SelfOverlap guard).
    #[error("fast-path guards must be followed by the storage_overlap or self_overlap guard they stand in for")]
    FastPathNotClosed,
}

/// A guard list prepared for checking many calls.
///
/// Fast-path guards stand in for the StorageOverlap guard after them: while
/// they hold the sweep is skipped; when one fails, the partition decides.
///
/// ```
/// use std::collections::BTreeMap;
/// use symalias::{parse, Call, CallTensor, ExprPool, Guard, GuardKind, GuardSet, Layout, View};
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
/// let t = |object: &str, size: i64, offset: i64| CallTensor::new(object, "X", View::new(&[size], &[1], offset));
/// let call = |n: i64, c: (i64, i64)| Call::new()
///     .tensor("L['x']", t("x", n, 0))
///     .tensor("L['a']", t("a", 5, 0))
///     .tensor("L['b']", t("b", 6, 7))
///     .tensor("L['c']", t("c", c.0, c.1));
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
    prepared: Vec<Prepared>,
}

impl GuardSet {
    /// Prepares `guards`, whose expressions live in `pool` (the set keeps a
    /// copy); `symbols` maps the symbols of their expressions to sources.
    /// Fails on a symbol without source or a malformed guard.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use symalias::{Call, CallTensor, ExprPool, Guard, GuardKind, GuardSet, View};
    /// let guards = vec![Guard::new(GuardKind::StorageOverlap {
    ///     overlapping: vec!["L['a']".into(), "L['b']".into()],
    ///     non_overlapping: vec!["L['c']".into()],
    ///     components: vec![],
    /// }, "the graph mutates L['a'] through a synthetic base")];
    /// let set = GuardSet::prepare(&ExprPool::new(), &guards, &BTreeMap::new()).unwrap();
    /// let t = |object: &str, offset: i64| CallTensor::new(object, "S", View::new(&[5], &[1], offset));
    /// let call = |b_offset: i64| Call::new()
    ///     .tensor("L['a']", t("a", 0))
    ///     .tensor("L['b']", t("b", b_offset))
    ///     .tensor("L['c']", t("c", 10));
    /// assert!(set.check(&call(4)).unwrap().passed());
    /// assert!(!set.check(&call(8)).unwrap().passed()); // b now meets c
    /// ```
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
        check_runs(guards)?;
        let prepared = guards
            .iter()
            .map(|g| b.prepare(&g.kind))
            .collect::<Result<_, _>>()?;
        Ok(GuardSet {
            guards: guards.to_vec(),
            symbols: symbols.clone(),
            pool: b.pool,
            sources: b.sources,
            prepared,
        })
    }

    /// The guards, in order; their expressions live in [`GuardSet::pool`].
    pub fn guards(&self) -> &[Guard] {
        &self.guards
    }

    /// The pool the guards' expressions live in.
    pub fn pool(&self) -> &ExprPool {
        &self.pool
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
            let closes_run = run && closes(&self.guards[i].kind);
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

    /// Resolves every source to the call's input (one index of the call's
    /// sources, which also rejects a source given twice).
    ///
    /// Every tensor a guard reads is validated here, once: ranks agree, no
    /// negative size, stride or offset, itemsize at least 1, every byte
    /// address fits 64 bits (bad input, not a failing guard).
    fn bind<'c>(&'c self, call: &'c Call) -> Result<Bound<'c>, CheckError> {
        // One index of the call's sources; a source given twice would make
        // the answer depend on which one is read: bad input.
        let mut index: HashMap<&str, &CallInput> = HashMap::with_capacity(call.inputs.len());
        for x in &call.inputs {
            if index.insert(x.source.as_str(), x).is_some() {
                return Err(CheckError::DuplicateSource(x.source.clone()));
            }
        }
        let inputs: Vec<Option<&CallInput>> = self
            .sources
            .iter()
            .map(|s| index.get(s.as_str()).copied())
            .collect();
        for (k, x) in inputs.iter().enumerate() {
            if let Some(t) = x.and_then(|x| x.tensor.as_ref()) {
                t.view.validate().map_err(|error| CheckError::BadTensor {
                    input: self.sources[k].clone(),
                    error,
                })?;
            }
        }
        Ok(Bound {
            names: &self.sources,
            inputs,
        })
    }

    /// The value of an expression at the call; the inner `Err` says why it
    /// cannot be evaluated (e.g. a division by zero), the outer one is bad input.
    fn eval(&self, e: &Expr, b: &Bound) -> Result<Result<Value, EvalError>, CheckError> {
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
        let mut values: Vec<(SymbolId, i64)> = Vec::with_capacity(e.reads.len());
        for (s, k, what) in &e.reads {
            values.push((*s, b.read(*k, what, self.pool.symbol_name(*s))?));
        }
        Ok(self
            .pool
            .eval(e.id, &|s| values.iter().find(|v| v.0 == s).map(|v| v.1)))
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
}

/// Whether a guard of this kind closes a run of fast-path guards (is the
/// exact guard they stand in for).
fn closes(kind: &GuardKind) -> bool {
    matches!(
        kind,
        GuardKind::StorageOverlap { .. } | GuardKind::SelfOverlap { .. }
    )
}

/// Every fast-path guard is of a kind that can be one (shape, layout), and
/// every run of them is followed at once by the exact guard it stands in
/// for: a list that would let a fast path pass a call unchecked, or bind
/// where its author meant a fallback, is refused when prepared.
fn check_runs(guards: &[Guard]) -> Result<(), CheckError> {
    let mut open: Option<usize> = None;
    for (i, g) in guards.iter().enumerate() {
        if g.fast_path {
            if !matches!(g.kind, GuardKind::Shape { .. } | GuardKind::Layout { .. }) {
                return Err(CheckError::BadGuard {
                    guard: format!("guards[{i}]"),
                    problem: GuardProblem::NotAFastPath,
                });
            }
            open.get_or_insert(i);
            continue;
        }
        if let Some(first) = open.take() {
            if !closes(&g.kind) {
                return Err(CheckError::BadGuard {
                    guard: format!("guards[{first}]"),
                    problem: GuardProblem::FastPathNotClosed,
                });
            }
        }
    }
    match open {
        Some(first) => Err(CheckError::BadGuard {
            guard: format!("guards[{first}]"),
            problem: GuardProblem::FastPathNotClosed,
        }),
        None => Ok(()),
    }
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
