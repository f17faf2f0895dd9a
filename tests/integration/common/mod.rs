//! Shared helpers of the integration tests: corpus access and a small,
//! deterministic random generator.

#![allow(dead_code)]

#[allow(dead_code)]
pub mod ast_eval;
pub mod calls;
pub mod cli;
pub mod random_programs;
pub mod symgen;
pub mod symgen_layouts;
pub mod symgen_nonlinear;
pub mod symgen_products;
pub mod views;

use std::path::PathBuf;

/// Path of a file of the development corpora, in this repository's
/// `tests/data/` (a bare clone runs every test).
pub fn corpus(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    assert!(p.exists(), "corpus file {} is missing", p.display());
    p
}

/// The JSON lines of a corpus file.
pub fn corpus_lines(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(corpus(name)).expect("read corpus");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("corpus line is JSON"))
        .collect()
}

/// A count from the environment variable `name` (to run a property test or
/// harness longer locally), else `default`.
pub fn env_count<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Analyzer options of an embedder that pins layouts itself (torch): the
/// proof's own guard list, which the tests of proofs and their shape
/// guards read (the default list stands alone: `guards_standalone`).
pub fn pinned() -> symalias::analysis::AnalyzerOptions {
    symalias::analysis::AnalyzerOptions {
        guards: symalias::analysis::GuardOptions {
            layouts_pinned: true,
        },
        ..Default::default()
    }
}

/// SplitMix64: small, deterministic, good enough for test inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        lo + (self.next_u64() as u128 % span) as i64
    }
}

/// The §5 scenario programs under `tests/programs/`, by file name, sorted.
pub fn programs() -> Vec<(String, serde_json::Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                serde_json::from_str(&text).unwrap(),
            )
        })
        .collect()
}

/// Runs a §5 program document through the analyzer; the result as JSON (the
/// document `symalias analyze` prints).
#[allow(dead_code)]
pub fn analyze_json(
    doc: &serde_json::Value,
    analyzer: &mut symalias::analysis::Analyzer,
) -> Result<serde_json::Value, String> {
    let p: symalias::io::ProgramDoc =
        serde_json::from_value(doc.clone()).map_err(|e| e.to_string())?;
    let r = symalias::io::run_program(&p, analyzer).map_err(|e| e.to_string())?;
    Ok(serde_json::to_value(r).expect("serialises"))
}

/// The guards of a result document, prepared for checking calls.
#[allow(dead_code)]
pub fn guard_set(result: &serde_json::Value) -> symalias::guards::check::GuardSet {
    let docs: Vec<symalias::io::GuardDoc> =
        serde_json::from_value(result["guards"].clone()).expect("guards");
    let symbols: std::collections::BTreeMap<String, String> =
        serde_json::from_value(result["symbols"].clone()).unwrap_or_default();
    symalias::io::prepare_guards(&docs, &symbols).expect("guards prepare")
}

/// The guards of a §3 result that keep its partition: all but the
/// `self_overlap` guard (which keeps the inputs' overlap with themselves).
pub fn partition_guards(r: &symalias::io::OverlapResult) -> Vec<&symalias::io::GuardDoc> {
    r.guards
        .iter()
        .filter(|g| !matches!(g.kind, symalias::io::GuardKindDoc::SelfOverlap { .. }))
        .collect()
}

/// A `self_overlap` guard is present exactly when some self-overlap verdict
/// is not proved (unknown or refuted), and lists exactly those tensors.
pub fn self_overlap_guarded_iff_unproved(r: &symalias::io::OverlapResult) -> bool {
    use symalias::overlap::Proof;
    let open: Vec<&symalias::io::SelfOverlapResult> = r
        .self_overlap
        .iter()
        .filter(|s| matches!(s.proof, Proof::Unknown | Proof::Refuted))
        .collect();
    let listed: Vec<usize> = r
        .guards
        .iter()
        .filter_map(|g| match &g.kind {
            symalias::io::GuardKindDoc::SelfOverlap {
                overlapping,
                non_overlapping,
            } => Some(overlapping.len() + non_overlapping.len()),
            _ => None,
        })
        .collect();
    match listed.as_slice() {
        [] => open.is_empty(),
        [n] => *n == open.len() && !open.is_empty(),
        _ => false,
    }
}
