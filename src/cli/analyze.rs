//! `symalias analyze`: FORMATS.md §5 programs in, result documents out.

use super::{input, EXIT_BAD_INPUT};
use crate::io::{parse_line, run_program, ErrorLine, Program};
use std::io::{Read, Write};
use symalias_solver::Solver;

/// Exit code when a program's result lists errors a compiler would raise.
pub const EXIT_PROGRAM_ERRORS: u8 = 1;

/// Arguments of `symalias analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// A program (one JSON document, possibly over several lines) or a JSON
    /// Lines batch of programs; `-` for standard input.
    #[arg(default_value = "-")]
    pub input: String,
    /// Pretty-print a single program's result.
    #[arg(long)]
    pub pretty: bool,
}

/// Runs `symalias analyze`; returns the exit code (0 ok, 1 some result lists
/// compiler errors, 2 bad input).
pub fn run(args: AnalyzeArgs) -> u8 {
    let mut text = String::new();
    let read = input::open(&args.input).and_then(|mut r| {
        r.read_to_string(&mut text)
            .map(|_| ())
            .map_err(|e| format!("cannot read {}: {e}", args.input))
    });
    if let Err(e) = read {
        eprintln!("error: {e}");
        return EXIT_BAD_INPUT;
    }
    // One document, or one program per line.
    let single = serde_json::from_str::<serde_json::Value>(&text).is_ok();
    let items: Vec<(usize, &str)> = if single {
        vec![(1, text.as_str())]
    } else {
        text.lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .filter(|(_, l)| !l.trim().is_empty())
            .collect()
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut solver = Solver::default();
    let (mut bad, mut with_errors) = (0usize, 0usize);
    for (lineno, item) in items {
        let parsed = parse_line::<Program>(lineno, item);
        let id = parsed.id.clone();
        let result = parsed
            .value
            .and_then(|p| run_program(&p, &mut solver).map_err(|e| e.at(lineno, id.as_deref())));
        let line = match result {
            Ok(v) => {
                if v["errors"].as_array().is_some_and(|e| !e.is_empty()) {
                    with_errors += 1;
                }
                if single && args.pretty {
                    serde_json::to_string_pretty(&v)
                } else {
                    serde_json::to_string(&v)
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                bad += 1;
                serde_json::to_string(&ErrorLine {
                    id,
                    line: lineno,
                    error: e.to_string(),
                })
            }
        };
        let _ = writeln!(out, "{}", line.expect("results serialise"));
    }
    let _ = out.flush();
    if bad > 0 {
        eprintln!("symalias analyze: {bad} program(s) had errors");
        EXIT_BAD_INPUT
    } else if with_errors > 0 {
        EXIT_PROGRAM_ERRORS
    } else {
        0
    }
}
