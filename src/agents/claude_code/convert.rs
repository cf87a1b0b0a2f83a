//! Claude Code transcripts to and from the conversation of `cctool convert`
//! (`docs/convert.md`).
//!
//! Read: the chain a resume loads (`chain.rs`), from its last compaction, or with `full` the
//! whole history with every compaction at its place. Written: a linked `uuid`/`parentUuid`
//! chain (without it Claude Code loads only the last record), one `message.id` shared by the
//! rows of one response (without it the client splits the response apart), tool ids the API
//! accepts, every tool input an object, each compaction a `compact_boundary` row and its
//! summary row.

use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::chain::{self as claude, Kind, Options, flag};
use crate::compact::ids;
use crate::convert::json::json_str;
use crate::convert::model::{
    Answered, Block, Body, Conversation, Emitter, Entry, Image, Part, Sink, ToolResult, call_key, collect, written_len,
};
use crate::convert::tools;
use crate::convert::{Clock, EntryWriter, Tally, WriteOptions, line, reasoning_text};
use crate::io::Source;
use crate::model::Format;

/// The conversation a resume of `src` loads (`full`: its whole history).
pub fn read(src: &Source, full: bool) -> std::io::Result<Conversation> {
    collect(|sink| read_stream(src, full, false, sink))
}

