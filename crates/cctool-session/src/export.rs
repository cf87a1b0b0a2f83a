//! cctool sessions for `export`: every message, in order (a session holds only what a
//! resume loads), as a message of the document or as written for `--format jsonl`.

use serde_json::Value;

use super::file::{SessionError, read_messages};
use crate::io::Source;
use crate::model::doc::{Entry, ExportError, Msg, Part, local_time, output_text, pretty, s};

fn unreadable(e: SessionError) -> ExportError {
    ExportError::Session(Box::new(e))
}

/// The document's entries, each message parsed by `parse`.
pub(crate) fn entries(src: &Source, parse: &dyn Fn(&[u8]) -> Value) -> Result<Vec<Entry>, ExportError> {
    let m = read_messages(src).map_err(unreadable)?;
    Ok(m.messages.iter().map(|raw| message(&parse(raw))).collect())
}

/// `--format jsonl`: every message as written, each handed to `emit`.
pub(crate) fn records(src: &Source, emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>) -> Result<(), ExportError> {
    let m = read_messages(src).map_err(unreadable)?;
    for raw in m.messages.iter() {
        emit(raw)?;
    }
    Ok(())
}

/// A cctool session message (any schema version).
fn message(v: &Value) -> Entry {
    let role = s(v, "role").unwrap_or("?").to_string();
    let time = s(v, "timestamp").or_else(|| s(v, "ts")).map(local_time);
    let mut images = Vec::new();
    let parts = match v.get("items").and_then(Value::as_array) {
        Some(items) => items
            .iter()
            .map(|i| match s(i, "type") {
                Some("text" | "summary") => Part::Text(s(i, "text").unwrap_or("").to_string()),
                Some("reasoning") => Part::Thinking(s(i, "text").unwrap_or("").to_string()),
                Some("tool_call") => Part::ToolCall {
                    name: s(i, "name").unwrap_or("?").to_string(),
                    id: s(i, "id").unwrap_or("").to_string(),
                    input: i.get("args").map(pretty).unwrap_or_default(),
                },
                Some("tool_result") => {
                    let mut imgs = Vec::new();
                    let text = output_text(i.get("content").unwrap_or(&Value::Null), &mut imgs);
                    Part::ToolResult {
                        id: s(i, "call_id").or_else(|| s(i, "id")).unwrap_or("").to_string(),
                        error: i.get("is_error").and_then(Value::as_bool) == Some(true),
                        text,
                        images: imgs,
                    }
                }
                Some(other) => Part::Note(format!("[{other}]")),
                None => Part::Note("[?]".into()),
            })
            .collect(),
        None => vec![Part::Text(output_text(
            v.get("content").unwrap_or(&Value::Null),
            &mut images,
        ))],
    };
    Entry::Msg(Msg {
        role,
        line: None,
        time,
        parts,
    })
}
