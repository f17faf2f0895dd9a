//! A fourth generator of symbolic overlap cases (issue 60): non-linear
//! layouts, the family the first three draw too rarely to measure —
//! strides that are products of symbols (`s0*s0`, `s0*s1`), one modulus
//! written two ways (`2*s0 + 2` beside `s0 + 1`), sizes that are products
//! (`s0*s1`), floor and ceiling divisions (`((s1 + 1)//2)`,
//! `-((-s0)//3)`), and squares:
//!
//! * `cube`: slices of a contiguous `n × n × n` buffer (`n` a symbol, or
//!   `s0 × s1 × s1`): strides `n*n`, `n`, `1`, offsets `i*n*n + j*n + k`,
//!   whole, half (`((n + 1)//2)`) or one-short extents, sometimes one
//!   element too far;
//! * `rescaled`: rows of an `m`-wide buffer (`m = s0 + 1`) seen with
//!   stride `m` and every other row with `2*s0 + 2`, at offsets `c*m + k`
//!   or `c*(2*s0 + 2) + k`;
//! * `flattened`: a block `[s0, s1]:[s1, 1]` beside its flattening
//!   `[s0*s1]:[1]`, pieces of it (`[((s0*s1 + 1)//2)]`, ceiling halves)
//!   and the next block at `s0*s1`;
//! * `mixed`: ranks 1–3 drawn from all of the above: strides in
//!   `{s*t, s*s, 2*s + 2, s + 1, s, c}`, sizes in `{s, ((s + 1)//2),
//!   -((-s)//c), s - 1, c}` (and `s*t` at rank 1), offsets in `{k, c*s + k,
//!   s*t + k, s*s}`.
//!
//! One or two symbols, half bounded above; itemsize 1 or 4. Deterministic:
//! case `i` depends only on `i`. `tests/data/symgen/nonlinear.jsonl` holds
//! `case(0..CASES)`, `nonlinear_reference.jsonl` a plain z3 encoding's
//! verdicts on them (`tests/oracle/plain_z3.py`).

#![allow(dead_code)]

use super::symgen::{self, GenSym};
use super::symgen_products::{plus, tensor};
use super::Rng;
use serde_json::Value;

/// The families, in the order `case` draws them.
pub const FAMILIES: [&str; 4] = ["cube", "rescaled", "flattened", "mixed"];

struct Gen {
    r: Rng,
    syms: Vec<GenSym>,
    itemsize: i64,
}

/// `c*e` as text, `e` parenthesised when it is not a plain name.
fn times(c: i64, e: &str) -> String {
    match c {
        0 => "0".into(),
        1 => e.into(),
        _ if e.chars().all(|ch| ch.is_ascii_alphanumeric()) => format!("{c}*{e}"),
        _ => format!("{c}*({e})"),
    }
}

/// `a*b` as text, each parenthesised when it is not a plain name.
fn product(a: &str, b: &str) -> String {
    let wrap = |e: &str| {
        if e.chars().all(|ch| ch.is_ascii_alphanumeric()) {
            e.to_string()
        } else {
            format!("({e})")
        }
    };
    match (a, b) {
        ("0", _) | (_, "0") => "0".into(),
        ("1", _) => b.into(),
        (_, "1") => a.into(),
        _ => format!("{}*{}", wrap(a), wrap(b)),
    }
}

impl Gen {
    fn sym(&mut self) -> String {
        format!("s{}", self.r.range(0, self.syms.len() as i64 - 1))
    }

    fn last_sym(&self) -> String {
        format!("s{}", self.syms.len() - 1)
    }

    /// An extent along an axis of length `n`: whole, half (rounded up),
    /// one short, or a constant.
    fn extent(&mut self, n: &str) -> String {
        match self.r.range(0, 4) {
            0 | 1 => n.to_string(),
            2 => format!("(({n} + 1)//2)"),
            3 => format!("{n} - 1"),
            _ => self.r.range(1, 3).to_string(),
        }
    }

