//! A generator of symbolic overlap cases (FORMATS §3) that no stage of the
//! prover was tuned for: 2–3 views over one or two symbols whose sizes,
//! strides and offsets come from the expression families of dynamic-shape
//! code — `c*s + k`, `s*t`, `((s + 1)//2)`, `s + k` and constants (`mixed`),
//! chunks of `((s + c - 1)//c)` elements (`floordiv`), bytes reinterpreted
//! with another itemsize (`dtypeview`), and sliding windows `((s - w)//k + 1)`
//! (`window`). Half of the symbols are bounded above, half are not.
//!
//! Deterministic: case `i` depends only on `i`. The cases of
//! `tests/data/symgen/cases.jsonl` are `case(0..600)`; a plain z3 encoding's
//! verdicts on them (`tests/oracle/plain_z3.py`) are in `reference.jsonl`.

#![allow(dead_code)]

use super::Rng;
use serde_json::{json, Value};

/// The families, in the order `case` draws them.
pub const FAMILIES: [&str; 4] = ["mixed", "floordiv", "dtypeview", "window"];

/// A symbol of a generated case.
#[derive(Clone, Debug)]
pub struct GenSym {
    /// Lower bound.
    pub min: i64,
    /// Upper bound, `None` when unbounded above.
    pub max: Option<i64>,
    /// The example value.
    pub hint: i64,
}

struct Gen {
    r: Rng,
    syms: Vec<GenSym>,
}

impl Gen {
    fn sym(&mut self) -> String {
        format!("s{}", self.r.range(0, self.syms.len() as i64 - 1))
    }

    /// A field of the `mixed` family.
    fn field(&mut self, constants: (i64, i64)) -> String {
        match self.r.range(0, 5) {
            0 | 1 => self.r.range(constants.0, constants.1).to_string(),
            2 => {
                let (c, k, s) = (self.r.range(1, 3), self.r.range(0, 4), self.sym());
                let lead = if c == 1 { s } else { format!("{c}*{s}") };
                if k == 0 {
                    lead
                } else {
                    format!("{lead} + {k}")
                }
            }
            3 => {
                let (s, t) = (self.sym(), self.sym());
                format!("{s}*{t}")
            }
            4 => format!("(({} + 1)//2)", self.sym()),
            _ => {
                let (s, k) = (self.sym(), self.r.range(1, 4));
                format!("{s} + {k}")
            }
        }
    }

    fn mixed(&mut self) -> Vec<Value> {
        let count = self.r.range(2, 3);
        let itemsize = [1, 2, 4][self.r.range(0, 2) as usize];
        (0..count)
            .map(|_| {
                let rank = self.r.range(1, 2) as usize;
                let sizes: Vec<String> = (0..rank).map(|_| self.field((0, 6))).collect();
                let mut strides: Vec<String> = (0..rank).map(|_| self.field((0, 6))).collect();
                if self.r.range(0, 2) > 0 {
                    strides[rank - 1] = "1".into();
                }
                let offset = self.field((0, 12));
                tensor(sizes, strides, offset, itemsize)
            })
            .collect()
    }

    /// Chunks of a (rows ×) `s0` buffer: `torch.chunk(c)` pieces, some moved
    /// or widened by one so that neighbours may meet.
    fn floordiv(&mut self) -> Vec<Value> {
        let c = self.r.range(2, 4);
        let h = format!("((s0 + {})//{c})", c - 1);
        let rows = self.r.range(0, 2) == 0;
        let count = self.r.range(2, 3);
        (0..count)
            .map(|_| {
                let j = self.r.range(0, c - 1);
                let wide = self.r.range(0, 3) == 0;
                let shift = self.r.range(0, 3) == 0;
                let mut size = if j == c - 1 && !wide {
                    let before = if c == 2 {
                        h.clone()
                    } else {
                        format!("{}*{h}", c - 1)
                    };
                    format!("s0 - {before}")
                } else {
                    h.clone()
                };
                if wide {
                    size = format!("{h} + 1");
                }
                let mut offset = match j {
                    0 => "0".to_string(),
                    1 => h.clone(),
                    _ => format!("{j}*{h}"),
                };
                if shift {
                    offset = format!("{offset} + 1");
                }
                if rows {
                    let r = self.syms.len() as i64 - 1;
                    tensor(
                        vec![format!("s{r} + 1"), size],
                        vec!["s0".into(), "1".into()],
                        offset,
                        2,
                    )
                } else {
                    tensor(vec![size], vec!["1".into()], offset, 4)
                }
            })
            .collect()
    }

