//! Reading a command's input and answering batches: a file path or `-` for
//! standard input; one JSON document or JSON Lines; error lines that keep
//! one answer per input item.

use crate::io::{ErrorLine, InputError};
use std::io::{BufRead, Read, Write};

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

/// The longest line a batch reads (a case is at most `MAX_CASE_TEXT` of
/// expression text; its JSON around that stays far below this): a longer
/// line is skipped to its end and answered with an error, so that one line
/// without an end cannot hold the whole input in memory.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Lines a batch answers at a time, per worker thread: the batch holds one
/// chunk of lines and their answers, never the whole input.
const CHUNK_PER_THREAD: usize = 64;

/// A line of a streamed input: its text, or why it is not text.
pub type OwnedLine = Result<String, String>;

/// The non-blank lines of a file or of standard input, read a chunk at a
/// time (memory bounded by the chunk, not the input).
pub struct LineReader {
    inner: Box<dyn BufRead>,
    lineno: usize,
    started: bool,
    done: bool,
}

impl LineReader {
    /// Opens `path` (`-` = standard input); a directory is an error.
    pub fn open(path: &str) -> Result<LineReader, String> {
        let inner: Box<dyn BufRead> = if path == "-" {
            Box::new(std::io::BufReader::new(std::io::stdin()))
        } else {
            let meta = std::fs::metadata(path).map_err(|e| format!("cannot open {path}: {e}"))?;
            if meta.is_dir() {
                return Err(format!("cannot read {path}: it is a directory"));
            }
            let f = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
            Box::new(std::io::BufReader::with_capacity(1 << 16, f))
        };
        Ok(LineReader {
            inner,
            lineno: 0,
            started: false,
            done: false,
        })
    }

    /// The next line with its 1-based number (blank lines included), or
    /// `None` at the end; an I/O error ends the input with an error item.
    fn next_line(&mut self) -> Option<(usize, OwnedLine)> {
        if self.done {
            return None;
        }
        let mut buf = Vec::new();
        let mut too_long = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    self.lineno += 1;
                    return Some((self.lineno, Err(format!("cannot read the input: {e}"))));
                }
            };
            if chunk.is_empty() {
                self.done = true;
                if buf.is_empty() && !too_long {
                    return None;
                }
                break;
            }
            let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if !too_long {
                if buf.len() + take > MAX_LINE_BYTES {
                    too_long = true;
                    buf = Vec::new();
                } else {
                    buf.extend_from_slice(&chunk[..take]);
                }
            }
            self.inner.consume(take);
            if end {
                break;
            }
        }
        self.lineno += 1;
        if too_long {
            return Some((
                self.lineno,
                Err(format!("the line is longer than {MAX_LINE_BYTES} bytes")),
            ));
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if !self.started {
            self.started = true;
            if buf.starts_with(b"\xEF\xBB\xBF") {
                buf.drain(..3);
            }
        }
        Some((
            self.lineno,
            String::from_utf8(buf).map_err(|e| {
                format!(
                    "the line is not UTF-8 (invalid byte at column {})",
                    e.utf8_error().valid_up_to() + 1
                )
            }),
        ))
    }

    /// Up to `n` next non-blank lines (fewer only at the end of the input).
    pub fn chunk(&mut self, n: usize) -> Vec<(usize, OwnedLine)> {
        let mut out = Vec::with_capacity(n.min(4096));
        while out.len() < n {
            match self.next_line() {
                None => break,
                Some((_, Ok(t))) if t.trim().is_empty() => continue,
                Some(item) => out.push(item),
            }
        }
        out
    }

    /// The rest of the input as bytes (blank lines kept), after `first`
    /// lines already read: for an input that is one document over several
    /// lines.
    pub fn rest_with(&mut self, first: &[(usize, OwnedLine)]) -> Result<Vec<u8>, String> {
        let mut bytes = Vec::new();
        for (_, l) in first {
            bytes.extend_from_slice(l.as_deref().map_err(|e| e.clone())?.as_bytes());
            bytes.push(b'\n');
        }
        self.inner
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read the input: {e}"))?;
        self.done = true;
        Ok(bytes)
    }
}

/// The first items of an input that is one JSON document (possibly over
/// several lines) or JSON Lines, and which it is: JSON Lines when its first
/// non-blank line is a JSON value of its own (then only that line is read
/// here, and the rest is streamed); else the whole input is one item,
/// line 1. A one-line input is a single document.
pub fn first_items(reader: &mut LineReader) -> Result<(bool, Vec<(usize, OwnedLine)>), String> {
    let first = reader.chunk(1);
    let Some((_, Ok(text))) = first.first() else {
        // Empty, or an unreadable first line: answered as lines.
        return Ok((false, first));
    };
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        let second = reader.chunk(1);
        let single = second.is_empty();
        let mut items = first;
        items.extend(second);
        return Ok((single, items));
    }
    let bytes = reader.rest_with(&first)?;
    let (single, items) = documents(&bytes);
    Ok((
        single,
        items
            .into_iter()
            .map(|(n, l)| (n, l.map(str::to_string)))
            .collect(),
    ))
}

/// The message of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs `f` for one batch item; a panic (a bug, never bad input) becomes
/// this item's error, so that every other item is still answered.
pub fn catching<T>(
    line: usize,
    f: impl FnOnce() -> Result<T, InputError>,
) -> Result<T, InputError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(InputError {
            line: Some(line),
            id: None,
            field: None,
            message: format!(
                "internal error: {} (a bug in symalias; the other lines are answered)",
                crate::io::abbrev(&panic_message(p.as_ref()))
            ),
        })
    })
}

/// Answers a streamed input chunk by chunk on `workers`: `answer` runs in
/// parallel on each chunk's items, `emit` receives the answers in input
/// order. Memory holds one chunk, whatever the input's length.
pub fn stream<T: Send>(
    reader: &mut LineReader,
    first: Vec<(usize, OwnedLine)>,
    workers: &super::Workers,
    answer: impl Fn(&(usize, OwnedLine)) -> T + Sync,
    mut emit: impl FnMut(T),
) {
    use rayon::prelude::*;
    let n = CHUNK_PER_THREAD * workers.threads().max(1);
    let mut chunk = first;
    loop {
        if chunk.is_empty() {
            chunk = reader.chunk(n);
            if chunk.is_empty() {
                return;
            }
        }
        let answers: Vec<T> = workers.run(|| chunk.par_iter().map(&answer).collect());
        for a in answers {
            emit(a);
        }
        chunk = Vec::new();
    }
}
