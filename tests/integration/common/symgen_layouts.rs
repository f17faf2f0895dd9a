//! A third generator of symbolic overlap cases (issue 50), held out: written
//! after the engine's stages, from the layouts torch programs make that the
//! first two generators (`symgen.rs`, `symgen_products.rs`) do not draw:
//!
//! * `unfold`: `x.unfold(0, k, step)` windows of a 1-D buffer of symbolic
//!   length (sizes `((s - k)//step + 1, k)`, a constant or symbolic step)
//!   beside slices and other windows of it;
//! * `padded`: rows padded to an alignment (row stride
//!   `((s + a - 1)//a)*a`): the data `[:, :s]`, the padding `[:, s:]`, a
//!   column, a row, the whole buffer;
//! * `cache`: a KV cache `L × H × D` written at symbolic positions: the
//!   prefix `[:p]`, the row `[p]`, rows `[p - 1]`, `[p + 1]`, the suffix
//!   `[p:]`, one head `[:, h]` (`p` a symbol below `L`);
//! * `narrow`: pieces of a concatenated buffer `cat([a, b, c])` with
//!   symbolic lengths (offsets `s0`, `s0 + s1`), some one element too long
//!   or too early.
//!
//! Itemsizes 1–8; half of the symbols bounded above. Deterministic: case `i`
//! depends only on `i`. `tests/data/symgen/layouts.jsonl` holds
//! `case(0..CASES)`, `layouts_reference.jsonl` a plain z3 encoding's
//! verdicts on them.

#![allow(dead_code)]

use super::symgen::{self, GenSym};
use super::Rng;
use serde_json::{json, Value};

/// The families, in the order `case` draws them.
pub const FAMILIES: [&str; 4] = ["unfold", "padded", "cache", "narrow"];

struct Gen {
    r: Rng,
    syms: Vec<GenSym>,
}

