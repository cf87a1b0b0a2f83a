//! Qwen Code's side of `convert` ([`cctool_core::agents::Converter`], `docs/convert.md`): a
//! session read into the conversation every conversion carries, and that conversation written
//! as a Qwen Code session the client resumes.
//!
//! Read: the history a resume loads (QW1–QW3 of `docs/qwen.md`): the compaction it starts from
//! as a compaction (its summary, without the acknowledgement the client keeps after it), then
//! each Content's texts, thoughts, calls and results. With `full`, every walked record, each
//! compaction marked.
//!
//! Written: one record a line, each naming the one before it as its `parentUuid`, as 0.24.4
//! writes them: a prompt as a `user` record, a reply as an `assistant` record of the model's
//! Content, each result as a `tool_result` record, and a compaction as a `chat_compression`
//! whose compressed history is the summary and the client's acknowledgement. A call without a
//! result needs nothing: the client answers it itself when it sends the conversation (QW7).

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::chain::Chain;
use crate::file::{self, Session};
use cctool_core::compact::ids;
use cctool_core::convert::model::{
    Answered, Block, Body, Conversation, Entry, Image, Part, Sink, ToolCall, ToolResult,
};
use cctool_core::convert::read::{Item, emit, from_stream, order};
use cctool_core::convert::store::{Placement, StoreError};
use cctool_core::convert::tools::{quote, translate};
use cctool_core::convert::{Clock, EntryWriter, MakeWriter, Tally, WriteOptions, line, reasoning_text};
use cctool_core::io::Source;
use cctool_core::model::events::Record;

/// The client version the written records name.
const VERSION: &str = "0.24.4";

/// What the client keeps after a compaction's summary in the compressed history.
pub const ACKNOWLEDGEMENT: &str = "Got it. Thanks for the additional context!";

/// Qwen Code sessions, read and written by `convert`.
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
        "a Qwen Code session"
    }

    /// A reply names the model that wrote it; the client resumes with the model it is
    /// configured for whatever the records say.
    fn keeps_foreign_model(&self) -> bool {
        true
    }

    fn place(&self, _: Option<&[u8]>, o: &WriteOptions, _: Option<&Path>, _: bool) -> Result<Placement, StoreError> {
        let env = |k: &str| std::env::var_os(k);
        let path = crate::store::session_path(&env, &o.cwd, &o.session_id).ok_or(StoreError::NoStore(
            "no Qwen Code store: set HOME, QWEN_HOME or QWEN_RUNTIME_DIR, or write with -o OUT",
        ))?;
        Ok(Placement {
            path,
            resume: format!("cd {} && qwen --resume {}", quote(&o.cwd), o.session_id),
            imported: None,
        })
    }
}

/// Streams the conversation of `src` to `sink`: what a resume loads, or with `full` every
/// walked record, each compaction marked.
///
/// The records are those the session model's stream hands on in its history view
/// (`answers::events_along`), the walked records, each asked for its place only. With `full`,
/// each is read with the fragments the client joins to it. What a resume loads is no run of
/// records: the client rebuilds it from them ([`Chain::history_along`]), a compression's
/// history in place of all before it, a prompt a slash command took back left out, a mid-turn
/// prompt joined to the one before.
pub fn read(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let s = file::read(src)?;
    let chain = Chain::of(&s);
    let mut c = Conversation::new(crate::ID);
    c.session_id = s.session_id().map_or_else(|| src.name().to_string(), str::to_string);
    c.cwd = s.cwd().map(str::to_string);
    c.model = chain
        .walked
        .iter()
        .rev()
        .find_map(|&i| s.records[i].s("model").map(str::to_string));
    c.drop_n("unreadable line", s.bad_lines());
    if full {
        return from_stream(
            c,
            answered,
            sink,
            |sink| {
                crate::answers::events_along(&s, &chain, order(true), sink);
            },
            |r, c, items| whole(&s, &chain, &r, c, items),
        );
    }
    let items = loaded(&s, &chain, &crate::answers::walked(&s, &chain), &mut c);
    emit(c, answered, items, sink)
}

