//! The hash-consed expression pool and its canonicalising constructors.

use super::arith::Wide;
use super::node::{BinOp, ExprId, Node, SymbolId, TernOp, Ty, UnOp};
use super::order;
use hashbrown::HashMap;

/// An arena of interned expressions.
///
/// Every constructor returns the canonical handle of its result: constants are
/// folded (only when the folded value is exactly what evaluation gives, and
/// fits `i64`), integer sums and products are flattened, like terms and equal
/// factors are combined, operands of commutative nodes are sorted by
/// a total order on nodes (`order::cmp`). Nothing heavier happens here: simplification is the job of
/// the `simplify` module.
///
/// ```
/// use symalias::expr::ExprPool;
/// let mut pool = ExprPool::new();
/// let s0 = pool.symbol("s0");
/// let two = pool.int(2);
/// let a = pool.add(&[s0, two, s0]);   // s0 + 2 + s0
/// let b = pool.mul(&[two, s0]);
/// let b = pool.add(&[b, two]);        // 2*s0 + 2
/// assert_eq!(a, b);
/// assert_eq!(pool.display(a).to_string(), "2*s0 + 2");
/// ```
#[derive(Default, Clone, Debug)]
pub struct ExprPool {
    nodes: Vec<Node>,
    tys: Vec<Ty>,
    intern: HashMap<Node, ExprId>,
    sym_names: Vec<Box<str>>,
    sym_lookup: HashMap<Box<str>, SymbolId>,
}

