//! Every expression of the development corpora (`tests/data/`) parses, prints back to a fixpoint,
//! re-parses to the same canonical expression, and keeps its value (against
//! the as-written syntax tree) at the hints and at random points in range.

use crate::common::{corpus_lines, Rng};
use hashbrown::HashMap;
use symalias::expr::{narrow, parse, parse_ast, ExprPool, Ty, Value};

struct Case {
    id: String,
    text: String,
    /// name -> (hint, min, max)
    symbols: HashMap<String, (i64, Option<i64>, Option<i64>)>,
}

fn symbols_of(v: &serde_json::Value) -> HashMap<String, (i64, Option<i64>, Option<i64>)> {
    let mut out = HashMap::new();
    if let Some(m) = v["symbols"].as_object() {
        for (k, s) in m {
            out.insert(
                k.clone(),
                (
                    s["hint"].as_i64().unwrap_or(0),
                    s["min"].as_i64(),
                    s["max"].as_i64(),
                ),
            );
        }
    }
    out
}

fn all_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for v in corpus_lines("exprs_dev.jsonl") {
        let id = v["id"].as_str().unwrap().to_string();
        let symbols = symbols_of(&v);
        cases.push(Case {
            id: id.clone(),
            text: v["expr"].as_str().unwrap().into(),
            symbols: symbols.clone(),
        });
        for a in v["assumptions"].as_array().unwrap() {
            cases.push(Case {
                id: id.clone(),
                text: a.as_str().unwrap().into(),
                symbols: symbols.clone(),
            });
        }
    }
    for v in corpus_lines("overlap_dev.jsonl") {
        let id = v["id"].as_str().unwrap().to_string();
        let symbols = symbols_of(&v);
        let mut texts: Vec<String> = v["assumptions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().into())
            .collect();
        for t in v["tensors"].as_array().unwrap() {
            for key in ["sizes", "strides"] {
                for x in t[key].as_array().unwrap() {
                    texts.push(match x.as_str() {
                        Some(s) => s.to_string(),
                        None => x.to_string(),
                    });
                }
            }
            let off = &t["storage_offset"];
            texts.push(
                off.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| off.to_string()),
            );
        }
        for text in texts {
            cases.push(Case {
                id: id.clone(),
                text,
                symbols: symbols.clone(),
            });
        }
    }
    cases
}

#[test]
fn every_corpus_expression_round_trips() {
    let cases = all_cases();
    assert!(
        cases.len() > 5000,
        "expected the whole corpus, got {}",
        cases.len()
    );
    let mut rng = Rng(7);
    let mut checked_points = 0usize;
    for case in &cases {
        let mut pool = ExprPool::new();
        let e = parse(&mut pool, &case.text)
            .unwrap_or_else(|err| panic!("{}: `{}`: {err}", case.id, case.text));
        let printed = pool.display(e).to_string();
        let e2 = parse(&mut pool, &printed)
            .unwrap_or_else(|err| panic!("{}: reprint `{printed}`: {err}", case.id));
        let printed2 = pool.display(e2).to_string();
        assert_eq!(
            printed, printed2,
            "{}: print fixpoint of `{}`",
            case.id, case.text
        );
        if pool.ty(e) != Ty::Float {
            assert_eq!(
                e, e2,
                "{}: `{}` re-parses to another expression",
                case.id, printed
            );
        }
        // Values: canonical form, its reprint, and the as-written tree agree.
        let ast = parse_ast(&case.text).unwrap();
        let names: Vec<String> = case.symbols.keys().cloned().collect();
        for round in 0..8 {
            let point: HashMap<String, i64> = names
                .iter()
                .map(|n| {
                    let (hint, lo, hi) = case.symbols[n];
                    let v = if round == 0 {
                        hint
                    } else {
                        let lo = lo.unwrap_or(hint.min(0) - 64);
                        let hi = hi.unwrap_or(hint.max(lo) + 64).min(lo + 4096);
                        rng.range(lo, hi)
                    };
                    (n.clone(), v)
                })
                .collect();
            let by_name = |n: &str| point.get(n).copied();
            let by_sym = |s| point.get(pool.symbol_name(s)).copied();
            let reference = crate::common::ast_eval::eval_ast(&ast, &by_name).and_then(narrow);
            let got = pool.eval(e, &by_sym);
            let got2 = pool.eval(e2, &by_sym);
            if let Ok(want) = reference {
                let got = got.unwrap_or_else(|err| {
                    panic!("{}: `{}` at {point:?}: {err}", case.id, case.text)
                });
                assert!(
                    got.same(want),
                    "{}: `{}` at {point:?}: {got} != {want}",
                    case.id,
                    case.text
                );
                let got2 = got2.unwrap();
                assert!(got2.same(want), "{}: reprint at {point:?}", case.id);
                checked_points += 1;
            }
        }
    }
    // Most points are inside the domain; make sure the value check really ran.
    assert!(
        checked_points > cases.len() * 4,
        "only {checked_points} points were checked"
    );
}

#[test]
fn tree_size_matches_sympy_preorder_count_on_most_expressions() {
    let mut same = 0;
    let mut total = 0;
    for v in corpus_lines("exprs_dev.jsonl") {
        let Some(want) = v["ref"]["size_in"].as_u64() else {
            continue;
        };
        if v["ref"].get("torch_text").is_some() {
            continue;
        }
        let mut pool = ExprPool::new();
        let e = parse(&mut pool, v["expr"].as_str().unwrap()).unwrap();
        total += 1;
        if pool.tree_size(e) as u64 == want {
            same += 1;
        }
    }
    eprintln!("tree_size equals sympy's size on {same}/{total}");
    assert!(
        same * 10 >= total * 9,
        "tree size agrees with SymPy on only {same}/{total}"
    );
}

#[test]
fn hints_make_no_value_errors_on_corpus_expressions() {
    // At the hints every corpus expression evaluates (PyTorch evaluated them).
    for case in all_cases() {
        let mut pool = ExprPool::new();
        let e = parse(&mut pool, &case.text).unwrap();
        let v = pool.eval(e, &|s| case.symbols.get(pool.symbol_name(s)).map(|t| t.0));
        assert!(
            matches!(v, Ok(Value::Int(_) | Value::Bool(_) | Value::Float(_))),
            "{}: `{}` at the hints: {v:?}",
            case.id,
            case.text
        );
    }
}

#[test]
fn printing_matches_sympys_text_on_most_corpus_expressions() {
    // The printer follows SymPy's str(): operators, parentheses, term order.
    // Term order among composite factors differs in a few places.
    let (mut same, mut total) = (0, 0);
    for v in corpus_lines("exprs_dev.jsonl") {
        let text = v["expr"].as_str().unwrap();
        let mut pool = ExprPool::new();
        let e = parse(&mut pool, text).unwrap();
        total += 1;
        if pool.display(e).to_string() == text {
            same += 1;
        }
    }
    eprintln!("printed text identical to the corpus on {same}/{total}");
    assert!(
        same * 100 >= total * 90,
        "identical text on only {same}/{total}"
    );
}
