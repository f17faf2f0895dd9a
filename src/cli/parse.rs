//! `symalias parse` and `symalias simplify`: expressions in (text lines or
//! FORMATS.md §4 JSONL), one result line per input line out.

use super::{input, EXIT_BAD_INPUT};
use crate::env::Env;
use crate::expr::{ExprId, ExprPool};
use crate::io::{load_env, load_expr, parse_line, ExprCase, ExprResult};
use crate::simplify::{simplify, SimplifyOptions};
use std::io::Write;
use std::time::Instant;

/// Arguments of `symalias parse`.
#[derive(Debug, clap::Args)]
pub struct ParseArgs {
    /// Input file, or `-` for standard input. Each non-blank line is either an
    /// expression (text mode) or a JSON expression case (FORMATS.md §4).
    #[arg(default_value = "-")]
    pub input: String,
    /// How to read lines: `auto` treats a line starting with `{` as JSON.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// Worker threads (0: one per core); output stays in input order.
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
}

/// Input line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON if the line starts with `{`, else expression text.
    Auto,
    /// Expression text, one per line.
    Text,
    /// FORMATS.md §4 expression cases, one per line.
    Jsonl,
}

/// What to do with each expression.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// Print it normalised.
    Parse,
    /// Simplify it under the case's facts (`true`: report the runner's
    /// iterations on stderr).
    Simplify(SimplifyOptions, bool),
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Parse => "parse",
            Mode::Simplify(..) => "simplify",
        }
    }

    /// The output expression and, with `--explain`, the rewrite chain; the
    /// `--report` lines go to `err`.
    fn apply(
        self,
        pool: &mut ExprPool,
        env: &Env,
        e: ExprId,
        err: &mut String,
    ) -> (ExprId, Option<String>) {
        use std::fmt::Write as _;
        match self {
            Mode::Parse => (e, None),
            Mode::Simplify(opts, report) => {
                let s = simplify(pool, env, e, &opts);
                if report {
                    let _ = writeln!(
                        err,
                        "simplify: size {} -> {}, stopped: {}",
                        s.size_in, s.size_out, s.stop
                    );
                    for (i, it) in s.iterations.iter().enumerate() {
                        let mut applied = it.applied.clone();
                        applied.sort();
                        let applied: Vec<String> =
                            applied.iter().map(|(r, n)| format!("{r}×{n}")).collect();
                        let _ = writeln!(
                            err,
                            "  iteration {i}: {} e-nodes, {} e-classes; {}",
                            it.nodes,
                            it.classes,
                            applied.join(" ")
                        );
                    }
                }
                (s.expr, s.explanation)
            }
        }
    }
}

/// Runs `symalias parse` or `symalias simplify`; returns the exit code.
pub fn run(args: ParseArgs, mode: Mode) -> u8 {
    let mut reader = match input::LineReader::open(&args.input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let mut failed = 0usize;
    // Every non-blank line, answered in parallel a chunk at a time (each
    // line renders into its own buffers), written in input order; a line
    // that is not text gets an error and the others are still answered.
    let answer = |(lineno, line): &(usize, input::OwnedLine)| {
        let line = match line {
            Ok(l) => l.as_str(),
            Err(why) => {
                // One output line per input line: an error line in JSON
                // Lines, a blank line in text mode.
                let mut out = Vec::new();
                let err = input::unreadable(*lineno, why);
                if args.format == Format::Jsonl {
                    input::write_error(&mut out, *lineno, None, &err);
                } else {
                    out.push(b'\n');
                }
                return (false, out, format!("error: {err}\n"));
            }
        };
        let json = match args.format {
            Format::Auto => line.trim_start().starts_with('{'),
            Format::Text => false,
            Format::Jsonl => true,
        };
        let (mut out, mut err) = (Vec::new(), String::new());
        let ok = input::catching(*lineno, || {
            Ok(if json {
                parse_case(*lineno, line, mode, &mut out, &mut err)
            } else {
                parse_text(*lineno, line, mode, &mut out, &mut err)
            })
        });
        match ok {
            Ok(ok) => (ok, out, err),
            Err(e) => {
                let mut out = Vec::new();
                if json {
                    input::write_error(&mut out, *lineno, None, &e);
                } else {
                    out.push(b'\n');
                }
                (false, out, format!("error: {e}\n"))
            }
        }
    };
    let workers = super::Workers::new(args.jobs);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    input::stream(
        &mut reader,
        Vec::new(),
        &workers,
        answer,
        |(ok, text, err): (bool, Vec<u8>, String)| {
            let _ = out.write_all(&text);
            if !err.is_empty() {
                eprint!("{err}");
            }
            failed += usize::from(!ok);
        },
    );
    let _ = out.flush();
    if failed > 0 {
        eprintln!("symalias {}: {failed} line(s) had errors", mode.name());
        EXIT_BAD_INPUT
    } else {
        0
    }
}

fn parse_text(
    lineno: usize,
    line: &str,
    mode: Mode,
    out: &mut impl Write,
    err_out: &mut String,
) -> bool {
    let mut pool = ExprPool::new();
    match crate::expr::parse(&mut pool, line) {
        Ok(e) => {
            let (r, explain) = mode.apply(&mut pool, &Env::new(), e, err_out);
            let _ = writeln!(out, "{}", pool.display(r));
            if let Some(chain) = explain {
                for step in chain.lines() {
                    let _ = writeln!(out, "  {step}");
                }
            }
            true
        }
        Err(err) => {
            use std::fmt::Write as _;
            let _ = writeln!(
                err_out,
                "error: line {lineno}: `{}`: {err}",
                crate::io::abbrev(line.trim())
            );
            // Keep one output line per input line.
            let _ = writeln!(out);
            false
        }
    }
}

fn parse_case(
    lineno: usize,
    line: &str,
    mode: Mode,
    out: &mut impl Write,
    err_out: &mut String,
) -> bool {
    let start = Instant::now();
    let parsed = parse_line::<ExprCase>(lineno, line);
    let id = parsed.id.clone();
    let result = parsed.value.and_then(|case| {
        let mut loaded =
            load_env(&case.symbols, &case.assumptions).map_err(|e| e.at(lineno, id.as_deref()))?;
        let e = load_expr(&mut loaded, "expr", &case.expr, false)
            .map_err(|e| e.at(lineno, id.as_deref()))?;
        let (r, explain) = mode.apply(&mut loaded.pool, &loaded.env, e, err_out);
        Ok(ExprResult {
            id: case.id.clone(),
            expr: loaded.pool.display(r).to_string(),
            size_in: loaded.pool.tree_size(e),
            size_out: loaded.pool.tree_size(r),
            micros: start.elapsed().as_micros() as u64,
            explain: explain.map(|c| c.lines().map(str::to_string).collect()),
        })
    });
    match result {
        Ok(r) => {
            super::input::write_json(out, &r);
            true
        }
        Err(err) => {
            use std::fmt::Write as _;
            let _ = writeln!(err_out, "error: {err}");
            super::input::write_error(out, lineno, id, &err);
            false
        }
    }
}
