//! A streaming v1/v2 → v5 migration for large files.
//!
//! The general path builds a JSON tree of the whole document, converts it and serialises it
//! again: on a 100 MB session that is mostly allocation. Here every string is kept as the
//! token written in the file (borrowed), only the few values the steps decide on are decoded,
//! and the v5 document is written directly, in the same layout serde_json's pretty printer
//! gives. The `messages` array is read in parts on all cores (each part starts at a guessed
//! element start, checked when the parts are joined) and rendered in windows on all cores
//! while the window before is written; a file of 256 MiB or more keeps only where each part
//! is and reads it again when rendering it, so memory stays bounded. Anything unusual (a null, a repeated key, a value of
//! an unexpected type, an escape serde would write differently) makes it decline, and the
//! general path — which also explains every error with its JSON path — takes the file. A
//! property test checks that both paths write the same bytes, with parts of a few bytes.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::agents::cctool::schema::{parse_arguments, rfc3339_seconds};
use crate::agents::cctool::write::{indent, write_pretty};
use crate::io::json::Key;

/// A string token as written, with what the one scan of it found: how many escapes it has
/// when serde would write it back unchanged, `None` when it must be decoded and encoded again.
#[derive(Clone, Copy)]
struct Str<'a> {
    raw: &'a str,
    plain_escapes: Option<usize>,
}

struct Call<'a> {
    id: Str<'a>,
    name: Str<'a>,
    arguments: Str<'a>,
    extra: Vec<(String, &'a RawValue)>,
}

struct Message<'a> {
    role: Str<'a>,
    content: Option<Str<'a>>,
    thinking: Option<Str<'a>>,
    tool_call_id: Option<Str<'a>>,
    ts: Option<i64>,
    tool_calls: Vec<Call<'a>>,
    extra: Vec<(String, &'a RawValue)>,
}

/// A v1 or v2 document, every string as written.
pub struct Doc<'a> {
    version: u32,
    id: Option<&'a RawValue>,
    created_at: Option<Str<'a>>,
    messages: Messages<'a>,
    extra: Vec<(String, &'a RawValue)>,
}

/// The messages of a document, in the parts they were read in, which are also the render
/// batches: held for a file of ordinary size; for a large one only where each part is, with
/// its count and earliest timestamp, and read again when written, so that memory holds a
/// window of parts instead of an index of every message (about 45% of the file's size).
enum Messages<'a> {
    Held(Vec<Vec<Message<'a>>>),
    Spans {
        text: &'a str,
        parts: Vec<Span>,
        /// Told when a part's bytes are done with (see [`read_releasing`]).
        release: Release<'a>,
        /// Where `text` starts in the bytes read.
        base: usize,
    },
}

/// Where the caller is told that the bytes from `.0` for `.1` bytes are done with for now,
/// offsets in the bytes given to [`read_releasing`].
type Release<'a> = Option<&'a (dyn Fn(u64, u64) + Sync)>;

/// One part of the `messages` array: its first element's offset, the offset at or after which
/// it stops (its successor's start), how many messages it holds and their earliest `ts`.
struct Span {
    start: usize,
    limit: usize,
    count: usize,
    min_ts: Option<i64>,
}

/// From this size on, a file's messages are not held but read twice (see [`Messages`]). On
/// the 1 GiB benchmark file the second parse costs 0.8–1.1 s of CPU, which the wait for the
/// disk mostly hides (3.0–3.7 s before and after), and peak RSS goes from 1.5 GB to 71 MB.
/// Below it the index is small and the second parse would cost a large share of the run.
const SPANS_FROM: usize = 256 << 20;

impl Messages<'_> {
    fn is_empty(&self) -> bool {
        match self {
            Messages::Held(parts) => parts.is_empty(),
            Messages::Spans { parts, .. } => parts.is_empty(),
        }
    }

    fn parts(&self) -> usize {
        match self {
            Messages::Held(parts) => parts.len(),
            Messages::Spans { parts, .. } => parts.len(),
        }
    }

    fn count(&self, i: usize) -> usize {
        match self {
            Messages::Held(parts) => parts[i].len(),
            Messages::Spans { parts, .. } => parts[i].count,
        }
    }

    fn min_ts(&self) -> Option<i64> {
        match self {
            Messages::Held(parts) => parts.iter().flatten().filter_map(|m| m.ts).min(),
            Messages::Spans { parts, .. } => parts.iter().filter_map(|p| p.min_ts).min(),
        }
    }

    /// `f` over the messages of part `i`, read again for a span. The bytes were read the same
    /// way before, so a part that reads differently now means the file changed meanwhile.
    fn with_part<R>(&self, i: usize, f: impl FnOnce(&[Message<'_>]) -> R) -> io::Result<R> {
        match self {
            Messages::Held(parts) => Ok(f(&parts[i])),
            Messages::Spans {
                text,
                parts,
                release,
                base,
            } => {
                let span = &parts[i];
                let Some((msgs, stop)) =
                    messages_from(text, span.start, span.limit).filter(|(m, _)| m.len() == span.count)
                else {
                    return Err(io::Error::other(
                        "the file changed while it was migrated; nothing was replaced, run migrate again",
                    ));
                };
                let rendered = f(&msgs);
                // Released once rendered: the messages borrow these pages.
                if let Some(release) = release {
                    release_part(*release, *base, span.start, stop);
                }
                Ok(rendered)
            }
        }
    }
}

/// A string token that serde would write back unchanged (no `\u` or `\/` escapes).
fn plain_string(r: &RawValue) -> bool {
    let raw = r.get();
    scan_string(raw.as_bytes(), 0).is_some_and(|(end, plain)| end == raw.len() && plain.is_some())
}

fn decline<E: serde::de::Error>() -> E {
    E::custom("not for the fast path")
}

/// Reads an object's entries; a key seen twice declines (the tree keeps the last).
fn entries<'de, A: MapAccess<'de>>(mut a: A) -> Result<Vec<(Key<'de>, &'de RawValue)>, A::Error> {
    let mut out: Vec<(Key<'de>, &'de RawValue)> = Vec::new();
    while let Some(k) = a.next_key::<Key<'de>>()? {
        if out.iter().any(|(x, _)| x.as_ref() == k.as_ref()) {
            return Err(decline());
        }
        let v = a.next_value::<&'de RawValue>()?;
        out.push((k, v));
    }
    Ok(out)
}

