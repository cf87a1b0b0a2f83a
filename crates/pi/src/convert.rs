//! pi's side of `convert` ([`cctool_core::agents::Converter`], `docs/convert.md`): a pi
//! session read into the conversation every conversion carries, and that conversation written
//! as a pi session (format v3) that the client resumes.
//!
//! Read: the messages a resume sends (rules P1–P4 of `docs/pi.md`), the compaction it starts
//! from as a compaction rather than the user text it is sent as, and the replies the client
//! leaves out when it sends them (`transformMessages` skips a reply that ended in an error or
//! was aborted, and with it the results of its calls) left out and counted.
//!
//! Written: a header, then one `message` entry per prompt, reply and result, each naming the
//! one before it, and a compaction as pi writes one that keeps nothing before it (its
//! `firstKeptEntryId` its own id, as `appendCompaction` writes it). A call without a result
//! needs nothing: the client sends a synthetic result for it.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::file::{self, Session};
use crate::tree::Tree;
use cctool_core::compact::ids;
use cctool_core::convert::model::{
    Answered, Block, Body, Conversation, Entry, Image, Part, Sink, ToolCall, ToolResult,
};
use cctool_core::convert::read::{from_stream, key, order};
use cctool_core::convert::store::{Placement, StoreError};
use cctool_core::convert::tools::{quote, translate};
use cctool_core::convert::{Clock, EntryWriter, MakeWriter, Tally, WriteOptions, line, reasoning_text};
use cctool_core::io::Source;
use cctool_core::model::time::parse_ms;

/// pi sessions, read and written by `convert`.
pub struct Converter;

impl cctool_core::agents::Converter for Converter {
    fn read(&self, src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
        read(src, full, answered, sink)
    }

    fn writer(&self) -> MakeWriter {
        writer
    }

    /// The client answers a call without a result itself when it sends the conversation.
    fn needs_answered(&self) -> bool {
        false
    }

    fn noun(&self) -> &'static str {
        "a pi session"
    }

    /// A reply names the model that wrote it, and one the client cannot find is not restored:
    /// it says so and resumes with its default.
    fn keeps_foreign_model(&self) -> bool {
        true
    }

    fn place(
        &self,
        first: Option<&[u8]>,
        o: &WriteOptions,
        _: Option<&Path>,
        _: bool,
    ) -> Result<Placement, StoreError> {
        let env = |k: &str| std::env::var_os(k);
        let dir = crate::store::session_dir(&env, &o.cwd).ok_or(StoreError::NoStore(
            "no pi store: set HOME or PI_CODING_AGENT_DIR, or write with -o OUT",
        ))?;
        // The file is named by when the session started, as the client names it: the header's time.
        let header: Option<Value> = first.and_then(|l| serde_json::from_slice(l).ok());
        let started = header
            .as_ref()
            .and_then(|h| h.get("timestamp"))
            .and_then(Value::as_str)
            .unwrap_or("1970-01-01T00:00:00.000Z");
        let name = format!("{}_{}.jsonl", started.replace([':', '.'], "-"), o.session_id);
        Ok(Placement {
            path: dir.join(name),
            resume: format!("cd {} && pi --session {}", quote(&o.cwd), o.session_id),
            imported: None,
        })
    }
}

/// Streams the conversation of `src` to `sink`: what a resume sends, or with `full` the
/// whole branch it follows, each compaction on it marked. The entries are those the session
/// model's stream hands on in that view (`answers::events_of`), each read as the
/// model reads it: as the client migrated it, its latest edit applied, which the record
/// (the line as written) does not say.
pub fn read(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let s = file::read(src)?;
    let t = Tree::of(&s);
    let mut c = Conversation::new(crate::ID);
    c.session_id = s.session_id().map_or_else(|| src.name().to_string(), str::to_string);
    c.cwd = s.cwd().map(str::to_string);
    c.model = model_of(&s, &t.branch);
    c.drop_n("unreadable line", s.bad_lines());
    let edits = crate::model::edits(&s, if full { &t.branch } else { &t.context });
    // The calls of the replies kept: a result of a reply left out goes with it.
    let mut calls = std::collections::HashSet::new();
    let mut first = true;
    from_stream(
        c,
        answered,
        sink,
        |sink| {
            crate::answers::events_of(&s, order(full), sink);
        },
        |r, c, items| {
            let Some(e) =
                r.at.and_then(|at| s.entries.binary_search_by_key(&at.line, |e| e.line).ok())
            else {
                return;
            };
            let e = &s.entries[e];
            let key = key(&r);
            let at = e.timestamp().map(str::to_string);
            let is_first = std::mem::replace(&mut first, false);
            if e.ty() == "compaction" {
                // A resume sends only the compaction it starts from; the whole branch marks each.
                if full || is_first {
                    let summary = e.s("summary").unwrap_or_default().to_string();
                    items.push((key, at, Body::Compaction(summary)));
                }
                return;
            }
            for m in crate::model::messages_of(e, &edits) {
                if let Some(body) = body_of(&m, &mut calls, c) {
                    items.push((key.clone(), at.clone(), body));
                }
            }
        },
    )
}

