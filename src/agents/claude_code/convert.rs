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
use crate::convert::model::{Block, Body, Conversation, Image, Part, ToolResult};
use crate::convert::tools;
use crate::convert::{Clock, Tally, WriteOptions, line, reasoning_text};
use crate::io::Source;
use crate::model::Format;

/// The conversation a resume of `src` loads (`full`: its whole history).
pub fn read(src: &Source, full: bool) -> std::io::Result<Conversation> {
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
    let mut carried_lines = rustc_hash::FxHashSet::default();
    let mut last_msg: Option<(u32, usize)> = None;
    let mut taken = rustc_hash::FxHashSet::default();
    let mut released = src.releaser();
    for (i, &p) in positions.iter().enumerate() {
        let node = t.node(p);
        let rec = crate::io::json::parse_record(&src.read_range(node.offset, node.len as usize)?);
        released.touch(node.offset, node.len);
        carried_lines.insert(node.line);
        let key = rec.get("uuid").and_then(Value::as_str).unwrap_or("").to_string();
        let key = if key.is_empty() { format!("L{}", node.line) } else { key };
        let ts = rec.get("timestamp").and_then(Value::as_str).map(str::to_string);
        if let Some(cwd) = rec.get("cwd").and_then(Value::as_str) {
            c.cwd = Some(cwd.to_string());
        }
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
                    let n = t.node(q);
                    taken.insert(q);
                    let rec = crate::io::json::parse_record(&src.read_range(n.offset, n.len as usize)?);
                    crate::agents::claude_code::summaries::claude_summary_text(&rec).unwrap_or_default()
                }
                None => String::new(),
            };
            c.push(&key, ts, Body::Compaction(text));
            last_msg = None;
            continue;
        }
        if taken.contains(&p) {
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
                if let Some(m) = rec.pointer("/message/model").and_then(Value::as_str)
                    && m != "<synthetic>"
                {
                    c.model = Some(m.to_string());
                }
                let blocks = read_assistant(&mut c, &rec);
                // Rows of one response (one block per row) become one entry.
                // (`u32::MAX`: a row without a `message.id`, never merged.)
                let same = node.msg_id != u32::MAX
                    && matches!(last_msg, Some((id, i)) if id == node.msg_id && i + 1 == c.entries.len());
                if same && let Some(Body::Assistant(b)) = c.entries.last_mut().map(|e| &mut e.body) {
                    b.extend(blocks);
                } else {
                    c.push(&key, ts, Body::Assistant(blocks));
                }
                last_msg = Some((node.msg_id, c.entries.len() - 1));
            }
            Kind::System => {
                let sub = rec.get("subtype").and_then(Value::as_str).unwrap_or("other");
                c.drop(&format!("system:{sub}"));
            }
            Kind::Attachment => c.drop("attachment"),
        }
    }
    // Every other line: what a resume does not load (earlier history, other branches,
    // progress, snapshots, titles), counted by type.
    crate::io::for_each_line(src, |l| {
        if !carried_lines.contains(&l.no) {
            let h = crate::convert::line_head(l.bytes);
            c.drop(&format!("not loaded:{}", h.ty.as_deref().unwrap_or("unreadable")));
        }
    })?;
    Ok(c)
}