/// A string field read by serde as a raw value: scanned as [`string_at`] scans the others.
fn string_field<E: serde::de::Error>(v: &RawValue) -> Result<Str<'_>, E> {
    match string_at(v.get(), 0) {
        Some((s, end)) if end == v.get().len() => Ok(s),
        _ => Err(decline()),
    }
}

/// An unknown field, kept as written. It declines when it is named like a field v5 writes at
/// the same level (`written`: the general path lets the new field replace it) or holds a value
/// serde cannot decode (a lone surrogate, a number out of range).
fn extra_field<'a, E: serde::de::Error>(
    key: &str,
    v: &'a RawValue,
    written: &[&str],
) -> Result<(String, &'a RawValue), E> {
    if written.contains(&key) || !decodable(v) {
        return Err(decline());
    }
    Ok((key.to_string(), v))
}

/// Whether serde can read the token (the raw scanner lets a lone surrogate or `1e600` through).
fn decodable(v: &RawValue) -> bool {
    !is_structured(v) || serde_json::from_str::<Value>(v.get()).is_ok()
}

/// A string token as serde writes it: as written when that is the same, else decoded and
/// encoded again (`\u00e9` becomes `é`, `\/` becomes `/`).
fn token(v: Str<'_>) -> Cow<'_, str> {
    token_and_len(v).0
}

/// [`token`], and the UTF-8 length of the string it decodes to.
fn token_and_len(v: Str<'_>) -> (Cow<'_, str>, u64) {
    let raw = v.raw;
    if let Some(escapes) = v.plain_escapes {
        // Without `\u`, every escape is two bytes for one.
        return (Cow::Borrowed(raw), (raw.len() - 2 - escapes) as u64);
    }
    // `string_at` checked that it decodes, with the same walk.
    let (token, len) = reencode(raw).unwrap_or_default();
    (Cow::Owned(token), len)
}

/// The token serde writes for the string token `raw`, made in one pass instead of a decode and
/// an encode (files written by Python hold every non-ASCII character as `\u` escapes), and
/// the UTF-8 length of the decoded string. See [`reencode_into`].
fn reencode(raw: &str) -> Option<(String, u64)> {
    let mut out = String::with_capacity(raw.len());
    let len = reencode_into(raw, Some(&mut out))?;
    Some((out, len))
}

/// Walks the escapes of a token [`scan_string`] accepted, as serde decodes them: `\uXXXX`
/// becomes the character, or serde's own escape for a quote, a backslash or a control
/// character; `\/` becomes `/`; everything else is copied. The token goes to `out` when there
/// is one; without, this only checks that serde would decode it. `None` where it would not:
/// a `\u` without four hex digits, a lone surrogate.
fn reencode_into(raw: &str, mut out: Option<&mut String>) -> Option<u64> {
    let mut rest = raw.get(1..raw.len().checked_sub(1)?)?;
    let mut push = |s: &str| {
        if let Some(o) = out.as_deref_mut() {
            o.push_str(s);
        }
    };
    let mut len = 0u64;
    push("\"");
    let hex = |s: Option<&str>| {
        s.filter(|s| s.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|s| u32::from_str_radix(s, 16).ok())
    };
    while let Some(i) = memchr::memchr(b'\\', rest.as_bytes()) {
        push(&rest[..i]);
        len += i as u64;
        let (c, used) = match rest.as_bytes().get(i + 1)? {
            b'u' => {
                let hi = hex(rest.get(i + 2..i + 6))?;
                if (0xD800..0xDC00).contains(&hi) {
                    if rest.get(i + 6..i + 8)? != "\\u" {
                        return None;
                    }
                    let lo = hex(rest.get(i + 8..i + 12)).filter(|lo| (0xDC00..0xE000).contains(lo))?;
                    (char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?, 12)
                } else {
                    (char::from_u32(hi)?, 6)
                }
            }
            b'/' => ('/', 2),
            _ => {
                // An escape serde writes the same way.
                push(rest.get(i..i + 2)?);
                len += 1;
                rest = &rest[i + 2..];
                continue;
            }
        };
        match c {
            '"' => push("\\\""),
            '\\' => push("\\\\"),
            '\u{8}' => push("\\b"),
            '\u{c}' => push("\\f"),
            '\n' => push("\\n"),
            '\r' => push("\\r"),
            '\t' => push("\\t"),
            c if u32::from(c) < 0x20 => push(&format!("\\u{:04x}", u32::from(c))),
            c => push(c.encode_utf8(&mut [0u8; 4])),
        }
        len += c.len_utf8() as u64;
        rest = &rest[i + used..];
    }
    push(rest);
    len += rest.len() as u64;
    push("\"");
    Some(len)
}

/// The end (just past the closing quote) of the JSON string token at `p`, and how many escapes
/// it has when serde would write it back unchanged (`None` when it holds `\u` or `\/`); `None`
/// for what is not a valid string token (a control character, an unknown escape, no end).
/// UTF-8 is checked once for the whole document, not here. Messages are mostly long strings,
/// so this one pass replaces serde's scan, its UTF-8 check and a search for escapes.
fn scan_string(b: &[u8], p: usize) -> Option<(usize, Option<usize>)> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let (mut i, mut escapes, mut plain) = (p + 1, 0usize, true);
    loop {
        // Eight bytes at a time, to the first quote, backslash or control character. The
        // "has a zero byte" test can flag bytes above a flagged one, never below: the lowest
        // flag is exact.
        while let Some(w) = b.get(i..i + 8) {
            let x = u64::from_le_bytes(w.try_into().unwrap_or_default());
            let quote = x ^ (ONES * u64::from(b'"'));
            let slash = x ^ (ONES * u64::from(b'\\'));
            let found = (quote.wrapping_sub(ONES) & !quote)
                | (slash.wrapping_sub(ONES) & !slash)
                | (x.wrapping_sub(ONES * 0x20) & !x);
            let found = found & HIGH;
            if found != 0 {
                i += (found.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        match *b.get(i)? {
            b'"' => return Some((i + 1, plain.then_some(escapes))),
            b'\\' => {
                match *b.get(i + 1)? {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'/' | b'u' => plain = false,
                    _ => return None,
                }
                escapes += 1;
                i += 2;
            }
            0..0x20 => return None,
            _ => i += 1,
        }
    }
}

/// A string value at `p`: scanned by [`scan_string`]; one with `\u` escapes must also decode
/// (a lone surrogate does not, and the general path rejects the file), which
/// [`reencode_into`] checks without building the string.
fn string_at(text: &str, p: usize) -> Option<(Str<'_>, usize)> {
    let (end, plain_escapes) = scan_string(text.as_bytes(), p)?;
    let raw = text.get(p..end)?;
    if plain_escapes.is_none() {
        reencode_into(raw, None)?;
    }
    Some((Str { raw, plain_escapes }, end))
}

/// Walks the members of the object at `p`: `value` gets each key and the offset of its value,
/// and returns the offset just past that value. Gives the offset just past the object; `None`
/// where the bytes are not an object or `value` declines.
fn object_at<'a>(
    text: &'a str,
    p: usize,
    mut value: impl FnMut(Cow<'a, str>, usize) -> Option<usize>,
) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(p) != Some(&b'{') {
        return None;
    }
    let mut p = skip_ws(b, p + 1);
    if b.get(p) == Some(&b'}') {
        return Some(p + 1);
    }
    loop {
        let (k, end) = string_at(text, p)?;
        let key = if k.plain_escapes == Some(0) {
            Cow::Borrowed(&k.raw[1..k.raw.len() - 1])
        } else {
            Cow::Owned(serde_json::from_str::<String>(k.raw).ok()?)
        };
        p = skip_ws(b, end);
        if b.get(p) != Some(&b':') {
            return None;
        }
        p = skip_ws(b, value(key, skip_ws(b, p + 1))?);
        match b.get(p)? {
            b',' => p = skip_ws(b, p + 1),
            b'}' => return Some(p + 1),
            _ => return None,
        }
    }
}

/// The v1 message object at `p`, and the offset just past it. The keys and string values are
/// read here; other values go through serde. `None` declines, as the serde reader of a call
/// does: a repeated key, a value of another type, a tool message without `tool_call_id`.
fn message_at(text: &str, p: usize) -> Option<(Message<'_>, usize)> {
    let b = text.as_bytes();
    let (mut role, mut content, mut thinking, mut tool_call_id, mut ts) = (None, None, None, None, None);
    let (mut tool_calls, mut extra) = (Vec::new(), Vec::new());
    let mut seen: Vec<Cow<'_, str>> = Vec::new();
    let end = object_at(text, p, |key, p| {
        if seen.contains(&key) {
            return None;
        }
        let end = match key.as_ref() {
            "role" | "content" | "thinking" | "tool_call_id" => {
                let (v, end) = string_at(text, p)?;
                *match key.as_ref() {
                    "role" => &mut role,
                    "content" => &mut content,
                    "thinking" => &mut thinking,
                    _ => &mut tool_call_id,
                } = Some(v);
                end
            }
            "ts" => {
                let (v, end) = value_at::<i64>(b, p)?;
                // A time no timestamp can say: the serde reader names it.
                if !crate::agents::cctool::schema::ts_writable(v) {
                    return None;
                }
                ts = Some(v);
                end
            }
            "tool_calls" => {
                let (v, end) = value_at::<&RawValue>(b, p)?;
                tool_calls = serde_json::from_str::<CallList<'_>>(v.get()).ok()?.0;
                end
            }
            other => {
                let (v, end) = value_at::<&RawValue>(b, p)?;
                extra.push(extra_field::<serde_json::Error>(other, v, &["items", "id", "timestamp"]).ok()?);
                end
            }
        };
        seen.push(key);
        Some(end)
    })?;
    let role = role?;
    if token(role) == "\"tool\"" && tool_call_id.is_none() {
        return None;
    }
    let m = Message {
        role,
        content,
        thinking,
        tool_call_id,
        ts,
        tool_calls,
        extra,
    };
    Some((m, end))
}

struct CallList<'a>(Vec<Call<'a>>);

impl<'de> Deserialize<'de> for CallList<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CallList<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tool calls")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<CallList<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(c) = a.next_element::<CallMap<'de>>()? {
                    out.push(c.0);
                }
                Ok(CallList(out))
            }
        }
        d.deserialize_seq(V)
    }
}

