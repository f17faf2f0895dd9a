//! Proof for all shapes: does the classification found at the hints hold for
//! every assignment of the symbols allowed by ranges and assumptions?
//!
//! What must be shown (proving the classification, not every pair):
//! * a view outside the overlapping set: every pair with it is disjoint;
//! * a view inside it: one partner whose overlap persists.
//!
//! Cheap reasoning first, z3 last:
//! 1. a *chain* of views ordered by their hint start, each link
//!    `start_next - end_prev >= 1` proved by interval bounds, proves every pair
//!    inside the chain disjoint at once (views in the chain must be non-empty for
//!    all shapes, so that `start <= end` carries the order along);
//! 2. per pair, disjoint extents by interval bounds of `start_b - end_a`;
//! 3. per pair, z3: some allowed assignment and in-range indices give one address
//!    (unsat → proved disjoint; a model → a counterexample, re-checked concretely);
//! 4. overlap persistence: the hint witness's indices, kept constant, stay in range
//!    and keep meeting (by the canonical difference of addresses and intervals, else z3).
//!
//! Refutation: a z3 model, or a concrete sample of allowed shapes, at which the
//! exact classification differs. Anything else is unknown — which is safe: it only
//! adds a guard.

mod cases;
mod chain;
mod guards;
mod internal;
mod quantified;
mod refute;
mod split;
mod witness;

pub(crate) use cases::prove_case;
pub use internal::{prove_internal, InternalProof};
use witness::HintWitness;

use super::domain::Domain;
use super::encode::Encoder;
use super::{analyze_views, GroupAnswer, Verdict};
use crate::env::Env;
use crate::expr::{BinOp, ExprId, ExprPool, SymbolId};
use crate::layout::{Layout, View};
use hashbrown::{HashMap, HashSet};
use std::time::{Duration, Instant};
use symalias_solver::{Answer, Cmp, Formula, Query, Session, Solver, Term};
use tracing::{debug, debug_span};

/// Limits of the proof work for one case.
#[derive(Clone, Copy, Debug)]
pub struct ProofOptions {
    /// At most this many z3 queries per case; the rest is unknown.
    pub max_queries: usize,
    /// Random allowed shapes tried by the refuter.
    pub samples: usize,
    /// Work bound of the concrete exact test used on samples and models.
    pub budget: u64,
    /// Wall-clock bound of the proof: once it is spent, no more queries are
    /// asked, a running query is interrupted (the solver's watchdog), and what
    /// is left is unknown (so guarded). Each query is first bounded by its
    /// deterministic `rlimit`; the wall clock is reached only where z3 ignores
    /// it (then the output may depend on the machine's speed).
    pub time_limit: Duration,
    /// An absolute deadline that also bounds the proof (the caller's case
    /// deadline, which covers loading and simplification too).
    pub deadline: Option<Instant>,
    /// z3 `rlimit` of a query.
    pub rlimit: u32,
    /// z3 resource units (`rlimit count`) the proof of one case may spend
    /// in all its queries together: with `max_queries`, the work bound that
    /// decides how far a proof goes, the same on every machine. Sized so a
    /// case finishes well inside a tenth of `time_limit` on a two-core
    /// machine of 2026 (about 1 µs a unit there).
    pub work: u64,
}

impl Default for ProofOptions {
    fn default() -> Self {
        ProofOptions {
            max_queries: 256,
            samples: 48,
            budget: super::DEFAULT_BUDGET,
            time_limit: Duration::from_secs(2),
            deadline: None,
            rlimit: 20_000,
            work: DEFAULT_WORK,
        }
    }
}

/// The default [`ProofOptions::work`].
pub const DEFAULT_WORK: u64 = 150_000;

impl ProofOptions {
    /// The deadline of a proof that starts at `started`.
    pub(crate) fn deadline_from(&self, started: Instant) -> Instant {
        let own = started + self.time_limit;
        self.deadline.map_or(own, |d| d.min(own))
    }
}

/// The proof status of one pair (FORMATS §3 `proof`: `proved`, `refuted`,
/// `unknown`, `hint_only`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Proof {
    /// The hint verdict holds for all allowed shapes.
    Proved,
    /// Some allowed shape changes it.
    Refuted,
    /// Tried, not settled.
    Unknown,
    /// Not needed (the classification was settled through other pairs).
    HintOnly,
}

/// The proof status of one examined pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PairStatus {
    /// The first view.
    pub a: usize,
    /// The second view (`a < b`).
    pub b: usize,
    /// They overlap at the hints.
    pub overlap: bool,
    /// What is known for all shapes.
    pub proof: Proof,
}

impl PairStatus {
    fn new(a: usize, b: usize, overlap: bool, proof: Proof) -> PairStatus {
        PairStatus {
            a,
            b,
            overlap,
            proof,
        }
    }
}

