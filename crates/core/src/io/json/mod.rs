//! Lenient per-line JSON: parse what can be parsed, name what cannot.
//!
//! Agents skip lines they cannot parse and go on, and so does cctool, but it says which line
//! and why: a truncated tail (still being written), two records glued on one line, invalid
//! UTF-8, nesting too deep. Lone UTF-16 surrogate escapes (`"\ud83d"` without its pair) are
//! valid for JavaScript's `JSON.parse`, so Claude Code keeps such lines; serde_json rejects
//! them, so they are repaired to U+FFFD in a private copy before parsing and reported.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::model::diag::{Code, Severity};

mod capped;
mod checked;
mod counted;
mod kept;
mod lenient;
mod raw;
mod value_len;

pub use capped::*;
pub use checked::*;
pub use counted::{Budget, Counted};
pub use kept::*;
pub use lenient::*;
pub use raw::{RAW_VALUE_TOKEN, RawChecked, RawLen, RawStr, Uncovered, measure};
pub use value_len::{escaped_len, value_len};

/// The length of `v` written as compact JSON, counted as it is written rather than built: what
/// the estimates of a request's tokens need, without a string per message.
pub fn json_len<T: serde::Serialize + ?Sized>(v: &T) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Counter(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// Why a line could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// Which problem, as the diagnostic reports it.
    pub code: Code,
    /// How serious: a line still being written weighs less than a corrupt one.
    pub severity: Severity,
    /// One sentence for people, without the file or the line number (the caller adds them).
    pub message: String,
}

/// Parses `bytes` as `T` and hands it to `f`, with the bytes it was parsed from. On a
/// lone-surrogate failure the line is repaired and parsed again; the flag in the result says
/// so. The repair keeps every byte's position (see [`repair_surrogates`]), so a position
/// taken in the bytes `f` is given is one in `bytes` too — but only relative to the slice
/// `f` is given, never to `bytes` itself.
pub fn with_parsed_borrowed<T, R>(
    bytes: &[u8],
    terminated: bool,
    f: impl for<'x> FnOnce(T::Out<'x>, &'x [u8]) -> R,
) -> Result<(R, bool), BadLine>
where
    T: BorrowedParse,
{
    match serde_json::from_slice::<T::Out<'_>>(bytes) {
        Ok(v) => Ok((f(v, bytes), false)),
        Err(e) => {
            if is_surrogate_error(&e)
                && let Some(fixed) = repair_surrogates(bytes)
                && let Ok(v) = serde_json::from_slice::<T::Out<'_>>(&fixed)
            {
                return Ok((f(v, &fixed), true));
            }
            Err(classify(bytes, terminated, &e))
        }
    }
}

/// A family of borrowing types, so [`with_parsed_borrowed`] can name `T<'x>` for any `'x`.
pub trait BorrowedParse {
    /// The type parsed, borrowing from bytes that live for `'x`.
    type Out<'x>: Deserialize<'x>;
}

fn is_surrogate_error(e: &serde_json::Error) -> bool {
    let m = e.to_string();
    // A lone high surrogate followed by other text reads as "unexpected end of hex escape".
    m.contains("surrogate") || m.contains("invalid unicode code point") || m.contains("end of hex escape")
}

/// Explains a parse failure in the words a user needs.
pub fn classify(bytes: &[u8], terminated: bool, e: &serde_json::Error) -> BadLine {
    use serde_json::error::Category;
    let msg = e.to_string();
    if let Err(u) = std::str::from_utf8(bytes) {
        return BadLine {
            code: Code::InvalidUtf8,
            severity: Severity::Error,
            message: format!("invalid UTF-8 at byte {} of the line; line skipped", u.valid_up_to()),
        };
    }
    if msg.contains("recursion limit") {
        return BadLine {
            code: Code::TooDeep,
            severity: Severity::Error,
            message: "JSON nested deeper than 128 levels; line skipped".into(),
        };
    }
    if e.classify() == Category::Eof {
        if !terminated {
            return BadLine {
                code: Code::TruncatedLastLine,
                severity: Severity::Warning,
                message: format!(
                    "last line is incomplete ({} bytes, no newline): possibly still being written; ignored",
                    bytes.len()
                ),
            };
        }
        return BadLine {
            code: Code::InvalidJson,
            severity: Severity::Error,
            message: format!("record ends early ({msg}); line skipped"),
        };
    }
    if msg.starts_with("trailing characters") {
        let at = e.column().saturating_sub(1).min(bytes.len());
        let rest = bytes[at..].trim_ascii_start();
        if rest.starts_with(b"{") {
            return BadLine {
                code: Code::TwoRecordsOnOneLine,
                severity: Severity::Error,
                message: format!(
                    "two records on one line (the second starts at byte {at}); the agent loses both, so both are skipped"
                ),
            };
        }
    }
    if e.classify() == Category::Data {
        let first = bytes.trim_ascii_start().first().copied();
        if first != Some(b'{') {
            return BadLine {
                code: Code::NotAnObject,
                severity: Severity::Error,
                message: "line is JSON but not an object; line skipped".into(),
            };
        }
    }
    BadLine {
        code: Code::InvalidJson,
        severity: Severity::Error,
        message: format!("invalid JSON ({msg}); line skipped"),
    }
}

