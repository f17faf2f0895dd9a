//! The e-class analysis: what is known about every value of a class, over the
//! environment's allowed assignments.
//!
//! Each class carries its type, a sound interval (every value the class takes
//! at an allowed assignment lies inside) and a congruence `x ≡ r (mod m)`.
//! Both are lattices ordered by precision; merging two classes keeps what
//! both know (interval intersection, the finer congruence), which is sound
//! because merged classes are equal at every allowed assignment. A class whose
//! interval is a single value gets that constant as an e-node (`modify`), so
//! comparisons decided by the bounds become `True`/`False` and folded
//! arithmetic becomes a number.

use super::lang::{Opaque, Sym, Truth};
use crate::env::{bool_not, relation, Env, Interval};
use crate::expr::{BinOp, ExprPool, Ty};
use egg::{Analysis, DidMerge, EGraph, Id};
use hashbrown::HashMap;

/// `x ≡ r (mod m)`: `m == 0` means the value is exactly `r`; `m == 1` says nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cong {
    /// Modulus (0 = exact).
    pub m: i128,
    /// Residue, in `[0, m)` when `m >= 1`.
    pub r: i128,
}

impl Cong {
    /// Knows nothing.
    pub(crate) const ANY: Cong = Cong { m: 1, r: 0 };

    fn new(m: i128, r: i128) -> Cong {
        let m = m.abs();
        if m == 0 {
            Cong { m, r }
        } else {
            Cong {
                m,
                r: r.rem_euclid(m),
            }
        }
    }

    fn add(self, o: Cong) -> Cong {
        match self.r.checked_add(o.r) {
            Some(r) => Cong::new(gcd(self.m, o.m), r),
            None => Cong::ANY,
        }
    }

    fn mul(self, o: Cong) -> Cong {
        let parts = [
            self.m.checked_mul(o.m),
            self.m.checked_mul(o.r),
            o.m.checked_mul(self.r),
            self.r.checked_mul(o.r),
        ];
        match parts {
            [Some(a), Some(b), Some(c), Some(r)] => Cong::new(gcd(gcd(a, b), c), r),
            _ => Cong::ANY,
        }
    }

    /// `true` when every value is a multiple of `k` (`k >= 1`).
    pub(crate) fn multiple_of(self, k: i128) -> bool {
        k >= 1 && (self.m % k == 0) && self.r % k == 0
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// What is known about a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The type of its values.
    pub ty: Ty,
    /// Sound bounds (booleans are `[0, 1]`).
    pub interval: Interval,
    /// A congruence of its values.
    pub cong: Cong,
}

impl Facts {
    /// The class's constant, if its bounds pin it.
    pub fn constant(&self) -> Option<i128> {
        self.interval.as_point()
    }
}

/// The analysis: the environment's symbol facts and the opaque leaves' bounds.
#[derive(Debug, Default)]
pub struct FactsAnalysis {
    vars: HashMap<egg::Symbol, (Interval, Cong)>,
    opaque: HashMap<u32, (Ty, Interval)>,
}

impl FactsAnalysis {
    /// Facts of every symbol of `env`, and of the opaque leaves of `rec`.
    pub fn new<'a>(
        pool: &ExprPool,
        env: &Env,
        recs: impl IntoIterator<Item = &'a egg::RecExpr<Sym>>,
    ) -> Self {
        // Only the symbols that occur: the environment may hold thousands.
        let mut vars = HashMap::new();
        let mut opaque = HashMap::new();
        for node in recs.into_iter().flat_map(|r| r.as_ref()) {
            match node {
                Sym::Opaque(Opaque(i)) => {
                    let e = crate::expr::ExprId(*i);
                    opaque.insert(*i, (pool.ty(e), env.interval(pool, e)));
                }
                Sym::Var(name) if !vars.contains_key(name) => {
                    if let Some(s) = super::lang::var_symbol(*name) {
                        let cong = env.congruence(s).map_or(Cong::ANY, |c| {
                            Cong::new(c.modulus as i128, c.residue as i128)
                        });
                        vars.insert(*name, (env.range(s), cong));
                    }
                }
                _ => {}
            }
        }
        FactsAnalysis { vars, opaque }
    }

