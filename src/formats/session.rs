//! cctool's own session files (`shared/spec/session-schema.md`): one JSON document with a
//! version (`version` in v1, `schema_version` from v2) and a `messages` array.
//!
//! This module reads what every command needs to know about such a file — its version and
//! its messages as written — without interpreting the messages' shape, which differs by
//! version.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::io::Source;
use crate::io::json::{LNum, minify};

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(default)]
    version: Option<LNum>,
    #[serde(default)]
    schema_version: Option<LNum>,
    #[serde(default)]
    session_id: Option<serde_json::Value>,
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(borrow)]
    messages: Option<&'a RawValue>,
}

/// A session file's messages, each minified to one line with key order and text kept.
#[derive(Debug)]
pub struct SessionMessages {
    pub version: Option<i64>,
    pub session_id: Option<String>,
    pub messages: Vec<Vec<u8>>,
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
    let items: Vec<&RawValue> =
        serde_json::from_str(raw.get()).map_err(|_| SessionError("`messages` is not an array".into()))?;
    let session_id = doc.session_id.or(doc.id).and_then(|v| v.as_str().map(str::to_string));
    let messages = items.iter().map(|m| minify(m.get().as_bytes())).collect();
    src.check().map_err(cannot_read)?;
    Ok(SessionMessages {
        version,
        session_id,
        messages,
    })
}
