//! `symalias check-guards RESULT CALL`: do a result's guards hold on a call?
//!
//! `CALL` is one JSON document (one answer, FORMATS §6), or JSON Lines with one
//! call per line (one answer per line, with its `line`; a bad line gets an
//! error line and the others are still answered). The guard list is prepared
//! once ([`GuardSet`]) for all calls.

use super::{input, EXIT_BAD_INPUT};
use crate::expr::ExprPool;
use crate::guards::check::{Call, GuardSet, Outcome};
use crate::io::{load_guards, parse_line, GuardDoc, InputError, OutcomeDoc};
use std::collections::BTreeMap;
use std::io::Write;

/// Arguments of `symalias check-guards`.
#[derive(Debug, clap::Args)]
pub struct CheckGuardsArgs {
    /// An `analyze` result document or an `overlap` result line (its `guards`
    /// and `symbols` are used).
    pub result: String,
    /// The call (FORMATS.md §6): inputs keyed by source, with concrete tensors
    /// or values; or JSON Lines of calls; `-` for standard input.
    pub call: String,
}

fn read_json(path: &str, what: &str) -> Result<serde_json::Value, String> {
    let bytes = input::read_bytes(path)?;
    crate::io::strict::from_slice(&bytes).map_err(|e| format!("{what} {path}: {e}"))
}

fn guard_set(path: &str) -> Result<GuardSet, String> {
    let result = read_json(path, "result")?;
    let docs: Vec<GuardDoc> = serde_path_to_error::deserialize(&result["guards"])
        .map_err(|e| format!("result {path}: field `guards.{}`: {}", e.path(), e.inner()))?;
    let mut pool = ExprPool::new();
    let guards = load_guards(&mut pool, &docs).map_err(|e| format!("result {path}: {e}"))?;
    let symbols: BTreeMap<String, String> = match result.get("symbols") {
        None | Some(serde_json::Value::Null) => BTreeMap::new(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| format!("result {path}: field `symbols`: {e}"))?,
    };
    GuardSet::prepare(&pool, &guards, &symbols).map_err(|e| format!("result {path}: {e}"))
}

fn code(o: &Outcome) -> u8 {
    if o.passed() {
        0
    } else {
        1
    }
}

/// Runs `symalias check-guards`; 0 all pass, 1 some call fails a guard, 2 bad input.
pub fn run(args: CheckGuardsArgs) -> u8 {
    let set = match guard_set(&args.result) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let mut reader = match input::LineReader::open(&args.call) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (single, items) = match input::first_items(&mut reader) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    if items.is_empty() {
        eprintln!("error: call {}: no call (the input is empty)", args.call);
        return EXIT_BAD_INPUT;
    }
    if single {
        let text = items[0].1.as_ref().expect("a single document is text");
        let doc: serde_json::Value = serde_json::from_str(text).expect("checked by first_items");
        let call: Call = match serde_path_to_error::deserialize(&doc) {
            Ok(c) => c,
            Err(e) => {
                eprintln!(
                    "error: call {}: field `{}`: {}",
                    args.call,
                    e.path(),
                    e.inner()
                );
                return EXIT_BAD_INPUT;
            }
        };
        return match set.check(&call) {
            Ok(o) => {
                let _ = writeln!(
                    out,
                    "{}",
                    serde_json::to_string(&OutcomeDoc::from(&o)).expect("serialises")
                );
                code(&o)
            }
            Err(e) => {
                eprintln!("error: call {}: {e}", args.call);
                EXIT_BAD_INPUT
            }
        };
    }
    let mut worst = 0u8;
    // Calls are cheap: one thread, a chunk of lines at a time.
    let workers = super::Workers::new(1);
    let answer = |(lineno, line): &(usize, input::OwnedLine)| {
        let lineno = *lineno;
        let line = match line {
            Ok(l) => l.as_str(),
            Err(why) => return (lineno, Err(input::unreadable(lineno, why))),
        };
        let parsed = parse_line::<Call>(lineno, line);
        let answer = input::catching(lineno, || {
            parsed.value.and_then(|c| {
                set.check(&c).map_err(|e| InputError {
                    line: Some(lineno),
                    id: None,
                    field: None,
                    message: e.to_string(),
                })
            })
        });
        (lineno, answer)
    };
    input::stream(
        &mut reader,
        items,
        &workers,
        answer,
        |(lineno, answer)| match answer {
            Ok(o) => {
                worst = worst.max(code(&o));
                let mut v = serde_json::to_value(OutcomeDoc::from(&o)).expect("serialises");
                v["line"] = lineno.into();
                let _ = writeln!(out, "{v}");
            }
            Err(e) => {
                worst = EXIT_BAD_INPUT;
                input::error_line(&mut out, lineno, None, &e);
            }
        },
    );
    worst
}