/// The history a resume loads, rebuilt by the client's rules from the records `walked` (the
/// stream's walked records, in order), as bodies: a compressed history's summary as the
/// compaction.
fn loaded(s: &Session, chain: &Chain, walked: &[usize], c: &mut Conversation) -> Vec<Item> {
    let mut out = Vec::new();
    let mut from_compaction = 0;
    for (n, content) in chain.history_along(s, walked).into_iter().enumerate() {
        let r = &s.records[content.from];
        let key = format!("{}:{n}", r.uuid);
        let at = r.timestamp().map(str::to_string);
        if r.is_system("chat_compression") {
            from_compaction += 1;
            // The summary opens the compressed history, the client's acknowledgement follows.
            if from_compaction == 1 {
                let summary = crate::model::summary(r).unwrap_or_default().to_string();
                out.push((key, at, Body::Compaction(summary)));
                continue;
            }
            if from_compaction == 2 && is_acknowledgement(&content.value) {
                continue;
            }
        }
        bodies(&content.value, &key, at, c, &mut out);
    }
    out
}

/// A walked record of the stream as entries: a compaction's summary where it was made, a
/// message with its fragments; a system record or a realtime message, none.
fn whole(s: &Session, chain: &Chain, rec: &Record, c: &mut Conversation, out: &mut Vec<Item>) {
    let Some(i) = crate::answers::index_of(s, rec) else {
        return;
    };
    let r = &s.records[i];
    let at = r.timestamp().map(str::to_string);
    if r.is_system("chat_compression") {
        if let Some(summary) = crate::model::summary(r) {
            out.push((r.uuid.clone(), at, Body::Compaction(summary.to_string())));
        }
        return;
    }
    if r.ty() == "system" || r.subtype() == Some("realtime_message") {
        return;
    }
    if let Some(m) = chain.message(s, i) {
        bodies(&m, &r.uuid, at, c, out);
    }
}

fn is_acknowledgement(content: &Value) -> bool {
    let parts = content.get("parts").and_then(Value::as_array);
    content.get("role").and_then(Value::as_str) == Some("model")
        && parts.is_some_and(|p| p.len() == 1 && p[0].get("text").and_then(Value::as_str) == Some(ACKNOWLEDGEMENT))
}

/// A Content as bodies: a model's as one reply, a user's results each as a result and its
/// texts and images as one prompt.
fn bodies(content: &Value, key: &str, at: Option<String>, c: &mut Conversation, out: &mut Vec<Item>) {
    let parts = content
        .get("parts")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    if content.get("role").and_then(Value::as_str) == Some("model") {
        let mut blocks = Vec::new();
        for p in parts {
            match crate::model::part(p) {
                cctool_core::model::events::Part::Text(t) if !t.is_empty() => blocks.push(Block::Text(t)),
                cctool_core::model::events::Part::Text(_) => {}
                cctool_core::model::events::Part::Reasoning { text, .. } => blocks.push(Block::Reasoning(text)),
                cctool_core::model::events::Part::Call(call) => blocks.push(Block::Call(ToolCall {
                    id: call.id.unwrap_or_default(),
                    name: call.name.unwrap_or_default(),
                    input: call.input.unwrap_or_else(|| json!({})),
                })),
                _ => c.drop("model part of another kind"),
            }
        }
        if !blocks.is_empty() {
            out.push((key.to_string(), at, Body::Assistant(blocks)));
        }
        return;
    }
    let mut prompt = Vec::new();
    for (n, p) in parts.iter().enumerate() {
        if let Some(f) = p.get("functionResponse") {
            let response = f.get("response");
            let text = match response {
                Some(Value::Object(m)) => match (m.get("output"), m.get("error")) {
                    (Some(Value::String(s)), _) | (_, Some(Value::String(s))) => s.clone(),
                    _ => cctool_core::io::json::to_json(response.unwrap_or(&Value::Null)),
                },
                Some(Value::String(s)) => s.clone(),
                Some(v) => cctool_core::io::json::to_json(v),
                None => String::new(),
            };
            let error = response.and_then(|r| r.get("error")).is_some_and(crate::chain::truthy);
            let id = f.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
            let result = ToolResult {
                call_id: id,
                output: vec![Part::Text(text)],
                is_error: error,
            };
            out.push((format!("{key}:{n}"), at.clone(), Body::ToolResult(result)));
        } else if let Some(t) = p.get("text").and_then(Value::as_str) {
            prompt.push(Part::Text(t.to_string()));
        } else if let Some(d) = p.get("inlineData") {
            let s = |k: &str| d.get(k).and_then(Value::as_str).map(str::to_string);
            prompt.push(Part::Image(Image {
                media_type: s("mimeType"),
                data: s("data"),
                url: None,
            }));
        } else {
            c.drop("user part of another kind");
        }
    }
    if !prompt.is_empty() {
        out.push((key.to_string(), at, Body::User(prompt)));
    }
}

