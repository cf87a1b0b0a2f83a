//! Messages and content blocks of the request, kept as written where no rule changes them.
//!
//! A block keeps its JSON text (shared, so copies are cheap), the few fields the pipeline
//! reads, and a rewritten form once a rule changes it. Building and re-serialising a JSON tree
//! for every block cost more than loading the whole transcript.

use std::sync::Arc;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::io::json::LStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    User,
    Assistant,
}

/// One message of the request.
#[derive(Clone, Debug)]
pub(super) struct Msg {
    pub role: Role,
    pub content: Content,
    pub msg_id: Option<String>,
    /// A message the pairing repairs removed stood right before this one.
    pub gap_before: bool,
}

impl Msg {
    pub fn new(role: Role, content: Content) -> Msg {
        Msg {
            role,
            content,
            msg_id: None,
            gap_before: false,
        }
    }

    pub fn user(content: Content) -> Msg {
        Msg::new(Role::User, content)
    }
}

/// A message's content: a plain string, or blocks.
#[derive(Clone, Debug)]
pub(super) enum Content {
    Str(String),
    Blocks(Vec<Block>),
}

impl Content {
    pub fn as_array(&self) -> Option<&Vec<Block>> {
        match self {
            Content::Blocks(b) => Some(b),
            Content::Str(_) => None,
        }
    }
}

/// One content block.
#[derive(Clone, Debug)]
pub(super) struct Block {
    /// The block's JSON text as sent (one allocation, copied once from the row).
    raw: Option<Arc<str>>,
    value: Option<Value>,
    pub ty: String,
    pub text: Option<String>,
    pub id: Option<String>,
    pub name: Option<String>,
    pub tool_use_id: Option<String>,
}

#[derive(Deserialize, Default)]
struct Peek<'a> {
    #[serde(default, borrow, rename = "type")]
    ty: LStr<'a>,
    #[serde(default, borrow)]
    text: LStr<'a>,
    #[serde(default, borrow)]
    id: LStr<'a>,
    #[serde(default, borrow)]
    name: LStr<'a>,
    #[serde(default, borrow)]
    tool_use_id: LStr<'a>,
    /// Top-level members the API does not take, found by the same parse.
    #[serde(default, deserialize_with = "present")]
    cache_control: bool,
    #[serde(default, deserialize_with = "is_false")]
    is_error: bool,
}

/// A member that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

fn is_false<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Value::deserialize(d).map(|v| v == Value::Bool(false))
}

/// The object `raw` without its top-level members named in `drop`, the other members kept as
/// written: a large tool result loses `"is_error":false` without being decoded and encoded
/// again. `None` when `raw` is not an object.
fn without_members(raw: &str, drop: &[&str]) -> Option<String> {
    struct V<'x>(&'x [&'x str]);
    impl<'de> Visitor<'de> for V<'_> {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<String, A::Error> {
            let mut out = String::from("{");
            while let Some(k) = a.next_key::<crate::io::json::Key<'de>>()? {
                let v = a.next_value::<&'de RawValue>()?;
                if self.0.contains(&k.as_ref()) {
                    continue;
                }
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k.as_ref()).map_err(serde::de::Error::custom)?);
                out.push(':');
                out.push_str(v.get());
            }
            out.push('}');
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    serde::Deserializer::deserialize_map(&mut de, V(drop)).ok()
}

fn peek_str(v: LStr<'_>) -> Option<String> {
    v.as_str().map(str::to_string)
}