/// [`read`], streamed: the head, then each entry as soon as it is complete. Only the index
/// of the file is held (as `rebuild-chain` holds it), with the pages read released behind.
/// `answered`: the head carries the calls the conversation answers, from a first pass over
/// the results.
pub fn read_stream(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let t = claude::read(src)?;
    let chain = t
        .rebuild(&Options {
            full,
            ..Options::default()
        })
        .unwrap_or_default();
    let positions = &chain.positions;
    let mut c = Conversation::new(Format::ClaudeCode);
    c.session_id = t.session_ids.first().cloned().unwrap_or_else(|| src.name().to_string());
    let record = |p: u32| -> std::io::Result<Value> {
        let node = t.node(p);
        Ok(crate::io::json::parse_record(
            &src.read_range(node.offset, node.len as usize)?,
        ))
    };
    // The writers put the working directory and the model on their first lines. The
    // directory is the session's first: a user who changes directory mid-session still has
    // the same session, whose earlier conversion must stay a prefix of the next (and Claude
    // Code keeps the transcript in the first directory's project folder). The model is the
    // last along the chain, found from its end: the one a resume continues with.
    for &p in positions {
        if let Some(cwd) = record(p)?.get("cwd").and_then(Value::as_str) {
            c.cwd = Some(cwd.to_string());
            break;
        }
    }
    for &p in positions.iter().rev() {
        let node = t.node(p);
        if node.kind == Kind::Assistant
            && !node.has(flag::API_ERROR)
            && !node.is_boundary()
            && let Some(m) = record(p)?.pointer("/message/model").and_then(Value::as_str)
            && m != "<synthetic>"
        {
            c.model = Some(m.to_string());
            break;
        }
    }
    let answered = match answered {
        false => None,
        true => {
            let mut set = Answered::default();
            for &p in positions {
                let node = t.node(p);
                if node.kind == Kind::User && !node.has(flag::COMPACT_SUMMARY) {
                    let rec = record(p)?;
                    for b in rec
                        .pointer("/message/content")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                            set.insert(call_key(&str_of(b, "tool_use_id")));
                        }
                    }
                }
            }
            Some(set)
        }
    };
    let mut c = Emitter::new(c, sink);
    c.head(answered)?;
    // The summary row each boundary takes (the first before the next boundary; rows a
    // compaction preserved may come between, 2.1.88 session memory), found from the index.
    let mut summary_of = rustc_hash::FxHashMap::default();
    let mut taken = rustc_hash::FxHashSet::default();
    for (i, &p) in positions.iter().enumerate() {
        if t.node(p).is_boundary()
            && let Some(&q) = positions[i + 1..]
                .iter()
                .take_while(|&&q| !t.node(q).is_boundary())
                .find(|&&q| t.node(q).kind == Kind::User && t.node(q).has(flag::COMPACT_SUMMARY))
        {
            summary_of.insert(i, q);
            taken.insert(q);
        }
    }
    let need = |p: u32| {
        let node = t.node(p);
        match node.kind {
            _ if node.is_boundary() || taken.contains(&p) => Need::Key,
            Kind::User if node.has(flag::COMPACT_SUMMARY) => Need::Summary,
            Kind::User => Need::User,
            Kind::Assistant if node.has(flag::API_ERROR) => Need::Key,
            Kind::Assistant => Need::Assistant,
            Kind::System => Need::System,
            Kind::Attachment => Need::Key,
        }
    };
    let mut last_msg: Option<(u32, usize)> = None;
    let mut released = src.releaser();
    // The rows are read on every core, a batch at a time, while the batch before is taken in
    // chain order here: what depends on the rows before (a response's rows made one entry,
    // the keys) is decided in order.
    let mut each = |i: usize, p: u32, row: Row| -> std::io::Result<()> {
        c.check()?;
        let node = t.node(p);
        released.touch(node.offset, node.len);
        let key = if row.key.is_empty() {
            format!("L{}", node.line)
        } else {
            row.key
        };
        let ts = row.ts;
        if node.is_boundary() {
            // The target has the summary at the boundary, as its own compaction, and the rows
            // a compaction preserved after it.
            let text = match summary_of.get(&i) {
                Some(&q) => crate::agents::claude_code::summaries::claude_summary_text(&record(q)?).unwrap_or_default(),
                None => String::new(),
            };
            c.push(&key, ts, Body::Compaction(text));
            last_msg = None;
            return Ok(());
        }
        if taken.contains(&p) {
            return Ok(());
        }
        for kind in row.drops {
            c.drop(&kind);
        }
        match row.got {
            // A summary without its boundary in the chain: still the conversation's start.
            Got::Summary(text) => {
                c.push(&key, ts, Body::Compaction(text));
                last_msg = None;
            }
            Got::User(bodies) => {
                for b in bodies {
                    c.push(&key, ts.clone(), b);
                }
                last_msg = None;
            }
            Got::Assistant(blocks) => {
                // Rows of one response (one block per row) become one entry.
                // (`u32::MAX`: a row without a `message.id`, never merged.)
                let same = node.msg_id != u32::MAX
                    && matches!(last_msg, Some((id, i)) if id == node.msg_id && i == c.pushed());
                if same && let Some(Body::Assistant(b)) = c.last_mut().map(|e| &mut e.body) {
                    b.extend(blocks);
                } else {
                    c.push(&key, ts, Body::Assistant(blocks));
                }
                last_msg = Some((node.msg_id, c.pushed()));
            }
            Got::System(sub) => c.drop(&format!("system:{sub}")),
            Got::Nothing if node.kind == Kind::Assistant => c.drop("assistant:api-error"),
            Got::Nothing => c.drop("attachment"),
        }
        Ok(())
    };
    read_rows(src, &t, positions, &need, &mut each)?;
    let mut c = c.finish()?;
    // Every other line: what a resume does not load (earlier history, other branches,
    // progress, snapshots, titles), counted by type.
    for (kind, n) in not_loaded(src, &t, positions)? {
        c.drop_n(&kind, n);
    }
    Ok(c)
}