/// The writer of Qwen Code records.
pub fn writer(o: &WriteOptions, first: Option<&str>, _: Answered, _: &mut Vec<Vec<u8>>) -> Box<dyn EntryWriter> {
    Box::new(Writer {
        o: o.clone(),
        clock: Clock::new(first),
        parent: None,
        names: Default::default(),
        files: Default::default(),
        model: o.model.clone().unwrap_or_else(|| "unknown".into()),
        tally: Tally::default(),
        bytes: 0,
        n: 0,
    })
}

struct Writer {
    o: WriteOptions,
    clock: Clock,
    /// The uuid of the record written last, which the next names.
    parent: Option<String>,
    /// Each call's tool as written, which its result names.
    names: std::collections::HashMap<String, String>,
    files: cctool_core::convert::tools::Files,
    model: String,
    tally: Tally,
    /// Bytes of the records a resume loads, for the estimate.
    bytes: usize,
    /// Records written, which keeps each uuid apart.
    n: u64,
}

impl Writer {
    /// Writes a record of `ty` after the last, with its own `fields`.
    fn put(&mut self, key: &str, ty: &str, at: &str, fields: Map<String, Value>, out: &mut Vec<Vec<u8>>) {
        self.n += 1;
        let uuid = ids::uuid(&["cctool-convert-qwen", &self.o.session_id, key, &self.n.to_string()]);
        let mut m = Map::new();
        m.insert("uuid".into(), json!(uuid));
        m.insert("parentUuid".into(), json!(self.parent));
        m.insert("sessionId".into(), json!(self.o.session_id));
        m.insert("timestamp".into(), json!(at));
        m.insert("type".into(), json!(ty));
        m.insert("cwd".into(), json!(self.o.cwd));
        m.insert("version".into(), json!(VERSION));
        m.extend(fields);
        let l = line(&Value::Object(m));
        self.bytes += l.len() + 1;
        out.push(l);
        self.parent = Some(uuid);
    }

    /// Texts and images as a Content's parts; an image given by address is counted.
    fn parts(&mut self, parts: &[Part]) -> Vec<Value> {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Part::Image(Image {
                    data: Some(d),
                    media_type,
                    ..
                }) => out
                    .push(json!({"inlineData": {"mimeType": media_type.as_deref().unwrap_or("image/png"), "data": d}})),
                Part::Image(_) => self.tally.drop("image by URL"),
                Part::Text(t) => out.push(json!({"text": t})),
                Part::Json(j) => out.push(json!({"text": j.text()})),
            }
        }
        out
    }

    fn reply(&mut self, blocks: &[Block]) -> Vec<Value> {
        let mut parts = Vec::new();
        for b in blocks {
            match b {
                // The client's curated history drops a model turn holding an empty text part,
                // its calls with it (QW rules, `docs/qwen.md`): an empty reply text is no part.
                Block::Text(t) if t.is_empty() => {}
                Block::Text(t) => parts.push(json!({"text": t})),
                Block::Reasoning(t) if self.o.reasoning_as_text => parts.push(json!({"text": reasoning_text(t)})),
                Block::Reasoning(t) => parts.push(json!({"text": t, "thought": true})),
                Block::Call(c) => {
                    let t = translate(
                        self.o.tools,
                        &crate::tools::QwenTools,
                        &c.name,
                        &c.input,
                        Some(&mut self.files),
                    );
                    self.tally.map(t.mapped);
                    if let Some(l) = t.lost {
                        self.tally.drop(&l);
                    }
                    self.names.insert(c.id.clone(), t.name.clone());
                    parts.push(json!({"functionCall": {"id": c.id, "name": t.name, "args": t.input.into_value()}}));
                }
            }
        }
        parts
    }
}

