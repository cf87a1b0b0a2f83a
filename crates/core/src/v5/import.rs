//! The v5 import as a reader of the session model (`docs/cctool-session.md#imports`): the
//! agent streams its session asking for all it holds ([`Ask::native`]), and each record
//! becomes v5 messages by the agent's [`Mapping`], which decides only what its format
//! decides (which records are conversation, where a message's `source` points). Every
//! record the mapping does not take is kept whole as a `native` item, so nothing is lost.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::build::{Head, Sink, message, native, text};
use super::schema::{Item, MessageV3, Session};
use crate::model::events::{Ask, Event, Part, Reading, Record, View};

/// How an agent's records become v5 messages, record after record (a mapping may keep what
/// it saw: the reply the next row continues).
pub trait Mapping {
    /// Adds the v5 messages of `r` to `raw`, whose last message is the only one it may still
    /// extend (a reply whose calls join the turn before it).
    fn record(&mut self, r: Record, raw: &mut Vec<MessageV3>);
}

/// What an import asks a reader: what a resume loads (`effective`) or every record of the
/// file, each with the JSON it was read as, read as the import keeps it
/// ([`super::build::parse`]: nothing left out, a lone surrogate repaired).
pub fn ask(effective: bool) -> Ask<'static> {
    Ask {
        view: if effective { View::Loaded } else { View::Records },
        reading: Reading::With(&|bytes| Some(super::build::parse(bytes))),
        native: true,
    }
}

/// Imports the session `stream` hands on (given where its events go, as an agent's reader
/// takes them), its head `head`, each record mapped by `mapping`: the session held (`w` is
/// `None`) or written to `w` message by message.
pub fn import(
    head: Head,
    w: Option<&mut dyn Write>,
    mapping: &mut dyn Mapping,
    stream: impl FnOnce(&mut dyn FnMut(Event)) -> io::Result<()>,
) -> io::Result<Option<Session>> {
    let mut sink = Sink::new(&head, w)?;
    let mut raw: Vec<MessageV3> = Vec::new();
    // A reader's sink returns nothing: the first write that fails ends the import, the rest
    // of the stream unread.
    let mut failed: Option<io::Error> = None;
    stream(&mut |e| {
        let Event::Record(r) = e else { return };
        if failed.is_some() {
            return;
        }
        mapping.record(r, &mut raw);
        if let Err(e) = sink.take_final(&mut raw) {
            failed = Some(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    sink.finish(raw, head)
}

/// The line `r` was written at, as a v5 message's `source` (`null` for an item with no line
/// of its own).
pub fn line_source(r: &Record) -> Value {
    json!({"line": r.at.map(|a| a.line)})
}

/// `r` kept whole: a `system` message of one `native` item of the agent `format`, pointing
/// back at its line.
pub fn native_message(format: &str, r: &Record) -> MessageV3 {
    let line = r.at.map(|a| a.line);
    let item = native(format, r.native.clone().unwrap_or(Value::Null), line);
    message("system", vec![item], line_source(r), None)
}

/// The v5 item of part `p`: a text, the model's reasoning, or a tool call (its arguments an
/// empty object where the call has none); `None` for a part that is no item of a message
/// (a result, which is a message of its own, or a piece the v5 schema does not hold).
pub fn item(p: &Part) -> Option<Item> {
    Some(match p {
        Part::Text(t) => text(t),
        Part::Reasoning { text, summary: false } => Item::Reasoning {
            text: text.clone(),
            extra: Map::new(),
        },
        Part::Call(c) => Item::ToolCall {
            id: c.id.clone().unwrap_or_default(),
            name: c.name.clone().unwrap_or_default(),
            args: c.input.clone().unwrap_or_else(|| Value::Object(Map::new())),
            extra: Map::new(),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::events::{At, Call};

    struct Replies;

    impl Mapping for Replies {
        fn record(&mut self, r: Record, raw: &mut Vec<MessageV3>) {
            match r.role.as_deref() {
                Some(role) => raw.push(message(
                    role,
                    r.parts.iter().filter_map(item).collect(),
                    line_source(&r),
                    None,
                )),
                None => raw.push(native_message("toy", &r)),
            }
        }
    }

    fn at(line: u64) -> Option<At> {
        Some(At { line, offset: 0 })
    }

    #[test]
    fn records_become_messages_and_the_rest_is_kept_whole() {
        let records = vec![
            Record {
                at: at(1),
                native: Some(json!({"k": "v"})),
                ..Record::default()
            },
            Record {
                at: at(2),
                role: Some("assistant".into()),
                parts: vec![
                    Part::Text("hi".into()),
                    Part::Call(Call {
                        id: Some("c1".into()),
                        name: Some("Read".into()),
                        kind: "tool_use".into(),
                        input: None,
                    }),
                    Part::Redacted,
                ],
                ..Record::default()
            },
        ];
        let head = Head {
            session_id: Some("s".into()),
            first_ms: None,
            source: json!({"format": "toy"}),
        };
        let s = import(head, None, &mut Replies, |sink| {
            records.into_iter().for_each(|r| sink(Event::Record(r)));
            Ok(())
        })
        .unwrap()
        .unwrap();
        let v = crate::v5::schema::to_value(&s);
        let messages = v["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0]["items"][0]["record"], json!({"k": "v"}));
        assert_eq!(messages[0]["items"][0]["line"], json!(1));
        assert_eq!(messages[1]["source"], json!({"line": 2}));
        let items = messages[1]["items"].as_array().unwrap();
        assert_eq!(items.len(), 2, "a redacted piece is no item: {items:?}");
        assert_eq!(items[1]["args"], json!({}));
    }

    #[test]
    fn a_write_that_fails_ends_the_import() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let head = Head {
            session_id: None,
            first_ms: None,
            source: json!({}),
        };
        let mut w = Broken;
        let r = import(head, Some(&mut w), &mut Replies, |sink| {
            sink(Event::Record(Record::default()));
            Ok(())
        });
        assert!(r.is_err());
    }
}
