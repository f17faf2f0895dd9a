//! The overlap development corpus (real cases): `symalias overlap` must give
//! exactly the expected overlapping set and pairs at the hints, and every
//! witness must be a byte that both views really cover.

use crate::common::corpus;
use crate::common::views::{brute_group, covers};
use std::process::Command;
use symalias::analysis::Analyzer;
use symalias::io::{
    load_env, load_expr, parse_line, run_overlap_case, ExprField, OverlapCase, OverlapResult,
};
use symalias::layout::{Layout, View};

/// The views of a case at an assignment, if it is allowed (ranges, assumptions)
/// and gives valid views.
fn views_at(case: &OverlapCase, at: &std::collections::BTreeMap<String, i64>) -> Option<Vec<View>> {
    let mut loaded = load_env(&case.symbols, &case.assumptions).ok()?;
    let look = |pool: &symalias::expr::ExprPool, s| at.get(pool.symbol_name(s)).copied();
    for (name, spec) in &case.symbols {
        let v = *at.get(name)?;
        if spec.min.is_some_and(|m| v < m) || spec.max.is_some_and(|m| v > m) {
            return None;
        }
    }
    for &a in loaded.env.assumptions() {
        if loaded
            .pool
            .eval(a, &|s| look(&loaded.pool, s))
            .ok()?
            .as_bool()
            != Some(true)
        {
            return None;
        }
    }
    let mut views = Vec::new();
    for t in &case.tensors {
        let mut val = |f: &ExprField| -> Option<i64> {
            let e = load_expr(&mut loaded, "f", f, false).ok()?;
            loaded.pool.eval_int(e, &|s| look(&loaded.pool, s)).ok()
        };
        let sizes = t.sizes.iter().map(&mut val).collect::<Option<Vec<_>>>()?;
        let strides = t.strides.iter().map(&mut val).collect::<Option<Vec<_>>>()?;
        let offset = val(&t.storage_offset)?;
        let v = View {
            sizes,
            strides,
            offset,
            itemsize: t.itemsize,
        };
        v.validate().ok()?;
        views.push(v);
    }
    Some(views)
}

fn views_at_hints(case: &OverlapCase) -> Vec<View> {
    let mut loaded = load_env(&case.symbols, &case.assumptions).unwrap();
    case.tensors
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let sizes = t
                .sizes
                .iter()
                .map(|f| load_expr(&mut loaded, "s", f, true).unwrap())
                .collect();
            let strides = t
                .strides
                .iter()
                .map(|f| load_expr(&mut loaded, "s", f, true).unwrap())
                .collect();
            let offset = load_expr(&mut loaded, "o", &t.storage_offset, true).unwrap();
            let st = Layout {
                sizes,
                strides,
                offset,
                itemsize: t.itemsize,
            };
            st.at_hints(&loaded.pool, &loaded.env)
                .unwrap_or_else(|e| panic!("tensors[{i}]: {e}"))
        })
        .collect()
}

/// What the corpus run counts.
#[derive(Default)]
struct Tally {
    torch_wrong: usize,
    torch_unsound: usize,
    symbolic: usize,
    with_pairs: usize,
    proved_in_box: usize,
    refuted: usize,
    refuted_known: usize,
    known: usize,
    in_box_total: usize,
}

/// The overlapping pairs, pair by pair where the case lists them (the big
/// cases carry no list), and each witness a byte both views cover.
fn check_pairs(case: &OverlapCase, raw: &serde_json::Value, r: &OverlapResult, t: &mut Tally) {
    if let Some(list) = raw["expect"]["overlapping_pairs"].as_array() {
        let want_pairs: Vec<(usize, usize)> = list
            .iter()
            .map(|p| {
                (
                    p[0].as_u64().unwrap() as usize,
                    p[1].as_u64().unwrap() as usize,
                )
            })
            .collect();
        let got_pairs: Vec<(usize, usize)> = r
            .pairs
            .iter()
            .filter(|p| p.overlap)
            .map(|p| (p.a, p.b))
            .collect();
        assert_eq!(got_pairs, want_pairs, "{}: overlapping pairs", case.id);
        t.with_pairs += 1;
    }
    let views = views_at_hints(case);
    for p in r.pairs.iter().filter(|p| p.overlap) {
        let w = p
            .witness
            .as_ref()
            .unwrap_or_else(|| panic!("{}: pair without witness", case.id));
        assert!(
            covers(&views[p.a], &w.index_a, w.address),
            "{}: witness {w:?}",
            case.id
        );
        assert!(
            covers(&views[p.b], &w.index_b, w.address),
            "{}: witness {w:?}",
            case.id
        );
    }
}

