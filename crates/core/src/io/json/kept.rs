//! Records read for what the features show of them (the tables, export): the caps of
//! [`parse_record`] applied, a container past them kept as its exact JSON text under a key no
//! record has, and written back as that text wherever the value is written as JSON.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{parse_capped, parse_capped_at, repair_surrogates};

/// The key of the object that stands for a container kept as its JSON text by [`parse_kept`].
/// A record's own object with this member is kept as its text too, so the object
/// `{KEPT_KEY: TEXT}` never stands for anything else.
pub const KEPT_KEY: &str = "\u{0}cctool:json";

/// A record's JSON, its lone surrogates repaired when it cannot be read as written; `None`
/// when it is not JSON. As `serde_json::from_slice::<Value>`, except that an array or object
/// past [`KEEP_ELEMENTS`](super::KEEP_ELEMENTS) elements or [`KEEP_DEPTH`](super::KEEP_DEPTH)
/// levels is kept as its text (see [`kept_text`]), so what a record takes stays in proportion
/// to its bytes; [`Json`] writes it back as it was written.
pub fn parse_kept(bytes: &[u8]) -> Option<Value> {
    parse_capped(bytes, KEPT_KEY).or_else(|| repair_surrogates(bytes).and_then(|b| parse_capped(&b, KEPT_KEY)))
}

/// A JSON text (a tool's arguments written as a string) read as [`parse_kept`] reads a
/// record, without the repair of lone surrogates; `None` when it is not JSON.
pub fn parse_kept_text(text: &str) -> Option<Value> {
    parse_kept_exact(text.as_bytes())
}

/// JSON read as [`parse_kept`] reads a record, without the repair of lone surrogates.
pub fn parse_kept_exact(bytes: &[u8]) -> Option<Value> {
    parse_capped(bytes, KEPT_KEY)
}

/// A value found `depth` levels down in a record (the record is level 1), read as
/// [`parse_kept_exact`] reads it as part of the whole record: the caps are counted from the
/// record. A reader that keeps a record's members as their bytes reads one of them with it.
pub fn parse_kept_exact_at(bytes: &[u8], depth: usize) -> Option<Value> {
    parse_capped_at(bytes, depth, KEPT_KEY)
}

/// The value that stands for the container written as `text`, as [`parse_kept`] keeps it.
pub fn kept(text: String) -> Value {
    let mut m = serde_json::Map::new();
    m.insert(KEPT_KEY.into(), Value::String(text));
    Value::Object(m)
}

/// Hands each member of the JSON object `text` to `f` as it is read, its value as written,
/// never holding them all: false when `text` is not an object.
pub fn for_each_member<'de>(text: &'de str, f: impl FnMut(String, &'de RawValue)) -> bool {
    struct Each<F>(F);
    impl<'de, F: FnMut(String, &'de RawValue)> Visitor<'de> for Each<F> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
            while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                (self.0)(k, v);
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(Each(f)).is_ok() && de.end().is_ok()
}

/// Whether serde_json reads `bytes` as a value: whether they nest no deeper than
/// [`SERDE_MAX_DEPTH`](super::SERDE_MAX_DEPTH). What read records with serde_json before the
/// caps keeps leaving out (or reading as text) what it could not read.
pub fn serde_reads(bytes: &[u8]) -> bool {
    super::nesting_depth(bytes) <= super::SERDE_MAX_DEPTH
}

/// The JSON text of a container [`parse_kept`] kept as text.
pub fn kept_text(v: &Value) -> Option<&str> {
    match v {
        Value::Object(m) if m.len() == 1 => m.get(KEPT_KEY)?.as_str(),
        _ => None,
    }
}

/// A value written as JSON, each container kept as text written as that text (compact, as
/// written, also inside pretty output).
pub struct Json<'a>(pub &'a Value);

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some(text) = kept_text(self.0) {
            return match RawValue::from_string(text.to_string()) {
                Ok(raw) => raw.serialize(s),
                Err(_) => self.0.serialize(s),
            };
        }
        match self.0 {
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(&Json(i))?;
                }
                seq.end()
            }
            Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &Json(v))?;
                }
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

