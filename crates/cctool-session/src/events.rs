//! A cctool session's messages as the session model's events (`cctool_core::model::events`):
//! one per message, every one loaded on resume, with the texts, tool calls and results of its
//! items (or, before version 3, of its `content`, `tool_calls` and `tool_call_id`).

use serde_json::Value;

use crate::io::Source;
use crate::model::events::{Call, Event, Flags, Outcome, Part, Sink, Streamed};
use crate::model::rows::{earliest, message_texts, parse, str_of};

/// Streams the session's messages.
pub(crate) fn events(src: &Source, sink: Sink<'_>) -> crate::error::Result<Streamed> {
    let s = super::file::read_messages(src)?;
    let mut streamed = Streamed::default();
    for m in s.messages.iter() {
        let Some(v) = parse(m) else { continue };
        let ms = crate::model::session::session_time(&v);
        earliest(&mut streamed.first_ms, ms);
        let items: &[Value] = v.get("items").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let role = str_of(&v, "role");
        let parts = if items.is_empty() {
            legacy_parts(&v)
        } else {
            item_parts(items, str_of(&v, "tool_call_id"))
        };
        sink(Event {
            loaded: true,
            ms,
            session_id: s.session_id.clone(),
            kind: role.unwrap_or("").to_string(),
            role: role.map(str::to_string),
            flags: Flags {
                compact_summary: Some(items.iter().any(|i| str_of(i, "type") == Some("summary"))),
                ..Flags::default()
            },
            parts,
            ..Event::default()
        });
    }
    Ok(streamed)
}

/// The parts of a message of version 3 on: its `text` and `summary` items as texts, its
/// `tool_call` items as calls, its `tool_result` items as the results of the call the message
/// answers.
fn item_parts(items: &[Value], answers: Option<&str>) -> Vec<Part> {
    items
        .iter()
        .filter_map(|i| match str_of(i, "type") {
            Some("text" | "summary") => str_of(i, "text").map(|t| Part::Text(t.to_string())),
            Some("tool_call") => Some(Part::Call(Call {
                id: str_of(i, "id").map(str::to_string),
                name: str_of(i, "name").map(str::to_string),
                kind: "tool_call".into(),
                input: i.get("args").cloned(),
            })),
            Some("tool_result") => Some(Part::Outcome(Outcome {
                call_id: answers.map(str::to_string),
                is_error: i.get("is_error").and_then(Value::as_bool),
                output: i.get("content").cloned(),
            })),
            _ => None,
        })
        .collect()
}

/// The parts of a message before version 3: the texts of its `content`, its `tool_calls`
/// (arguments as JSON text), and, on a `tool` message, its content as the result of the call
/// it names.
fn legacy_parts(v: &Value) -> Vec<Part> {
    let content = v.get("content");
    let mut out: Vec<Part> = content
        .map(|c| {
            message_texts(c)
                .into_iter()
                .map(|t| Part::Text(t.to_string()))
                .collect()
        })
        .unwrap_or_default();
    let calls = v.get("tool_calls").and_then(Value::as_array).into_iter().flatten();
    out.extend(calls.map(|c| {
        Part::Call(Call {
            id: str_of(c, "id").map(str::to_string),
            name: str_of(c, "name").map(str::to_string),
            kind: "tool_call".into(),
            input: c.get("arguments").cloned(),
        })
    }));
    if str_of(v, "role") == Some("tool") {
        out.push(Part::Outcome(Outcome {
            call_id: str_of(v, "tool_call_id").map(str::to_string),
            is_error: None,
            output: content.cloned(),
        }));
    }
    out
}