/// A symbolic case's claim for all shapes: never proved against a known
/// counterexample; a refutation's counterexample allowed and changing the
/// classification; guards wherever it is not proved.
fn check_claim(
    case: &OverlapCase,
    raw: &serde_json::Value,
    r: &OverlapResult,
    want: &[usize],
    t: &mut Tally,
) {
    let known_false = raw["expect"]["invariant"] == serde_json::json!(false);
    let in_box = raw["expect"]["invariant_in_box"] == serde_json::json!(true);
    t.known += usize::from(known_false);
    t.in_box_total += usize::from(in_box);
    assert!(
        !(known_false && r.invariant == Some(true)),
        "{}: claimed invariant despite a known counterexample",
        case.id
    );
    match r.invariant {
        Some(true) => {
            assert!(crate::common::partition_guards(r).is_empty(), "{}", case.id);
            t.proved_in_box += usize::from(in_box);
        }
        Some(false) => {
            t.refuted += 1;
            t.refuted_known += usize::from(known_false);
            let cx = r
                .counterexample
                .as_ref()
                .unwrap_or_else(|| panic!("{}: refuted without counterexample", case.id));
            let at_cx = views_at(case, cx).unwrap_or_else(|| {
                panic!("{}: counterexample {cx:?} is not an allowed shape", case.id)
            });
            let (_, set) = brute_group(&at_cx);
            assert_ne!(
                set, want,
                "{}: the counterexample {cx:?} does not change the classification",
                case.id
            );
            assert!(!r.guards.is_empty());
        }
        None => assert!(
            !r.guards.is_empty(),
            "{}: an unproved case needs guards",
            case.id
        ),
    }
}

/// One case's answer against its expectations.
fn check_case(i: usize, input: &str, result: &str, t: &mut Tally) {
    let case: OverlapCase = parse_line(i + 1, input).value.unwrap();
    let raw: serde_json::Value = serde_json::from_str(input).unwrap();
    let r: OverlapResult = serde_json::from_str(result).unwrap();
    assert_eq!(r.id, case.id);
    let want = case
        .expect
        .as_ref()
        .and_then(|e| e.overlapping.clone())
        .unwrap();
    assert_eq!(r.overlapping, want, "{}: overlapping set", case.id);
    check_pairs(&case, &raw, &r, t);
    if !case.symbols.is_empty() {
        t.symbolic += 1;
    }
    // A case is symbolic when a tensor field is an expression; with
    // concrete tensors the answer holds for every symbol assignment.
    let is_symbolic = case.tensors.iter().any(|t| {
        t.sizes
            .iter()
            .chain(&t.strides)
            .chain([&t.storage_offset])
            .any(|f| matches!(f, ExprField::Text(_)))
    });
    if is_symbolic {
        check_claim(&case, &raw, &r, &want, t);
    } else {
        assert_eq!(r.invariant, Some(true), "{}", case.id);
        assert!(r.guards.is_empty());
    }
    assert!(
        crate::common::self_overlap_guarded_iff_unproved(&r),
        "{}: self_overlap guard vs unproved self-overlap",
        case.id
    );
    let torch: Vec<usize> = raw["expect"]["torch_overlapping"]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_u64().unwrap() as usize).collect())
        .unwrap_or_default();
    if torch != want {
        t.torch_wrong += 1;
        if want.iter().any(|i| !torch.contains(i)) {
            t.torch_unsound += 1;
        }
    }
}

