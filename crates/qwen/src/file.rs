//! Reading a Qwen Code session: its records in file order, each with where it is, and the
//! lines (or objects in a line) the client passes over, with why.
//!
//! The client reads a line with `JSON.parse`; a line that fails is not dropped whole: every
//! balanced top-level `{…}` in it is parsed on its own (`recoverObjectsFromLine`), so two
//! records written onto one line both count (QW1). A record then needs a non-empty string
//! `uuid` and `sessionId`, a `parentUuid` that is a string or `null`, and a `type` among
//! `user`, `assistant`, `tool_result` and `system` (`validateTranscriptRecord`).

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use cctool_core::io::json::{BadLine, Key, classify};
use cctool_core::io::{Line, Source};
use cctool_core::model::diag::{Code, Severity};

/// The record types the client reads; any other is passed over.
pub const RECORD_TYPES: &[&str] = &["user", "assistant", "tool_result", "system"];

/// The `system` subtypes that are no part of the conversation: never a leaf, never walked.
const NON_CONVERSATION: &[&str] = &[
    "session_artifact_event",
    "session_artifact_snapshot",
    "session_sources_snapshot",
    "managed_session_header_v1",
    "managed_session_event_v1",
    "managed_session_commit_v1",
];

/// One record of the session and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Rec {
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The record as written: the line, or the object recovered from a damaged line (left
    /// empty by [`crate::lite`], for the answers that never print it).
    pub raw: Vec<u8>,
    /// The record, read; without its links where [`crate::lite`] read it (they are
    /// [`Rec::uuid`] and [`Rec::parent`]), and without its message where that is typed.
    pub value: Map<String, Value>,
    /// Its message, typed, where [`crate::lite`] read it for the request `scan` measures: only
    /// the request ([`crate::chain::Chain::history_parts`]) reads it.
    pub typed: Option<crate::api::part::TypedMessage>,
    /// Its `uuid`.
    pub uuid: String,
    /// Its `parentUuid`; `None` at a root.
    pub parent: Option<String>,
}

impl Rec {
    /// Its `type`.
    pub fn ty(&self) -> &str {
        self.s("type").unwrap_or("")
    }

    /// Its `subtype`, if it is a string.
    pub fn subtype(&self) -> Option<&str> {
        self.s("subtype")
    }

    /// A string field of the record.
    pub fn s(&self, key: &str) -> Option<&str> {
        self.value.get(key).and_then(Value::as_str)
    }

    /// Its `timestamp`, as written.
    pub fn timestamp(&self) -> Option<&str> {
        self.s("timestamp")
    }

    /// Its message, when it is an object (Gemini's Content: `role`, `parts`).
    pub fn message(&self) -> Option<&Map<String, Value>> {
        self.value.get("message").and_then(Value::as_object)
    }

    /// Its message's role (where it is a string) and parts as the request's passes read them,
    /// where it has a message that is an object: typed, or as written.
    pub fn message_parts(&self) -> Option<(Option<&str>, Vec<crate::api::Part<'_>>)> {
        use crate::api::Part;
        if let Some(t) = &self.typed {
            return Some((t.role.as_deref(), t.parts.iter().map(Part::lent).collect()));
        }
        let m = self.message()?;
        let parts = m.get("parts").and_then(Value::as_array).into_iter().flatten();
        Some((m.get("role").and_then(Value::as_str), parts.map(Part::of).collect()))
    }

    /// Its message's parts, as written.
    pub fn parts(&self) -> &[Value] {
        self.message()
            .and_then(|m| m.get("parts"))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// Whether it is a `system` record of `subtype`.
    pub fn is_system(&self, subtype: &str) -> bool {
        self.ty() == "system" && self.subtype() == Some(subtype)
    }

    /// Whether the client walks it as part of the conversation (not an artifact or
    /// bookkeeping record).
    pub fn conversational(&self) -> bool {
        !(self.ty() == "system" && self.subtype().is_some_and(|s| NON_CONVERSATION.contains(&s)))
    }
}

/// A line, or an object in a line, the client passes over.
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

/// A Qwen Code session, read whole.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// Its records, in file order.
    pub records: Vec<Rec>,
    /// What the client passes over.
    pub unread: Vec<Unread>,
    /// Physical lines, blank ones included.
    pub lines: u64,
    /// Whether its messages are not as written: [`crate::lite`] reads long texts as stand-ins of their
    /// length, or leaves them out.
    pub stand_ins: bool,
}

