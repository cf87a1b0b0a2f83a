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

use crate::io::json::Key;
use crate::v5::schema::{parse_arguments, rfc3339_seconds};
use crate::v5::write::{indent, write_pretty};

mod parts;
mod tokens;
mod writer;

use parts::*;
use tokens::*;
pub use writer::write_v5;

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
                    return Err(io::Error::other(ChangedWhileMigrated));
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
    /// The file's schema version.
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

/// A part of the file that no longer holds the messages counted in it when it was first read.
#[derive(Debug, thiserror::Error)]
#[error("the file changed while it was migrated; nothing was replaced, run migrate again")]
struct ChangedWhileMigrated;

#[cfg(test)]
mod tests;
