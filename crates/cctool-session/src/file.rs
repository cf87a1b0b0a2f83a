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
    /// The schema version (`schema_version`, else v1's `version`), if an integer.
    pub version: Option<i64>,
    /// The file's session id, if it has one.
    pub session_id: Option<String>,
    /// The messages, in file order.
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
    /// How many messages are held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no message is held.
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

/// Why a session file could not be read. The causes are said in the sentence, not exposed as
/// `source()` (the core's rule, `crate::error`).
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The file could not be read, or changed while it was read.
    #[error("cannot read: {0}")]
    Read(std::io::Error),
    /// The file is not JSON (the parser's message names the line and column).
    #[error("not valid JSON: {0}")]
    Json(serde_json::Error),
    /// The document has no `messages`.
    #[error("`messages` is missing")]
    NoMessages,
    /// The document's `messages` is not an array.
    #[error("`messages` is not an array")]
    MessagesNotArray,
}

/// Said as the core's error: the sentence whole ([`crate::error::Error::Agent`]), since the core
/// cannot name this agent's types.
impl From<SessionError> for crate::error::Error {
    fn from(e: SessionError) -> Self {
        crate::error::Error::agent(e)
    }
}

/// Reads a session file's messages into one buffer, each minified; for files too large to hold,
/// see [`for_each_message`].
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
    /// The schema version (`schema_version`, else v1's `version`), if an integer.
    pub version: Option<i64>,
    /// The file's session id, if it has one.
    pub session_id: Option<String>,
    /// How many messages were handed on.
    pub messages: usize,
}

/// [`read_messages`] without holding the messages: each is handed to `each` as written in the
/// file (pretty-printed, not minified), in order, as one pass of the JSON deserializer reaches
/// it (see [`super::stream`]), and the pages of a mapped file are released behind it, so a
/// file of any size is read in one pass and bounded memory. The errors are
/// [`read_messages`]'s. `each` may have seen messages of a file that then turns out not to be
/// a valid session: on an error, drop what was made of them (or use
/// [`for_each_valid_message`] when they cannot be taken back, as printed output cannot).
pub fn for_each_message(src: &Source, mut each: impl FnMut(&[u8])) -> Result<SessionHead, SessionError> {
    let held = src.whole().map_err(SessionError::Read)?;
    stream_messages(src, &held, &mut |_, m| each(m))
}

/// [`for_each_message`] over the file's bytes (`bytes`, held by the caller), handing `each`
/// every message with its offset in `bytes`.
fn stream_messages(
    src: &Source,
    bytes: &[u8],
    each: &mut dyn FnMut(usize, &[u8]),
) -> Result<SessionHead, SessionError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let bom = bytes.len() - body.len();
    let mut release = src.releaser();
    let streamed = super::stream::stream(body, &mut |at, m| {
        each(bom + at, m);
        release.touch((bom + at) as u64, m.len() as u64);
    });
    drop(release);
    let doc = match streamed {
        Ok(doc) => doc,
        // Errors are rare: the whole-document read words them (their positions, which a
        // message's invalid UTF-8 would otherwise put at the message's end rather than the
        // array's). With no message handed out yet, it also reads the struct's array form.
        Err(stopped) if stopped.delivered == 0 => {
            // Its messages are borrowed from `bytes`, so their offsets are where they start.
            let base = bytes.as_ptr() as usize;
            return whole_document(src, body, &mut |m| each(m.as_ptr() as usize - base, m));
        }
        Err(stopped) => {
            return match whole_document(src, body, &mut |_| {}) {
                Err(e) => Err(e),
                Ok(_) => Err(SessionError::Json(stopped.error)),
            };
        }
    };
    let version = doc.schema_version.or(doc.version).and_then(LNum::as_i64);
    if !doc.has_messages {
        return Err(SessionError::NoMessages);
    }
    src.check().map_err(SessionError::Read)?;
    if !doc.is_array {
        return Err(SessionError::MessagesNotArray);
    }
    Ok(SessionHead {
        version,
        session_id: doc.session_id.0.or(doc.id.0),
        messages: doc.messages,
    })
}