/// The lines of `src` the conversation does not carry (the rows at `positions`), counted by
/// type. A message row's type is its kind in the index, which read it from the same line; only
/// the lines between the index's rows (progress, snapshots, titles, unreadable ones) are split
/// and parsed, on every core: the rows, most of the file, are not read again.
/// [`not_loaded_in_order`] is the plain reading.
fn not_loaded(
    src: &Source,
    t: &claude::Transcript,
    positions: &[u32],
) -> std::io::Result<std::collections::BTreeMap<String, u64>> {
    use rayon::prelude::*;
    use std::collections::BTreeMap;
    let mut starts: Vec<u64> = positions.iter().map(|&p| t.node(p).offset).collect();
    starts.sort_unstable();
    let mut rows: Vec<(u64, u64, Kind)> = t.nodes.iter().map(|n| (n.offset, n.len, n.kind)).collect();
    rows.sort_unstable_by_key(|&(o, _, _)| o);
    let mut counts = BTreeMap::new();
    // The spans between rows, gathered into batches of a few MiB of the file for the cores;
    // each batch's pages are released after it (so the file's pages do not stay mapped).
    let (mut batches, mut batch, mut at) = (Vec::new(), Vec::<(u64, u64)>::new(), 0);
    let mut gap = |from: u64, to: u64, batch: &mut Vec<(u64, u64)>| {
        if to > from {
            batch.push((from, to));
        }
        if batch.first().is_some_and(|&(first, _)| to - first >= BATCH_BYTES) {
            batches.push(std::mem::take(batch));
        }
    };
    for &(offset, len, kind) in &rows {
        if starts.binary_search(&offset).is_err() {
            *counts.entry(format!("not loaded:{}", kind_type(kind))).or_insert(0) += 1;
        }
        gap(at, offset, &mut batch);
        at = at.max(offset + len);
    }
    gap(at, src.len(), &mut batch);
    batches.push(batch);
    let types = batches
        .par_iter()
        .map(|spans| {
            let mut counts = BTreeMap::<String, u64>::new();
            for &(from, to) in spans {
                // A span of many lines is read a few MiB at a time, cut after a newline.
                let mut pos = from;
                while pos < to {
                    let mut bytes = src.read_range(pos, (to - pos).min(BATCH_BYTES) as usize)?;
                    let mut cut = bytes.len();
                    if pos + cut as u64 != to {
                        match memchr::memrchr(b'\n', &bytes) {
                            Some(i) => cut = i + 1,
                            // A line longer than that: read whole.
                            None => {
                                bytes = src.read_range(pos, (to - pos) as usize)?;
                                cut = bytes.len();
                            }
                        }
                    }
                    let bytes = &bytes[..cut];
                    let end = pos + cut as u64;
                    let mut stats = crate::io::lines::LineStats::default();
                    crate::io::lines::split_chunk(pos, bytes, end == src.len(), &mut stats, &mut |l| {
                        *counts.entry(not_loaded_type(l.bytes)).or_insert(0) += 1;
                    });
                    if end - pos >= BATCH_BYTES / 2 {
                        src.done_with(pos, end - pos);
                    }
                    pos = end;
                }
            }
            if let (Some(&(from, _)), Some(&(_, to))) = (spans.first(), spans.last()) {
                src.done_with(from, to - from);
            }
            Ok(counts)
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    for (ty, n) in types.into_iter().flatten() {
        *counts.entry(ty).or_insert(0) += n;
    }
    Ok(counts)
}

/// [`not_loaded`], every line read in order and parsed.
#[cfg(test)]
fn not_loaded_in_order(src: &Source, carried: &[u64]) -> std::io::Result<std::collections::BTreeMap<String, u64>> {
    let mut counts = std::collections::BTreeMap::new();
    crate::io::for_each_line(src, |l| {
        let is_carried = carried
            .get((l.no / 64) as usize)
            .is_some_and(|w| w & (1 << (l.no % 64)) != 0);
        if !is_carried {
            *counts.entry(not_loaded_type(l.bytes)).or_insert(0) += 1;
        }
    })?;
    Ok(counts)
}

/// The `type` of a message row of kind `k`.
fn kind_type(k: Kind) -> &'static str {
    match k {
        Kind::User => "user",
        Kind::Assistant => "assistant",
        Kind::System => "system",
        Kind::Attachment => "attachment",
    }
}

fn not_loaded_type(line: &[u8]) -> String {
    let h = crate::convert::line_head(line);
    format!("not loaded:{}", h.ty.as_deref().unwrap_or("unreadable"))
}

/// What the conversation needs of a row of the chain, known from the index.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Need {
    /// Its uuid and time only (a boundary, a row left out).
    Key,
    User,
    Assistant,
    System,
    Summary,
}

