//! The shape environment: symbols with hints, ranges and sources; assumptions;
//! the range and divisibility facts derived from them; interval evaluation.
//!
//! Invariants once built: every declared hint lies inside its (narrowed) range,
//! and every assumption whose symbols all have hints is true at the hints.

mod facts;
mod interval;

pub(crate) use facts::Congruence;
pub use interval::Interval;

use crate::expr::{BinOp, EvalError, ExprId, ExprPool, Node, SymbolId, TernOp, Ty, UnOp};
use hashbrown::HashMap;
use thiserror::Error;

/// What the environment knows about one symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolInfo {
    /// The example value seen while tracing.
    pub hint: Option<i64>,
    /// The declared inclusive range.
    pub declared: Interval,
    /// Where the value comes from at run time (e.g. `L['x'].size()[0]`).
    pub source: Option<String>,
}

/// A bad environment: each variant names the symbol or assumption at fault.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum EnvError {
    /// `min > max`.
    #[error("symbol `{name}`: empty range: min {min} > max {max}")]
    EmptyRange {
        /// The symbol.
        name: String,
        /// Declared minimum.
        min: i64,
        /// Declared maximum.
        max: i64,
    },
    /// The hint lies outside the declared range.
    #[error("symbol `{name}`: hint {hint} is outside its range {range}")]
    HintOutOfRange {
        /// The symbol.
        name: String,
        /// The hint.
        hint: i64,
        /// The range.
        range: Interval,
    },
    /// A symbol was declared twice.
    #[error("symbol `{name}` is declared twice")]
    Duplicate {
        /// The symbol.
        name: String,
    },
    /// The name is a function name or `True`/`False`.
    #[error("`{name}` cannot be a symbol name (it is reserved)")]
    Reserved {
        /// The name.
        name: String,
    },
    /// The name is not an identifier.
    #[error("`{name}` is not a symbol name ([A-Za-z_][A-Za-z0-9_]*)")]
    BadName {
        /// The name.
        name: String,
    },
    /// An expression mentions a symbol that was not declared.
    #[error("unknown symbol `{name}` (not in `symbols`)")]
    UnknownSymbol {
        /// The symbol.
        name: String,
    },
    /// A symbol that needs a hint has none.
    #[error("symbol `{name}` has no hint")]
    MissingHint {
        /// The symbol.
        name: String,
    },
    /// An assumption is not a boolean expression.
    #[error("assumption `{text}` is not a boolean expression")]
    NotBoolean {
        /// The assumption.
        text: String,
    },
    /// An assumption is false at the hints.
    #[error("assumption `{text}` is false at the hints")]
    AssumptionFalse {
        /// The assumption.
        text: String,
    },
    /// An assumption cannot be evaluated at the hints.
    #[error("assumption `{text}` cannot be evaluated at the hints: {error}")]
    AssumptionEval {
        /// The assumption.
        text: String,
        /// Why.
        error: EvalError,
    },
}

/// A symbol's declaration: its name, example value (hint), inclusive range
/// (`None`: unbounded) and run-time source. Checked by [`Env::declare`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymbolDecl {
    /// An identifier, not a reserved function name.
    pub name: String,
    /// The example value: the call being compiled.
    pub hint: Option<i64>,
    /// The least value allowed.
    pub min: Option<i64>,
    /// The greatest value allowed.
    pub max: Option<i64>,
    /// Where the value comes from at run time (`L['x'].size()[0]`).
    pub source: Option<String>,
}

impl SymbolDecl {
    /// A symbol with no hint, unbounded, without source.
    pub fn new(name: impl Into<String>) -> Self {
        SymbolDecl {
            name: name.into(),
            ..SymbolDecl::default()
        }
    }

    /// With this hint.
    pub fn hint(mut self, hint: i64) -> Self {
        self.hint = Some(hint);
        self
    }

    /// With this least value.
    pub fn min(mut self, min: i64) -> Self {
        self.min = Some(min);
        self
    }

    /// With this greatest value.
    pub fn max(mut self, max: i64) -> Self {
        self.max = Some(max);
        self
    }

    /// With this run-time source.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }
}

