//! The run-time checker on arbitrary calls against the guard list of
//! PyTorch's #29 (every guard kind but duplicates): pass, fail or a bad-input
//! error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use symalias::guards::check::{Call, GuardSet};
use symalias::io::{prepare_guards, GuardDoc};

fn set() -> &'static GuardSet {
    static SET: OnceLock<GuardSet> = OnceLock::new();
    SET.get_or_init(|| {
        let result: serde_json::Value =
            serde_json::from_str(include_str!("../seeds/r29.result.json")).expect("result");
        let docs: Vec<GuardDoc> = serde_json::from_value(result["guards"].clone()).expect("guards");
        let symbols = serde_json::from_value(result["symbols"].clone()).expect("symbols");
        prepare_guards(&docs, &symbols).expect("guards prepare")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(call) = serde_json::from_slice::<Call>(data) else {
        return;
    };
    let _ = set().check(&call);
});