/// The outcome of proving a case's classification.
#[derive(Clone, Debug, Default)]
pub(crate) struct CaseProof {
    /// `Some(true)` proved, `Some(false)` refuted, `None` undecided.
    pub invariant: Option<bool>,
    /// An allowed assignment at which the classification differs (checked concretely).
    pub counterexample: Option<Vec<(String, i64)>>,
    /// Pairs whose status was examined.
    pub pairs: Vec<PairStatus>,
    /// Shape guards that, together with what was proved, imply the classification;
    /// `None` when some unproved requirement has no such guard.
    pub shape_guards: Option<Vec<ExprId>>,
    /// z3 queries asked (of `max_queries`): proof by cases shares one
    /// count among its regions (`cases.rs`).
    pub queries: usize,
}

/// Groups up to this many views are proved pair by pair where a chain of
/// extents does not carry (quadratic work); larger ones rely on the chain.
const PAIRWISE_CHAIN: usize = 24;

/// Unproved chain links tried with local boundary samples before z3.
const LOCAL_SAMPLED_LINKS: usize = 3;

/// Most pairs listed as `refuted` at a counterexample.
pub(crate) const REFUTED_LISTED: usize = 64;

/// A small deterministic generator (xorshift64) starting from `seed`.
/// A value of `[lo, hi]` (`lo <= hi`) from the random word `r`: uniform up
/// to the modulo bias, in 128-bit arithmetic so that no span overflows
/// (a symbol's range may be all of `i64`).
pub(super) fn pick(lo: i64, hi: i64, r: u64) -> i64 {
    let span = (hi as i128 - lo as i128 + 1) as u128;
    // `span` is at least 1 and at most 2^64: the sum stays in `[lo, hi]`.
    (lo as i128 + (r as u128 % span) as i128) as i64
}

/// A range bound (128-bit, as the environment keeps it) as an `i64`,
/// clamped (a range wider than `i64` samples its `i64` part).
pub(super) fn clamp64(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// `true` when `e` holds a product or power of a sum (something `expand`
/// would change); a quick walk, shared subterms visited once.
fn expandable(pool: &ExprPool, e: ExprId) -> bool {
    let mut seen = HashSet::new();
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if !seen.insert(x) {
            continue;
        }
        let node = pool.node(x);
        if matches!(node, crate::expr::Node::Mul(_) | crate::expr::Node::Pow(..))
            && node
                .children()
                .iter()
                .any(|&c| matches!(pool.node(c), crate::expr::Node::Add(_)))
        {
            return true;
        }
        todo.extend(node.children().iter().copied());
    }
    false
}

/// What a z3 question came back with.
enum Asked {
    /// No allowed assignment satisfies it.
    Unsat,
    /// An assignment of (some) symbols that satisfies it; the others keep
    /// their hints. Not yet checked against the exact classification.
    Model(Vec<(SymbolId, i64)>),
    /// Not settled (budget, time, already refuted, not encodable).
    Unknown,
}

/// A view's footprint bounds and dimensions in the case's unit (bytes in
/// `bytes_mode`, when the itemsizes differ; else elements): `start` is the
/// offset, `end` the offset plus `(size - 1)·stride` over the dimensions
/// (in bytes, plus `itemsize - 1` as a last dimension). For strides `>= 0`
/// (every allowed shape) a non-empty view's addresses lie in `[start, end]`.
fn extent(
    pool: &mut ExprPool,
    t: &Layout,
    bytes_mode: bool,
) -> (ExprId, ExprId, Vec<(ExprId, ExprId)>) {
    let scale = if bytes_mode { t.itemsize } else { 1 };
    let sc = pool.int(scale);
    let start = pool.mul(&[t.offset, sc]);
    let mut dims: Vec<(ExprId, ExprId)> = t
        .sizes
        .iter()
        .zip(&t.strides)
        .map(|(&n, &s)| (n, s))
        .collect();
    for d in dims.iter_mut() {
        d.1 = pool.mul(&[d.1, sc]);
    }
    if bytes_mode && t.itemsize > 1 {
        let (n, one) = (pool.int(t.itemsize), pool.int(1));
        dims.push((n, one));
    }
    let mut parts = vec![start];
    for &(n, s) in &dims {
        let m1 = pool.int(-1);
        let n1 = pool.add(&[n, m1]);
        parts.push(pool.mul(&[n1, s]));
    }
    let end = pool.add(&parts);
    (start, end, dims)
}

/// `gap >= 1` for every assignment inside the ranges, by intervals: as
/// built, then (when `may_expand` says so and expanding changes it) once
/// expanded, so that terms both ends share cancel.
fn positive(
    pool: &mut ExprPool,
    env: &Env,
    gap: ExprId,
    may_expand: impl FnOnce() -> bool,
) -> bool {
    if env.interval(pool, gap).lo.is_some_and(|l| l >= 1) {
        return true;
    }
    if !may_expand() || !expandable(pool, gap) {
        return false;
    }
    let expanded = crate::simplify::poly::expand(pool, gap);
    expanded != gap && env.interval(pool, expanded).lo.is_some_and(|l| l >= 1)
}

/// Whether a size of `t` is at most 0 at every assignment inside the
/// ranges: the view is empty and meets nothing.
fn empty_for_all_shapes(pool: &ExprPool, env: &Env, t: &Layout) -> bool {
    t.sizes
        .iter()
        .any(|&n| env.interval(pool, n).hi.is_some_and(|h| h <= 0))
}

