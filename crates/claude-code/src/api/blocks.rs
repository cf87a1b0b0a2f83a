//! Messages and content blocks of the request, kept as written where no rule changes them.
//!
//! A block keeps its JSON text (shared, so copies are cheap), the few fields the pipeline
//! reads, and a rewritten form once a rule changes it. Building and re-serialising a JSON tree
//! for every block cost more than loading the whole transcript.

use cctool_core::io::json::json_len;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::io::json::{Key, LStr};

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

#[derive(Deserialize, Default, Clone)]
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

/// A block's top-level members in order, each key with its value's JSON text as written,
/// and its [`Peek`], from one parse (the values of large tool results are skipped once, not
/// once for the peek and once more for the cut). `text` is read as a string only, never kept
/// as written (it is most of a text block, and text blocks are seldom cut). `Err(false)`:
/// the block is not an object (or not JSON); `Err(true)`: the block is an object whose peek
/// this parse does not settle the way the derived [`Peek`] does (a field written twice, an
/// array or object where a field's string is read), left to [`Peek`]'s own parse.
#[allow(clippy::type_complexity)]
fn members_and_peek(raw: &str) -> Result<(Vec<(Key<'_>, Option<&RawValue>)>, Peek<'_>), bool> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Result<(Vec<(Key<'de>, Option<&'de RawValue>)>, Peek<'de>), ()>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            let mut peek = Peek::default();
            let (mut seen, mut settled) = (0u8, true);
            while let Some(k) = a.next_key::<Key<'de>>()? {
                let bit = match k.as_ref() {
                    "type" => 1,
                    "text" => 2,
                    "id" => 4,
                    "name" => 8,
                    "tool_use_id" => 16,
                    "cache_control" => 32,
                    "is_error" => 64,
                    _ => 0,
                };
                settled &= seen & bit == 0;
                seen |= bit;
                if bit == 2 {
                    peek.text = a.next_value()?;
                    out.push((k, None));
                    continue;
                }
                let v = a.next_value::<&'de RawValue>()?;
                // A field's scalar reads alike on its own; a nested value could meet the
                // depth limit at another depth than inside the block, so it is not read here.
                let scalar = !v.get().starts_with(['[', '{']);
                let mut field = || match scalar.then(|| serde_json::from_str::<LStr<'de>>(v.get())) {
                    Some(Ok(x)) => x,
                    _ => {
                        settled = false;
                        LStr::Absent
                    }
                };
                match bit {
                    1 => peek.ty = field(),
                    4 => peek.id = field(),
                    8 => peek.name = field(),
                    16 => peek.tool_use_id = field(),
                    32 => peek.cache_control = true,
                    64 => {
                        settled &= scalar;
                        match serde_json::from_str::<Value>(v.get()) {
                            Ok(x) => peek.is_error = x == Value::Bool(false),
                            Err(_) => settled = false,
                        }
                    }
                    _ => {}
                }
                out.push((k, Some(v)));
            }
            Ok(if settled { Ok((out, peek)) } else { Err(()) })
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    match serde::Deserializer::deserialize_map(&mut de, V) {
        Ok(Ok(m)) => Ok(m),
        Ok(Err(())) => Err(true),
        Err(_) => Err(false),
    }
}

