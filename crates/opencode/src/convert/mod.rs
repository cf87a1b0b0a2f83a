//! opencode's side of `convert` ([`cctool_core::agents::Converter`], `docs/convert.md`): a
//! session (a `DB#ID` of the database, or an `opencode export` document) read into the
//! conversation every conversion carries, and that conversation written as the export
//! document that `opencode import FILE` loads.
//!
//! Read: what a resume loads (OC0, `docs/opencode.md`): from the last answered compaction, as
//! a compaction, then what followed; with `--full` every message, each answered compaction
//! marked. A prompt's text parts (not those the client marks `ignored`), its images; a reply's
//! text, reasoning and calls, each call's result (its output, or its error) after the reply.
//! The client's own "continue" prompt after a compaction, replies that ended in an error
//! (the client does not send them, OC4), and bookkeeping parts are left out and counted.
//!
//! Written: one document, `{info, messages: [{info, parts}]}`, with ids in the client's own
//! form (`ses_`, `msg_`, `prt_`, a time-ordered hex head and fourteen base-62 characters)
//! ascending in the order written, because the client loads messages and parts in the order
//! of their ids. A reply is an assistant message naming the prompt it answers (`parentID`),
//! framed by `step-start` and `step-finish` as the client frames a model step, its calls
//! `tool` parts whose `state` holds their result; a compaction is written as the client
//! writes an automatic one: a user message with a `compaction` part, the summary as an
//! assistant message with `summary: true` answering it, then the client's synthetic
//! "continue" prompt. The document is one JSON value: it is held until the conversation ends
//! and written as one line.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::file::{self, Message, Session};
use crate::model::{resume_start, summary_of, text_of};
use cctool_core::compact::ids;
use cctool_core::convert::model::{
    Answered, Block, Body, Conversation, Entry, Image, Part, Sink, ToolCall, ToolResult,
};
use cctool_core::convert::read::{Item, from_stream, order};
use cctool_core::convert::store::{Placement, StoreError};
use cctool_core::convert::tools::{Files, translate};
use cctool_core::convert::{Clock, EntryWriter, MakeWriter, Tally, WriteOptions, line, reasoning_text};
use cctool_core::io::Source;
use cctool_core::model::time::{format_ms, parse_ms};

/// The client whose document is written (the session's `version`).
pub const CLIENT_VERSION: &str = "1.18.33";

/// The prompt the client adds after an automatic compaction (1.18.33's text), marked
/// `synthetic` with `metadata.compaction_continue`.
pub const CONTINUE: &str =
    "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";

/// What the client sends for a tool output it cleared (`time.compacted`).
const CLEARED: &str = crate::api::CLEARED;

/// opencode sessions, read and written by `convert`.
pub struct Converter;

/// Why `convert --into-store` does not place a session in opencode's store.
pub const NOT_INTO_THE_DATABASE: &str = "cctool does not write into opencode's database (the client holds it open and owns its schema): write the export with -o FILE, then run `opencode import FILE` in the session's folder and `opencode --session ID`";

impl cctool_core::agents::Converter for Converter {
    fn read(&self, src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
        read(src, full, answered, sink)
    }

    fn writer(&self) -> MakeWriter {
        writer
    }

    /// A call left without a result is written `pending`; the client sends its own
    /// "interrupted" result for it (OC5).
    fn needs_answered(&self) -> bool {
        false
    }

    fn noun(&self) -> &'static str {
        "an opencode session"
    }

    /// A resume runs with the last prompt's provider and model: another agent's model names no
    /// provider the client has configured, so only `--model PROVIDER/MODEL` names one.
    fn keeps_foreign_model(&self) -> bool {
        false
    }

    /// Refused: the store is a live SQLite database whose schema the client migrates, and a
    /// session written into it half-way (or in last month's schema) is one the client may
    /// lose or refuse. The client's own importer writes it whole, in its own transaction.
    fn place(&self, _: Option<&[u8]>, _: &WriteOptions, _: Option<&Path>, _: bool) -> Result<Placement, StoreError> {
        Err(StoreError::NoStore(NOT_INTO_THE_DATABASE))
    }
}