impl ExprPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of interned nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// `true` when nothing has been interned yet.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node behind a handle.
    pub fn node(&self, id: ExprId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The static type of an expression.
    pub fn ty(&self, id: ExprId) -> Ty {
        self.tys[id.index()]
    }

    /// The name of a symbol.
    pub fn symbol_name(&self, s: SymbolId) -> &str {
        &self.sym_names[s.index()]
    }

    /// The symbol with this name, if the pool has seen it.
    pub fn lookup_symbol(&self, name: &str) -> Option<SymbolId> {
        self.sym_lookup.get(name).copied()
    }

    /// Interns a symbol name (without building an expression).
    pub(crate) fn intern_symbol(&mut self, name: &str) -> SymbolId {
        if let Some(&s) = self.sym_lookup.get(name) {
            return s;
        }
        let s = SymbolId(self.sym_names.len() as u32);
        self.sym_names.push(name.into());
        self.sym_lookup.insert(name.into(), s);
        s
    }

    /// How many symbols are interned.
    pub fn symbol_count(&self) -> usize {
        self.sym_names.len()
    }

    /// All symbols interned so far, in creation order.
    pub fn symbols(&self) -> impl Iterator<Item = SymbolId> + '_ {
        (0..self.sym_names.len() as u32).map(SymbolId)
    }

    fn intern(&mut self, node: Node) -> ExprId {
        if let Some(&id) = self.intern.get(&node) {
            return id;
        }
        let ty = self.type_of(&node);
        let id = ExprId(self.nodes.len() as u32);
        self.nodes.push(node.clone());
        self.tys.push(ty);
        self.intern.insert(node, id);
        id
    }

    fn type_of(&self, node: &Node) -> Ty {
        let any_float = |xs: &[ExprId]| xs.iter().any(|&x| self.ty(x) == Ty::Float);
        match node {
            Node::Int(_) | Node::Sym(_) => Ty::Int,
            Node::Float(_) => Ty::Float,
            Node::Bool(_) | Node::And(_) | Node::Or(_) => Ty::Bool,
            Node::Add(xs) | Node::Mul(xs) | Node::Max(xs) | Node::Min(xs) => {
                if any_float(xs) {
                    Ty::Float
                } else {
                    Ty::Int
                }
            }
            Node::Pow(b, _) => self.ty(*b),
            Node::Unary(op, a) => match op {
                UnOp::Abs => self.ty(*a),
                UnOp::Not => Ty::Bool,
                UnOp::ToFloat => Ty::Float,
                UnOp::TruncToInt => Ty::Int,
            },
            Node::Binary(op, _) => match op {
                BinOp::FloorDiv
                | BinOp::CeilDiv
                | BinOp::CleanDiv
                | BinOp::Mod
                | BinOp::PythonMod => Ty::Int,
                BinOp::FloatTrueDiv | BinOp::IntTrueDiv | BinOp::FloatPow => Ty::Float,
                _ => Ty::Bool,
            },
            Node::Ternary(TernOp::ModularIndexing, _) => Ty::Int,
            Node::Ternary(TernOp::Where, [_, a, b]) => match (self.ty(*a), self.ty(*b)) {
                (Ty::Float, _) | (_, Ty::Float) => Ty::Float,
                (Ty::Bool, Ty::Bool) => Ty::Bool,
                _ => Ty::Int,
            },
        }
    }

    // ---- constants -------------------------------------------------------

    /// An integer constant.
    pub fn int(&mut self, v: i64) -> ExprId {
        self.intern(Node::Int(v))
    }

    /// A float constant.
    pub fn float(&mut self, v: f64) -> ExprId {
        self.intern(Node::Float(v.to_bits()))
    }

    /// `True` or `False`.
    pub fn bool(&mut self, b: bool) -> ExprId {
        self.intern(Node::Bool(b))
    }

    /// The symbol expression for `name` (interning the name).
    pub fn symbol(&mut self, name: &str) -> ExprId {
        let s = self.intern_symbol(name);
        self.intern(Node::Sym(s))
    }

    /// The expression of an already interned symbol.
    pub fn sym(&mut self, s: SymbolId) -> ExprId {
        self.intern(Node::Sym(s))
    }

    /// The integer value of a constant node.
    pub(crate) fn as_int(&self, id: ExprId) -> Option<i64> {
        match self.node(id) {
            Node::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The value of a constant node, if it is one.
    pub(crate) fn as_const(&self, id: ExprId) -> Option<Wide> {
        match *self.node(id) {
            Node::Int(v) => Some(Wide::Int(v as i128)),
            Node::Float(b) => Some(Wide::Float(f64::from_bits(b))),
            Node::Bool(b) => Some(Wide::Bool(b)),
            _ => None,
        }
    }

    /// The constant for a value, if it is representable (integers must fit `i64`).
    fn constant(&mut self, w: Wide) -> Option<ExprId> {
        match w {
            Wide::Int(v) => i64::try_from(v).ok().map(|v| self.int(v)),
            // No text reads back an infinite or NaN constant (the lexer
            // rejects them): such a fold is kept as the operation.
            Wide::Float(f) if !f.is_finite() => None,
            Wide::Float(f) => Some(self.float(f)),
            Wide::Bool(b) => Some(self.bool(b)),
        }
    }

    /// Interns `node`, folding it when all children are constants and the
    /// operator succeeds on them (an error such as division by zero is kept as
    /// a node, so that evaluation reports it).
    fn fold_or_intern(&mut self, node: Node) -> ExprId {
        let vals: Option<Vec<Wide>> = node.children().iter().map(|&c| self.as_const(c)).collect();
        if let Some(v) = vals {
            let r = super::eval::apply(&node, &v);
            if let Some(c) = r.ok().and_then(|w| self.constant(w)) {
                return c;
            }
        }
        self.intern(node)
    }

    // ---- ring ------------------------------------------------------------

    /// `-a`.
    pub fn neg(&mut self, a: ExprId) -> ExprId {
        let m1 = self.int(-1);
        self.mul(&[m1, a])
    }

    /// `a - b`.
    pub fn sub(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let nb = self.neg(b);
        self.add(&[a, nb])
    }

    /// Splits a term into its integer coefficient and the rest (`3*x*y` → `(3, x*y)`).
    fn split_coef(&mut self, t: ExprId) -> (i128, ExprId) {
        if let Node::Mul(xs) = self.node(t) {
            if let Node::Int(c) = *self.node(xs[0]) {
                let rest: Vec<ExprId> = xs[1..].to_vec();
                let r = if rest.len() == 1 {
                    rest[0]
                } else {
                    self.intern(Node::Mul(rest.into()))
                };
                return (c as i128, r);
            }
        }
        (1, t)
    }

    /// `coef * rest`, where `rest` is a canonical non-constant term.
    fn scale(&mut self, coef: i64, rest: ExprId) -> ExprId {
        if coef == 1 {
            return rest;
        }
        // A rest that is or still holds a constant (a product that left i64)
        // is scaled through `mul`, which puts such products in their one
        // canonical form.
        let is_int = |p: &Self, x: ExprId| matches!(p.node(x), Node::Int(_));
        let holds_constant = match self.node(rest) {
            Node::Int(_) => true,
            Node::Mul(fs) => fs.iter().any(|&f| is_int(self, f)),
            _ => false,
        };
        let c = self.int(coef);
        if holds_constant {
            return self.mul(&[c, rest]);
        }
        let mut xs = vec![c];
        match self.node(rest) {
            Node::Mul(fs) => xs.extend(fs.iter()),
            _ => xs.push(rest),
        }
        self.intern(Node::Mul(xs.into()))
    }

    fn sort(&self, xs: &mut [ExprId]) {
        xs.sort_by(|&a, &b| order::cmp(self, a, b));
    }

    /// The sum of `ops`.
    pub fn add(&mut self, ops: &[ExprId]) -> ExprId {
        match ops {
            [] => return self.int(0),
            [a] => return *a,
            _ => {}
        }
        if ops.iter().any(|&o| self.ty(o) != Ty::Int) {
            // Float addition is not associative: keep the source's binary shape.
            return ops[1..].iter().fold(ops[0], |acc, &o| {
                self.fold_or_intern(Node::Add(vec![acc, o].into()))
            });
        }
        let mut flat = Vec::with_capacity(ops.len());
        for &o in ops {
            match self.node(o) {
                Node::Add(xs) => flat.extend(xs.iter().copied()),
                _ => flat.push(o),
            }
        }
        let mut constant: i128 = 0;
        let mut terms: Vec<(ExprId, i128)> = Vec::new();
        let mut slot: HashMap<ExprId, usize> = HashMap::new();
        let mut ok = true;
        for &o in &flat {
            if let Node::Int(c) = *self.node(o) {
                constant += c as i128;
                continue;
            }
            let (c, rest) = self.split_coef(o);
            match slot.get(&rest) {
                Some(&i) => terms[i].1 += c,
                None => {
                    slot.insert(rest, terms.len());
                    terms.push((rest, c));
                }
            }
        }
        ok &= i64::try_from(constant).is_ok();
        ok &= terms.iter().all(|t| i64::try_from(t.1).is_ok());
        if !ok {
            // Combining would leave i64: keep the operands apart, only sorted
            // (constants last, as always in a sum).
            // Ordered as a combinable sum orders its terms (by the rest after
            // the coefficient, then the coefficient), so that a sum's order
            // does not depend on whether its coefficients could be combined.
            let mut keyed: Vec<(bool, ExprId, i128, ExprId)> = flat
                .iter()
                .map(|&t| {
                    let is_const = self.node(t).is_const();
                    let (c, rest) = if is_const { (0, t) } else { self.split_coef(t) };
                    (is_const, rest, c, t)
                })
                .collect();
            keyed.sort_by(|a, b| {
                a.0.cmp(&b.0)
                    .then_with(|| order::cmp_terms(self, a.1, b.1))
                    .then(a.2.cmp(&b.2))
            });
            let sorted: Vec<ExprId> = keyed.into_iter().map(|k| k.3).collect();
            return self.intern(Node::Add(sorted.into()));
        }
        terms.retain(|t| t.1 != 0);
        // Built first, then ordered by the (rest, coefficient) of the built
        // term: a product of constants beyond i64 is rebuilt canonically by
        // `scale`, and its order must be the one a re-parse gives it.
        let mut keyed: Vec<(ExprId, i128, ExprId)> = terms
            .iter()
            .map(|&(r, c)| {
                let t = self.scale(c as i64, r);
                let (k, rest) = self.split_coef(t);
                (rest, k, t)
            })
            .collect();
        keyed.sort_by(|a, b| order::cmp_terms(self, a.0, b.0).then(a.1.cmp(&b.1)));
        // A rebuilt product of constants can split differently from the term
        // it came from (`-2*(a*b)` is rebuilt as `-1*2*a*b`, whose rest is
        // `2*a*b`) and meet another term's rest: combine again, as a re-parse
        // would. Each round has fewer terms, so this ends.
        if keyed.windows(2).any(|w| w[0].0 == w[1].0) {
            let mut again: Vec<ExprId> = keyed.iter().map(|k| k.2).collect();
            if constant != 0 {
                again.push(self.int(constant as i64));
            }
            return self.add(&again);
        }
        let mut out: Vec<ExprId> = keyed.into_iter().map(|k| k.2).collect();
        if constant != 0 || out.is_empty() {
            out.push(self.int(constant as i64));
        }
        if out.len() == 1 {
            return out[0];
        }
        self.intern(Node::Add(out.into()))
    }

    /// The product of `ops`.
    pub fn mul(&mut self, ops: &[ExprId]) -> ExprId {
        match ops {
            [] => return self.int(1),
            [a] => return *a,
            _ => {}
        }
        if ops.iter().any(|&o| self.ty(o) != Ty::Int) {
            return ops[1..].iter().fold(ops[0], |acc, &o| {
                // `-1 * (c*x)` is `(-c)*x` exactly in IEEE arithmetic
                // (negation is exact and rounding symmetric): one form, so
                // that `a - c*x` and the printed `- c*x` are the same term.
                if let (Some(Wide::Int(-1)), Node::Mul(fs)) = (self.as_const(acc), self.node(o)) {
                    if let [c, x] = **fs {
                        if let Node::Float(v) = *self.node(c) {
                            let neg = self.float(-f64::from_bits(v));
                            return self.fold_or_intern(Node::Mul(vec![neg, x].into()));
                        }
                    }
                }
                // `c * (-1*x)` is `(-c)*x` exactly for the same reason: a
                // float product's sign lives in its constant alone, so
                // `- c*(-x)` and `+ c*x` print, and read back, alike.
                if let (Some(Wide::Float(c)), Node::Mul(fs)) = (self.as_const(acc), self.node(o)) {
                    if fs.len() >= 2 && matches!(*self.node(fs[0]), Node::Int(-1)) {
                        let rest = fs[1..].to_vec();
                        let rest = self.mul(&rest);
                        let neg = self.float(-c);
                        return self.fold_or_intern(Node::Mul(vec![neg, rest].into()));
                    }
                }
                self.fold_or_intern(Node::Mul(vec![acc, o].into()))
            });
        }
        let mut flat = Vec::with_capacity(ops.len());
        for &o in ops {
            match self.node(o) {
                Node::Mul(xs) => flat.extend(xs.iter().copied()),
                _ => flat.push(o),
            }
        }
        let mut coef: Option<i128> = Some(1);
        let mut factors: Vec<(ExprId, u64)> = Vec::new();
        for &o in &flat {
            match *self.node(o) {
                Node::Int(0) => return self.int(0),
                Node::Int(c) => coef = coef.and_then(|k| k.checked_mul(c as i128)),
                Node::Pow(b, k) => push_factor(&mut factors, b, k as u64),
                _ => push_factor(&mut factors, o, 1),
            }
        }
        let coef = coef.and_then(|c| i64::try_from(c).ok());
        let exps_ok = factors.iter().all(|f| f.1 <= u32::MAX as u64);
        let Some(coef) = coef.filter(|_| exps_ok) else {
            // The constants' product leaves i64: keep them apart, in one
            // canonical form whatever the grouping of the text (`-7258*2`
            // and `-(2*7258)` alike): the sign as a leading -1, magnitudes
            // ascending, then the other factors sorted.
            let mut negative = false;
            let mut consts: Vec<i64> = Vec::new();
            let mut others: Vec<ExprId> = Vec::new();
            for &o in &flat {
                match *self.node(o) {
                    Node::Int(c) if c < 0 && c != i64::MIN => {
                        negative = !negative;
                        consts.push(-c);
                    }
                    Node::Int(c) => consts.push(c),
                    _ => others.push(o),
                }
            }
            consts.retain(|&c| c != 1);
            consts.sort_unstable();
            self.sort(&mut others);
            let mut xs: Vec<ExprId> = Vec::with_capacity(consts.len() + others.len() + 1);
            if negative {
                xs.push(self.int(-1));
            }
            for c in consts {
                xs.push(self.int(c));
            }
            xs.extend(others);
            return self.intern(Node::Mul(xs.into()));
        };
        factors.sort_by(|a, b| order::cmp(self, a.0, b.0).then(a.1.cmp(&b.1)));
        let fs: Vec<ExprId> = factors
            .iter()
            .map(|&(b, k)| self.pow(b, k as u32))
            .collect();
        match fs.as_slice() {
            [] => return self.int(coef),
            [f] if coef == 1 => return *f,
            [f] => {
                if let Some(d) = self.distribute(coef, *f) {
                    return d;
                }
            }
            _ => {}
        }
        let mut xs = Vec::with_capacity(fs.len() + 1);
        if coef != 1 {
            xs.push(self.int(coef));
        }
        xs.extend(fs);
        self.intern(Node::Mul(xs.into()))
    }

    /// `coef * (t1 + t2 + ...)` distributed, as SymPy does for a numeric
    /// coefficient, when every new coefficient fits `i64`.
    fn distribute(&mut self, coef: i64, sum: ExprId) -> Option<ExprId> {
        let Node::Add(ts) = self.node(sum) else {
            return None;
        };
        let ts = ts.to_vec();
        let mut scaled = Vec::with_capacity(ts.len());
        for t in ts {
            let (c, rest) = match *self.node(t) {
                Node::Int(v) => (v as i128, None),
                _ => {
                    let (c, r) = self.split_coef(t);
                    (c, Some(r))
                }
            };
            let k = i64::try_from(c * coef as i128).ok()?;
            scaled.push((k, rest));
        }
        let terms: Vec<ExprId> = scaled
            .into_iter()
            .map(|(k, r)| match r {
                None => self.int(k),
                Some(r) => self.scale(k, r),
            })
            .collect();
        Some(self.add(&terms))
    }

    /// `base**k`.
    pub fn pow(&mut self, base: ExprId, k: u32) -> ExprId {
        match k {
            0 if self.ty(base) == Ty::Int => return self.int(1),
            1 => return base,
            _ => {}
        }
        if self.ty(base) == Ty::Int {
            if let Node::Pow(b, j) = *self.node(base) {
                if let Some(e) = j.checked_mul(k) {
                    return self.pow(b, e);
                }
            }
        }
        self.fold_or_intern(Node::Pow(base, k))
    }

    // ---- lattice and logic ------------------------------------------------

    /// `Max(ops...)`.
    pub fn max(&mut self, ops: &[ExprId]) -> ExprId {
        self.extreme(ops, true)
    }

    /// `Min(ops...)`.
    pub fn min(&mut self, ops: &[ExprId]) -> ExprId {
        self.extreme(ops, false)
    }

    fn extreme(&mut self, ops: &[ExprId], is_max: bool) -> ExprId {
        let make = |xs: Vec<ExprId>| {
            if is_max {
                Node::Max(xs.into())
            } else {
                Node::Min(xs.into())
            }
        };
        if ops.len() == 1 {
            return ops[0];
        }
        if ops.is_empty() || ops.iter().any(|&o| self.ty(o) != Ty::Int) {
            return self.fold_or_intern(make(ops.to_vec()));
        }
        let mut flat: Vec<ExprId> = Vec::new();
        let mut best: Option<i64> = None;
        for &o in ops {
            let inner: Vec<ExprId> = match self.node(o) {
                Node::Max(xs) if is_max => xs.to_vec(),
                Node::Min(xs) if !is_max => xs.to_vec(),
                _ => vec![o],
            };
            for x in inner {
                match self.as_int(x) {
                    Some(v) => {
                        best = Some(match best {
                            None => v,
                            Some(b) if is_max => b.max(v),
                            Some(b) => b.min(v),
                        })
                    }
                    None => flat.push(x),
                }
            }
        }
        if let Some(b) = best {
            flat.push(self.int(b));
        }
        self.sort(&mut flat);
        flat.dedup();
        if flat.len() == 1 {
            return flat[0];
        }
        self.intern(make(flat))
    }

    /// `And(ops...)`.
    pub fn and(&mut self, ops: &[ExprId]) -> ExprId {
        self.connective(ops, true)
    }

    /// `Or(ops...)`.
    pub fn or(&mut self, ops: &[ExprId]) -> ExprId {
        self.connective(ops, false)
    }

    fn connective(&mut self, ops: &[ExprId], is_and: bool) -> ExprId {
        let mut flat = Vec::new();
        for &o in ops {
            let inner: Vec<ExprId> = match self.node(o) {
                Node::And(xs) if is_and => xs.to_vec(),
                Node::Or(xs) if !is_and => xs.to_vec(),
                _ => vec![o],
            };
            for x in inner {
                match self.node(x) {
                    // The neutral element disappears, the absorbing one decides.
                    Node::Bool(b) if *b == is_and => {}
                    Node::Bool(_) => return self.bool(!is_and),
                    _ => flat.push(x),
                }
            }
        }
        self.sort(&mut flat);
        flat.dedup();
        match flat.len() {
            0 => self.bool(is_and),
            1 => flat[0],
            _ => self.intern(if is_and {
                Node::And(flat.into())
            } else {
                Node::Or(flat.into())
            }),
        }
    }

    /// `Not(a)`.
    pub fn not(&mut self, a: ExprId) -> ExprId {
        if let Node::Unary(UnOp::Not, x) = *self.node(a) {
            return x;
        }
        self.unary(UnOp::Not, a)
    }

    // ---- other operators --------------------------------------------------

    /// A unary operator (constant-folded when possible).
    pub fn unary(&mut self, op: UnOp, a: ExprId) -> ExprId {
        self.fold_or_intern(Node::Unary(op, a))
    }

    /// A binary operator (constant-folded when possible).
    pub fn binary(&mut self, op: BinOp, a: ExprId, b: ExprId) -> ExprId {
        self.fold_or_intern(Node::Binary(op, [a, b]))
    }

    /// A ternary operator (constant-folded when possible; `Where` with a
    /// constant condition picks its branch).
    pub fn ternary(&mut self, op: TernOp, a: ExprId, b: ExprId, c: ExprId) -> ExprId {
        if op == TernOp::Where {
            if let Node::Bool(cond) = *self.node(a) {
                return if cond { b } else { c };
            }
        }
        self.fold_or_intern(Node::Ternary(op, [a, b, c]))
    }

    // ---- queries ------------------------------------------------------------

    /// The symbols an expression mentions, sorted by name, without repeats.
    pub fn symbols_of(&self, id: ExprId) -> Vec<SymbolId> {
        let mut seen = hashbrown::HashSet::new();
        let mut stack = vec![id];
        let mut out = Vec::new();
        while let Some(e) = stack.pop() {
            if !seen.insert(e) {
                continue;
            }
            match self.node(e) {
                Node::Sym(s) => out.push(*s),
                n => stack.extend(n.children().iter().copied()),
            }
        }
        out.sort_by(|a, b| self.symbol_name(*a).cmp(self.symbol_name(*b)));
        out
    }

    /// The number of nodes of the expression as a tree (shared subtrees count
    /// once per occurrence; a `Pow` exponent counts as a node), the measure
    /// SymPy's `preorder_traversal` gives.
    pub fn tree_size(&self, id: ExprId) -> usize {
        let mut memo: HashMap<ExprId, usize> = HashMap::new();
        self.tree_size_memo(id, &mut memo)
    }

    fn tree_size_memo(&self, id: ExprId, memo: &mut HashMap<ExprId, usize>) -> usize {
        if let Some(&n) = memo.get(&id) {
            return n;
        }
        let node = self.node(id);
        let own = match node {
            Node::Pow(..) => 2,
            _ => 1,
        };
        let n = own
            + node
                .children()
                .iter()
                .map(|&c| self.tree_size_memo(c, memo))
                .sum::<usize>();
        memo.insert(id, n);
        n
    }
}

fn push_factor(factors: &mut Vec<(ExprId, u64)>, base: ExprId, k: u64) {
    match factors.iter_mut().find(|f| f.0 == base) {
        Some(f) => f.1 += k,
        None => factors.push((base, k)),
    }
}