    /// Slices of a contiguous `a × b × b` buffer.
    fn cube(&mut self) -> Vec<Value> {
        let (a, b) = if self.syms.len() > 1 && self.r.range(0, 1) == 0 {
            ("s0".to_string(), "s1".to_string())
        } else {
            let n = self.sym();
            (n.clone(), n)
        };
        let strides = [product(&b, &b), b.clone(), "1".to_string()];
        let dims = [a, b.clone(), b];
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                let (mut sizes, mut kept, mut offset) = (vec![], vec![], "0".to_string());
                for d in 0..3 {
                    let first = match self.r.range(0, 3) {
                        0 | 1 => 0,
                        2 => 1,
                        _ => 2,
                    };
                    offset = plus(&offset, &times(first, &strides[d]));
                    match self.r.range(0, 4) {
                        0 => {} // indexed: the axis is dropped
                        _ => {
                            let n = if first == 0 {
                                dims[d].clone()
                            } else {
                                format!("{} - {first}", dims[d])
                            };
                            sizes.push(self.extent(&n));
                            kept.push(strides[d].clone());
                        }
                    }
                }
                if self.r.range(0, 4) == 0 {
                    // One element too far: it may reach its neighbour.
                    offset = plus(&offset, "1");
                }
                if sizes.is_empty() {
                    sizes.push("1".into());
                    kept.push("1".into());
                }
                if self.r.range(0, 3) == 0 && sizes.len() > 1 {
                    sizes.swap(0, 1);
                    kept.swap(0, 1);
                }
                tensor(sizes, kept, offset, self.itemsize)
            })
            .collect()
    }

    /// Rows of an `(s + 1)`-wide buffer, every row or every other one.
    fn rescaled(&mut self) -> Vec<Value> {
        let s = self.sym();
        let m = format!("{s} + 1");
        let twice = format!("2*{s} + 2");
        let rows = self.last_sym();
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                let every_other = self.r.range(0, 1) == 0;
                let step = if every_other {
                    twice.clone()
                } else {
                    m.clone()
                };
                let nrows = match self.r.range(0, 3) {
                    0 => rows.clone(),
                    1 => format!("(({rows} + 1)//2)"),
                    2 => format!("-((-{rows})//3)"),
                    _ => self.r.range(1, 3).to_string(),
                };
                let width = match self.r.range(0, 3) {
                    0 => m.clone(),
                    1 => s.clone(),
                    2 => format!("(({s} + 1)//2)"),
                    _ => self.r.range(1, 3).to_string(),
                };
                let (c, k) = (self.r.range(0, 3), self.r.range(0, 3));
                let base = if self.r.range(0, 1) == 0 { &m } else { &twice };
                let offset = plus(&times(c, base), &k.to_string());
                tensor(
                    vec![nrows, width],
                    vec![step, "1".into()],
                    offset,
                    self.itemsize,
                )
            })
            .collect()
    }

    /// A `[s0, s1]` block, its flattening and pieces of it.
    fn flattened(&mut self) -> Vec<Value> {
        let (a, b) = if self.syms.len() > 1 {
            ("s0".to_string(), "s1".to_string())
        } else {
            ("s0".to_string(), "s0".to_string())
        };
        let area = product(&a, &b);
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                let next = if self.r.range(0, 3) == 0 {
                    area.clone()
                } else {
                    "0".to_string()
                };
                match self.r.range(0, 4) {
                    0 => tensor(
                        vec![a.clone(), b.clone()],
                        vec![b.clone(), "1".into()],
                        next,
                        self.itemsize,
                    ),
                    1 => tensor(vec![area.clone()], vec!["1".into()], next, self.itemsize),
                    2 => {
                        // The first or second half of the flattening.
                        let half = format!("(({area} + 1)//2)");
                        let offset = if self.r.range(0, 1) == 0 {
                            next
                        } else {
                            plus(&next, &half)
                        };
                        tensor(
                            vec![format!("({area})//2")],
                            vec!["1".into()],
                            offset,
                            self.itemsize,
                        )
                    }
                    3 => {
                        // Every other row, ceiling half of them.
                        tensor(
                            vec![format!("-((-{a})//2)"), b.clone()],
                            vec![times(2, &b), "1".into()],
                            plus(&next, &self.r.range(0, 1).to_string()),
                            self.itemsize,
                        )
                    }
                    _ => {
                        // A column of the block.
                        let col = self.r.range(0, 2).to_string();
                        tensor(
                            vec![a.clone()],
                            vec![b.clone()],
                            plus(&next, &col),
                            self.itemsize,
                        )
                    }
                }
            })
            .collect()
    }

    /// Ranks 1–3 over every non-linear form at once.
    fn mixed(&mut self) -> Vec<Value> {
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                let rank = self.r.range(1, 3) as usize;
                let mut sizes = vec![];
                let mut strides = vec![];
                for d in 0..rank {
                    let s = self.sym();
                    sizes.push(match self.r.range(0, 5) {
                        0 => s,
                        1 => format!("(({s} + 1)//2)"),
                        2 => format!("-((-{s})//{})", self.r.range(2, 3)),
                        3 => format!("{s} - 1"),
                        4 if rank == 1 => {
                            let t = self.sym();
                            product(&s, &t)
                        }
                        _ => self.r.range(1, 3).to_string(),
                    });
                    strides.push(if d + 1 == rank && self.r.range(0, 1) == 0 {
                        "1".to_string()
                    } else {
                        let (s, t) = (self.sym(), self.sym());
                        match self.r.range(0, 5) {
                            0 => product(&s, &t),
                            1 => product(&s, &s),
                            2 => format!("2*{s} + 2"),
                            3 => format!("{s} + 1"),
                            4 => s,
                            _ => self.r.range(1, 6).to_string(),
                        }
                    });
                }
                let offset = match self.r.range(0, 3) {
                    0 => self.r.range(0, 8).to_string(),
                    1 => plus(
                        &times(self.r.range(1, 3), &self.sym()),
                        &self.r.range(0, 2).to_string(),
                    ),
                    2 => {
                        let (s, t) = (self.sym(), self.sym());
                        plus(&product(&s, &t), &self.r.range(0, 2).to_string())
                    }
                    _ => {
                        let s = self.sym();
                        product(&s, &s)
                    }
                };
                tensor(sizes, strides, offset, self.itemsize)
            })
            .collect()
    }
}

