//! Importing a toy session into a v5 session (`docs/cctool-session.md#imports`) as every
//! agent's import does: from the session model's stream, asked for all the file holds
//! ([`cctool_core::v5::import`]), each message record as a v5 message pointing back at its
//! line, a model's text and the calls after it in one assistant message, the header and
//! unreadable lines kept as `native` items so nothing is lost.

use std::io::{self, Write};

use cctool_core::io::Source;
use cctool_core::model::events::{Origin, Record};
use cctool_core::v5::build::{Head, held, message, tool_message};
use cctool_core::v5::import::{Mapping, ask, import, item, line_source, native_message};
use cctool_core::v5::schema::{MessageV3, Session};
use serde_json::json;

use crate::file;

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
    import(head, w, &mut Toy, |sink| {
        crate::answers::events_of(&s, ask(effective), sink);
        Ok(())
    })
}

/// The v5 messages of the toy's records: a user's text as the user's message, a result as a
/// tool message, the model's text and calls joined into one assistant message.
struct Toy;

impl Mapping for Toy {
    fn record(&mut self, r: Record, raw: &mut Vec<MessageV3>) {
        if r.origin == Origin::Unread {
            return raw.push(native_message(crate::ID.name(), &r));
        }
        let at = r.time.clone();
        match r.role.as_deref() {
            Some("user") => raw.push(message(
                "user",
                r.parts.iter().filter_map(item).collect(),
                line_source(&r),
                at,
            )),
            Some("tool") => {
                for o in r.outcomes() {
                    let id = o.call_id.as_deref().unwrap_or("");
                    raw.push(tool_message(
                        id,
                        o.output.clone().unwrap_or_default(),
                        line_source(&r),
                        at.clone(),
                    ));
                }
            }
            _ => {
                let items = r.parts.iter().filter_map(item);
                match raw.last_mut() {
                    Some(last) if last.role == "assistant" => last.items.extend(items),
                    _ => raw.push(message("assistant", items.collect(), line_source(&r), at)),
                }
            }
        }
    }
}
