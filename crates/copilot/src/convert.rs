//! Copilot CLI's side of `convert` ([`cctool_core::agents::Converter`], `docs/convert.md`): a
//! session's events read into the conversation every conversion carries, and that
//! conversation written as the events a Copilot CLI session holds.
//!
//! Read: what a resume loads (`docs/copilot.md`): from the last finished compaction (as a
//! compaction) on, or everything with `--full`, each compaction marked; a prompt as the user
//! typed it (`content`; the client's `transformedContent` adds its own date), a reply's text,
//! reasoning and calls, each call's result or error.
//!
//! Written: a `session.start` naming the session and its folder, then a `user.message` per
//! prompt, an `assistant.message` per reply (its text, and its calls as `toolRequests`), a
//! `tool.execution_start` and `tool.execution_complete` per result, and a compaction as the
//! client finishes one; every event names the one before it (`parentId`). Images have no
//! place in these events and are counted. A call without a result needs nothing: the client
//! sends its own "interrupted" result for it (rule GH6).

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::file;
use cctool_core::compact::ids;
use cctool_core::convert::model::{
    Answered, Block, Body, Conversation, Entry, Part, Sink, ToolCall, ToolResult, Unnamed,
};
use cctool_core::convert::read::{ask, from_stream, key};
use cctool_core::convert::store::{Placement, StoreError};
use cctool_core::convert::tools::translate;
use cctool_core::convert::{Clock, EntryWriter, MakeWriter, Tally, WriteOptions, line, reasoning_text};
use cctool_core::io::Source;
use cctool_core::model::events::{self, Record};

/// Copilot CLI sessions, read and written by `convert`.
pub struct Converter;

impl cctool_core::agents::Converter for Converter {
    fn read(&self, src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
        read(src, full, answered, sink)
    }

    fn writer(&self) -> MakeWriter {
        writer
    }

    /// The client answers a call without a result itself when it resumes.
    fn needs_answered(&self) -> bool {
        false
    }

    fn noun(&self) -> &'static str {
        "a Copilot CLI session"
    }

    /// The client resumes with the `selectedModel` of the session's start and sends it as the
    /// request's model (1.0.102): another agent's model would go to a provider that does not
    /// serve it, so only `--model` names one.
    fn keeps_foreign_model(&self) -> bool {
        false
    }

    fn place(&self, _: Option<&[u8]>, o: &WriteOptions, _: Option<&Path>, _: bool) -> Result<Placement, StoreError> {
        let env = |k: &str| std::env::var_os(k);
        let root = crate::store::home(&env).ok_or(StoreError::NoStore(
            "no Copilot CLI store: set HOME or COPILOT_HOME, or write with -o OUT",
        ))?;
        Ok(Placement {
            path: root
                .join(crate::store::SESSION_FOLDER)
                .join(&o.session_id)
                .join("events.jsonl"),
            resume: format!(
                "cd {} && copilot --resume={}",
                cctool_core::convert::tools::quote(&o.cwd),
                o.session_id
            ),
            imported: None,
        })
    }

    /// The client lists a session by the `workspace.yaml` beside its events: one is written
    /// when there is none, naming the session's id and folder.
    fn register(&self, path: &Path, _: Option<&str>) -> Option<&'static str> {
        let yaml = path.with_file_name("workspace.yaml");
        if yaml.exists() {
            return Some("unchanged");
        }
        let text = std::fs::read(path).ok()?;
        let first = text.split(|&b| b == b'\n').next()?;
        let start: Value = serde_json::from_slice(first).ok()?;
        let data = &start["data"];
        let s = |v: &Value| v.as_str().map(str::to_string);
        let id = s(&data["sessionId"])?;
        let cwd = s(&data["context"]["cwd"])?;
        let at = s(&data["startTime"]).unwrap_or_default();
        let body = format!(
            "id: {id}\ncwd: {}\ncreated_at: {at}\nupdated_at: {at}\n",
            yaml_scalar(&cwd)
        );
        match cctool_core::io::atomic::write_new_file(&yaml, body.as_bytes(), false) {
            Ok(()) => Some("added"),
            Err(e) => {
                cctool_core::output::report::say(&format!(
                    "{}: written, but its workspace.yaml could not be ({e}): the client may not list it",
                    path.display()
                ));
                None
            }
        }
    }
}

/// A string as a YAML scalar: plain when it reads back as itself, else double-quoted.
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || "/._-~+@".contains(c))
        && !s.starts_with(['-', '~', '@']);
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

