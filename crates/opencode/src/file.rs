//! An opencode session as `opencode export` prints it, `{info, messages: [{info, parts}]}`:
//! the form sessions are shared in, and the form cctool reads a session of the database in
//! ([`crate::db::export`]), so both are read by one reader.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::io;

use serde_json::Value;
use serde_json::value::RawValue;

use cctool_core::io::Source;
use cctool_core::model::events::Usage;

/// The key under which a session read out of the database lists its rows that could not be
/// read (`{table, id, why}`): the client's export has no such key.
pub const UNREADABLE: &str = "cctool_unreadable_rows";

/// A session: its `info` and its messages in order.
#[derive(Debug, Default)]
pub struct Session {
    /// The session's `info` as written.
    pub info: Value,
    /// Its messages, in the order the client loads them (by id).
    pub messages: Vec<Message>,
    /// The rows of the database that could not be read: `(table, id, why)`.
    pub unreadable: Vec<(String, String, String)>,
}

/// One message with its parts.
#[derive(Debug, Default)]
pub struct Message {
    /// What the session model asks of every message, read at once.
    head: Head,
    /// The message's `info` as written (empty when it was given as a tree).
    info_raw: Box<str>,
    /// The whole `info`, built on first use: most of a message's keys (its tokens, cost,
    /// paths, diffs) are read by no command but `--api-view` and `rebuild-chain`.
    info: OnceCell<Value>,
    /// Its parts, in order.
    pub parts: Vec<Part>,
    /// `{info, parts}` as one line of JSON: what `rebuild-chain` prints of it.
    pub raw: Vec<u8>,
}

/// The keys of a message's `info` every reading needs, as a tree of it would answer them.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Head {
    pub(crate) id: Option<String>,
    pub(crate) role: Option<String>,
    pub(crate) parent: Option<String>,
    summary: bool,
    finished: bool,
    errored: bool,
    created: Option<i64>,
    /// `modelID`, or `model.modelID` of a user message.
    pub(crate) model: Option<String>,
    /// `tokens`: what the model step reported.
    pub(crate) usage: Usage,
}

impl Head {
    /// The head of `info`, read from its tree.
    pub(crate) fn of(info: &Value) -> Head {
        let s = |k: &str| info.get(k).and_then(Value::as_str).map(str::to_string);
        let set = |k: &str| info.get(k).is_some_and(|v| !v.is_null());
        Head {
            id: s("id"),
            role: s("role"),
            parent: s("parentID"),
            summary: info.get("summary").and_then(Value::as_bool) == Some(true),
            finished: set("finish"),
            errored: set("error"),
            created: info.pointer("/time/created").and_then(Value::as_i64),
            model: info
                .get("modelID")
                .or_else(|| info.pointer("/model/modelID"))
                .and_then(Value::as_str)
                .map(str::to_string),
            usage: info.get("tokens").map(usage_of).unwrap_or_default(),
        }
    }

    /// The head of `info` written as `text`, every other key skipped unbuilt; `None` when
    /// serde cannot read its keys as a struct's (a key written twice), for the tree to answer.
    fn read(text: &str) -> Option<Head> {
        let k: InfoKeys<'_> = object(text)?;
        let time: Option<TimeKeys<'_>> = match k.time {
            Some(t) if t.get().starts_with('{') => Some(object(t.get())?),
            _ => None,
        };
        let model: Option<ModelKeys<'_>> = match (k.model_id, k.model) {
            (None, Some(m)) if m.get().starts_with('{') => Some(object(m.get())?),
            _ => None,
        };
        let tokens: Option<TokensKeys<'_>> = match k.tokens {
            Some(t) if t.get().starts_with('{') => Some(object(t.get())?),
            _ => None,
        };
        let cache: Option<CacheKeys<'_>> = match tokens.as_ref().and_then(|t| t.cache) {
            Some(c) if c.get().starts_with('{') => Some(object(c.get())?),
            _ => None,
        };
        Some(Head {
            id: k.id.and_then(string),
            role: k.role.and_then(string),
            parent: k.parent.and_then(string),
            summary: k.summary.is_some_and(|v| v.get() == "true"),
            finished: k.finish.is_some_and(|v| v.get() != "null"),
            errored: k.error.is_some_and(|v| v.get() != "null"),
            created: time.and_then(|t| integer(t.created)),
            model: k.model_id.or(model.and_then(|m| m.model_id)).and_then(string),
            usage: Usage {
                input: tokens.as_ref().and_then(|t| integer(t.input)),
                output: tokens.as_ref().and_then(|t| integer(t.output)),
                cache_read: cache.as_ref().and_then(|c| integer(c.read)),
                cache_creation: cache.as_ref().and_then(|c| integer(c.write)),
            },
        })
    }
}