struct CallMap<'a>(Call<'a>);

impl<'de> Deserialize<'de> for CallMap<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CallMap<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool call")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<CallMap<'de>, A::Error> {
                let (mut id, mut name, mut arguments, mut extra) = (None, None, None, Vec::new());
                for (k, v) in entries(a)? {
                    match k.as_ref() {
                        "id" => id = Some(string_field(v)?),
                        "name" => name = Some(string_field(v)?),
                        "arguments" => arguments = Some(string_field(v)?),
                        key => extra.push(extra_field(key, v, &["type", "args"])?),
                    }
                }
                Ok(CallMap(Call {
                    id: id.ok_or_else(decline)?,
                    name: name.ok_or_else(decline)?,
                    arguments: arguments.ok_or_else(decline)?,
                    extra,
                }))
            }
        }
        d.deserialize_map(V)
    }
}

/// Source bytes per parse part and per render batch: large enough that a part costs far more
/// than its scheduling, small enough that both cores stay busy and a render window stays small.
const PART: usize = 2 << 20;

fn skip_ws(b: &[u8], mut p: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = b.get(p) {
        p += 1;
    }
    p
}

/// The JSON value at `p` (after any whitespace), and the offset just past it.
fn value_at<'a, T: Deserialize<'a>>(b: &'a [u8], p: usize) -> Option<(T, usize)> {
    let mut it = serde_json::Deserializer::from_slice(b.get(p..)?).into_iter::<T>();
    let v = it.next()?.ok()?;
    Some((v, p + it.byte_offset()))
}