/// Reads `src` as a Qwen Code session; only reading the file itself fails.
pub fn read(src: &Source) -> std::io::Result<Session> {
    let mut s = Session::default();
    let stats = cctool_core::io::for_each_line(src, |l| {
        if !l.bytes.iter().all(u8::is_ascii_whitespace) {
            read_line(&mut s, &l);
        }
    })?;
    s.lines = stats.lines;
    Ok(s)
}

/// Reads one line that is not blank into `s`: its record, the records recovered from it, or
/// why the client passes over it.
pub(crate) fn read_line(s: &mut Session, l: &Line<'_>) {
    match parse(l.bytes) {
        Ok(Value::Object(m)) => take(s, l.no, l.offset, l.bytes, m),
        Ok(_) => s.unread.push(unread(
            (l.no, l.offset),
            l.bytes,
            Code::NotAnObject,
            Severity::Error,
            "not a JSON object: Qwen Code passes over the line",
        )),
        Err(e) => {
            let found = recover(l.bytes);
            let why = classify(l.bytes, l.terminated, &e);
            let why = match found.len() {
                0 => why,
                1 => BadLine {
                    message: format!(
                        "{}; Qwen Code still reads the whole record in it, as cctool does",
                        why.message
                    ),
                    ..why
                },
                n => BadLine {
                    code: Code::TwoRecordsOnOneLine,
                    message: format!(
                        "{n} records written onto one line (a lost newline): Qwen Code reads each of them, as cctool does; a reader of one record a line loses them"
                    ),
                    ..why
                },
            };
            s.unread.push(Unread {
                line: l.no,
                offset: l.offset,
                raw: l.bytes.to_vec(),
                why,
            });
            for (raw, m) in found {
                take(s, l.no, l.offset, &raw, m);
            }
        }
    }
}

/// Keeps `m` as a record when the client would, else notes why it passes over it; the record
/// keeps its line as written, and its links in its map as well as in [`Rec`].
pub(crate) fn take(s: &mut Session, line: u64, offset: u64, raw: &[u8], m: Map<String, Value>) {
    if let Some(why) = refused(m.get("uuid"), m.get("parentUuid"), &m) {
        s.unread.push(why.at((line, offset), raw));
        return;
    }
    s.records.push(Rec {
        line,
        offset,
        uuid: m.get("uuid").and_then(Value::as_str).unwrap_or_default().to_string(),
        parent: m.get("parentUuid").and_then(Value::as_str).map(str::to_string),
        raw: raw.to_vec(),
        value: m,
        typed: None,
    });
}

/// [`take`] for the answers of [`crate::lite`], which print no record: `m` without its links,
/// read apart as `uuid` and `parent` and moved into [`Rec`], and the line not kept.
pub(crate) fn take_answering(
    s: &mut Session,
    line: u64,
    offset: u64,
    raw: &[u8],
    (uuid, parent): (Option<Value>, Option<Value>),
    m: Map<String, Value>,
    typed: Option<crate::api::part::TypedMessage>,
) {
    if let Some(why) = refused(uuid.as_ref(), parent.as_ref(), &m) {
        s.unread.push(why.at((line, offset), raw));
        return;
    }
    let string = |v: Option<Value>| match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    s.records.push(Rec {
        line,
        offset,
        uuid: string(uuid).unwrap_or_default(),
        parent: string(parent),
        raw: Vec::new(),
        value: m,
        typed,
    });
}

