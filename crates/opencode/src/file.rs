//! An opencode session as `opencode export` prints it, `{info, messages: [{info, parts}]}`:
//! the form sessions are shared in, and the form cctool reads a session of the database in
//! ([`crate::db::export`]), so both are read by one reader.

use std::io;

use serde_json::Value;

use cctool_core::io::Source;

/// The key under which a session read out of the database lists its rows that could not be
/// read (`{table, id, why}`): the client's export has no such key.
pub const UNREADABLE: &str = "cctool_unreadable_rows";

/// A session: its `info` and its messages in order.
#[derive(Debug, Default)]
pub struct Session {
    /// The session's `info` as written.
    pub info: Value,
    /// Its messages, in the order the client loads them (by id).
    pub messages: Vec<Message>,
    /// The rows of the database that could not be read: `(table, id, why)`.
    pub unreadable: Vec<(String, String, String)>,
}

/// One message with its parts.
#[derive(Debug, Default)]
pub struct Message {
    /// The message's `info` as written.
    pub info: Value,
    /// Its parts, in order.
    pub parts: Vec<Value>,
    /// `{info, parts}` as one line of JSON: what `rebuild-chain` prints of it.
    pub raw: Vec<u8>,
}

impl Message {
    fn s(&self, k: &str) -> Option<&str> {
        self.info.get(k).and_then(Value::as_str)
    }

    /// Its id.
    pub fn id(&self) -> Option<&str> {
        self.s("id")
    }

    /// `user` or `assistant`.
    pub fn role(&self) -> &str {
        self.s("role").unwrap_or("")
    }

    /// The user message an assistant message answers.
    pub fn parent(&self) -> Option<&str> {
        self.s("parentID")
    }

    /// The type of each part.
    pub fn part_types(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| p.get("type").and_then(Value::as_str))
    }

    /// A user message that asks for a compaction (it holds a `compaction` part).
    pub fn asks_compaction(&self) -> bool {
        self.role() == "user" && self.part_types().any(|t| t == "compaction")
    }

    /// An assistant message that is a compaction's summary (`summary: true`).
    pub fn is_summary(&self) -> bool {
        self.role() == "assistant" && self.info.get("summary").and_then(Value::as_bool) == Some(true)
    }

    /// A summary the client counts as a compaction done (`filterCompacted`): finished, and
    /// with no error.
    pub fn is_finished_summary(&self) -> bool {
        self.is_summary()
            && self.info.get("finish").is_some_and(|f| !f.is_null())
            && self.info.get("error").is_none_or(Value::is_null)
    }

    /// When it was written, in milliseconds since the epoch.
    pub fn created_ms(&self) -> Option<i64> {
        self.info.pointer("/time/created").and_then(Value::as_i64)
    }
}

impl Session {
    /// The session's id.
    pub fn id(&self) -> Option<&str> {
        self.info.get("id").and_then(Value::as_str)
    }

    /// A string of `info`.
    pub fn s(&self, k: &str) -> Option<&str> {
        self.info.get(k).and_then(Value::as_str)
    }
}

/// Whether a document with these top-level keys is an opencode session.
pub fn is_export(keys: &cctool_core::agents::detect::Keys) -> bool {
    keys.has("info") && keys.has("messages") && !keys.has("schema_version")
}

/// The document's top level, each message left as its bytes.
#[derive(serde::Deserialize)]
struct Doc<'a> {
    #[serde(default)]
    info: Value,
    #[serde(borrow, default)]
    messages: Option<&'a serde_json::value::RawValue>,
    #[serde(rename = "cctool_unreadable_rows", default)]
    unreadable: Option<Value>,
}

/// Reads the session of `src`. A message that is not `{info, parts}` is counted among the
/// unreadable with its place, and the rest is read.
pub fn read(src: &Source) -> io::Result<Session> {
    let bytes = src.whole()?;
    let not = |e: serde_json::Error| io::Error::new(io::ErrorKind::InvalidData, format!("not an opencode export: {e}"));
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not an opencode export: not a JSON object",
        ));
    }
    let doc: Doc<'_> = serde_json::from_slice(&bytes).map_err(not)?;
    let mut s = Session {
        info: doc.info,
        ..Session::default()
    };
    if let Some(Value::Array(rows)) = doc.unreadable {
        for u in rows {
            let f = |k: &str| u.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            s.unreadable.push((f("table"), f("id"), f("why")));
        }
    }
    let messages: Vec<&serde_json::value::RawValue> = match doc.messages {
        Some(m) if m.get().starts_with('[') => serde_json::from_str(m.get()).map_err(not)?,
        _ => Vec::new(),
    };
    for (i, m) in messages.into_iter().enumerate() {
        let text = m.get();
        let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(text) else {
            s.unreadable
                .push(("message".into(), format!("#{}", i + 1), "not an object".into()));
            continue;
        };
        // A message printed on one line is its own line (the database's always are); one of a
        // pretty-printed export is printed again.
        let raw = if text.contains(['\n', '\r']) {
            serde_json::to_vec(&m).unwrap_or_default()
        } else {
            text.as_bytes().to_vec()
        };
        let info = m.remove("info").unwrap_or(Value::Null);
        if !info.is_object() {
            s.unreadable
                .push(("message".into(), format!("#{}", i + 1), "no info object".into()));
            continue;
        }
        let parts = match m.remove("parts") {
            Some(Value::Array(a)) => a,
            _ => Vec::new(),
        };
        s.messages.push(Message { info, parts, raw });
    }
    Ok(s)
}
