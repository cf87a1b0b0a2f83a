//! The rows of the chain read into the conversation's entries: the parallel read of a batch
//! of rows, each parsed the fast way (borrowed, only the fields the conversation needs) or,
//! when that refuses it, as a whole record.

use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::chain as claude;
use crate::io::Source;
use cctool_core::convert::model::{Block, Body, Image, Part, ToolResult};

/// What the conversation needs of a row of the chain, known from the index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Need {
    /// Its uuid and time only (a boundary, a row left out).
    Key,
    User,
    Assistant,
    System,
    Summary,
}

/// What one row of the chain gives the conversation, read on any core.
#[derive(Debug, PartialEq)]
pub(super) struct Row {
    /// Its `uuid` ("" without one).
    pub(super) key: String,
    pub(super) ts: Option<String>,
    pub(super) got: Got,
    /// Blocks left out, by kind.
    pub(super) drops: Vec<String>,
}

#[derive(Debug, PartialEq)]
pub(super) enum Got {
    Nothing,
    /// A user row's tool results, then its prompt.
    User(Vec<Body>),
    Assistant(Vec<Block>),
    /// A system row's subtype.
    System(String),
    Summary(String),
}

/// Rows read at once (and held) by the parallel read, at most: a few MiB of records.
pub(super) const BATCH_BYTES: u64 = 8 << 20;

/// Reads the rows at `positions` on every core, a batch at a time, and hands each to `f` in
/// chain order (with its index in `positions`). A source not held as one slice is read in
/// order.
pub(super) fn read_rows(
    src: &Source,
    t: &claude::Transcript,
    positions: &[u32],
    need: &(dyn Fn(u32) -> Need + Sync),
    f: &mut dyn FnMut(usize, u32, Row) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    let read = |p: u32| -> std::io::Result<Row> {
        let node = t.node(p);
        let n = need(p);
        match src.as_slice() {
            Some(all) => {
                let bytes = &all[node.offset as usize..(node.offset + node.len) as usize];
                let row = row(bytes, n);
                // Read in place: a mapping that faulted (the file cut short) read zeros.
                if memchr::memchr(0, bytes).is_some() {
                    src.check()?;
                } else {
                    src.check_fault()?;
                }
                Ok(row)
            }
            None => Ok(row(&src.read_range(node.offset, node.len as usize)?, n)),
        }
    };
    if src.as_slice().is_none() {
        for (i, &p) in positions.iter().enumerate() {
            f(i, p, read(p)?)?;
        }
        return Ok(());
    }
    let mut batches = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, &p) in positions.iter().enumerate() {
        bytes += t.node(p).len;
        if bytes >= BATCH_BYTES || i + 1 == positions.len() {
            batches.push(start..i + 1);
            (start, bytes) = (i + 1, 0);
        }
    }
    std::thread::scope(|scope| {
        // One batch read ahead while the one before is taken in order.
        let (tx, rx) = std::sync::mpsc::sync_channel::<std::io::Result<Vec<Row>>>(1);
        let batches2 = batches.clone();
        scope.spawn(move || {
            for b in batches2 {
                let rows = positions[b].par_iter().map(|&p| read(p)).collect();
                if tx.send(rows).is_err() {
                    return;
                }
            }
        });
        for (b, rows) in batches.into_iter().zip(rx) {
            for ((i, &p), row) in b.clone().zip(&positions[b]).zip(rows?) {
                f(i, p, row)?;
            }
        }
        Ok(())
    })
}

/// [`Row`] of a record: read typed, borrowing, without building what is not needed, or
/// when the typed read refuses it (a field of another type, a repeated key, a lone
/// surrogate, a container past [`parse_record`](crate::io::json::parse_record)'s caps), from
/// the record read whole, as every reader reads it ([`plain_row`]).
pub(super) fn row(bytes: &[u8], need: Need) -> Row {
    fast_row(bytes, need).unwrap_or_else(|| plain_row(&crate::io::json::parse_record(bytes), need))
}

/// [`Row`] of a record read whole.
pub(super) fn plain_row(rec: &Value, need: Need) -> Row {
    let mut drops = Vec::new();
    let got = match need {
        Need::Key => Got::Nothing,
        Need::User => Got::User(read_user(&mut drops, rec)),
        Need::Assistant => Got::Assistant(read_assistant(&mut drops, rec)),
        Need::System => Got::System(
            rec.get("subtype")
                .and_then(Value::as_str)
                .unwrap_or("other")
                .to_string(),
        ),
        Need::Summary => Got::Summary(crate::summaries::claude_summary_text(rec).unwrap_or_default()),
    };
    Row {
        key: str_of(rec, "uuid"),
        ts: rec.get("timestamp").and_then(Value::as_str).map(str::to_string),
        got,
        drops,
    }
}

