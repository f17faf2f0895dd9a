//! Running the `symalias` binary from a test.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// A wall-clock bound far above any case's or program's time (and the
/// simplifier's backstop), so that only z3's deterministic `rlimit` and the
/// simplifier's node and iteration limits bound the work: at the default
/// 2 s a loaded machine (a clean-clone CI run beside builds) answered
/// `as_strided-56` differently. Output is identical to the default's on an
/// idle machine. For every test that compares output byte for byte.
pub const UNHURRIED: &str = "--time-limit-ms=60000";

/// Runs `symalias` with `args`, `stdin` on its standard input.
pub fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_symalias"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run symalias");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}
