//! The `symalias` command line: argument parsing, logging set-up, and one
//! module per subcommand.
//!
//! Exit codes: 0 success, 1 a check failed (later subcommands), 2 bad input
//! (in a batch, after answering every other line).

mod analyze;
mod check_guards;
mod eval;
mod input;
mod overlap;
mod parse;
mod simplify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit code for bad input.
pub(crate) const EXIT_BAD_INPUT: u8 = 2;

/// symalias: exact, symbolic-shape-aware alias analysis for ML compilers.
///
/// Logging goes to stderr; set SYMALIAS_LOG (or RUST_LOG) to e.g. `debug` or
/// `symalias=trace`.
#[derive(Debug, Parser)]
#[command(name = "symalias", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the metadata passes (dedupe, synthetic bases, signature) on programs (FORMATS.md §5).
    Analyze(analyze::AnalyzeArgs),
    /// Check a result's guards on a concrete call (FORMATS.md §6): exit 0 pass, 1 fail.
    CheckGuards(check_guards::CheckGuardsArgs),
    /// Decide which views of one storage overlap, exactly, per case (FORMATS.md §3 JSONL).
    Overlap(overlap::OverlapArgs),
    /// Parse expressions and print them normalised (text lines or FORMATS.md §4 JSONL).
    Parse(parse::ParseArgs),
    /// Evaluate one expression at given symbol values, with Python semantics.
    Eval(eval::EvalArgs),
    /// Simplify expressions under their symbols' ranges and assumptions (text or FORMATS.md §4 JSONL).
    Simplify(simplify::SimplifyArgs),
}

/// Sets up `tracing` to stderr with the filter from `SYMALIAS_LOG` or `RUST_LOG`
/// (default: warnings only).
pub(crate) fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = std::env::var("SYMALIAS_LOG")
        .ok()
        .or_else(|| std::env::var("RUST_LOG").ok())
        .unwrap_or_else(|| "warn".to_string());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_new(&filter).unwrap_or_else(|_| EnvFilter::new("warn")))
        .with_writer(std::io::stderr)
        .try_init();
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Analyze(a) => analyze::run(a),
        Command::CheckGuards(a) => check_guards::run(a),
        Command::Overlap(a) => overlap::run(a),
        Command::Parse(a) => parse::run(a, parse::Mode::Parse),
        Command::Simplify(a) => simplify::run(a),
        Command::Eval(a) => eval::run(a),
    };
    ExitCode::from(code)
}

/// Stack of a batch worker thread: the engine still recurses on deep
/// expressions (bounded depth is the hostile-input work), so a worker gets
/// more than the main thread's 8 MB (address space only until touched).
const WORKER_STACK: usize = 64 << 20;

/// Runs `f` on a pool of `jobs` worker threads (0: one per core), for the
/// batch commands; falls back to the calling thread if no pool can be made.
pub(crate) fn parallel<R: Send>(jobs: usize, f: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .stack_size(WORKER_STACK)
        .build();
    match pool {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}
