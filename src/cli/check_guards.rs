//! `symalias check-guards RESULT CALL`: do a result's guards hold on a call?

use super::EXIT_BAD_INPUT;
use crate::guards::check::{check, Call};
use crate::guards::Guard;
use std::collections::BTreeMap;

/// Arguments of `symalias check-guards`.
#[derive(Debug, clap::Args)]
pub struct CheckGuardsArgs {
    /// An `analyze` result document or an `overlap` result line (its `guards`
    /// and `symbols` are used).
    pub result: String,
    /// The call (FORMATS.md §6): inputs keyed by source, with concrete tensors or values.
    pub call: String,
}

fn read_json(path: &str, what: &str) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{what} {path}: {e}"))
}

/// Runs `symalias check-guards`; 0 pass, 1 fail, 2 bad input.
pub fn run(args: CheckGuardsArgs) -> u8 {
    let go = || -> Result<crate::guards::check::Outcome, String> {
        let result = read_json(&args.result, "result")?;
        let guards: Vec<Guard> =
            serde_path_to_error::deserialize(&result["guards"]).map_err(|e| {
                format!(
                    "result {}: field `guards.{}`: {}",
                    args.result,
                    e.path(),
                    e.inner()
                )
            })?;
        let symbols: BTreeMap<String, String> = match result.get("symbols") {
            None | Some(serde_json::Value::Null) => BTreeMap::new(),
            Some(v) => serde_json::from_value(v.clone())
                .map_err(|e| format!("result {}: field `symbols`: {e}", args.result))?,
        };
        let call_json = read_json(&args.call, "call")?;
        let call: Call = serde_path_to_error::deserialize(&call_json)
            .map_err(|e| format!("call {}: field `{}`: {}", args.call, e.path(), e.inner()))?;
        check(&guards, &symbols, &call).map_err(|e| format!("call {}: {e}", args.call))
    };
    match go() {
        Ok(outcome) => {
            println!("{}", serde_json::to_string(&outcome).expect("serialises"));
            if outcome.pass {
                0
            } else {
                1
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_BAD_INPUT
        }
    }
}