/// The usage a message's `tokens` reports, as a tree of it answers.
fn usage_of(t: &Value) -> Usage {
    let n = |p: &str| t.pointer(p).and_then(Value::as_i64);
    Usage {
        input: n("/input"),
        output: n("/output"),
        cache_read: n("/cache/read"),
        cache_creation: n("/cache/write"),
    }
}

/// A JSON number that is an `i64`, as `Value::as_i64` answers it; `None` for any other value.
fn integer(v: Option<&RawValue>) -> Option<i64> {
    serde_json::from_str(v?.get()).ok()
}

/// `text` read as a struct when it is a JSON object (serde would take an array as one too).
fn object<'a, T: serde::Deserialize<'a>>(text: &'a str) -> Option<T> {
    text.starts_with('{').then(|| serde_json::from_str(text).ok()).flatten()
}

/// A JSON string's value; `None` for any other value.
fn string(v: &RawValue) -> Option<String> {
    v.get()
        .starts_with('"')
        .then(|| serde_json::from_str(v.get()).ok())
        .flatten()
}

/// A key that is present, `null` included (serde reads a `null` as an absent `Option`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue as serde::Deserialize>::deserialize(d).map(Some)
}

/// The keys of an `info` [`Head`] is made of, each left as its bytes.
#[derive(serde::Deserialize)]
struct InfoKeys<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    role: Option<&'a RawValue>,
    #[serde(rename = "parentID", borrow, default, deserialize_with = "present")]
    parent: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    summary: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    finish: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    time: Option<&'a RawValue>,
    #[serde(rename = "modelID", borrow, default, deserialize_with = "present")]
    model_id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    model: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    tokens: Option<&'a RawValue>,
}

/// `info.tokens`' keys a [`Head`] reads.
#[derive(serde::Deserialize)]
struct TokensKeys<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    input: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    output: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    cache: Option<&'a RawValue>,
}

/// `info.tokens.cache`'s keys a [`Head`] reads.
#[derive(serde::Deserialize)]
struct CacheKeys<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    read: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    write: Option<&'a RawValue>,
}

/// `info.time`'s key a [`Head`] reads.
#[derive(serde::Deserialize)]
struct TimeKeys<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    created: Option<&'a RawValue>,
}

/// `info.model`'s key a [`Head`] reads.
#[derive(serde::Deserialize)]
struct ModelKeys<'a> {
    #[serde(rename = "modelID", borrow, default, deserialize_with = "present")]
    model_id: Option<&'a RawValue>,
}

/// One part of a message: its type read at once, and the rest parsed the first time it is
/// asked for. Most of a session's bytes are tool outputs, which `scan` and `extract-summary`
/// never read, so they are not built into trees.
#[derive(Debug)]
pub struct Part {
    ty: Cow<'static, str>,
    raw: Box<RawValue>,
    tree: OnceCell<Value>,
}

/// The part types the client writes, each held without an allocation of its own: a session
/// holds hundreds of thousands of parts.
const KINDS: &[&str] = &[
    "text",
    "reasoning",
    "tool",
    "step-start",
    "step-finish",
    "file",
    "compaction",
    "patch",
    "snapshot",
    "agent",
    "subtask",
    "retry",
    "",
];

/// A part's type as held: one of [`KINDS`] borrowed, any other copied.
fn kind(ty: &str) -> Cow<'static, str> {
    match KINDS.iter().find(|k| **k == ty) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(ty.to_string()),
    }
}

/// The part's `type`, all of it that is read at once; every other key is skipped unbuilt.
#[derive(serde::Deserialize)]
struct PartHead<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
}