/// Where a run of array elements stopped: at the first element at or after the limit, or
/// just past the closing `]`.
#[derive(Clone, Copy)]
enum Stop {
    Next(usize),
    End(usize),
}

/// Messages from the element at `p` on, until one starts at or after `limit` or the array
/// closes; `None` where the bytes are not such elements.
fn messages_from(text: &str, mut p: usize, limit: usize) -> Option<(Vec<Message<'_>>, Stop)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    loop {
        let (m, end) = message_at(text, p)?;
        out.push(m);
        p = skip_ws(b, end);
        match b.get(p)? {
            b',' => {
                p = skip_ws(b, p + 1);
                if p >= limit {
                    return Some((out, Stop::Next(p)));
                }
            }
            b']' => return Some((out, Stop::End(p + 1))),
            _ => return None,
        }
    }
}

/// The first `{` at or after `from` that looks like the start of an array element: after a
/// `,` that follows a `}`. Only a guess (a string can hold `},{`): the stitching checks it.
fn element_start_after(b: &[u8], from: usize) -> Option<usize> {
    let mut q = from;
    while let Some(i) = memchr::memchr(b'{', b.get(q..)?) {
        let at = q + i;
        let before = b[..at].trim_ascii_end();
        if let Some(rest) = before.strip_suffix(b",")
            && rest.trim_ascii_end().ends_with(b"}")
        {
            return Some(at);
        }
        q = at + 1;
    }
    None
}

/// The `messages` array whose first element is at `first`, read in parts on all cores, and the
/// offset just past its `]`. Each part after the first starts at a guessed element start; a
/// part is used only when the part before it ended exactly there. Parsing is deterministic, so
/// a part that starts where an element really starts reads what a sequential parse would; a
/// wrong guess is read again sequentially from where the previous part really ended.
fn messages_parallel<'a, T: Send>(
    text: &'a str,
    first: usize,
    part: usize,
    keep: impl Fn(usize, Vec<Message<'a>>, Stop) -> T + Sync,
) -> Option<(Vec<T>, usize)> {
    let b = text.as_bytes();
    let n = ((b.len() - first) / part.max(1)).max(1);
    let mut starts = vec![first];
    for k in 1..n {
        let target = first + k * ((b.len() - first) / n);
        match element_start_after(b, target.max(starts[starts.len() - 1] + 1)) {
            Some(s) => starts.push(s),
            None => break,
        }
    }
    let limit = |i: usize| starts.get(i).copied().unwrap_or(usize::MAX);
    let read = |at: usize, limit: usize| messages_from(text, at, limit).map(|(m, stop)| (keep(at, m, stop), stop));
    let mut parts: Vec<Option<(T, Stop)>> = {
        use rayon::prelude::*;
        (0..starts.len())
            .into_par_iter()
            .map(|i| read(starts[i], limit(i + 1)))
            .collect()
    };
    let mut out = Vec::new();
    let (mut at, mut i) = (first, 0);
    loop {
        let (msgs, stop) = match parts.get_mut(i).and_then(Option::take) {
            Some(r) if starts[i] == at => r,
            _ => read(at, limit(i + 1))?,
        };
        out.push(msgs);
        match stop {
            Stop::End(end) => return Some((out, end)),
            Stop::Next(p) => (at, i) = (p, i + 1),
        }
    }
}

