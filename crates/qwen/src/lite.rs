//! A Qwen Code session as `scan`, `doctor` and `extract-summary` read it: every record as
//! [`file::read`] reads it, but without the texts of messages they do not answer from. For
//! `scan` ([`Want::Request`]), a long text of a model, a tool's output or a call's arguments is
//! replaced by a short string, its stand-in, that carries the length the text takes in the
//! request's JSON; the request a resume sends ([`crate::api`]) is built from these records as
//! from whole ones, and [`Session::sent_len`] counts each stand-in as the text it stands for.
//! `doctor` ([`Want::Links`]) keeps none of those texts, `extract-summary` ([`Want::Nothing`])
//! no message. The texts the answers do read (the first prompt, a prompt a compaction lost, a
//! slash command's) are in `user` records, whose stand-ins are given back the texts they stand
//! for, read from the line.
//!
//! Each line is still parsed whole, as [`file::read`] parses it, a text left out checked from its
//! JSON ([`RawStr`], [`RawChecked`]), which refuses what the full reading would decide
//! otherwise; a line the fast reading refuses, for whatever reason (one that is not UTF-8 among
//! them: a line's UTF-8 is checked once, not string by string), is read by
//! [`file::read_line`]. For `scan`, a file that writes the stand-ins' mark where the request
//! could hold it as written (a text kept, a payload, a line read the full way) is read whole, by
//! [`file::read`]. A mark in a text a stand-in replaces, or in a field never sent, is no
//! matter, so no line is searched for it whole.

use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::file::{self, Fields, Session};
use cctool_core::io::json::{Key, RAW_VALUE_TOKEN, RawChecked, RawStr};
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
            Want::Request => read_light::<Light<true>>(&mut s, &l),
            Want::Links => read_light::<Light<false>>(&mut s, &l),
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
    let whole =
        fields.message().is_some_and(|m| m.stood_in() > 0) && fields.ty().and_then(Value::as_str) == Some("user");
    // The links are the record's own fields in [`file::Rec`]: no answer reads them in its map.
    let links = fields.take_links();
    let built = fields.build(Ok, |m| match whole {
        true => m
            .whole()
            .ok_or_else(|| de::Error::custom("texts the fast reading cannot give back")),
        false => Ok(m.value()),
    });
    let Ok(Value::Object(mut m)) = built else {
        return Read::Left;
    };
    if m.get("message").is_some_and(Value::is_null) && M::LEFT_OUT {
        m.shift_remove("message");
    }
    file::take_answering(s, l.no, l.offset, l.bytes, links, m);
    Read::Taken
}

/// A record's `message` as the fast reading reads it.
trait Message<'de>: Deserialize<'de> {
    /// Whether the message is left out.
    const LEFT_OUT: bool = false;
    /// How many of its texts are not as written.
    fn stood_in(&self) -> usize;
    /// Whether a text it keeps as written holds [`MARK`] (only looked for with stand-ins).
    fn marked(&self) -> bool {
        false
    }
    /// It as a value.
    fn value(self) -> Value;
    /// It as a value with every text as written, where it can give them back and none of them
    /// holds [`MARK`].
    fn whole(self) -> Option<Value>;
}

impl Message<'_> for RawChecked {
    const LEFT_OUT: bool = true;
    fn stood_in(&self) -> usize {
        0
    }
    fn value(self) -> Value {
        Value::Null
    }
    fn whole(self) -> Option<Value> {
        None
    }
}

impl<'de, const TEXTS: bool> Message<'de> for Light<'de, TEXTS> {
    fn stood_in(&self) -> usize {
        self.seen.stand_ins
    }
    fn marked(&self) -> bool {
        self.seen.marked
    }
    fn value(self) -> Value {
        self.value
    }
    fn whole(mut self) -> Option<Value> {
        // Without `TEXTS` a text left out is `null`, which tells nothing of where it was.
        if !TEXTS {
            return None;
        }
        given_back(&mut self.value, &self.seen.written)?;
        Some(self.value)
    }
}

/// Makes each stand-in in `v` the value it stands for, read from its text in `written`; `None`
/// where one cannot be, or holds [`MARK`]. Each string of `v` with the mark is a stand-in: a
/// message that kept a text with it was never built.
fn given_back(v: &mut Value, written: &[&str]) -> Option<()> {
    match v {
        Value::String(s) if s.starts_with(MARK) => {
            let (_, index) = s.strip_prefix(MARK)?.strip_suffix(MARK)?.split_once(' ')?;
            let text = written.get(index.parse::<usize>().ok()?)?;
            if holds_mark(text.as_bytes()) {
                return None;
            }
            *v = serde_json::from_str(text).ok()?;
        }
        Value::Array(items) => items.iter_mut().try_for_each(|i| given_back(i, written))?,
        Value::Object(m) => m.values_mut().try_for_each(|i| given_back(i, written))?,
        _ => {}
    }
    Some(())
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
fn stand_in(written: usize, index: usize) -> Value {
    Value::String(format!("{MARK}{written} {index}{MARK}"))
}

/// A record's `message` as `Value` reads it, its long texts stand-ins (`TEXTS`), or every text
/// `null` (checked as `Value` would read it).
struct Light<'de, const TEXTS: bool> {
    value: Value,
    seen: Seen<'de>,
}

