//! A cctool session's messages as the session model's events (`cctool_core::model::events`):
//! one per message, every one loaded on resume, with the texts, tool calls and results of its
//! items (or, before version 3, of its `content`, `tool_calls` and `tool_call_id`).

use serde_json::Value;

use crate::io::Source;
use crate::model::doc::output_text;
use crate::model::events::{Ask, Call, Event, Flags, Outcome, Part, Record, Sink, Streamed};
use crate::model::rows::{earliest, str_of};

/// Streams the session's messages: in every view the same, since a session holds only what a
/// resume loads.
pub(crate) fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> crate::error::Result<Streamed> {
    let s = super::file::read_messages(src)?;
    let mut streamed = Streamed::default();
    for m in s.messages.iter() {
        let Some(v) = ask.parse(m) else { continue };
        let r = Record {
            session_id: s.session_id.clone(),
            ..message_record(&v)
        };
        earliest(&mut streamed.first_ms, r.ms);
        sink(Event::Record(r));
    }
    Ok(streamed)
}

/// One message (any schema version) as the session model's record.
pub(crate) fn message_record(v: &Value) -> Record {
    let items = v.get("items").and_then(Value::as_array);
    let role = str_of(v, "role");
    let parts = match items {
        Some(items) => item_parts(items, str_of(v, "tool_call_id")),
        None => legacy_parts(v),
    };
    let summary = items.is_some_and(|i| i.iter().any(|i| str_of(i, "type") == Some("summary")));
    Record {
        loaded: true,
        ms: crate::model::session::session_time(v),
        time: str_of(v, "timestamp").or_else(|| str_of(v, "ts")).map(str::to_string),
        speaker: Some(role.unwrap_or("?").to_string()),
        kind: role.unwrap_or("").to_string(),
        role: role.map(str::to_string),
        flags: Flags {
            compact_summary: Some(summary),
            ..Flags::default()
        },
        parts,
        ..Record::default()
    }
}

/// The parts of a message of version 3 on: its `text` and `summary` items as texts, its
/// `reasoning` as reasoning, its `tool_call` items as calls, its `tool_result` items as the
/// results of the call the message answers (or, without one, the call the item names).
fn item_parts(items: &[Value], answers: Option<&str>) -> Vec<Part> {
    let text = |i: &Value| str_of(i, "text").unwrap_or("").to_string();
    items
        .iter()
        .map(|i| match str_of(i, "type") {
            Some("text" | "summary") => Part::Text(text(i)),
            Some("reasoning") => Part::Reasoning {
                text: text(i),
                summary: false,
            },
            Some("tool_call") => Part::Call(Call {
                id: str_of(i, "id").map(str::to_string),
                name: str_of(i, "name").map(str::to_string),
                kind: "tool_call".into(),
                input: i.get("args").cloned(),
            }),
            Some("tool_result") => Part::Outcome(Outcome {
                call_id: answers
                    .or_else(|| str_of(i, "call_id"))
                    .or_else(|| str_of(i, "id"))
                    .map(str::to_string),
                is_error: i.get("is_error").and_then(Value::as_bool),
                output: i.get("content").cloned(),
            }),
            other => Part::Other {
                kind: other.unwrap_or("?").to_string(),
                value: None,
            },
        })
        .collect()
}

/// The parts of a message before version 3: its `content` as text (on a `tool` message, as
/// the result of the call it names), its `thinking`, and its `tool_calls` (arguments as JSON
/// text).
fn legacy_parts(v: &Value) -> Vec<Part> {
    let content = v.get("content");
    if str_of(v, "role") == Some("tool") {
        return vec![Part::Outcome(Outcome {
            call_id: str_of(v, "tool_call_id").map(str::to_string),
            is_error: None,
            output: content.cloned(),
        })];
    }
    let mut out = Vec::new();
    if let Some(t) = str_of(v, "thinking") {
        out.push(Part::Reasoning {
            text: t.to_string(),
            summary: false,
        });
    }
    out.push(Part::Text(output_text(
        content.unwrap_or(&Value::Null),
        &mut Vec::new(),
    )));
    let calls = v.get("tool_calls").and_then(Value::as_array).into_iter().flatten();
    out.extend(calls.map(|c| {
        Part::Call(Call {
            id: str_of(c, "id").map(str::to_string),
            name: str_of(c, "name").map(str::to_string),
            kind: "tool_call".into(),
            input: c.get("arguments").cloned(),
        })
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Before version 3 a call was a `tool_calls` entry and its result a `tool` message: both
    /// are a call and a result of the model, as from version 3 on.
    #[test]
    fn legacy_calls_and_results_are_calls_and_results() {
        let call = json!({"role": "assistant", "content": "", "thinking": "t", "tool_calls": [{"id": "c1", "name": "read_file", "arguments": "{}"}]});
        let parts = legacy_parts(&call);
        assert!(matches!(&parts[0], Part::Reasoning { text, summary: false } if text == "t"));
        assert!(matches!(&parts[2], Part::Call(c) if c.id.as_deref() == Some("c1") && c.input == Some(json!("{}"))));
        let result = json!({"role": "tool", "tool_call_id": "c1", "content": "out"});
        assert_eq!(
            legacy_parts(&result),
            vec![Part::Outcome(Outcome {
                call_id: Some("c1".into()),
                is_error: None,
                output: Some(json!("out")),
            })]
        );
    }
}