/// Reads a v1 or v2 document for the fast path, or `None` to leave it to the general path.
/// The top level is read key by key, so the `messages` array can be split across the cores.
pub fn read(bytes: &[u8]) -> Option<Doc<'_>> {
    read_with(bytes, PART, bytes.len() >= SPANS_FROM, None)
}

/// [`read`], telling `release` which bytes of a large file are done with, once when they have
/// been read and again when they have been written: a memory-mapped file's pages can leave
/// the resident set behind the reader, as they do for the other commands.
pub fn read_releasing<'a>(bytes: &'a [u8], release: &'a (dyn Fn(u64, u64) + Sync)) -> Option<Doc<'a>> {
    read_with(bytes, PART, bytes.len() >= SPANS_FROM, Some(release))
}

/// `b` as text when it is UTF-8, checked with SIMD a chunk at a time, each chunk's pages then
/// released (`base` is where `b` starts in the bytes read): a check of the whole at once would
/// have every page of a large mapped file resident together before any part is read.
fn checked_text<'a>(b: &'a [u8], base: u64, release: Release<'_>) -> Option<&'a str> {
    checked_text_in(b, base, release, 64 << 20)
}

/// [`checked_text`] in chunks of about `chunk` bytes (at least 4).
#[allow(unsafe_code)]
fn checked_text_in<'a>(b: &'a [u8], base: u64, release: Release<'_>, chunk: usize) -> Option<&'a str> {
    let mut at = 0;
    while at < b.len() {
        let mut end = (at + chunk.max(4)).min(b.len());
        // End before a byte that starts a character: at most three bytes back in UTF-8.
        for _ in 0..3 {
            if end < b.len() && b[end] & 0xC0 == 0x80 {
                end -= 1;
            }
        }
        if end < b.len() && b[end] & 0xC0 == 0x80 {
            return None;
        }
        simdutf8::basic::from_utf8(&b[at..end]).ok()?;
        if let Some(release) = release {
            release(base + at as u64, (end - at) as u64);
        }
        at = end;
    }
    // SAFETY: every byte of `b` was checked just above, in chunks that each end before a byte
    // that starts a character (or at the end); pieces of valid UTF-8 joined are valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(b) })
}

/// Tells `release` that a part's bytes, from `start` to where it stopped, are done with;
/// `base` is where `text` starts in the file (after a byte-order mark, when there is one).
fn release_part(release: &(dyn Fn(u64, u64) + Sync), base: usize, start: usize, stop: Stop) {
    let end = match stop {
        Stop::Next(p) | Stop::End(p) => p,
    };
    release((base + start) as u64, (end - start) as u64);
}

/// [`read`] with the `messages` array split in parts of about `part` bytes, held or only
/// spanned (see [`Messages`]); tests make parts tiny, so that every element boundary, and
/// every wrong guess of one, is exercised.
#[doc(hidden)]
pub fn read_in_parts(bytes: &[u8], part: usize, spans: bool) -> Option<Doc<'_>> {
    read_with(bytes, part, spans, None)
}

fn read_with<'a>(bytes: &'a [u8], part: usize, spans: bool, release: Release<'a>) -> Option<Doc<'a>> {
    let unmarked = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = checked_text(
        unmarked,
        (bytes.len() - unmarked.len()) as u64,
        release.filter(|_| spans),
    )?;
    let body = text.as_bytes();
    let mut fields: Vec<(String, &RawValue)> = Vec::new();
    let mut messages = None;
    let end = object_at(text, skip_ws(body, 0), |key, p| {
        if fields.iter().any(|(x, _)| *x == key) || (key == "messages" && messages.is_some()) {
            return None;
        }
        if key == "messages" {
            if body.get(p) != Some(&b'[') {
                return None;
            }
            let first = skip_ws(body, p + 1);
            let (parts, end) = if body.get(first) == Some(&b']') {
                (Messages::Held(Vec::new()), first + 1)
            } else if spans {
                let base = bytes.len() - text.len();
                let span = |start, msgs: Vec<Message<'_>>, stop| {
                    if let Some(release) = release {
                        release_part(release, base, start, stop);
                    }
                    Span {
                        start,
                        limit: match stop {
                            Stop::Next(p) => p,
                            Stop::End(_) => usize::MAX,
                        },
                        count: msgs.len(),
                        min_ts: msgs.iter().filter_map(|m| m.ts).min(),
                    }
                };
                let (parts, end) = messages_parallel(text, first, part, span)?;
                let spans = Messages::Spans {
                    text,
                    parts,
                    release,
                    base,
                };
                (spans, end)
            } else {
                let (parts, end) = messages_parallel(text, first, part, |_, msgs, _| msgs)?;
                (Messages::Held(parts), end)
            };
            messages = Some(parts);
            Some(end)
        } else {
            let (v, end) = value_at::<&RawValue>(body, p)?;
            fields.push((key.into_owned(), v));
            Some(end)
        }
    })?;
    // Only whitespace may follow the document, as for serde's `end()`.
    if skip_ws(body, end) != body.len() {
        return None;
    }
    let get = |k: &str| fields.iter().find(|(x, _)| x == k).map(|(_, v)| *v);
    // The same version rule as the general path: `schema_version`, else `version`.
    let version: u32 = match (get("schema_version"), get("version")) {
        (Some(v), _) => serde_json::from_str(v.get()).ok()?,
        (None, Some(v)) => serde_json::from_str(v.get()).ok()?,
        _ => return None,
    };
    let (id_key, keep): (&str, &[&str]) = match version {
        1 => ("id", &["version", "schema_version", "id"]),
        2 => ("session_id", &["version", "schema_version", "session_id", "created_at"]),
        _ => return None,
    };
    let created_at = match get("created_at").filter(|_| version == 2) {
        Some(c) => Some(string_field::<serde_json::Error>(c).ok()?),
        None => None,
    };
    let id = get(id_key);
    if !id.is_none_or(decodable) {
        return None;
    }
    let mut extra = Vec::new();
    for (k, v) in fields {
        if !keep.contains(&k.as_str()) {
            extra.push(extra_field::<serde_json::Error>(&k, v, &["schema_version", "session_id", "created_at"]).ok()?);
        }
    }
    Some(Doc {
        version,
        id,
        created_at,
        messages: messages?,
        extra,
    })
}

