//! Reading a Gemini CLI chat: every line read as JSON and sorted as the client sorts it
//! (`loadConversationRecord`), with where it is; the lines the client skips. A file whose lines
//! name no session (no record with both `sessionId` and `projectHash`) is read as the older
//! single JSON document, as the client falls back to it.

use serde_json::{Map, Value};

use cctool_core::io::Source;
use cctool_core::io::json::{BadLine, classify};
use cctool_core::model::diag::{Code, Severity};

/// What a line is to the client, tested in the client's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `{"$rewindTo": id}`: the message of that id and all after it are dropped.
    Rewind,
    /// A message record (a string `id`).
    Message,
    /// `{"$set": {…}}`: metadata updates; a `messages` list replaces the history.
    Set,
    /// A header (string `sessionId` and `projectHash`), possibly with `messages`.
    Header,
    /// Any other object, which the client passes over.
    Other,
}

/// One line the client reads, and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// 1-based physical line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The line as written.
    pub raw: Vec<u8>,
    /// The line, read.
    pub value: Map<String, Value>,
    /// What it is.
    pub kind: Kind,
}

/// A line the client skips.
#[derive(Clone, Debug, PartialEq)]
pub struct Unread {
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The line as written.
    pub raw: Vec<u8>,
    /// Why.
    pub why: BadLine,
}

/// A chat, read whole.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chat {
    /// The lines read, in file order (for a document: the document, as one header line).
    pub lines: Vec<Line>,
    /// The lines skipped.
    pub unread: Vec<Unread>,
    /// Physical lines, blank ones included.
    pub physical: u64,
    /// Whether it is the older single-document chat.
    pub document: bool,
}

fn is_str(m: &Map<String, Value>, k: &str) -> bool {
    m.get(k).is_some_and(Value::is_string)
}

/// How the client sorts a record (`isRewindRecord`, `isMessageRecord`,
/// `isMetadataUpdateRecord`, `isPartialMetadataRecord`, in that order).
pub fn kind_of(m: &Map<String, Value>) -> Kind {
    if is_str(m, "$rewindTo") {
        Kind::Rewind
    } else if is_str(m, "id") {
        Kind::Message
    } else if m.get("$set").is_some_and(Value::is_object) {
        Kind::Set
    } else if is_str(m, "sessionId") && is_str(m, "projectHash") {
        Kind::Header
    } else {
        Kind::Other
    }
}

/// Reads `src` as a chat; only reading the file itself fails.
pub fn read(src: &Source) -> std::io::Result<Chat> {
    let mut c = Chat::default();
    let stats = cctool_core::io::for_each_line(src, |l| {
        if l.bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match serde_json::from_slice::<Map<String, Value>>(l.bytes) {
            Ok(value) => {
                let kind = kind_of(&value);
                if kind == Kind::Other {
                    c.unread.push(Unread {
                        line: l.no,
                        offset: l.offset,
                        raw: l.bytes.to_vec(),
                        why: BadLine {
                            code: Code::UnknownRecordType,
                            severity: Severity::Info,
                            message: "a record of no kind Gemini CLI reads: it passes over it".into(),
                        },
                    });
                    return;
                }
                c.lines.push(Line {
                    line: l.no,
                    offset: l.offset,
                    raw: l.bytes.to_vec(),
                    value,
                    kind,
                });
            }
            Err(e) => c.unread.push(Unread {
                line: l.no,
                offset: l.offset,
                raw: l.bytes.to_vec(),
                why: classify(l.bytes, l.terminated, &e),
            }),
        }
    })?;
    c.physical = stats.lines;
    if !c.lines.iter().any(|l| l.kind == Kind::Header) {
        read_document(src, &mut c)?;
    }
    Ok(c)
}

/// The older chat: one JSON document `{sessionId, projectHash, startTime, lastUpdated,
/// messages}`, read when the lines name no session (`parseLegacyRecordFallback`).
fn read_document(src: &Source, c: &mut Chat) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(src.len() as usize);
    src.for_each_chunk(|_, chunk, _| bytes.extend_from_slice(chunk))?;
    let Ok(value) = serde_json::from_slice::<Map<String, Value>>(&bytes) else {
        return Ok(());
    };
    if kind_of(&value) != Kind::Header {
        return Ok(());
    }
    c.document = true;
    c.unread.clear();
    c.lines = vec![Line {
        line: 1,
        offset: 0,
        raw: bytes,
        value,
        kind: Kind::Header,
    }];
    Ok(())
}

impl Chat {
    /// The lines that could not be read at all (not JSON, not an object).
    pub fn bad_lines(&self) -> u64 {
        self.unread
            .iter()
            .filter(|u| u.why.code != Code::UnknownRecordType)
            .count() as u64
    }
}
