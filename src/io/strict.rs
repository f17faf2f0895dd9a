//! JSON read strictly: an object that gives one key twice is an error
//! (`serde_json::Value` keeps the last one silently; a result whose
//! `"guards"` is given twice would be checked against the list the reader
//! did not mean).

use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// A JSON value whose objects have no repeated key, at any depth.
#[derive(Clone, Debug, PartialEq)]
pub struct Strict(pub Value);

/// Parses `text` as JSON, rejecting a repeated key in any object.
pub fn from_str(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

/// Parses `bytes` as JSON, rejecting a repeated key in any object.
pub fn from_slice(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice::<Strict>(bytes).map(|s| s.0)
}

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(A::Error::custom(format!(
                    "key `{}` is given twice",
                    super::error::abbrev(&key)
                )));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_an_error_at_any_depth() {
        assert!(from_str(r#"{"a": 1, "b": [{"c": 2}]}"#).is_ok());
        let top = from_str(r#"{"guards": [], "guards": [1]}"#).unwrap_err();
        assert!(
            top.to_string().contains("key `guards` is given twice"),
            "{top}"
        );
        assert!(from_str(r#"{"a": [{"x": 1, "x": 1}]}"#).is_err());
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text =
            r#"{"n": -3, "u": 18446744073709551615, "f": 1.5, "s": "t", "z": null, "l": [true]}"#;
        assert_eq!(
            from_str(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
    }
}