/// Most views [`disjoint_by_extents`] takes (its pairs are all asked).
pub(crate) const EXTENT_VIEWS_MAX: usize = 16;

/// Whether every two of `layouts` are disjoint for every allowed shape by
/// the proof's first, cheapest step alone: the gap between their extents is
/// at least 1 by intervals, one way or the other, or one of them is empty
/// for all shapes (a size at most 0). No solver, no sampling, no hints;
/// `false` also for more than [`EXTENT_VIEWS_MAX`] views. The unit is the
/// proof's: bytes when the itemsizes differ, else elements.
pub(crate) fn disjoint_by_extents(pool: &mut ExprPool, env: &Env, layouts: &[Layout]) -> bool {
    if layouts.len() > EXTENT_VIEWS_MAX {
        return false;
    }
    let first = layouts.first().map(|t| t.itemsize);
    let bytes_mode = layouts.iter().any(|t| Some(t.itemsize) != first);
    let extents: Vec<(ExprId, ExprId)> = layouts
        .iter()
        .map(|t| {
            let (start, end, _) = extent(pool, t, bytes_mode);
            (start, end)
        })
        .collect();
    let empty: Vec<bool> = layouts
        .iter()
        .map(|t| empty_for_all_shapes(pool, env, t))
        .collect();
    for a in 0..layouts.len() {
        for b in a + 1..layouts.len() {
            if empty[a] || empty[b] {
                continue;
            }
            let apart = [(a, b), (b, a)].into_iter().any(|(x, y)| {
                let gap = pool.sub(extents[y].0, extents[x].1);
                positive(pool, env, gap, || true)
            });
            if !apart {
                return false;
            }
        }
    }
    true
}

/// A symbolic footprint in the case's unit.
struct SymFootprint {
    start: ExprId,
    end: ExprId,
    dims: Vec<(ExprId, ExprId)>,
    /// Non-empty for all shapes (every size >= 1 by intervals).
    solid: bool,
}

/// Pushes the environment's ranges and assumptions onto `domain`.
fn env_domain(pool: &ExprPool, env: &Env, enc: &mut Encoder, domain: &mut Domain) {
    for &s in env.symbols() {
        let v = Term::Var(enc.symbol(pool, s));
        let r = env.range(s);
        if let Some(lo) = r.lo.and_then(|l| i64::try_from(l).ok()) {
            domain.push(v.clone().cmp(Cmp::Ge, Term::Int(lo)));
        }
        if let Some(hi) = r.hi.and_then(|h| i64::try_from(h).ok()) {
            domain.push(v.cmp(Cmp::Le, Term::Int(hi)));
        }
    }
    for &a in env.assumptions() {
        // An assumption we cannot encode only widens the domain: proofs stay
        // sound, and models are re-checked against every assumption.
        if let Ok(f) = enc.formula(pool, a) {
            domain.push(f);
        }
    }
}

/// `true` when z3 shows the boolean expression `cond` true at every
/// assignment the environment allows (one query, under `opts`' rlimit and
/// deadline). Unknown, a model, or an expression z3 cannot take: `false`.
fn always_in(
    pool: &ExprPool,
    env: &Env,
    cond: ExprId,
    solver: &mut Solver,
    opts: &ProofOptions,
) -> bool {
    let (mut enc, mut domain) = (Encoder::default(), Domain::new());
    env_domain(pool, env, &mut enc, &mut domain);
    let Ok(f) = enc.formula(pool, cond) else {
        return false;
    };
    let question = vec![Formula::Not(Box::new(f))];
    let mut all = domain.relevant(&question);
    all.extend(question);
    let (q, _) = Query {
        vars: enc.vars().to_vec(),
        assertions: all,
    }
    .compact();
    let deadline = opts.deadline_from(Instant::now());
    if symalias_solver::clock::past(deadline) {
        return false; // not even a z3 context: it takes milliseconds to make
    }
    let rlimit = opts.rlimit;
    solver.session(|s| matches!(s.check_with(&q, rlimit, deadline), Answer::Unsat))
}

struct Prover<'a, 's> {
    pool: &'a mut ExprPool,
    env: &'a Env,
    tensors: &'a [Layout],
    views: &'a [View],
    fps: Vec<SymFootprint>,
    bytes_mode: bool,
    enc: Encoder,
    domain: Domain,
    session: &'a mut Session<'s>,
    opts: ProofOptions,
    queries: usize,
    started: Instant,
    counterexample: Option<Vec<(SymbolId, i64)>>,
    /// The classification at the hints (what every counterexample must change).
    hint_set: Vec<usize>,
}

/// A case to prove: its layouts, their views at the hints, and the answer
/// at the hints.
#[derive(Clone, Copy)]
struct Case<'a> {
    tensors: &'a [Layout],
    views: &'a [View],
    hint: &'a GroupAnswer,
}

