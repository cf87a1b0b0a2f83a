//! A value checked and measured from its text, as serde_json hands it over in a `RawValue`:
//! its strings found by the vendored serde_json's skip, which runs 64 bytes at a time and does
//! not stop at escapes (`vendor/serde_json/PATCH.md`), instead of decoded one escape at a time
//! into a buffer that is then dropped. Text written by coding agents escapes a byte in every 15
//! to 35, and decoding strings nobody reads was most of the fast readers' time.
//!
//! The skip checks what a `Value` needs but three things, and [`measure`] checks those on the
//! text: a `\u` escape of a UTF-16 surrogate without its pair, a number out of `f64`'s range,
//! and nesting deeper than serde_json's limit. Where it cannot be sure (a lone surrogate, a
//! number `Value` would refuse, deep nesting, an object with very many keys) it says so, and a
//! fast reader then reads the line the full way, which decides; it never accepts what `Value`
//! refuses. The length it gives is [`super::json_len`] of that `Value`: compact JSON as
//! serde_json writes it, `None` when an object names a key twice (the `Value` keeps one member).

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use serde::de::{self, Deserialize, Deserializer};
use serde_json::value::RawValue;

/// Where [`measure`] cannot vouch for a value: the full reading decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uncovered;

impl fmt::Display for Uncovered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value the fast reading leaves to the full one")
    }
}

/// Deeper than this (from the value's own start), the full reading decides: serde_json's limit
/// counts from the line's start, and the fast readers' values sit a few levels below it.
const MAX_DEPTH: usize = 100;

/// Objects with more keys than this are left to the full reading rather than checked for a
/// repeated key one by one.
const MAX_KEYS: usize = 64;

/// The key serde_json's `Value` takes for the mark of a raw value: an object whose first key
/// it is reads as the value its text holds (and is refused with another key), so the fast
/// readers leave it to the full reading.
pub const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The compact length of the `Value` the JSON `text` reads into (`None` when an object in it
/// repeats a key), or [`Uncovered`]. `text` is one value as serde_json's skip accepted it: a
/// `RawValue`'s text; of other text the answer means nothing.
pub fn measure(text: &str) -> Result<Option<usize>, Uncovered> {
    walk(text, true)
}

/// [`measure`] without the length: only whether `Value` would read `text` as the skip did.
/// Neither the `\/` escapes nor the keys (for one written twice) are then looked at.
fn check(text: &str) -> Result<(), Uncovered> {
    walk(text, false).map(|_| ())
}

/// [`measure`], the length counted only when `count`.
fn walk(text: &str, count: bool) -> Result<Option<usize>, Uncovered> {
    if text.starts_with('"') {
        // Most values measured are one string, whose end serde_json's skip has just found.
        return string_len(text, count).map(Some).ok_or(Uncovered);
    }
    let b = text.as_bytes();
    let mut len = 0usize;
    let mut repeated = false;
    // Per open container: whether it is an object, where its keys start in `keys`, and whether
    // the next string in it is a key.
    let mut open: Vec<(bool, usize, bool)> = Vec::new();
    let mut keys: Vec<Cow<'_, str>> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = super::string_end(b, i + 1).ok_or(Uncovered)?;
                let s = &text[i..end];
                len += string_len(s, count).ok_or(Uncovered)?;
                if let Some((true, from, key @ true)) = open.last_mut() {
                    *key = false;
                    let k = decoded(s)?;
                    // `Value` reads an object of this key as a raw value's text, not as a map.
                    if k == RAW_VALUE_TOKEN {
                        return Err(Uncovered);
                    }
                    if !count {
                        i = end;
                        continue;
                    }
                    if keys.len() - *from >= MAX_KEYS {
                        return Err(Uncovered);
                    }
                    repeated |= keys[*from..].contains(&k);
                    keys.push(k);
                }
                i = end;
                continue;
            }
            c @ (b'{' | b'[') => {
                open.push((c == b'{', keys.len(), c == b'{'));
                if open.len() > MAX_DEPTH {
                    return Err(Uncovered);
                }
                len += 1;
            }
            b'}' | b']' => {
                let (_, from, _) = open.pop().ok_or(Uncovered)?;
                keys.truncate(from);
                len += 1;
            }
            b',' => {
                if let Some((true, _, key)) = open.last_mut() {
                    *key = true;
                }
                len += 1;
            }
            b':' => len += 1,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b't' | b'n' | b'f' => {
                let word = [&b"true"[..], b"null", b"false"]
                    .into_iter()
                    .find(|w| b[i..].starts_with(w))
                    .ok_or(Uncovered)?;
                len += word.len();
                i += word.len();
                continue;
            }
            _ => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                    i += 1;
                }
                if i == start {
                    return Err(Uncovered);
                }
                len += number_len(&text[start..i])?;
                continue;
            }
        }
        i += 1;
    }
    if !open.is_empty() {
        return Err(Uncovered);
    }
    Ok((!repeated).then_some(len))
}

