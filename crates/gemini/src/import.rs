//! Importing a Gemini CLI chat into a v5 session (`docs/cctool-session.md#imports`), read
//! from the session model's stream ([`cctool_core::v5::import`]): each message a v5 message pointing back at its line, a gemini message's
//! calls as tool calls with their results as tool messages after it. The full import keeps
//! every message the log ever held, in file order, and every other line (headers, `$set`,
//! `$rewindTo`, lines the client skips) as a `native` item; the effective import keeps what a
//! resume loads.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use cctool_core::io::Source;
use cctool_core::model::events::{Origin, Record};
use cctool_core::v5::build::{Head, held, message, text, tool_message};
use cctool_core::v5::import::{Mapping, ask, import, native_message};
use cctool_core::v5::schema::{Item, MessageV3, Session};

/// A Gemini CLI chat as a v5 session.
pub fn gemini(src: &Source) -> io::Result<Session> {
    held(gemini_into(src, false, None)?)
}

/// [`gemini`], written to `w` as a v5 file message by message; `effective` keeps only what a
/// resume loads.
pub fn gemini_to(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()> {
    gemini_into(src, effective, Some(w)).map(drop)
}

fn gemini_into(src: &Source, effective: bool, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
    let mut c = crate::file::read(src)?;
    let r = crate::replay::replay(&mut c);
    let first_ms = r
        .msgs
        .iter()
        .filter_map(|m| m.s("timestamp"))
        .filter_map(cctool_core::model::time::parse_ms)
        .min();
    let head = Head {
        session_id: r.session_id().map(str::to_string),
        first_ms,
        source: json!({"format": crate::ID.name(), "path": src.name(), "native_session_id": r.session_id()}),
    };
    import(head, w, &mut Gemini, |sink| {
        crate::answers::events_of(&c, &r, ask(effective), sink);
        Ok(())
    })
}

/// The v5 messages of Gemini CLI's messages; every line that is no message (a header, a
/// `$set`, a line the client skips) kept whole before the messages it holds.
struct Gemini;

impl Mapping for Gemini {
    fn record(&mut self, r: Record, raw: &mut Vec<MessageV3>) {
        match (&r.id, &r.native) {
            (Some(id), Some(v)) if r.origin != Origin::Unread => {
                raw.extend(converted(v, r.at.map_or(0, |a| a.line), id));
            }
            _ => raw.push(native_message(crate::ID.name(), &r)),
        }
    }
}

/// The v5 messages of the message `m`, held at `line`, its id `id`.
fn converted(m: &Value, line: u64, id: &str) -> Vec<MessageV3> {
    let source = json!({"line": line, "id": id});
    let at = m.get("timestamp").and_then(Value::as_str).map(str::to_string);
    let content = m.get("content").unwrap_or(&Value::Null);
    match m.get("type").and_then(Value::as_str).unwrap_or("") {
        "user" => user(content, source, at),
        "gemini" => {
            let mut items: Vec<Item> = crate::record::parts(Some(content))
                .into_iter()
                .filter_map(|p| match p {
                    cctool_core::model::events::Part::Text(t) => Some(text(&t)),
                    _ => None,
                })
                .collect();
            let calls = m
                .get("toolCalls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut results = Vec::new();
            for c in &calls {
                let id = c.get("id").and_then(Value::as_str).unwrap_or("").to_string();
                items.push(Item::ToolCall {
                    id: id.clone(),
                    name: c.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
                    args: c.get("args").cloned().unwrap_or(json!({})),
                    extra: Map::new(),
                });
                if let Some(result) = c.get("result").filter(|r| !r.is_null()) {
                    results.push(tool_message(&id, result.clone(), source.clone(), at.clone()));
                }
            }
            let mut out = vec![message("assistant", items, source, at)];
            out.extend(results);
            out
        }
        _ => vec![message(
            "system",
            vec![text(&crate::sent::text_of(Some(content)))],
            source,
            at,
        )],
    }
}

/// A user message: its texts as one message, each function response as a tool message.
fn user(content: &Value, source: Value, at: Option<String>) -> Vec<MessageV3> {
    let parts: Vec<Value> = match content {
        Value::Array(a) => a.clone(),
        other => vec![other.clone()],
    };
    let mut out = Vec::new();
    let mut texts = Vec::new();
    for p in &parts {
        match p.get("functionResponse") {
            Some(f) => {
                let id = f.get("id").and_then(Value::as_str).unwrap_or("");
                let response = f.get("response").cloned().unwrap_or(Value::Null);
                out.push(tool_message(id, response, source.clone(), at.clone()));
            }
            None => texts.push(crate::sent::text_of(Some(p))),
        }
    }
    if !texts.is_empty() || out.is_empty() {
        out.insert(0, message("user", vec![text(&texts.concat())], source, at));
    }
    out
}