/// `v` as compact JSON text, as `v.to_string()` writes it (a kept container as its text).
pub fn to_json(v: &Value) -> String {
    serde_json::to_string(&Json(v)).unwrap_or_default()
}

/// `v` as pretty JSON text, as `serde_json::to_string_pretty` writes it (a kept container as
/// its text, as written).
pub fn to_json_pretty(v: &Value) -> String {
    serde_json::to_string_pretty(&Json(v)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(n: usize) -> String {
        format!("[{}]", vec!["1"; n].join(","))
    }

    /// Below the caps a record reads and writes exactly as serde_json's own value does.
    #[test]
    fn below_the_caps_nothing_changes() {
        let text = r#"{"a":[1,{"b":"c\u0000"}],"d":{"_raw":"x"},"e":null,"f":1.5}"#;
        let v = parse_kept(text.as_bytes()).unwrap();
        assert_eq!(v, serde_json::from_str::<Value>(text).unwrap());
        assert_eq!(to_json(&v), v.to_string());
        assert_eq!(to_json_pretty(&v), serde_json::to_string_pretty(&v).unwrap());
        assert_eq!(parse_kept(b"not json"), None);
    }

    /// A container past the caps is kept as its text, and written back as that text.
    #[test]
    fn a_wide_container_is_written_as_it_was_written() {
        let big = wide(super::super::KEEP_ELEMENTS + 1);
        let text = format!(r#"{{"a":{big},"b":[1, 2]}}"#);
        let v = parse_kept(text.as_bytes()).unwrap();
        assert_eq!(kept_text(&v["a"]), Some(big.as_str()));
        assert_eq!(to_json(&v), format!(r#"{{"a":{big},"b":[1,2]}}"#));
        assert!(to_json_pretty(&v).contains(&format!("\"a\": {big},")));
        let wide_object = format!(
            r#"{{"k":{{{}}}}}"#,
            (0..super::super::KEEP_ELEMENTS + 1)
                .map(|i| format!("\"{i}\":0"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let v = parse_kept(wide_object.as_bytes()).unwrap();
        assert_eq!(to_json(&v), wide_object);
    }

    /// An object of the record that has the key a kept container is written under is kept as
    /// its text too: it is written back as written, never taken for a kept container's text.
    #[test]
    fn the_key_in_a_record_is_kept_as_text() {
        let text = r#"{"a":{"\u0000cctool:json":"[1]"},"b":2}"#;
        let v = parse_kept(text.as_bytes()).unwrap();
        assert_eq!(kept_text(&v["a"]), Some(r#"{"\u0000cctool:json":"[1]"}"#));
        assert_eq!(to_json(&v), text);
    }

    /// A member read on its own at its depth is the one the whole record's reading holds there:
    /// below and past the depth cap, below and past the width cap.
    #[test]
    fn a_member_read_at_its_depth_is_the_records() {
        let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let depth = super::super::KEEP_DEPTH;
        let members = [
            nest(depth - 4),
            nest(depth - 3),
            nest(depth - 2),
            nest(depth + 5),
            wide(super::super::KEEP_ELEMENTS),
            wide(super::super::KEEP_ELEMENTS + 1),
            format!("{{\"w\":{}}}", wide(super::super::KEEP_ELEMENTS + 1)),
            r#"{"a":{"\u0000cctool:json":"[1]"}}"#.to_string(),
            r#""s""#.to_string(),
        ];
        for member in members {
            // The member is level 3 of its record, as a part is of an opencode message.
            let record = format!(r#"{{"info":{{}},"parts":[{member}]}}"#);
            let whole = parse_kept_exact(record.as_bytes()).unwrap();
            let at = parse_kept_exact_at(member.as_bytes(), 3).unwrap();
            assert_eq!(at, whole["parts"][0], "{}", &member[..member.len().min(40)]);
        }
        assert_eq!(parse_kept_exact_at(b"[1,", 3), None);
    }
}