impl Part {
    /// The part written as `raw` (one JSON value, printed on one line).
    pub fn from_raw(raw: &RawValue) -> Part {
        let text = raw.get();
        // A part that is not an object, or whose keys serde cannot take as a struct (a `type`
        // written twice, which a tree reads as its last), is read whole now, as a tree.
        match serde_json::from_str::<PartHead<'_>>(text) {
            Ok(head) if text.starts_with('{') => Part {
                ty: kind(head.ty.as_deref().unwrap_or("")),
                raw: raw.to_owned(),
                tree: OnceCell::new(),
            },
            _ => {
                let v = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
                Part {
                    ty: kind(v.get("type").and_then(Value::as_str).unwrap_or("")),
                    raw: raw.to_owned(),
                    tree: OnceCell::from(v),
                }
            }
        }
    }

    /// The part `v`, printed on one line as its bytes.
    pub fn from_value(v: Value) -> Part {
        let raw = serde_json::value::to_raw_value(&v).unwrap_or_else(|_| RawValue::NULL.to_owned());
        Part {
            ty: kind(v.get("type").and_then(Value::as_str).unwrap_or("")),
            raw,
            tree: OnceCell::from(v),
        }
    }

    /// Its `type` (empty when it has none).
    pub fn ty(&self) -> &str {
        &self.ty
    }

    /// Its JSON as written, on one line.
    pub fn raw(&self) -> &str {
        self.raw.get()
    }

    /// The whole part as a tree, built on the first call.
    pub fn value(&self) -> &Value {
        self.tree
            .get_or_init(|| serde_json::from_str(self.raw.get()).unwrap_or(Value::Null))
    }

    /// The value of key `k`.
    pub fn get(&self, k: &str) -> Option<&Value> {
        self.value().get(k)
    }

    /// The value at JSON pointer `p`.
    pub fn pointer(&self, p: &str) -> Option<&Value> {
        self.value().pointer(p)
    }
}

impl Message {
    /// The message whose `info` is the tree `info`.
    pub fn new(info: Value, parts: Vec<Part>, raw: Vec<u8>) -> Message {
        Message {
            head: Head::of(&info),
            info_raw: Box::from(""),
            info: OnceCell::from(info),
            parts,
            raw,
        }
    }

    /// The message whose `info` is written as `text` (a JSON object).
    fn read(text: &str, parts: Vec<Part>, raw: Vec<u8>) -> Message {
        match Head::read(text) {
            Some(head) => Message {
                head,
                info_raw: Box::from(text),
                info: OnceCell::new(),
                parts,
                raw,
            },
            None => Message::new(serde_json::from_str(text).unwrap_or(Value::Null), parts, raw),
        }
    }

    /// The message's `info` as a tree.
    pub fn info(&self) -> &Value {
        self.info
            .get_or_init(|| serde_json::from_str(&self.info_raw).unwrap_or(Value::Null))
    }

    /// The keys of its `info` every reading needs.
    pub(crate) fn head(&self) -> &Head {
        &self.head
    }

    /// Its id.
    pub fn id(&self) -> Option<&str> {
        self.head.id.as_deref()
    }

    /// `user` or `assistant`.
    pub fn role(&self) -> &str {
        self.head.role.as_deref().unwrap_or("")
    }

    /// The user message an assistant message answers.
    pub fn parent(&self) -> Option<&str> {
        self.head.parent.as_deref()
    }

    /// The model that wrote it (`modelID`, or `model.modelID` of a user message).
    pub fn model(&self) -> Option<&str> {
        self.head.model.as_deref()
    }

    /// The type of each part.
    pub fn part_types(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().map(Part::ty)
    }

    /// A user message that asks for a compaction (it holds a `compaction` part).
    pub fn asks_compaction(&self) -> bool {
        self.role() == "user" && self.part_types().any(|t| t == "compaction")
    }

    /// An assistant message that is a compaction's summary (`summary: true`).
    pub fn is_summary(&self) -> bool {
        self.role() == "assistant" && self.head.summary
    }

    /// A summary the client counts as a compaction done (`filterCompacted`): finished, and
    /// with no error.
    pub fn is_finished_summary(&self) -> bool {
        self.is_summary() && self.head.finished && !self.head.errored
    }

    /// When it was written, in milliseconds since the epoch.
    pub fn created_ms(&self) -> Option<i64> {
        self.head.created
    }

    /// The tokens its model step reported (`tokens`).
    pub fn usage(&self) -> Usage {
        self.head.usage
    }

    /// Its `info` as written, when it was read from its bytes (`None` when it was read as a
    /// tree, which [`Message::info`] holds).
    pub fn info_text(&self) -> Option<&str> {
        (!self.info_raw.is_empty()).then_some(&*self.info_raw)
    }
}

impl Session {
    /// The session's id.
    pub fn id(&self) -> Option<&str> {
        self.info.get("id").and_then(Value::as_str)
    }

    /// A string of `info`.
    pub fn s(&self, k: &str) -> Option<&str> {
        self.info.get(k).and_then(Value::as_str)
    }
}

/// Whether a document with these top-level keys is an opencode session.
pub fn is_export(keys: &cctool_core::agents::detect::Keys) -> bool {
    keys.has("info") && keys.has("messages") && !keys.has("schema_version")
}

/// The document's top level, each message left as its bytes.
#[derive(serde::Deserialize)]
struct Doc<'a> {
    #[serde(default)]
    info: Value,
    #[serde(borrow, default, deserialize_with = "elements")]
    messages: Vec<&'a RawValue>,
    #[serde(rename = "cctool_unreadable_rows", default)]
    unreadable: Option<Value>,
}