/// A number's written length as `Value` holds it. A plain integer that fits in `i64` is
/// written back as it is; any other (`-0`, a fraction, an exponent, a long one) is read as
/// `Value` reads it, which also refuses one out of range.
fn number_len(n: &str) -> Result<usize, Uncovered> {
    let digits = n.strip_prefix('-').unwrap_or(n);
    let plain = digits.len() <= 18
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" && n.len() == 1 || !digits.starts_with('0'));
    if plain {
        return Ok(n.len());
    }
    let v: serde_json::Value = serde_json::from_str(n).map_err(|_| Uncovered)?;
    if !v.is_number() {
        return Err(Uncovered);
    }
    Ok(super::json_len(&v))
}

/// The written length of the string `s` (quotes included, as in the text), or `None` when it
/// holds a `\u` escape of a surrogate without its pair. Its escapes are valid (the skip checked
/// them), and serde_json writes `\" \\ \b \f \n \r \t` back as they are: only `\/` (written
/// `/`) and `\u` escapes (as [`char_len`] says) change the length, and they are rare, so they
/// are searched for rather than every backslash, one in every few dozen bytes of agent text.
/// Without `count`, only the surrogates are checked.
fn string_len(s: &str, count: bool) -> Option<usize> {
    let body = &s.as_bytes()[1..s.len() - 1];
    let mut len = s.len();
    if count {
        len -= slashes(body);
    }
    for u in unicode_escapes(body) {
        match u? {
            Unicode::Pair => len = len - 12 + 4,
            Unicode::Lone => return None,
            Unicode::Char(c) => len = len - 6 + char_len(c),
        }
    }
    Some(len)
}

/// How many `"` and `\` the compact JSON of the value `text` holds (it as [`RawStr`] holds
/// it), each of which writing it as a string escapes. Outside its strings a value's JSON holds
/// neither, and in them an escape serde_json writes back holds as many as the text's: only a
/// `\/` (written `/`) and a `\u` (written by what the character is) change the count.
fn specials(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut n = 0usize;
    // Counters of one byte each keep the loop wide; a chunk never overflows them.
    for chunk in b.chunks(255) {
        n += usize::from(chunk.iter().fold(0u8, |n, &c| n + u8::from(c == b'"' || c == b'\\')));
    }
    n -= slashes(b);
    for u in unicode_escapes(b) {
        match u? {
            Unicode::Pair => n -= 2,
            Unicode::Lone => return None,
            Unicode::Char(0x22 | 0x5c) => n += 1,
            Unicode::Char(0x00..=0x1f) => {}
            Unicode::Char(_) => n -= 1,
        }
    }
    Some(n)
}

/// Whether an escape starts at `p` in `b` (a string's body, or a value's JSON, which holds no
/// backslash outside its strings): at a backslash after an even run of them.
fn escape_at(b: &[u8], p: usize) -> bool {
    b[..p].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 0
}

/// How many `\/` escapes `b` holds.
fn slashes(b: &[u8]) -> usize {
    SLASH.find_iter(b).filter(|&p| escape_at(b, p)).count()
}

/// What a `\u` escape writes.
enum Unicode {
    /// A character that is no surrogate.
    Char(u32),
    /// A pair of surrogates, one character (given once, at the first of the two).
    Pair,
    /// A surrogate without its pair, which `Value` refuses.
    Lone,
}