impl Doc<'_> {
    pub fn version(&self) -> u32 {
        self.version
    }
}

/// Writes an object's key and value at `depth`; the value is a token or, for structured
/// values, re-printed the way serde's pretty printer does at that depth.
fn field(
    w: &mut dyn Write,
    depth: usize,
    first: &mut bool,
    key: &str,
    value: &str,
    structured: bool,
) -> io::Result<()> {
    if !std::mem::replace(first, false) {
        w.write_all(b",\n")?;
    }
    indent(w, depth)?;
    serde_json::to_writer(&mut *w, key)?;
    w.write_all(b": ")?;
    if structured {
        let v: Value = serde_json::from_str(value).map_err(io::Error::other)?;
        write_pretty(w, depth, &v)
    } else {
        w.write_all(value.as_bytes())
    }
}

/// Whether a token must go through serde to be written as the general path writes it:
/// everything but plain strings, literals and integers.
fn is_structured(v: &RawValue) -> bool {
    let s = v.get();
    if s.starts_with('"') {
        return !plain_string(v);
    }
    // An integer serde holds as i64 or u64 is written back as is; a larger one becomes a float.
    !(matches!(s, "true" | "false" | "null")
        || s.parse::<i64>().is_ok_and(|n| n.to_string() == s)
        || s.parse::<u64>().is_ok_and(|n| n.to_string() == s))
}

/// Writes the v5 document of `doc` in serde_json's pretty layout.
pub fn write_v5(doc: &Doc<'_>, w: &mut dyn Write) -> io::Result<()> {
    w.write_all(b"{\n")?;
    let mut first = true;
    field(w, 1, &mut first, "schema_version", "5", false)?;
    let id = doc.id.map_or("null", RawValue::get);
    field(w, 1, &mut first, "session_id", id, doc.id.is_some_and(is_structured))?;
    let created = match (doc.version, doc.created_at) {
        (1, _) => doc.messages.min_ts().map(|ts| format!("\"{}\"", rfc3339_seconds(ts))),
        (_, Some(c)) => Some(token(c).into_owned()),
        _ => None,
    };
    field(
        w,
        1,
        &mut first,
        "created_at",
        created.as_deref().unwrap_or("null"),
        false,
    )?;
    if !std::mem::replace(&mut first, false) {
        w.write_all(b",\n")?;
    }
    indent(w, 1)?;
    if doc.messages.is_empty() {
        w.write_all(b"\"messages\": []")?;
    } else {
        w.write_all(b"\"messages\": [\n")?;
        write_messages(&doc.messages, w)?;
        w.write_all(b"\n")?;
        indent(w, 1)?;
        w.write_all(b"]")?;
    }
    for (k, v) in &doc.extra {
        field(w, 1, &mut first, k, v.get(), is_structured(v))?;
    }
    w.write_all(b"\n}\n")
}

/// The messages, rendered a window of parts at a time on all cores while this thread writes
/// the window before: output order and bytes are those of a sequential render, and memory
/// holds two windows, not the document.
fn write_messages(parts: &Messages<'_>, w: &mut dyn Write) -> io::Result<()> {
    use rayon::prelude::*;
    // The id of each part's first message.
    let firsts: Vec<u64> = (0..parts.parts())
        .scan(1u64, |next, i| {
            let id = *next;
            *next += parts.count(i) as u64;
            Some(id)
        })
        .collect();
    let render = |i: usize, mut buf: Vec<u8>| -> io::Result<Vec<u8>> {
        buf.clear();
        parts.with_part(i, |msgs| -> io::Result<()> {
            for (k, m) in msgs.iter().enumerate() {
                let id = firsts[i] + k as u64;
                if id > 1 {
                    buf.extend_from_slice(b",\n");
                }
                message(&mut buf, m, id)?;
            }
            Ok(())
        })??;
        Ok(buf)
    };
    let window = 2 * rayon::current_num_threads();
    // A window of parts rendered on all cores, into buffers already written once when there
    // are some (their pages are mapped).
    let render_window = |lo: usize, mut spare: Vec<Vec<u8>>| -> io::Result<Vec<Vec<u8>>> {
        let hi = (lo + window).min(parts.parts());
        spare.resize_with(hi - lo, Vec::new);
        (lo..hi)
            .into_par_iter()
            .zip(spare)
            .map(|(i, buf)| render(i, buf))
            .collect()
    };
    if rayon::current_thread_index().is_some() {
        in_pool(parts.parts(), window, &render_window, w)
    } else {
        streamed(parts.parts(), window, &render_window, w)
    }
}

