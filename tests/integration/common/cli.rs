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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_symalias"));
    cmd.args(args);
    run_command(cmd, stdin)
}

/// [`run`] ahead of the rest of the machine: the child asks for priority
/// -10 (the test suite and a wheel build share the machine; without the
/// right to raise it, the child runs at the normal priority).
pub fn run_ahead(args: &[&str], stdin: &str) -> Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_symalias"));
    cmd.args(args);
    // SAFETY: setpriority is async-signal-safe; its failure is ignored.
    unsafe {
        cmd.pre_exec(|| {
            libc::setpriority(libc::PRIO_PROCESS, 0, -10);
            Ok(())
        });
    }
    run_command(cmd, stdin)
}

fn run_command(mut cmd: Command, stdin: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run symalias");
    // The command streams: it answers a chunk of lines before it has read
    // the rest, so the input is written from a thread of its own while the
    // output is read (writing it all first would fill the output pipe).
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || {
        // A command that stops reading early closes the pipe: not an error here.
        let _ = input.write_all(text.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}
