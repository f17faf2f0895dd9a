//! Compiling a guard list: sources become indices into the set's source
//! table, expressions get the symbols they read and a shortcut for the
//! shapes most layout fields have.

use super::{CheckError, GuardProblem, SourceProblem};
use crate::expr::{ExprId, ExprPool, Node, SymbolId};
use crate::guards::model::GuardKind;
use hashbrown::HashMap;
use std::collections::BTreeMap;

/// Where a symbol's value is read from.
#[derive(Clone, Debug)]
pub(super) enum Read {
    Size(usize),
    Stride(usize),
    Offset,
    Value,
}

/// An expression with the symbols it reads.
#[derive(Clone, Debug)]
pub(super) struct Expr {
    pub(super) id: ExprId,
    /// (symbol, source index, what to read)
    pub(super) reads: Vec<(SymbolId, usize, Read)>,
    /// The shapes most layout fields have, evaluated without the evaluator.
    pub(super) shape: Simple,
}

/// Layout fields are mostly constants or `c*s + d` in one symbol.
#[derive(Clone, Copy, Debug)]
pub(super) enum Simple {
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
pub(super) enum Prepared {
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
        itemsizes: Vec<i64>,
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
    SelfOverlap {
        members: Vec<usize>,
        overlapping: usize,
    },
}

pub(super) struct Builder<'a> {
    pub(super) symbols: &'a BTreeMap<String, String>,
    pub(super) pool: ExprPool,
    pub(super) sources: Vec<String>,
    pub(super) index: HashMap<String, usize>,
}

impl Builder<'_> {
    pub(super) fn source(&mut self, s: &str) -> usize {
        if let Some(&k) = self.index.get(s) {
            return k;
        }
        self.sources.push(s.to_string());
        self.index.insert(s.to_string(), self.sources.len() - 1);
        self.sources.len() - 1
    }

    pub(super) fn sources(&mut self, xs: &[String]) -> Vec<usize> {
        xs.iter().map(|s| self.source(s)).collect()
    }

    pub(super) fn expr(&mut self, id: ExprId) -> Result<Expr, CheckError> {
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

    pub(super) fn exprs(&mut self, xs: &[ExprId]) -> Result<Vec<Expr>, CheckError> {
        xs.iter().map(|&x| self.expr(x)).collect()
    }

    pub(super) fn prepare(&mut self, g: &GuardKind) -> Result<Prepared, CheckError> {
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
                        .ok_or_else(|| CheckError::BadGuard {
                            guard: "storage_overlap".into(),
                            problem: GuardProblem::ComponentNotAMember(src.clone()),
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
                    return Err(CheckError::BadGuard {
                        guard: "layout".into(),
                        problem: GuardProblem::LayoutCount,
                    });
                }
                if let Some(j) =
                    (0..layouts.len()).find(|&j| layouts[j].sizes.len() != layouts[j].strides.len())
                {
                    return Err(CheckError::BadGuard {
                        guard: format!("layout of {}", sources[j]),
                        problem: GuardProblem::LayoutRank,
                    });
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
                    itemsizes: layouts.iter().map(|l| l.itemsize).collect(),
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
            GuardKind::SelfOverlap {
                overlapping,
                non_overlapping,
            } => {
                let mut members = self.sources(overlapping);
                members.extend(self.sources(non_overlapping));
                Prepared::SelfOverlap {
                    members,
                    overlapping: overlapping.len(),
                }
            }
        })
    }
}

/// `L['x'].size()[0]` → (`L['x']`, size 0); a plain source reads `value`.
fn parse_source(src: &str) -> Result<(&str, Read), CheckError> {
    let bad = |problem: SourceProblem| CheckError::BadSource {
        at: src.to_string(),
        problem,
    };
    let index = |rest: &str| -> Result<usize, CheckError> {
        rest.strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|d| d.trim().parse().ok())
            .ok_or_else(|| bad(SourceProblem::NoIndex))
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
