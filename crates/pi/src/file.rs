//! Reading a pi session: its header, its entries in file order with where each is, and the
//! lines the client skips. Older session versions are read as the client migrates them on
//! load (`migrateToCurrentVersion`): a v1 file's entries get ids chained in file order, and a
//! compaction's `firstKeptEntryIndex` becomes the id of the entry at that index.

use serde_json::{Map, Value};

use cctool_core::io::Source;
use cctool_core::io::json::{BadLine, classify};
use cctool_core::model::diag::{Code, Severity};

/// The session format the client writes.
pub const CURRENT_VERSION: u64 = 3;

/// The session's header: its first record, `{"type":"session",…}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// The session's id.
    pub id: String,
    /// The session format (1 when the header names none, as the client reads it).
    pub version: u64,
    /// When it started, as written.
    pub timestamp: Option<String>,
    /// The folder it ran in, where a resume runs.
    pub cwd: Option<String>,
    /// The session it was forked from, as written.
    pub parent_session: Option<String>,
    /// The 1-based line of the header.
    pub line: u64,
}

/// One entry of the session and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The line as written.
    pub raw: Vec<u8>,
    /// The entry, read (after the client's migration, for an older session).
    pub value: Map<String, Value>,
    /// Its id; a v1 entry's is made from its line, as the client makes one on load.
    pub id: Option<String>,
    /// The id of the entry it follows; `None` at a root.
    pub parent: Option<String>,
}

impl Entry {
    /// Its `type`.
    pub fn ty(&self) -> &str {
        self.value.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// A string field of the entry.
    pub fn s(&self, key: &str) -> Option<&str> {
        self.value.get(key).and_then(Value::as_str)
    }

    /// Its `timestamp`, as written.
    pub fn timestamp(&self) -> Option<&str> {
        self.s("timestamp")
    }

    /// The message of a `message` entry.
    pub fn message(&self) -> Option<&Map<String, Value>> {
        if self.ty() != "message" {
            return None;
        }
        self.value.get("message").and_then(Value::as_object)
    }

    /// The role of a `message` entry's message.
    pub fn role(&self) -> Option<&str> {
        self.message().and_then(|m| m.get("role")).and_then(Value::as_str)
    }
}

/// A line the client skips: not JSON, or (before the header) not a header.
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

/// A pi session, read whole.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// Its header; `None` when the first record is not one (the client then reads no session).
    pub header: Option<Header>,
    /// Its header record as written.
    pub header_raw: Option<Vec<u8>>,
    /// The byte offset of its header's line.
    pub header_offset: u64,
    /// Its entries, in file order.
    pub entries: Vec<Entry>,
    /// The lines the client skips.
    pub unread: Vec<Unread>,
    /// Physical lines, blank ones included.
    pub lines: u64,
}

/// Reads `src` as a pi session; only reading the file itself fails.
pub fn read(src: &Source) -> std::io::Result<Session> {
    let mut s = Session::default();
    let mut first = true;
    let stats = cctool_core::io::for_each_line(src, |l| {
        if l.bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match parse(l.bytes) {
            Ok(m) => {
                let is_first = std::mem::take(&mut first);
                match header(&m, l.no) {
                    Some(h) if is_first => {
                        s.header = Some(h);
                        s.header_raw = Some(l.bytes.to_vec());
                        s.header_offset = l.offset;
                    }
                    // The client passes over every `session` record after the first when it
                    // builds the tree.
                    _ if m.get("type").and_then(Value::as_str) == Some("session") => s.unread.push(Unread {
                        line: l.no,
                        offset: l.offset,
                        raw: l.bytes.to_vec(),
                        why: BadLine {
                            code: Code::UnknownRecordType,
                            severity: Severity::Info,
                            message: "a session header after the first record: pi passes over it".into(),
                        },
                    }),
                    _ => s.entries.push(entry(l.no, l.offset, l.bytes, m)),
                }
            }
            Err(e) => s.unread.push(Unread {
                line: l.no,
                offset: l.offset,
                raw: l.bytes.to_vec(),
                why: classify(l.bytes, l.terminated, &e),
            }),
        }
    })?;
    s.lines = stats.lines;
    migrate(&mut s);
    Ok(s)
}