/// [`for_each_message`] that hands out messages only once the whole file is known to be a
/// valid session: a first pass checks it (releasing the pages of a mapped file behind it) and
/// notes where each message is, then each is handed out from there, without parsing the file
/// again. For output that cannot be taken back, such as printing. The places cost 16 bytes a
/// message, a small part of what a message takes in the file.
pub fn for_each_valid_message(src: &Source, mut each: impl FnMut(&[u8])) -> Result<SessionHead, SessionError> {
    let held = src.whole().map_err(SessionError::Read)?;
    let bytes: &[u8] = &held;
    let mut spans = Vec::new();
    let head = stream_messages(src, bytes, &mut |at, m| spans.push((at, m.len())))?;
    let mut release = src.releaser();
    for (at, len) in spans {
        each(&bytes[at..at + len]);
        release.touch(at as u64, len as u64);
    }
    drop(release);
    // A truncation since the first pass would have put zeros where messages were.
    src.check().map_err(SessionError::Read)?;
    Ok(head)
}

/// The read of the whole document as one `Doc`, then of its `messages` text element by
/// element: the reference [`for_each_message`] must agree with, and what words its errors.
fn whole_document(src: &Source, body: &[u8], each: &mut dyn FnMut(&[u8])) -> Result<SessionHead, SessionError> {
    let doc: Doc<'_> = serde_json::from_slice(body).map_err(SessionError::Json)?;
    let version = doc.schema_version.or(doc.version).and_then(LNum::as_i64);
    let raw = doc.messages.ok_or(SessionError::NoMessages)?;
    src.check().map_err(SessionError::Read)?;
    // The document was read as JSON above: its `messages` text is valid, and its elements are
    // told apart by their commas outside strings, without a second parse.
    let messages = elements(raw.get().as_bytes(), each).ok_or(SessionError::MessagesNotArray)?;
    let session_id = doc.session_id.0.or(doc.id.0);
    src.check().map_err(SessionError::Read)?;
    Ok(SessionHead {
        version,
        session_id,
        messages,
    })
}

