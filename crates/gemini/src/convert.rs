//! Gemini CLI's side of `convert` ([`cctool_core::agents::Converter`], `docs/convert.md`): a chat
//! read into the conversation every conversion carries, and that conversation written as a chat
//! the client resumes.
//!
//! Read: the messages a resume loads (`docs/gemini.md`), in the replay's order, as the client
//! sends them (GM2: ignored prompts and notices left out), each call's result once (the client
//! sends a result again for every snapshot that kept it: a repeat is no new result), the
//! compression the history starts from as a compaction.
//!
//! Written: a header as the client writes one (`projectHash` the SHA-256 of the folder), then a
//! message record per prompt, reply and result: a reply's calls in its `toolCalls`, each result a
//! user message of one `functionResponse`, as the client writes them; a compaction as the client's
//! compression, a `$set.messages` of the summary and the model's acknowledgement.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::Digest;

use crate::replay::Replay;
use cctool_core::compact::ids;
use cctool_core::convert::model::{
    Answered, Block, Body, Conversation, Entry, Part, Sink, ToolCall, ToolResult, Unnamed, call_key,
};
use cctool_core::convert::read::{Item, ask, from_stream};
use cctool_core::convert::store::{Placement, StoreError};
use cctool_core::convert::tools::{quote, translate};
use cctool_core::convert::{Clock, EntryWriter, MakeWriter, Tally, WriteOptions, line, reasoning_text};
use cctool_core::io::Source;

/// What the client answers a compression's summary with (`getCompressionPrompt`'s exchange).
pub const ACKNOWLEDGEMENT: &str = "Got it. Thanks for the additional context!";

/// Gemini CLI chats, read and written by `convert`.
pub struct Converter;

impl cctool_core::agents::Converter for Converter {
    fn read(&self, src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
        read(src, full, answered, sink)
    }

    fn writer(&self) -> MakeWriter {
        writer
    }

    /// The client adds no result for a call without one, and the API refuses a call turn
    /// whose responses do not match its calls (400, "the number of function response parts"):
    /// the writer closes every call the conversation leaves unanswered.
    fn needs_answered(&self) -> bool {
        true
    }

    fn noun(&self) -> &'static str {
        "a Gemini CLI chat"
    }

    /// A reply names its model; the client resumes with its own model whatever it says.
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
        let home = env("GEMINI_CLI_HOME")
            .or_else(|| env("HOME"))
            .map(PathBuf::from)
            .ok_or(StoreError::NoStore(
                "no Gemini CLI store: set HOME, or write with -o OUT",
            ))?;
        let gemini = home.join(".gemini");
        let project = project_folder(&gemini, &o.cwd).ok_or(StoreError::NoStore(
            "Gemini CLI has no folder for this project in ~/.gemini/projects.json: run gemini once in it, or write with -o OUT",
        ))?;
        let header: Option<Value> = first.and_then(|l| serde_json::from_slice(l).ok());
        let started = header
            .as_ref()
            .and_then(|h| h.get("startTime"))
            .and_then(Value::as_str)
            .unwrap_or("1970-01-01T00:00:00.000Z");
        let minute = started.get(..16).unwrap_or("1970-01-01T00:00").replace(':', "-");
        let short = o.session_id.get(..8).unwrap_or(&o.session_id);
        let name = format!("session-{minute}-{short}.jsonl");
        Ok(Placement {
            path: gemini
                .join(crate::store::TMP_FOLDER)
                .join(project)
                .join("chats")
                .join(name),
            resume: format!("cd {} && gemini --resume {}", quote(&o.cwd), o.session_id),
            imported: None,
        })
    }
}

/// The folder `~/.gemini/projects.json` names for `cwd`.
fn project_folder(gemini: &Path, cwd: &str) -> Option<String> {
    let text = std::fs::read(gemini.join("projects.json")).ok()?;
    let v: Value = serde_json::from_slice(&text).ok()?;
    let cwd = cwd.trim_end_matches('/');
    v.get("projects")?.get(cwd)?.as_str().map(str::to_string)
}

/// The folder the chat ran in: the first workspace folder its latest session context names.
fn cwd_of(r: &Replay) -> Option<String> {
    let parts = crate::sent::session_context(r)?;
    let text = crate::sent::text_of(Some(&Value::Array(parts)));
    let mut lines = text.lines().skip_while(|l| !l.contains("Workspace Directories"));
    lines.next()?;
    lines.next()?.trim().strip_prefix("- ").map(str::to_string)
}

