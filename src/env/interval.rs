//! Closed integer intervals with optional (unbounded) ends, and sound interval
//! arithmetic for every integer operator of FORMATS.md §1.
//!
//! Soundness is the contract: for every assignment inside the symbols' ranges
//! at which an expression evaluates without error, its value lies inside the
//! interval computed here. Bounds are `i128` so that products of `i64` ranges
//! stay exact; anything that would overflow widens to unbounded.

use crate::expr::arith::{floordiv, pymod};
use std::fmt;

/// A closed interval `[lo, hi]`; `None` is unbounded on that side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    /// Lower bound (inclusive), `None` for −∞.
    pub lo: Option<i128>,
    /// Upper bound (inclusive), `None` for +∞.
    pub hi: Option<i128>,
}

/// An extended integer used for corner products.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ext {
    NegInf,
    Fin(i128),
    PosInf,
}

impl Ext {
    fn mul(self, o: Ext) -> Ext {
        use Ext::*;
        match (self, o) {
            (Fin(a), Fin(b)) => match a.checked_mul(b) {
                Some(p) => Fin(p),
                None if (a < 0) == (b < 0) => PosInf,
                None => NegInf,
            },
            (Fin(0), _) | (_, Fin(0)) => Fin(0),
            (a, b) => {
                if (a < Fin(0)) == (b < Fin(0)) {
                    PosInf
                } else {
                    NegInf
                }
            }
        }
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.lo {
            Some(v) => write!(f, "[{v}, ")?,
            None => f.write_str("(-oo, ")?,
        }
        match self.hi {
            Some(v) => write!(f, "{v}]"),
            None => f.write_str("oo)"),
        }
    }
}

impl Interval {
    /// The whole integer line.
    pub(crate) const FULL: Interval = Interval { lo: None, hi: None };
    /// The booleans as `{0, 1}` (false, true).
    pub(crate) const BOOL: Interval = Interval {
        lo: Some(0),
        hi: Some(1),
    };

    /// `[lo, hi]`.
    pub fn new(lo: Option<i128>, hi: Option<i128>) -> Self {
        Interval { lo, hi }
    }

    /// The single value `v`.
    pub fn point(v: i128) -> Self {
        Interval {
            lo: Some(v),
            hi: Some(v),
        }
    }

    /// `true` when `v` lies inside.
    pub fn contains(&self, v: i128) -> bool {
        self.lo.is_none_or(|l| l <= v) && self.hi.is_none_or(|h| v <= h)
    }

    /// The single value, if the interval has exactly one.
    pub(crate) fn as_point(&self) -> Option<i128> {
        match (self.lo, self.hi) {
            (Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }

    /// `true` when every value is `>= 0`.
    pub(crate) fn is_nonneg(&self) -> bool {
        self.lo.is_some_and(|l| l >= 0)
    }

    /// The smallest interval containing both.
    pub(crate) fn union(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.zip(o.lo).map(|(a, b)| a.min(b)),
            hi: self.hi.zip(o.hi).map(|(a, b)| a.max(b)),
        }
    }

    /// The intersection (may be empty, i.e. `lo > hi`, when the two are disjoint).
    pub(crate) fn intersect(self, o: Interval) -> Interval {
        Interval {
            lo: max_opt(self.lo, o.lo),
            hi: min_opt(self.hi, o.hi),
        }
    }

    /// `true` when no integer lies inside.
    pub fn is_empty(&self) -> bool {
        matches!((self.lo, self.hi), (Some(a), Some(b)) if a > b)
    }

    fn ext(self) -> (Ext, Ext) {
        (
            self.lo.map_or(Ext::NegInf, Ext::Fin),
            self.hi.map_or(Ext::PosInf, Ext::Fin),
        )
    }

    fn from_ext(lo: Ext, hi: Ext) -> Interval {
        Interval {
            lo: match lo {
                Ext::Fin(v) => Some(v),
                _ => None,
            },
            hi: match hi {
                Ext::Fin(v) => Some(v),
                _ => None,
            },
        }
    }

    /// `a ** k`.
    pub fn pow(self, k: u32) -> Interval {
        if k == 0 {
            return Interval::point(1);
        }
        let p = |v: i128| v.checked_pow(k);
        if k % 2 == 1 {
            return Interval {
                lo: self.lo.and_then(p),
                hi: self.hi.and_then(p),
            };
        }
        // Even power: the minimum is at the value closest to zero.
        let abs = self.abs();
        Interval {
            lo: abs.lo.and_then(p),
            hi: abs.hi.and_then(p),
        }
    }

    /// `Abs(a)`.
    pub fn abs(self) -> Interval {
        if self.is_nonneg() {
            return self;
        }
        if self.hi.is_some_and(|h| h <= 0) {
            return -self;
        }
        let neg = -self;
        Interval {
            lo: Some(0),
            hi: max_opt_unbounded(self.hi, neg.hi),
        }
    }

    /// `Max(a, b)`.
    pub fn max(self, o: Interval) -> Interval {
        Interval {
            lo: max_opt(self.lo, o.lo),
            hi: self.hi.zip(o.hi).map(|(a, b)| a.max(b)),
        }
    }

    /// `Min(a, b)`.
    pub fn min(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.zip(o.lo).map(|(a, b)| a.min(b)),
            hi: min_opt(self.hi, o.hi),
        }
    }

