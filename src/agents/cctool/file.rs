//! cctool's own session files (`docs/cctool-session.md`): one JSON document with a
//! version (`version` in v1, `schema_version` from v2) and a `messages` array.
//!
//! This module reads what every command needs to know about such a file — its version and
//! its messages as written — without interpreting the messages' shape, which differs by
//! version.

use serde::Deserialize;
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

/// Why a session file could not be read, as the sentence that says it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SessionError(pub String);

pub fn read_messages(src: &Source) -> Result<SessionMessages, SessionError> {
    let mut messages = Messages::default();
    let head = for_each_message(src, |m| messages.push(m))?;
    Ok(SessionMessages {
        version: head.version,
        session_id: head.session_id,
        messages,
    })
}

/// What [`for_each_message`] tells of a session besides its messages.
#[derive(Debug)]
pub struct SessionHead {
    pub version: Option<i64>,
    pub session_id: Option<String>,
    pub messages: usize,
}

/// [`read_messages`] without holding the messages: each is handed to `each` as written in the
/// file (pretty-printed, not minified), in order, once the whole document has been read as
/// JSON, so that `each` never sees a message of a file that turns out not to be a session
/// (the errors are [`read_messages`]'s). Collecting and minifying every message cost three
/// times the parse on pretty-printed files, and memory in proportion to the file.
pub fn for_each_message(src: &Source, mut each: impl FnMut(&[u8])) -> Result<SessionHead, SessionError> {
    let cannot_read = |e: std::io::Error| SessionError(format!("cannot read: {e}"));
    let held = src.whole().map_err(cannot_read)?;
    let bytes: &[u8] = &held;
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let doc: Doc<'_> = serde_json::from_slice(body).map_err(|e| SessionError(format!("not valid JSON: {e}")))?;
    let version = doc.schema_version.or(doc.version).and_then(LNum::as_i64);
    let raw = doc
        .messages
        .ok_or_else(|| SessionError("`messages` is missing".into()))?;
    src.check().map_err(cannot_read)?;
    // The document was read as JSON above: its `messages` text is valid, and its elements are
    // told apart by their commas outside strings, without a second parse.
    let messages =
        elements(raw.get().as_bytes(), &mut each).ok_or_else(|| SessionError("`messages` is not an array".into()))?;
    let session_id = doc.session_id.0.or(doc.id.0);
    src.check().map_err(cannot_read)?;
    Ok(SessionHead {
        version,
        session_id,
        messages,
    })
}

/// Hands each element of a JSON array, given as valid JSON text, to `each` (without the
/// whitespace around it), and returns their number; None when the text is not an array.
fn elements(text: &[u8], each: &mut impl FnMut(&[u8])) -> Option<usize> {
    if text.first() != Some(&b'[') {
        return None;
    }
    let (mut i, mut n, mut depth, mut start) = (1usize, 0usize, 0usize, None);
    let mut emit = |start: &mut Option<usize>, end: usize| {
        if let Some(s) = start.take() {
            let mut e = end;
            while e > s && matches!(text[e - 1], b' ' | b'\t' | b'\n' | b'\r') {
                e -= 1;
            }
            each(&text[s..e]);
            n += 1;
        }
    };
    while i < text.len() {
        match text[i] {
            b'"' => {
                start.get_or_insert(i);
                i = crate::io::json::string_end(text, i + 1)?;
                continue;
            }
            b'[' | b'{' => {
                start.get_or_insert(i);
                depth += 1;
            }
            b']' | b'}' if depth == 0 => {
                emit(&mut start, i);
                return Some(n);
            }
            b']' | b'}' => depth -= 1,
            b',' if depth == 0 => emit(&mut start, i),
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                start.get_or_insert(i);
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session's version, id and messages (minified).
    type Read = (Option<i64>, Option<String>, Vec<Vec<u8>>);

    /// The messages array parsed by serde_json as raw values, each minified.
    fn reference(text: &str) -> Result<Read, String> {
        let doc: Doc<'_> = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let raw = doc.messages.ok_or("`messages` is missing")?;
        let messages: Vec<&RawValue> = serde_json::from_str(raw.get()).map_err(|_| "`messages` is not an array")?;
        Ok((
            doc.schema_version.or(doc.version).and_then(LNum::as_i64),
            doc.session_id.0.or(doc.id.0),
            messages
                .iter()
                .map(|m| crate::io::json::minify(m.get().as_bytes()))
                .collect(),
        ))
    }

    /// The streamed messages are serde_json's elements of the array, and the errors the same.
    #[test]
    fn streamed_messages_are_the_read_ones() {
        for text in [
            r#"{"schema_version": 5, "session_id": "s", "messages": [{"role": "user", "items": [ {"type": "text", "text": "a b\n"} ]}, 3, "x"]}"#,
            r#"{"version": 1, "id": "v1", "messages": []}"#,
            r#"{"messages": {"a": 1}, "schema_version": 5}"#,
            r#"{"schema_version": 5}"#,
            r#"{"schema_version": 5, "messages": null}"#,
            r#"{"schema_version": 5, "messages": [1, 2}"#,
            r#"{"schema_version": 5, "messages": [1], "messages": [2]}"#,
            "\u{feff}{\"schema_version\": 5, \"messages\": [ { \"role\" : \"tool\" } ]}",
            r#"{"schema_version": 5, "messages": [ "a,\"]}", {"k": ["x", {"y": "\\"}], "z": "]"} , [[]], -1.5e3 ,null,true ]}"#,
            r#"{"schema_version": 5, "messages": "[1]"}"#,
            r#"{"schema_version": 5, "messages": [ ] }"#,
        ] {
            let src = Source::from_bytes("t.json", text.as_bytes().to_vec());
            let held = reference(text.trim_start_matches('\u{feff}'));
            let mut streamed = Vec::new();
            let head = for_each_message(&src, |m| streamed.push(crate::io::json::minify(m)));
            match (held, head) {
                (Ok((version, id, messages)), Ok(s)) => {
                    assert_eq!((version, &id, messages.len()), (s.version, &s.session_id, s.messages));
                    assert_eq!(messages, streamed, "{text}");
                }
                (Err(h), Err(s)) => assert_eq!(h, s.0, "{text}"),
                (h, s) => panic!("{text}: {h:?} against {s:?}"),
            }
        }
    }
}