/// What one row of the chain gives the conversation, read on any core.
#[derive(Debug, PartialEq)]
struct Row {
    /// Its `uuid` ("" without one).
    key: String,
    ts: Option<String>,
    got: Got,
    /// Blocks left out, by kind.
    drops: Vec<String>,
}

#[derive(Debug, PartialEq)]
enum Got {
    Nothing,
    /// A user row's tool results, then its prompt.
    User(Vec<Body>),
    Assistant(Vec<Block>),
    /// A system row's subtype.
    System(String),
    Summary(String),
}

/// Rows read at once (and held) by the parallel read, at most: a few MiB of records.
const BATCH_BYTES: u64 = 8 << 20;

/// Reads the rows at `positions` on every core, a batch at a time, and hands each to `f` in
/// chain order (with its index in `positions`). A source not held as one slice is read in
/// order.
fn read_rows(
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
fn row(bytes: &[u8], need: Need) -> Row {
    fast_row(bytes, need).unwrap_or_else(|| plain_row(&crate::io::json::parse_record(bytes), need))
}

/// [`Row`] of a record read whole.
fn plain_row(rec: &Value, need: Need) -> Row {
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
        Need::Summary => {
            Got::Summary(crate::agents::claude_code::summaries::claude_summary_text(rec).unwrap_or_default())
        }
    };
    Row {
        key: str_of(rec, "uuid"),
        ts: rec.get("timestamp").and_then(Value::as_str).map(str::to_string),
        got,
        drops,
    }
}

