//! Reading a command's input and answering batches: a file path or `-` for
//! standard input; one JSON document or JSON Lines; error lines that keep
//! one answer per input item.

use crate::io::{ErrorLine, InputError};
use std::io::{BufRead, BufReader, Read, Write};

/// Opens `path` (`-` = stdin) as a buffered reader.
pub fn open(path: &str) -> Result<Box<dyn BufRead>, String> {
    if path == "-" {
        return Ok(Box::new(BufReader::new(std::io::stdin())));
    }
    std::fs::File::open(path)
        .map(|f| Box::new(BufReader::new(f)) as Box<dyn BufRead>)
        .map_err(|e| format!("cannot open {path}: {e}"))
}

/// The whole of `path` (`-` = stdin) as text.
pub fn read_all(path: &str) -> Result<String, String> {
    let mut text = String::new();
    open(path)?
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    Ok(text)
}

/// The items of an input that is either one JSON document (possibly over
/// several lines: one item, line 1) or JSON Lines (one item per non-blank
/// line, with its 1-based line number). The flag says which.
pub fn documents(text: &str) -> (bool, Vec<(usize, &str)>) {
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return (true, vec![(1, text)]);
    }
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    (false, lines)
}

/// Reports a bad item: the message on stderr, and an error line in its place
/// on `out`, so that the batch keeps one answer per item.
pub fn error_line(out: &mut impl Write, line: usize, id: Option<String>, err: &InputError) {
    eprintln!("error: {err}");
    write_error(out, line, id, err);
}

/// Writes one answer as a JSON line.
pub fn write_json(out: &mut impl Write, value: &impl serde::Serialize) {
    let text = serde_json::to_string(value).expect("answers serialise");
    let _ = writeln!(out, "{text}");
}

/// Writes the error line of a bad item on `out` (the caller reports it).
pub fn write_error(out: &mut impl Write, line: usize, id: Option<String>, err: &InputError) {
    write_json(
        out,
        &ErrorLine {
            id,
            line,
            error: err.to_string(),
        },
    );
}