/// Streams the conversation of `src` to `sink`: what a resume loads, or with `full` the whole
/// history, each compression in it marked. The messages are those the session model's stream
/// hands on in that view (`answers::events_of`), each as the replay left it.
pub fn read(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let mut chat = crate::file::read(src)?;
    let r = crate::replay::replay(&mut chat);
    let mut c = Conversation::new(crate::ID);
    c.session_id = r.session_id().map_or_else(|| src.name().to_string(), str::to_string);
    c.cwd = cwd_of(&r);
    c.model = r
        .loaded
        .iter()
        .rev()
        .find_map(|&i| r.msgs[i].s("model").map(str::to_string));
    c.drop_n("unreadable line", chat.bad_lines());
    // A resume sends the current compression's summary (each resume writes it again, so it is
    // known by its id); the whole history marks each.
    let summary_id = |k: &crate::replay::Compression| k.summary_msg.map(|m| r.msgs[m].id.clone());
    let summaries: Vec<String> = match full {
        true => r.compressions.iter().filter_map(summary_id).collect(),
        false => r
            .current()
            .and_then(|k| summary_id(&r.compressions[k]))
            .into_iter()
            .collect(),
    };
    let mut results = std::collections::HashSet::new();
    let mut after_summary = false;
    from_stream(
        c,
        answered,
        sink,
        |sink| {
            crate::answers::events_of(&chat, &r, ask(full), sink);
        },
        |rec, c, out| {
            let (Some(Value::Object(m)), Some(id)) = (&rec.native, &rec.id) else {
                return;
            };
            let at = rec.time.clone();
            if summaries.contains(id) {
                let text = crate::sent::text_of(m.get("content"));
                out.push((id.clone(), at, Body::Compaction(text)));
                after_summary = true;
                return;
            }
            // The model's acknowledgement of a summary is the client's own half of the
            // compression's exchange: the target makes its own compaction of the summary.
            if std::mem::take(&mut after_summary) && is_acknowledgement(m) {
                return;
            }
            let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
            if !crate::sent::sends(m) {
                if ty != "user" {
                    c.drop(&format!("{ty} message"));
                }
                return;
            }
            match ty {
                "user" => user(m.get("content"), id, at, &mut results, c, out),
                _ => gemini(m, id, at, &mut results, c, out),
            }
        },
    )
}

/// Whether a message is the model's acknowledgement of a compression's summary, as the client
/// writes it.
fn is_acknowledgement(m: &serde_json::Map<String, Value>) -> bool {
    m.get("type").and_then(Value::as_str) == Some("gemini")
        && m.get("toolCalls")
            .is_none_or(|c| c.as_array().is_some_and(Vec::is_empty))
        && crate::sent::text_of(m.get("content")) == ACKNOWLEDGEMENT
}

/// A function response's output as parts: its `output` text, else the response as JSON.
fn output_of(response: Option<&Value>) -> Vec<Part> {
    match response {
        Some(r) => match r.get("output").and_then(Value::as_str) {
            Some(t) => vec![Part::Text(t.to_string())],
            None => vec![Part::Text(r.to_string())],
        },
        None => Vec::new(),
    }
}

fn user(
    content: Option<&Value>,
    id: &str,
    at: Option<String>,
    results: &mut std::collections::HashSet<String>,
    c: &mut Conversation,
    out: &mut Vec<Item>,
) {
    let parts: Vec<Value> = match content {
        Some(Value::Array(a)) => a.clone(),
        Some(other) => vec![other.clone()],
        None => Vec::new(),
    };
    let mut texts = Vec::new();
    for p in &parts {
        if let Some(f) = p.get("functionResponse") {
            let call = f.get("id").and_then(Value::as_str).unwrap_or("").to_string();
            if results.insert(call.clone()) {
                let body = Body::ToolResult(ToolResult {
                    call_id: call,
                    output: output_of(f.get("response")),
                    is_error: false,
                });
                out.push((format!("{id}:{}", out.len()), at.clone(), body));
            } else {
                c.drop("repeated function response");
            }
        } else if let Some(t) = p.as_str().or_else(|| p.get("text").and_then(Value::as_str)) {
            texts.push(Part::Text(t.to_string()));
        } else {
            c.drop("user part of no kind carried");
        }
    }
    if !texts.is_empty() {
        out.push((id.to_string(), at, Body::User(texts)));
    }
}