pub(super) fn read_user(drops: &mut Vec<String>, rec: &Value) -> Vec<Body> {
    let mut bodies = Vec::new();
    let mut parts = Vec::new();
    match rec.pointer("/message/content") {
        Some(Value::String(s)) => parts.push(Part::Text(s.clone())),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => parts.push(Part::Text(str_of(b, "text"))),
                    Some("image") => parts.push(Part::Image(image_of(b))),
                    Some("tool_result") => {
                        let output = match b.get("content") {
                            Some(Value::String(s)) => vec![Part::Text(s.clone())],
                            Some(Value::Array(items)) => items
                                .iter()
                                .filter_map(|i| match i.get("type").and_then(Value::as_str) {
                                    Some("text") => Some(Part::Text(str_of(i, "text"))),
                                    Some("image") => Some(Part::Image(image_of(i))),
                                    _ => {
                                        drops.push("tool_result block".into());
                                        None
                                    }
                                })
                                .collect(),
                            _ => Vec::new(),
                        };
                        bodies.push(Body::ToolResult(ToolResult {
                            call_id: str_of(b, "tool_use_id"),
                            output,
                            is_error: b.get("is_error") == Some(&Value::Bool(true)),
                        }));
                    }
                    Some(other) => drops.push(format!("user block:{other}")),
                    None => drops.push("user block".into()),
                }
            }
        }
        _ => drops.push("user:no content".into()),
    }
    if !parts.is_empty() {
        bodies.push(Body::User(parts));
    }
    bodies
}

pub(super) fn read_assistant(drops: &mut Vec<String>, rec: &Value) -> Vec<Block> {
    let mut out = Vec::new();
    for b in rec
        .pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => out.push(Block::Text(str_of(b, "text"))),
            Some("thinking") => out.push(Block::Reasoning(str_of(b, "thinking"))),
            Some("redacted_thinking") => drops.push("redacted_thinking".into()),
            Some("tool_use") => out.push(Block::Call(cctool_core::convert::model::ToolCall {
                id: str_of(b, "id"),
                name: str_of(b, "name"),
                input: b.get("input").cloned().unwrap_or_else(|| json!({})),
            })),
            Some(other) => drops.push(format!("assistant block:{other}")),
            None => drops.push("assistant block".into()),
        }
    }
    out
}

/// The fields of a record [`fast_row`] reads; every other value is skipped unbuilt.
#[derive(serde::Deserialize)]
pub(super) struct FastRecord<'a> {
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<FastMessage<'a>>,
}

#[derive(serde::Deserialize)]
pub(super) struct FastMessage<'a> {
    #[serde(borrow, default)]
    content: Option<FastContent<'a>>,
}