fn read_user(c: &mut Conversation, key: &str, ts: Option<String>, rec: &Value) {
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

fn read_assistant(c: &mut Conversation, rec: &Value) -> Vec<Block> {
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
    let mut out = Vec::new();
    let mut clock = Clock::new(c.first_timestamp());
    let mut parent: Option<String> = None;
    let mut bytes = 0usize;
    let sid = o.session_id.as_str();
    let row = |parent: &mut Option<String>, uuid: String, ty: &str, ts: &str, extra: Map<String, Value>| {
        let mut m = Map::new();
        m.insert("parentUuid".into(), json!(parent));
        m.insert("isSidechain".into(), json!(false));
        m.insert("userType".into(), json!("external"));
        m.insert("cwd".into(), json!(o.cwd));
        m.insert("sessionId".into(), json!(sid));
        m.insert("type".into(), json!(ty));
        m.extend(extra);
        m.insert("uuid".into(), json!(uuid));
        m.insert("timestamp".into(), json!(ts));
        *parent = Some(uuid);
        line(&Value::Object(m))
    };
    let answered: rustc_hash::FxHashSet<&str> = c
        .entries
        .iter()
        .filter_map(|e| match &e.body {
            Body::ToolResult(r) => Some(r.call_id.as_str()),
            _ => None,
        })
        .collect();
    for (i, e) in c.entries.iter().enumerate() {
        let ts = clock.stamp(e.timestamp.as_deref());
        let uuid = |j: usize| ids::uuid(&["convert", sid, &e.key, &j.to_string()]);
        match &e.body {
            Body::User(parts) => {
                let content = match parts.as_slice() {
                    [Part::Text(t)] => json!(t),
                    _ => Value::Array(blocks_of(parts)),
                };
                let message = json!({"role": "user", "content": content});
                bytes += line(&message).len();
                let m = Map::from_iter([("message".to_string(), message)]);
                out.push(row(&mut parent, uuid(0), "user", &ts, m));
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
                let message = json!({"role": "user", "content": [block]});
                bytes += line(&message).len();
                let m = Map::from_iter([("message".to_string(), message)]);
                out.push(row(&mut parent, uuid(0), "user", &ts, m));
            }
            Body::Assistant(blocks) => {
                let msg_id = ids::message_id(&["convert", sid, &e.key]);
                for (j, b) in blocks.iter().enumerate() {
                    let block = match b {
                        Block::Text(t) => json!({"type": "text", "text": t}),
                        Block::Reasoning(t) if o.reasoning_as_text => {
                            json!({"type": "text", "text": reasoning_text(t)})
                        }
                        Block::Reasoning(_) => {
                            tally.drop("reasoning");
                            continue;
                        }
                        Block::Call(call) => {
                            let ((name, input), mapped) = tools::to_claude(&call.name, &call.input);
                            tally.map(mapped);
                            json!({"type": "tool_use", "id": tool_id(&call.id), "name": name, "input": input})
                        }
                    };
                    let mut message = Map::new();
                    message.insert("id".into(), json!(msg_id));
                    message.insert("type".into(), json!("message"));
                    message.insert("role".into(), json!("assistant"));
                    if let Some(m) = &o.model {
                        message.insert("model".into(), json!(m));
                    }
                    message.insert("content".into(), json!([block]));
                    message.insert("stop_reason".into(), Value::Null);
                    message.insert("stop_sequence".into(), Value::Null);
                    bytes += line(&block).len();
                    message.insert(
                        "usage".into(),
                        json!({"input_tokens": crate::model::approx_tokens(bytes), "output_tokens": 0}),
                    );
                    let m = Map::from_iter([("message".to_string(), Value::Object(message))]);
                    out.push(row(&mut parent, uuid(j), "assistant", &ts, m));
                }
                // A call the conversation went on without answering (interrupted, or its
                // result compacted away) is closed as Codex closes it: Claude Code would
                // otherwise drop it from the request. At the end it may still be answered.
                if i + 1 < c.entries.len() {
                    for (j, b) in blocks.iter().enumerate() {
                        if let Block::Call(call) = b
                            && !answered.contains(call.id.as_str())
                        {
                            let block = json!({"tool_use_id": tool_id(&call.id), "type": "tool_result",
                                               "content": "aborted", "is_error": true});
                            let message = json!({"role": "user", "content": [block]});
                            bytes += line(&message).len();
                            let m = Map::from_iter([("message".to_string(), message)]);
                            out.push(row(&mut parent, uuid(blocks.len() + j), "user", &ts, m));
                            tally.closed += 1;
                        }
                    }
                }
            }
            Body::Compaction(summary) => {
                // What came before is replaced: the count starts again from the summary.
                let pre_tokens = crate::model::approx_tokens(bytes);
                bytes = summary.len();
                let logical = parent.take();
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
                out.push(row(&mut parent, uuid(0), "system", &ts, b));
                let mut s = Map::new();
                s.insert("message".into(), json!({"role": "user", "content": summary}));
                s.insert("isVisibleInTranscriptOnly".into(), json!(true));
                s.insert("isCompactSummary".into(), json!(true));
                out.push(row(&mut parent, uuid(1), "user", &ts, s));
            }
        }
    }
    tally.tokens = crate::model::approx_tokens(bytes) as u64;
    out
}