impl Block {
    /// The block whose JSON text is `raw`, a value of the row as written (valid JSON).
    pub fn from_raw(raw: &RawValue) -> Block {
        // The client sends compact JSON; a block written with spaces (hand-made files, other
        // tools) is minified so that sizes and output match what is sent.
        let r = raw.get();
        // Spacing shows at the first key (`{"type": …`); escaped JSON inside strings further on
        // would give false alarms.
        let head = &r.as_bytes()[..r.len().min(24)];
        let spaced = r.starts_with("{ ") || memchr::memmem::find(head, b"\": ").is_some();
        let minified = spaced
            .then(|| {
                let min = crate::io::json::minify(r.as_bytes());
                std::str::from_utf8(&min)
                    .ok()
                    .and_then(|m| RawValue::from_string(m.to_string()).ok())
            })
            .flatten();
        let r = minified.as_deref().map_or(r, RawValue::get);
        let peek: Peek<'_> = serde_json::from_str(r).unwrap_or_default();
        // What the API does not take is removed (the client never sends it).
        let drop: &[&str] = match (peek.cache_control, peek.is_error) {
            (true, true) => &["cache_control", "is_error"],
            (true, false) => &["cache_control"],
            (false, true) => &["is_error"],
            (false, false) => &[],
        };
        // The members kept are valid JSON as written and each key is written by serde_json,
        // so what is left needs no check; the text is copied once, into the block.
        let kept = (!drop.is_empty()).then(|| without_members(r, drop)).flatten();
        Block {
            ty: peek_str(peek.ty).unwrap_or_default(),
            text: peek_str(peek.text),
            id: peek_str(peek.id),
            name: peek_str(peek.name),
            tool_use_id: peek_str(peek.tool_use_id),
            raw: Some(kept.map_or_else(|| Arc::from(r), Arc::from)),
            value: None,
        }
    }

    pub fn from_value(v: Value) -> Block {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Block {
            ty: s("type").unwrap_or_default(),
            text: s("text"),
            id: s("id"),
            name: s("name"),
            tool_use_id: s("tool_use_id"),
            raw: None,
            value: Some(v),
        }
    }

    pub fn text_block(t: &str) -> Block {
        Block::from_value(json!({"type": "text", "text": t}))
    }

    /// The block as a JSON tree (parsed once, then kept: the caller is about to change it).
    pub fn value_mut(&mut self) -> &mut Value {
        if self.value.is_none() {
            let parsed = self
                .raw
                .as_ref()
                .and_then(|r| serde_json::from_str(r).ok())
                .unwrap_or(Value::Null);
            self.value = Some(parsed);
        }
        self.value.get_or_insert(Value::Null)
    }

    /// Whether `pred` holds of the block's JSON text (as written, or serialised once when the
    /// block was changed).
    pub fn with_json(&self, pred: impl Fn(&str) -> bool) -> bool {
        match (&self.value, &self.raw) {
            (Some(v), _) => pred(&v.to_string()),
            (None, Some(r)) => pred(r),
            (None, None) => false,
        }
    }

    /// The block as a JSON tree, read only.
    pub fn value(&self) -> Value {
        match (&self.value, &self.raw) {
            (Some(v), _) => v.clone(),
            (None, Some(r)) => serde_json::from_str(r).unwrap_or(Value::Null),
            (None, None) => Value::Null,
        }
    }

    /// Replaces the whole block, keeping the fields the pipeline reads in step.
    pub fn replace(&mut self, v: Value) {
        *self = Block::from_value(v);
    }

    pub fn set_text(&mut self, t: String) {
        self.value_mut()["text"] = Value::String(t.clone());
        self.text = Some(t);
    }

    pub fn set_name(&mut self, n: &str) {
        self.value_mut()["name"] = Value::String(n.to_string());
        self.name = Some(n.to_string());
    }

    /// Whether the block's JSON text holds `needle`: a cheap test before a parse.
    pub fn json_contains(&self, needle: &str) -> bool {
        match (&self.value, &self.raw) {
            (Some(v), _) => v.to_string().contains(needle),
            (None, Some(r)) => memchr::memmem::find(r.as_bytes(), needle.as_bytes()).is_some(),
            (None, None) => false,
        }
    }

    pub fn write_json(&self, out: &mut String) {
        match (&self.value, &self.raw) {
            (Some(v), _) => out.push_str(&v.to_string()),
            (None, Some(r)) => out.push_str(r),
            (None, None) => out.push_str("null"),
        }
    }

    fn json_len(&self) -> usize {
        match (&self.value, &self.raw) {
            (Some(v), _) => json_len(v),
            (None, Some(r)) => r.len(),
            (None, None) => 4,
        }
    }
}

impl PartialEq for Block {
    fn eq(&self, other: &Block) -> bool {
        let (mut a, mut b) = (String::new(), String::new());
        self.write_json(&mut a);
        other.write_json(&mut b);
        a == b
    }
}

