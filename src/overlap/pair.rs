//! The exact decision for one pair of footprints.
//!
//! Fast paths first (an empty view; disjoint extents; identical footprints;
//! two contiguous runs), then the bounded Diophantine system
//! `a.start + Σ i_k·a_k = b.start + Σ j_k·b_k`, rewritten with `j'_k = n_k-1-j_k`
//! into positive coefficients: `Σ i_k·a_k + Σ j'_k·b_k = b.end − a.start`.
//! A system the bounded search cannot settle within its work bound goes to
//! the exact stage (`pair_verdict_exact`: z3 at concrete values, until the case's
//! deadline) when the caller gives one.

use std::time::Instant;

use symalias_solver::clock::past;
use symalias_solver::{Answer, Budget, Cmp, Query, Session, Solver, Term as T};

use super::diophantine::{solve_within, Solve, Term};
use super::footprint::Footprint;
use super::lattice::{reformulate, search_box, BoxSearch, Lattice};

/// A shared address and the indices of both views that reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The shared address in bytes (the first byte of the shared element(s)).
    pub address: i64,
    /// Index into the first view.
    pub index_a: Vec<i64>,
    /// Index into the second view.
    pub index_b: Vec<i64>,
}

/// The verdict for a pair at concrete values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The footprints share no address.
    Disjoint,
    /// They share at least the witness's address.
    Overlap(Witness),
    /// The search hit its work bound: treated as overlap, and reported as undecided.
    Undecided,
}

impl Verdict {
    /// `true` for `Overlap` and `Undecided` (the sound reading).
    pub fn may_overlap(&self) -> bool {
        !matches!(self, Verdict::Disjoint)
    }
}

/// Default work bound of the search, in nodes per pair.
pub const DEFAULT_BUDGET: u64 = 1 << 18;

/// Decides whether two footprints (in the same unit) intersect.
pub(crate) fn pair_verdict(a: &Footprint, b: &Footprint, budget: u64) -> Verdict {
    let mut work = budget;
    pair_verdict_counted(a, b, budget, &mut work, None)
}

/// [`pair_verdict`] with its search (at most `budget` nodes) drawn from `work`
/// (a group's searches share one budget: `sweep.rs`). Past `deadline` (a
/// backstop) the search stops undecided.
pub(crate) fn pair_verdict_counted(
    a: &Footprint,
    b: &Footprint,
    budget: u64,
    work: &mut u64,
    deadline: Option<Instant>,
) -> Verdict {
    if a.empty || b.empty || a.end < b.start || b.end < a.start {
        return Verdict::Disjoint;
    }
    if a.dims == b.dims && a.start == b.start {
        let zeros: smallvec::SmallVec<[i64; 8]> =
            smallvec::smallvec![0; a.dims.len().max(b.dims.len())];
        return witness(
            a,
            b,
            a.start,
            &zeros[..a.dims.len()],
            &zeros[..b.dims.len()],
        );
    }
    if a.is_run() && b.is_run() {
        let at = a.start.max(b.start);
        let va: smallvec::SmallVec<[i64; 4]> = a.dims.iter().map(|_| at - a.start).collect();
        let vb: smallvec::SmallVec<[i64; 4]> = b.dims.iter().map(|_| at - b.start).collect();
        return witness(a, b, at, &va, &vb);
    }
    match solve_within(
        &terms(a, b),
        (b.end - a.start) as i128,
        budget,
        work,
        deadline,
    ) {
        Solve::None => Verdict::Disjoint,
        Solve::Undecided => Verdict::Undecided,
        // Every value is below a size, so it fits i64.
        Solve::Found(x) => solution(a, b, &x.into_iter().map(|v| v as i64).collect::<Vec<_>>()),
    }
}