/// What reading a message found.
#[derive(Default)]
struct Seen<'de> {
    /// How many texts are not as written.
    stand_ins: usize,
    /// Whether a text kept as written holds [`MARK`] (with `TEXTS`).
    marked: bool,
    /// The JSON of each text a stand-in replaces (with `TEXTS`), by its index.
    written: Vec<&'de str>,
}

impl<'de> Seen<'de> {
    /// The stand-in of the value written `text`, whose written length is `len`.
    fn stand_in(&mut self, len: usize, text: &'de str) -> Value {
        self.stand_ins += 1;
        self.written.push(text);
        stand_in(len, self.written.len() - 1)
    }
}

impl<'de, const TEXTS: bool> Deserialize<'de> for Light<'de, TEXTS> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut seen = Seen::default();
        let value = At::<TEXTS> {
            place: Place::Message,
            seen: &mut seen,
        }
        .deserialize(d)?;
        Ok(Light { value, seen })
    }
}

/// Where a value is in a message: the places whose texts may be stand-ins, and the way to them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Message,
    /// `parts`.
    Parts,
    /// One of `parts`: its `text` may be a stand-in.
    Part,
    /// A part's `functionCall`: its `args` may be one.
    Call,
    /// A part's `functionResponse`.
    Response,
    /// Its `response`: its `output` and `error` may be.
    Body,
    /// Its `parts`.
    ResponseParts,
    /// One of them: its `text` may be.
    ResponsePart,
    /// Anywhere else: kept as written.
    Other,
}

/// A value at `place`, read as `Value` reads it, with its stand-ins counted and its kept texts
/// looked at for the mark (without `TEXTS`, each text `null`).
struct At<'a, 'de, const TEXTS: bool> {
    place: Place,
    seen: &'a mut Seen<'de>,
}

impl<const TEXTS: bool> At<'_, '_, TEXTS> {
    /// `s`, a text kept as written.
    fn kept(self, s: String) -> Value {
        self.seen.marked |= TEXTS && s.contains(MARK);
        Value::String(s)
    }
}

impl<'de, const TEXTS: bool> DeserializeSeed<'de> for At<'_, 'de, TEXTS> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, const TEXTS: bool> Visitor<'de> for At<'_, 'de, TEXTS> {
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
        Ok(self.kept(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(self.kept(v))
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
        while let Some(v) = a.next_element_seed(At::<TEXTS> {
            place: item,
            seen: &mut *self.seen,
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
            let n = &mut *self.seen;
            let at = |place, seen| At::<TEXTS> { place, seen };
            let v = match (self.place, k.as_ref()) {
                (Place::Message, "parts") => a.next_value_seed(at(Place::Parts, n))?,
                (Place::Part, "functionCall") => a.next_value_seed(at(Place::Call, n))?,
                (Place::Part, "functionResponse") => a.next_value_seed(at(Place::Response, n))?,
                (Place::Response, "response") => a.next_value_seed(at(Place::Body, n))?,
                (Place::Response, "parts") => a.next_value_seed(at(Place::ResponseParts, n))?,
                (Place::Part, "text")
                | (Place::Body, "output" | "error")
                | (Place::ResponsePart, "text")
                | (Place::Call, "args")
                    if !TEXTS =>
                {
                    a.next_value::<RawChecked>()?;
                    n.stand_ins += 1;
                    Value::Null
                }
                (Place::Part, "text") => text(a.next_value()?, true, n)?,
                (Place::Body, "output" | "error") | (Place::ResponsePart, "text") => text(a.next_value()?, false, n)?,
                (Place::Call, "args") => args(a.next_value()?, n)?,
                _ => a.next_value_seed(at(Place::Other, n))?,
            };
            out.insert(k.into_owned(), v);
        }
        Ok(Value::Object(out))
    }
}

/// A text as `Value` reads it, or its stand-in when it is long: the request only joins it to
/// others, or tells whether it is empty, or (`trimmed`, a part's text) whether it is the
/// placeholder of a turn that timed out, which [`surely_long`] rules out.
fn text<'de, E: de::Error>(raw: RawStr<'de>, trimmed: bool, seen: &mut Seen<'de>) -> Result<Value, E> {
    let body = raw.text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
    if let (Some(body), Some(len)) = (body, raw.len)
        && body.len() >= LONG
        && (!trimmed || surely_long(body.as_bytes()))
    {
        return Ok(seen.stand_in(len - 2, raw.text));
    }
    match raw.str() {
        Some(s) => {
            seen.marked |= s.contains(MARK);
            Ok(Value::String(s.into_owned()))
        }
        None => kept(raw, seen),
    }
}

/// The value written `raw`, kept as written.
fn kept<E: de::Error>(raw: RawStr<'_>, seen: &mut Seen<'_>) -> Result<Value, E> {
    seen.marked |= holds_mark(raw.text.as_bytes());
    serde_json::from_str(raw.text).map_err(E::custom)
}

/// A call's `args` as `Value` reads them, or the stand-in of the JSON text the request sends
/// of them when it is long. Only an object or an array is one: the request sends `{}` in place
/// of args that are falsy, and a non-empty string stand-in is never falsy.
fn args<'de, E: de::Error>(raw: RawStr<'de>, seen: &mut Seen<'de>) -> Result<Value, E> {
    // The request writes `to_json(args)` as a string: its quotes and their escapes are the
    // stand-in's own once it is written so.
    if raw.text.starts_with(['{', '['])
        && let Some(written) = raw.quoted_len()
        && written >= LONG
    {
        return Ok(seen.stand_in(written - 6, raw.text));
    }
    kept(raw, seen)
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
