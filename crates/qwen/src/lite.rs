//! A Qwen Code session as `scan`, `doctor` and `extract-summary` read it: every record as
//! [`file::read`] reads it, but without the texts of messages they do not answer from. For
//! `scan` ([`Want::Request`]), each message is read straight into typed parts
//! ([`crate::api::Part`], `typed.rs`), the request's passes' own reading of a part, with no
//! `Value` tree; a long text of a model, a tool's output or a call's arguments is a short
//! string, its stand-in, that carries the length the text takes in the request's JSON. The
//! request a resume sends ([`crate::api`]) is built from these parts as from a whole session's,
//! and [`Session::sent_len`] counts each stand-in as the text it stands for. `doctor`
//! ([`Want::Links`]) keeps none of those texts (`null` in their place), `extract-summary`
//! ([`Want::Nothing`]) no message. The texts the answers do read (the first prompt, a prompt a
//! compaction lost, a slash command's) are in `user` records, whose stand-ins are given back
//! the texts they stand for, read from the line.
//!
//! Each line is still parsed whole, as [`file::read`] parses it, a text left out checked from its
//! JSON ([`cctool_core::io::json::RawStr`], [`RawChecked`]), which refuses what the full reading
//! would decide otherwise; a line the fast reading refuses, for whatever reason (one that is
//! not UTF-8 among them: a line's UTF-8 is checked once, not string by string), is read by
//! [`file::read_line`]. For `scan`, a file that writes the stand-ins' mark where the request
//! could hold it as written (a text kept, a payload, a line read the full way) is read whole, by
//! [`file::read`]. A mark in a text a stand-in replaces, or in a field never sent, is no
//! matter, so no line is searched for it whole.

use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::file::{self, Fields, Session};

mod typed;
use cctool_core::io::json::{Key, RAW_VALUE_TOKEN, RawChecked};
use cctool_core::io::{Line, Source};

/// What opens and closes a stand-in: a noncharacter, which text written by an agent does not
/// hold (a file that does is read whole), and which JSON writes as it is.
const MARK: char = '\u{FDD0}';

/// Texts whose JSON is shorter than this are read: a stand-in would save nothing.
const LONG: usize = 64;

/// What an answer reads of the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// The request a resume sends (`scan`): each text, or its length.
    Request,
    /// Which calls and results a resume loads (`doctor`): no text but a user's.
    Links,
    /// No message (`extract-summary`).
    Nothing,
}

/// Reads `src` as an answer that wants `want` reads it; only reading the file itself fails.
pub fn read(src: &Source, want: Want) -> std::io::Result<Session> {
    match read_fast(src, want)? {
        Some(s) => Ok(s),
        None => file::read(src),
    }
}

/// The fast reading, or `None` where the file writes the stand-ins' mark and the request is
/// wanted.
pub fn read_fast(src: &Source, want: Want) -> std::io::Result<Option<Session>> {
    let mut s = Session {
        stand_ins: true,
        ..Session::default()
    };
    let mut marked = false;
    let stats = cctool_core::io::for_each_line(src, |l| {
        if marked || l.bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let read = match want {
            Want::Request => read_light::<typed::Typed<'_>>(&mut s, &l),
            Want::Links => read_light::<Light>(&mut s, &l),
            Want::Nothing => read_light::<RawChecked>(&mut s, &l),
        };
        match read {
            Read::Taken => {}
            // Only the request's length reads the stand-ins: to the others a written mark is
            // text.
            Read::Marked if want == Want::Request => marked = true,
            Read::Marked | Read::Left if want == Want::Request && holds_mark(l.bytes) => marked = true,
            Read::Marked | Read::Left => file::read_line(&mut s, &l),
        }
    })?;
    if marked {
        return Ok(None);
    }
    s.lines = stats.lines;
    Ok(Some(s))
}

/// Whether `line` writes [`MARK`], as it is or escaped.
fn holds_mark(line: &[u8]) -> bool {
    static AS_IS: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new(MARK.encode_utf8(&mut [0; 4]).as_bytes()).into_owned());
    // Escapes of U+F000 to U+FFFF are rare, where `\u` starts an escape in every few lines.
    static ESCAPES: LazyLock<[Finder<'static>; 2]> = LazyLock::new(|| [Finder::new(b"\\uf"), Finder::new(b"\\uF")]);
    AS_IS.find(line).is_some()
        || ESCAPES.iter().any(|f| {
            f.find_iter(line)
                .any(|p| line.get(p + 3..p + 6).is_some_and(|h| h.eq_ignore_ascii_case(b"dd0")))
        })
}

/// What [`read_light`] did with a line.
enum Read {
    /// Read its record into the session.
    Taken,
    /// Left it to [`file::read_line`].
    Left,
    /// Found [`MARK`] in a text it kept, or in a payload.
    Marked,
}

