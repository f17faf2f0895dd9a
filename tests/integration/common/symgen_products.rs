//! A second generator of symbolic overlap cases (issue 34), for the layouts
//! where disjointness for every shape is a matter of divisibility and of
//! products of symbols, which the first generator (`symgen.rs`) rarely draws:
//!
//! * `residue`: views whose strides are all multiples of one symbolic
//!   modulus `g` (`s0`, `2*s0`, `s0 + 1`, `s0*s1`) at offsets `c*g + k`: two
//!   views meet only where their residues modulo `g` do, e.g. `[s0]:[s0]@0`
//!   against `[4]:[s0]@3*s0 + 3` (`s0 ∣ 3`);
//! * `products`: slices, rows, columns and shifted blocks of a contiguous
//!   rank-3 buffer whose sizes are symbols or constants, so that strides
//!   and offsets are products `s*t`, `s*s`;
//! * `strided`: ranks 1–3 with floordiv sizes `((s + c - 1)//c)`, strides
//!   `c*s + k` and products, and the diagonals of an `s × s` matrix
//!   (stride `s + 1`) at offsets `k` and `k*s`.
//!
//! Itemsizes 1–8 (one per case, or bytes reinterpreted at two itemsizes);
//! half of the symbols are bounded above. Deterministic: case `i` depends
//! only on `i`. `tests/data/symgen/products.jsonl` holds `case(0..CASES)`,
//! `products_reference.jsonl` a plain z3 encoding's verdicts on them.

#![allow(dead_code)]

use super::symgen::{self, GenSym};
use super::Rng;
use serde_json::{json, Value};

/// The families, in the order `case` draws them.
pub const FAMILIES: [&str; 3] = ["residue", "products", "strided"];

struct Gen {
    r: Rng,
    syms: Vec<GenSym>,
}

pub fn tensor(sizes: Vec<String>, strides: Vec<String>, offset: String, itemsize: i64) -> Value {
    json!({"sizes": sizes, "strides": strides, "storage_offset": offset, "itemsize": itemsize})
}

/// `c*e` as text, `e` parenthesised when it is a sum.
fn times(c: i64, e: &str) -> String {
    match c {
        0 => "0".into(),
        1 => e.into(),
        _ if e.contains(' ') => format!("{c}*({e})"),
        _ => format!("{c}*{e}"),
    }
}

/// `a + b` as text, dropping zeros.
pub fn plus(a: &str, b: &str) -> String {
    match (a, b) {
        ("0", _) => b.into(),
        (_, "0") => a.into(),
        _ => format!("{a} + {b}"),
    }
}

impl Gen {
    fn sym(&mut self) -> String {
        format!("s{}", self.r.range(0, self.syms.len() as i64 - 1))
    }

    fn itemsize(&mut self) -> i64 {
        [1, 2, 4, 8][self.r.range(0, 3) as usize]
    }

    /// A size: a constant, a symbol, half of one, or one less.
    fn size(&mut self) -> String {
        match self.r.range(0, 4) {
            0 | 1 => self.r.range(1, 5).to_string(),
            2 => self.sym(),
            3 => format!("(({} + 1)//2)", self.sym()),
            _ => format!("{} - 1", self.sym()),
        }
    }