impl EntryWriter for Writer {
    fn entry(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        let at = self.clock.stamp(e.timestamp.as_deref());
        let message = |role: &str, parts: Vec<Value>| {
            Map::from_iter([("message".to_string(), json!({"role": role, "parts": parts}))])
        };
        match &e.body {
            Body::User(parts) => {
                let parts = self.parts(parts);
                self.put(&e.key, "user", &at, message("user", parts), out);
            }
            Body::Assistant(blocks) => {
                let parts = self.reply(blocks);
                let mut fields = message("model", parts);
                fields.insert("model".into(), json!(self.model));
                self.put(&e.key, "assistant", &at, fields, out);
            }
            Body::ToolResult(r) => {
                let text: Vec<String> = r
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
                let name = self.names.get(&r.call_id).cloned().unwrap_or_default();
                let key = if r.is_error { "error" } else { "output" };
                let response = json!({"id": r.call_id, "name": name, "response": {key: text.join("\n")}});
                let mut fields = message("user", vec![json!({ "functionResponse": response })]);
                let status = if r.is_error { "error" } else { "success" };
                fields.insert("toolCallResult".into(), json!({"callId": r.call_id, "status": status}));
                self.put(&e.key, "tool_result", &at, fields, out);
            }
            Body::Compaction(summary) => {
                let history = json!([
                    {"role": "user", "parts": [{"text": summary}]},
                    {"role": "model", "parts": [{"text": ACKNOWLEDGEMENT}]},
                ]);
                let payload = json!({
                    "info": {"originalTokenCount": 0, "newTokenCount": 0, "compressionStatus": 1, "triggerReason": "manual"},
                    "compressedHistory": history,
                });
                let fields = Map::from_iter([
                    ("subtype".to_string(), json!("chat_compression")),
                    ("systemPayload".to_string(), payload),
                ]);
                self.put(&e.key, "system", &at, fields, out);
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

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::convert::model::collect;

    fn session(name: &str, bytes: Vec<u8>) -> (Source, Session) {
        let src = Source::from_bytes(name, bytes);
        let s = file::read(&src).unwrap();
        (src, s)
    }

    /// The stream's walked records are the chain's, in order, on every fixture: what a resume
    /// loads is rebuilt from the records the client walks.
    #[test]
    fn the_streams_records_are_the_walked_chain() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/qwen"));
        let mut records = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                let (_, s) = session("s.jsonl", std::fs::read(&p).unwrap());
                let chain = Chain::of(&s);
                assert_eq!(crate::answers::walked(&s, &chain), chain.walked, "{}", p.display());
                records += chain.walked.len();
            }
        }
        assert!(records > 50, "{records} walked records");
    }

    /// Two records on one line (a lost newline), which the client reads both of: each is
    /// carried once, whole history or resume.
    #[test]
    fn each_of_two_records_on_one_line_is_carried() {
        let rec = |uuid: &str, parent: &str, ty: &str, role: &str, text: &str| {
            format!(
                r#"{{"uuid":"{uuid}","parentUuid":{parent},"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","type":"{ty}","message":{{"role":"{role}","parts":[{{"text":"{text}"}}]}}}}"#
            )
        };
        let text = format!(
            "{}{}\n{}\n",
            rec("a", "null", "user", "user", "first"),
            rec("b", r#""a""#, "assistant", "model", "reply"),
            rec("c", r#""b""#, "user", "user", "second"),
        );
        let (src, s) = session("s.jsonl", text.into_bytes());
        assert_eq!(s.records.len(), 3);
        for full in [false, true] {
            let c = collect(|sink| read(&src, full, false, sink)).unwrap();
            let bodies: Vec<String> = c.entries.iter().map(|e| format!("{:?}", e.body)).collect();
            assert_eq!(bodies.len(), 3, "full={full}: {bodies:?}");
            for (body, want) in bodies.iter().zip(["first", "reply", "second"]) {
                assert!(body.contains(want), "full={full}: {bodies:?}");
            }
        }
    }
}