    /// The part of the divisor interval that is `>= 1`, and the part `<= -1`.
    fn split_divisor(self) -> (Option<Interval>, Option<Interval>) {
        let pos = Interval {
            lo: Some(self.lo.map_or(1, |l| l.max(1))),
            hi: self.hi,
        };
        let neg = Interval {
            lo: self.lo,
            hi: Some(self.hi.map_or(-1, |h| h.min(-1))),
        };
        (
            (!pos.is_empty()).then_some(pos),
            (!neg.is_empty()).then_some(neg),
        )
    }

    /// Floor division by a positive divisor interval `[p, q]`, `p >= 1`.
    fn floordiv_pos(self, d: Interval) -> Interval {
        // The positive part is `>= 1` (an unknown lower bound, from an
        // overflowing product, is 1: still sound).
        let p = d.lo.unwrap_or(1).max(1);
        let fd = |x: i128, y: i128| floordiv(x, y).ok();
        let lo = match self.lo {
            None => None,
            // x >= 0: smallest at the smallest x and the largest divisor.
            Some(a) if a >= 0 => Some(d.hi.map_or(Some(0), |q| fd(a, q)).unwrap_or(0)),
            // x < 0 somewhere: smallest at the smallest x and the smallest divisor.
            Some(a) => fd(a, p),
        };
        let hi = match self.hi {
            None => None,
            Some(b) if b >= 0 => fd(b, p),
            // x < 0 everywhere: largest at the largest x and the largest divisor.
            Some(b) => Some(d.hi.map_or(Some(-1), |q| fd(b, q)).unwrap_or(-1)),
        };
        Interval { lo, hi }
    }

    /// `a // b` (values where `b == 0` are errors and contribute nothing).
    pub fn floordiv(self, d: Interval) -> Interval {
        let (pos, neg) = d.split_divisor();
        let parts = [
            pos.map(|p| self.floordiv_pos(p)),
            // x // y == (-x) // (-y)
            neg.map(|n| (-self).floordiv_pos(-n)),
        ];
        join_parts(parts)
    }

    /// `CeilDiv(a, b)` = `-((-a) // b)`.
    pub fn ceildiv(self, d: Interval) -> Interval {
        -((-self).floordiv(d))
    }

    /// `a % b` with the sign of `b`.
    pub(crate) fn modulo(self, d: Interval) -> Interval {
        let (pos, neg) = d.split_divisor();
        let pos_part = pos.map(|p| {
            let lo_div = p.lo.unwrap_or(1).max(1);
            if self.is_nonneg() && self.hi.is_some_and(|h| h < lo_div) {
                // 0 <= x < every divisor: x % y == x.
                return self;
            }
            if let (Some(x), Some(y)) = (self.as_point(), p.as_point()) {
                return pymod(x, y).map(Interval::point).unwrap_or(Interval::FULL);
            }
            // 0 <= x % y <= y - 1, and x % y <= x when x >= 0.
            let hi = p.hi.map(|q| q - 1);
            let hi = if self.is_nonneg() {
                min_opt(hi, self.hi)
            } else {
                hi
            };
            Interval { lo: Some(0), hi }
        });
        let neg_part = neg.map(|n| {
            let hi_div = n.hi.unwrap_or(-1).min(-1);
            if self.hi.is_some_and(|h| h <= 0) && self.lo.is_some_and(|l| l > hi_div) {
                return self;
            }
            Interval {
                lo: n.lo.map(|q| q + 1),
                hi: Some(0),
            }
        });
        join_parts([pos_part, neg_part])
    }
}

