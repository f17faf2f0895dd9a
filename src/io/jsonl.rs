//! JSON Lines input: one case per non-blank line, each parsed on its own so
//! that one bad line does not stop the batch.

use super::error::InputError;
use serde::de::DeserializeOwned;

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
    // One pass straight into `T` (the common case); the slower path through
    // a `Value` only to locate an error by field path.
    match serde_json::from_str::<T>(text) {
        Ok(value) => JsonLine {
            line,
            id: id_of(text),
            value: Ok(value),
        },
        Err(direct) => located(line, text, direct),
    }
}

/// The `id` of a JSON object, if it is a string or a number.
fn id_of(text: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        #[serde(default)]
        id: Option<serde_json::Value>,
    }
    let v: IdOnly = serde_json::from_str(text).ok()?;
    match v.id? {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The error of a line that does not deserialize, with its field path.
fn located<T: DeserializeOwned>(line: usize, text: &str, direct: serde_json::Error) -> JsonLine<T> {
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
    let error = match serde_path_to_error::deserialize::<_, T>(raw) {
        Err(e) => {
            let path = e.path().to_string();
            InputError {
                line: Some(line),
                id: id.clone(),
                field: (path != ".").then_some(path),
                message: e.into_inner().to_string(),
            }
        }
        // Only the text form is wrong (e.g. a key given twice, which a
        // `Value` silently collapses): the direct parser's message.
        Ok(_) => InputError {
            line: Some(line),
            id: id.clone(),
            field: None,
            message: direct.to_string(),
        },
    };
    JsonLine {
        line,
        id,
        value: Err(error),
    }
}
