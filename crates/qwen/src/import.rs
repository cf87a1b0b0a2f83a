//! Importing a Qwen Code session into a v5 session (`docs/cctool-session.md#imports`), with the
//! core's builders as every agent's import does: each conversation record as a v5 message
//! pointing back at its line (a tool result record as one tool message per function
//! response), every other record kept as a `native` item so nothing is lost. The effective
//! import keeps what a resume loads: the compressed history of the compaction it starts from
//! (its summary as the user's message it is sent as), then the records walked after it.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::chain::Chain;
use crate::file::{self, Rec};
use cctool_core::io::Source;
use cctool_core::v5::build::{Head, Sink, held, message, native, parse, text, tool_message};
use cctool_core::v5::schema::{Item, MessageV3, Session};

/// A Qwen Code session as a v5 session.
pub fn qwen(src: &Source) -> io::Result<Session> {
    held(qwen_into(src, false, None)?)
}

/// [`qwen`], written to `w` as a v5 file message by message; `effective` keeps only what a
/// resume loads, in the order it sends it.
pub fn qwen_to(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()> {
    qwen_into(src, effective, Some(w)).map(drop)
}

fn qwen_into(src: &Source, effective: bool, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
    let s = file::read(src)?;
    let head = Head {
        session_id: s.session_id().map(str::to_string),
        first_ms: s.span().map(|s| s.0),
        source: json!({"format": crate::ID.name(), "path": src.name(), "native_session_id": s.session_id()}),
    };
    let mut sink = Sink::new(&head, w)?;
    let mut raw: Vec<MessageV3> = Vec::new();
    let native_at = |line: u64, bytes: &[u8]| {
        let item = native(crate::ID.name(), parse(bytes), Some(line));
        message("system", vec![item], json!({"line": line}), None)
    };
    if effective {
        let c = Chain::of(&s);
        for content in c.history(&s) {
            let r = &s.records[content.from];
            raw.extend(contents(&content.value, r));
            sink.take_final(&mut raw)?;
        }
        return sink.finish(raw, head);
    }
    let mut unread = s.unread.iter().peekable();
    for r in &s.records {
        while let Some(u) = unread.next_if(|u| u.line < r.line) {
            raw.push(native_at(u.line, &u.raw));
        }
        match r.message().filter(|_| r.ty() != "system") {
            Some(m) => raw.extend(contents(&Value::Object(m.clone()), r)),
            None => raw.push(native_at(r.line, &r.raw)),
        }
        sink.take_final(&mut raw)?;
    }
    for u in unread {
        raw.push(native_at(u.line, &u.raw));
    }
    sink.finish(raw, head)
}

/// A Content (`{role, parts}`) of the record `r` as v5 messages: a model's as the assistant's
/// (texts, thoughts, calls), a user's texts as the user's and each function response as a tool
/// message.
fn contents(c: &Value, r: &Rec) -> Vec<MessageV3> {
    let source = json!({"line": r.line});
    let at = r.timestamp().map(str::to_string);
    let parts = c.get("parts").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    if c.get("role").and_then(Value::as_str) == Some("model") {
        let items = parts
            .iter()
            .map(|p| match crate::model::part(p) {
                cctool_core::model::events::Part::Text(t) => text(&t),
                cctool_core::model::events::Part::Reasoning { text, .. } => Item::Reasoning {
                    text,
                    extra: Map::new(),
                },
                cctool_core::model::events::Part::Call(call) => Item::ToolCall {
                    id: call.id.unwrap_or_default(),
                    name: call.name.unwrap_or_default(),
                    args: call.input.unwrap_or(json!({})),
                    extra: Map::new(),
                },
                _ => Item::Other(p.clone()),
            })
            .collect();
        return vec![message("assistant", items, source, at)];
    }
    let mut out = Vec::new();
    let mut texts = Vec::new();
    for p in parts {
        if let Some(f) = p.get("functionResponse") {
            let output = f.get("response").cloned().unwrap_or(Value::Null);
            out.push(tool_message(&s(f, "id"), output, source.clone(), at.clone()));
        } else if let Some(t) = p.get("text").and_then(Value::as_str) {
            texts.push(text(t));
        } else {
            texts.push(Item::Other(p.clone()));
        }
    }
    if !texts.is_empty() {
        out.push(message("user", texts, source, at));
    }
    out
}