/// Streams the conversation of `src` to `sink`: what a resume loads, or with `full` every
/// message. The messages are those the session model's stream hands on in that view
/// (`view::events_of`), each read with its parts as the client reads them.
pub fn read(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let s = file::read(src)?;
    let mut c = Conversation::new(crate::ID);
    c.session_id = s.id().map_or_else(|| src.name().to_string(), str::to_string);
    c.cwd = s.s("directory").map(str::to_string);
    c.model = s.messages.iter().rev().find_map(|m| {
        (m.role() == "assistant")
            .then(|| m.info().get("modelID").and_then(Value::as_str))
            .flatten()
            .map(str::to_string)
    });
    c.drop_n("unreadable row", s.unreadable.len() as u64);
    // The stream hands on one record a message of the view, in order.
    let mut next = if full { 0 } else { resume_start(&s) };
    // The summaries of the compactions carried: each is the compaction, not a reply.
    let mut summaries: Vec<&str> = Vec::new();
    from_stream(
        c,
        answered,
        sink,
        |sink| {
            crate::view::events_of(&s, order(full), sink);
        },
        |_, c, out| {
            let i = next;
            next += 1;
            if i >= s.messages.len() {
                return;
            }
            item(&s, i, &mut summaries, c, out);
        },
    )
}

/// Message `i` as the conversation's entries: a compaction's request as the compaction (its
/// summary), a prompt, a reply with its calls and their results.
fn item<'s>(s: &'s Session, i: usize, summaries: &mut Vec<&'s str>, c: &mut Conversation, out: &mut Vec<Item>) {
    let m = &s.messages[i];
    let key = m.id().map_or_else(|| format!("message:{i}"), str::to_string);
    let at = m.created_ms().map(format_ms);
    if m.asks_compaction() {
        match summary_of(s, i).filter(|a| a.is_finished_summary()) {
            Some(a) => {
                summaries.extend(a.id());
                out.push((key, at, Body::Compaction(text_of(a))));
            }
            None => c.drop("compaction never answered"),
        }
        return;
    }
    if m.is_summary() {
        if !m.id().is_some_and(|id| summaries.contains(&id)) {
            c.drop("summary of a compaction never finished");
        }
        return;
    }
    match m.role() {
        "user" => {
            let parts = user_parts(m, c);
            if !parts.is_empty() {
                out.push((key, at, Body::User(parts)));
            }
        }
        "assistant" => reply(m, &key, at, c, out),
        _ => c.drop("message of no role"),
    }
}

fn ty(p: &Value) -> &str {
    p.get("type").and_then(Value::as_str).unwrap_or("")
}

fn str_of<'a>(p: &'a Value, k: &str) -> &'a str {
    p.get(k).and_then(Value::as_str).unwrap_or("")
}

/// An image of a `file` part or an attachment, when it is one the model is sent (its data
/// is in its `data:` URL).
fn image_of(p: &Value) -> Option<Image> {
    let mime = str_of(p, "mime");
    let url = p.get("url").and_then(Value::as_str)?;
    (mime.starts_with("image/") && url.starts_with("data:")).then(|| Image::from_url(url))
}

/// What a prompt sends (OC3, OC8): its text parts and images.
fn user_parts(m: &Message, c: &mut Conversation) -> Vec<Part> {
    let mut parts = Vec::new();
    for p in m.parts.iter().map(file::Part::value) {
        match ty(p) {
            "text" if p.get("ignored").and_then(Value::as_bool) == Some(true) => c.drop("ignored text"),
            // The client's own prompt after a compaction: the writer of each agent writes
            // its own compaction, and this one comes back with opencode's.
            "text" if p.pointer("/metadata/compaction_continue").and_then(Value::as_bool) == Some(true) => {
                c.drop("compaction's continue prompt")
            }
            "text" => parts.push(Part::Text(str_of(p, "text").to_string())),
            "file" => match image_of(p) {
                Some(i) => parts.push(Part::Image(i)),
                // A text file or a folder: its content is the message's synthetic text
                // parts, carried above.
                None if matches!(str_of(p, "mime"), "text/plain" | "application/x-directory") => {}
                None => c.drop("file part"),
            },
            "step-start" | "step-finish" => {}
            other => c.drop(&format!("{other} part")),
        }
    }
    parts
}

