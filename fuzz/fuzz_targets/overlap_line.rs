//! A FORMATS §3 line through the whole overlap pipeline (loading,
//! simplification, the exact decision, the proof with a short time limit):
//! an answer or a located error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use symalias::analysis::{Analyzer, AnalyzerOptions};
use symalias::io::{parse_line, run_overlap_case, OverlapCase};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(case) = parse_line::<OverlapCase>(1, text).value else {
        return;
    };
    let mut opts = AnalyzerOptions::default();
    opts.proof.time_limit = std::time::Duration::from_millis(50);
    let _ = run_overlap_case(&case, &mut Analyzer::new(opts), true);
});
