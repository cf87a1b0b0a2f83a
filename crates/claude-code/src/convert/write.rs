//! The conversation written as transcript rows: a linked `uuid`/`parentUuid` chain, one
//! `message.id` shared by the rows of one response, tool ids the API accepts, every tool input
//! an object, each compaction a `compact_boundary` row and its summary row.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::super::tools;
use cctool_core::compact::ids;
use cctool_core::convert::json::json_str;
use cctool_core::convert::model::{Answered, Block, Body, Conversation, Entry, Image, Part, call_key, written_len};
use cctool_core::convert::{Clock, EntryWriter, Tally, WriteOptions, line, reasoning_text};

pub(super) fn image_block(i: &Image) -> Value {
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
pub(super) fn blocks(l: &mut Vec<u8>, parts: &[Part]) {
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
    cctool_core::convert::write_whole(writer, c, o, tally)
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
pub(super) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The usage of every response: no tokens were spent on it. Claude Code writes the same on the
/// messages a compaction preserves; its resume then estimates the conversation's size itself
/// (a response whose usage adds up to zero is passed over), and usage readers bill nothing.
pub(super) const NO_USAGE: &str =
    r#"{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}"#;

pub(super) struct Writer {
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
    // Long because it is one arm per kind of entry, each writing the lines that kind becomes
    // with the writer's running state (the chain, the open turn, the tally).
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
                            let ((name, input), mapped) = tools::to_claude(self.o.tools, &call.name, &call.input);
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
                let pre_tokens = cctool_core::model::approx_tokens(self.bytes);
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
        self.tally.tokens = cctool_core::model::approx_tokens(self.bytes) as u64;
    }

    fn tally(&mut self) -> Tally {
        std::mem::take(&mut self.tally)
    }
}

/// The lines the writer writes directly against the JSON values it built before.
#[cfg(test)]
mod written_lines;