    /// A row-major `rows × m` buffer of one itemsize and column slices of
    /// the same bytes read with another itemsize.
    fn dtypeview(&mut self) -> Vec<Value> {
        let (wide, narrow) = [(4, 2), (4, 1), (2, 1), (8, 4)][self.r.range(0, 3) as usize];
        let ratio = wide / narrow;
        let m = self.r.range(1, 4);
        let rows = if self.syms.len() > 1 && self.r.range(0, 1) == 0 {
            "s1".to_string()
        } else {
            "s0".to_string()
        };
        let mut out = vec![tensor(
            vec![rows.clone(), m.to_string()],
            vec![m.to_string(), "1".into()],
            "0".into(),
            wide,
        )];
        for _ in 0..self.r.range(1, 2) {
            let width = m * ratio;
            let first = self.r.range(0, width - 1);
            let cols = self.r.range(1, width - first);
            let row0 = self.r.range(0, 2);
            let rows_left = if row0 == 0 {
                rows.clone()
            } else {
                format!("{rows} - {row0}")
            };
            let mut offset = row0 * width + first;
            if self.r.range(0, 4) == 0 {
                offset += width; // one row further down
            }
            let offset = if self.r.range(0, 3) == 0 {
                format!("{width}*s0 + {offset}")
            } else {
                offset.to_string()
            };
            out.push(tensor(
                vec![rows_left, cols.to_string()],
                vec![width.to_string(), "1".into()],
                offset,
                narrow,
            ));
        }
        out
    }

    /// Sliding windows (`unfold(0, w, k)`) of an `s0` buffer next to a slice
    /// or a second window set.
    fn window(&mut self) -> Vec<Value> {
        let (w, k) = (self.r.range(1, 4), self.r.range(1, 3));
        let count = format!("((s0 - {w})//{k} + 1)");
        let mut out = vec![tensor(
            vec![count, w.to_string()],
            vec![k.to_string(), "1".into()],
            "0".into(),
            4,
        )];
        let off = match self.r.range(0, 2) {
            0 => "s0".to_string(),
            1 => format!("s0 - {}", self.r.range(0, 3)),
            _ => self.r.range(0, 6).to_string(),
        };
        if self.r.range(0, 1) == 0 {
            let len = ["1", "s0", "((s0 + 1)//2)"][self.r.range(0, 2) as usize];
            out.push(tensor(vec![len.into()], vec!["1".into()], off, 4));
        } else {
            let (w2, k2) = (self.r.range(1, 3), self.r.range(1, 3));
            out.push(tensor(
                vec![format!("((s0 - {w2})//{k2} + 1)"), w2.to_string()],
                vec![k2.to_string(), "1".into()],
                off,
                4,
            ));
        }
        out
    }
}

fn tensor(sizes: Vec<String>, strides: Vec<String>, offset: String, itemsize: i64) -> Value {
    json!({"sizes": sizes, "strides": strides, "storage_offset": offset, "itemsize": itemsize})
}

/// Case number `index`: its family, its symbols, and the FORMATS §3 case
/// (id `gen-<index>`). Fields may be negative at some allowed shapes; such
/// shapes give no valid views and are outside the domain (FORMATS §3), but
/// every field is valid at the hints.
pub fn case(index: u64) -> (&'static str, Vec<GenSym>, Value) {
    for attempt in 0u64.. {
        let mut g = Gen {
            r: Rng(index.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ attempt),
            syms: Vec::new(),
        };
        let family = FAMILIES[(index % FAMILIES.len() as u64) as usize];
        let nsyms = g.r.range(1, 2);
        for _ in 0..nsyms {
            let min = g.r.range(0, 2) + i64::from(family != "mixed");
            let hint = min + g.r.range(0, 10);
            let max = (g.r.range(0, 1) == 0).then(|| hint + g.r.range(0, 6));
            g.syms.push(GenSym { min, max, hint });
        }
        let tensors = match family {
            "mixed" => g.mixed(),
            "floordiv" => g.floordiv(),
            "dtypeview" => g.dtypeview(),
            _ => g.window(),
        };
        if let Some(c) = assemble(&format!("gen-{index}"), &g.syms, tensors) {
            return (family, g.syms, c);
        }
    }
    unreachable!("some attempt gives valid views")
}

/// The FORMATS §3 case of generated symbols and tensors (sources `L['n<i>']`
/// and `L['t<i>']`), `None` when some field is invalid at the hints.
pub fn assemble(id: &str, syms: &[GenSym], tensors: Vec<Value>) -> Option<Value> {
    let mut symbols = serde_json::Map::new();
    for (i, s) in syms.iter().enumerate() {
        symbols.insert(
            format!("s{i}"),
            json!({"hint": s.hint, "min": s.min, "max": s.max, "source": format!("L['n{i}']")}),
        );
    }
    let tensors: Vec<Value> = tensors
        .into_iter()
        .enumerate()
        .map(|(i, mut t)| {
            t["source"] = json!(format!("L['t{i}']"));
            t
        })
        .collect();
    let c = json!({"id": id, "symbols": symbols, "assumptions": [], "tensors": tensors});
    let hints: Vec<i64> = syms.iter().map(|s| s.hint).collect();
    super::views::case_views_at(&c, &hints).map(|_| c)
}