/// Why the client passes over a record whose links are `uuid` and `parent` and whose other
/// fields are `m`: `validateTranscriptRecord`.
fn refused(uuid: Option<&Value>, parent: Option<&Value>, m: &Map<String, Value>) -> Option<Refused> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(|t| !t.is_empty());
    let parent_ok = matches!(parent, Some(Value::String(_) | Value::Null));
    if !(text(uuid) && text(m.get("sessionId")) && parent_ok) {
        return Some(Refused(
            Code::MissingUuid,
            Severity::Warning,
            "a record without a uuid, a sessionId or a parentUuid that is a string or null: Qwen Code skips it",
        ));
    }
    let known = m
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| RECORD_TYPES.contains(&t));
    (!known).then_some(Refused(
        Code::UnknownRecordType,
        Severity::Info,
        "a record type Qwen Code does not know: it skips the record",
    ))
}

/// Why a record is passed over ([`refused`]).
struct Refused(Code, Severity, &'static str);

impl Refused {
    /// It as what the client passes over, at `at` (line, offset), written `raw`.
    fn at(self, at: (u64, u64), raw: &[u8]) -> Unread {
        unread(at, raw, self.0, self.1, self.2)
    }
}

fn unread((line, offset): (u64, u64), raw: &[u8], code: Code, severity: Severity, message: &str) -> Unread {
    Unread {
        line,
        offset,
        raw: raw.to_vec(),
        why: BadLine {
            code,
            severity,
            message: message.to_string(),
        },
    }
}

/// One line as JSON. `JSON.parse` reads a lone surrogate escape where serde refuses it, so
/// such a line is read again repaired, as the client reads it.
fn parse(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let bytes = bytes.trim_ascii();
    lean(bytes).or_else(|e| {
        cctool_core::io::json::repair_surrogates(bytes)
            .and_then(|fixed| lean(&fixed).ok())
            .ok_or(e)
    })
}

/// The fields of a record cctool reads; the others (telemetry, a tool's display, the
/// attribution snapshot) stay as written in the line and are never built as values.
const FIELDS: &[&str] = &[
    "uuid",
    "parentUuid",
    "sessionId",
    "type",
    "subtype",
    "timestamp",
    "cwd",
    "version",
    "model",
    "message",
    "usageMetadata",
];

/// The `system` subtypes whose `systemPayload` a resume or a summary reads.
const PAYLOADS: &[&str] = &["chat_compression", "custom_title", "slash_command"];

/// A line as JSON: an object with only [`FIELDS`] (and the payload of [`PAYLOADS`]) built, the
/// last of a key given twice winning as in `JSON.parse`; anything else as parsed.
///
/// The fields are built as the line is read, in one pass. Where that pass fails (a field
/// that is no valid JSON value, which the written-twice key it loses to may hide, or one
/// nested near the limit), the line is read again keeping each field's text and building
/// only the last of each, whose answer is the one kept.
fn lean(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    if let Ok(fields) = serde_json::from_slice::<Fields<'_, Value>>(bytes)
        && let Ok(v) = fields.build(Ok, |m| Ok(Some(m)))
    {
        return Ok(v);
    }
    lean_by_text(bytes)
}

/// [`lean`] in two passes: each field's text kept, then the last of each built.
fn lean_by_text(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let fields: Fields<'_, &RawValue> = match serde_json::from_slice(bytes) {
        Ok(f) => f,
        Err(e) => {
            return match serde_json::from_slice::<Value>(bytes) {
                // Valid JSON, but no object.
                Ok(_) => Ok(Value::Null),
                Err(_) => Err(e),
            };
        }
    };
    fields.build(
        |raw| serde_json::from_str(raw.get()),
        |raw| serde_json::from_str(raw.get()).map(Some),
    )
}

/// The values of a record's [`FIELDS`] (in their order), each read as `T` but its `message`
/// read as `M`, and its `systemPayload` as written; the other keys' values are passed over as
/// `JSON.parse` would read them past, without a map of every key.
pub(crate) struct Fields<'a, T, M = T> {
    known: [Option<T>; FIELDS.len()],
    message: Option<M>,
    payload: Option<&'a RawValue>,
}