/// The `\u` escapes of `b` (as [`escape_at`]), `None` for one cut short.
fn unicode_escapes(b: &[u8]) -> impl Iterator<Item = Option<Unicode>> + '_ {
    let mut paired_at = None;
    UNICODE.find_iter(b).filter_map(move |p| {
        if paired_at == Some(p) || !escape_at(b, p) {
            return None;
        }
        let hex = |at: usize| b.get(at..at + 4).and_then(hex4);
        Some(match hex(p + 2) {
            None => None,
            Some(0xD800..=0xDBFF) => match (b.get(p + 6..p + 8), hex(p + 8)) {
                (Some(b"\\u"), Some(0xDC00..=0xDFFF)) => {
                    paired_at = Some(p + 6);
                    Some(Unicode::Pair)
                }
                (Some(_), Some(_)) | (Some(b"\\u"), None) => Some(Unicode::Lone),
                _ => None,
            },
            Some(0xDC00..=0xDFFF) => Some(Unicode::Lone),
            Some(c) => Some(Unicode::Char(c)),
        })
    })
}

/// The searchers of `\/` and `\u`, built once: building one per string cost more than the search.
static SLASH: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\/"));
static UNICODE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\u"));

/// How serde_json writes the character `c` (not a surrogate) in a string.
fn char_len(c: u32) -> usize {
    match c {
        0x08 | 0x09 | 0x0a | 0x0c | 0x0d | 0x22 | 0x5c => 2,
        0x00..=0x1f => 6,
        0x20..=0x7f => 1,
        0x80..=0x7ff => 2,
        _ => 3,
    }
}

/// Four hex digits.
fn hex4(h: &[u8]) -> Option<u32> {
    h.iter()
        .try_fold(0u32, |n, &c| Some(n << 4 | char::from(c).to_digit(16)?))
}

/// The text a string (quotes included) holds: itself when it has no escape.
fn decoded(s: &str) -> Result<Cow<'_, str>, Uncovered> {
    if !s.as_bytes().contains(&b'\\') {
        return Ok(Cow::Borrowed(&s[1..s.len() - 1]));
    }
    serde_json::from_str::<String>(s).map(Cow::Owned).map_err(|_| Uncovered)
}

/// The text of a value serde_json hands over whole; an error when the deserializer is not
/// serde_json's or cannot lend it, which a fast reader takes as a line to read the full way.
fn raw<'de, D: Deserializer<'de>>(d: D) -> Result<&'de str, D::Error> {
    <&'de RawValue>::deserialize(d).map(RawValue::get)
}

/// Any JSON value, checked as `Value` would read it ([`measure`]) and dropped. Only through
/// serde_json's own deserializer of borrowed text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawChecked;

impl<'de> Deserialize<'de> for RawChecked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        check(raw(d)?).map(|_| RawChecked).map_err(de::Error::custom)
    }
}

/// The length [`measure`] gives a value. Only through serde_json's own deserializer of
/// borrowed text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawLen(pub Option<usize>);

impl<'de> Deserialize<'de> for RawLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        measure(raw(d)?).map(RawLen).map_err(de::Error::custom)
    }
}

/// A value kept as its text, with the length [`measure`] gives it: a string among them is
/// decoded only when it is asked for ([`RawStr::str`]). Only through serde_json's own
/// deserializer of borrowed text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawStr<'a> {
    /// The value's JSON text.
    pub text: &'a str,
    /// Its length, as [`RawLen`].
    pub len: Option<usize>,
}

impl<'a> RawStr<'a> {
    /// The value, when it is a string.
    pub fn str(&self) -> Option<Cow<'a, str>> {
        self.text.starts_with('"').then(|| decoded(self.text).ok()).flatten()
    }

    /// The value's length written compact and then as a JSON string, as a request sends a
    /// call's arguments (`escaped_len(&value.to_string())`); `None` where [`Self::len`] is.
    pub fn quoted_len(&self) -> Option<usize> {
        Some(2 + self.len? + specials(self.text)?)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = raw(d)?;
        let len = measure(text).map_err(de::Error::custom)?;
        Ok(RawStr { text, len })
    }
}

#[cfg(test)]
mod tests;