/// Streams the conversation of `src` to `sink`: what a resume loads, or with `full`
/// everything, each compaction marked. The conversation is the session model's stream in
/// that view (`view::events_of`), each record mapped by `body` from its parts, and
/// from its JSON where the conversation needs what the model does not carry.
pub fn read(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let s = file::read(src)?;
    let mut c = Conversation::new(crate::ID);
    c.session_id = s.session_id().map_or_else(|| src.name().to_string(), str::to_string);
    c.cwd = s.cwd().map(str::to_string);
    c.model = s
        .events
        .iter()
        .rev()
        .find_map(|e| match e.ty.as_str() {
            "session.model_change" => e.s("newModel"),
            "assistant.message" => e.s("model"),
            _ => None,
        })
        .map(str::to_string);
    c.drop_n("unreadable line", s.bad_lines());
    // The stream hands on no `system.message`: the client's own prompt, which a resume
    // replaces with its own. Those of the part read are counted as left out.
    let order = if full {
        (0..s.events.len()).collect()
    } else {
        crate::model::loaded_order(&s)
    };
    let system = order.iter().filter(|&&i| s.events[i].ty == "system.message").count();
    c.drop_n("system message", system as u64);
    from_stream(
        c,
        answered,
        sink,
        |sink| {
            crate::view::events_of(&s, ask(full), sink);
        },
        |r, _, items| {
            if let Some(body) = body(&r) {
                items.push((key(&r), r.time, body));
            }
        },
    )
}

/// A record of the stream as the conversation's body: a prompt, or a notification (a
/// background shell that ended, …), which the client sends as a user message where it was
/// written (GH9); a reply; a call's end; a finished compaction. `None` for the rest.
fn body(r: &Record) -> Option<Body> {
    let data = r.native.as_ref().and_then(|v| v.get("data")).unwrap_or(&Value::Null);
    let text = || {
        r.parts.iter().find_map(|p| match p {
            events::Part::Text(t) | events::Part::Notice(t) => Some(t.clone()),
            _ => None,
        })
    };
    Some(match r.kind.as_str() {
        "user.message" | "system.notification" => Body::User(vec![Part::Text(text().unwrap_or_default())]),
        "assistant.message" => Body::Assistant(blocks(r)),
        "tool.execution_complete" => Body::ToolResult(result(data)),
        // A compaction that failed holds no summary and replaced nothing.
        "session.compaction_complete" if data.get("success").and_then(Value::as_bool) != Some(false) => {
            Body::Compaction(text().unwrap_or_default())
        }
        _ => return None,
    })
}

/// A reply's reasoning, text and calls, in the order the client sends them (the order the
/// record holds them in).
fn blocks(r: &Record) -> Vec<Block> {
    let mut out = Vec::new();
    for p in &r.parts {
        match p {
            events::Part::Reasoning { text, .. } => out.push(Block::Reasoning(text.clone())),
            events::Part::Text(t) => out.push(Block::Text(t.clone())),
            events::Part::Call(call) => {
                // Arguments the model wrote as a JSON string are read as the object they hold.
                let input = match &call.input {
                    Some(Value::String(a)) => serde_json::from_str(a).unwrap_or_else(|_| json!({ "input": a })),
                    Some(v) if !v.is_null() => v.clone(),
                    _ => json!({}),
                };
                out.push(Block::Call(ToolCall {
                    id: call.id.clone().unwrap_or_default(),
                    name: call.name.clone().unwrap_or_default(),
                    input,
                }));
            }
            _ => {}
        }
    }
    out
}

/// A call's end as a result: the result's `content`, else the error's `message`, as the
/// client sends it (the session model's outcome holds the whole result where it has no
/// `content`, which is read here as written).
fn result(data: &Value) -> ToolResult {
    let text = |v: Option<&Value>| match v {
        Some(Value::String(t)) => t.clone(),
        Some(v) if !v.is_null() => v.to_string(),
        _ => String::new(),
    };
    let output = match (data.get("result"), data.get("error")) {
        (Some(r), _) if !r.is_null() => text(r.get("content")),
        (_, Some(err)) if !err.is_null() => text(err.get("message")),
        _ => String::new(),
    };
    ToolResult {
        call_id: data.get("toolCallId").and_then(Value::as_str).unwrap_or("").to_string(),
        output: vec![Part::Text(output)],
        is_error: data.get("success").and_then(Value::as_bool) == Some(false),
    }
}