/// Replaces `\uXXXX` escapes that encode a lone surrogate with `\uFFFD`, six bytes for six, so
/// every other byte keeps its position. Returns `None` when there is nothing to repair.
pub fn repair_surrogates(bytes: &[u8]) -> Option<Vec<u8>> {
    let hex = |s: &[u8]| -> Option<u16> {
        if s.len() < 4 {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&s[..4]).ok()?, 16).ok()
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if !in_string {
            if b == b'"' {
                in_string = true;
            }
            out.push(b);
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                out.push(b);
                i += 1;
            }
            b'\\' if bytes.get(i + 1) == Some(&b'u') => {
                let Some(cp) = hex(&bytes[i + 2..]) else {
                    out.extend_from_slice(&bytes[i..i + 2]);
                    i += 2;
                    continue;
                };
                let is_high = (0xD800..0xDC00).contains(&cp);
                let is_low = (0xDC00..0xE000).contains(&cp);
                let paired = is_high
                    && bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                    && hex(&bytes[(i + 8).min(bytes.len())..]).is_some_and(|lo| (0xDC00..0xE000).contains(&lo));
                if paired {
                    out.extend_from_slice(&bytes[i..i + 12]);
                    i += 12;
                } else if is_high || is_low {
                    out.extend_from_slice(b"\\uFFFD");
                    changed = true;
                    i += 6;
                } else {
                    out.extend_from_slice(&bytes[i..i + 6]);
                    i += 6;
                }
            }
            b'\\' => {
                out.extend_from_slice(&bytes[i..(i + 2).min(bytes.len())]);
                i += 2;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

/// Removes insignificant whitespace from valid JSON text, keeping key order and every
/// string byte as written (so a pretty-printed record becomes one JSON Lines line).
pub fn minify(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    minify_into(raw, &mut out);
    out
}

/// [`minify`], appended to `out`. Strings are copied whole, their end found with a SIMD
/// search for quotes and backslashes: a byte at a time, this was most of the time `scan`
/// and `rebuild-chain` spent on pretty-printed session files.
pub fn minify_into(raw: &[u8], out: &mut Vec<u8>) {
    out.reserve(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'"' => {
                let end = string_end(raw, i + 1).unwrap_or(raw.len());
                out.extend_from_slice(&raw[i..end]);
                i = end;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// The index after the quote that closes the string whose content starts at `from` (after its
/// opening quote); None when no quote closes it. A valid string's end is found 64 bytes at a
/// time by the vendored serde_json's skip (`vendor/serde_json/PATCH.md`), which does not stop
/// at escapes: a search for the next quote or backslash stopped at each, one in every 15 to 35
/// bytes of agent text, and was half of reading a pretty-printed cctool session. Any other
/// string (a control character, an invalid escape) is searched the plain way, which takes the
/// byte after every backslash as escaped, as the skip does.
pub fn string_end(text: &[u8], from: usize) -> Option<usize> {
    match serde_json::cctool_string_end(text.get(from..)?) {
        Some(end) => Some(from + end + 1),
        None => string_end_plain(text, from),
    }
}

/// [`string_end`] by a search for each quote or backslash.
fn string_end_plain(text: &[u8], mut from: usize) -> Option<usize> {
    loop {
        match memchr::memchr2(b'"', b'\\', text.get(from..)?) {
            Some(k) if text[from + k] == b'\\' => from += k + 2,
            Some(k) => return Some(from + k + 1),
            None => return None,
        }
    }
}

/// Where the bytes of JSON text are, fed one at a time: in a string (quotes included) or not.
#[derive(Default)]
struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Whether `b` is outside every string: structure or whitespace.
    fn structural(&mut self, b: u8) -> bool {
        if self.inside {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.inside = false;
            }
            return false;
        }
        self.inside = b == b'"';
        !self.inside
    }
}

#[cfg(test)]
mod tests;