/// The model the branch last ran with: its latest reply's, or the latest `model_change`.
fn model_of(s: &Session, branch: &[usize]) -> Option<String> {
    branch.iter().rev().find_map(|&i| {
        let e = &s.entries[i];
        match e.ty() {
            "model_change" => e.s("modelId").map(str::to_string),
            _ if e.role() == Some("assistant") => e
                .message()
                .and_then(|m| m.get("model"))
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        }
    })
}

/// A message as the model reads it, as a body; `None` (counted) when the client does not send
/// it or the conversation has no word for it.
fn body_of(m: &Value, calls: &mut std::collections::HashSet<String>, c: &mut Conversation) -> Option<Body> {
    let content = m.get("content");
    match m.get("role").and_then(Value::as_str).unwrap_or("") {
        "user" => Some(Body::User(parts(content, c))),
        "assistant" => {
            if matches!(m.get("stopReason").and_then(Value::as_str), Some("error" | "aborted")) {
                c.drop("reply that ended in an error or was aborted");
                return None;
            }
            let mut blocks = Vec::new();
            for b in content.and_then(Value::as_array).into_iter().flatten() {
                let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                match b.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text" => blocks.push(Block::Text(s("text"))),
                    "thinking" if b.get("redacted").and_then(Value::as_bool) == Some(true) => {
                        c.drop("redacted thinking")
                    }
                    "thinking" => blocks.push(Block::Reasoning(s("thinking"))),
                    "toolCall" => {
                        calls.insert(s("id"));
                        blocks.push(Block::Call(ToolCall {
                            id: s("id"),
                            name: s("name"),
                            input: b.get("arguments").cloned().unwrap_or_else(|| json!({})),
                        }));
                    }
                    other => c.drop(&format!("{other} block")),
                }
            }
            Some(Body::Assistant(blocks))
        }
        "toolResult" => {
            let id = m
                .get("toolCallId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if !calls.contains(&id) {
                c.drop("result of a call no reply sent");
                return None;
            }
            Some(Body::ToolResult(ToolResult {
                call_id: id,
                output: parts(content, c),
                is_error: m.get("isError").and_then(Value::as_bool) == Some(true),
            }))
        }
        _ => {
            c.drop("system message");
            None
        }
    }
}

/// A message's content as parts: a string is one text, blocks each by their `type`.
fn parts(content: Option<&Value>, c: &mut Conversation) -> Vec<Part> {
    match content {
        Some(Value::String(t)) => vec![Part::Text(t.clone())],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| {
                let s = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_string);
                match b.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text" => Some(Part::Text(s("text").unwrap_or_default())),
                    "image" => Some(Part::Image(Image {
                        media_type: s("mimeType"),
                        data: s("data"),
                        url: None,
                    })),
                    other => {
                        c.drop(&format!("{other} block"));
                        None
                    }
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The writer of pi entries; the header (and the model chosen with `--model PROVIDER/ID`)
/// goes to `out`.
pub fn writer(o: &WriteOptions, first: Option<&str>, _: Answered, out: &mut Vec<Vec<u8>>) -> Box<dyn EntryWriter> {
    let mut clock = Clock::new(first);
    let started = clock.stamp(first);
    out.push(line(&json!({
        "type": "session",
        "version": file::CURRENT_VERSION,
        "id": o.session_id,
        "timestamp": started,
        "cwd": o.cwd,
    })));
    let (provider, model) = match o.model.as_deref().map(|m| m.split_once('/')) {
        Some(Some((p, m))) => (p.to_string(), m.to_string()),
        _ => (
            "cctool".to_string(),
            o.model.clone().unwrap_or_else(|| "unknown".into()),
        ),
    };
    let mut w = Writer {
        o: o.clone(),
        clock,
        parent: None,
        ids: Default::default(),
        names: Default::default(),
        files: Default::default(),
        provider,
        model,
        tally: Tally::default(),
        bytes: 0,
    };
    // A model named with its provider is one the client can restore: said as it says a choice.
    if o.model.as_deref().is_some_and(|m| m.contains('/')) {
        let at = w.clock.stamp(first);
        let id = w.id("model_change");
        let fields = Map::from_iter([
            ("provider".to_string(), json!(w.provider)),
            ("modelId".to_string(), json!(w.model)),
        ]);
        w.put(id, "model_change", &at, fields, out);
    }
    Box::new(w)
}

struct Writer {
    o: WriteOptions,
    clock: Clock,
    /// The id of the entry written last, which the next names.
    parent: Option<String>,
    /// The entry ids handed out, each unique as the client makes them.
    ids: std::collections::HashSet<String>,
    /// Each call's tool as written, which its result names.
    names: std::collections::HashMap<String, String>,
    files: cctool_core::convert::tools::Files,
    provider: String,
    model: String,
    tally: Tally,
    /// Bytes of the entries a resume sends, for the estimate.
    bytes: usize,
}

impl Writer {
    /// A new entry id (eight hex digits, as the client's), derived from the session and `key`.
    fn id(&mut self, key: &str) -> String {
        let mut n = 0u32;
        loop {
            let salt = n.to_string();
            let id = ids::uuid(&["cctool-convert-pi", &self.o.session_id, key, &salt])[..8].to_string();
            if self.ids.insert(id.clone()) {
                return id;
            }
            n += 1;
        }
    }

    /// Writes the entry `id` of `ty` after the last, its own fields in `fields`.
    fn put(&mut self, id: String, ty: &str, at: &str, fields: Map<String, Value>, out: &mut Vec<Vec<u8>>) {
        let mut m = Map::new();
        m.insert("type".into(), json!(ty));
        m.insert("id".into(), json!(id));
        m.insert("parentId".into(), json!(self.parent));
        m.insert("timestamp".into(), json!(at));
        m.extend(fields);
        let l = line(&Value::Object(m));
        self.bytes += l.len() + 1;
        out.push(l);
        self.parent = Some(id);
    }

    fn message(&mut self, key: &str, at: &str, message: Value, out: &mut Vec<Vec<u8>>) {
        let id = self.id(key);
        self.put(
            id,
            "message",
            at,
            Map::from_iter([("message".to_string(), message)]),
            out,
        );
    }

    /// Texts and images as pi's content blocks; an image given by address, which pi cannot
    /// hold, is counted.
    fn content(&mut self, parts: &[Part]) -> Vec<Value> {
        let mut blocks = Vec::new();
        for p in parts {
            match p {
                Part::Image(Image {
                    data: Some(d),
                    media_type,
                    ..
                }) => blocks.push(json!({
                    "type": "image",
                    "data": d,
                    "mimeType": media_type.as_deref().unwrap_or("image/png"),
                })),
                Part::Image(_) => self.tally.drop("image by URL"),
                Part::Text(t) => blocks.push(json!({"type": "text", "text": t})),
                Part::Json(j) => blocks.push(json!({"type": "text", "text": j.text()})),
            }
        }
        blocks
    }

    fn usage() -> Value {
        let zero = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0});
        json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": zero})
    }
}