/// The writer of Copilot CLI events; the `session.start` goes to `out`.
pub fn writer(o: &WriteOptions, first: Option<&str>, _: Answered, out: &mut Vec<Vec<u8>>) -> Box<dyn EntryWriter> {
    let mut w = Writer {
        o: o.clone(),
        clock: Clock::new(first),
        parent: None,
        names: Default::default(),
        files: Default::default(),
        tally: Tally::default(),
        bytes: 0,
        turn: 0,
        unnamed: Unnamed::default(),
    };
    let at = w.clock.stamp(first);
    let mut data = Map::new();
    data.insert("sessionId".into(), json!(o.session_id));
    data.insert("version".into(), json!(1));
    data.insert("producer".into(), json!("cctool"));
    data.insert("copilotVersion".into(), json!(env!("CARGO_PKG_VERSION")));
    data.insert("startTime".into(), json!(at));
    if let Some(m) = &o.model {
        data.insert("selectedModel".into(), json!(m));
    }
    data.insert("context".into(), json!({ "cwd": o.cwd }));
    w.event("session.start", "session.start", &at, data, out);
    Box::new(w)
}

struct Writer {
    o: WriteOptions,
    clock: Clock,
    /// The id of the event written last, which the next names.
    parent: Option<String>,
    /// Each call's tool and arguments as written, which its start repeats.
    names: std::collections::HashMap<String, (String, Value)>,
    files: cctool_core::convert::tools::Files,
    tally: Tally,
    /// Bytes of the events a resume sends, for the estimate.
    bytes: usize,
    /// The replies written so far: each is a turn of its own.
    turn: u64,
    /// The ids given to calls that had none: the client pairs a call and its result by id.
    unnamed: Unnamed,
}

impl Writer {
    /// Writes the event `ty` after the last, with an id derived from the session and `key`.
    fn event(&mut self, ty: &str, key: &str, at: &str, data: Map<String, Value>, out: &mut Vec<Vec<u8>>) {
        let id = ids::uuid(&["cctool-convert-copilot", &self.o.session_id, key, ty]);
        let e = json!({"type": ty, "data": data, "id": id, "timestamp": at, "parentId": self.parent});
        let l = line(&e);
        self.bytes += l.len() + 1;
        out.push(l);
        self.parent = Some(id);
    }

    /// The texts of `parts`, joined; images, which these events cannot hold, counted.
    fn text(&mut self, parts: &[Part]) -> String {
        let mut texts = Vec::new();
        for p in parts {
            match p {
                Part::Text(t) => texts.push(t.clone()),
                Part::Json(j) => texts.push(j.text()),
                Part::Image(_) => self.tally.drop("image"),
            }
        }
        texts.join("\n")
    }
}