/// The staged proof of the hint classification over `env`'s domain (the
/// whole case, or a region of it: `cases.rs`). A `seed` is an allowed
/// assignment where the classification differs, found before: the proof
/// starts from it as its counterexample.
fn prove_region(
    pool: &mut ExprPool,
    env: &Env,
    case: Case<'_>,
    solver: &mut Solver,
    opts: ProofOptions,
    seed: Option<Vec<(SymbolId, i64)>>,
) -> CaseProof {
    let Case {
        tensors,
        views,
        hint,
    } = case;
    let _span = debug_span!("prove_region", tensors = tensors.len()).entered();
    let first = views.first().map(|v| v.itemsize);
    let bytes_mode = views.iter().any(|v| Some(v.itemsize) != first);
    // One z3 context for the whole case: each query in a push/pop scope.
    solver.session(|session| {
        let mut p = Prover {
            pool,
            env,
            tensors,
            views,
            fps: Vec::new(),
            bytes_mode,
            enc: Encoder::default(),
            domain: Domain::new(),
            session,
            opts,
            queries: 0,
            started: Instant::now(),
            counterexample: None,
            hint_set: hint.overlapping.clone(),
        };
        p.build();
        if let Some(cx) = seed {
            p.try_counterexample(cx);
        }
        p.run(hint)
    })
}

/// What the proof phases of one case have found so far.
struct Tally {
    /// Pairs not proved (and, at the end, every overlapping pair).
    pairs: Vec<PairStatus>,
    /// Disjointness already decided, by pair.
    status: HashMap<(usize, usize), Proof>,
    /// Shape guards covering the requirements not proved.
    guards: Vec<ExprId>,
    /// Every requirement not proved has a shape guard.
    all_guarded: bool,
    /// Every requirement is proved.
    all_proved: bool,
}

impl Tally {
    /// A requirement not proved: its shape guard, if it has one.
    fn guard(&mut self, g: Option<ExprId>) {
        match g {
            Some(g) => self.guards.push(g),
            None => self.all_guarded = false,
        }
    }
}

impl Prover<'_, '_> {
    fn build(&mut self) {
        for t in self.tensors {
            let (start, end, dims) = extent(self.pool, t, self.bytes_mode);
            let solid = t
                .sizes
                .iter()
                .all(|&n| self.env.interval(self.pool, n).lo.is_some_and(|l| l >= 1));
            self.fps.push(SymFootprint {
                start,
                end,
                dims,
                solid,
            });
        }
        // The domain: ranges, assumptions, and non-negative layouts.
        env_domain(self.pool, self.env, &mut self.enc, &mut self.domain);
        let fields: Vec<ExprId> = self
            .tensors
            .iter()
            .flat_map(|t| {
                t.sizes
                    .iter()
                    .chain(&t.strides)
                    .chain([&t.offset])
                    .copied()
                    .collect::<Vec<_>>()
            })
            .collect();
        for e in fields {
            match self.enc.term(self.pool, e) {
                Ok(t) => self.domain.push(t.cmp(Cmp::Ge, Term::Int(0))),
                Err(_) => self.domain.complete = false,
            }
        }
    }

    /// The phases: the chain of views outside the overlapping set, the
    /// other pairs with a view outside it, one persistent partner per view
    /// inside it, then refutation and the report.
    fn run(mut self, hint: &GroupAnswer) -> CaseProof {
        let n = self.tensors.len();
        let overlapping: Vec<bool> = (0..n)
            .map(|i| hint.overlapping.binary_search(&i).is_ok())
            .collect();
        let mut tally = Tally {
            pairs: Vec::new(),
            status: HashMap::new(),
            guards: Vec::new(),
            all_guarded: true,
            all_proved: true,
        };
        let in_chain = self.prove_chain(&mut tally);
        self.prove_outside(&mut tally, &overlapping, &in_chain);
        let persistent = self.prove_inside(&mut tally, &overlapping, hint);
        for p in &hint.pairs {
            let st = persistent
                .get(&(p.a, p.b))
                .copied()
                .unwrap_or(Proof::HintOnly);
            tally.pairs.push(PairStatus::new(p.a, p.b, true, st));
        }
        tally.pairs.sort_by_key(|p| (p.a, p.b));
        let proved = tally.all_proved && self.domain.complete;
        if !proved && self.counterexample.is_none() {
            self.sample_refuter();
        }
        self.mark_refuted(&mut tally.pairs, hint);
        self.report(tally, proved)
    }

    /// Views outside the overlapping set whose extents meet no other view's
    /// at the hints form one chain ordered by start; its links (`end < next
    /// start`) carry disjointness along by transitivity, so n - 1 links
    /// stand for all n(n-1)/2 pairs, and the unproved links are the guards.
    /// Returns which views are in the chain.
    fn prove_chain(&mut self, tally: &mut Tally) -> Vec<bool> {
        let chain = self.chain();
        let mut in_chain = vec![false; self.tensors.len()];
        for &c in &chain {
            in_chain[c] = true;
        }
        let mut local_tries = LOCAL_SAMPLED_LINKS;
        let broken: Vec<(usize, usize, Proof)> = chain
            .windows(2)
            .filter_map(|w| {
                let st = self.prove_link(w[0], w[1], &mut local_tries);
                (st != Proof::Proved).then_some((w[0], w[1], st))
            })
            .collect();
        if !broken.is_empty() && !self.chain_pairwise(&chain, &broken, &mut tally.status) {
            tally.all_proved = false;
            for &(x, y, st) in &broken {
                tally
                    .pairs
                    .push(PairStatus::new(x.min(y), x.max(y), false, st));
                let g = self.link_guard(x, y);
                tally.guard(g);
            }
        }
        in_chain
    }

