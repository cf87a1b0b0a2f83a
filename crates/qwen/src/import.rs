//! Importing a Qwen Code session into a v5 session (`docs/cctool-session.md#imports`). The
//! full import reads the session model's stream ([`cctool_core::v5::import`]): each
//! conversation record as a v5 message pointing back at its line (a tool result record as one
//! tool message per function response), every other record and every line the client passes
//! over kept as a `native` item so nothing is lost. The effective import keeps what a resume
//! sends, which the client rebuilds from the walked records the stream hands on: the
//! compressed history of the compaction it starts from (its summary as the user's message it
//! is sent as), then the records walked after it.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::chain::Chain;
use crate::file;
use cctool_core::io::Source;
use cctool_core::model::events::Record;
use cctool_core::v5::build::{Head, Sink, held, message, text, tool_message};
use cctool_core::v5::import::{Mapping, ask, import, native_message};
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
    if effective {
        return history(&s, head, w);
    }
    import(head, w, &mut Qwen, |sink| {
        crate::answers::events_of(&s, ask(false), sink);
        Ok(())
    })
}

/// The effective import: the history a resume rebuilds and sends, rebuilt by the client's
/// rules ([`Chain::history_along`]) from the walked records the session model's stream hands
/// on: each compaction replaces all before it with the history it compressed, and a record's
/// fragments join into one Content.
fn history(s: &file::Session, head: Head, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
    let mut sink = Sink::new(&head, w)?;
    let mut raw: Vec<MessageV3> = Vec::new();
    let chain = Chain::of(s);
    for content in chain.history_along(s, &crate::answers::walked(s, &chain)) {
        let r = &s.records[content.from];
        let at = r.timestamp().map(str::to_string);
        raw.extend(contents(&content.value, r.line, at));
        sink.take_final(&mut raw)?;
    }
    sink.finish(raw, head)
}

/// The v5 messages of Qwen Code's records: a record's message as its Contents, every other
/// record (the `system` ones, and what the client passes over) kept whole.
struct Qwen;

impl Mapping for Qwen {
    fn record(&mut self, r: Record, raw: &mut Vec<MessageV3>) {
        let v = r.native.as_ref().unwrap_or(&Value::Null);
        let message = v.get("message").filter(|m| m.is_object());
        match message.filter(|_| v.get("type").and_then(Value::as_str) != Some("system")) {
            Some(m) => raw.extend(contents(m, r.at.map_or(0, |a| a.line), r.time.clone())),
            None => raw.push(native_message(crate::ID.name(), &r)),
        }
    }
}

/// The v5 messages of the Content `c`, written at `line` at time `at`.
fn contents(c: &Value, line: u64, at: Option<String>) -> Vec<MessageV3> {
    let source = json!({"line": line});
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