pub(super) fn block_type(b: &Block) -> &str {
    &b.ty
}

pub(super) fn is_thinking(b: &Block) -> bool {
    matches!(block_type(b), "thinking" | "redacted_thinking")
}

pub(super) fn text_of(b: &Block) -> Option<&str> {
    (block_type(b) == "text").then(|| b.text.as_deref().unwrap_or(""))
}

pub(super) fn blocks(content: &Content) -> Vec<Block> {
    match content {
        Content::Str(s) => vec![Block::text_block(s)],
        Content::Blocks(a) => a.clone(),
    }
}

/// Counts bytes written.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn json_len<T: serde::Serialize>(v: &T) -> usize {
    let mut c = Counter(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// The length of [`msg_json`] without building it.
pub(super) fn msg_json_len(m: &Msg) -> usize {
    let head = match m.role {
        Role::User => r#"{"role":"user","content":"#.len(),
        Role::Assistant => r#"{"role":"assistant","content":"#.len(),
    };
    let body = match &m.content {
        Content::Str(s) => json_len(s),
        Content::Blocks(b) => 2 + b.len().saturating_sub(1) + b.iter().map(Block::json_len).sum::<usize>(),
    };
    head + body + 1
}

/// A message as the JSON the client sends.
pub(super) fn msg_json(m: &Msg) -> String {
    let mut out = String::from(match m.role {
        Role::User => r#"{"role":"user","content":"#,
        Role::Assistant => r#"{"role":"assistant","content":"#,
    });
    match &m.content {
        Content::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
        Content::Blocks(b) => {
            out.push('[');
            for (i, block) in b.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                block.write_json(&mut out);
            }
            out.push(']');
        }
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request's size is counted without writing it: the count must be the length of
    /// what is written, for every kind of content and block.
    #[test]
    fn the_counted_length_is_the_written_length() {
        let raw = |s: &str| Block::from_raw(&RawValue::from_string(s.to_string()).unwrap());
        let mut changed = raw(r#"{"type":"text","text":"a"}"#);
        changed.set_text("caf\u{e9} \"quoted\"\n\u{1}".into());
        let blocks = vec![
            raw(r#"{"type":"tool_result","tool_use_id":"t","content":"x\u00e9\n","is_error":false}"#),
            raw(r#"{ "type": "text", "text": "spaced" }"#),
            Block::text_block("\u{7f}\u{2028}</script>\\"),
            changed,
            Block::from_value(json!({"type": "tool_use", "id": "x", "name": "n", "input": {"n": 1.5e300, "s": [null, true]}})),
        ];
        let msgs = [
            Msg::user(Content::Str("plain".into())),
            Msg::user(Content::Str("caf\u{e9}\t\"\u{0}\u{1f}".into())),
            Msg::new(Role::Assistant, Content::Blocks(blocks)),
            Msg::new(Role::Assistant, Content::Blocks(Vec::new())),
        ];
        for m in &msgs {
            assert_eq!(msg_json_len(m), msg_json(m).len(), "{}", msg_json(m));
        }
    }

    #[test]
    fn unsent_members_are_cut_from_the_block_as_written() {
        let raw = |s: &str| RawValue::from_string(s.to_string()).unwrap();
        let b = Block::from_raw(&raw(
            r#"{"type":"tool_result","tool_use_id":"t","content":"caf\u00e9 {\"is_error\":false}","is_error":false,"cache_control":null}"#,
        ));
        // Only the top-level members go; everything else keeps its bytes (escapes included).
        assert_eq!(
            &**b.raw.as_ref().unwrap(),
            r#"{"type":"tool_result","tool_use_id":"t","content":"caf\u00e9 {\"is_error\":false}"}"#
        );
        assert!(b.value.is_none(), "no JSON tree is built");
        let failed = Block::from_raw(&raw(
            r#"{"type":"tool_result","tool_use_id":"t","content":"x","is_error":true}"#,
        ));
        assert_eq!(
            &**failed.raw.as_ref().unwrap(),
            r#"{"type":"tool_result","tool_use_id":"t","content":"x","is_error":true}"#
        );
    }
}