    /// Every other pair with a view outside the overlapping set must stay
    /// disjoint. Once some requirement is neither proved nor covered by a
    /// shape guard, the answer can only be the StorageOverlap guard: stop
    /// examining pairs and leave refutation to the concrete samples.
    fn prove_outside(&mut self, tally: &mut Tally, overlapping: &[bool], in_chain: &[bool]) {
        let n = self.tensors.len();
        let others: Vec<usize> = (0..n).filter(|&v| !in_chain[v]).collect();
        let everyone: Vec<usize> = (0..n).collect();
        for v in (0..n).filter(|&v| !overlapping[v]) {
            let partners = if in_chain[v] { &others } else { &everyone };
            for &u in partners {
                if !tally.all_guarded {
                    return;
                }
                if u == v {
                    continue;
                }
                let key = (v.min(u), v.max(u));
                let st = match tally.status.get(&key) {
                    Some(s) => *s,
                    None => {
                        let s = self.prove_disjoint(key.0, key.1);
                        tally.status.insert(key, s);
                        if s != Proof::Proved {
                            tally.pairs.push(PairStatus::new(key.0, key.1, false, s));
                        }
                        s
                    }
                };
                if st != Proof::Proved {
                    tally.all_proved = false;
                    let g = self.disjoint_guard(key.0, key.1);
                    tally.guard(g);
                }
            }
        }
    }

    /// Each view inside the overlapping set needs one partner whose overlap
    /// persists. Returns the overlapping pairs examined, with their status.
    fn prove_inside(
        &mut self,
        tally: &mut Tally,
        overlapping: &[bool],
        hint: &GroupAnswer,
    ) -> HashMap<(usize, usize), Proof> {
        let mut persistent: HashMap<(usize, usize), Proof> = HashMap::new();
        for v in (0..overlapping.len()).filter(|&v| overlapping[v]) {
            if !tally.all_guarded {
                break;
            }
            let partners: Vec<(usize, usize)> = hint
                .pairs
                .iter()
                .filter(|p| p.a == v || p.b == v)
                .map(|p| (p.a, p.b))
                .collect();
            let done = partners.iter().any(|&(a, b)| {
                *persistent
                    .entry((a, b))
                    .or_insert_with(|| self.prove_overlap(a, b, hint))
                    == Proof::Proved
            });
            if !done {
                debug!(view = v, partners = partners.len(), "no persistent partner");
                tally.all_proved = false;
                let g = partners
                    .first()
                    .and_then(|&(a, b)| self.overlap_guard(a, b, hint));
                tally.guard(g);
            }
        }
        persistent
    }

    /// At the counterexample, the pairs whose verdict flips are refuted (at
    /// most `REFUTED_LISTED` of them: at a counterexample where many views
    /// collide there can be quadratically many).
    fn mark_refuted(&mut self, pairs: &mut Vec<PairStatus>, hint: &GroupAnswer) {
        let Some(at) = self
            .counterexample
            .as_ref()
            .and_then(|cx| self.analyze_at(cx))
        else {
            return;
        };
        let at_hint: HashSet<(usize, usize)> = hint.pairs.iter().map(|p| (p.a, p.b)).collect();
        let at_cx: HashSet<(usize, usize)> = at.pairs.iter().map(|p| (p.a, p.b)).collect();
        let mut flipped: Vec<(usize, usize, bool)> = hint
            .pairs
            .iter()
            .map(|p| (p.a, p.b))
            .filter(|p| !at_cx.contains(p))
            .map(|(a, b)| (a, b, true))
            .chain(
                at.pairs
                    .iter()
                    .map(|p| (p.a, p.b))
                    .filter(|p| !at_hint.contains(p))
                    .map(|(a, b)| (a, b, false)),
            )
            .collect();
        flipped.sort_unstable();
        flipped.truncate(REFUTED_LISTED);
        let index: HashMap<(usize, usize), usize> = pairs
            .iter()
            .enumerate()
            .map(|(k, p)| ((p.a, p.b), k))
            .collect();
        for (a, b, overlap) in flipped {
            match index.get(&(a, b)) {
                Some(&k) => pairs[k].proof = Proof::Refuted,
                None => pairs.push(PairStatus::new(a, b, overlap, Proof::Refuted)),
            }
        }
        pairs.sort_by_key(|p| (p.a, p.b));
    }