impl EntryWriter for Writer {
    fn entry(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        let at = self.clock.stamp(e.timestamp.as_deref());
        let ms = parse_ms(&at).unwrap_or(0);
        match &e.body {
            Body::User(parts) => {
                let content = self.content(parts);
                self.message(
                    &e.key,
                    &at,
                    json!({"role": "user", "content": content, "timestamp": ms}),
                    out,
                );
            }
            Body::Compaction(summary) => {
                let id = self.id(&e.key);
                let fields = Map::from_iter([
                    ("summary".to_string(), json!(summary)),
                    ("firstKeptEntryId".to_string(), json!(id)),
                    ("tokensBefore".to_string(), json!(0)),
                ]);
                self.put(id, "compaction", &at, fields, out);
            }
            Body::Assistant(blocks) => {
                let mut content = Vec::new();
                let mut calls = false;
                for b in blocks {
                    match b {
                        Block::Text(t) => content.push(json!({"type": "text", "text": t})),
                        Block::Reasoning(t) if self.o.reasoning_as_text => {
                            content.push(json!({"type": "text", "text": reasoning_text(t)}))
                        }
                        Block::Reasoning(_) => self.tally.drop("reasoning"),
                        Block::Call(c) => {
                            let t = translate(
                                self.o.tools,
                                &crate::tools::PiTools,
                                &c.name,
                                &c.input,
                                Some(&mut self.files),
                            );
                            self.tally.map(t.mapped);
                            if let Some(l) = t.lost {
                                self.tally.drop(&l);
                            }
                            self.names.insert(c.id.clone(), t.name.clone());
                            calls = true;
                            content.push(json!({
                                "type": "toolCall",
                                "id": c.id,
                                "name": t.name,
                                "arguments": t.input.into_value(),
                            }));
                        }
                    }
                }
                let message = json!({
                    "role": "assistant",
                    "content": content,
                    "api": "cctool-convert",
                    "provider": self.provider,
                    "model": self.model,
                    "usage": Writer::usage(),
                    "stopReason": if calls { "toolUse" } else { "stop" },
                    "timestamp": ms,
                });
                self.message(&e.key, &at, message, out);
            }
            Body::ToolResult(r) => {
                let content = self.content(&r.output);
                let name = self.names.get(&r.call_id).cloned().unwrap_or_default();
                let message = json!({
                    "role": "toolResult",
                    "toolCallId": r.call_id,
                    "toolName": name,
                    "content": content,
                    "isError": r.is_error,
                    "timestamp": ms,
                });
                self.message(&e.key, &at, message, out);
            }
        }
    }

    fn finish(&mut self, _: &mut Vec<Vec<u8>>) {}

    fn tally(&mut self) -> Tally {
        Tally {
            tokens: cctool_core::model::approx_tokens(self.bytes) as u64,
            ..self.tally.clone()
        }
    }
}