/// Hands each element of a JSON array, given as valid JSON text, to `each` (without the
/// whitespace around it), and returns their number; None when the text is not an array.
fn elements(text: &[u8], each: &mut dyn FnMut(&[u8])) -> Option<usize> {
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
        let deep_message = format!(
            r#"{{"schema_version": 5, "messages": [{}{}]}}"#,
            "[".repeat(300),
            "]".repeat(300)
        );
        let deep_field = format!(
            r#"{{"schema_version": 5, "messages": [], "id": {}{}}}"#,
            "[".repeat(300),
            "]".repeat(300)
        );
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
            // The struct's array form, fields by position.
            r#"[1, 5, "s", "i", [{"a": 1}, 2]]"#,
            r#"[1, 5, "s", "i", [{"a": 1}, 2], 9]"#,
            // A repeated field after the messages, a field spelled with an escape.
            r#"{"schema_version": 5, "messages": [{"a": 1}], "session_id": "x", "session_id": "y"}"#,
            r#"{"schema_version": 5, "messag\u0065s": [{"a": 1}], "s\u0065ssion_id": "x"}"#,
            r#"{"schema_version": 5, "messages": [{"a": 1}], "version": "x"}"#,
            r#"{"schema_version": 5, "messages": [{"a": 1}], "version": [1]}"#,
            // Not arrays: a number serde cannot hold, a lone surrogate, a repeated key.
            r#"{"schema_version": 5, "messages": 1e400}"#,
            r#"{"schema_version": 5, "messages": "\ud800"}"#,
            r#"{"schema_version": 5, "messages": {"\ud800": 1, "\ud800": 2}}"#,
            r#"{"schema_version": 5, "messages": true, "id": "i"}"#,
            // Errors after messages were handed out.
            r#"{"schema_version": 5, "messages": [{"a": 1}, {"b": 2},]}"#,
            r#"{"schema_version": 5, "messages": [{"a": 1}, {"b": 2} {"c": 3}]}"#,
            r#"{"schema_version": 5, "messages": [{"a": 1}], "x": [1,]} "#,
            r#"{"schema_version": 5, "messages": [{"a": 1}]} x"#,
            r#"{"schema_version": 5, "messages": [{"a": "\x"}]}"#,
            r#"{"schema_version": 5, "messages": [{"a": 1}], "messages": null}"#,
            r#"{"schema_version": 5, "messages": null, "messages": [1]}"#,
            "{\"schema_version\": 5, \"messages\": [{\"a\": \"\u{7}\"}]}",
            // Deep nesting: a message is skipped without a depth limit, a field is not.
            deep_message.as_str(),
            deep_field.as_str(),
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
                (Err(h), Err(s)) => assert_eq!(h, s.to_string(), "{text}"),
                (h, s) => panic!("{text}: {h:?} against {s:?}"),
            }
        }
    }

    /// The one-pass read against the whole-document read (the code it replaced), on bytes.
    fn same_as_whole(bytes: &[u8]) -> Result<(), String> {
        let src = Source::from_bytes("t.json", bytes.to_vec());
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let mut whole = Vec::new();
        let reference = whole_document(&src, body, &mut |m| whole.push(m.to_vec()));
        let mut streamed = Vec::new();
        let head = for_each_message(&src, |m| streamed.push(m.to_vec()));
        // The printing read hands out the same messages, and none of an invalid file.
        let mut valid = Vec::new();
        let valid_head = for_each_valid_message(&src, |m| valid.push(m.to_vec()));
        match (&head, &valid_head) {
            (Ok(h), Ok(v)) if (h.version, &h.session_id, h.messages) == (v.version, &v.session_id, v.messages) => {
                if valid != streamed {
                    return Err("the printing read handed out other messages".into());
                }
            }
            (Err(h), Err(v)) if h.to_string() == v.to_string() && valid.is_empty() => {}
            (h, v) => {
                return Err(format!(
                    "the printing read: {v:?} against {h:?}, {} messages",
                    valid.len()
                ));
            }
        }
        match (reference, head) {
            (Ok(r), Ok(h)) if (r.version, &r.session_id, r.messages) == (h.version, &h.session_id, h.messages) => {
                if whole == streamed {
                    Ok(())
                } else {
                    Err("other messages".into())
                }
            }
            (Err(r), Err(h)) if r.to_string() == h.to_string() => Ok(()),
            (r, h) => Err(format!("{r:?} against {h:?}")),
        }
    }

    /// Documents of every shape the generator makes, each also with one byte changed
    /// anywhere (a quote, a bracket, a comma, a control byte, invalid UTF-8…) and cut short
    /// anywhere: the one-pass read hands out the same messages and fails with the same words.
    #[test]
    fn one_pass_is_the_whole_document_read() {
        use proptest::prelude::*;
        let text = "[a-z\"\\\\/ é\u{1F600}\\n]{0,12}";
        let scalar = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            (-1000i64..1000).prop_map(|n| n.to_string()),
            Just("1e400".to_string()),
            Just("-0.5e-3".to_string()),
            text.prop_map(|t| serde_json::to_string(&t).unwrap()),
            Just(r#""\ud800""#.to_string()),
        ];
        let value = scalar.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
                proptest::collection::vec(("[a-z]{1,3}", inner), 0..4).prop_map(|v| {
                    let fields: Vec<String> = v.iter().map(|(k, v)| format!("\"{k}\" : {v}")).collect();
                    format!("{{\n  {}\n}}", fields.join(",\n  "))
                }),
            ]
        });
        let field = prop_oneof![
            proptest::collection::vec(value.clone(), 0..5).prop_map(|v| format!(r#""messages": [{}]"#, v.join(",\n "))),
            value.clone().prop_map(|v| format!(r#""messages": {v}"#)),
            (-2i64..7).prop_map(|n| format!(r#""schema_version": {n}"#)),
            value.clone().prop_map(|v| format!(r#""version": {v}"#)),
            value.clone().prop_map(|v| format!(r#""session_id": {v}"#)),
            text.prop_map(|t| format!(r#""id": {}"#, serde_json::to_string(&t).unwrap())),
            value.prop_map(|v| format!(r#""other": {v}"#)),
        ];
        let doc = proptest::collection::vec(field, 0..6).prop_map(|f| format!("{{\n{}\n}}", f.join(",\n")));
        let edit = (
            any::<prop::sample::Index>(),
            prop_oneof![
                Just(None),
                prop::sample::select(b"\"[]{},:\\\x07 ~\xff\xc3u0".to_vec()).prop_map(Some),
            ],
        );
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(3000));
        runner
            .run(
                &(doc, edit, any::<prop::sample::Index>(), any::<bool>()),
                |(doc, (at, byte), cut, bom)| {
                    let mut bytes = doc.into_bytes();
                    if let Some(b) = byte
                        && !bytes.is_empty()
                    {
                        let i = at.index(bytes.len());
                        bytes[i] = b;
                    }
                    for b in [bytes.clone(), bytes[..cut.index(bytes.len() + 1)].to_vec()] {
                        let b = if bom { [&b"\xEF\xBB\xBF"[..], &b].concat() } else { b };
                        same_as_whole(&b)
                            .map_err(|e| TestCaseError::fail(format!("{e}: {}", String::from_utf8_lossy(&b))))?;
                    }
                    Ok(())
                },
            )
            .unwrap();
    }
}