    /// The case's proof: the invariant, the counterexample as a full
    /// assignment (the symbols a model or sample left out keep their
    /// hints), the pairs, and the shape guards when every requirement is
    /// proved or guarded.
    fn report(self, mut tally: Tally, proved: bool) -> CaseProof {
        let invariant = if proved {
            Some(true)
        } else if self.counterexample.is_some() {
            Some(false)
        } else {
            None
        };
        tally.guards.sort();
        tally.guards.dedup();
        debug!(
            ?invariant,
            queries = self.queries,
            spent = self.session.spent(),
            "proof done"
        );
        let counterexample = self.counterexample.map(|cx| {
            let set: HashMap<SymbolId, i64> = cx.iter().copied().collect();
            self.env
                .symbols()
                .iter()
                .filter_map(|&s| {
                    set.get(&s)
                        .copied()
                        .or_else(|| self.env.hint(s))
                        .map(|v| (s, v))
                })
                .map(|(s, v)| (self.pool.symbol_name(s).to_string(), v))
                .collect()
        });
        CaseProof {
            queries: self.queries,
            invariant,
            counterexample,
            pairs: tally.pairs,
            shape_guards: if proved {
                Some(Vec::new())
            } else {
                tally.all_guarded.then_some(tally.guards)
            },
        }
    }

    /// Asks whether two views can meet (`assertions` describe a shared
    /// address): unsat proves them disjoint; a model refutes only if the
    /// exact classification differs there.
    fn ask_disjoint(&mut self, enc: &Encoder, assertions: Vec<Formula>) -> Proof {
        match self.ask(enc, assertions) {
            Asked::Unsat => Proof::Proved,
            Asked::Model(cx) if self.try_counterexample(cx.clone()) => Proof::Refuted,
            Asked::Model(_) | Asked::Unknown => Proof::Unknown,
        }
    }

    /// Whether z3 may still be asked: the domain is encodable, the case is
    /// not refuted yet (once refuted, every requirement is still examined
    /// for the guards, but z3 is not asked any more), and the query count
    /// and time limits are not spent.
    fn can_ask(&self) -> bool {
        self.domain.complete
            && self.counterexample.is_none()
            && self.queries < self.opts.max_queries
            && self.time_left()
    }

    /// `false` once the case's deadline has passed: every stage beyond a
    /// first interval check then answers unknown at once (on huge
    /// expressions even expansion and sampling take long).
    fn time_left(&self) -> bool {
        !symalias_solver::clock::past(self.opts.deadline_from(self.started))
    }

    fn ask(&mut self, enc: &Encoder, assertions: Vec<Formula>) -> Asked {
        let rlimit = self.opts.rlimit;
        self.ask_within(enc, assertions, rlimit)
    }

    /// [`ask`](Self::ask) with its own `rlimit`.
    fn ask_within(&mut self, enc: &Encoder, assertions: Vec<Formula>, rlimit: u32) -> Asked {
        if !self.can_ask() {
            return Asked::Unknown;
        }
        let deadline = self.opts.deadline_from(self.started);
        self.queries += 1;
        // Only the facts connected to the question's variables, and only the
        // variables they mention: a query's size does not grow with the case.
        let mut all = self.domain.relevant(&assertions);
        all.extend(assertions);
        let (q, old) = Query {
            vars: enc.vars().to_vec(),
            assertions: all,
        }
        .compact();
        let t0 = Instant::now();
        let a = self.session.check_with(&q, rlimit, deadline);
        debug!(micros = t0.elapsed().as_micros() as u64, answer = ?a, "z3 query");
        match a {
            Answer::Unsat => Asked::Unsat,
            Answer::Unknown(_) => Asked::Unknown,
            Answer::Sat(values) => Asked::Model(
                old.iter()
                    .zip(values)
                    .filter_map(|(&v, x)| enc.symbol_of(v).map(|s| (s, x)))
                    .collect(),
            ),
        }
    }

    /// The address of view `t` at index terms `idx` (one per dim of its footprint).
    fn address(&self, enc: &mut Encoder, t: usize, idx: &[Term]) -> Option<Term> {
        let fp = &self.fps[t];
        let mut parts = vec![enc.term(self.pool, fp.start).ok()?];
        for ((_, s), i) in fp.dims.iter().zip(idx) {
            parts.push(i.clone() * enc.term(self.pool, *s).ok()?);
        }
        Some(Term::Add(parts))
    }

    fn prove_disjoint(&mut self, a: usize, b: usize) -> Proof {
        // Interval bounds of the gaps between the extents.
        for (x, y) in [(a, b), (b, a)] {
            if self.gap_positive(x, y) {
                return Proof::Proved;
            }
        }
        // A view that is empty for all shapes meets nothing.
        if [a, b]
            .iter()
            .any(|&t| empty_for_all_shapes(self.pool, self.env, &self.tensors[t]))
        {
            return Proof::Proved;
        }
        if !self.time_left() {
            return Proof::Unknown;
        }
        if self.separated_by_blocks(a, b) {
            return Proof::Proved;
        }
        match self.split_disjoint(a, b) {
            Proof::Unknown => {}
            settled => return settled,
        }
        if !self.can_ask() {
            return Proof::Unknown;
        }
        let mut enc = self.enc.clone();
        match self.meet(&mut enc, a, b, "i") {
            Some((_, side)) => self.ask_disjoint(&enc, side),
            None => Proof::Unknown,
        }
    }

