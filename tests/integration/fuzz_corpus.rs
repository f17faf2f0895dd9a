//! The fuzzers' corpora, replayed (issue 63): every input a cargo-fuzz run
//! kept (`fuzz/regressions/<target>/`, minimized with `cargo fuzz cmin`,
//! files up to 4 KB) runs through the same code as its target, without
//! libFuzzer: an answer or a located error, never a panic.

use std::path::PathBuf;
use symalias::analysis::{Analyzer, AnalyzerOptions};
use symalias::guards::check::Call;
use symalias::io::{parse_line, prepare_guards, run_overlap_case, GuardDoc, OverlapCase};

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.unwrap().path();
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn overlap_line_corpus_answers_or_errs() {
    let corpus = inputs("overlap_line");
    assert!(corpus.len() >= 100, "{} inputs", corpus.len());
    let mut opts = AnalyzerOptions::default();
    opts.proof.time_limit = std::time::Duration::from_millis(50);
    for (path, data) in corpus {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let Ok(case) = parse_line::<OverlapCase>(1, text).value else {
            continue;
        };
        let answered = std::panic::catch_unwind(|| {
            let _ = run_overlap_case(&case, &mut Analyzer::new(opts), true);
        });
        assert!(answered.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn guard_check_corpus_passes_fails_or_errs() {
    let result: serde_json::Value =
        serde_json::from_str(include_str!("../../fuzz/seeds/r29.result.json")).unwrap();
    let docs: Vec<GuardDoc> = serde_json::from_value(result["guards"].clone()).unwrap();
    let symbols = serde_json::from_value(result["symbols"].clone()).unwrap();
    let set = prepare_guards(&docs, &symbols).unwrap();
    let corpus = inputs("guard_check");
    assert!(corpus.len() >= 100, "{} inputs", corpus.len());
    for (path, data) in corpus {
        let Ok(call) = serde_json::from_slice::<Call>(&data) else {
            continue;
        };
        let answered = std::panic::catch_unwind(|| {
            let _ = set.check(&call);
        });
        assert!(answered.is_ok(), "{} panicked", path.display());
    }
}
