//! Claude Code transcripts to and from the conversation of `cctool convert`
//! (`docs/convert.md`).
//!
//! Read: the chain a resume loads (`chain.rs`), from its last compaction, or with `full` the
//! whole history with every compaction at its place. Written: a linked `uuid`/`parentUuid`
//! chain (without it Claude Code loads only the last record), one `message.id` shared by the
//! rows of one response (without it the client splits the response apart), tool ids the API
//! accepts, every tool input an object, each compaction a `compact_boundary` row and its
//! summary row.

use serde_json::{Map, Value, json};

use super::chain::{self as claude, Kind, Options, flag};
use crate::compact::ids;
use crate::convert::model::{
    Answered, Block, Body, Conversation, Emitter, Entry, Image, Part, Sink, ToolResult, call_key, collect,
};
use crate::convert::tools;
use crate::convert::{Clock, EntryWriter, Tally, WriteOptions, line, line_with, reasoning_text};
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
    // The writers put the working directory and the model on their first lines: the last of
    // each along the chain, found from its end.
    for &p in positions.iter().rev() {
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
    let mut last_msg: Option<(u32, usize)> = None;
    let mut taken = rustc_hash::FxHashSet::default();
    let mut released = src.releaser();
    for (i, &p) in positions.iter().enumerate() {
        c.check()?;
        let node = t.node(p);
        let rec = crate::io::json::parse_record(&src.read_range(node.offset, node.len as usize)?);
        released.touch(node.offset, node.len);
        let key = rec.get("uuid").and_then(Value::as_str).unwrap_or("").to_string();
        let key = if key.is_empty() { format!("L{}", node.line) } else { key };
        let ts = rec.get("timestamp").and_then(Value::as_str).map(str::to_string);
        if node.is_boundary() {
            // The boundary's summary is the first summary row before the next boundary; rows
            // a compaction preserved may come between (2.1.88 session memory). The target
            // has the summary at the boundary, as its own compaction, and the rest after.
            let summary = positions[i + 1..]
                .iter()
                .take_while(|&&q| !t.node(q).is_boundary())
                .find(|&&q| t.node(q).kind == Kind::User && t.node(q).has(flag::COMPACT_SUMMARY));
            let text = match summary {
                Some(&q) => {
                    taken.insert(q);
                    crate::agents::claude_code::summaries::claude_summary_text(&record(q)?).unwrap_or_default()
                }
                None => String::new(),
            };
            c.push(&key, ts, Body::Compaction(text));
            last_msg = None;
            continue;
        }
        if taken.remove(&p) {
            continue;
        }
        if node.kind == Kind::User && node.has(flag::COMPACT_SUMMARY) {
            // A summary without its boundary in the chain: still the conversation's start.
            let text = crate::agents::claude_code::summaries::claude_summary_text(&rec).unwrap_or_default();
            c.push(&key, ts, Body::Compaction(text));
            last_msg = None;
            continue;
        }
        match node.kind {
            Kind::User => {
                read_user(&mut c, &key, ts, &rec);
                last_msg = None;
            }
            Kind::Assistant if node.has(flag::API_ERROR) => c.drop("assistant:api-error"),
            Kind::Assistant => {
                let blocks = read_assistant(&mut c, &rec);
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
            Kind::System => {
                let sub = rec.get("subtype").and_then(Value::as_str).unwrap_or("other");
                c.drop(&format!("system:{sub}"));
            }
            Kind::Attachment => c.drop("attachment"),
        }
    }
    let mut c = c.finish()?;
    // Every other line: what a resume does not load (earlier history, other branches,
    // progress, snapshots, titles), counted by type.
    for (kind, n) in not_loaded(src, &t, positions)? {
        c.drop_n(&kind, n);
    }
    Ok(c)
}

/// The lines of `src` the conversation does not carry (the rows at `positions`), counted by
/// type, on every core. A line is told carried by where it starts. A message row's type is its
/// kind in the index, which read it from the same line; only the other lines (progress,
/// snapshots, titles, unreadable ones) are parsed again. [`not_loaded_in_order`] is the plain
/// reading.
fn not_loaded(
    src: &Source,
    t: &claude::Transcript,
    positions: &[u32],
) -> std::io::Result<std::collections::BTreeMap<String, u64>> {
    let mut starts: Vec<u64> = positions.iter().map(|&p| t.node(p).offset).collect();
    starts.sort_unstable();
    let mut rows: Vec<(u64, Kind)> = t.nodes.iter().map(|n| (n.offset, n.kind)).collect();
    rows.sort_unstable_by_key(|&(o, _)| o);
    let mut counts = std::collections::BTreeMap::new();
    crate::io::lines::par_fold(
        src,
        std::collections::BTreeMap::<String, u64>::new,
        |w, l| {
            if starts.binary_search(&l.offset).is_ok() {
                return;
            }
            let ty = match rows.binary_search_by_key(&l.offset, |&(o, _)| o) {
                Ok(i) => format!("not loaded:{}", kind_type(rows[i].1)),
                Err(_) => not_loaded_type(l.bytes),
            };
            *w.entry(ty).or_insert(0) += 1;
        },
        |w, _| {
            for (ty, n) in w {
                *counts.entry(ty).or_insert(0) += n;
            }
        },
    )?;
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

fn read_user(c: &mut Emitter<'_>, key: &str, ts: Option<String>, rec: &Value) {
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
                                        c.drop("tool_result block");
                                        None
                                    }
                                })
                                .collect(),
                            _ => Vec::new(),
                        };
                        let r = ToolResult {
                            call_id: str_of(b, "tool_use_id"),
                            output,
                            is_error: b.get("is_error") == Some(&Value::Bool(true)),
                        };
                        c.push(key, ts.clone(), Body::ToolResult(r));
                    }
                    Some(other) => c.drop(&format!("user block:{other}")),
                    None => c.drop("user block"),
                }
            }
        }
        _ => c.drop("user:no content"),
    }
    if !parts.is_empty() {
        c.push(key, ts, Body::User(parts));
    }
}