    /// Views whose strides are multiples of one symbolic modulus.
    fn residue(&mut self) -> Vec<Value> {
        let g = match self.r.range(0, 5) {
            0..=2 => "s0".to_string(),
            3 => "2*s0".to_string(),
            4 => "s0 + 1".to_string(),
            _ if self.syms.len() > 1 => "s0*s1".to_string(),
            _ => "s0".to_string(),
        };
        let itemsize = self.itemsize();
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                let outer = self.r.range(1, 2);
                let mut sizes: Vec<String> = (0..outer).map(|_| self.size()).collect();
                let mut strides: Vec<String> =
                    (0..outer).map(|_| times(self.r.range(1, 3), &g)).collect();
                if self.r.range(0, 1) == 0 {
                    // A contiguous run inside each row: residues k..k+w.
                    sizes.push(self.r.range(1, 4).to_string());
                    strides.push("1".into());
                }
                let (c, k) = (self.r.range(0, 4), self.r.range(0, 5));
                let offset = plus(&times(c, &g), &k.to_string());
                tensor(sizes, strides, offset, itemsize)
            })
            .collect()
    }

    /// Blocks of a contiguous `d0 × d1 × d2` buffer.
    fn products(&mut self) -> Vec<Value> {
        let dims: Vec<String> = (0..3)
            .map(|_| {
                if self.r.range(0, 2) == 0 {
                    self.r.range(2, 4).to_string()
                } else {
                    self.sym()
                }
            })
            .collect();
        let strides = [
            format!("{}*{}", dims[1], dims[2]),
            dims[2].clone(),
            "1".into(),
        ];
        let itemsize = self.itemsize();
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                let (mut sizes, mut kept, mut offset) = (vec![], vec![], "0".to_string());
                for d in 0..3 {
                    // The first index on this axis: 0, 1, or the last one.
                    let lo = match self.r.range(0, 3) {
                        0 | 1 => "0".to_string(),
                        2 => "1".to_string(),
                        _ => format!("{} - 1", dims[d]),
                    };
                    offset = plus(&offset, &times_expr(&lo, &strides[d]));
                    match self.r.range(0, 3) {
                        0 => {} // indexed: the axis is dropped
                        1 => {
                            sizes.push(self.r.range(1, 2).to_string());
                            kept.push(strides[d].clone());
                        }
                        _ => {
                            let rest = if lo == "0" {
                                dims[d].clone()
                            } else if lo == "1" {
                                format!("{} - 1", dims[d])
                            } else {
                                "1".into()
                            };
                            sizes.push(rest);
                            kept.push(strides[d].clone());
                        }
                    }
                }
                if self.r.range(0, 5) == 0 {
                    // A view one element too far: it may reach its neighbour.
                    offset = plus(&offset, "1");
                }
                if sizes.is_empty() {
                    sizes.push("1".into());
                    kept.push("1".into());
                }
                if self.r.range(0, 3) == 0 && sizes.len() > 1 {
                    // A transpose.
                    sizes.swap(0, 1);
                    kept.swap(0, 1);
                }
                tensor(sizes, kept, offset, itemsize)
            })
            .collect()
    }

    /// Ranks 1–3: floordiv sizes, `c*s + k` strides, products, diagonals.
    fn strided(&mut self) -> Vec<Value> {
        if self.r.range(0, 2) == 0 {
            return self.diagonals();
        }
        let mut itemsize = self.itemsize();
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                if self.r.range(0, 2) == 0 {
                    // Another dtype over the same bytes.
                    itemsize = self.itemsize();
                }
                let rank = self.r.range(1, 3) as usize;
                let mut sizes = vec![];
                let mut strides = vec![];
                for d in 0..rank {
                    let c = self.r.range(2, 4);
                    sizes.push(match self.r.range(0, 3) {
                        0 => format!("(({} + {})//{c})", self.sym(), c - 1),
                        1 => self.sym(),
                        _ => self.r.range(1, 4).to_string(),
                    });
                    strides.push(if d + 1 == rank && self.r.range(0, 1) == 0 {
                        "1".to_string()
                    } else {
                        match self.r.range(0, 3) {
                            0 => {
                                let (s, t) = (self.sym(), self.sym());
                                format!("{s}*{t}")
                            }
                            1 => plus(
                                &times(self.r.range(1, 3), &self.sym()),
                                &self.r.range(0, 2).to_string(),
                            ),
                            _ => self.r.range(1, 8).to_string(),
                        }
                    });
                }
                let offset = match self.r.range(0, 3) {
                    0 => self.r.range(0, 12).to_string(),
                    1 => plus(
                        &times(self.r.range(1, 4), &self.sym()),
                        &self.r.range(0, 3).to_string(),
                    ),
                    2 => {
                        let (s, t) = (self.sym(), self.sym());
                        plus(&format!("{s}*{t}"), &self.r.range(0, 3).to_string())
                    }
                    _ => times(self.r.range(1, 3), &format!("(({} + 1)//2)", self.sym())),
                };
                tensor(sizes, strides, offset, itemsize)
            })
            .collect()
    }

    /// Diagonals of an `n × n` matrix, `n` a symbol: stride `n + 1`, at
    /// offsets `k` (the k-th superdiagonal) or `k*n` (subdiagonal).
    fn diagonals(&mut self) -> Vec<Value> {
        let n = self.sym();
        let itemsize = self.itemsize();
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                let k = self.r.range(0, 2);
                let below = self.r.range(0, 1) == 0;
                let offset = if below { times(k, &n) } else { k.to_string() };
                let len = if k == 0 {
                    n.clone()
                } else {
                    format!("{n} - {k}")
                };
                tensor(vec![len], vec![format!("{n} + 1")], offset, itemsize)
            })
            .collect()
    }
}

/// `lo * stride` as text (`lo` a constant or `d - 1`).
fn times_expr(lo: &str, stride: &str) -> String {
    match lo {
        "0" => "0".into(),
        "1" => stride.into(),
        _ => format!("({lo})*({stride})"),
    }
}

/// Case number `index`: its family, its symbols, and the FORMATS §3 case
/// (id `prod-<index>`); every field is valid at the hints.
pub fn case(index: u64) -> (&'static str, Vec<GenSym>, Value) {
    for attempt in 0u64.. {
        let mut g = Gen {
            r: Rng(index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (attempt << 32) ^ 0x34),
            syms: Vec::new(),
        };
        let family = FAMILIES[(index % FAMILIES.len() as u64) as usize];
        let nsyms = g.r.range(1, 2);
        for _ in 0..nsyms {
            let min = [1, 2, 2, 3, 4][g.r.range(0, 4) as usize];
            let hint = min + g.r.range(0, 8);
            let max = (g.r.range(0, 1) == 0).then(|| hint + g.r.range(0, 8));
            g.syms.push(GenSym { min, max, hint });
        }
        let tensors = match family {
            "residue" => g.residue(),
            "products" => g.products(),
            _ => g.strided(),
        };
        if let Some(c) = symgen::assemble(&format!("prod-{index}"), &g.syms, tensors) {
            return (family, g.syms, c);
        }
    }
    unreachable!("some attempt gives valid views")
}