/// The object `raw` without its top-level members named in `drop`, the other members kept as
/// written: a large tool result loses `"is_error":false` without being decoded and encoded
/// again. `None` when `raw` is not an object.
fn without_members(raw: &str, drop: &[&str]) -> Option<String> {
    struct V<'x>(&'x [&'x str]);
    impl<'de> Visitor<'de> for V<'_> {
        type Value = Vec<(Key<'de>, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(k) = a.next_key::<Key<'de>>()? {
                let v = a.next_value::<&'de RawValue>()?;
                if !self.0.contains(&k.as_ref()) {
                    out.push((k, v));
                }
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    let kept = serde::Deserializer::deserialize_map(&mut de, V(drop)).ok()?;
    Some(write_members(kept.iter().map(|(k, v)| (k.as_ref(), v.get()))))
}

/// `{` the members `"key":value` `}`, each key written by serde_json, each value as given.
fn write_members<'x>(members: impl Iterator<Item = (&'x str, &'x str)>) -> String {
    let mut out = String::from("{");
    for (k, v) in members {
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap_or_default());
        out.push(':');
        out.push_str(v);
    }
    out.push('}');
    out
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
        let one_pass = members_and_peek(r);
        let peek = match &one_pass {
            Ok((_, peek)) => peek.clone(),
            Err(true) => serde_json::from_str(r).unwrap_or_default(),
            Err(false) => Peek::default(),
        };
        // What the API does not take is removed (the client never sends it).
        let drop: &[&str] = match (peek.cache_control, peek.is_error) {
            (true, true) => &["cache_control", "is_error"],
            (true, false) => &["cache_control"],
            (false, true) => &["is_error"],
            (false, false) => &[],
        };
        // The members kept are valid JSON as written and each key is written by serde_json,
        // so what is left needs no check; the text is copied once, into the block.
        let kept = match &one_pass {
            _ if drop.is_empty() => None,
            // Every member kept was read as written (`text`, read as a string only, is not).
            Ok((members, _)) if members.iter().all(|(k, v)| v.is_some() || drop.contains(&k.as_ref())) => {
                Some(write_members(
                    members
                        .iter()
                        .filter(|(k, _)| !drop.contains(&k.as_ref()))
                        .filter_map(|(k, v)| Some((k.as_ref(), (*v)?.get()))),
                ))
            }
            _ => without_members(r, drop),
        };
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

    /// A block's type, text, id, name, tool_use_id and JSON text.
    type Made = (
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        String,
    );

    /// What `from_raw` made of a block with two parses, the peek and then the cut: the one
    /// pass must make the same block of anything.
    fn two_parses(raw: &str) -> Made {
        let peek: Peek<'_> = serde_json::from_str(raw).unwrap_or_default();
        let drop: &[&str] = match (peek.cache_control, peek.is_error) {
            (true, true) => &["cache_control", "is_error"],
            (true, false) => &["cache_control"],
            (false, true) => &["is_error"],
            (false, false) => &[],
        };
        let kept = (!drop.is_empty()).then(|| without_members(raw, drop)).flatten();
        (
            peek_str(peek.ty).unwrap_or_default(),
            peek_str(peek.text),
            peek_str(peek.id),
            peek_str(peek.name),
            peek_str(peek.tool_use_id),
            kept.unwrap_or_else(|| raw.to_string()),
        )
    }

    fn one_pass(raw: &RawValue) -> Made {
        let b = Block::from_raw(raw);
        (b.ty, b.text, b.id, b.name, b.tool_use_id, b.raw.unwrap().to_string())
    }

    #[test]
    fn one_pass_over_a_block_reads_it_as_two_parses_did() {
        let members: &[&str] = &[
            r#""type":"tool_result""#,
            r#""type":"text""#,
            r#""type":1e400"#,
            r#""type":null"#,
            r#""type":["text"]"#,
            r#""t\u0079pe":"thinking""#,
            r#""text":"caf\u00e9 \"q\"""#,
            r#""text":{"a":[1,{"b":null}]}"#,
            r#""text":1e400"#,
            r#""text":"\ud800""#,
            r#""id":"x""#,
            r#""id":12"#,
            r#""name":"Bash""#,
            r#""tool_use_id":"t1""#,
            r#""tool_use_id":{"x":1}"#,
            r#""content":"big \n\"is_error\":false""#,
            r#""content":[{"type":"text","text":"x","is_error":false}]"#,
            r#""is_error":false"#,
            r#""is_error":true"#,
            r#""is_error":null"#,
            r#""is_error":"false""#,
            r#""is_error":1e400"#,
            r#""is_error":[false]"#,
            r#""is_\u0065rror":false"#,
            r#""cache_control":{"type":"ephemeral"}"#,
            r#""cache_control":null"#,
            r#""input":{"cmd":"ls","n":1.5}"#,
            r#""signature":"s""#,
        ];
        let mut r = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            r
        };
        let mut checked = 0;
        for round in 0..20_000 {
            let n = (next() % 6) as usize;
            let picked: Vec<&str> = (0..n)
                .map(|_| members[(next() % members.len() as u64) as usize])
                .collect();
            let text = match round % 50 {
                0 => format!("[{}]", picked.join(",")),
                1 => "\"a string block\"".to_string(),
                2 => format!("{{ {} }}", picked.join(" , ")),
                _ => format!("{{{}}}", picked.join(",")),
            };
            // Only what the row's parse hands on: valid JSON.
            let Ok(raw) = RawValue::from_string(text.clone()) else {
                continue;
            };
            let spaced = text.starts_with("{ ");
            let want = if spaced {
                let min = String::from_utf8(crate::io::json::minify(text.as_bytes())).unwrap();
                two_parses(&min)
            } else {
                two_parses(&text)
            };
            assert_eq!(one_pass(&raw), want, "{text}");
            checked += 1;
        }
        assert!(checked > 15_000, "{checked}");
        // Every content block of the fixtures.
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures");
        let mut stack = vec![root];
        let mut blocks = 0;
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().is_none_or(|x| x != "jsonl") {
                    continue;
                }
                for line in std::fs::read_to_string(&p).unwrap_or_default().lines() {
                    #[derive(Deserialize)]
                    struct Row<'a> {
                        #[serde(borrow)]
                        message: Option<Msg<'a>>,
                    }
                    #[derive(Deserialize)]
                    struct Msg<'a> {
                        #[serde(borrow)]
                        content: Option<Vec<&'a RawValue>>,
                    }
                    let Ok(Row {
                        message: Some(Msg { content: Some(content) }),
                    }) = serde_json::from_str::<Row<'_>>(line)
                    else {
                        continue;
                    };
                    for b in content {
                        if !b.get().starts_with("{ ") && memchr::memmem::find(b.get().as_bytes(), b"\": ").is_none() {
                            assert_eq!(one_pass(b), two_parses(b.get()), "{}: {}", p.display(), b.get());
                            blocks += 1;
                        }
                    }
                }
            }
        }
        assert!(blocks > 500, "{blocks}");
    }

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
            Block::from_value(
                json!({"type": "tool_use", "id": "x", "name": "n", "input": {"n": 1.5e300, "s": [null, true]}}),
            ),
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