/// A reply (one model step) and the results of its calls after it; a reply the client does
/// not send (OC4) is counted.
fn reply(m: &Message, key: &str, at: Option<String>, c: &mut Conversation, out: &mut Vec<Item>) {
    if let Some(e) = m.info().get("error").filter(|e| !e.is_null()) {
        let aborted = str_of(e, "name") == "MessageAbortedError";
        let wrote = m.parts.iter().any(|p| !matches!(p.ty(), "step-start" | "reasoning"));
        if !(aborted && wrote) {
            c.drop("reply that ended in an error");
            return;
        }
    }
    let mut blocks = Vec::new();
    let mut results = Vec::new();
    for p in m.parts.iter().map(file::Part::value) {
        match ty(p) {
            "text" => blocks.push(Block::Text(str_of(p, "text").to_string())),
            "reasoning" => blocks.push(Block::Reasoning(str_of(p, "text").to_string())),
            "tool" => {
                let id = str_of(p, "callID").to_string();
                let state = p.get("state").unwrap_or(&Value::Null);
                let input = state
                    .get("input")
                    .filter(|i| i.is_object())
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                blocks.push(Block::Call(ToolCall {
                    id: id.clone(),
                    name: str_of(p, "tool").to_string(),
                    input,
                }));
                let rkey = p
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("{key}:{id}"), str::to_string);
                let result = |output: Vec<Part>, is_error: bool| {
                    Body::ToolResult(ToolResult {
                        call_id: id.clone(),
                        output,
                        is_error,
                    })
                };
                match str_of(state, "status") {
                    "completed" => {
                        let cleared = state.pointer("/time/compacted").is_some_and(|c| !c.is_null());
                        let mut output = vec![Part::Text(match cleared {
                            true => CLEARED.to_string(),
                            false => str_of(state, "output").to_string(),
                        })];
                        // A cleared output's attachments are not sent either.
                        for a in state.get("attachments").and_then(Value::as_array).into_iter().flatten() {
                            match image_of(a) {
                                Some(i) if !cleared => output.push(Part::Image(i)),
                                _ => c.drop("attachment"),
                            }
                        }
                        results.push((rkey, result(output, false)));
                    }
                    "error" => {
                        let output = vec![Part::Text(str_of(state, "error").to_string())];
                        results.push((rkey, result(output, true)));
                    }
                    // Still pending or running: the client sends it as interrupted, and each
                    // writer closes a call without a result as its agent does.
                    _ => {}
                }
            }
            "step-start" | "step-finish" => {}
            other => c.drop(&format!("{other} part")),
        }
    }
    if blocks.is_empty() {
        return;
    }
    out.push((key.to_string(), at.clone(), Body::Assistant(blocks)));
    for (k, body) in results {
        out.push((k, at.clone(), body));
    }
}

/// The fourteen base-62 characters that end an id, derived from `parts` (the client draws
/// them at random; here converting again gives the same ids).
fn tail(parts: &[&str]) -> String {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let hex: String = ids::uuid(parts).chars().filter(|c| *c != '-').collect();
    let mut n = u128::from_str_radix(&hex, 16).unwrap_or_default();
    (0..14)
        .map(|_| {
            let d = DIGITS[(n % 62) as usize];
            n /= 62;
            char::from(d)
        })
        .collect()
}

/// The id of the session written for `session_id` (the conversion's id), started at `ms`: the
/// client's descending form, so that a newer session sorts first.
pub fn session_id(session_id: &str, ms: i64) -> String {
    let v = !((ms.max(0) as u64).wrapping_mul(0x1000).wrapping_add(1));
    format!(
        "ses_{:012x}{}",
        v & 0xffff_ffff_ffff,
        tail(&["cctool-convert-opencode", session_id, "session"])
    )
}

/// The writer of an opencode export document.
pub fn writer(o: &WriteOptions, first: Option<&str>, _: Answered, _: &mut Vec<Vec<u8>>) -> Box<dyn EntryWriter> {
    let mut clock = Clock::new(first);
    let started = parse_ms(&clock.stamp(first)).unwrap_or(0);
    let (provider, model) = match o.model.as_deref().map(|m| m.split_once('/')) {
        Some(Some((p, m))) => (p.to_string(), m.to_string()),
        _ => (
            "cctool".to_string(),
            o.model.clone().unwrap_or_else(|| "unknown".into()),
        ),
    };
    Box::new(Writer {
        id: session_id(&o.session_id, started),
        o: o.clone(),
        clock,
        started,
        updated: started,
        seq: 0,
        messages: Vec::new(),
        calls: HashMap::new(),
        prompt: None,
        title: None,
        files: Files::default(),
        provider,
        model,
        tally: Tally::default(),
        bytes: 0,
    })
}