fn gemini(
    m: &serde_json::Map<String, Value>,
    id: &str,
    at: Option<String>,
    results: &mut std::collections::HashSet<String>,
    c: &mut Conversation,
    out: &mut Vec<Item>,
) {
    let mut blocks = Vec::new();
    for t in m.get("thoughts").and_then(Value::as_array).into_iter().flatten() {
        let d = t.get("description").and_then(Value::as_str).unwrap_or("");
        blocks.push(Block::Reasoning(d.to_string()));
    }
    let content: Vec<Value> = match m.get("content") {
        Some(Value::String(s)) if !s.is_empty() => vec![json!({ "text": s })],
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    let mut calls: Vec<Value> = m
        .get("toolCalls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for p in &content {
        if let Some(f) = p.get("functionCall") {
            // A call the content holds, once: the toolCalls of a snapshot may hold it too.
            if !calls.iter().any(|c| c.get("id") == f.get("id")) {
                calls.push(f.clone());
            }
        } else if p.get("thought").and_then(Value::as_bool) == Some(true) {
            blocks.push(Block::Reasoning(
                p.get("text").and_then(Value::as_str).unwrap_or("").into(),
            ));
        } else if let Some(t) = p.get("text").and_then(Value::as_str) {
            blocks.push(Block::Text(t.to_string()));
        } else {
            c.drop("model part of no kind carried");
        }
    }
    for call in &calls {
        blocks.push(Block::Call(ToolCall {
            id: call.get("id").and_then(Value::as_str).unwrap_or("").to_string(),
            name: call.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
            input: call.get("args").cloned().unwrap_or_else(|| json!({})),
        }));
    }
    out.push((id.to_string(), at.clone(), Body::Assistant(blocks)));
    for call in &calls {
        let Some(result) = call.get("result").filter(|r| !r.is_null()) else {
            continue;
        };
        let call_id = call.get("id").and_then(Value::as_str).unwrap_or("").to_string();
        if !results.insert(call_id.clone()) {
            continue;
        }
        let response = match result {
            Value::Array(a) => a
                .first()
                .and_then(|p| p.get("functionResponse"))
                .and_then(|f| f.get("response")),
            Value::String(_) => None,
            other => other.get("functionResponse").and_then(|f| f.get("response")),
        };
        let output = match result {
            Value::String(s) => vec![Part::Text(s.clone())],
            _ => output_of(response),
        };
        let is_error = call
            .get("status")
            .and_then(Value::as_str)
            .is_some_and(|s| s != "success");
        let body = Body::ToolResult(ToolResult {
            call_id,
            output,
            is_error,
        });
        out.push((format!("{id}:{}", out.len()), at.clone(), body));
    }
}

/// The writer of a chat's lines; the header goes to `out`.
pub fn writer(
    o: &WriteOptions,
    first: Option<&str>,
    answered: Answered,
    out: &mut Vec<Vec<u8>>,
) -> Box<dyn EntryWriter> {
    let mut clock = Clock::new(first);
    let started = clock.stamp(first);
    let hash = sha2::Sha256::digest(o.cwd.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    out.push(line(&json!({
        "sessionId": o.session_id,
        "projectHash": hex,
        "startTime": started,
        "lastUpdated": started,
        "kind": "main",
    })));
    Box::new(Writer {
        o: o.clone(),
        clock,
        names: Default::default(),
        files: Default::default(),
        tally: Tally::default(),
        bytes: 0,
        answered,
        unnamed: Unnamed::default(),
    })
}

/// The reason a closed call's response gives, in the client's own form for a cancelled call
/// (`[Operation Cancelled] Reason: …`).
pub const UNANSWERED: &str = "[Operation Cancelled] Reason: no result was recorded";

struct Writer {
    o: WriteOptions,
    clock: Clock,
    /// Each call's tool as written, which its result names.
    names: std::collections::HashMap<String, String>,
    files: cctool_core::convert::tools::Files,
    tally: Tally,
    /// Bytes of the records a resume sends, for the estimate.
    bytes: usize,
    /// The calls the conversation answers; the others are closed where they are made.
    answered: Answered,
    /// The ids given to calls that had none.
    unnamed: Unnamed,
}

impl Writer {
    fn id(&self, key: &str) -> String {
        ids::uuid(&["cctool-convert-gemini", &self.o.session_id, key])
    }

    fn put(&mut self, v: Value, out: &mut Vec<Vec<u8>>) {
        let l = line(&v);
        self.bytes += l.len() + 1;
        out.push(l);
    }

    fn texts(&mut self, parts: &[Part]) -> Vec<Value> {
        parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(json!({ "text": t })),
                Part::Json(j) => Some(json!({ "text": j.text() })),
                Part::Image(_) => {
                    self.tally.drop("image");
                    None
                }
            })
            .collect()
    }

    fn assistant(&mut self, key: &str, at: &str, blocks: &[Block], out: &mut Vec<Vec<u8>>) {
        let mut text = String::new();
        let mut calls = Vec::new();
        let mut open = Vec::new();
        for b in blocks {
            match b {
                Block::Text(t) => text.push_str(t),
                Block::Reasoning(t) if self.o.reasoning_as_text => text.push_str(&reasoning_text(t)),
                Block::Reasoning(_) => self.tally.drop("reasoning"),
                Block::Call(c) => {
                    let t = translate(
                        self.o.tools,
                        &crate::tools::GeminiTools,
                        &c.name,
                        &c.input,
                        Some(&mut self.files),
                    );
                    self.tally.map(t.mapped);
                    if let Some(l) = t.lost {
                        self.tally.drop(&l);
                    }
                    // A call without an id (a Codex `local_shell_call` may have none) gets one:
                    // the client would send ids of its own making for it and its response.
                    let id = self.unnamed.call(&c.id, key, calls.len());
                    let answered = self.answered.contains(&call_key(&c.id));
                    if !answered {
                        open.push((id.clone(), t.name.clone()));
                    }
                    self.names.insert(id.clone(), t.name.clone());
                    calls.push(json!({
                        "id": id, "name": t.name, "args": t.input.into_value(),
                        "status": if answered { "success" } else { "cancelled" }, "timestamp": at,
                    }));
                }
            }
        }
        let mut m = json!({
            "id": self.id(key), "timestamp": at, "type": "gemini", "content": text, "thoughts": [],
            "model": self.o.model.clone().unwrap_or_else(|| "unknown".into()),
        });
        if !calls.is_empty() {
            m["toolCalls"] = Value::Array(calls);
        }
        self.put(m, out);
        // Right after the call turn: the results that follow join the same user turn.
        for (id, name) in open {
            let part = json!({ "functionResponse": { "id": id, "name": name, "response": { "error": UNANSWERED } } });
            let m = json!({ "id": self.id(&format!("{key}:closed:{id}")), "timestamp": at, "type": "user", "content": [part] });
            self.put(m, out);
            self.tally.closed += 1;
        }
    }
}