/// The pair's system, `Σ i_k·a_k + Σ j'_k·b_k = b.end − a.start`: one term
/// per dimension of `a`, then of `b`.
fn terms(a: &Footprint, b: &Footprint) -> smallvec::SmallVec<[Term; 8]> {
    a.dims
        .iter()
        .chain(&b.dims)
        .map(|d| Term {
            coef: d.stride as i128,
            ub: d.size as i128 - 1,
        })
        .collect()
}

/// The overlap a solution `x` of the pair's system shows (`j'_k` turned
/// back into `b`'s indices).
fn solution(a: &Footprint, b: &Footprint, x: &[i64]) -> Verdict {
    let (xa, xb) = x.split_at(a.dims.len());
    let jb: smallvec::SmallVec<[i64; 8]> =
        b.dims.iter().zip(xb).map(|(d, v)| d.size - 1 - v).collect();
    let at = a.start
        + a.dims
            .iter()
            .zip(xa)
            .map(|(d, v)| d.stride * v)
            .sum::<i64>();
    witness(a, b, at, xa, &jb)
}

/// Runs `f` with the exact stage's z3 session until `deadline`: one
/// context for all the systems `f` asks about, started at the first (a
/// caller whose search settles everything never starts one).
pub(crate) fn with_exact_session<R>(deadline: Instant, f: impl FnOnce(&mut Session<'_>) -> R) -> R {
    let wall = deadline.saturating_duration_since(Instant::now());
    let mut solver = Solver::new(Budget {
        rlimit: EXACT_RLIMIT,
        seed: 0,
        wall,
    });
    solver.session(f)
}

/// The exact stage for a pair the search left undecided, until
/// `deadline` ([`exact_system`] on the pair's system); a solution is the
/// pair's witness.
pub(crate) fn pair_verdict_exact(
    a: &Footprint,
    b: &Footprint,
    deadline: Instant,
    session: &mut Session<'_>,
) -> Verdict {
    match exact_system(&terms(a, b), (b.end - a.start) as i128, deadline, session) {
        Solve::None => Verdict::Disjoint,
        // Inside the box: each value is below a size, so it fits i64.
        Solve::Found(x) => solution(a, b, &x.into_iter().map(|v| v as i64).collect::<Vec<_>>()),
        Solve::Undecided => Verdict::Undecided,
    }
}

/// The exact stage for a bounded system `Σ c_i·x_i = rhs`, `0 <= x_i <=
/// ub_i` the search left undecided, until `deadline`: the system
/// reformulated over its lattice of solutions (`lattice::reformulate`:
/// `x = x0 + Σ λ_j·b_j` with a reduced basis, so only the box constraints
/// are left), then an exact branch and bound over `λ`
/// (`lattice::search_box`, [`BOX_NODES`] nodes), then z3 on the same box
/// in `session` (integer arithmetic at concrete values). A solution is
/// re-checked here exactly before it is returned; past the deadline the
/// system stays undecided. A system whose reformulation leaves `i128` is
/// asked of z3 as it is.
pub(crate) fn exact_system(
    terms: &[Term],
    rhs: i128,
    deadline: Instant,
    session: &mut Session<'_>,
) -> Solve {
    if past(deadline) {
        return Solve::Undecided;
    }
    let (x0, basis, equation) = match reformulate(terms, rhs) {
        Some(Lattice::Empty) => return Solve::None,
        Some(Lattice::Solutions { x0, basis }) => (x0, basis, None),
        // Past i128 in the reduction: the plain system (`x` itself, and
        // the equation).
        None => {
            let n = terms.len();
            let unit = (0..n)
                .map(|j| (0..n).map(|i| i128::from(i == j)).collect())
                .collect();
            (vec![0; n], unit, Some(rhs))
        }
    };
    if equation.is_none() {
        let ub: Vec<i128> = terms.iter().map(|t| t.ub).collect();
        match search_box(&x0, &basis, &ub, BOX_NODES, deadline) {
            BoxSearch::Empty => return Solve::None,
            BoxSearch::Found(x) => return checked(terms, rhs, x),
            BoxSearch::Undecided => {}
        }
    }
    // The box search may have used the time up: z3 (a worker thread and a
    // context to start) only with time left.
    if past(deadline) {
        return Solve::Undecided;
    }
    let Some(query) = box_query(terms, &x0, &basis, equation) else {
        return Solve::Undecided;
    };
    match session.check_with(&query, EXACT_RLIMIT, deadline) {
        Answer::Unsat => Solve::None,
        Answer::Sat(lambda) => {
            let mut x = x0;
            for (l, bj) in lambda.iter().zip(&basis) {
                for (xi, bi) in x.iter_mut().zip(bj) {
                    match bi
                        .checked_mul(i128::from(*l))
                        .and_then(|d| xi.checked_add(d))
                    {
                        Some(v) => *xi = v,
                        None => return Solve::Undecided,
                    }
                }
            }
            checked(terms, rhs, x)
        }
        Answer::Unknown(_) => Solve::Undecided,
    }
}

/// `x` once it is checked to solve the system inside the box (undecided
/// otherwise: a solver's claim is not taken on trust).
fn checked(terms: &[Term], rhs: i128, x: Vec<i128>) -> Solve {
    let inside = x.iter().zip(terms).all(|(v, t)| (0..=t.ub).contains(v));
    // Inside the box, every product and the sum fit i128.
    if inside && x.iter().zip(terms).map(|(v, t)| v * t.coef).sum::<i128>() == rhs {
        Solve::Found(x)
    } else {
        Solve::Undecided
    }
}

/// Nodes of the box search over the reduced lattice before z3 is asked.
pub(crate) const BOX_NODES: u64 = 1 << 16;

/// z3's deterministic resource limit for one system of the exact stage
/// (integer arithmetic at concrete values): the work bound that decides,
/// so that the answer does not depend on the machine; the case's deadline
/// is only the backstop (`symalias_solver::clock`).
pub(crate) const EXACT_RLIMIT: u32 = 100_000;

/// What one system's exact stage costs of a work budget counted in search
/// nodes (`sweep::GROUP_WORK`, a case's self-overlap budget): about the
/// time its box search and z3 query may take, in nodes of the search.
pub(crate) const EXACT_COST: u64 = 1 << 20;

/// The box `0 <= x0 + Σ λ_j·b_j <= ub` as a query over the `λ_j`, and
/// `Σ c_i·λ_i = r` when an `equation` is given (the plain system); `None`
/// when a constant leaves `i64`.
fn box_query(
    terms: &[Term],
    x0: &[i128],
    basis: &[Vec<i128>],
    equation: Option<i128>,
) -> Option<Query> {
    let names: Vec<String> = (0..basis.len()).map(|j| format!("l{j}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let int = |v: i128| i64::try_from(v).ok().map(T::Int);
    let mut assertions = Vec::with_capacity(2 * terms.len());
    for (i, t) in terms.iter().enumerate() {
        let mut sum = vec![int(x0[i])?];
        for (j, bj) in basis.iter().enumerate() {
            if bj[i] != 0 {
                sum.push(int(bj[i])? * T::Var(j as u32));
            }
        }
        let coordinate = T::Add(sum);
        assertions.push(coordinate.clone().cmp(Cmp::Ge, T::Int(0)));
        assertions.push(coordinate.cmp(Cmp::Le, int(t.ub)?));
    }
    if let Some(r) = equation {
        let sum = (0..basis.len())
            .map(|j| Some(int(terms[j].coef)? * T::Var(j as u32)))
            .collect::<Option<Vec<_>>>()?;
        assertions.push(T::Add(sum).cmp(Cmp::Eq, int(r)?));
    }
    Some(Query::new(&refs, assertions))
}

fn witness(a: &Footprint, b: &Footprint, at: i64, va: &[i64], vb: &[i64]) -> Verdict {
    Verdict::Overlap(Witness {
        address: at * a.unit_bytes,
        index_a: a.index_of(va),
        index_b: b.index_of(vb),
    })
}