fn read_assistant(c: &mut Emitter<'_>, rec: &Value) -> Vec<Block> {
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
            Some("redacted_thinking") => c.drop("redacted_thinking"),
            Some("tool_use") => out.push(Block::Call(crate::convert::model::ToolCall {
                id: str_of(b, "id"),
                name: str_of(b, "name"),
                input: b.get("input").cloned().unwrap_or_else(|| json!({})),
            })),
            Some(other) => c.drop(&format!("assistant block:{other}")),
            None => c.drop("assistant block"),
        }
    }
    out
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

fn blocks_of(parts: &[Part]) -> Vec<Value> {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => json!({"type": "text", "text": t}),
            Part::Image(i) => image_block(i),
        })
        .collect()
}

/// A tool id the API accepts (`[A-Za-z0-9_-]+`): kept when it is one, else derived from it.
pub fn tool_id(id: &str) -> String {
    if !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return id.to_string();
    }
    format!("toolu_{}", ids::uuid(&["convert-tool-id", id]).replace('-', ""))
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
        }
    }

    /// A row whose one entry besides the common ones is `key`, already serialized as `raw`
    /// ([`line_with`]): the bytes of [`Writer::row`] with `{key: raw}`.
    fn row_raw(&mut self, uuid: String, ty: &str, ts: &str, key: &str, raw: &[u8]) -> Vec<u8> {
        let m = self.common(ty);
        let l = line_with(m, key, raw, &[("uuid", json!(uuid)), ("timestamp", json!(ts))]);
        self.parent = Some(uuid);
        l
    }

    /// The entries every row starts with, in the client's order.
    fn common(&self, ty: &str) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("parentUuid".into(), json!(self.parent));
        m.insert("isSidechain".into(), json!(false));
        m.insert("userType".into(), json!("external"));
        m.insert("cwd".into(), json!(self.o.cwd));
        m.insert("sessionId".into(), json!(self.o.session_id));
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

    /// A user row with one message, counted in the estimate.
    fn user(&mut self, uuid: String, ts: &str, message: Value) -> Vec<u8> {
        let raw = line(&message);
        self.bytes += raw.len();
        self.row_raw(uuid, "user", ts, "message", &raw)
    }
}

