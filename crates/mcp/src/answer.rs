//! The answers of the tools as JSON, and their redaction: every string handed out passes
//! through the export's redactor (`cctool_features::redact`) unless the server was started
//! with `--no-redact`, the fields that name a session, a message or a time aside.

use cctool_core::model::session::SessionRecord;
use cctool_core::summary::SummaryRecord;
use cctool_features::redact::Redactor;
use cctool_features::search::Hit;
use serde_json::{Value, json};

/// Fields whose values name what an answer is about: the client gives them back, so they
/// are never replaced (they hold no text of the user's).
const KEPT: &[&str] = &[
    "id",
    "session_id",
    "message_id",
    "agent",
    "role",
    "field",
    "scope",
    "time",
    "timestamp",
    "first_timestamp",
    "last_timestamp",
    "kind",
    "event",
    "trigger",
    "origin",
];

/// A session as `list_sessions` gives it: what `scan` computed.
pub(crate) fn session(r: &SessionRecord) -> Value {
    json!({
        "id": r.session_id,
        "agent": r.format,
        "title": r.title,
        "project": r.project,
        "cwd": r.cwd,
        "first_timestamp": r.first_timestamp,
        "last_timestamp": r.last_timestamp,
        "messages": r.chain_messages,
        "compactions": r.compactions,
        "subagents": r.subagents.len(),
        "bytes": r.bytes,
        "file": r.path,
    })
}

/// A hit as `search` gives it.
pub(crate) fn hit(s: &SessionRecord, h: &Hit) -> Value {
    json!({
        "session_id": s.session_id,
        "agent": s.format,
        "title": s.title,
        "project": s.project,
        "subagent": s.role == "subagent",
        "file": s.path,
        "line": h.line,
        "message_id": h.message_id,
        "role": h.role.name(),
        "field": h.field.name(),
        "time": h.time,
        "scope": if h.effective { "effective" } else { "full" },
        "snippet": h.snippet.text,
    })
}

/// A summary as `extract-summary --json` prints it.
pub(crate) fn summary(r: &SummaryRecord) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("kind".into(), Value::from(r.kind));
    }
    v
}

/// Redaction of what the server hands out, or none (`--no-redact`).
pub(crate) struct Scrub(pub(crate) Option<Redactor>);

impl Scrub {
    /// `text` with its secrets replaced.
    pub(crate) fn text(&self, text: String) -> String {
        match &self.0 {
            Some(r) => r.redact_text(&text).unwrap_or(text),
            None => text,
        }
    }

    /// Every string of `v` with its secrets replaced, but those of [`KEPT`] fields.
    pub(crate) fn value(&self, v: &mut Value) {
        if self.0.is_none() {
            return;
        }
        match v {
            Value::String(s) => *s = self.text(std::mem::take(s)),
            Value::Array(items) => items.iter_mut().for_each(|i| self.value(i)),
            Value::Object(m) => {
                for (k, v) in m.iter_mut() {
                    if !KEPT.contains(&k.as_str()) {
                        self.value(v);
                    }
                }
            }
            _ => {}
        }
    }
}
