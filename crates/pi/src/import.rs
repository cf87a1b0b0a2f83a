//! Importing a pi session into a v5 session (`docs/cctool-session.md#imports`), read from the
//! session model's stream ([`cctool_core::v5::import`]): each message as a v5 message pointing
//! back at its line, the entries that are no message (and the header, and the lines the client
//! skips) kept as `native` items so nothing is lost. The effective import keeps what a resume
//! loads, the compaction's summary as the user's message it is sent as.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::file;
use cctool_core::io::Source;
use cctool_core::model::events::{Part, Record};
use cctool_core::v5::build::{Head, content_text, held, message, text, tool_message};
use cctool_core::v5::import::{Mapping, ask, import, item, line_source, native_message};
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
    import(head, w, &mut Pi { effective }, |sink| {
        crate::answers::events_of(&s, ask(effective), sink);
        Ok(())
    })
}

/// The v5 messages of pi's entries; `effective` leaves out, rather than keeps whole, what is
/// no message a resume sends.
struct Pi {
    effective: bool,
}

impl Mapping for Pi {
    fn record(&mut self, r: Record, raw: &mut Vec<MessageV3>) {
        match converted(&r) {
            Some(m) => raw.push(m),
            None if self.effective => {}
            None => raw.push(native_message(crate::ID.name(), &r)),
        }
    }
}

/// The v5 message of the entry `r`, as the client sends it; `None` for an entry it sends no
/// message of.
fn converted(r: &Record) -> Option<MessageV3> {
    let v = r.native.as_ref()?;
    let source = line_source(r);
    let at = r.time.clone();
    let user = |t: String| Some(message("user", vec![text(&t)], source.clone(), at.clone()));
    match r.kind.as_str() {
        "compaction" => {
            use crate::model::{COMPACTION_PREFIX, COMPACTION_SUFFIX};
            user(format!("{COMPACTION_PREFIX}{}{COMPACTION_SUFFIX}", r.text()))
        }
        "branch_summary" => {
            use crate::model::{BRANCH_PREFIX, BRANCH_SUFFIX};
            let summary = v.get("summary").and_then(Value::as_str)?;
            user(format!("{BRANCH_PREFIX}{summary}{BRANCH_SUFFIX}"))
        }
        "custom_message" => user(content_text(v.get("content").unwrap_or(&Value::Null))),
        "message" => {
            let content = v.pointer("/message/content").unwrap_or(&Value::Null);
            match r.role.as_deref()? {
                "toolResult" => {
                    let o = r.outcomes().next()?;
                    let id = o.call_id.as_deref().unwrap_or("");
                    Some(tool_message(id, o.output.clone().unwrap_or_default(), source, at))
                }
                "assistant" => Some(message("assistant", assistant_items(r, content), source, at)),
                role @ ("user" | "system") => Some(message(role, vec![text(&content_text(content))], source, at)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The items of an assistant message: each block's part as the v5 item it is, a redacted
/// thinking block as reasoning of its text, and a block the v5 schema has no item for (an
/// image, a type cctool does not read) as written.
fn assistant_items(r: &Record, content: &Value) -> Vec<Item> {
    let Value::Array(blocks) = content else {
        return vec![text(&content_text(content))];
    };
    // The record holds one part per block.
    r.parts
        .iter()
        .zip(blocks)
        .map(|(p, b)| match p {
            Part::Redacted => Item::Reasoning {
                text: b.get("thinking").and_then(Value::as_str).unwrap_or("").to_string(),
                extra: Map::new(),
            },
            p => item(p).unwrap_or_else(|| Item::Other(b.clone())),
        })
        .collect()
}