struct Writer {
    o: WriteOptions,
    /// The session's id.
    id: String,
    clock: Clock,
    started: i64,
    updated: i64,
    /// The last id's time-ordered head: each new id's is above it.
    seq: u64,
    /// The messages written so far, `{info, parts}`.
    messages: Vec<Value>,
    /// Where each call's part is (message, part), for its result.
    calls: HashMap<String, (usize, usize)>,
    /// The id of the prompt the next reply answers.
    prompt: Option<String>,
    title: Option<String>,
    files: Files,
    provider: String,
    model: String,
    tally: Tally,
    /// Bytes of what a resume loads (since the last compaction), for the estimate.
    bytes: usize,
}

impl Writer {
    /// A new id of `prefix` at `ms`, above every id handed out before (the client orders by
    /// them), its tail derived from the entry `key`.
    fn next_id(&mut self, prefix: &str, ms: i64, key: &str) -> String {
        // Wrapping: a time no parse gives cannot make a bad id panic.
        let v = ((ms.max(0) as u64).wrapping_mul(0x1000).wrapping_add(1)).max(self.seq.wrapping_add(1));
        self.seq = v;
        let n = v.to_string();
        format!(
            "{prefix}_{:012x}{}",
            v & 0xffff_ffff_ffff,
            tail(&["cctool-convert-opencode", &self.o.session_id, prefix, key, &n])
        )
    }

    fn user_info(&self, id: &str, ms: i64) -> Value {
        json!({
            "id": id,
            "sessionID": self.id,
            "role": "user",
            "time": {"created": ms},
            "agent": "build",
            "model": {"providerID": self.provider, "modelID": self.model},
        })
    }

    fn assistant_info(&self, id: &str, ms: i64, finish: &str, summary: bool) -> Value {
        let mode = if summary { "compaction" } else { "build" };
        let mut info = json!({
            "id": id,
            "sessionID": self.id,
            "role": "assistant",
            "time": {"created": ms, "completed": ms},
            "parentID": self.prompt.clone().unwrap_or_default(),
            "modelID": self.model,
            "providerID": self.provider,
            "mode": mode,
            "agent": mode,
            "path": {"cwd": self.o.cwd, "root": self.o.cwd},
            "cost": 0,
            "tokens": zero_tokens(),
            "finish": finish,
        });
        if summary {
            info["summary"] = json!(true);
        }
        info
    }

    /// A part of the message `msg` of `ty` with its own fields.
    fn part(&mut self, msg: &str, ms: i64, key: &str, ty: &str, fields: Value) -> Value {
        let id = self.next_id("prt", ms, key);
        let mut p = Map::new();
        p.insert("id".into(), json!(id));
        p.insert("sessionID".into(), json!(self.id));
        p.insert("messageID".into(), json!(msg));
        p.insert("type".into(), json!(ty));
        if let Value::Object(f) = fields {
            p.extend(f);
        }
        Value::Object(p)
    }

    fn push(&mut self, info: Value, parts: Vec<Value>) -> usize {
        let m = json!({"info": info, "parts": parts});
        self.bytes += line(&m).len();
        self.messages.push(m);
        self.messages.len() - 1
    }

    /// Texts and images as the parts of message `msg`; an image given by address, which the
    /// client cannot send, is counted.
    fn content(&mut self, msg: &str, ms: i64, key: &str, parts: &[Part]) -> Vec<Value> {
        let mut out = Vec::new();
        for (k, p) in parts.iter().enumerate() {
            let key = format!("{key}/{k}");
            match p {
                Part::Image(i @ Image { data: Some(d), .. }) if is_base64(d) => {
                    let mime = i.media_type.clone().unwrap_or_else(|| "image/png".into());
                    let fields = json!({"mime": mime, "filename": "image", "url": i.as_url()});
                    out.push(self.part(msg, ms, &key, "file", fields));
                }
                Part::Image(Image { data: Some(_), .. }) => self.tally.drop("image whose data is not base64"),
                Part::Image(_) => self.tally.drop("image by URL"),
                Part::Text(_) | Part::Json(_) => {
                    let t = match p {
                        Part::Json(j) => j.text(),
                        _ => p.text().unwrap_or_default().to_string(),
                    };
                    if self.title.is_none() && !t.trim().is_empty() {
                        self.title = Some(title_of(&t));
                    }
                    out.push(self.part(msg, ms, &key, "text", json!({"text": t})));
                }
            }
        }
        out
    }