/// Reads the record of `l` into `s`, its message read as `M`, as [`file::read_line`] would
/// read it, or says why not.
fn read_light<'de, M: Message<'de>>(s: &mut Session, l: &'de Line<'_>) -> Read {
    // Read by no answer of these: the usage, and the folder of any record but the first.
    let skip: &[&str] = if s.records.is_empty() {
        &["usageMetadata"]
    } else {
        &["usageMetadata", "cwd"]
    };
    // Checked whole once, the line's strings are not checked one by one as they are read; a
    // line that is not UTF-8 is the full reading's, which reads it as the client does.
    let Ok(line) = simdutf8::basic::from_utf8(l.bytes.trim_ascii()) else {
        return Read::Left;
    };
    let Ok(mut fields) = Fields::<'_, Value, M>::read_skipping(line, skip) else {
        return Read::Left;
    };
    // What the request holds is the message's texts, and the payload's (a summary, a command's
    // output): the others a record holds are never sent.
    if fields.message().is_some_and(Message::marked) || fields.payload().is_some_and(|p| holds_mark(p.as_bytes())) {
        return Read::Marked;
    }
    // The answers read the texts of a user's record: its stand-ins are made the texts again.
    let user = fields.ty().and_then(Value::as_str) == Some("user");
    // The links are the record's own fields in [`file::Rec`]: no answer reads them in its map.
    let links = fields.take_links();
    let mut typed = None;
    let built = fields.build(Ok, |m| match m.kept(user) {
        Some(Kept::Nothing) => Ok(None),
        Some(Kept::Value(v)) => Ok(Some(v)),
        Some(Kept::Typed(t)) => {
            typed = Some(t);
            Ok(None)
        }
        None => Err(de::Error::custom("texts the fast reading cannot give back")),
    });
    let Ok(Value::Object(m)) = built else {
        return Read::Left;
    };
    file::take_answering(s, l.no, l.offset, l.bytes, links, m, typed);
    Read::Taken
}

/// How a record keeps the message the fast reading read.
enum Kept {
    /// Not at all: no answer reads it.
    Nothing,
    /// As a value in the record's map.
    Value(Value),
    /// Typed, beside the record's map ([`file::Rec::typed`]).
    Typed(crate::api::part::TypedMessage),
}

/// A record's `message` as the fast reading reads it.
trait Message<'de>: Deserialize<'de> {
    /// Whether a text it keeps as written holds [`MARK`] (only looked for with stand-ins).
    fn marked(&self) -> bool {
        false
    }
    /// It as the record keeps it; with every text as written where it is a `user`'s record
    /// (whose texts the answers read), `None` where it cannot give them back or one of them
    /// holds [`MARK`].
    fn kept(self, user: bool) -> Option<Kept>;
}

impl Message<'_> for RawChecked {
    fn kept(self, _: bool) -> Option<Kept> {
        Some(Kept::Nothing)
    }
}

impl Message<'_> for Light {
    fn kept(self, user: bool) -> Option<Kept> {
        // A text left out is `null`, which tells nothing of what it was: a user's record that
        // left one out is read the full way.
        (!user || self.left_out == 0).then_some(Kept::Value(self.value))
    }
}

impl<'de> Message<'de> for typed::Typed<'de> {
    fn marked(&self) -> bool {
        self.seen.marked
    }
    fn kept(mut self, user: bool) -> Option<Kept> {
        if user && self.seen.stand_ins > 0 {
            typed::given_back(&mut self.message, &self.seen.written)?;
        }
        Some(Kept::Typed(self.message))
    }
}

impl Session {
    /// The length of `m` (a message of the request [`crate::api`] builds from this session)
    /// written as compact JSON, each stand-in counted as the text it stands for.
    pub fn sent_len(&self, m: &crate::api::Message<'_>) -> usize {
        let len = m.written_len();
        if !self.stand_ins {
            return len;
        }
        let mut more = 0;
        m.for_each_str(&mut |s| more += stood_for_in(s));
        len.saturating_add_signed(more)
    }
}

/// What the stand-ins in the string `s` (whole, or joined with others and texts) add to its
/// written length.
fn stood_for_in(mut s: &str) -> isize {
    let mut more = 0isize;
    while let Some(p) = s.find(MARK) {
        let after = &s[p + MARK.len_utf8()..];
        let Some(q) = after.find(MARK) else { break };
        let (written, _) = after[..q].split_once(' ').unwrap_or_default();
        let written = written.parse::<isize>().unwrap_or_default();
        more += written - (q + 2 * MARK.len_utf8()) as isize;
        s = &after[q + MARK.len_utf8()..];
    }
    more
}

/// The stand-in of a text whose written length, quotes left out, is `written`, and which is
/// the `index`th a message stood in for.
fn stand_in(written: usize, index: usize) -> String {
    format!("{MARK}{written} {index}{MARK}")
}

