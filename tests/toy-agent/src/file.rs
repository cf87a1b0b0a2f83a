//! Reading a toy session: its header, its messages in file order, and the lines that are
//! neither, each with where it is.

use serde_json::{Map, Value};

use cctool_core::io::Source;
use cctool_core::io::json::{BadLine, classify};
use cctool_core::model::diag::{Code, Severity};

/// The session's header: its first record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// The session's id (`toy_session`).
    pub session_id: Option<String>,
    /// The folder it ran in.
    pub cwd: Option<String>,
    /// When it started, as written.
    pub started: Option<String>,
}

/// What one message record says.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    /// The user's prompt, or the model's text (`role` says which).
    Text {
        /// `user` or `assistant`.
        role: &'static str,
        /// What was said.
        text: String,
        /// When, as written.
        at: Option<String>,
    },
    /// A call of a tool.
    Call {
        /// The call's id, which its result names.
        id: String,
        /// The tool.
        tool: String,
        /// Its input.
        input: Value,
    },
    /// What a tool returned.
    Result {
        /// The id of the call it answers.
        id: String,
        /// The tool's output.
        output: String,
    },
}

impl Said {
    /// The `toy` value of its record.
    pub fn kind(&self) -> &'static str {
        match self {
            Said::Text { role, .. } => role,
            Said::Call { .. } => "call",
            Said::Result { .. } => "result",
        }
    }

    /// When it was written, where the record says.
    pub fn at(&self) -> Option<&str> {
        match self {
            Said::Text { at, .. } => at.as_deref(),
            _ => None,
        }
    }
}

/// A message record and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The record as written.
    pub raw: Vec<u8>,
    /// What it says.
    pub said: Said,
}

/// A line that is no toy record: not JSON, not an object, or an object of no toy shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Unread {
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The line as written.
    pub raw: Vec<u8>,
    /// Why it was not read.
    pub why: BadLine,
}

/// A toy session, read whole.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// Its header, if it has one.
    pub header: Option<Header>,
    /// Its header record as written.
    pub header_raw: Option<Vec<u8>>,
    /// Its messages, in file order.
    pub messages: Vec<Message>,
    /// The lines that are no toy record.
    pub unread: Vec<Unread>,
    /// Physical lines, blank ones included.
    pub lines: u64,
}

/// Reads `src` as a toy session; only reading the file itself fails.
pub fn read(src: &Source) -> std::io::Result<Session> {
    let mut s = Session::default();
    let stats = cctool_core::io::for_each_line(src, |l| {
        let unread = |why: BadLine| Unread {
            line: l.no,
            offset: l.offset,
            raw: l.bytes.to_vec(),
            why,
        };
        match serde_json::from_slice::<Map<String, Value>>(l.bytes) {
            Err(e) => s.unread.push(unread(classify(l.bytes, l.terminated, &e))),
            Ok(m) => match record(&m) {
                Some(Record::Header(h)) if s.header.is_none() && s.messages.is_empty() => {
                    s.header = Some(h);
                    s.header_raw = Some(l.bytes.to_vec());
                }
                Some(Record::Said(said)) => s.messages.push(Message {
                    line: l.no,
                    offset: l.offset,
                    raw: l.bytes.to_vec(),
                    said,
                }),
                _ => s.unread.push(unread(BadLine {
                    code: Code::UnknownRecordType,
                    severity: Severity::Info,
                    message: "not a toy record (a header where none belongs, or an unknown `toy`); not part of the conversation".into(),
                })),
            },
        }
    })?;
    s.lines = stats.lines;
    Ok(s)
}

enum Record {
    Header(Header),
    Said(Said),
}

/// The record `m` is, if it is one of the toy agent's.
fn record(m: &Map<String, Value>) -> Option<Record> {
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    if m.contains_key("toy_session") {
        return Some(Record::Header(Header {
            session_id: s("toy_session"),
            cwd: s("cwd"),
            started: s("started"),
        }));
    }
    let said = match m.get("toy")?.as_str()? {
        "user" => Said::Text {
            role: "user",
            text: s("text")?,
            at: s("at"),
        },
        "assistant" => Said::Text {
            role: "assistant",
            text: s("text")?,
            at: s("at"),
        },
        "call" => Said::Call {
            id: s("id")?,
            tool: s("tool")?,
            input: m.get("input").cloned().unwrap_or(Value::Object(Map::new())),
        },
        "result" => Said::Result {
            id: s("id")?,
            output: s("output")?,
        },
        _ => return None,
    };
    Some(Record::Said(said))
}

impl Session {
    /// The earliest and latest times it records (its header's start and its messages'), in
    /// milliseconds since the epoch.
    pub fn span(&self) -> Option<(i64, i64)> {
        let started = self.header.as_ref().and_then(|h| h.started.as_deref());
        started
            .into_iter()
            .chain(self.messages.iter().filter_map(|m| m.said.at()))
            .filter_map(cctool_core::model::time::parse_ms)
            .fold(None, |span, t| {
                Some(span.map_or((t, t), |(lo, hi): (i64, i64)| (lo.min(t), hi.max(t))))
            })
    }

    /// The session id.
    pub fn session_id(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.session_id.as_deref())
    }

    /// The folder it ran in.
    pub fn cwd(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.cwd.as_deref())
    }

    /// The lines that could not be read at all (not JSON, not an object).
    pub fn bad_lines(&self) -> u64 {
        self.unread
            .iter()
            .filter(|u| u.why.code != Code::UnknownRecordType)
            .count() as u64
    }
}
