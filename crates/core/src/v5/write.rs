//! Writing a v5 document a piece at a time, byte for byte as serde_json's pretty printer writes
//! the whole [`Session`](crate::v5::schema::Session) ([`write_to`](crate::v5::schema::write_to)): an import of a
//! multi-GB transcript then holds one message at a time, not the session and its document.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::v5::schema::MessageV3;

/// Two spaces per level of `depth`, as serde's pretty printer indents.
pub fn indent(w: &mut dyn Write, depth: usize) -> io::Result<()> {
    for _ in 0..depth {
        w.write_all(b"  ")?;
    }
    Ok(())
}

/// `v` as serde's pretty printer writes it nested at `depth` (the caller wrote the indent of
/// its first line): its own pretty text with every further line indented. No JSON token
/// holds a raw newline, so the lines are the layout's.
pub fn write_pretty(w: &mut dyn Write, depth: usize, v: &Value) -> io::Result<()> {
    let text = serde_json::to_string_pretty(v).map_err(io::Error::other)?;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            w.write_all(b"\n")?;
            indent(w, depth)?;
        }
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// A v5 document being written: the fields before `messages`, then the messages one by one,
/// then the fields after them.
pub(crate) struct V5Writer<'w> {
    w: &'w mut dyn Write,
    messages: u64,
}

impl<'w> V5Writer<'w> {
    /// Writes the fields before `messages` and opens it.
    pub fn begin(w: &'w mut dyn Write, session_id: &Value, created_at: Option<&str>) -> io::Result<V5Writer<'w>> {
        w.write_all(b"{\n  \"schema_version\": 5,\n  \"session_id\": ")?;
        write_pretty(w, 1, session_id)?;
        w.write_all(b",\n  \"created_at\": ")?;
        write_pretty(w, 1, &json!(created_at))?;
        w.write_all(b",\n  \"messages\": ")?;
        Ok(V5Writer { w, messages: 0 })
    }

    /// Writes the whole message `m`.
    pub fn message(&mut self, m: MessageV3) -> io::Result<()> {
        self.w
            .write_all(if self.messages == 0 { b"[\n    " } else { b",\n    " })?;
        self.messages += 1;
        write_pretty(self.w, 2, &crate::v5::schema::message_v3_value(m))
    }

    /// Starts writing message `m` (its items so far included) whose further items come one by
    /// one ([`item`](Self::item)) until [`close`](Self::close): a message of any number of
    /// items held one at a time.
    pub fn open(&mut self, mut m: MessageV3) -> io::Result<OpenMessage> {
        let items = std::mem::take(&mut m.items);
        // The message's own layout with no items, cut where they go: `"items"` is a key of the
        // message object itself, so it is the only one at that indent.
        let mut text = Vec::new();
        write_pretty(&mut text, 2, &crate::v5::schema::message_v3_value(m))?;
        let text = String::from_utf8(text).map_err(io::Error::other)?;
        const MARK: &str = "\n      \"items\": []";
        let at = text.find(MARK).ok_or_else(|| io::Error::other(NoItems))?;
        let cut = at + MARK.len() - 2;
        self.w
            .write_all(if self.messages == 0 { b"[\n    " } else { b",\n    " })?;
        self.messages += 1;
        self.w.write_all(&text.as_bytes()[..cut])?;
        let mut open = OpenMessage {
            items: 0,
            rest: text[cut + 2..].to_string(),
        };
        for it in items {
            self.item(&mut open, it)?;
        }
        Ok(open)
    }

    /// Writes `item` as the next item of the message `open`.
    pub fn item(&mut self, open: &mut OpenMessage, item: crate::v5::schema::Item) -> io::Result<()> {
        self.w.write_all(if open.items == 0 {
            b"[\n        "
        } else {
            b",\n        "
        })?;
        open.items += 1;
        write_pretty(self.w, 4, &crate::v5::schema::item_value(item))
    }

    /// Ends the message `open`: its items, then the fields after them.
    pub fn close(&mut self, open: OpenMessage) -> io::Result<()> {
        self.w.write_all(if open.items == 0 { b"[]" } else { b"\n      ]" })?;
        self.w.write_all(open.rest.as_bytes())
    }

    /// Closes `messages`, writes `extra` after it and ends the document (with its newline).
    pub fn end(self, extra: Map<String, Value>) -> io::Result<()> {
        self.w.write_all(if self.messages == 0 { b"[]" } else { b"\n  ]" })?;
        for (k, v) in &extra {
            self.w.write_all(b",\n  ")?;
            serde_json::to_writer(&mut *self.w, k)?;
            self.w.write_all(b": ")?;
            write_pretty(self.w, 1, v)?;
        }
        self.w.write_all(b"\n}\n")
    }
}

/// A message being written item by item (see [`V5Writer::open`]).
pub(crate) struct OpenMessage {
    items: usize,
    /// What follows its items.
    rest: String,
}

/// A v5 message rendered without the `items` key its layout is cut at.
#[derive(Debug, thiserror::Error)]
#[error("a v5 message without items")]
struct NoItems;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v5::schema::{Item, Session, write_to};

    #[test]
    fn pieces_make_what_the_whole_session_makes() {
        let msg = |role: &str, text: &str, id: u64| MessageV3 {
            id: Some(id),
            timestamp: Some("2026-01-01T00:00:00Z".into()),
            extra: Map::from_iter([("source".into(), json!({"line": id, "uuid": null}))]),
            ..MessageV3::new(
                role,
                vec![
                    Item::text(text),
                    Item::Other(json!({"type": "x", "a": [1, {}], "b": []})),
                ],
            )
        };
        for (n, session_id, created_at) in [
            (0usize, json!("s"), Some("2026-01-01T00:00:00Z")),
            (1, Value::Null, None),
            (3, json!({"odd": ["id"]}), Some("x\ny \"q\"")),
            (4, json!("s"), None),
        ] {
            let messages: Vec<MessageV3> = (1..=n as u64).map(|i| msg("user", "héllo\n\"x\"", i)).collect();
            let extra = Map::from_iter([
                (
                    "source".into(),
                    json!({"format": "claude-code", "path": "a/b", "nested": {"k": [1, 2]}}),
                ),
                ("more".into(), json!([])),
            ]);
            let mut whole = Vec::new();
            write_to(
                Session::V3Plus {
                    version: 5,
                    session_id: session_id.clone(),
                    created_at: created_at.map(str::to_string),
                    messages: messages.clone(),
                    extra: extra.clone(),
                },
                &mut whole,
            )
            .unwrap();
            // Whole messages, or opened with some of their items and given the others one
            // by one: the same bytes.
            for opened in 0..3 {
                let mut pieces = Vec::new();
                let mut w = V5Writer::begin(&mut pieces, &session_id, created_at).unwrap();
                for (k, m) in messages.iter().cloned().enumerate() {
                    if k % 2 == 0 {
                        w.message(m).unwrap();
                        continue;
                    }
                    let mut m = m;
                    let later = m.items.split_off(opened.min(m.items.len()));
                    let mut open = w.open(m).unwrap();
                    for it in later {
                        w.item(&mut open, it).unwrap();
                    }
                    w.close(open).unwrap();
                }
                w.end(extra.clone()).unwrap();
                assert_eq!(
                    String::from_utf8(pieces).unwrap(),
                    String::from_utf8(whole.clone()).unwrap()
                );
            }
        }
    }
}