/// What reading a message for the request found.
#[derive(Default)]
struct Seen<'de> {
    /// How many texts are stand-ins.
    stand_ins: usize,
    /// Whether a text kept as written holds [`MARK`].
    marked: bool,
    /// The JSON of each text a stand-in replaces, by its index.
    written: Vec<&'de str>,
}

impl<'de> Seen<'de> {
    /// The stand-in of the value written `text`, whose written length is `len`.
    fn stand_in(&mut self, len: usize, text: &'de str) -> String {
        self.stand_ins += 1;
        self.written.push(text);
        stand_in(len, self.written.len() - 1)
    }
}

/// A record's `message` as `Value` reads it, every text `doctor` does not read `null`, checked
/// as `Value` would read it: a model's texts, a tool's output or error, a call's arguments.
struct Light {
    value: Value,
    /// How many texts are left out.
    left_out: usize,
}

impl<'de> Deserialize<'de> for Light {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut left_out = 0;
        let value = At {
            place: Place::Message,
            left_out: &mut left_out,
        }
        .deserialize(d)?;
        Ok(Light { value, left_out })
    }
}

/// Where a value is in a message: the places whose texts are left out, and the way to them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Message,
    /// `parts`.
    Parts,
    /// One of `parts`: its `text` is left out.
    Part,
    /// A part's `functionCall`: its `args` are.
    Call,
    /// A part's `functionResponse`.
    Response,
    /// Its `response`: its `output` and `error` are.
    Body,
    /// Its `parts`.
    ResponseParts,
    /// One of them: its `text` is.
    ResponsePart,
    /// Anywhere else: kept as written.
    Other,
}

/// A value at `place`, read as `Value` reads it, its texts left out counted.
struct At<'a> {
    place: Place,
    left_out: &'a mut usize,
}

impl<'de> DeserializeSeed<'de> for At<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for At<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let item = match self.place {
            Place::Parts => Place::Part,
            Place::ResponseParts => Place::ResponsePart,
            _ => Place::Other,
        };
        let mut out = Vec::new();
        while let Some(v) = a.next_element_seed(At {
            place: item,
            left_out: &mut *self.left_out,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Key(k)) = a.next_key::<Key<'de>>()? {
            if k == RAW_VALUE_TOKEN {
                return Err(de::Error::custom("a raw value's mark, left to the full reading"));
            }
            let n = &mut *self.left_out;
            let at = |place, left_out| At { place, left_out };
            let v = match (self.place, k.as_ref()) {
                (Place::Message, "parts") => a.next_value_seed(at(Place::Parts, n))?,
                (Place::Part, "functionCall") => a.next_value_seed(at(Place::Call, n))?,
                (Place::Part, "functionResponse") => a.next_value_seed(at(Place::Response, n))?,
                (Place::Response, "response") => a.next_value_seed(at(Place::Body, n))?,
                (Place::Response, "parts") => a.next_value_seed(at(Place::ResponseParts, n))?,
                (Place::Part, "text")
                | (Place::Body, "output" | "error")
                | (Place::ResponsePart, "text")
                | (Place::Call, "args") => {
                    a.next_value::<RawChecked>()?;
                    *n += 1;
                    Value::Null
                }
                _ => a.next_value_seed(at(Place::Other, n))?,
            };
            out.insert(k.into_owned(), v);
        }
        Ok(Value::Object(out))
    }
}

/// Whether the JSON string body `b` (escapes as written) is longer than the placeholder of a
/// turn that timed out once trimmed, as its ends show: a plain ASCII character at each, past
/// spaces and `\n`, `\r`, `\t`, so far apart that no escapes between them could make the text
/// as short (an escape of six bytes is one character at least).
fn surely_long(b: &[u8]) -> bool {
    let escape_at = |i: usize| b[..=i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
    let plain = |c: u8| c.is_ascii_graphic() && c != b'\\' && c != b'"';
    let mut start = 0;
    loop {
        match b.get(start..start + 2) {
            Some(b"\\n" | b"\\r" | b"\\t") => start += 2,
            _ if b.get(start) == Some(&b' ') => start += 1,
            _ => break,
        }
    }
    let mut end = b.len();
    while end > start {
        if b[end - 1] == b' ' {
            end -= 1;
        } else if end >= start + 2 && matches!(b[end - 1], b'n' | b'r' | b't') && escape_at(end - 2) {
            end -= 2;
        } else {
            break;
        }
    }
    let Some(last) = end.checked_sub(1).filter(|&l| l > start) else {
        return false;
    };
    let escaped = last >= 1 && escape_at(last - 1);
    let in_unicode = last >= 5 && b[last - 4] == b'u' && escape_at(last - 5);
    plain(b[start])
        && plain(b[last])
        && !escaped
        && !in_unicode
        && end - start >= 6 * (crate::api::DEGRADED_PLACEHOLDER.len() + 1)
}

#[cfg(test)]
mod tests;
