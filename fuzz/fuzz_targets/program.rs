//! A FORMATS §5 program through the metadata passes: a result or a located
//! error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use symalias::analysis::{Analyzer, AnalyzerOptions};
use symalias::io::{parse_line, run_program, ProgramDoc};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(doc) = parse_line::<ProgramDoc>(1, text).value else {
        return;
    };
    let mut opts = AnalyzerOptions::default();
    opts.proof.time_limit = std::time::Duration::from_millis(50);
    if let Ok(r) = run_program(&doc, &mut Analyzer::new(opts)) {
        let _ = serde_json::to_string(&r).expect("results serialise");
    }
});