impl EntryWriter for Writer {
    fn entry(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        let at = self.clock.stamp(e.timestamp.as_deref());
        let obj = |v: Value| match v {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        match &e.body {
            Body::User(parts) => {
                let text = self.text(parts);
                let data = json!({"content": text, "transformedContent": text, "attachments": []});
                self.event("user.message", &e.key, &at, obj(data), out);
            }
            Body::Compaction(summary) => {
                let data = json!({"success": true, "summaryContent": summary});
                self.event("session.compaction_complete", &e.key, &at, obj(data), out);
            }
            Body::Assistant(blocks) => {
                let mut texts = Vec::new();
                let mut requests = Vec::new();
                for b in blocks {
                    match b {
                        Block::Text(t) => texts.push(t.clone()),
                        Block::Reasoning(t) if self.o.reasoning_as_text => texts.push(reasoning_text(t)),
                        Block::Reasoning(_) => self.tally.drop("reasoning"),
                        Block::Call(c) => {
                            let t = translate(
                                self.o.tools,
                                &crate::tools::CopilotTools,
                                &c.name,
                                &c.input,
                                Some(&mut self.files),
                            );
                            self.tally.map(t.mapped);
                            if let Some(l) = t.lost {
                                self.tally.drop(&l);
                            }
                            let input = t.input.into_value();
                            let id = self.unnamed.call(&c.id, &e.key, requests.len());
                            self.names.insert(id.clone(), (t.name.clone(), input.clone()));
                            requests.push(json!({
                                "toolCallId": id,
                                "name": t.name,
                                "arguments": input,
                                "type": "function",
                            }));
                        }
                    }
                }
                let turn = self.turn.to_string();
                self.turn += 1;
                let mut data = obj(json!({
                    "messageId": ids::uuid(&["cctool-convert-copilot-message", &self.o.session_id, &e.key]),
                    "content": texts.join("\n\n"),
                    "toolRequests": requests,
                    "turnId": turn,
                }));
                if let Some(m) = &self.o.model {
                    data.insert("model".into(), json!(m));
                }
                self.event("assistant.message", &e.key, &at, data, out);
            }
            Body::ToolResult(r) => {
                let text = self.text(&r.output);
                let call_id = self.unnamed.result(&r.call_id);
                let (name, args) = self.names.get(&call_id).cloned().unwrap_or_default();
                let start = json!({"toolCallId": call_id, "toolName": name, "arguments": args});
                self.event("tool.execution_start", &e.key, &at, obj(start), out);
                let data = if r.is_error {
                    json!({"toolCallId": call_id, "success": false, "error": {"message": text, "code": "failure"}})
                } else {
                    json!({"toolCallId": call_id, "success": true, "result": {"content": text, "detailedContent": text}})
                };
                self.event("tool.execution_complete", &e.key, &at, obj(data), out);
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

    /// A prompt and a reply, a compaction that failed, one that finished, the client's own
    /// prompt, a notification, a reply with a call and the call's failed end.
    const SESSION: &str = concat!(
        r#"{"type":"session.start","data":{"sessionId":"s1","context":{"cwd":"/w"}},"id":"e1","timestamp":"2026-11-02T10:00:00Z"}"#,
        "\n",
        r#"{"type":"user.message","data":{"content":"hi","transformedContent":"hi (dated)"},"id":"e2","timestamp":"2026-11-02T10:00:01Z"}"#,
        "\n",
        r#"{"type":"assistant.message","data":{"content":"hello","reasoningText":"greet","model":"m1"},"id":"e3","timestamp":"2026-11-02T10:00:02Z"}"#,
        "\n",
        r#"{"type":"session.compaction_complete","data":{"success":false},"id":"e4","timestamp":"2026-11-02T10:00:03Z"}"#,
        "\n",
        r#"{"type":"session.compaction_complete","data":{"success":true,"summaryContent":"the summary"},"id":"e5","timestamp":"2026-11-02T10:00:04Z"}"#,
        "\n",
        r#"{"type":"system.message","data":{"content":"the client's prompt"},"id":"e6","timestamp":"2026-11-02T10:00:05Z"}"#,
        "\n",
        r#"{"type":"system.notification","data":{"content":"shell 1 ended"},"id":"e7","timestamp":"2026-11-02T10:00:06Z"}"#,
        "\n",
        r#"{"type":"assistant.message","data":{"content":"","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":"{\"command\":\"ls\"}"}]},"id":"e8","timestamp":"2026-11-02T10:00:07Z"}"#,
        "\n",
        r#"{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":false,"error":{"message":"denied"},"result":null},"id":"e9","timestamp":"2026-11-02T10:00:08Z"}"#,
        "\n",
    );

    fn conversation(full: bool) -> Conversation {
        let src = Source::from_bytes("events.jsonl", SESSION.as_bytes().to_vec());
        collect(|sink| read(&src, full, false, sink)).unwrap()
    }

    #[test]
    fn a_resume_starts_from_the_last_finished_compaction_with_each_notification_a_prompt() {
        let c = conversation(false);
        assert_eq!(
            (c.session_id.as_str(), c.cwd.as_deref(), c.model.as_deref()),
            ("s1", Some("/w"), Some("m1"))
        );
        let keys: Vec<_> = c.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["e5", "e7", "e8", "e9"]);
        assert_eq!(c.entries[0].body, Body::Compaction("the summary".into()));
        assert_eq!(c.entries[1].body, Body::User(vec![Part::Text("shell 1 ended".into())]));
        let Body::Assistant(blocks) = &c.entries[2].body else {
            panic!()
        };
        assert_eq!(
            blocks,
            &[Block::Call(ToolCall {
                id: "c1".into(),
                name: "bash".into(),
                input: json!({"command": "ls"}),
            })]
        );
        assert_eq!(
            c.entries[3].body,
            Body::ToolResult(ToolResult {
                call_id: "c1".into(),
                output: vec![Part::Text("denied".into())],
                is_error: true,
            })
        );
        assert_eq!(c.dropped.get("system message"), Some(&1));
    }

    #[test]
    fn full_reads_everything_as_typed_and_passes_over_the_failed_compaction() {
        let c = conversation(true);
        let keys: Vec<_> = c.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["e2", "e3", "e5", "e7", "e8", "e9"]);
        assert_eq!(c.entries[0].body, Body::User(vec![Part::Text("hi".into())]));
        assert_eq!(
            c.entries[1].body,
            Body::Assistant(vec![Block::Reasoning("greet".into()), Block::Text("hello".into())])
        );
    }
}
