//! Importing an opencode session into a v5 session (`docs/cctool-session.md#imports`), read
//! from the session model's stream ([`cctool_core::v5::import`]): each prompt and reply a v5 message, a reply's calls in its assistant
//! message and their results as tool messages, the compaction's summary as the user's text,
//! and every part cctool does not map kept as a `native` item so nothing is lost.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::file;
use crate::model::COMPACTION_PROMPT;
use cctool_core::io::Source;
use cctool_core::model::events::Record;
use cctool_core::v5::build::{Head, held, message, native, text, tool_message};
use cctool_core::v5::import::{Mapping, ask, import};
use cctool_core::v5::schema::{Item, MessageV3, Session};

/// An opencode session as a v5 session.
pub fn opencode(src: &Source) -> io::Result<Session> {
    held(opencode_into(src, false, None)?)
}

/// [`opencode`], written to `w` as a v5 file message by message; `effective` keeps only what
/// a resume loads (from the last answered compaction on).
pub fn opencode_to(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()> {
    opencode_into(src, effective, Some(w)).map(drop)
}

fn opencode_into(src: &Source, effective: bool, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
    let s = file::read(src)?;
    let head = Head {
        session_id: s.id().map(str::to_string),
        first_ms: s.messages.iter().filter_map(|m| m.created_ms()).min(),
        source: json!({"format": crate::ID.name(), "path": src.name(), "native_session_id": s.id()}),
    };
    import(head, w, &mut Opencode, |sink| {
        crate::view::events_of(&s, ask(effective), sink);
        Ok(())
    })
}

/// The v5 messages of opencode's messages, each read from its parts as written.
struct Opencode;

impl Mapping for Opencode {
    fn record(&mut self, r: Record, raw: &mut Vec<MessageV3>) {
        let source = json!({"message": r.id});
        let at = r.time.clone();
        let parts = r.native.as_ref().and_then(|v| v.get("parts")).and_then(Value::as_array);
        let mut items = Vec::new();
        let mut results = Vec::new();
        for p in parts.into_iter().flatten() {
            let str_of = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            match p.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => items.push(text(&str_of("text"))),
                "compaction" => items.push(text(COMPACTION_PROMPT)),
                "tool" => {
                    let state = p.get("state").unwrap_or(&Value::Null);
                    items.push(Item::ToolCall {
                        id: str_of("callID"),
                        name: str_of("tool"),
                        args: state.get("input").cloned().unwrap_or(Value::Object(Map::new())),
                        extra: Map::new(),
                    });
                    let output = match state.get("status").and_then(Value::as_str) {
                        Some("completed") => state.get("output").cloned(),
                        Some("error") => state.get("error").cloned(),
                        _ => None,
                    };
                    if let Some(o) = output {
                        results.push((str_of("callID"), o));
                    }
                }
                _ => items.push(native(crate::ID.name(), p.clone(), None)),
            }
        }
        let role = if r.role.as_deref() == Some("assistant") {
            "assistant"
        } else {
            "user"
        };
        raw.push(message(role, items, source.clone(), at.clone()));
        for (id, out) in results {
            raw.push(tool_message(&id, out, source.clone(), at.clone()));
        }
    }
}