    /// "Views `a` and `b` meet": one index variable per dimension of each
    /// footprint (named `{prefix}{view}_{dim}`), each in range, and equal
    /// addresses. The variables and the conditions; `None` when a size or
    /// an address cannot be encoded.
    fn meet(
        &self,
        enc: &mut Encoder,
        a: usize,
        b: usize,
        prefix: &str,
    ) -> Option<(Vec<u32>, Vec<Formula>)> {
        let (mut vars, mut conds) = (Vec::new(), Vec::new());
        let mut idx = [Vec::new(), Vec::new()];
        for (k, t) in [a, b].into_iter().enumerate() {
            for (d, &(n, _)) in self.fps[t].dims.iter().enumerate() {
                let v = enc.fresh(&format!("{prefix}{t}_{d}"));
                let size = enc.term(self.pool, n).ok()?;
                vars.push(v);
                conds.push(Term::Var(v).cmp(Cmp::Ge, Term::Int(0)));
                conds.push(Term::Var(v).cmp(Cmp::Lt, size));
                idx[k].push(Term::Var(v));
            }
        }
        let xa = self.address(enc, a, &idx[0])?;
        let xb = self.address(enc, b, &idx[1])?;
        conds.push(xa.cmp(Cmp::Eq, xb));
        Some((vars, conds))
    }

    /// Block structure for all shapes (the symbolic counterpart of `boxes.rs`):
    /// when both views have constant strides and offsets, the strides form a
    /// divisibility chain, and no inner digit can carry for any allowed size,
    /// each view is a box in digit space for every shape. Two boxes whose ranges
    /// on some level are disjoint for all sizes never meet (column splits with
    /// a symbolic number of rows, for example).
    fn separated_by_blocks(&mut self, a: usize, b: usize) -> bool {
        let mut strides: Vec<i64> = vec![1];
        let mut boxes = Vec::new();
        for t in [a, b] {
            let fp = &self.fps[t];
            let Some(start) = self.pool.as_int(fp.start) else {
                return false;
            };
            let mut dims = Vec::new();
            for &(n, st) in &fp.dims {
                let Some(st) = self.pool.as_int(st) else {
                    return false;
                };
                if st > 0 {
                    // `None`: unbounded size, allowed on the outermost level only.
                    let hi = self
                        .env
                        .interval(self.pool, n)
                        .hi
                        .and_then(|h| i64::try_from(h).ok());
                    dims.push((st, hi.map(|h| h.max(0))));
                    if !strides.contains(&st) {
                        strides.push(st);
                    }
                }
            }
            boxes.push((start, dims));
        }
        strides.sort_unstable_by(|x, y| y.cmp(x));
        if !strides.windows(2).all(|w| w[0] % w[1] == 0) {
            return false;
        }
        // Per view and level: (first digit, largest size).
        let mut ranges: Vec<Vec<(i64, Option<i64>)>> = Vec::new();
        for (start, dims) in &boxes {
            let mut levels: Vec<(i64, Option<i64>)> = strides
                .iter()
                .enumerate()
                .map(|(k, &s)| {
                    let d = if k == 0 {
                        start.div_euclid(s)
                    } else {
                        start.rem_euclid(strides[k - 1]).div_euclid(s)
                    };
                    (d, Some(1))
                })
                .collect();
            let mut seen = vec![false; strides.len()];
            for &(st, hi) in dims {
                let Some(k) = strides.iter().position(|&x| x == st) else {
                    return false;
                };
                if seen[k] {
                    return false; // two dims on one level
                }
                seen[k] = true;
                levels[k].1 = hi;
            }
            for (k, &(d, hi)) in levels.iter().enumerate().skip(1) {
                match hi {
                    Some(h) if d + h <= strides[k - 1] / strides[k] => {}
                    _ => return false, // an inner digit may carry
                }
            }
            ranges.push(levels);
        }
        (0..strides.len()).any(|k| {
            let (da, ha) = ranges[0][k];
            let (db, hb) = ranges[1][k];
            let below = |d1: i64, h1: Option<i64>, d2: i64| h1.is_some_and(|h| d1 + h - 1 < d2);
            below(da, ha, db) || below(db, hb, da)
        })
    }