/// The shape environment of one analysis. Symbols are those of one [`ExprPool`].
#[derive(Clone, Debug, Default)]
pub struct Env {
    symbols: HashMap<SymbolId, SymbolInfo>,
    order: Vec<SymbolId>,
    assumptions: Vec<ExprId>,
    ranges: HashMap<SymbolId, Interval>,
    congruences: HashMap<SymbolId, Congruence>,
}

impl Env {
    /// An empty environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a symbol. Errors when the range is empty, the hint lies outside
    /// it, the name is reserved, or the symbol was declared before.
    ///
    /// ```
    /// use symalias::env::{Env, SymbolDecl};
    /// use symalias::ExprPool;
    /// let (mut pool, mut env) = (ExprPool::new(), Env::new());
    /// let decl = SymbolDecl::new("s0").hint(20).min(2).source("L['x'].size()[0]");
    /// let s0 = env.declare(&mut pool, &decl).unwrap();
    /// assert_eq!(env.hint(s0), Some(20));
    /// assert!(env.declare(&mut pool, &SymbolDecl::new("s1").hint(1).min(2)).is_err());
    /// ```
    pub fn declare(
        &mut self,
        pool: &mut ExprPool,
        decl: &SymbolDecl,
    ) -> Result<SymbolId, EnvError> {
        let SymbolDecl {
            name,
            hint,
            min,
            max,
            source,
        } = decl;
        let (name, hint, min, max) = (name.as_str(), *hint, *min, *max);
        let mut chars = name.chars();
        let identifier = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            return Err(EnvError::BadName { name: name.into() });
        }
        if crate::expr::is_reserved(name) {
            return Err(EnvError::Reserved { name: name.into() });
        }
        let sym = pool.intern_symbol(name);
        if self.symbols.contains_key(&sym) {
            return Err(EnvError::Duplicate { name: name.into() });
        }
        if let (Some(lo), Some(hi)) = (min, max) {
            if lo > hi {
                return Err(EnvError::EmptyRange {
                    name: name.into(),
                    min: lo,
                    max: hi,
                });
            }
        }
        let declared = Interval::new(min.map(i128::from), max.map(i128::from));
        if let Some(h) = hint {
            if !declared.contains(h as i128) {
                return Err(EnvError::HintOutOfRange {
                    name: name.into(),
                    hint: h,
                    range: declared,
                });
            }
        }
        self.symbols.insert(
            sym,
            SymbolInfo {
                hint,
                declared,
                source: source.clone(),
            },
        );
        self.order.push(sym);
        self.ranges.insert(sym, declared);
        Ok(sym)
    }

    /// Checks that every symbol of `e` is declared (and, with `need_hints`, has a hint).
    pub(crate) fn check_symbols(
        &self,
        pool: &ExprPool,
        e: ExprId,
        need_hints: bool,
    ) -> Result<(), EnvError> {
        for s in pool.symbols_of(e) {
            let name = pool.symbol_name(s).to_string();
            match self.symbols.get(&s) {
                None => return Err(EnvError::UnknownSymbol { name }),
                Some(info) if need_hints && info.hint.is_none() => {
                    return Err(EnvError::MissingHint { name })
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Adds an assumption: it must be boolean, mention only declared symbols,
    /// and be true at the hints (when all its symbols have hints). Simple facts
    /// (bounds on one symbol, `Eq(Mod(s, m), r)`) narrow ranges and add congruences.
    pub fn assume(&mut self, pool: &mut ExprPool, a: ExprId) -> Result<(), EnvError> {
        let text = || pool.display(a).to_string();
        if pool.ty(a) != Ty::Bool {
            return Err(EnvError::NotBoolean { text: text() });
        }
        self.check_symbols(pool, a, false)?;
        let all_hinted = pool.symbols_of(a).iter().all(|s| self.hint(*s).is_some());
        if all_hinted {
            match pool.eval(a, &|s| self.hint(s)) {
                Ok(v) if v.as_bool() == Some(true) => {}
                Ok(_) => return Err(EnvError::AssumptionFalse { text: text() }),
                Err(error) => {
                    return Err(EnvError::AssumptionEval {
                        text: text(),
                        error,
                    })
                }
            }
        }
        self.assumptions.push(a);
        facts::learn(self, pool, a);
        Ok(())
    }

    /// The same symbols (hints, declared ranges, sources) without any
    /// assumption or what was learned from them.
    pub fn ranges_only(&self) -> Env {
        Env {
            symbols: self.symbols.clone(),
            order: self.order.clone(),
            assumptions: Vec::new(),
            ranges: self
                .order
                .iter()
                .map(|s| (*s, self.symbols[s].declared))
                .collect(),
            congruences: HashMap::new(),
        }
    }

    /// The declared symbols, in declaration order.
    pub fn symbols(&self) -> &[SymbolId] {
        &self.order
    }

    /// What is known about a symbol.
    pub fn info(&self, s: SymbolId) -> Option<&SymbolInfo> {
        self.symbols.get(&s)
    }

    /// The hint of a symbol.
    pub fn hint(&self, s: SymbolId) -> Option<i64> {
        self.symbols.get(&s).and_then(|i| i.hint)
    }

    /// The assumptions, in the order given.
    pub fn assumptions(&self) -> &[ExprId] {
        &self.assumptions
    }

    /// The range of a symbol, narrowed by the assumptions (unbounded if unknown).
    pub fn range(&self, s: SymbolId) -> Interval {
        self.ranges.get(&s).copied().unwrap_or(Interval::FULL)
    }

    /// The congruence known for a symbol (`s ≡ r (mod m)`), if any.
    pub(crate) fn congruence(&self, s: SymbolId) -> Option<Congruence> {
        self.congruences.get(&s).copied()
    }

    pub(crate) fn narrow(&mut self, s: SymbolId, by: Interval) {
        if self.symbols.contains_key(&s) {
            let r = self.range(s).intersect(by);
            self.ranges.insert(s, r);
        }
    }

    pub(crate) fn add_congruence(&mut self, s: SymbolId, c: Congruence) {
        let merged = match self.congruences.get(&s) {
            Some(old) if old.modulus >= c.modulus => *old,
            _ => c,
        };
        self.congruences.insert(s, merged);
        // Round the range's ends to the nearest values of the residue class.
        let r = self.range(s);
        let m = merged.modulus as i128;
        let res = merged.residue as i128;
        let lo = r.lo.map(|l| l + (res - l).rem_euclid(m));
        let hi = r.hi.map(|h| h - (h - res).rem_euclid(m));
        self.ranges.insert(s, Interval::new(lo, hi));
    }

    /// Sound bounds of an integer expression over the symbols' ranges.
    ///
    /// Booleans are `[0, 1]` (or a single value when decided by the bounds);
    /// float-valued parts are unbounded.
    ///
    /// ```
    /// use symalias::env::{Env, Interval, SymbolDecl};
    /// use symalias::expr::{parse, ExprPool};
    /// let mut pool = ExprPool::new();
    /// let mut env = Env::new();
    /// env.declare(&mut pool, &SymbolDecl::new("s0").hint(4).min(2).max(10)).unwrap();
    /// let e = parse(&mut pool, "3*s0 - (s0//2)").unwrap();
    /// assert_eq!(env.interval(&pool, e), Interval::new(Some(1), Some(29)));
    /// ```
    pub fn interval(&self, pool: &ExprPool, e: ExprId) -> Interval {
        let mut memo = HashMap::new();
        self.interval_memo(pool, e, &mut memo)
    }

    fn interval_memo(
        &self,
        pool: &ExprPool,
        e: ExprId,
        memo: &mut HashMap<ExprId, Interval>,
    ) -> Interval {
        if let Some(&r) = memo.get(&e) {
            return r;
        }
        if pool.ty(e) == Ty::Float {
            return Interval::FULL;
        }
        let mut sub = |x: ExprId| self.interval_memo(pool, x, memo);
        let r = match pool.node(e) {
            Node::Int(v) => Interval::point(*v as i128),
            Node::Float(_) => Interval::FULL,
            Node::Bool(b) => Interval::point(*b as i128),
            Node::Sym(s) => self.range(*s),
            Node::Add(xs) => xs.iter().fold(Interval::point(0), |acc, &x| acc + sub(x)),
            Node::Mul(xs) => xs.iter().fold(Interval::point(1), |acc, &x| acc * sub(x)),
            Node::Pow(b, k) => sub(*b).pow(*k),
            Node::Max(xs) => xs[1..].iter().fold(sub(xs[0]), |acc, &x| acc.max(sub(x))),
            Node::Min(xs) => xs[1..].iter().fold(sub(xs[0]), |acc, &x| acc.min(sub(x))),
            Node::Unary(UnOp::Abs, a) => sub(*a).abs(),
            Node::Unary(UnOp::Not, a) => bool_not(sub(*a)),
            Node::Unary(UnOp::TruncToInt | UnOp::ToFloat, _) => Interval::FULL,
            Node::Binary(op, [a, b]) => {
                let (x, y) = (sub(*a), sub(*b));
                match op {
                    BinOp::FloorDiv | BinOp::CleanDiv => x.floordiv(y),
                    BinOp::CeilDiv => x.ceildiv(y),
                    BinOp::Mod | BinOp::PythonMod => self.modulo(pool, *a, x, y),
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        relation(*op, x, y)
                    }
                    BinOp::FloatTrueDiv | BinOp::IntTrueDiv | BinOp::FloatPow => Interval::FULL,
                }
            }
            Node::Ternary(TernOp::ModularIndexing, [x, d, m]) => {
                let q = sub(*x).floordiv(sub(*d));
                q.modulo(sub(*m))
            }
            Node::Ternary(TernOp::Where, [c, a, b]) => match sub(*c).as_point() {
                Some(1) => sub(*a),
                Some(0) => sub(*b),
                _ => sub(*a).union(sub(*b)),
            },
            Node::And(xs) | Node::Or(xs) => {
                // The absorbing value decides; all neutral values give the neutral one.
                let (absorbing, neutral) = if matches!(pool.node(e), Node::And(_)) {
                    (0, 1)
                } else {
                    (1, 0)
                };
                let vs: Vec<Option<i128>> = xs.iter().map(|&x| sub(x).as_point()).collect();
                if vs.contains(&Some(absorbing)) {
                    Interval::point(absorbing)
                } else if vs.iter().all(|v| *v == Some(neutral)) {
                    Interval::point(neutral)
                } else {
                    Interval::BOOL
                }
            }
        };
        memo.insert(e, r);
        r
    }

    /// `x % y`, exact when `x` is a symbol with a congruence whose modulus the
    /// constant divisor divides.
    fn modulo(&self, pool: &ExprPool, xe: ExprId, x: Interval, y: Interval) -> Interval {
        if let (Node::Sym(s), Some(k)) = (pool.node(xe), y.as_point()) {
            if let Some(c) = self.congruence(*s) {
                if k > 0 && (c.modulus as i128) % k == 0 {
                    return Interval::point((c.residue as i128).rem_euclid(k));
                }
            }
        }
        x.modulo(y)
    }
}

pub(crate) fn bool_not(v: Interval) -> Interval {
    match v.as_point() {
        Some(1) => Interval::point(0),
        Some(0) => Interval::point(1),
        _ => Interval::BOOL,
    }
}

/// The truth of `x OP y` over the intervals: `[1,1]` always, `[0,0]` never,
/// `[0,1]` undecided.
pub(crate) fn relation(op: BinOp, x: Interval, y: Interval) -> Interval {
    let lt = |x: Interval, y: Interval| match (x.hi, y.lo, x.lo, y.hi) {
        (Some(a), Some(b), _, _) if a < b => Some(true),
        (_, _, Some(a), Some(b)) if a >= b => Some(false),
        _ => None,
    };
    let le = |x: Interval, y: Interval| match (x.hi, y.lo, x.lo, y.hi) {
        (Some(a), Some(b), _, _) if a <= b => Some(true),
        (_, _, Some(a), Some(b)) if a > b => Some(false),
        _ => None,
    };
    let eq = |x: Interval, y: Interval| match (x.as_point(), y.as_point()) {
        (Some(a), Some(b)) if a == b => Some(true),
        _ if x.intersect(y).is_empty() => Some(false),
        _ => None,
    };
    let truth = match op {
        BinOp::Lt => lt(x, y),
        BinOp::Le => le(x, y),
        BinOp::Gt => lt(y, x),
        BinOp::Ge => le(y, x),
        BinOp::Eq => eq(x, y),
        BinOp::Ne => eq(x, y).map(|b| !b),
        _ => None,
    };
    match truth {
        Some(b) => Interval::point(b as i128),
        None => Interval::BOOL,
    }
}
