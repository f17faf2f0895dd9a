//! Reading a command's input and answering batches: a file path or `-` for
//! standard input; one JSON document or JSON Lines; error lines that keep
//! one answer per input item.

use crate::io::{ErrorLine, InputError};
use std::io::{Read, Write};

/// The whole of `path` (`-` = stdin) as bytes: a directory is an error
/// (reading one would never end), a leading UTF-8 byte-order mark is dropped.
pub fn read_bytes(path: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    if path == "-" {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
    } else {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot open {path}: {e}"))?;
        if meta.is_dir() {
            return Err(format!("cannot read {path}: it is a directory"));
        }
        let mut f = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
        f.read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {path}: {e}"))?;
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    Ok(bytes)
}

/// A line of the input: its text, or why it is not text.
pub type Line<'a> = Result<&'a str, String>;

/// The non-blank lines of `bytes` with their 1-based numbers; a line that
/// is not UTF-8 is an error item (the other lines are still answered).
pub fn lines(bytes: &[u8]) -> Vec<(usize, Line<'_>)> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| {
            let l = l.strip_suffix(b"\r").unwrap_or(l);
            let text = std::str::from_utf8(l).map_err(|e| {
                format!(
                    "the line is not UTF-8 (invalid byte at column {})",
                    e.valid_up_to() + 1
                )
            });
            (i + 1, text)
        })
        .filter(|(_, l)| l.as_ref().map_or(true, |t| !t.trim().is_empty()))
        .collect()
}

/// The items of an input that is either one JSON document (possibly over
/// several lines: one item, line 1) or JSON Lines (one item per non-blank
/// line, with its 1-based line number). The flag says which.
pub fn documents(bytes: &[u8]) -> (bool, Vec<(usize, Line<'_>)>) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
            return (true, vec![(1, Ok(text))]);
        }
    }
    (false, lines(bytes))
}

/// The error of an unreadable line.
pub fn unreadable(line: usize, why: &str) -> InputError {
    InputError {
        line: Some(line),
        id: None,
        field: None,
        message: why.to_string(),
    }
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
