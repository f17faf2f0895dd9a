//! The extraction cost: the node count of the expression the pool will build
//! from the extracted term (SymPy's `preorder_traversal` size).
//!
//! The e-graph is binary; the pool flattens nested `+`, `*`, `Max`, `Min`,
//! `And`, `Or` and distributes a numeric factor over a sum. The cost follows
//! that: a child with the same flat operator as its parent does not count its
//! own node, and `c*(t1 + … + tn)` costs what the distributed sum may cost at
//! most. Ties are broken by the root's kind, so extraction is deterministic.
//! The cost is strictly larger than each child's, as egg requires.

use super::lang::Sym;
use egg::{CostFunction, Id, Language};

/// Which flattening operator is at the root of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Flat {
    /// Constant leaf (first: a class with a constant always extracts it, which
    /// keeps `pow` exponents literal).
    Num,
    /// Not a flattening operator.
    None,
    /// `+`.
    Add,
    /// `*`.
    Mul,
    /// `Max`.
    Max,
    /// `Min`.
    Min,
    /// `And`.
    And,
    /// `Or`.
    Or,
}

/// Cost of a term: tree size of its flattened form, then the root kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Cost {
    /// Node count of the flattened tree.
    pub size: u32,
    /// The root's flattening operator.
    pub flat: Flat,
    /// Number of operands of the flattened root (1 when not flat).
    pub arity: u32,
}

/// The cost function used for extraction.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TreeSize;

impl CostFunction<Sym> for TreeSize {
    type Cost = Cost;

    fn cost<C>(&mut self, enode: &Sym, mut costs: C) -> Cost
    where
        C: FnMut(Id) -> Cost,
    {
        let leaf = |flat| Cost {
            size: 1,
            flat,
            arity: 1,
        };
        let flat_pair = |kind: Flat, a: Cost, b: Cost| {
            let part = |c: Cost| {
                if c.flat == kind {
                    (c.size - 1, c.arity)
                } else {
                    (c.size, 1)
                }
            };
            let ((sa, na), (sb, nb)) = (part(a), part(b));
            Cost {
                size: 1u32.saturating_add(sa).saturating_add(sb),
                flat: kind,
                arity: na + nb,
            }
        };
        match enode {
            Sym::Num(_) => leaf(Flat::Num),
            Sym::Bool(_) | Sym::Var(_) | Sym::Opaque(_) => leaf(Flat::None),
            Sym::Add([a, b]) => flat_pair(Flat::Add, costs(*a), costs(*b)),
            Sym::Mul([a, b]) => {
                let (x, y) = (costs(*a), costs(*b));
                let (num, other) = match (x.flat, y.flat) {
                    (Flat::Num, _) => (true, y),
                    (_, Flat::Num) => (true, x),
                    _ => (false, x),
                };
                if num && other.flat == Flat::Add {
                    // A numeric factor is distributed over the sum: each term
                    // may gain a coefficient (two nodes).
                    Cost {
                        size: other
                            .size
                            .saturating_add(other.arity.saturating_mul(2))
                            .max(other.size + 1),
                        flat: Flat::Add,
                        arity: other.arity,
                    }
                } else {
                    flat_pair(Flat::Mul, x, y)
                }
            }
            Sym::Max([a, b]) => flat_pair(Flat::Max, costs(*a), costs(*b)),
            Sym::Min([a, b]) => flat_pair(Flat::Min, costs(*a), costs(*b)),
            Sym::And([a, b]) => flat_pair(Flat::And, costs(*a), costs(*b)),
            Sym::Or([a, b]) => flat_pair(Flat::Or, costs(*a), costs(*b)),
            other => {
                let size = other
                    .children()
                    .iter()
                    .fold(1u32, |acc, &c| acc.saturating_add(costs(c).size));
                Cost {
                    size,
                    flat: Flat::None,
                    arity: 1,
                }
            }
        }
    }
}