/// The windows rendered by a job of the pool while this pool thread (one of many files at
/// once) writes the window before. Never a thread of its own: a pool thread that blocked on
/// such a thread while it waited for the pool would deadlock once every pool thread did the
/// same (one core, or two large files on two).
fn in_pool(
    parts: usize,
    window: usize,
    render_window: &(impl Fn(usize, Vec<Vec<u8>>) -> io::Result<Vec<Vec<u8>>> + Sync),
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut current = render_window(0, Vec::new())?;
    let mut spare = Vec::new();
    let mut lo = 0;
    loop {
        lo += window;
        let mut next = None;
        rayon::in_place_scope(|scope| -> io::Result<()> {
            if lo < parts {
                let (bufs, slot) = (std::mem::take(&mut spare), &mut next);
                scope.spawn(move |_| *slot = Some(render_window(lo, bufs)));
            }
            current.iter().try_for_each(|buf| w.write_all(buf))
        })?;
        spare = std::mem::take(&mut current);
        match next {
            Some(rendered) => current = rendered?,
            None => return Ok(()),
        }
    }
}

/// From outside the pool (one file): a thread of its own asks the pool for window after window
/// while this thread writes, up to two windows ahead. Writing and rendering each go at their
/// own pace, which measured faster than taking turns window by window.
fn streamed(
    parts: usize,
    window: usize,
    render_window: &(impl Fn(usize, Vec<Vec<u8>>) -> io::Result<Vec<Vec<u8>>> + Sync),
    w: &mut dyn Write,
) -> io::Result<()> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<Vec<u8>>>>(1);
        let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
        scope.spawn(move || {
            for lo in (0..parts).step_by(window) {
                // A closed channel: the writer failed and has its error.
                if tx.send(render_window(lo, spare_rx.try_iter().collect())).is_err() {
                    return;
                }
            }
        });
        for bufs in rx {
            for buf in bufs? {
                w.write_all(&buf)?;
                let _ = spare_tx.send(buf);
            }
        }
        Ok(())
    })
}

fn open_key(buf: &mut Vec<u8>, depth: usize, first: &mut bool, key: &[u8]) {
    if !std::mem::replace(first, false) {
        buf.extend_from_slice(b",\n");
    }
    buf.resize(buf.len() + 2 * depth, b' ');
    buf.push(b'"');
    buf.extend_from_slice(key);
    buf.extend_from_slice(b"\": ");
}

/// Starts the next element of the `items` array (depth 3) and opens it.
fn open_item(buf: &mut Vec<u8>, count: &mut usize) {
    buf.extend_from_slice(if *count == 0 { b"[\n" } else { b",\n" });
    *count += 1;
    buf.extend_from_slice(b"        {\n");
}

fn close_item(buf: &mut Vec<u8>) {
    buf.extend_from_slice(b"\n        }");
}

/// An item whose values are all tokens written as they are.
fn item(buf: &mut Vec<u8>, count: &mut usize, fields: &[(&[u8], &[u8])]) {
    open_item(buf, count);
    let mut first = true;
    for (key, value) in fields {
        open_key(buf, 5, &mut first, key);
        buf.extend_from_slice(value);
    }
    close_item(buf);
}