/// A `content` read in one pass: a string, an array of blocks, or any other value (skipped).
pub(super) enum FastContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<FastBlock<'a>>),
    Other,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for FastContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = FastContent<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a content")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(FastContent::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(FastContent::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(FastContent::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut v = Vec::new();
                while let Some(b) = seq.next_element()? {
                    // Past the cap the whole read holds the array as its text.
                    if v.len() == crate::io::json::KEEP_ELEMENTS {
                        return Err(A::Error::custom("too many blocks"));
                    }
                    v.push(b);
                }
                Ok(FastContent::Blocks(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(FastContent::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(FastContent::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(FastContent::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(FastContent::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(FastContent::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(FastContent::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[derive(serde::Deserialize)]
pub(super) struct FastBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    /// Kept as written: a tool result's text is carried as its JSON string ([`Part::from_raw`]).
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// `null` kept apart from absent: a call's input is what is written.
    #[serde(default, deserialize_with = "present")]
    input: Option<Value>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    /// Kept as written: a string is carried as its JSON string, an array read after.
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    is_error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    source: Option<FastSource<'a>>,
}

#[derive(serde::Deserialize)]
pub(super) struct FastSource<'a> {
    #[serde(borrow, default)]
    media_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    url: Option<Cow<'a, str>>,
}

pub(super) fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

pub(super) fn owned(s: Option<Cow<'_, str>>) -> String {
    s.map(Cow::into_owned).unwrap_or_default()
}

impl FastSource<'_> {
    fn image(self) -> Image {
        Image {
            media_type: self.media_type.map(Cow::into_owned),
            data: self.data.map(Cow::into_owned),
            url: self.url.map(Cow::into_owned),
        }
    }
}

pub(super) fn fast_image(source: Option<FastSource<'_>>) -> Image {
    source.map_or(
        Image {
            media_type: None,
            data: None,
            url: None,
        },
        FastSource::image,
    )
}

/// A value found `level` levels down in a record, as
/// [`parse_record`](crate::io::json::parse_record) builds it: None when one of its containers
/// is past the caps (held as text there).
pub(super) fn fast_value(v: Value, level: usize) -> Option<Value> {
    fn within(v: &Value, level: usize) -> bool {
        use crate::io::json::{KEEP_DEPTH, KEEP_ELEMENTS};
        match v {
            Value::Array(a) => {
                level <= KEEP_DEPTH && a.len() <= KEEP_ELEMENTS && a.iter().all(|x| within(x, level + 1))
            }
            Value::Object(m) => {
                level <= KEEP_DEPTH && m.len() <= KEEP_ELEMENTS && m.values().all(|x| within(x, level + 1))
            }
            _ => true,
        }
    }
    within(&v, level).then_some(v)
}

/// [`plain_row`] of a record, read typed; None where only the whole read gives it.
pub(super) fn fast_row(bytes: &[u8], need: Need) -> Option<Row> {
    if need == Need::Summary {
        return None;
    }
    let rec: FastRecord<'_> = serde_json::from_slice(bytes).ok()?;
    let mut drops = Vec::new();
    let content = rec.message.and_then(|m| m.content);
    let got = match need {
        Need::Key | Need::Summary => Got::Nothing,
        Need::System => Got::System(rec.subtype.map_or_else(|| "other".to_string(), Cow::into_owned)),
        Need::User => {
            let mut bodies = Vec::new();
            let mut parts = Vec::new();
            match content {
                Some(FastContent::Text(t)) => parts.push(Part::Text(t.into_owned())),
                Some(FastContent::Blocks(blocks)) => {
                    for b in blocks {
                        match b.ty.as_deref() {
                            Some("text") => parts.push(Part::from_raw(b.text)?),
                            Some("image") => parts.push(Part::Image(fast_image(b.source))),
                            Some("tool_result") => {
                                let content = b.content.map(RawValue::get).unwrap_or("null");
                                let output = match content.as_bytes()[0] {
                                    b'"' => vec![Part::from_raw(b.content)?],
                                    b'[' => match serde_json::from_str(content).ok()? {
                                        FastContent::Blocks(items) => {
                                            let mut out = Vec::new();
                                            for i in items {
                                                match i.ty.as_deref() {
                                                    Some("text") => out.push(Part::from_raw(i.text)?),
                                                    Some("image") => out.push(Part::Image(fast_image(i.source))),
                                                    _ => drops.push("tool_result block".into()),
                                                }
                                            }
                                            out
                                        }
                                        _ => Vec::new(),
                                    },
                                    _ => Vec::new(),
                                };
                                bodies.push(Body::ToolResult(ToolResult {
                                    call_id: owned(b.tool_use_id),
                                    output,
                                    is_error: b.is_error.is_some_and(|e| e.get() == "true"),
                                }));
                            }
                            Some(other) => drops.push(format!("user block:{other}")),
                            None => drops.push("user block".into()),
                        }
                    }
                }
                _ => drops.push("user:no content".into()),
            }
            if !parts.is_empty() {
                bodies.push(Body::User(parts));
            }
            Got::User(bodies)
        }
        Need::Assistant => {
            let mut out = Vec::new();
            if let Some(FastContent::Blocks(blocks)) = content {
                for b in blocks {
                    match b.ty.as_deref() {
                        Some("text") => out.push(Block::Text(cctool_core::convert::model::text_of(b.text)?)),
                        Some("thinking") => out.push(Block::Reasoning(owned(b.thinking))),
                        Some("redacted_thinking") => drops.push("redacted_thinking".into()),
                        Some("tool_use") => out.push(Block::Call(cctool_core::convert::model::ToolCall {
                            id: owned(b.id),
                            name: owned(b.name),
                            input: match b.input {
                                Some(i) => fast_value(i, 5)?,
                                None => json!({}),
                            },
                        })),
                        Some(other) => drops.push(format!("assistant block:{other}")),
                        None => drops.push("assistant block".into()),
                    }
                }
            }
            Got::Assistant(out)
        }
    };
    Some(Row {
        key: owned(rec.uuid),
        ts: rec.timestamp.map(Cow::into_owned),
        got,
        drops,
    })
}

pub(super) fn str_of(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

pub(super) fn image_of(b: &Value) -> Image {
    let s = b.get("source");
    let g = |k: &str| s.and_then(|s| s.get(k)).and_then(Value::as_str).map(str::to_string);
    Image {
        media_type: g("media_type"),
        data: g("data"),
        url: g("url"),
    }
}