    fn step(&mut self, msg: &str, ms: i64, key: &str, start: bool, reason: &str) -> Value {
        match start {
            true => self.part(msg, ms, &format!("{key}/start"), "step-start", json!({})),
            false => self.part(
                msg,
                ms,
                &format!("{key}/finish"),
                "step-finish",
                json!({"reason": reason, "cost": 0, "tokens": zero_tokens()}),
            ),
        }
    }

    fn user(&mut self, e: &Entry, ms: i64, parts: &[Part]) {
        let id = self.next_id("msg", ms, &e.key);
        let content = self.content(&id, ms, &e.key, parts);
        let info = self.user_info(&id, ms);
        self.push(info, content);
        self.prompt = Some(id);
    }

    fn compaction(&mut self, e: &Entry, ms: i64, summary: &str) {
        let ask = self.next_id("msg", ms, &e.key);
        let part = self.part(&ask, ms, &e.key, "compaction", json!({"auto": true, "overflow": false}));
        let info = self.user_info(&ask, ms);
        self.push(info, vec![part]);
        self.prompt = Some(ask);
        // What a resume loads starts at this compaction (OC0).
        self.bytes = 0;
        let key = format!("{}/summary", e.key);
        let id = self.next_id("msg", ms, &key);
        let parts = vec![
            self.step(&id, ms, &key, true, ""),
            self.part(
                &id,
                ms,
                &format!("{key}/text"),
                "text",
                json!({"text": summary, "time": {"start": ms, "end": ms}}),
            ),
            self.step(&id, ms, &key, false, "stop"),
        ];
        let info = self.assistant_info(&id, ms, "stop", true);
        self.push(info, parts);
        let key = format!("{}/continue", e.key);
        let id = self.next_id("msg", ms, &key);
        let fields = json!({
            "text": CONTINUE,
            "synthetic": true,
            "metadata": {"compaction_continue": true},
            "time": {"start": ms, "end": ms},
        });
        let part = self.part(&id, ms, &format!("{key}/text"), "text", fields);
        let info = self.user_info(&id, ms);
        self.push(info, vec![part]);
        self.prompt = Some(id);
    }

    fn assistant(&mut self, e: &Entry, ms: i64, blocks: &[Block]) {
        let id = self.next_id("msg", ms, &e.key);
        let mut parts = vec![self.step(&id, ms, &e.key, true, "")];
        let mut calls = Vec::new();
        for (k, b) in blocks.iter().enumerate() {
            let key = format!("{}/{k}", e.key);
            let text = |t: String| json!({"text": t, "time": {"start": ms, "end": ms}});
            match b {
                Block::Text(t) => parts.push(self.part(&id, ms, &key, "text", text(t.clone()))),
                Block::Reasoning(t) if self.o.reasoning_as_text => {
                    parts.push(self.part(&id, ms, &key, "text", text(reasoning_text(t))))
                }
                Block::Reasoning(_) => self.tally.drop("reasoning"),
                Block::Call(c) => {
                    let t = translate(
                        self.o.tools,
                        &crate::tools::OpencodeTools,
                        &c.name,
                        &c.input,
                        Some(&mut self.files),
                    );
                    self.tally.map(t.mapped);
                    if let Some(l) = t.lost {
                        self.tally.drop(&l);
                    }
                    let input = t.input.into_value();
                    let state =
                        json!({"status": "pending", "input": input, "raw": cctool_core::io::json::to_json(&input)});
                    let fields = json!({"callID": c.id, "tool": t.name, "state": state});
                    calls.push((c.id.clone(), parts.len()));
                    parts.push(self.part(&id, ms, &key, "tool", fields));
                }
            }
        }
        if parts.len() == 1 {
            // Nothing the model is sent (its reasoning left out): no message.
            return;
        }
        let finish = if calls.is_empty() { "stop" } else { "tool-calls" };
        parts.push(self.step(&id, ms, &e.key, false, finish));
        let info = self.assistant_info(&id, ms, finish, false);
        let at = self.push(info, parts);
        for (call, p) in calls {
            self.calls.insert(call, (at, p));
        }
    }