#[test]
fn cli_answers_every_corpus_case_exactly() {
    let path = corpus("overlap_dev.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_symalias"))
        .args(["overlap", "--layouts-pinned"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let inputs: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let results: Vec<&str> = stdout.lines().collect();
    assert!(!inputs.is_empty());
    assert_eq!(results.len(), inputs.len(), "one answer per case");
    let n = inputs.len();
    let mut t = Tally::default();
    for (i, (input, result)) in inputs.iter().zip(&results).enumerate() {
        check_case(i, input, result, &mut t);
    }
    eprintln!(
        "{n}/{n} exact ({} checked pair by pair); PyTorch differs on {} cases, misses real overlaps on {}; {} with symbols",
        t.with_pairs, t.torch_wrong, t.torch_unsound, t.symbolic
    );
    assert!(
        t.with_pairs * 10 > n * 9,
        "only {} of {n} cases list their pairs",
        t.with_pairs
    );
    eprintln!(
        "symbolic: {} refuted ({} of the {} known), {} of the {} invariant_in_box proved",
        t.refuted, t.refuted_known, t.known, t.proved_in_box, t.in_box_total
    );
    assert!(
        t.known > 0 && t.in_box_total > 0,
        "the corpus labels no symbolic case"
    );
    assert_eq!(
        t.refuted_known, t.known,
        "every known counterexample case must be refuted"
    );
    assert!(
        t.proved_in_box * 2 >= t.in_box_total,
        "only {} of {} invariant_in_box cases proved",
        t.proved_in_box,
        t.in_box_total
    );
}

#[test]
fn library_runs_are_deterministic() {
    let text = std::fs::read_to_string(corpus("overlap_dev.jsonl")).unwrap();
    for (i, line) in text.lines().enumerate().take(200) {
        let case: OverlapCase = parse_line(i + 1, line).value.unwrap();
        let opts = crate::common::pinned();
        let mut a = run_overlap_case(&case, &mut Analyzer::new(opts), false).unwrap();
        let mut b = run_overlap_case(&case, &mut Analyzer::new(opts), false).unwrap();
        a.micros = 0;
        b.micros = 0;
        assert_eq!(a, b);
    }
}

#[test]
fn same_input_gives_byte_identical_output() {
    let path = corpus("overlap_dev.jsonl");
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_symalias"))
            .args(["overlap", "--no-timing"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    };
    let (a, b) = (run(), run());
    assert!(!a.is_empty());
    assert!(a == b, "two runs on the same input differ");
}

/// The wall-clock backstop: with no time left, z3 is asked nothing and the
/// answer says the clock stopped it (`time_limit_hit`); it stays sound (a
/// view the full answer finds overlapping is overlapping or undecided,
/// never a claimed invariant that the full proof does not also claim,
/// guards wherever it is not proved) and some cases that z3 proves are
/// then only guarded.
#[test]
fn a_spent_time_limit_asks_z3_nothing_and_stays_sound() {
    let text = std::fs::read_to_string(corpus("overlap_dev.jsonl")).unwrap();
    let mut weaker = 0;
    let mut symbolic = 0;
    let mut hits = 0;
    for (i, line) in text.lines().enumerate() {
        let case: OverlapCase = parse_line(i + 1, line).value.unwrap();
        if case.symbols.is_empty() {
            continue;
        }
        symbolic += 1;
        if symbolic > 60 {
            break;
        }
        let full = crate::common::pinned();
        let mut none = crate::common::pinned();
        none.proof.time_limit = std::time::Duration::ZERO;
        let a = run_overlap_case(&case, &mut Analyzer::new(full), false).unwrap();
        let mut fresh = Analyzer::new(none);
        let b = run_overlap_case(&case, &mut fresh, false).unwrap();
        assert_eq!(fresh.solver_stats().queries, 0, "{}", case.id);
        // Where the clock changed the answer, the answer says so; what it
        // cut is undecided (may overlap), never claimed disjoint.
        assert!(!a.time_limit_hit, "{}", case.id);
        let same = OverlapResult {
            micros: a.micros,
            time_limit_hit: a.time_limit_hit,
            ..b.clone()
        } == a;
        assert!(
            same || b.time_limit_hit,
            "{}: changed, not flagged",
            case.id
        );
        hits += usize::from(b.time_limit_hit);
        assert!(
            a.overlapping.iter().all(|i| b.overlapping.contains(i)),
            "{}: {:?} lost from {:?}",
            case.id,
            b.overlapping,
            a.overlapping
        );
        if a.overlapping != b.overlapping {
            assert!(
                !b.guards.is_empty(),
                "{}: undecided without guards",
                case.id
            );
        }
        if b.invariant == Some(true) {
            assert_eq!(a.invariant, Some(true), "{}", case.id);
        } else {
            assert!(!b.guards.is_empty(), "{}: unproved without guards", case.id);
        }
        if a.invariant != b.invariant {
            weaker += 1;
        }
    }
    assert!(weaker > 0 && hits > 0, "the limit changed nothing");
}
