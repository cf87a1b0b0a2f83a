//! Building v5 messages from another agent's records, and writing them as an import goes
//! (`docs/cctool-session.md#imports`): the pieces every agent's `import.rs` shares.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::schema::{Item, MessageV3, Session, content_size, rfc3339_seconds};
use super::write::{OpenMessage, V5Writer};

/// A record as JSON, lone surrogates repaired, anything nested too deep kept as its text
/// (see [`crate::io::json::parse_record`]); `null` when it is not JSON at all.
pub fn parse(bytes: &[u8]) -> Value {
    crate::io::json::parse_record(bytes)
}

/// A `native` item keeping `record` of `format` as written, with its line number when it has one.
pub fn native(format: &str, record: Value, line: Option<u64>) -> Item {
    let mut m = Map::from_iter([
        ("type".into(), json!("native")),
        ("format".into(), json!(format)),
        ("record".into(), record),
    ]);
    if let Some(l) = line {
        m.insert("line".into(), json!(l));
    }
    Item::Other(Value::Object(m))
}

/// A `text` item of `t`.
pub fn text(t: &str) -> Item {
    Item::text(t)
}

/// A message pointing back at the native record it comes from.
pub fn message(role: &str, items: Vec<Item>, source: Value, timestamp: Option<String>) -> MessageV3 {
    MessageV3 {
        timestamp,
        extra: Map::from_iter([("source".into(), source)]),
        ..MessageV3::new(role, items)
    }
}

/// A `tool` message answering `call_id` with `content`, its `original_size` set, pointing back at
/// its native record like [`message`].
pub fn tool_message(call_id: &str, content: Value, source: Value, timestamp: Option<String>) -> MessageV3 {
    let size = content_size(&content);
    MessageV3 {
        timestamp,
        extra: Map::from_iter([("source".into(), source)]),
        ..MessageV3::tool(
            call_id,
            vec![Item::ToolResult {
                content,
                original_size: Some(size),
                extra: Map::new(),
            }],
        )
    }
}

fn is_native_only(m: &MessageV3) -> bool {
    m.role == "system"
        && m.items
            .iter()
            .all(|i| matches!(i, Item::Other(v) if v.get("type").and_then(Value::as_str) == Some("native")))
}

/// The fields of an imported session that are known before its messages.
pub struct Head {
    /// The native session's id; `null` in the document when unknown.
    pub session_id: Option<String>,
    /// The first record's time (ms since 1970), which becomes `created_at`.
    pub first_ms: Option<i64>,
    /// The document's `source` field: where the import comes from.
    pub source: Value,
}

/// Where an import's messages go once nothing can change them, numbered, then held (a
/// session) or written (a file, one message at a time). Runs of records kept only as native
/// items (events, metadata, off-chain records) share one message, which is written item by
/// item: a run can be most of a transcript.
pub struct Sink<'w> {
    /// Messages started so far: the id of the last.
    count: u64,
    to: To<'w>,
    /// Whether the last message is native-only, and so still takes the items of the next.
    native_open: bool,
}

/// Where a [`Sink`]'s messages go.
enum To<'w> {
    Held(Vec<MessageV3>),
    Written(V5Writer<'w>, Option<OpenMessage>),
}

impl<'w> Sink<'w> {
    /// A sink that holds the messages (`w` is `None`) or writes them to `w`, the document's head
    /// written first.
    pub fn new(head: &Head, w: Option<&'w mut dyn Write>) -> io::Result<Sink<'w>> {
        let to = match w {
            None => To::Held(Vec::new()),
            Some(w) => To::Written(
                V5Writer::begin(w, &head.session_id(), head.created_at().as_deref())?,
                None,
            ),
        };
        Ok(Sink {
            count: 0,
            to,
            native_open: false,
        })
    }

    /// Numbers `m` and holds or writes it, or adds its items to the open native-only message when
    /// it is native-only too and carries no note.
    pub fn push(&mut self, m: MessageV3) -> io::Result<()> {
        let native = is_native_only(&m);
        // A message with a note starts a message of its own, so the note stays its own.
        let noted = m.extra.get("source").and_then(|s| s.get("note")).is_some();
        if native && self.native_open && !noted {
            return self.append(m.items);
        }
        self.start(m, native)
    }

    /// Adds `item` as a system message of native items (`source` its source) would add it,
    /// without making that message when it only joins the one before.
    pub fn native_item(&mut self, item: Item, source: &Value) -> io::Result<()> {
        if self.native_open {
            return self.append(vec![item]);
        }
        self.start(message("system", vec![item], source.clone(), None), true)
    }

    /// Items for the native-only message last started.
    fn append(&mut self, items: Vec<Item>) -> io::Result<()> {
        match &mut self.to {
            To::Held(v) => {
                if let Some(last) = v.last_mut() {
                    last.items.extend(items);
                }
                Ok(())
            }
            To::Written(w, Some(open)) => items.into_iter().try_for_each(|it| w.item(open, it)),
            To::Written(..) => Ok(()),
        }
    }

    /// Numbers `m` and holds or writes it; a native-only message stays open for more items.
    fn start(&mut self, mut m: MessageV3, native: bool) -> io::Result<()> {
        self.close()?;
        self.count += 1;
        m.id = Some(self.count);
        self.native_open = native;
        match &mut self.to {
            To::Held(v) => v.push(m),
            To::Written(w, open) if native => *open = Some(w.open(m)?),
            To::Written(w, _) => w.message(m)?,
        }
        Ok(())
    }

    /// Ends a native-only message being written.
    fn close(&mut self) -> io::Result<()> {
        self.native_open = false;
        match &mut self.to {
            To::Written(w, open) => match open.take() {
                Some(open) => w.close(open),
                None => Ok(()),
            },
            To::Held(_) => Ok(()),
        }
    }

    /// Pushes all of `raw` but its last message, the only one a builder may still extend.
    pub fn take_final(&mut self, raw: &mut Vec<MessageV3>) -> io::Result<()> {
        if raw.len() > 1 {
            for m in raw.drain(..raw.len() - 1) {
                self.push(m)?;
            }
        }
        Ok(())
    }

    /// Pushes the rest of `raw` and ends: the session when held.
    pub fn finish(mut self, raw: Vec<MessageV3>, head: Head) -> io::Result<Option<Session>> {
        for m in raw {
            self.push(m)?;
        }
        self.close()?;
        let (session_id, created_at) = (head.session_id(), head.created_at());
        let extra = Map::from_iter([("source".into(), head.source)]);
        match self.to {
            To::Held(messages) => Ok(Some(Session::V3Plus {
                version: 5,
                session_id,
                created_at,
                messages,
                extra,
            })),
            To::Written(w, _) => w.end(extra).map(|()| None),
        }
    }
}

impl Head {
    /// The document's `session_id`.
    fn session_id(&self) -> Value {
        self.session_id.clone().map_or(Value::Null, Value::String)
    }

    /// The document's `created_at`: the first record's time, to the second.
    fn created_at(&self) -> Option<String> {
        self.first_ms.map(|ms| rfc3339_seconds(ms.div_euclid(1000)))
    }
}

/// The session an import held.
pub fn held(s: Option<Session>) -> io::Result<Session> {
    s.ok_or_else(|| io::Error::other(NotHeld))
}

/// An import asked to hold its session that wrote it out instead.
#[derive(Debug, thiserror::Error)]
#[error("the import was written, not held")]
struct NotHeld;

/// `message.content` as text: the string, or the text blocks joined.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