fn tensor(sizes: Vec<String>, strides: Vec<String>, offset: String, itemsize: i64) -> Value {
    json!({"sizes": sizes, "strides": strides, "storage_offset": offset, "itemsize": itemsize})
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

impl Gen {
    fn itemsize(&mut self) -> i64 {
        [1, 2, 4, 8][self.r.range(0, 3) as usize]
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.r.range(0, xs.len() as i64 - 1) as usize]
    }

    /// Windows of `s0` elements: `unfold(0, k, step)`, slices, a shifted
    /// window set.
    fn unfold(&mut self) -> Vec<Value> {
        let k = self.r.range(1, 4);
        let step = if self.syms.len() > 1 && self.r.range(0, 2) == 0 {
            "s1".to_string()
        } else {
            self.r.range(1, 4).to_string()
        };
        let itemsize = self.itemsize();
        let windows = |at: &str| {
            tensor(
                vec![format!("((s0 - {k})//{step} + 1)"), k.to_string()],
                vec![step.clone(), "1".into()],
                at.to_string(),
                itemsize,
            )
        };
        let mut out = vec![windows("0")];
        for _ in 0..self.r.range(1, 2) {
            out.push(match self.r.range(0, 4) {
                0 => windows("1"),
                1 => tensor(strs(&["s0"]), strs(&["1"]), "0".into(), itemsize),
                // Past the last window's start: `step*(n - 1) + k`.
                2 => tensor(
                    strs(&["1"]),
                    strs(&["1"]),
                    format!("{step}*((s0 - {k})//{step}) + {k}"),
                    itemsize,
                ),
                3 => tensor(
                    vec![format!("((s0 - {k})//{step} + 1)")],
                    vec![step.clone()],
                    (k - 1).to_string(),
                    itemsize,
                ),
                _ => tensor(strs(&["s0 - 1"]), strs(&["1"]), "1".into(), itemsize),
            });
        }
        out
    }

    /// Rows of `s0` elements padded to a multiple of `a`, `r` rows.
    fn padded(&mut self) -> Vec<Value> {
        let a = self.pick(&["2", "4", "8", "16"]);
        let pitch = format!("((s0 + {a} - 1)//{a})*{a}");
        let rows = if self.syms.len() > 1 {
            "s1".to_string()
        } else {
            self.r.range(1, 4).to_string()
        };
        let itemsize = self.itemsize();
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| match self.r.range(0, 5) {
                0 => tensor(
                    vec![rows.clone(), "s0".into()],
                    vec![pitch.clone(), "1".into()],
                    "0".into(),
                    itemsize,
                ),
                1 => tensor(
                    vec![rows.clone(), format!("{pitch} - s0")],
                    vec![pitch.clone(), "1".into()],
                    "s0".into(),
                    itemsize,
                ),
                // The last data column, or the first padding one (may be empty).
                2 => tensor(
                    vec![rows.clone()],
                    vec![pitch.clone()],
                    "s0 - 1".into(),
                    itemsize,
                ),
                3 => tensor(
                    vec![rows.clone(), format!("{pitch} - s0")],
                    vec![pitch.clone(), "1".into()],
                    "s0 - 1".into(),
                    itemsize,
                ),
                4 => tensor(vec!["s0".into()], vec!["1".into()], pitch.clone(), itemsize),
                _ => tensor(
                    vec![format!("{rows}*{pitch}")],
                    vec!["1".into()],
                    "0".into(),
                    itemsize,
                ),
            })
            .collect()
    }

    /// A KV cache `L × H × D` (`L` a constant above every position, or a
    /// symbol), written at position `s0`.
    fn cache(&mut self) -> Vec<Value> {
        let (h, d) = (self.r.range(1, 3), self.r.range(1, 4));
        let row = h * d;
        let len = if self.syms.len() > 1 {
            "s0 + s1".to_string()
        } else {
            "s0 + 2".to_string()
        };
        let itemsize = self.itemsize();
        let hd = [h.to_string(), d.to_string()];
        let row_s = [format!("{d}"), "1".to_string()];
        let block = |sizes0: &str, at: String| {
            let mut sizes = vec![sizes0.to_string()];
            sizes.extend(hd.iter().cloned());
            let mut strides = vec![row.to_string()];
            strides.extend(row_s.iter().cloned());
            tensor(sizes, strides, at, itemsize)
        };
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| match self.r.range(0, 6) {
                0 => block("s0", "0".into()),
                1 => tensor(hd.to_vec(), row_s.to_vec(), format!("{row}*s0"), itemsize),
                2 => tensor(
                    hd.to_vec(),
                    row_s.to_vec(),
                    format!("{row}*(s0 - 1)"),
                    itemsize,
                ),
                3 => tensor(
                    hd.to_vec(),
                    row_s.to_vec(),
                    format!("{row}*(s0 + 1)"),
                    itemsize,
                ),
                4 => block(&format!("{len} - s0"), format!("{row}*s0")),
                5 => tensor(
                    vec![len.clone(), d.to_string()],
                    vec![row.to_string(), "1".into()],
                    format!("{}", d * self.r.range(0, h - 1)),
                    itemsize,
                ),
                _ => block("1", format!("{row}*(s0 + 1)")),
            })
            .collect()
    }

    /// Pieces of `cat([a, b, c])` with lengths `s0`, `s1` (or a constant), 3.
    fn narrow(&mut self) -> Vec<Value> {
        let b = if self.syms.len() > 1 {
            "s1".to_string()
        } else {
            self.r.range(1, 4).to_string()
        };
        let itemsize = self.itemsize();
        let width = self.r.range(1, 3);
        let piece = |len: String, at: String| {
            if width == 1 {
                tensor(vec![len], vec!["1".into()], at, itemsize)
            } else {
                tensor(
                    vec![len, width.to_string()],
                    vec![width.to_string(), "1".into()],
                    format!("{width}*({at})"),
                    itemsize,
                )
            }
        };
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| match self.r.range(0, 5) {
                0 => piece("s0".into(), "0".into()),
                1 => piece(b.clone(), "s0".into()),
                2 => piece("3".into(), format!("s0 + {b}")),
                // One too long, one too early.
                3 => piece("s0 + 1".into(), "0".into()),
                4 => piece(b.clone(), "s0 - 1".into()),
                _ => piece(format!("{b} + 3"), "s0".into()),
            })
            .collect()
    }
}

/// Case number `index`: its family, its symbols, and the FORMATS §3 case
/// (id `lay-<index>`); every field is valid at the hints.
pub fn case(index: u64) -> (&'static str, Vec<GenSym>, Value) {
    for attempt in 0u64.. {
        let mut g = Gen {
            r: Rng(index.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ (attempt << 40) ^ 0x50),
            syms: Vec::new(),
        };
        let family = FAMILIES[(index % FAMILIES.len() as u64) as usize];
        let nsyms = g.r.range(1, 2);
        for _ in 0..nsyms {
            let min = [1, 1, 2, 3, 4][g.r.range(0, 4) as usize];
            let hint = min + g.r.range(0, 9);
            let max = (g.r.range(0, 1) == 0).then(|| hint + g.r.range(0, 8));
            g.syms.push(GenSym { min, max, hint });
        }
        let tensors = match family {
            "unfold" => g.unfold(),
            "padded" => g.padded(),
            "cache" => g.cache(),
            _ => g.narrow(),
        };
        if let Some(c) = symgen::assemble(&format!("lay-{index}"), &g.syms, tensors) {
            return (family, g.syms, c);
        }
    }
    unreachable!("some attempt gives valid views")
}