impl std::ops::Add for Interval {
    type Output = Interval;
    /// `a + b`.
    fn add(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.zip(o.lo).and_then(|(a, b)| a.checked_add(b)),
            hi: self.hi.zip(o.hi).and_then(|(a, b)| a.checked_add(b)),
        }
    }
}

impl std::ops::Neg for Interval {
    type Output = Interval;
    /// `-a`.
    fn neg(self) -> Interval {
        Interval {
            lo: self.hi.and_then(i128::checked_neg),
            hi: self.lo.and_then(i128::checked_neg),
        }
    }
}

impl std::ops::Mul for Interval {
    type Output = Interval;
    /// `a * b`.
    fn mul(self, o: Interval) -> Interval {
        let (a, b) = self.ext();
        let (c, d) = o.ext();
        let corners = [a.mul(c), a.mul(d), b.mul(c), b.mul(d)];
        let lo = *corners.iter().min().expect("four corners");
        let hi = *corners.iter().max().expect("four corners");
        Interval::from_ext(lo, hi)
    }
}

fn join_parts(parts: [Option<Interval>; 2]) -> Interval {
    match parts {
        [Some(a), Some(b)] => a.union(b),
        [Some(a), None] | [None, Some(a)] => a,
        // Only division by zero: no value at all; claim nothing.
        [None, None] => Interval::FULL,
    }
}

fn max_opt(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn min_opt(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Maximum of two upper bounds, where `None` is +∞.
fn max_opt_unbounded(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    a.zip(b).map(|(x, y)| x.max(y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(lo: i128, hi: i128) -> Interval {
        Interval::new(Some(lo), Some(hi))
    }

    /// Every value of `op` over the boxes lies in the computed interval.
    fn check_exhaustive(
        name: &str,
        f: impl Fn(Interval, Interval) -> Interval,
        g: impl Fn(i128, i128) -> Option<i128>,
    ) {
        for a in -6..=6 {
            for b in a..=6 {
                for c in -6..=6 {
                    for d in c..=6 {
                        let r = f(iv(a, b), iv(c, d));
                        for x in a..=b {
                            for y in c..=d {
                                if let Some(v) = g(x, y) {
                                    assert!(r.contains(v), "{name}: [{a},{b}] op [{c},{d}] = {r}, misses {x} op {y} = {v}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn binary_operators_are_sound_on_small_boxes() {
        check_exhaustive("add", |a, b| a + b, |x, y| Some(x + y));
        check_exhaustive("mul", |a, b| a * b, |x, y| Some(x * y));
        check_exhaustive("max", Interval::max, |x, y| Some(x.max(y)));
        check_exhaustive("min", Interval::min, |x, y| Some(x.min(y)));
        check_exhaustive("floordiv", Interval::floordiv, |x, y| floordiv(x, y).ok());
        check_exhaustive("ceildiv", Interval::ceildiv, |x, y| {
            crate::expr::arith::ceildiv(x, y).ok()
        });
        check_exhaustive("mod", Interval::modulo, |x, y| pymod(x, y).ok());
    }

    #[test]
    fn unbounded_ends_stay_sound() {
        let pos = Interval::new(Some(2), None);
        assert_eq!(pos * iv(3, 4), Interval::new(Some(6), None));
        assert_eq!(pos.floordiv(iv(2, 2)), Interval::new(Some(1), None));
        assert_eq!(Interval::FULL.modulo(iv(8, 8)), iv(0, 7));
        assert_eq!(
            Interval::new(None, Some(-3)).floordiv(Interval::new(Some(1), None)),
            Interval::new(None, Some(-1))
        );
        assert_eq!(iv(0, 0) * Interval::FULL, iv(0, 0));
        assert_eq!(iv(-3, 2).pow(2), iv(0, 9));
        assert_eq!(iv(-3, 2).abs(), iv(0, 3));
    }

    #[test]
    fn modulo_keeps_small_values() {
        // 0 <= x < m: x % m == x, so the interval is kept exactly.
        assert_eq!(iv(0, 5).modulo(Interval::new(Some(8), None)), iv(0, 5));
        assert_eq!(iv(0, 9).modulo(iv(8, 8)), iv(0, 7));
    }
}
