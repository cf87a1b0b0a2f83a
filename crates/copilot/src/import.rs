//! Importing a Copilot CLI session into a v5 session (`docs/cctool-session.md#imports`), with
//! the core's builders: each prompt, reply and result as a v5 message pointing back at its
//! line, a reply's calls in its assistant message, and every other event kept as a `native`
//! item so nothing is lost.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::file::{self, Event};
use crate::model::{conversational, loaded_order};
use cctool_core::io::Source;
use cctool_core::v5::build::{Head, Sink, held, message, native, parse, text, tool_message};
use cctool_core::v5::schema::{Item, MessageV3, Session};

/// A Copilot CLI session as a v5 session.
pub fn copilot(src: &Source) -> io::Result<Session> {
    held(copilot_into(src, false, None)?)
}

/// [`copilot`], written to `w` as a v5 file message by message; `effective` keeps only what a
/// resume loads (from the last compaction on, its summary first).
pub fn copilot_to(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()> {
    copilot_into(src, effective, Some(w)).map(drop)
}

fn copilot_into(src: &Source, effective: bool, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
    let s = file::read(src)?;
    let first_ms = s
        .events
        .iter()
        .filter_map(|e| cctool_core::model::time::parse_ms(e.time.as_deref()?))
        .min();
    let head = Head {
        session_id: s.session_id().map(str::to_string),
        first_ms,
        source: json!({"format": crate::ID.name(), "path": src.name(), "native_session_id": s.session_id()}),
    };
    let mut sink = Sink::new(&head, w)?;
    let mut raw: Vec<MessageV3> = Vec::new();
    let order = if effective {
        loaded_order(&s)
    } else {
        (0..s.events.len()).collect()
    };
    let mut unread = s.unread.iter().filter(|_| !effective).peekable();
    for e in order.into_iter().map(|i| &s.events[i]) {
        while let Some(u) = unread.next_if(|u| u.line < e.line) {
            raw.push(native_message(u.line, &u.raw));
        }
        if effective && !conversational(&e.ty) {
            continue;
        }
        one_event(e, &mut raw);
        sink.take_final(&mut raw)?;
    }
    for u in unread {
        raw.push(native_message(u.line, &u.raw));
    }
    sink.finish(raw, head)
}

fn native_message(line: u64, bytes: &[u8]) -> MessageV3 {
    let item = native(crate::ID.name(), parse(bytes), Some(line));
    message("system", vec![item], json!({"line": line}), None)
}

/// Adds the v5 message(s) of event `e` to `raw`: a reply's text and calls join the assistant
/// message before them when the turn is still open.
fn one_event(e: &Event, raw: &mut Vec<MessageV3>) {
    let source = json!({"line": e.line});
    let at = e.time.clone();
    match e.ty.as_str() {
        "user.message" => raw.push(message("user", vec![text(e.s("content").unwrap_or(""))], source, at)),
        "session.compaction_complete" => raw.push(message(
            "user",
            vec![text(e.s("summaryContent").unwrap_or(""))],
            source,
            at,
        )),
        "tool.execution_complete" => {
            let out = crate::model::record(e, &parse(&e.raw), true);
            let output = out
                .outcomes()
                .next()
                .and_then(|o| o.output.clone())
                .unwrap_or(Value::Null);
            raw.push(tool_message(e.s("toolCallId").unwrap_or(""), output, source, at));
        }
        "assistant.message" => {
            let mut items = Vec::new();
            if let Some(t) = e.s("content").filter(|t| !t.is_empty()) {
                items.push(text(t));
            }
            let reqs = e.data.get("toolRequests").and_then(Value::as_array);
            for r in reqs.into_iter().flatten() {
                let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                items.push(Item::ToolCall {
                    id: s("toolCallId"),
                    name: s("name"),
                    args: r.get("arguments").cloned().unwrap_or(Value::Object(Map::new())),
                    extra: Map::new(),
                });
            }
            match raw.last_mut() {
                Some(last) if last.role == "assistant" => last.items.extend(items),
                _ => raw.push(message("assistant", items, source, at)),
            }
        }
        _ => raw.push(native_message(e.line, &e.raw)),
    }
}
