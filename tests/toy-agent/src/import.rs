//! Importing a toy session into a v5 session (`docs/cctool-session.md#imports`), with the
//! core's builders as every agent's import does: each message as a v5 message pointing back
//! at its line, a model's text and the calls after it in one assistant message, the header
//! and unreadable lines kept as `native` items so nothing is lost.

use std::io::{self, Write};

use serde_json::{Map, json};

use crate::file::{self, Said};
use cctool_core::io::Source;
use cctool_core::v5::build::{Head, Sink, held, message, native, parse, text, tool_message};
use cctool_core::v5::schema::{Item, MessageV3, Session};

/// A toy session as a v5 session.
pub fn toy(src: &Source) -> io::Result<Session> {
    held(toy_into(src, false, None)?)
}

/// [`toy`], written to `w` as a v5 file message by message; `effective` keeps only what a
/// resume loads (every message, without the header and the lines that are no record).
pub fn toy_to(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()> {
    toy_into(src, effective, Some(w)).map(drop)
}

fn toy_into(src: &Source, effective: bool, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
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
    if let (false, Some(h)) = (effective, &s.header_raw) {
        raw.push(native_at(1, h));
    }
    // Messages and unread lines in file order.
    let mut unread = s.unread.iter().filter(|_| !effective).peekable();
    for m in &s.messages {
        while let Some(u) = unread.next_if(|u| u.line < m.line) {
            raw.push(native_at(u.line, &u.raw));
        }
        let source = json!({"line": m.line});
        let at = m.said.at().map(str::to_string);
        let item = match &m.said {
            Said::Text {
                role: "user", text: t, ..
            } => {
                raw.push(message("user", vec![text(t)], source, at));
                sink.take_final(&mut raw)?;
                continue;
            }
            Said::Result { id, output } => {
                raw.push(tool_message(id, json!(output), source, at));
                sink.take_final(&mut raw)?;
                continue;
            }
            Said::Text { text: t, .. } => text(t),
            Said::Call { id, tool, input } => Item::ToolCall {
                id: id.clone(),
                name: tool.clone(),
                args: input.clone(),
                extra: Map::new(),
            },
        };
        match raw.last_mut() {
            Some(last) if last.role == "assistant" => last.items.push(item),
            _ => raw.push(message("assistant", vec![item], source, at)),
        }
        sink.take_final(&mut raw)?;
    }
    for u in unread {
        raw.push(native_at(u.line, &u.raw));
    }
    sink.finish(raw, head)
}
