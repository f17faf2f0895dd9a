//! The overlap development corpus (604 real cases): `symalias overlap` must give
//! exactly the expected overlapping set and pairs at the hints, and every
//! witness must be a byte that both views really cover.

mod common;

use common::corpus;
use common::views::covers;
use std::process::Command;
use symalias::io::{
    load_env, load_expr, parse_line, run_overlap_case, ExprField, OverlapCase, OverlapResult,
};
use symalias::overlap::{SymTensor, View};

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
            let st = SymTensor {
                source: None,
                sizes,
                strides,
                offset,
                itemsize: t.itemsize,
            };
            st.at_hints(i, &loaded.pool, &loaded.env).unwrap()
        })
        .collect()
}

#[test]
fn cli_answers_every_corpus_case_exactly() {
    let path = corpus("overlap_dev.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_symalias"))
        .arg("overlap")
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
    assert_eq!(inputs.len(), 604);
    assert_eq!(results.len(), inputs.len());
    let (mut torch_wrong, mut torch_unsound, mut symbolic, mut with_pairs) = (0, 0, 0, 0);
    for (i, (input, result)) in inputs.iter().zip(&results).enumerate() {
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
        // The big cases carry no pair list; the others must match pair for pair.
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
            let got_pairs: Vec<(usize, usize)> = r.pairs.iter().map(|p| (p.a, p.b)).collect();
            assert_eq!(got_pairs, want_pairs, "{}: overlapping pairs", case.id);
            with_pairs += 1;
        }
        let views = views_at_hints(&case);
        for p in &r.pairs {
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
        if !case.symbols.is_empty() {
            symbolic += 1;
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
            assert_eq!(
                r.invariant, None,
                "{}: symbolic cases are hint-only here",
                case.id
            );
            assert!(r.pairs.iter().all(|p| p.proof == "hint_only"));
            assert!(
                !r.guards.is_empty(),
                "{}: an unproved symbolic case needs the StorageOverlap guard",
                case.id
            );
        } else {
            assert_eq!(r.invariant, Some(true), "{}", case.id);
            assert!(r.guards.is_empty());
        }
        let torch: Vec<usize> = raw["expect"]["torch_overlapping"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_u64().unwrap() as usize).collect())
            .unwrap_or_default();
        if torch != want {
            torch_wrong += 1;
            if want.iter().any(|i| !torch.contains(i)) {
                torch_unsound += 1;
            }
        }
    }
    eprintln!(
        "604/604 exact ({with_pairs} checked pair by pair); PyTorch differs on {torch_wrong} cases, misses real overlaps on {torch_unsound}; {symbolic} with symbols"
    );
    assert!(with_pairs > 550, "only {with_pairs} cases list their pairs");
    assert_eq!(symbolic, 120);
}

#[test]
fn library_and_cli_agree_and_are_deterministic() {
    let text = std::fs::read_to_string(corpus("overlap_dev.jsonl")).unwrap();
    for (i, line) in text.lines().enumerate().take(200) {
        let case: OverlapCase = parse_line(i + 1, line).value.unwrap();
        let mut a = run_overlap_case(&case, 1 << 18).unwrap();
        let mut b = run_overlap_case(&case, 1 << 18).unwrap();
        a.micros = 0;
        b.micros = 0;
        assert_eq!(a, b);
    }
}
