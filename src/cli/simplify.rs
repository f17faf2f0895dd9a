//! `symalias simplify`: expressions in, simplified expressions out.

use super::parse::{self, Format, Mode, ParseArgs};
use crate::simplify::{Limits, SimplifyOptions};
use std::time::Duration;

/// Arguments of `symalias simplify`.
#[derive(Debug, clap::Args)]
pub struct SimplifyArgs {
    /// Input file, or `-` for standard input. Each non-blank line is either an
    /// expression (text mode: no facts about the symbols) or a JSON expression
    /// case with symbols and assumptions (FORMATS.md §4).
    #[arg(default_value = "-")]
    pub input: String,
    /// How to read lines: `auto` treats a line starting with `{` as JSON.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// Print the rewrite chain from input to result (text: indented lines after
    /// the result; JSONL: an `explain` list).
    #[arg(long)]
    pub explain: bool,
    /// Report the runner on stderr: stop reason, and per iteration the e-graph
    /// size and the rules that fired.
    #[arg(long)]
    pub report: bool,
    /// Worker threads (0: one per core); output stays in input order.
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Rewrite iterations per expression.
    #[arg(long, default_value_t = Limits::default().iterations)]
    pub iter_limit: usize,
    /// Rewrite iterations for polynomials (only `+`, `*`, powers; their
    /// expanded and factored forms are seeded).
    #[arg(long, default_value_t = Limits::default().ring_iterations)]
    pub ring_iter_limit: usize,
    /// E-nodes per expression.
    #[arg(long, default_value_t = Limits::default().nodes)]
    pub node_limit: usize,
    /// Wall-clock backstop per expression, in milliseconds.
    #[arg(long, default_value_t = Limits::default().time.as_millis() as u64)]
    pub time_limit_ms: u64,
}

/// Runs `symalias simplify`; returns the exit code.
pub fn run(args: SimplifyArgs) -> u8 {
    let opts = SimplifyOptions {
        limits: Limits {
            iterations: args.iter_limit,
            ring_iterations: args.ring_iter_limit,
            nodes: args.node_limit,
            time: Duration::from_millis(args.time_limit_ms),
        },
        explain: args.explain,
    };
    parse::run(
        ParseArgs {
            input: args.input,
            format: args.format,
            jobs: args.jobs,
        },
        Mode::Simplify(opts, args.report),
    )
}