impl EntryWriter for Writer {
    fn entry(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        let at = self.clock.stamp(e.timestamp.as_deref());
        match &e.body {
            Body::User(parts) => {
                let content = self.texts(parts);
                let m = json!({ "id": self.id(&e.key), "timestamp": at, "type": "user", "content": content });
                self.put(m, out);
            }
            Body::Assistant(blocks) => self.assistant(&e.key, &at, blocks, out),
            Body::ToolResult(r) => {
                let call_id = self.unnamed.result(&r.call_id);
                let name = self.names.get(&call_id).cloned().unwrap_or_else(|| "unknown".into());
                let text: String = r
                    .output
                    .iter()
                    .filter_map(|p| match p {
                        Part::Text(t) => Some(t.clone()),
                        Part::Json(j) => Some(j.text()),
                        Part::Image(_) => {
                            self.tally.drop("image in a tool result");
                            None
                        }
                    })
                    .collect();
                let response = if r.is_error {
                    json!({ "error": text })
                } else {
                    json!({ "output": text })
                };
                let part = json!({ "functionResponse": { "id": call_id, "name": name, "response": response } });
                let m = json!({ "id": self.id(&e.key), "timestamp": at, "type": "user", "content": [part] });
                self.put(m, out);
            }
            Body::Compaction(summary) => {
                let messages = json!([
                    { "id": self.id(&e.key), "timestamp": at, "type": "user", "content": [{ "text": summary }] },
                    { "id": self.id(&format!("{}:ack", e.key)), "timestamp": at, "type": "gemini", "content": [{ "text": ACKNOWLEDGEMENT }] },
                ]);
                self.put(json!({ "$set": { "messages": messages } }), out);
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