/// Where the links, `type` and `message` are among [`FIELDS`].
const UUID: usize = 0;
const PARENT: usize = 1;
const TYPE: usize = 3;
const MESSAGE: usize = 9;
const _: () = assert!(
    matches!(FIELDS[UUID].as_bytes(), b"uuid")
        && matches!(FIELDS[PARENT].as_bytes(), b"parentUuid")
        && matches!(FIELDS[TYPE].as_bytes(), b"type")
        && matches!(FIELDS[MESSAGE].as_bytes(), b"message")
);

impl<T, M> Fields<'_, T, M> {
    /// Its `type`.
    pub(crate) fn ty(&self) -> Option<&T> {
        self.known[TYPE].as_ref()
    }

    /// Its `message`.
    pub(crate) fn message(&self) -> Option<&M> {
        self.message.as_ref()
    }

    /// Its `uuid` and `parentUuid`, taken out of it.
    pub(crate) fn take_links(&mut self) -> (Option<T>, Option<T>) {
        (self.known[UUID].take(), self.known[PARENT].take())
    }

    /// Its `systemPayload`, as written.
    pub(crate) fn payload(&self) -> Option<&str> {
        self.payload.map(RawValue::get)
    }

    /// The record as a map of its fields in [`FIELDS`]' order, each made a value by `value`
    /// (its message by `message`, which may keep it out of the map).
    pub(crate) fn build(
        self,
        value: impl Fn(T) -> Result<Value, serde_json::Error>,
        message: impl FnOnce(M) -> Result<Option<Value>, serde_json::Error>,
    ) -> Result<Value, serde_json::Error> {
        // Room for the fields there are, and no more: a map grown one insert at a time is
        // rebuilt as it grows, and one with room for every field is a block large enough that
        // the system allocator sorts its free blocks before it hands it out.
        let present = self.known.iter().filter(|v| v.is_some()).count();
        let mut m =
            Map::with_capacity(present + usize::from(self.message.is_some()) + usize::from(self.payload.is_some()));
        let mut msg = match self.message {
            Some(m) => message(m)?,
            None => None,
        };
        for (i, (k, v)) in FIELDS.iter().zip(self.known).enumerate() {
            let v = match i {
                MESSAGE => msg.take(),
                _ => v.map(&value).transpose()?,
            };
            if let Some(v) = v {
                m.insert((*k).to_string(), v);
            }
        }
        let payload = m
            .get("subtype")
            .and_then(Value::as_str)
            .is_some_and(|s| PAYLOADS.contains(&s));
        if let (true, Some(raw)) = (payload, self.payload) {
            m.insert("systemPayload".into(), serde_json::from_str(raw.get())?);
        }
        Ok(Value::Object(m))
    }
}

impl<'de, T: serde::Deserialize<'de>, M: serde::Deserialize<'de>> Fields<'de, T, M> {
    /// The fields of the record `line`, but those named in `skip` only checked as `Value` would
    /// read them (so that the same lines are refused) and not kept: a reading that would drop
    /// them once built builds nothing of them.
    pub(crate) fn read_skipping(line: &'de str, skip: &[&str]) -> serde_json::Result<Self> {
        use serde::de::DeserializeSeed;
        let mut d = serde_json::Deserializer::from_str(line);
        let fields = Skipping::<T, M> {
            skip,
            read: std::marker::PhantomData,
        }
        .deserialize(&mut d)?;
        d.end()?;
        Ok(fields)
    }
}

impl<'de, T: serde::Deserialize<'de>, M: serde::Deserialize<'de>> serde::Deserialize<'de> for Fields<'de, T, M> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::DeserializeSeed;
        Skipping {
            skip: &[],
            read: std::marker::PhantomData,
        }
        .deserialize(d)
    }
}

/// How [`Fields`] are read: those of `skip` checked as `RawChecked` and left out.
struct Skipping<'s, T, M> {
    skip: &'s [&'s str],
    read: std::marker::PhantomData<(T, M)>,
}

