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
    ExitCode::from(run(std::env::args_os()))
}

/// Runs the command line on `args` (the program's name first) and returns
/// its exit code: what `main` does, for a host that is not its own
/// process's `main` (the Python package's `symalias` command). Bad
/// arguments print clap's message and give its code, never exit.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    init_logging();
    quiet_panics();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    match cli.command {
        Command::Analyze(a) => analyze::run(a),
        Command::CheckGuards(a) => check_guards::run(a),
        Command::Overlap(a) => overlap::run(a),
        Command::Parse(a) => parse::run(a, parse::Mode::Parse),
        Command::Simplify(a) => simplify::run(a),
        Command::Eval(a) => eval::run(a),
    }
}

/// Stack of a batch worker thread: the engine still recurses on deep
/// expressions (bounded depth is the hostile-input work), so a worker gets
/// more than the main thread's 8 MB (address space only until touched).
const WORKER_STACK: usize = 64 << 20;

/// Most worker threads a batch starts, whatever `--jobs` asks: more than a
/// few per core only costs (each has a 64 MB stack reserved; `--jobs 10000`
/// once took a minute to start on one small case).
pub(crate) const MAX_JOBS: usize = 256;

/// The worker threads of a batch command, made once and reused for every
/// chunk of its input.
pub(crate) struct Workers {
    pool: Option<rayon::ThreadPool>,
}

impl Workers {
    /// A pool of `jobs` threads (0: one per core), at most [`MAX_JOBS`] and
    /// at most four per core; falls back to the calling thread if no pool
    /// can be made.
    pub(crate) fn new(jobs: usize) -> Workers {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let jobs = if jobs == 0 { cores } else { jobs };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.min(4 * cores).min(MAX_JOBS))
            .stack_size(WORKER_STACK)
            .build()
            .ok();
        Workers { pool }
    }

    /// Threads in the pool (1 when running on the calling thread).
    pub(crate) fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Runs `f` on the pool.
    pub(crate) fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }
}

/// Prints a panic as one line on stderr (the batch answers the line it
/// happened on with an error line and goes on; no backtrace unless
/// `RUST_BACKTRACE` asks for one).
fn quiet_panics() {
    if std::env::var_os("RUST_BACKTRACE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
        eprintln!("symalias: internal error{at} (a bug; please report the input line)");
    }));
}
