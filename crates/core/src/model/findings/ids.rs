//! The tool call and result ids of one record, read for the pairing check without building
//! the record as a tree.
//!
//! The check used to parse each line holding a tool id into a `serde_json::Value` and read
//! a few fields of it: most of `doctor`'s time went to allocating every string, object and
//! array of records that are mostly tool input and output. [`Row`] reads the same fields and
//! visits every other value with [`Checked`], which asks serde_json for each value as a
//! `Value` would (`deserialize_any`, keys as strings) and keeps nothing: a line is accepted
//! exactly when it parses as a `Value` (invalid UTF-8, a lone surrogate, a number out of
//! range or nesting past serde_json's limit fail both), so the findings do not change. A
//! repeated key takes its last value, and a field of another type reads as absent, as
//! `Value::get(…).and_then(Value::as_str)` does.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::io::json::Key;

/// What the pairing check reads of a record: its own `type` and `call_id` (a Codex item
/// written bare), the same of its `payload` (a Codex envelope), and the blocks of
/// `message.content` (Claude Code).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// The record's own `type` and `call_id`.
    pub item: Fields,
    /// Present (an object or not) when the record has a `payload`.
    pub payload: Option<Fields>,
    /// `message.content` when it is an array.
    pub message_content: Option<Vec<Block>>,
}

/// A record's (or its payload's) `type` and `call_id`, when they are strings.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// `type`.
    pub ty: Option<String>,
    /// `call_id`.
    pub call_id: Option<String>,
}

/// A block of `message.content`: its `type`, `id` (a call) and `tool_use_id` (a result).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// `type`.
    pub ty: Option<String>,
    /// `id`: the call's, on a `tool_use`.
    pub id: Option<String>,
    /// `tool_use_id`: the call a `tool_result` answers.
    pub tool_use_id: Option<String>,
}

/// Any JSON value, read and dropped.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_none<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
        while a.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
        while a.next_key::<Key<'de>>()?.is_some() {
            a.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
}

