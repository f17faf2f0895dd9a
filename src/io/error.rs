//! Input errors that say where: line, case id and field.

use std::fmt;

/// A bad input, located by line (1-based), case id and field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// Line of the JSON Lines input (1-based), when known.
    pub line: Option<usize>,
    /// The case's `id`, when it could be read.
    pub id: Option<String>,
    /// The field path, e.g. `tensors[1].sizes[0]` or `symbols.s0`.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl InputError {
    /// An error about a field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            line: None,
            id: None,
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// The same error, located at a line and case.
    pub fn at(mut self, line: usize, id: Option<&str>) -> Self {
        self.line = Some(line);
        if self.id.is_none() {
            self.id = id.map(str::to_string);
        }
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(l) = self.line {
            write!(f, "line {l}")?;
            sep = ", ";
        }
        // A name quoted in full could be megabytes: each part is
        // abbreviated (the error line's `id` field keeps the whole id).
        if let Some(id) = &self.id {
            write!(f, "{sep}case {:?}", abbrev(id))?;
            sep = ", ";
        }
        if let Some(field) = &self.field {
            write!(f, "{sep}field `{}`", abbrev(field))?;
            sep = ", ";
        }
        if !sep.is_empty() {
            f.write_str(": ")?;
        }
        f.write_str(&cap_message(&self.message))
    }
}

impl std::error::Error for InputError {}

/// Longest message an error prints: one that quotes a huge input keeps its
/// head and says how long it was.
const MAX_MESSAGE: usize = 2000;

/// `text` as an error message: whole up to 2,000 bytes, else its
/// head and its length (a message quoting a 10 MB name must not repeat it;
/// every edge's errors go through here: the CLI's, Python's, the C ABI's).
pub fn cap_message(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_MESSAGE {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = MAX_MESSAGE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}… ({} bytes)", &text[..end], text.len()))
}

/// Input text as quoted in an error: whole up to 80 characters, else its
/// first 60 characters and its length (an error about a 300 KB expression
/// must not repeat it).
pub fn abbrev(text: &str) -> std::borrow::Cow<'_, str> {
    const WHOLE: usize = 80;
    if text.chars().count() <= WHOLE {
        return std::borrow::Cow::Borrowed(text);
    }
    let head: String = text.chars().take(60).collect();
    std::borrow::Cow::Owned(format!("{head}… ({} bytes)", text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_id_field_or_message_is_not_repeated_in_full() {
        let huge = "n".repeat(10 << 20);
        let e = InputError {
            line: Some(3),
            id: Some(huge.clone()),
            field: Some(format!("symbols.{huge}")),
            message: format!("unknown symbol `{huge}`"),
        };
        let text = e.to_string();
        assert!(text.len() < 3000, "{} bytes", text.len());
        assert!(text.starts_with("line 3, case \"nnn"), "{}", &text[..40]);
    }
}