fn read_user(drops: &mut Vec<String>, rec: &Value) -> Vec<Body> {
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

fn read_assistant(drops: &mut Vec<String>, rec: &Value) -> Vec<Block> {
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
            Some("tool_use") => out.push(Block::Call(crate::convert::model::ToolCall {
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
struct FastRecord<'a> {
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
struct FastMessage<'a> {
    #[serde(borrow, default)]
    content: Option<FastContent<'a>>,
}

/// A `content` read in one pass: a string, an array of blocks, or any other value (skipped).
enum FastContent<'a> {
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
struct FastBlock<'a> {
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
struct FastSource<'a> {
    #[serde(borrow, default)]
    media_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    url: Option<Cow<'a, str>>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

fn owned(s: Option<Cow<'_, str>>) -> String {
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

fn fast_image(source: Option<FastSource<'_>>) -> Image {
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
fn fast_value(v: Value, level: usize) -> Option<Value> {
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
fn fast_row(bytes: &[u8], need: Need) -> Option<Row> {
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
                        Some("text") => out.push(Block::Text(crate::convert::model::text_of(b.text)?)),
                        Some("thinking") => out.push(Block::Reasoning(owned(b.thinking))),
                        Some("redacted_thinking") => drops.push("redacted_thinking".into()),
                        Some("tool_use") => out.push(Block::Call(crate::convert::model::ToolCall {
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

fn str_of(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn image_of(b: &Value) -> Image {
    let s = b.get("source");
    let g = |k: &str| s.and_then(|s| s.get(k)).and_then(Value::as_str).map(str::to_string);
    Image {
        media_type: g("media_type"),
        data: g("data"),
        url: g("url"),
    }
}

fn image_block(i: &Image) -> Value {
    match &i.url {
        Some(u) => json!({"type": "image", "source": {"type": "url", "url": u}}),
        None => json!({"type": "image", "source": {
            "type": "base64",
            "media_type": i.media_type.as_deref().unwrap_or("image/png"),
            "data": i.data.as_deref().unwrap_or(""),
        }}),
    }
}

/// A tool id the API accepts (`[A-Za-z0-9_-]+`): kept when it is one, else derived from it.
pub fn tool_id(id: &str) -> String {
    if !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return id.to_string();
    }
    format!("toolu_{}", ids::uuid(&["convert-tool-id", id]).replace('-', ""))
}

/// [`blocks_of`] written into `l` as a JSON array.
fn blocks(l: &mut Vec<u8>, parts: &[Part]) {
    l.push(b'[');
    for (k, p) in parts.iter().enumerate() {
        if k > 0 {
            l.push(b',');
        }
        match p {
            Part::Image(i) => l.extend(line(&image_block(i))),
            text => {
                l.extend_from_slice(br#"{"type":"text","text":"#);
                text.write_text(l, true);
                l.push(b'}');
            }
        }
    }
    l.push(b']');
}

/// The conversation as transcript lines (without their newlines).
pub fn write(c: &Conversation, o: &WriteOptions, tally: &mut Tally) -> Vec<Vec<u8>> {
    crate::convert::write_whole(writer, c, o, tally)
}

/// [`write`], an entry at a time; `first` is the conversation's first timestamp, `answered`
/// the calls it answers (a call without a result is closed when the conversation goes on).
pub fn writer(
    o: &WriteOptions,
    first: Option<&str>,
    answered: Answered,
    _out: &mut Vec<Vec<u8>>,
) -> Box<dyn EntryWriter> {
    Box::new(Writer::new(o, first, answered))
}

/// The `version` of every row: the writer's, as a row of Claude Code has the client's (readers
/// of transcripts require one).
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The usage of every response: no tokens were spent on it. Claude Code writes the same on the
/// messages a compaction preserves; its resume then estimates the conversation's size itself
/// (a response whose usage adds up to zero is passed over), and usage readers bill nothing.
const NO_USAGE: &str =
    r#"{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}"#;

struct Writer {
    o: WriteOptions,
    clock: Clock,
    parent: Option<String>,
    /// Bytes the target's resume sends since the last compaction, for the estimate.
    bytes: usize,
    answered: Answered,
    tally: Tally,
    /// The unanswered calls of the response written last (its results' uuid, call id and
    /// time): closed if the conversation goes on after it.
    unanswered: Vec<(String, String, String)>,
    /// What every row writes between its parent and its type, escaped once:
    /// `,"isSidechain":false,"userType":"external","cwd":…,"sessionId":…,"type":`.
    middle: Vec<u8>,
}

impl Writer {
    fn new(o: &WriteOptions, first: Option<&str>, answered: Answered) -> Writer {
        Writer {
            o: o.clone(),
            clock: Clock::new(first),
            parent: None,
            bytes: 0,
            answered,
            tally: Tally::default(),
            unanswered: Vec::new(),
            middle: {
                let mut m = br#","isSidechain":false,"userType":"external","cwd":"#.to_vec();
                json_str(&mut m, &o.cwd);
                m.extend_from_slice(br#","sessionId":"#);
                json_str(&mut m, &o.session_id);
                m.extend_from_slice(br#","version":"#);
                json_str(&mut m, VERSION);
                m.extend_from_slice(br#","type":"#);
                m
            },
        }
    }

    /// The start of a row of type `ty` up to its message's value: the bytes [`Writer::row`]
    /// writes before it. [`Writer::end_row`] ends it.
    fn start_row(&self, ty: &str, capacity: usize) -> Vec<u8> {
        let mut l = Vec::with_capacity(capacity + self.middle.len() + 160);
        l.extend_from_slice(br#"{"parentUuid":"#);
        match &self.parent {
            Some(p) => json_str(&mut l, p),
            None => l.extend_from_slice(b"null"),
        }
        l.extend_from_slice(&self.middle);
        json_str(&mut l, ty);
        l.extend_from_slice(br#","message":"#);
        l
    }

    /// The row's `uuid` and `timestamp` after its message; the next row's parent is this one.
    fn end_row(&mut self, mut l: Vec<u8>, uuid: String, ts: &str) -> Vec<u8> {
        l.extend_from_slice(br#","uuid":"#);
        json_str(&mut l, &uuid);
        l.extend_from_slice(br#","timestamp":"#);
        json_str(&mut l, ts);
        l.push(b'}');
        self.parent = Some(uuid);
        l
    }

    /// A user row whose message `{"role":"user","content":…}` has the content `content`
    /// writes, counted in the estimate.
    fn user_with(&mut self, uuid: String, ts: &str, capacity: usize, content: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut l = self.start_row("user", capacity);
        let at = l.len();
        l.extend_from_slice(br#"{"role":"user","content":"#);
        content(&mut l);
        l.push(b'}');
        self.bytes += l.len() - at;
        self.end_row(l, uuid, ts)
    }

    /// The entries every row starts with, in the client's order.
    fn common(&self, ty: &str) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("parentUuid".into(), json!(self.parent));
        m.insert("isSidechain".into(), json!(false));
        m.insert("userType".into(), json!("external"));
        m.insert("cwd".into(), json!(self.o.cwd));
        m.insert("sessionId".into(), json!(self.o.session_id));
        m.insert("version".into(), json!(VERSION));
        m.insert("type".into(), json!(ty));
        m
    }

    fn row(&mut self, uuid: String, ty: &str, ts: &str, extra: Map<String, Value>) -> Vec<u8> {
        let mut m = self.common(ty);
        m.extend(extra);
        m.insert("uuid".into(), json!(uuid));
        m.insert("timestamp".into(), json!(ts));
        self.parent = Some(uuid);
        line(&Value::Object(m))
    }
}

impl EntryWriter for Writer {
    fn entry(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        // A call the conversation went on without answering (interrupted, or its result
        // compacted away) is closed as Codex closes it: Claude Code would otherwise drop it
        // from the request. At the end it may still be answered.
        for (uuid, call_id, ts) in std::mem::take(&mut self.unanswered) {
            let l = self.user_with(uuid, &ts, 0, |l| {
                l.extend_from_slice(br#"[{"tool_use_id":"#);
                json_str(l, &tool_id(&call_id));
                l.extend_from_slice(br#","type":"tool_result","content":"aborted","is_error":true}]"#);
            });
            out.push(l);
            self.tally.closed += 1;
        }
        let ts = self.clock.stamp(e.timestamp.as_deref());
        let sid = self.o.session_id.clone();
        let uuid = |j: usize| ids::uuid(&["convert", &sid, &e.key, &j.to_string()]);
        match &e.body {
            Body::User(parts) => {
                let l = self.user_with(uuid(0), &ts, written_len(parts), |l| match parts.as_slice() {
                    [p] if p.is_text() => p.write_text(l, true),
                    _ => blocks(l, parts),
                });
                out.push(l);
            }
            Body::ToolResult(r) => {
                let l = self.user_with(uuid(0), &ts, written_len(&r.output), |l| {
                    l.extend_from_slice(br#"[{"tool_use_id":"#);
                    json_str(l, &tool_id(&r.call_id));
                    l.extend_from_slice(br#","type":"tool_result","content":"#);
                    match r.output.as_slice() {
                        [] => l.extend_from_slice(br#""""#),
                        [p] if p.is_text() => p.write_text(l, true),
                        parts => blocks(l, parts),
                    }
                    if r.is_error {
                        l.extend_from_slice(br#","is_error":true"#);
                    }
                    l.extend_from_slice(b"}]");
                });
                out.push(l);
            }
            Body::Assistant(blocks) => {
                let msg_id = ids::message_id(&["convert", &sid, &e.key]);
                for (j, b) in blocks.iter().enumerate() {
                    let text = match b {
                        Block::Reasoning(_) if !self.o.reasoning_as_text => {
                            self.tally.drop("reasoning");
                            continue;
                        }
                        Block::Reasoning(t) => Some(Cow::Owned(reasoning_text(t))),
                        Block::Text(t) => Some(Cow::Borrowed(t.as_str())),
                        Block::Call(_) => None,
                    };
                    let mut l = self.start_row("assistant", text.as_ref().map_or(256, |t| t.len() + 200));
                    l.extend_from_slice(br#"{"id":"#);
                    json_str(&mut l, &msg_id);
                    l.extend_from_slice(br#","type":"message","role":"assistant""#);
                    if let Some(m) = &self.o.model {
                        l.extend_from_slice(br#","model":"#);
                        json_str(&mut l, m);
                    }
                    l.extend_from_slice(br#","content":["#);
                    // The block is written once: into the row, and measured for the estimate.
                    let at = l.len();
                    match (b, text) {
                        (_, Some(t)) => {
                            l.extend_from_slice(br#"{"type":"text","text":"#);
                            json_str(&mut l, &t);
                        }
                        (Block::Call(call), None) => {
                            let ((name, input), mapped) = tools::to_claude(&call.name, &call.input);
                            self.tally.map(mapped);
                            l.extend_from_slice(br#"{"type":"tool_use","id":"#);
                            json_str(&mut l, &tool_id(&call.id));
                            l.extend_from_slice(br#","name":"#);
                            json_str(&mut l, &name);
                            l.extend_from_slice(br#","input":"#);
                            l.extend(line(&input));
                        }
                        (_, None) => {}
                    }
                    l.push(b'}');
                    self.bytes += l.len() - at;
                    l.extend_from_slice(br#"],"stop_reason":null,"stop_sequence":null,"usage":"#);
                    l.extend_from_slice(NO_USAGE.as_bytes());
                    l.push(b'}');
                    out.push(self.end_row(l, uuid(j), &ts));
                }
                for (j, b) in blocks.iter().enumerate() {
                    if let Block::Call(call) = b
                        && !self.answered.contains(&call_key(&call.id))
                    {
                        self.unanswered
                            .push((uuid(blocks.len() + j), call.id.clone(), ts.clone()));
                    }
                }
            }
            Body::Compaction(summary) => {
                // What came before is replaced: the count starts again from the summary.
                let pre_tokens = crate::model::approx_tokens(self.bytes);
                self.bytes = summary.len();
                let logical = self.parent.take();
                let mut b = Map::new();
                b.insert("logicalParentUuid".into(), json!(logical));
                b.insert("subtype".into(), json!("compact_boundary"));
                b.insert("content".into(), json!("Conversation compacted"));
                b.insert("isMeta".into(), json!(false));
                b.insert("level".into(), json!("info"));
                b.insert(
                    "compactMetadata".into(),
                    json!({"trigger": "manual", "preTokens": pre_tokens}),
                );
                out.push(self.row(uuid(0), "system", &ts, b));
                let mut s = Map::new();
                s.insert("message".into(), json!({"role": "user", "content": summary}));
                s.insert("isVisibleInTranscriptOnly".into(), json!(true));
                s.insert("isCompactSummary".into(), json!(true));
                out.push(self.row(uuid(1), "user", &ts, s));
            }
        }
    }

    fn finish(&mut self, _out: &mut Vec<Vec<u8>>) {
        self.unanswered.clear();
        self.tally.tokens = crate::model::approx_tokens(self.bytes) as u64;
    }

    fn tally(&mut self) -> Tally {
        std::mem::take(&mut self.tally)
    }
}

mod converter;
pub use converter::Converter;

#[cfg(test)]
mod tests;

/// The lines the writer writes directly against the JSON values it built before.
#[cfg(test)]
mod written_lines;
