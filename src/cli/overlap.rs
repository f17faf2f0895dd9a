//! `symalias overlap`: one result line per overlap case (FORMATS.md §3).

use super::{input, EXIT_BAD_INPUT};
use crate::analysis::{Analyzer, AnalyzerOptions};
use crate::io::{parse_line, run_overlap_case, InputError, OverlapCase};
use crate::overlap::{ProofOptions, DEFAULT_BUDGET};
use crate::simplify::SimplifyOptions;
use std::io::{IsTerminal, Write};

/// Arguments of `symalias overlap`.
#[derive(Debug, clap::Args)]
pub struct OverlapArgs {
    /// JSON Lines file of overlap cases, or `-` for standard input.
    #[arg(default_value = "-")]
    pub input: String,
    /// Work bound of the exact search, in nodes per pair; a pair that needs more
    /// is reported as overlapping with proof `unknown`.
    #[arg(long, default_value_t = DEFAULT_BUDGET)]
    pub budget: u64,
    /// Answer symbolic cases at the hints only (no proof for all shapes).
    #[arg(long)]
    pub no_prove: bool,
    /// z3 resource limit (rlimit) per query; an exhausted query answers unknown.
    #[arg(long, default_value_t = 20_000)]
    pub rlimit: u32,
    /// Most z3 queries per case.
    #[arg(long, default_value_t = 256)]
    pub max_queries: usize,
    /// z3 resource units (its `rlimit count`) one case's proof may spend
    /// in all its queries: with `--max-queries`, the work bound that
    /// decides how far a proof goes, the same on every machine.
    #[arg(long, default_value_t = ProofOptions::default().work)]
    pub work: u64,
    /// Time bound per case, in milliseconds: a backstop behind the work
    /// bounds, which decide on their own. A running z3 query is
    /// interrupted at it and the case answers by the limit plus ~50 ms;
    /// what is left undecided is guarded, and the answer says
    /// `"time_limit_hit": true` (only such a line may differ between
    /// machines)
    #[arg(long, default_value_t = ProofOptions::default().time_limit.as_millis() as u64)]
    pub time_limit_ms: u64,
    /// Write `micros: 0`, for byte-for-byte reproducible output.
    #[arg(long)]
    pub no_timing: bool,
    /// Worker threads for a batch (0: one per core). Output is in input
    /// order and, with `--no-timing`, byte-identical whatever the number
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Use the expressions as written (do not simplify them under the case's facts first).
    #[arg(long)]
    pub no_simplify: bool,
    /// Overlapping pairs a case lists before it lists only those that join
    /// two components (the others counted in `pairs_left_out`).
    #[arg(long, default_value_t = crate::overlap::PAIR_LIST_CAP)]
    pub max_listed_pairs: usize,
    /// Also draw each case's memory as SVG into this directory, one file
    /// per case (`<line>-<id>.svg`).
    #[arg(long, value_name = "DIR")]
    pub svg: Option<std::path::PathBuf>,
    /// The checker of the guards pins each tensor's layout (sizes, strides,
    /// storage offset, itemsize) and the values symbols are bound from with
    /// guards of its own, as torch's Dynamo does: emit only what those
    /// leave open. Without it every result's list stands alone.
    #[arg(long)]
    pub layouts_pinned: bool,
}

/// Writes `case`'s picture into `dir` as `<line>-<id>.svg`.
pub(super) fn write_picture(
    dir: &std::path::Path,
    lineno: usize,
    case: &OverlapCase,
    result: &crate::io::OverlapResult,
) -> Result<(), InputError> {
    let svg = crate::picture::overlap_svg(case, result)?;
    write_svg(dir, &format!("{lineno:04}-{}", file_name(&case.id)), &svg)
}

/// `text` kept to what a file name may hold.
pub(super) fn file_name(text: &str) -> String {
    let plain: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    if plain == text {
        return plain;
    }
    // Something was replaced or cut: two names that differ only there
    // (`x/y` and `x_y`) must not write one file. A hash of the whole name
    // (FNV-1a, the same on every machine) tells them apart.
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{plain}-{hash:016x}")
}

/// Writes `svg` as `dir/<stem>.svg`; an error names the file.
pub(super) fn write_svg(dir: &std::path::Path, stem: &str, svg: &str) -> Result<(), InputError> {
    let path = dir.join(format!("{stem}.svg"));
    std::fs::write(&path, svg)
        .map_err(|e| InputError::field("--svg", format!("{}: {e}", path.display())))
}

/// Makes `--svg DIR` (when given); a message naming it when it cannot.
pub(super) fn svg_dir(dir: Option<&std::path::Path>) -> Result<(), String> {
    match dir {
        Some(d) => std::fs::create_dir_all(d).map_err(|e| format!("--svg {}: {e}", d.display())),
        None => Ok(()),
    }
}

/// Runs `symalias overlap`; returns the exit code.
pub fn run(args: OverlapArgs) -> u8 {
    let mut reader = match input::LineReader::open(&args.input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    // Every non-blank line is a case; a line that is not text is answered
    // with an error line, and the others still are.
    if let Err(e) = svg_dir(args.svg.as_deref()) {
        eprintln!("error: {e}");
        return EXIT_BAD_INPUT;
    }
    // A bar only for a terminal; its length is not known in advance (the
    // input is streamed), so it counts.
    let progress = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{pos} cases {elapsed_precise}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar
    });
    let opts = AnalyzerOptions {
        budget: args.budget,
        prove: !args.no_prove,
        proof: ProofOptions {
            max_queries: args.max_queries,
            work: args.work,
            budget: args.budget,
            time_limit: std::time::Duration::from_millis(args.time_limit_ms),
            rlimit: args.rlimit,
            ..ProofOptions::default()
        },
        simplify: (!args.no_simplify).then(SimplifyOptions::default),
        max_listed_pairs: args.max_listed_pairs,
        guards: crate::analysis::GuardOptions {
            layouts_pinned: args.layouts_pinned,
        },
        ..AnalyzerOptions::default()
    };
    let mut failed = 0usize;
    // Each case is answered on its own (a fresh analyzer per case: no answer
    // depends on which thread saw which case first), in parallel, a chunk
    // of lines at a time, and written in input order.
    let answer = |(lineno, line): &(usize, input::OwnedLine)| {
        let line = match line {
            Ok(l) => l.as_str(),
            Err(why) => return (*lineno, None, Err(input::unreadable(*lineno, why))),
        };
        let parsed = parse_line::<OverlapCase>(*lineno, line);
        let id = parsed.id.clone();
        let result = input::catching(*lineno, || {
            parsed.value.and_then(|case| {
                let r = run_overlap_case(&case, &mut Analyzer::new(opts), args.no_timing)?;
                if let Some(dir) = &args.svg {
                    write_picture(dir, *lineno, &case, &r)?;
                }
                Ok(r)
            })
        })
        .map_err(|e| e.at(*lineno, id.as_deref()));
        (*lineno, id, result)
    };
    let workers = super::Workers::new(args.jobs);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    input::stream(
        &mut reader,
        Vec::new(),
        &workers,
        answer,
        |(lineno, id, result)| {
            if let Some(bar) = &progress {
                bar.inc(1);
            }
            match result {
                Ok(r) => input::write_json(&mut out, &r),
                Err(err) => {
                    failed += 1;
                    let msg = format!("error: {err}");
                    match &progress {
                        Some(bar) => bar.println(msg),
                        None => eprintln!("{msg}"),
                    }
                    input::write_error(&mut out, lineno, id, &err);
                }
            }
        },
    );
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let _ = out.flush();
    if failed > 0 {
        eprintln!("symalias overlap: {failed} case(s) had errors");
        EXIT_BAD_INPUT
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn names_that_differ_write_different_files() {
        assert_eq!(file_name("plain-name_1.x"), "plain-name_1.x");
        assert_ne!(file_name("x/y"), file_name("x_y"));
        assert_ne!(file_name("x/y"), file_name("x:y"));
        let long = "a".repeat(100);
        assert_ne!(file_name(&long), file_name(&"a".repeat(101)));
        assert!(file_name(&long).len() <= 80 + 17);
    }
}
