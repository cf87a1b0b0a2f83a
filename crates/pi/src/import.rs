//! Importing a pi session into a v5 session (`docs/cctool-session.md#imports`), with the core's
//! builders as every agent's import does: each message as a v5 message pointing back at its
//! line, the entries that are no message (and the header) kept as `native` items so nothing is
//! lost. The effective import keeps what a resume loads, the compaction's summary as the user's
//! message it is sent as.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::file::{self, Entry};
use crate::tree::Tree;
use cctool_core::io::Source;
use cctool_core::v5::build::{Head, Sink, content_text, held, message, native, parse, text, tool_message};
use cctool_core::v5::schema::{Item, MessageV3, Session};

/// A pi session as a v5 session.
pub fn pi(src: &Source) -> io::Result<Session> {
    held(pi_into(src, false, None)?)
}

/// [`pi`], written to `w` as a v5 file message by message; `effective` keeps only what a
/// resume loads, in the order it sends it.
pub fn pi_to(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()> {
    pi_into(src, effective, Some(w)).map(drop)
}

fn pi_into(src: &Source, effective: bool, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
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
    let order: Vec<usize> = if effective {
        Tree::of(&s).context
    } else {
        if let (Some(h), Some(bytes)) = (&s.header, &s.header_raw) {
            raw.push(native_at(h.line, bytes));
        }
        (0..s.entries.len()).collect()
    };
    let mut unread = s.unread.iter().filter(|_| !effective).peekable();
    for i in order {
        let e = &s.entries[i];
        while let Some(u) = unread.next_if(|u| u.line < e.line) {
            raw.push(native_at(u.line, &u.raw));
        }
        match converted(e) {
            Some(m) => raw.push(m),
            None if effective => continue,
            None => raw.push(native_at(e.line, &e.raw)),
        }
        sink.take_final(&mut raw)?;
    }
    for u in unread {
        raw.push(native_at(u.line, &u.raw));
    }
    sink.finish(raw, head)
}

/// The entry as a v5 message, when it is one a conversation holds.
fn converted(e: &Entry) -> Option<MessageV3> {
    let source = json!({"line": e.line});
    let at = e.timestamp().map(str::to_string);
    match e.ty() {
        "compaction" => {
            let summary = e.s("summary").unwrap_or("");
            let t = format!(
                "{}{summary}{}",
                crate::model::COMPACTION_PREFIX,
                crate::model::COMPACTION_SUFFIX
            );
            Some(message("user", vec![text(&t)], source, at))
        }
        "branch_summary" => {
            let t = format!(
                "{}{}{}",
                crate::model::BRANCH_PREFIX,
                e.s("summary")?,
                crate::model::BRANCH_SUFFIX
            );
            Some(message("user", vec![text(&t)], source, at))
        }
        "custom_message" => {
            let t = content_text(e.value.get("content").unwrap_or(&Value::Null));
            Some(message("user", vec![text(&t)], source, at))
        }
        "message" => {
            let m = e.message()?;
            let content = m.get("content").unwrap_or(&Value::Null);
            match m.get("role").and_then(Value::as_str)? {
                "toolResult" => {
                    let id = m.get("toolCallId").and_then(Value::as_str).unwrap_or("");
                    Some(tool_message(id, content.clone(), source, at))
                }
                "assistant" => Some(message("assistant", assistant_items(content), source, at)),
                role @ ("user" | "system") => Some(message(role, vec![text(&content_text(content))], source, at)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn assistant_items(content: &Value) -> Vec<Item> {
    let Value::Array(blocks) = content else {
        return vec![text(&content_text(content))];
    };
    blocks
        .iter()
        .map(|b| {
            let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            match b.get("type").and_then(Value::as_str) {
                Some("text") => text(&s("text")),
                Some("thinking") => Item::Reasoning {
                    text: s("thinking"),
                    extra: Map::new(),
                },
                Some("toolCall") => Item::ToolCall {
                    id: s("id"),
                    name: s("name"),
                    args: b.get("arguments").cloned().unwrap_or(json!({})),
                    extra: Map::new(),
                },
                _ => Item::Other(b.clone()),
            }
        })
        .collect()
}
