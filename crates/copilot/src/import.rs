//! Importing a Copilot CLI session into a v5 session (`docs/cctool-session.md#imports`), read
//! from the session model's stream ([`cctool_core::v5::import`]): each prompt, reply and
//! result as a v5 message pointing back at its line, a reply's reasoning and calls in its
//! assistant message, and every other event or line kept as a `native` item so nothing is lost.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::file;
use cctool_core::io::Source;
use cctool_core::model::events::{Part, Record};
use cctool_core::v5::build::{Head, held, message, tool_message};
use cctool_core::v5::import::{Mapping, ask, import, item, line_source, native_message};
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
    import(head, w, &mut Copilot, |sink| {
        crate::view::events_of(&s, ask(effective), sink);
        Ok(())
    })
}

/// The v5 messages of Copilot CLI's events.
struct Copilot;

impl Mapping for Copilot {
    fn record(&mut self, r: Record, raw: &mut Vec<MessageV3>) {
        let at = r.time.clone();
        let items = || {
            r.parts
                .iter()
                .filter_map(|p| reasoning(&r, p).or_else(|| item(p)))
                .collect::<Vec<_>>()
        };
        match r.kind.as_str() {
            "user.message" | "session.compaction_complete" => raw.push(message("user", items(), line_source(&r), at)),
            "tool.execution_complete" => {
                for o in r.outcomes() {
                    let output = o.output.clone().unwrap_or_default();
                    let id = o.call_id.as_deref().unwrap_or("");
                    raw.push(tool_message(id, output, line_source(&r), at.clone()));
                }
            }
            // A reply's text and calls join the reply before it while the turn is open.
            "assistant.message" => match raw.last_mut() {
                Some(last) if last.role == "assistant" => last.items.extend(items()),
                _ => raw.push(message("assistant", items(), line_source(&r), at)),
            },
            _ => raw.push(native_message(crate::ID.name(), &r)),
        }
    }
}

/// A reply's reasoning as a v5 `reasoning` item, its encrypted part (`reasoningOpaque`, which
/// the provider reads back and no one else can) kept as its length, as a Codex import keeps
/// an encrypted reasoning; `None` for any other part.
fn reasoning(r: &Record, p: &Part) -> Option<Item> {
    let text = match p {
        Part::Reasoning { text, summary: false } => text.clone(),
        Part::Redacted => String::new(),
        _ => return None,
    };
    let opaque = r.native.as_ref().and_then(|v| v.pointer("/data/reasoningOpaque"));
    let mut extra = Map::new();
    match opaque {
        Some(Value::String(o)) => {
            extra.insert("encrypted_len".into(), json!(o.len()));
        }
        // Not a string: kept as written, so that nothing is lost.
        Some(o) if !o.is_null() => {
            extra.insert("encrypted".into(), o.clone());
        }
        _ => {}
    }
    Some(Item::Reasoning { text, extra })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_keeps_its_reasoning_text_and_calls_and_the_rest_is_kept_whole() {
        let text = concat!(
            r#"{"type":"session.start","data":{"sessionId":"s1"},"id":"e1","timestamp":"2026-11-02T10:00:00Z"}"#,
            "\n",
            r#"{"type":"assistant.message","data":{"content":"listing","reasoningText":"look first","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":{"command":"ls"}}]},"id":"e2","timestamp":"2026-11-02T10:00:01Z"}"#,
            "\n",
        );
        let s = copilot(&Source::from_bytes("s.jsonl", text.as_bytes().to_vec())).unwrap();
        let v = cctool_core::v5::schema::to_value(&s);
        let m = &v["messages"];
        assert_eq!(m[0]["items"][0]["type"], "native");
        let types: Vec<_> = m[1]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["type"].clone())
            .collect();
        assert_eq!(types, ["reasoning", "text", "tool_call"]);
        assert_eq!(m[1]["items"][0]["text"], "look first");
    }

    #[test]
    fn encrypted_reasoning_is_kept_as_its_length_with_or_without_text() {
        let text = concat!(
            r#"{"type":"assistant.message","data":{"content":"a","reasoningText":"seen","reasoningOpaque":"0123456789"},"id":"e1","timestamp":"2026-11-02T10:00:01Z"}"#,
            "\n",
            r#"{"type":"user.message","data":{"content":"go on"},"id":"e2","timestamp":"2026-11-02T10:00:02Z"}"#,
            "\n",
            r#"{"type":"assistant.message","data":{"content":"b","reasoningOpaque":"abc"},"id":"e3","timestamp":"2026-11-02T10:00:03Z"}"#,
            "\n",
        );
        let s = copilot(&Source::from_bytes("s.jsonl", text.as_bytes().to_vec())).unwrap();
        let v = cctool_core::v5::schema::to_value(&s);
        let m = &v["messages"];
        assert_eq!(
            m[0]["items"][0],
            json!({"type": "reasoning", "text": "seen", "encrypted_len": 10})
        );
        assert_eq!(
            m[2]["items"][0],
            json!({"type": "reasoning", "text": "", "encrypted_len": 3})
        );
        assert_eq!(m[2]["items"][1]["text"], "b");
    }
}