/// The entry the line `no` at `offset`, `bytes`, read as `m`, is (before any migration).
pub(crate) fn entry(no: u64, offset: u64, bytes: &[u8], m: Map<String, Value>) -> Entry {
    Entry {
        line: no,
        offset,
        raw: bytes.to_vec(),
        id: m.get("id").and_then(Value::as_str).map(str::to_string),
        parent: m.get("parentId").and_then(Value::as_str).map(str::to_string),
        value: m,
    }
}

/// One line as an object. `JSON.parse` reads a lone surrogate escape where serde refuses it,
/// so such a line is read again repaired, as the client reads it.
pub(crate) fn parse(bytes: &[u8]) -> Result<Map<String, Value>, serde_json::Error> {
    serde_json::from_slice(bytes).or_else(|e| {
        cctool_core::io::json::repair_surrogates(bytes)
            .and_then(|fixed| serde_json::from_slice(&fixed).ok())
            .ok_or(e)
    })
}

/// The header `m` is, if it is one (`type` `session` with a string `id`, as the client asks).
pub(crate) fn header(m: &Map<String, Value>, line: u64) -> Option<Header> {
    if m.get("type").and_then(Value::as_str) != Some("session") {
        return None;
    }
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    Some(Header {
        id: s("id")?,
        version: m.get("version").and_then(Value::as_u64).unwrap_or(1),
        timestamp: s("timestamp"),
        cwd: s("cwd"),
        parent_session: s("parentSession"),
        line,
    })
}

/// The client's migration of an older session, done on the entries as read (the file is left
/// as written): v1 → v2 chains the entries in file order under made ids and turns a
/// compaction's `firstKeptEntryIndex` (an index among the file's records, the header's 0) into
/// the id of that entry; v2 → v3 renames the message role `hookMessage` to `custom`.
fn migrate(s: &mut Session) {
    let Some(version) = s.header.as_ref().map(|h| h.version) else {
        return;
    };
    if version < 2 {
        let ids: Vec<String> = s.entries.iter().map(|e| format!("line{}", e.line)).collect();
        for (i, e) in s.entries.iter_mut().enumerate() {
            e.id = Some(ids[i].clone());
            e.parent = i.checked_sub(1).map(|p| ids[p].clone());
            let index = e.value.get("firstKeptEntryIndex").and_then(Value::as_u64);
            if let (true, Some(index)) = (e.ty() == "compaction", index) {
                // Index 0 is the header, which is kept nowhere.
                let target = (index as usize).checked_sub(1).and_then(|k| ids.get(k));
                if let Some(t) = target {
                    e.value.insert("firstKeptEntryId".into(), Value::String(t.clone()));
                }
            }
        }
    }
    if version < 3 {
        for e in &mut s.entries {
            if e.role() == Some("hookMessage")
                && let Some(Value::Object(m)) = e.value.get_mut("message")
            {
                m.insert("role".into(), Value::String("custom".into()));
            }
        }
    }
}

impl Session {
    /// The session id.
    pub fn session_id(&self) -> Option<&str> {
        self.header.as_ref().map(|h| h.id.as_str())
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

    /// The earliest and latest times it records, in milliseconds since the epoch.
    pub fn span(&self) -> Option<(i64, i64)> {
        let started = self.header.as_ref().and_then(|h| h.timestamp.as_deref());
        started
            .into_iter()
            .chain(self.entries.iter().filter_map(Entry::timestamp))
            .filter_map(cctool_core::model::time::parse_ms)
            .fold(None, |span, t| {
                Some(span.map_or((t, t), |(lo, hi): (i64, i64)| (lo.min(t), hi.max(t))))
            })
    }
}
