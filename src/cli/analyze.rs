//! `symalias analyze`: FORMATS.md §5 programs in, result documents out.

use super::overlap::{file_name, write_svg};
use super::{input, EXIT_BAD_INPUT};
use crate::analysis::Analyzer;
use crate::io::{parse_line, run_program, InputError, ProgramDoc};
use std::io::Write;

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
    /// Worker threads for a batch (0: one per core); results stay in input
    /// order, each program with a fresh solver.
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Most intermediate bases a program may declare.
    #[arg(long, default_value_t = crate::analysis::MAX_INTERMEDIATE_BASES)]
    pub max_intermediate_bases: usize,
    /// Overlapping pairs a storage group lists before it lists only those
    /// that join two components (the others counted in `pairs_left_out`).
    #[arg(long, default_value_t = crate::overlap::PAIR_LIST_CAP)]
    pub max_listed_pairs: usize,
    /// Time bound per program, in milliseconds: its storage groups'
    /// simplification, exact decisions and proofs together. What is left
    /// unproved when it is spent is guarded.
    #[arg(long, default_value_t = crate::overlap::ProofOptions::default().time_limit.as_millis() as u64)]
    pub time_limit_ms: u64,
    /// Also draw each program's storage groups as SVG into this directory,
    /// one file per group (`<line>-<id>-<storage>.svg`).
    #[arg(long, value_name = "DIR")]
    pub svg: Option<std::path::PathBuf>,
}

/// Runs `symalias analyze`; returns the exit code (0 ok, 1 some result lists
/// compiler errors, 2 bad input).
pub fn run(args: AnalyzeArgs) -> u8 {
    let mut reader = match input::LineReader::open(&args.input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    if let Err(e) = super::overlap::svg_dir(args.svg.as_deref()) {
        eprintln!("error: {e}");
        return EXIT_BAD_INPUT;
    }
    // One document, or one program per line (streamed).
    let (single, first) = match input::first_items(&mut reader) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let answer = |(lineno, item): &(usize, input::OwnedLine)| {
        let item = match item {
            Ok(t) => t.as_str(),
            Err(why) => return (*lineno, None, Err(input::unreadable(*lineno, why))),
        };
        let parsed = parse_line::<ProgramDoc>(*lineno, item);
        let id = parsed.id.clone();
        let result = input::catching(*lineno, || {
            parsed
                .value
                .and_then(|p| -> Result<serde_json::Value, InputError> {
                    let mut opts = crate::analysis::AnalyzerOptions {
                        max_intermediate_bases: args.max_intermediate_bases,
                        max_listed_pairs: args.max_listed_pairs,
                        ..Default::default()
                    };
                    opts.proof.time_limit = std::time::Duration::from_millis(args.time_limit_ms);
                    let r = run_program(&p, &mut Analyzer::new(opts))?;
                    if let Some(dir) = &args.svg {
                        for (storage, svg) in crate::picture::program_svgs(&p, &r)? {
                            let stem =
                                format!("{lineno:04}-{}-{}", file_name(&p.id), file_name(&storage));
                            write_svg(dir, &stem, &svg)?;
                        }
                    }
                    Ok(serde_json::to_value(r).expect("serialises"))
                })
        });
        let result = result.map_err(|e| e.at(*lineno, id.as_deref()));
        (*lineno, id, result)
    };
    let workers = super::Workers::new(args.jobs);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (mut bad, mut with_errors) = (0usize, 0usize);
    input::stream(
        &mut reader,
        first,
        &workers,
        answer,
        |(lineno, id, result)| match result {
            Ok(v) => {
                if v["errors"].as_array().is_some_and(|e| !e.is_empty()) {
                    with_errors += 1;
                }
                let line = if single && args.pretty {
                    serde_json::to_string_pretty(&v)
                } else {
                    serde_json::to_string(&v)
                };
                let _ = writeln!(out, "{}", line.expect("results serialise"));
            }
            Err(e) => {
                bad += 1;
                input::error_line(&mut out, lineno, id, &e);
            }
        },
    );
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