    fn result(&mut self, ms: i64, r: &ToolResult) {
        let Some((m, p)) = self.calls.remove(&r.call_id) else {
            self.tally.drop("result of a call no reply sent");
            return;
        };
        let msg = self.messages[m]["info"]["id"].as_str().unwrap_or_default().to_string();
        let text: Vec<String> = r
            .output
            .iter()
            .filter_map(|p| match p {
                Part::Json(j) => Some(j.text()),
                _ => p.text().map(str::to_string),
            })
            .collect();
        let text = text.join("\n");
        let mut attachments = Vec::new();
        for (k, o) in r.output.iter().enumerate() {
            match o {
                Part::Image(i @ Image { data: Some(d), .. }) if is_base64(d) => {
                    let mime = i.media_type.clone().unwrap_or_else(|| "image/png".into());
                    let key = format!("{}/attachment/{k}", r.call_id);
                    let fields = json!({"mime": mime, "filename": "image", "url": i.as_url()});
                    attachments.push(self.part(&msg, ms, &key, "file", fields));
                }
                Part::Image(Image { data: Some(_), .. }) => self.tally.drop("image whose data is not base64"),
                Part::Image(_) => self.tally.drop("image by URL"),
                _ => {}
            }
        }
        let part = &mut self.messages[m]["parts"][p];
        let input = part["state"]["input"].take();
        let start = self.messages[m]["info"]["time"]["created"].as_i64().unwrap_or(ms);
        let time = json!({"start": start, "end": ms.max(start)});
        let state = match r.is_error {
            true => json!({"status": "error", "input": input, "error": text, "metadata": {}, "time": time}),
            false => {
                let title = title_of_call(&input);
                let mut s = json!({"status": "completed", "input": input, "output": text, "title": title, "metadata": {}, "time": time});
                if !attachments.is_empty() {
                    s["attachments"] = Value::Array(attachments);
                }
                s
            }
        };
        self.bytes += line(&state).len();
        self.messages[m]["parts"][p]["state"] = state;
    }
}

/// Whether `d` is base64 as a `data:` URL holds it: the client decodes every image's URL when
/// it sends the session, and one it cannot decode fails the whole turn.
fn is_base64(d: &str) -> bool {
    let body = d.trim_end_matches('=');
    !d.is_empty()
        && d.len().is_multiple_of(4)
        && d.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// A session's title from its first prompt, as the client shows one: its first line, cut.
fn title_of(t: &str) -> String {
    let first = t.trim().lines().next().unwrap_or("");
    let mut s: String = first.chars().take(60).collect();
    if first.chars().count() > 60 {
        s.push('…');
    }
    s
}

/// What the client shows a finished call by: the first of its arguments that says it.
fn title_of_call(input: &Value) -> String {
    ["description", "command", "filePath", "pattern", "url", "query"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .unwrap_or("")
        .to_string()
}

fn zero_tokens() -> Value {
    json!({"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}})
}

impl EntryWriter for Writer {
    fn entry(&mut self, e: &Entry, _: &mut Vec<Vec<u8>>) {
        let at = self.clock.stamp(e.timestamp.as_deref());
        let ms = parse_ms(&at).unwrap_or(self.updated);
        self.updated = self.updated.max(ms);
        match &e.body {
            Body::User(parts) => self.user(e, ms, parts),
            Body::Compaction(summary) => self.compaction(e, ms, summary),
            Body::Assistant(blocks) => self.assistant(e, ms, blocks),
            Body::ToolResult(r) => self.result(ms, r),
        }
    }

    /// The whole document, on one line.
    fn finish(&mut self, out: &mut Vec<Vec<u8>>) {
        let slug = format!(
            "cctool-{}",
            &tail(&["cctool-convert-opencode", &self.o.session_id, "slug"])[..8]
        );
        let title = self.title.clone().unwrap_or_else(|| "Converted session".into());
        let info = json!({
            "id": self.id,
            "slug": slug.to_lowercase(),
            "projectID": "global",
            "directory": self.o.cwd,
            "title": title,
            "version": CLIENT_VERSION,
            "time": {"created": self.started, "updated": self.updated},
        });
        let messages = std::mem::take(&mut self.messages);
        out.push(line(&json!({"info": info, "messages": messages})));
    }

    fn tally(&mut self) -> Tally {
        Tally {
            tokens: cctool_core::model::approx_tokens(self.bytes) as u64,
            ..self.tally.clone()
        }
    }
}

#[cfg(test)]
mod tests;