    /// Facts of a node from its children's facts (`None` for an unknown child).
    pub(crate) fn facts_of(&self, node: &Sym, kid: impl Fn(Id) -> Facts) -> Facts {
        let int = |interval: Interval| Facts {
            ty: Ty::Int,
            interval,
            cong: interval
                .as_point()
                .map_or(Cong::ANY, |v| Cong { m: 0, r: v }),
        };
        let boolean = |interval: Interval| Facts {
            ty: Ty::Bool,
            interval: interval.intersect(Interval::BOOL),
            cong: Cong::ANY,
        };
        let iv = |i: &Id| kid(*i).interval;
        match node {
            Sym::Num(v) => int(Interval::point(*v as i128)),
            Sym::Bool(Truth(b)) => boolean(Interval::point(*b as i128)),
            Sym::Var(s) => {
                let (interval, cong) = self
                    .vars
                    .get(s)
                    .copied()
                    .unwrap_or((Interval::FULL, Cong::ANY));
                Facts {
                    ty: Ty::Int,
                    interval,
                    cong,
                }
            }
            Sym::Opaque(Opaque(i)) => {
                let (ty, interval) = self
                    .opaque
                    .get(i)
                    .copied()
                    .unwrap_or((Ty::Float, Interval::FULL));
                Facts {
                    ty,
                    interval,
                    cong: Cong::ANY,
                }
            }
            Sym::Add([a, b]) => {
                let (x, y) = (kid(*a), kid(*b));
                Facts {
                    cong: x.cong.add(y.cong),
                    ..int(x.interval + y.interval)
                }
            }
            Sym::Mul([a, b]) => {
                let (x, y) = (kid(*a), kid(*b));
                Facts {
                    cong: x.cong.mul(y.cong),
                    ..int(x.interval * y.interval)
                }
            }
            Sym::Pow([a, k]) => match iv(k).as_point().and_then(|k| u32::try_from(k).ok()) {
                Some(k) => int(iv(a).pow(k)),
                None => int(Interval::FULL),
            },
            Sym::FloorDiv([a, b]) | Sym::CleanDiv([a, b]) => int(iv(a).floordiv(iv(b))),
            Sym::CeilDiv([a, b]) => int(iv(a).ceildiv(iv(b))),
            Sym::Mod([a, b]) | Sym::PythonMod([a, b]) => {
                let (x, m) = (kid(*a), iv(b));
                match m.as_point() {
                    // x ≡ r (mod m) with k | m pins x % k to r % k.
                    Some(k) if k >= 1 && x.cong.m >= 1 && x.cong.m % k == 0 => {
                        int(Interval::point(x.cong.r.rem_euclid(k)))
                    }
                    _ => int(x.interval.modulo(m)),
                }
            }
            Sym::ModularIndexing([x, d, m]) => int(iv(x).floordiv(iv(d)).modulo(iv(m))),
            Sym::Max([a, b]) => int(iv(a).max(iv(b))),
            Sym::Min([a, b]) => int(iv(a).min(iv(b))),
            Sym::Abs([a]) => int(iv(a).abs()),
            Sym::Eq([a, b]) => boolean(relation(BinOp::Eq, iv(a), iv(b))),
            Sym::Ne([a, b]) => boolean(relation(BinOp::Ne, iv(a), iv(b))),
            Sym::Lt([a, b]) => boolean(relation(BinOp::Lt, iv(a), iv(b))),
            Sym::Le([a, b]) => boolean(relation(BinOp::Le, iv(a), iv(b))),
            Sym::Not([a]) => boolean(bool_not(iv(a))),
            Sym::And([a, b]) | Sym::Or([a, b]) => {
                let (absorbing, neutral) = if matches!(node, Sym::And(_)) {
                    (0, 1)
                } else {
                    (1, 0)
                };
                let (x, y) = (iv(a).as_point(), iv(b).as_point());
                if x == Some(absorbing) || y == Some(absorbing) {
                    boolean(Interval::point(absorbing))
                } else if x == Some(neutral) && y == Some(neutral) {
                    boolean(Interval::point(neutral))
                } else {
                    boolean(Interval::BOOL)
                }
            }
            Sym::Where([c, a, b]) => {
                let (x, y) = (kid(*a), kid(*b));
                let interval = match iv(c).as_point() {
                    Some(1) => x.interval,
                    Some(0) => y.interval,
                    _ => x.interval.union(y.interval),
                };
                if x.ty == Ty::Bool {
                    boolean(interval)
                } else {
                    int(interval)
                }
            }
        }
    }
}

impl Analysis<Sym> for FactsAnalysis {
    type Data = Facts;

    fn make(egraph: &mut EGraph<Sym, Self>, enode: &Sym, _id: Id) -> Facts {
        egraph.analysis.facts_of(enode, |i| egraph[i].data.clone())
    }

    fn merge(&mut self, a: &mut Facts, b: Facts) -> DidMerge {
        let interval = a.interval.intersect(b.interval);
        // Merged classes are equal at every allowed assignment, so the bounds
        // can only be disjoint if the domain is empty: then keep `a` as it is.
        let interval = if interval.is_empty() {
            a.interval
        } else {
            interval
        };
        let cong = finer(a.cong, b.cong);
        let merged = Facts {
            ty: a.ty,
            interval,
            cong,
        };
        let did = DidMerge(merged != *a, merged != b);
        *a = merged;
        did
    }

    fn modify(egraph: &mut EGraph<Sym, Self>, id: Id) {
        let facts = &egraph[id].data;
        let Some(v) = facts.constant() else {
            return;
        };
        let node = match facts.ty {
            Ty::Bool => Sym::Bool(Truth(v == 1)),
            Ty::Int => match i64::try_from(v) {
                Ok(v) => Sym::Num(v),
                Err(_) => return,
            },
            Ty::Float => return,
        };
        let c = egraph.add(node);
        egraph.union_trusted(id, c, "bounds");
    }
}

/// The more precise of two congruences of the same value.
fn finer(a: Cong, b: Cong) -> Cong {
    match (a.m, b.m) {
        (0, _) => a,
        (_, 0) => b,
        (x, y) if y % x == 0 => b,
        _ => a,
    }
}