    /// Witness candidates for an overlapping pair, as constant element indices
    /// of both views (and byte offsets inside the elements): the first element of
    /// `b` inside `a`, the first element of `a` inside `b` (these tend to persist
    /// when one view nests in the other), then the hint search's witness.
    fn witnesses(&self, a: usize, b: usize, hint: &GroupAnswer) -> Vec<HintWitness> {
        let byte_in = |t: usize, idx: &[i64], address: i64| {
            (address as i128 - self.views[t].byte_address(idx)) as i64
        };
        let mut out = Vec::new();
        for (outer, inner) in [(a, b), (b, a)] {
            let v = &self.views[inner];
            let first = View {
                sizes: vec![1; v.sizes.len()],
                ..v.clone()
            };
            let ans = analyze_views(&[self.views[outer].clone(), first], self.opts.budget);
            if let Some(Verdict::Overlap(w)) = ans.pairs.first().map(|p| &p.verdict) {
                let zeros = vec![0; v.sizes.len()];
                let (io, bo) = (w.index_a.clone(), byte_in(outer, &w.index_a, w.address));
                let (ii, bi) = (zeros.clone(), byte_in(inner, &zeros, w.address));
                out.push(if outer == a {
                    (io, ii, bo, bi)
                } else {
                    (ii, io, bi, bo)
                });
            }
        }
        if let Some(Verdict::Overlap(w)) = hint
            .pairs
            .iter()
            .find(|p| p.a == a && p.b == b)
            .map(|p| &p.verdict)
        {
            out.push((
                w.index_a.clone(),
                w.index_b.clone(),
                byte_in(a, &w.index_a, w.address),
                byte_in(b, &w.index_b, w.address),
            ));
        }
        out.dedup();
        out
    }

    /// The condition "this witness is inside both views and both reach the
    /// same address": it implies the overlap.
    fn witness_condition(&mut self, a: usize, b: usize, w: &HintWitness) -> ExprId {
        let (ia, ib, byte_a, byte_b) = w;
        let xa = self.address_expr(a, ia, *byte_a);
        let xb = self.address_expr(b, ib, *byte_b);
        let mut conj = vec![self.pool.binary(BinOp::Eq, xa, xb)];
        if self.pool.sub(xa, xb) == self.pool.int(0) {
            conj.clear();
        }
        for (t, idx) in [(a, ia), (b, ib)] {
            for (&n, &i) in self.tensors[t].sizes.iter().zip(idx.iter()) {
                let k = self.pool.int(i);
                conj.push(self.pool.binary(BinOp::Gt, n, k));
            }
        }
        self.pool.and(&conj)
    }

    /// Address expression (in the case's unit) of element `idx` (+ byte) of view `t`.
    fn address_expr(&mut self, t: usize, idx: &[i64], byte: i64) -> ExprId {
        let tensor = &self.tensors[t];
        let scale = if self.bytes_mode { tensor.itemsize } else { 1 };
        let mut parts = vec![self.fps[t].start];
        for (&i, &s) in idx.iter().zip(&tensor.strides) {
            let k = self.pool.int(i * scale);
            parts.push(self.pool.mul(&[k, s]));
        }
        if self.bytes_mode {
            parts.push(self.pool.int(byte));
        }
        self.pool.add(&parts)
    }

    /// For two views that are one contiguous run each (rank 1, stride 1, same
    /// unit): they overlap exactly when both are non-empty and their extents
    /// intersect. Returns that condition.
    fn runs_meet(&mut self, a: usize, b: usize) -> Option<ExprId> {
        if self.bytes_mode {
            return None;
        }
        let run = |p: &Self, t: usize| {
            let tensor = &p.tensors[t];
            tensor.strides.len() == 1 && p.pool.as_int(tensor.strides[0]) == Some(1)
        };
        if !(run(self, a) && run(self, b)) {
            return None;
        }
        let zero = self.pool.int(0);
        let (fa, fb) = (&self.fps[a], &self.fps[b]);
        let (sa, ea, sb, eb) = (fa.start, fa.end, fb.start, fb.end);
        let conj = [
            self.pool.binary(BinOp::Le, sb, ea),
            self.pool.binary(BinOp::Le, sa, eb),
            self.pool.binary(BinOp::Gt, self.tensors[a].sizes[0], zero),
            self.pool.binary(BinOp::Gt, self.tensors[b].sizes[0], zero),
        ];
        Some(self.pool.and(&conj))
    }

    /// `true` when the boolean expression is true for all shapes (by intervals,
    /// else by z3).
    fn always(&mut self, cond: ExprId) -> bool {
        if self.env.interval(self.pool, cond).as_point() == Some(1) {
            return true;
        }
        if !self.can_ask() {
            return false;
        }
        let mut enc = self.enc.clone();
        match enc.formula(self.pool, cond) {
            Ok(f) => matches!(
                self.ask(&enc, vec![Formula::Not(Box::new(f))]),
                Asked::Unsat
            ),
            Err(_) => false,
        }
    }

    fn prove_overlap(&mut self, a: usize, b: usize, hint: &GroupAnswer) -> Proof {
        if !self.time_left() {
            return Proof::Unknown;
        }
        if let Some(cond) = self.runs_meet(a, b) {
            if self.always(cond) {
                return Proof::Proved;
            }
        }
        if self.run_holds_partner(a, b) {
            return Proof::Proved;
        }
        let ws = self.witnesses(a, b, hint);
        for w in &ws {
            let cond = self.witness_condition(a, b, w);
            if self.always(cond) {
                return Proof::Proved;
            }
        }
        for w in &ws {
            if self.generalised_witness(a, b, w) {
                return Proof::Proved;
            }
        }
        self.quantified_overlap(a, b)
    }
}