/// A string, or None for any other value (read and dropped).
struct Text(Option<String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text(Some(v.to_owned())))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Text, A::Error> {
                CheckedVisitor.visit_seq(a).map(|_| Text(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Text, A::Error> {
                CheckedVisitor.visit_map(a).map(|_| Text(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Implements `Deserialize` for a type read from an object by `$fields` (key, value access),
/// every other JSON value giving the default, read and dropped.
macro_rules! object_or_default {
    ($ty:ty, |$out:ident, $key:ident, $map:ident| $body:block) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("any JSON value")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut $map: A) -> Result<$ty, A::Error> {
                        let mut $out = <$ty>::default();
                        while let Some($key) = $map.next_key::<Key<'de>>()? {
                            $body
                        }
                        Ok($out)
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<$ty, A::Error> {
                        CheckedVisitor.visit_seq(a).map(|_| <$ty>::default())
                    }
                    fn visit_str<E: de::Error>(self, _: &str) -> Result<$ty, E> {
                        Ok(<$ty>::default())
                    }
                    fn visit_bool<E: de::Error>(self, _: bool) -> Result<$ty, E> {
                        Ok(<$ty>::default())
                    }
                    fn visit_i64<E: de::Error>(self, _: i64) -> Result<$ty, E> {
                        Ok(<$ty>::default())
                    }
                    fn visit_u64<E: de::Error>(self, _: u64) -> Result<$ty, E> {
                        Ok(<$ty>::default())
                    }
                    fn visit_f64<E: de::Error>(self, _: f64) -> Result<$ty, E> {
                        Ok(<$ty>::default())
                    }
                    fn visit_unit<E: de::Error>(self) -> Result<$ty, E> {
                        Ok(<$ty>::default())
                    }
                    fn visit_none<E: de::Error>(self) -> Result<$ty, E> {
                        Ok(<$ty>::default())
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

object_or_default!(Fields, |out, key, map| {
    match key.as_ref() {
        "type" => out.ty = map.next_value::<Text>()?.0,
        "call_id" => out.call_id = map.next_value::<Text>()?.0,
        _ => {
            map.next_value::<Checked>()?;
        }
    }
});

object_or_default!(Block, |out, key, map| {
    match key.as_ref() {
        "type" => out.ty = map.next_value::<Text>()?.0,
        "id" => out.id = map.next_value::<Text>()?.0,
        "tool_use_id" => out.tool_use_id = map.next_value::<Text>()?.0,
        _ => {
            map.next_value::<Checked>()?;
        }
    }
});

/// `content` of a message: its blocks when it is an array.
#[derive(Default)]
struct Content(Option<Vec<Block>>);

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Content, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = a.next_element::<Block>()? {
                    blocks.push(b);
                }
                Ok(Content(Some(blocks)))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Content, A::Error> {
                CheckedVisitor.visit_map(a).map(|_| Content(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
                Ok(Content(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Content, E> {
                Ok(Content(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A message: its `content` blocks.
#[derive(Default)]
struct Message(Option<Vec<Block>>);

object_or_default!(Message, |out, key, map| {
    if key.as_ref() == "content" {
        out.0 = map.next_value::<Content>()?.0;
    } else {
        map.next_value::<Checked>()?;
    }
});

object_or_default!(Row, |out, key, map| {
    match key.as_ref() {
        "type" => out.item.ty = map.next_value::<Text>()?.0,
        "call_id" => out.item.call_id = map.next_value::<Text>()?.0,
        "payload" => out.payload = Some(map.next_value::<Fields>()?),
        "message" => out.message_content = map.next_value::<Message>()?.0,
        _ => {
            map.next_value::<Checked>()?;
        }
    }
});

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::Value;

    use super::*;

    /// The fields as the check read them from a `Value` before.
    pub(crate) fn from_value(v: &Value) -> Row {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let fields = |v: &Value| Fields {
            ty: text(v.get("type")),
            call_id: text(v.get("call_id")),
        };
        Row {
            item: fields(v),
            payload: v.get("payload").map(fields),
            message_content: v
                .get("message")
                .and_then(|m| m.get("content"))
                .and_then(Value::as_array)
                .map(|blocks| {
                    blocks
                        .iter()
                        .map(|b| Block {
                            ty: text(b.get("type")),
                            id: text(b.get("id")),
                            tool_use_id: text(b.get("tool_use_id")),
                        })
                        .collect()
                }),
        }
    }

    fn same(line: &str) {
        let want = serde_json::from_str::<Value>(line).ok().map(|v| from_value(&v));
        let got = serde_json::from_str::<Row>(line).ok();
        assert_eq!(got, want, "{line}");
    }

    #[test]
    fn rows_read_as_values_do() {
        let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
        for line in [
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","input":{"x":[1,2.5,null]}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"ok\n\"q\""}]}}"#,
            r#"{"type":"user","type":3,"message":{"content":[{"tool_use_id":"a","tool_use_id":"b","type":"tool_result"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_use","id":"a"}]},"message":{"content":"text"}}"#,
            r#"{"message":[1],"payload":null,"call_id":"c","type":"function_call"}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","call_id":"c1","arguments":"{}"}}"#,
            r#"{"type":"response_item","payload":"x"}"#,
            r#"{"typ\u0065":"us\u0065r","message":{"content":[1,"a",{"type":"tool_result","tool_use_id":7}]}}"#,
            r#"{"type":"user","n":1e400,"message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}"#,
            r#"{"type":"user","s":"\ud800","message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}"#,
            r#"{"type":"user","s":"\ud83d\ude00","message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}"#,
            r#"{"type":"user","s":"\x","message":{"content":[]}}"#,
            r#"{"type":"user","message":{"content":[]}} trailing"#,
            r#"[{"type":"user"}]"#,
            r#""type""#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a"}]},"#,
        ] {
            same(line);
        }
        same(&format!(
            r#"{{"type":"user","d":{deep},"message":{{"content":[{{"type":"tool_result","tool_use_id":"a"}}]}}}}"#
        ));
        let shallow = format!("{}{}", "[".repeat(100), "]".repeat(100));
        same(&format!(
            r#"{{"type":"user","d":{shallow},"message":{{"content":[{{"type":"tool_result","tool_use_id":"a"}}]}}}}"#
        ));
        // Invalid UTF-8 inside a string that is skipped.
        let mut bytes = br#"{"type":"user","s":"#.to_vec();
        bytes.extend_from_slice(
            b"\"\xff\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"a\"}]}}",
        );
        assert!(serde_json::from_slice::<Value>(&bytes).is_err());
        assert!(serde_json::from_slice::<Row>(&bytes).is_err());
    }
}