impl EntryWriter for Writer {
    fn entry(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        // A call the conversation went on without answering (interrupted, or its result
        // compacted away) is closed as Codex closes it: Claude Code would otherwise drop it
        // from the request. At the end it may still be answered.
        for (uuid, call_id, ts) in std::mem::take(&mut self.unanswered) {
            let block = json!({"tool_use_id": tool_id(&call_id), "type": "tool_result",
                               "content": "aborted", "is_error": true});
            out.push(self.user(uuid, &ts, json!({"role": "user", "content": [block]})));
            self.tally.closed += 1;
        }
        let ts = self.clock.stamp(e.timestamp.as_deref());
        let sid = self.o.session_id.clone();
        let uuid = |j: usize| ids::uuid(&["convert", &sid, &e.key, &j.to_string()]);
        match &e.body {
            Body::User(parts) => {
                let content = match parts.as_slice() {
                    [Part::Text(t)] => json!(t),
                    _ => Value::Array(blocks_of(parts)),
                };
                out.push(self.user(uuid(0), &ts, json!({"role": "user", "content": content})));
            }
            Body::ToolResult(r) => {
                let content = match r.output.as_slice() {
                    [] => json!(""),
                    [Part::Text(t)] => json!(t),
                    parts => Value::Array(blocks_of(parts)),
                };
                let mut block = json!({"tool_use_id": tool_id(&r.call_id), "type": "tool_result", "content": content});
                if r.is_error {
                    block["is_error"] = json!(true);
                }
                out.push(self.user(uuid(0), &ts, json!({"role": "user", "content": [block]})));
            }
            Body::Assistant(blocks) => {
                let msg_id = ids::message_id(&["convert", &sid, &e.key]);
                for (j, b) in blocks.iter().enumerate() {
                    let block = match b {
                        Block::Text(t) => json!({"type": "text", "text": t}),
                        Block::Reasoning(t) if self.o.reasoning_as_text => {
                            json!({"type": "text", "text": reasoning_text(t)})
                        }
                        Block::Reasoning(_) => {
                            self.tally.drop("reasoning");
                            continue;
                        }
                        Block::Call(call) => {
                            let ((name, input), mapped) = tools::to_claude(&call.name, &call.input);
                            self.tally.map(mapped);
                            json!({"type": "tool_use", "id": tool_id(&call.id), "name": name, "input": input})
                        }
                    };
                    let mut message = Map::new();
                    message.insert("id".into(), json!(msg_id));
                    message.insert("type".into(), json!("message"));
                    message.insert("role".into(), json!("assistant"));
                    if let Some(m) = &self.o.model {
                        message.insert("model".into(), json!(m));
                    }
                    // The block is serialized once: for the estimate, and into the row.
                    let raw = line(&block);
                    self.bytes += raw.len();
                    let mut content = Vec::with_capacity(raw.len() + 2);
                    content.push(b'[');
                    content.extend(raw);
                    content.push(b']');
                    let usage = json!({"input_tokens": crate::model::approx_tokens(self.bytes), "output_tokens": 0});
                    let message = line_with(
                        message,
                        "content",
                        &content,
                        &[
                            ("stop_reason", Value::Null),
                            ("stop_sequence", Value::Null),
                            ("usage", usage),
                        ],
                    );
                    out.push(self.row_raw(uuid(j), "assistant", &ts, "message", &message));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines a transcript's conversion leaves out, counted by type: the parallel count,
    /// which takes message rows' types from the index, and the plain one, which parses every
    /// line, agree on every transcript of the fixtures (whole and from the last compaction)
    /// and on a file of several windows with rows of every sort off the chain.
    #[test]
    fn not_loaded_equals_the_plain_count() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(&root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .filter_map(|e| Some((e.path().display().to_string(), std::fs::read(e.path()).ok()?)))
            .filter(|(_, b)| memchr::memmem::find(b, b"\"parentUuid\"").is_some())
            .collect();
        assert!(files.len() > 50, "{} transcripts", files.len());
        files.push(("windows".into(), odd_rows()));
        let mut counted = 0;
        for (name, bytes) in files {
            let src = Source::from_bytes(&name, bytes);
            let t = claude::read(&src).unwrap();
            for full in [false, true] {
                let positions = t
                    .rebuild(&Options {
                        full,
                        ..Options::default()
                    })
                    .unwrap_or_default()
                    .positions;
                let mut carried = vec![0u64; (t.lines as usize + 64) / 64 + 1];
                for &p in &positions {
                    let line = t.node(p).line;
                    carried[(line / 64) as usize] |= 1 << (line % 64);
                }
                let fast = not_loaded(&src, &t, &positions).unwrap();
                assert_eq!(fast, not_loaded_in_order(&src, &carried).unwrap(), "{name} full={full}");
                counted += fast.values().sum::<u64>();
            }
        }
        assert!(counted > 10_000, "{counted} lines counted");
    }

    /// Past three windows of the parallel reader: a chain with a compaction, rows of another
    /// branch, a uuid written twice, progress rows, snapshots, titles, rows of odd shapes and
    /// lines that are not JSON.
    fn odd_rows() -> Vec<u8> {
        let mut out = Vec::new();
        let mut parent = String::from("null");
        let pad = "p\\\"ad ".repeat(700);
        let mut i = 0u32;
        while out.len() < 26 << 20 {
            let uuid = format!("u{i:08}");
            let ts = format!("2026-01-01T00:{:02}:{:02}.000Z", i / 60 % 60, i % 60);
            let row = |ty: &str, uuid: &str, parent: &str, extra: &str| {
                format!(
                    r#"{{"parentUuid":{parent},"isSidechain":false,"type":"{ty}","uuid":"{uuid}","timestamp":"{ts}","sessionId":"s"{extra}}}"#
                )
            };
            let line = match i % 16 {
                0 | 5 => row(
                    "user",
                    &uuid,
                    &parent,
                    &format!(r#","message":{{"role":"user","content":"{pad}"}}"#),
                ),
                1 | 6 | 9 => row(
                    "assistant",
                    &uuid,
                    &parent,
                    &format!(
                        r#","message":{{"id":"m{}","role":"assistant","content":[{{"type":"text","text":"{pad}"}}]}}"#,
                        i / 4
                    ),
                ),
                2 => row("progress", &uuid, &parent, r#","data":{"x":1}"#),
                3 => format!(r#"{{"type":"file-history-snapshot","messageId":"{uuid}","snapshot":{{"a":"{pad}"}}}}"#),
                4 => row("system", &uuid, &parent, r#","subtype":"informational","content":"x""#),
                // Another branch off the same parent.
                7 => row(
                    "user",
                    &format!("b{i}"),
                    &parent,
                    r#","message":{"role":"user","content":"side"}"#,
                ),
                8 => row("attachment", &uuid, &parent, r#","attachment":{"type":"x"}"#),
                // A uuid written again: the earlier line is not the row.
                10 => row(
                    "user",
                    &format!("u{:08}", i - 1),
                    &parent,
                    r#","message":{"role":"user","content":"again"}"#,
                ),
                11 => r#"{"type":"summary","summary":"t","leafUuid":"x"}"#.to_string(),
                12 => format!(r#"{{"type":"user","uuid":"d{i}","type":"assistant","parentUuid":{parent}}}"#),
                13 => format!(r#"{{"type":7,"uuid":"n{i}"}}"#),
                14 => format!(r#"{{"type":"user","uuid":"x{i}","message":{{"content":"cut"#),
                _ if i % 64 == 15 => format!(
                    r#"{{"parentUuid":{parent},"type":"system","subtype":"compact_boundary","uuid":"{uuid}","timestamp":"{ts}","content":"c"}}"#
                ),
                _ => String::new(),
            };
            if matches!(i % 16, 0 | 1 | 4 | 5 | 6 | 9 | 15) && !line.is_empty() {
                parent = format!("\"{uuid}\"");
            }
            out.extend(line.as_bytes());
            out.extend(if i.is_multiple_of(9) { &b"\r\n"[..] } else { b"\n" });
            i += 1;
        }
        out
    }
}