/// Case number `index`: its family, its symbols, and the FORMATS §3 case
/// (id `nonlin-<index>`); every field is valid at the hints.
pub fn case(index: u64) -> (&'static str, Vec<GenSym>, Value) {
    for attempt in 0u64.. {
        let mut g = Gen {
            r: Rng(index.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ (attempt << 32) ^ 0x60),
            syms: Vec::new(),
            itemsize: 1,
        };
        let family = FAMILIES[(index % FAMILIES.len() as u64) as usize];
        let nsyms = g.r.range(1, 2);
        for _ in 0..nsyms {
            let min = [1, 2, 2, 3][g.r.range(0, 3) as usize];
            let hint = min + g.r.range(0, 6);
            let max = (g.r.range(0, 1) == 0).then(|| hint + g.r.range(0, 6));
            g.syms.push(GenSym { min, max, hint });
        }
        g.itemsize = [1, 4][g.r.range(0, 1) as usize];
        let tensors = match family {
            "cube" => g.cube(),
            "rescaled" => g.rescaled(),
            "flattened" => g.flattened(),
            _ => g.mixed(),
        };
        if let Some(c) = symgen::assemble(&format!("nonlin-{index}"), &g.syms, tensors) {
            return (family, g.syms, c);
        }
    }
    unreachable!("some attempt gives valid views")
}