impl<'de, T: serde::Deserialize<'de>, M: serde::Deserialize<'de>> serde::de::DeserializeSeed<'de>
    for Skipping<'_, T, M>
{
    type Value = Fields<'de, T, M>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T: serde::Deserialize<'de>, M: serde::Deserialize<'de>> serde::de::Visitor<'de> for Skipping<'_, T, M> {
    type Value = Fields<'de, T, M>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de, T, M>, A::Error> {
        let mut out = Fields {
            known: [const { None }; FIELDS.len()],
            message: None,
            payload: None,
        };
        while let Some(Key(key)) = map.next_key()? {
            match FIELDS.iter().position(|k| *k == key) {
                Some(_) if self.skip.contains(&key.as_ref()) => {
                    map.next_value::<cctool_core::io::json::RawChecked>()?;
                }
                Some(MESSAGE) => out.message = Some(map.next_value()?),
                Some(i) => out.known[i] = Some(map.next_value()?),
                None if key == "systemPayload" => out.payload = Some(map.next_value()?),
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

/// The balanced top-level objects of a line that is no JSON, each parsed on its own, as the
/// client's `recoverObjectsFromLine` finds them: braces counted outside strings, a fragment
/// that does not parse left out.
pub fn recover(line: &[u8]) -> Vec<(Vec<u8>, Map<String, Value>)> {
    let mut out = Vec::new();
    let (mut depth, mut in_string, mut escape, mut start) = (0i64, false, false, None);
    for (i, &c) in line.iter().enumerate() {
        if escape {
            escape = false;
            continue;
        }
        if in_string {
            match c {
                b'\\' => escape = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'{' => {
                if depth == 0 {
                    start = Some(i);
                }
                depth += 1;
            }
            b'}' => {
                depth -= 1;
                if depth == 0
                    && let Some(s) = start.take()
                {
                    let fragment = &line[s..=i];
                    if let Ok(Value::Object(m)) = parse(fragment) {
                        out.push((fragment.to_vec(), m));
                    }
                } else if depth < 0 {
                    depth = 0;
                    start = None;
                }
            }
            _ => {}
        }
    }
    out
}

impl Session {
    /// The session id: the first record's, which the client takes for the session's.
    pub fn session_id(&self) -> Option<&str> {
        self.records.first().and_then(|r| r.s("sessionId"))
    }

    /// The folder it ran in: the first record's `cwd`, which the client checks on resume.
    pub fn cwd(&self) -> Option<&str> {
        self.records.first().and_then(|r| r.s("cwd"))
    }

    /// The client version that wrote its last record.
    pub fn version(&self) -> Option<&str> {
        self.records.iter().rev().find_map(|r| r.s("version"))
    }

    /// The session ids other than the first that its records carry: the client refuses to
    /// load a file that mixes sessions.
    pub fn other_session_ids(&self) -> Vec<(u64, &str)> {
        let first = self.session_id();
        self.records
            .iter()
            .filter_map(|r| Some((r.line, r.s("sessionId")?)))
            .filter(|(_, id)| Some(*id) != first)
            .collect()
    }

    /// The lines that could not be read at all (not JSON).
    pub fn bad_lines(&self) -> u64 {
        let mut lines: Vec<u64> = self
            .unread
            .iter()
            .filter(|u| !matches!(u.why.code, Code::UnknownRecordType | Code::MissingUuid))
            .map(|u| u.line)
            .collect();
        lines.dedup();
        lines.len() as u64
    }

    /// The earliest and latest times it records, in milliseconds since the epoch.
    pub fn span(&self) -> Option<(i64, i64)> {
        self.records
            .iter()
            .filter_map(Rec::timestamp)
            .filter_map(cctool_core::model::time::parse_ms)
            .fold(None, |span, t| {
                Some(span.map_or((t, t), |(lo, hi): (i64, i64)| (lo.min(t), hi.max(t))))
            })
    }
}

#[cfg(test)]
mod tests;