/// One v5 message at depth 2: its items in the v2 → v3 order (reasoning, text or tool result,
/// tool calls), then the id and timestamp the later steps add. Values are the file's own
/// tokens, borrowed: a tool output is copied once, into the buffer.
fn message(buf: &mut Vec<u8>, m: &Message<'_>, id: u64) -> io::Result<()> {
    buf.extend_from_slice(b"    {\n");
    let mut first = true;
    let role = token(m.role);
    open_key(buf, 3, &mut first, b"role");
    buf.extend_from_slice(role.as_bytes());
    if let Some(t) = m.tool_call_id {
        open_key(buf, 3, &mut first, b"tool_call_id");
        buf.extend_from_slice(token(t).as_bytes());
    }
    open_key(buf, 3, &mut first, b"items");
    let mut items = 0;
    if let Some(t) = m.thinking.filter(|t| t.raw != "\"\"") {
        item(
            buf,
            &mut items,
            &[(b"type", b"\"reasoning\""), (b"text", token(t).as_bytes())],
        );
    }
    if role == "\"tool\"" {
        let (content, size) = m.content.map_or((Cow::Borrowed("\"\""), 0), token_and_len);
        let size = size.to_string();
        let fields: [(&[u8], &[u8]); 3] = [
            (b"type", b"\"tool_result\""),
            (b"content", content.as_bytes()),
            (b"original_size", size.as_bytes()),
        ];
        item(buf, &mut items, &fields);
    } else if let Some(content) = m.content.map(token).filter(|c| c != "\"\"") {
        item(
            buf,
            &mut items,
            &[(b"type", b"\"text\""), (b"text", content.as_bytes())],
        );
    }
    for c in &m.tool_calls {
        open_item(buf, &mut items);
        let mut f = true;
        open_key(buf, 5, &mut f, b"type");
        buf.extend_from_slice(b"\"tool_call\"");
        open_key(buf, 5, &mut f, b"id");
        buf.extend_from_slice(token(c.id).as_bytes());
        open_key(buf, 5, &mut f, b"name");
        buf.extend_from_slice(token(c.name).as_bytes());
        open_key(buf, 5, &mut f, b"args");
        let text: String = serde_json::from_str(c.arguments.raw).unwrap_or_default();
        write_pretty(buf, 5, &parse_arguments(&text))?;
        for (k, v) in &c.extra {
            field(buf, 5, &mut f, k, v.get(), is_structured(v))?;
        }
        close_item(buf);
    }
    buf.extend_from_slice(if items == 0 { b"[]" } else { b"\n      ]" });
    open_key(buf, 3, &mut first, b"id");
    write!(buf, "{id}")?;
    if let Some(ts) = m.ts {
        open_key(buf, 3, &mut first, b"timestamp");
        match crate::model::time::seconds_text(ts) {
            Some(text) => {
                buf.push(b'"');
                buf.extend_from_slice(&text);
                buf.push(b'"');
            }
            None => serde_json::to_writer(&mut *buf, &rfc3339_seconds(ts))?,
        }
    }
    for (k, v) in &m.extra {
        field(buf, 3, &mut first, k, v.get(), is_structured(v))?;
    }
    buf.extend_from_slice(b"\n    }");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_checked_in_chunks_is_text_checked_whole() {
        let samples: Vec<Vec<u8>> = vec![
            "héllo wörld — ✓ 𝄞 done".into(),
            "𝄞𝄞𝄞𝄞𝄞𝄞".into(),
            b"ascii only, long enough to need a few chunks".to_vec(),
            b"bad \xC3 then ascii".to_vec(),
            b"cut \xF0\x9D\x84".to_vec(),
            b"\x80\x80\x80\x80\x80 stray continuations".to_vec(),
            b"overlong \xC0\xAF".to_vec(),
            Vec::new(),
        ];
        for b in &samples {
            for chunk in 1..12 {
                let released = std::sync::Mutex::new(0u64);
                let release = |_, n| *released.lock().unwrap() += n;
                let got = checked_text_in(b, 0, Some(&release), chunk);
                assert_eq!(got, std::str::from_utf8(b).ok(), "{b:?} in chunks of {chunk}");
                if got.is_some() {
                    assert_eq!(*released.lock().unwrap(), b.len() as u64);
                }
            }
        }
    }
    use proptest::prelude::*;

    proptest! {
        /// Every character written as a `\u` escape (surrogate pairs above the BMP) comes back
        /// as the token serde writes for the string.
        #[test]
        fn reencode_writes_what_serde_writes(text in "(?s).{0,40}") {
            let mut raw = String::from("\"");
            for c in text.chars() {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    raw.push_str(&format!("\\u{u:04X}"));
                }
            }
            raw.push('"');
            let (s, _) = string_at(&raw, 0).unwrap();
            prop_assert_eq!(token_and_len(s), (Cow::Owned(serde_json::to_string(&text).unwrap()), text.len() as u64));
        }

        /// The one-pass string scanner accepts exactly the string tokens serde accepts, ends
        /// them where serde does, and counts escapes right (the decoded length follows).
        #[test]
        fn scan_string_agrees_with_serde(body in "[a\"\\\\u/nt0-9A-Fé\u{1}\u{1f}\u{7f}]{0,80}", rest in "[ ,}\"]{0,3}") {
            let text = format!("\"{body}{rest}");
            let mut it = serde_json::Deserializer::from_str(&text).into_iter::<String>();
            let serde = it.next().and_then(Result::ok).map(|v| (v, it.byte_offset()));
            let ours = string_at(&text, 0);
            prop_assert_eq!(ours.is_some(), serde.is_some(), "{:?}", text);
            if let (Some((s, end)), Some((v, off))) = (ours, serde) {
                prop_assert_eq!(end, off);
                prop_assert_eq!(token_and_len(s).1, v.len() as u64);
                // Exactly the token serde writes for the decoded string.
                prop_assert_eq!(token(s).into_owned(), serde_json::to_string(&v).unwrap());
            }
        }
    }

    #[test]
    fn takes_a_plain_v1_file() {
        let doc = br#"{"version":1,"id":"s","messages":[{"role":"user","content":"hi","ts":5}]}"#;
        assert!(read(doc).is_some());
        // An escaped backslash before a `u` is not a \u escape.
        assert!(read(br#"{"version":1,"id":"s","messages":[{"role":"user","content":"a\\u"}]}"#).is_some());
        let doc =
            read(br#"{"version":1,"id":"s","messages":[{"role":"tool","tool_call_id":"c","content":"caf\u00e9\/"}]}"#)
                .unwrap();
        let mut out = Vec::new();
        write_v5(&doc, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(r#""content": "café/""#) && text.contains(r#""original_size": 6"#),
            "{text}"
        );
    }
}
