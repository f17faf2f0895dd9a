//! JSON Lines input: one case per non-blank line, each parsed on its own so
//! that one bad line does not stop the batch.

use super::error::InputError;
use serde::de::DeserializeOwned;
use std::io::BufRead;

/// One line of a JSON Lines input, parsed into `T` or an error naming the line
/// and the field.
#[derive(Debug)]
pub struct JsonLine<T> {
    /// 1-based line number.
    pub line: usize,
    /// The case's `id`, when the line is a JSON object with a string `id`.
    pub id: Option<String>,
    /// The parsed case, or what is wrong with it.
    pub value: Result<T, InputError>,
}

/// Parses one line of JSON into `T`; errors name the line, the id and the field path.
///
/// ```
/// use symalias::io::{parse_line, OverlapCase};
/// let bad = r#"{"id": "x", "tensors": [{"sizes": [2], "strides": ["s0+"]}, {"sizes": [-1.5], "strides": [1]}]}"#;
/// let err = parse_line::<OverlapCase>(3, bad).value.unwrap_err();
/// assert_eq!(err.to_string().split(':').next().unwrap(), "line 3, case \"x\", field `tensors[1].sizes[0]`");
/// ```
pub fn parse_line<T: DeserializeOwned>(line: usize, text: &str) -> JsonLine<T> {
    let raw: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return JsonLine {
                line,
                id: None,
                value: Err(InputError {
                    line: Some(line),
                    id: None,
                    field: None,
                    message: format!("malformed JSON: {e}"),
                }),
            }
        }
    };
    let id = raw.get("id").and_then(|v| match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    });
    let value = serde_path_to_error::deserialize(raw).map_err(|e| {
        let path = e.path().to_string();
        InputError {
            line: Some(line),
            id: id.clone(),
            field: (path != ".").then_some(path),
            message: e.into_inner().to_string(),
        }
    });
    JsonLine { line, id, value }
}

/// Reads JSON Lines from `reader`, skipping blank lines. An unreadable input
/// (I/O error, invalid UTF-8) ends the iteration with an error item.
pub fn read_jsonl<T: DeserializeOwned, R: BufRead>(reader: R) -> impl Iterator<Item = JsonLine<T>> {
    reader.lines().enumerate().filter_map(|(i, l)| match l {
        Ok(text) if text.trim().is_empty() => None,
        Ok(text) => Some(parse_line(i + 1, &text)),
        Err(e) => Some(JsonLine {
            line: i + 1,
            id: None,
            value: Err(InputError {
                line: Some(i + 1),
                id: None,
                field: None,
                message: format!("cannot read input: {e}"),
            }),
        }),
    })
}
