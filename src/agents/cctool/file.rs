//! cctool's own session files (`docs/cctool-session.md`): one JSON document with a
//! version (`version` in v1, `schema_version` from v2) and a `messages` array.
//!
//! This module reads what every command needs to know about such a file — its version and
//! its messages as written — without interpreting the messages' shape, which differs by
//! version.

use serde::Deserialize;
use serde::de::{SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::io::Source;
use crate::io::json::{LNum, LString, minify_into};

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(default)]
    version: Option<LNum>,
    #[serde(default)]
    schema_version: Option<LNum>,
    #[serde(default)]
    session_id: LString,
    #[serde(default)]
    id: LString,
    #[serde(borrow)]
    messages: Option<&'a RawValue>,
}

/// A session file's messages, each minified to one line with key order and text kept.
#[derive(Debug)]
pub struct SessionMessages {
    pub version: Option<i64>,
    pub session_id: Option<String>,
    pub messages: Messages,
}

/// Messages held in one buffer: each costs its own bytes and one offset, so a file of
/// millions of tiny messages is held in about its own size (one allocation per message cost
/// 25 times the file).
#[derive(Debug, Default)]
pub struct Messages {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Messages {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each message's bytes, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &[u8]> + ExactSizeIterator + '_ {
        (0..self.ends.len()).map(|i| {
            let start = if i == 0 { 0 } else { self.ends[i - 1] };
            &self.bytes[start..self.ends[i]]
        })
    }

    /// Adds a message given as JSON text, minified.
    pub fn push(&mut self, raw: &[u8]) {
        minify_into(raw, &mut self.bytes);
        self.ends.push(self.bytes.len());
    }
}

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Messages;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Messages, A::Error> {
                let mut out = Messages::default();
                while let Some(m) = a.next_element::<&RawValue>()? {
                    out.push(m.get().as_bytes());
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V)
    }
}

/// Why a session file could not be read.
#[derive(Debug)]
pub struct SessionError(pub String);

pub fn read_messages(src: &Source) -> Result<SessionMessages, SessionError> {
    let cannot_read = |e: std::io::Error| SessionError(format!("cannot read: {e}"));
    let held = src.whole().map_err(cannot_read)?;
    let bytes: &[u8] = &held;
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let doc: Doc<'_> = serde_json::from_slice(body).map_err(|e| SessionError(format!("not valid JSON: {e}")))?;
    let version = doc.schema_version.or(doc.version).and_then(LNum::as_i64);
    let raw = doc
        .messages
        .ok_or_else(|| SessionError("`messages` is missing".into()))?;
    let messages: Messages =
        serde_json::from_str(raw.get()).map_err(|_| SessionError("`messages` is not an array".into()))?;
    let session_id = doc.session_id.0.or(doc.id.0);
    src.check().map_err(cannot_read)?;
    Ok(SessionMessages {
        version,
        session_id,
        messages,
    })
}
