//! The domain of a proof: what every allowed assignment satisfies (symbol
//! ranges, assumptions, non-negative sizes, strides and offsets), as solver
//! formulas indexed by the variables they mention.
//!
//! A query carries only the facts *connected* to its own variables (the
//! closure over shared variables), so its size does not grow with the number
//! of views in the case. That is sound both ways: dropping premises can only
//! turn an unsat answer into sat, never the reverse, and the facts left out
//! mention none of the query's variables, so a model of the query extends to
//! the whole domain with the hint values (and every model is re-checked
//! exactly before it counts as a counterexample).

use hashbrown::{HashMap, HashSet};
use symalias_solver::Formula;

/// Facts of the domain, indexed by variable.
#[derive(Debug, Default)]
pub(crate) struct Domain {
    facts: Vec<Formula>,
    by_var: HashMap<u32, Vec<usize>>,
    /// Facts without variables (always included).
    closed: Vec<usize>,
    /// Every fact once (many tensors share a size such as `s0 >= 0`).
    seen: HashSet<Formula>,
    /// `false` when some layout field could not be encoded: then "unsat"
    /// would speak of a larger set than the allowed one's complement — no
    /// proof may rest on z3.
    pub(crate) complete: bool,
}

impl Domain {
    /// An empty, complete domain.
    pub(crate) fn new() -> Self {
        Domain {
            complete: true,
            ..Domain::default()
        }
    }

    /// Adds a fact (once).
    pub(crate) fn push(&mut self, f: Formula) {
        if !self.seen.insert(f.clone()) {
            return;
        }
        let k = self.facts.len();
        let mut vs = Vec::new();
        f.vars_into(&mut vs);
        vs.sort_unstable();
        vs.dedup();
        if vs.is_empty() {
            self.closed.push(k);
        }
        for v in vs {
            self.by_var.entry(v).or_default().push(k);
        }
        self.facts.push(f);
    }

    /// The facts connected to the variables of `assertions`, in the order
    /// they were added (so equal questions give equal queries).
    pub(crate) fn relevant(&self, assertions: &[Formula]) -> Vec<Formula> {
        let mut todo = Vec::new();
        for a in assertions {
            a.vars_into(&mut todo);
        }
        let mut seen_var: HashSet<u32> = HashSet::new();
        let mut picked: Vec<usize> = self.closed.clone();
        let mut seen_fact: HashSet<usize> = HashSet::new();
        let mut vs = Vec::new();
        while let Some(v) = todo.pop() {
            if !seen_var.insert(v) {
                continue;
            }
            for &k in self.by_var.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                if seen_fact.insert(k) {
                    picked.push(k);
                    vs.clear();
                    self.facts[k].vars_into(&mut vs);
                    todo.extend(vs.iter().copied().filter(|v| !seen_var.contains(v)));
                }
            }
        }
        picked.sort_unstable();
        picked.into_iter().map(|k| self.facts[k].clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use symalias_solver::{Cmp, Term};

    #[test]
    fn a_query_gets_the_facts_connected_to_its_variables() {
        let ge = |v: u32, k: i64| Term::Var(v).cmp(Cmp::Ge, Term::Int(k));
        let mut d = Domain::new();
        d.push(ge(0, 2)); // x0 >= 2
        d.push(ge(1, 0)); // x1 >= 0
        d.push(Term::Var(0).cmp(Cmp::Le, Term::Var(2))); // x0 <= x2
        d.push(ge(2, 5)); // x2 >= 5
        d.push(ge(3, 7)); // x3: unrelated
        d.push(ge(2, 5)); // a repeat: kept once
        let got = d.relevant(&[ge(0, 100)]);
        let text: Vec<String> = got.iter().map(|f| f.to_string()).collect();
        assert_eq!(text, ["(>= v0 2)", "(<= v0 v2)", "(>= v2 5)"]);
        assert!(d.relevant(&[Formula::True]).is_empty());
    }
}