/// A message's `info` and `parts`, each left as its bytes.
#[derive(serde::Deserialize)]
struct MessageKeys<'a> {
    #[serde(borrow, default)]
    info: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "elements")]
    parts: Vec<&'a RawValue>,
}

/// A list's elements, each left as its bytes; any other value is read as no elements, as the
/// client reads no messages or parts from it.
fn elements<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<&'de RawValue>, D::Error> {
    use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
    struct Elements;
    impl<'de> Visitor<'de> for Elements {
        type Value = Vec<&'de RawValue>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(e) = a.next_element::<&'de RawValue>()? {
                out.push(e);
            }
            Ok(out)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Vec::new())
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
    }
    d.deserialize_any(Elements)
}

/// Reads the session of `src`. A message that is not `{info, parts}` is counted among the
/// unreadable with its place, and the rest is read.
pub fn read(src: &Source) -> io::Result<Session> {
    let bytes = src.whole()?;
    let not = |e: serde_json::Error| io::Error::new(io::ErrorKind::InvalidData, format!("not an opencode export: {e}"));
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not an opencode export: not a JSON object",
        ));
    }
    let doc: Doc<'_> = serde_json::from_slice(&bytes).map_err(not)?;
    let mut s = Session {
        info: doc.info,
        ..Session::default()
    };
    if let Some(Value::Array(rows)) = doc.unreadable {
        for u in rows {
            let f = |k: &str| u.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            s.unreadable.push((f("table"), f("id"), f("why")));
        }
    }
    // JSON has no line break but between its tokens: a document without one (the database's,
    // `opencode export`'s when printed on one line) has none in any message.
    let one_line = memchr::memchr2(b'\n', b'\r', &bytes).is_none();
    for (i, m) in doc.messages.into_iter().enumerate() {
        let text = m.get();
        let unreadable = |why: &str| ("message".to_string(), format!("#{}", i + 1), why.to_string());
        // A message printed on one line (the database's always are) is its own line, and its
        // parts are kept as their bytes; one of a pretty-printed export, or one whose keys
        // serde cannot take as a struct (a key written twice), is read as a tree and printed
        // again.
        let head = match one_line || memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_none() {
            true => object::<MessageKeys<'_>>(text),
            false => None,
        };
        match head {
            Some(h) => {
                let parts = h.parts.into_iter().map(Part::from_raw).collect();
                let info = h.info.map_or("null", RawValue::get);
                if !info.starts_with('{') {
                    s.unreadable.push(unreadable("no info object"));
                    continue;
                }
                s.messages.push(Message::read(info, parts, text.as_bytes().to_vec()));
            }
            None => {
                let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(text) else {
                    s.unreadable.push(unreadable("not an object"));
                    continue;
                };
                let raw = serde_json::to_vec(&m).unwrap_or_default();
                let info = m.remove("info").unwrap_or(Value::Null);
                let parts = match m.remove("parts") {
                    Some(Value::Array(a)) => a.into_iter().map(Part::from_value).collect(),
                    _ => Vec::new(),
                };
                if !info.is_object() {
                    s.unreadable.push(unreadable("no info object"));
                    continue;
                }
                s.messages.push(Message::new(info, parts, raw));
            }
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `info` the fast reading of a message's head takes, it reads as its tree does, and
    /// every one it gives up on is read from the tree.
    #[test]
    fn a_message_head_read_from_bytes_is_the_trees() {
        let infos = [
            r#"{"id":"msg_1","role":"assistant","parentID":"msg_0","summary":true,"finish":"stop","time":{"created":1796322765492,"completed":1},"modelID":"m","tokens":{"input":3}}"#,
            r#"{"role":"user","time":{"created":5},"summary":{"title":"t","diffs":[]},"model":{"providerID":"p","modelID":"um"}}"#,
            r#"{"role":"assistant","summary":"true","finish":null,"error":null}"#,
            r#"{"role":"assistant","summary":false,"finish":"stop","error":{"name":"MessageAbortedError"}}"#,
            r#"{"id":"ms\u0067_2","role":"assist\u0061nt","parentID":null,"modelID":null,"model":{"modelID":"x"}}"#,
            r#"{"modelID":7,"model":{"modelID":"x"},"role":3}"#,
            r#"{"model":[1],"time":[1]}"#,
            r#"{"model":{"modelID":"a","modelID":"b"}}"#,
            r#"{"time":{"created":1.5}}"#,
            r#"{"time":{"created":-3}}"#,
            r#"{"time":{"created":18446744073709551615}}"#,
            r#"{"time":{"created":1e3}}"#,
            r#"{"time":{"created":2,"created":3}}"#,
            r#"{"time":"2026"}"#,
            r#"{"id":"a","id":"b","role":"user"}"#,
            r#"{ "id" : "spaced" , "role" : "user" , "time" : { "created" : 9 } }"#,
            r#"{"tokens":{"input":1.5,"output":-3,"reasoning":2,"cache":{"read":1e3,"write":18446744073709551615}}}"#,
            r#"{"tokens":{"input":null,"output":[1],"cache":[]}}"#,
            r#"{"tokens":"many"}"#,
            r#"{"tokens":{"input":1,"input":2}}"#,
            r#"{"tokens":{"cache":{"read":1,"read":2}}}"#,
            r#"{}"#,
        ];
        let mut fast = 0;
        for text in infos {
            let tree: Value = serde_json::from_str(text).unwrap();
            if let Some(h) = Head::read(text) {
                fast += 1;
                assert_eq!(h, Head::of(&tree), "{text}");
            }
            let m = Message::read(text, Vec::new(), Vec::new());
            assert_eq!(m.head, Head::of(&tree), "{text}");
            assert_eq!(m.info(), &tree, "{text}");
        }
        // The keys written twice are the ones given up on.
        assert_eq!(fast, infos.len() - 5);
    }

    /// A part's type read from its bytes is the one its tree has.
    #[test]
    fn a_part_type_read_from_bytes_is_the_trees() {
        let parts = [
            r#"{"type":"text","text":"a"}"#,
            r#"{"text":"a","type":"tool","state":{"type":"x"}}"#,
            r#"{"type":"t\u0065xt"}"#,
            r#"{"type":1}"#,
            r#"{"type":null}"#,
            r#"{"type":"a","type":"b"}"#,
            r#"["type","text"]"#,
            r#""text""#,
            r#"{}"#,
        ];
        for text in parts {
            let tree: Value = serde_json::from_str(text).unwrap();
            let raw: Box<RawValue> = serde_json::from_str(text).unwrap();
            let p = Part::from_raw(&raw);
            assert_eq!(p.ty(), tree.get("type").and_then(Value::as_str).unwrap_or(""), "{text}");
            assert_eq!(p.value(), &tree, "{text}");
            assert_eq!(p.raw(), text);
        }
    }

    /// A document read through the bytes of its messages and parts is the one its tree gives:
    /// the same messages, heads, parts and unreadable entries, on one-line and pretty documents.
    #[test]
    fn a_document_read_from_bytes_is_the_trees() {
        let doc = serde_json::json!({
            "info": {"id": "ses_1"},
            "messages": [
                {"info": {"id": "msg_1", "role": "user", "time": {"created": 1}}, "parts": [{"type": "text", "text": "hi"}]},
                {"parts": [{"type": "tool", "state": {"output": "x\ny"}}], "info": {"id": "msg_2", "role": "assistant", "summary": true, "finish": "stop"}},
                {"info": "no", "parts": []},
                [1, 2],
                {"info": {"id": "msg_3", "role": "user"}, "parts": "not a list"},
                {"info": {"id": "msg_4", "role": "user"}},
            ],
        });
        let read = |bytes: Vec<u8>| read(&Source::from_bytes("t.json", bytes)).unwrap();
        let one = read(serde_json::to_vec(&doc).unwrap());
        let pretty = read(serde_json::to_vec_pretty(&doc).unwrap());
        for s in [&one, &pretty] {
            let ids: Vec<_> = s.messages.iter().map(|m| m.id()).collect();
            assert_eq!(ids, [Some("msg_1"), Some("msg_2"), Some("msg_3"), Some("msg_4")]);
            assert_eq!(s.unreadable.len(), 2);
            for (m, tree) in s.messages.iter().zip(
                doc["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|m| m["info"].is_object()),
            ) {
                assert_eq!(m.head, Head::of(&tree["info"]));
                assert_eq!(m.info(), &tree["info"]);
                let parts: Vec<&Value> = m.parts.iter().map(Part::value).collect();
                let want: Vec<&Value> = tree["parts"].as_array().into_iter().flatten().collect();
                assert_eq!(parts, want);
                assert_eq!(serde_json::from_slice::<Value>(&m.raw).unwrap(), *tree);
            }
        }
        let raws = |s: &Session| s.messages.iter().map(|m| m.raw.clone()).collect::<Vec<_>>();
        assert_eq!(raws(&one), raws(&pretty));
    }
}
