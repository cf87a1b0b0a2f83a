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

/// Why a line could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    pub code: Code,
    pub severity: Severity,
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
/// opening quote), found with a SIMD search for quotes and backslashes; None when no quote
/// closes it.
pub fn string_end(text: &[u8], mut from: usize) -> Option<usize> {
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

/// A JSON value read leniently as a string: other types are remembered as such, never an
/// error, so one odd field cannot cost the whole line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LStr<'a> {
    #[default]
    Absent,
    Null,
    Str(Cow<'a, str>),
    Other,
}

impl<'a> LStr<'a> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            LStr::Str(s) => Some(s),
            _ => None,
        }
    }

    /// JavaScript truthiness for strings: present and non-empty.
    pub fn truthy_str(&self) -> Option<&str> {
        self.as_str().filter(|s| !s.is_empty())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = LStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(LStr::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(LStr::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(LStr::Str(Cow::Owned(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LStr::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LStr::Null)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LStr::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(LStr::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(LStr::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LStr::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LStr::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LStr::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// [`LStr`] owned: the string, or `None` for any other value, which is skipped without being
/// built (a field that should hold a name but holds an array of millions of elements costs a
/// scan, not a tree).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LString(pub Option<String>);

impl<'de> Deserialize<'de> for LString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        LStr::deserialize(d).map(|s| LString(s.as_str().map(str::to_string)))
    }
}

/// The texts of a message's `content`: the content itself when it is a string, else the
/// `text` string of each item of an array (as `item.get("text")` reads it: objects only, the
/// last of a repeated key). Nothing else is built, so an array of millions of items costs
/// one scan and no memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContentTexts<'a>(pub Vec<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for ContentTexts<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// One item's `text`, when it is an object holding a string there.
        struct ItemText<'a>(Option<Cow<'a, str>>);
        impl<'de: 'a, 'a> Deserialize<'de> for ItemText<'a> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V<'a>(std::marker::PhantomData<&'a ()>);
                impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
                    type Value = ItemText<'a>;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("any JSON value")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                        let mut text = None;
                        while let Some(k) = a.next_key::<Key<'de>>()? {
                            if k == "text" {
                                text = match a.next_value::<LStr<'de>>()? {
                                    LStr::Str(s) => Some(s),
                                    _ => None,
                                };
                            } else {
                                a.next_value::<IgnoredAny>()?;
                            }
                        }
                        Ok(ItemText(text))
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                        while a.next_element::<IgnoredAny>()?.is_some() {}
                        Ok(ItemText(None))
                    }
                    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                        Ok(ItemText(None))
                    }
                    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                        Ok(ItemText(None))
                    }
                    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                        Ok(ItemText(None))
                    }
                    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                        Ok(ItemText(None))
                    }
                    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                        Ok(ItemText(None))
                    }
                    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                        Ok(ItemText(None))
                    }
                }
                d.deserialize_any(V(std::marker::PhantomData))
            }
        }
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = ContentTexts<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ContentTexts(vec![Cow::Borrowed(v)]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ContentTexts(vec![Cow::Owned(v.to_owned())]))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ContentTexts(vec![Cow::Owned(v)]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(t) = a.next_element::<ItemText<'a>>()? {
                    out.extend(t.0);
                }
                Ok(ContentTexts(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ContentTexts::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ContentTexts::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ContentTexts::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ContentTexts::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ContentTexts::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ContentTexts::default())
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A JSON value read leniently as a boolean: `Some(b)` only for a real boolean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LBool {
    #[default]
    Absent,
    Bool(bool),
    Other,
}

impl LBool {
    pub fn is_true(self) -> bool {
        self == LBool::Bool(true)
    }
}

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LBool, E> {
                Ok(LBool::Bool(v))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LBool, E> {
                Ok(LBool::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<LBool, E> {
                Ok(LBool::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LBool, E> {
                Ok(LBool::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LBool, E> {
                Ok(LBool::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LBool, E> {
                Ok(LBool::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<LBool, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LBool::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<LBool, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LBool::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// Any JSON value, kept only as "a number" when it is one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum LNum {
    #[default]
    NotNumber,
    Int(i64),
    Float(f64),
}

impl LNum {
    pub fn as_i64(self) -> Option<i64> {
        match self {
            LNum::Int(i) => Some(i),
            LNum::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for LNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LNum;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LNum, E> {
                Ok(LNum::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LNum, E> {
                Ok(i64::try_from(v).map_or(LNum::Float(v as f64), LNum::Int))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LNum, E> {
                Ok(LNum::Float(v))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LNum, E> {
                Ok(LNum::NotNumber)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LNum, E> {
                Ok(LNum::NotNumber)
            }
            fn visit_unit<E: de::Error>(self) -> Result<LNum, E> {
                Ok(LNum::NotNumber)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<LNum, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LNum::NotNumber)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<LNum, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LNum::NotNumber)
            }
        }
        d.deserialize_any(V)
    }
}

/// An object key, borrowed from the input when it has no escapes. (serde's own `Cow<str>`
/// always allocates, which costs a few percent on every line.)
pub struct Key<'a>(pub Cow<'a, str>);

impl AsRef<str> for Key<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<&str> for Key<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

/// The deepest nesting serde_json reads with its default recursion limit (and so Codex, which
/// skips a rollout line nested deeper).
pub const SERDE_MAX_DEPTH: usize = 127;

/// Arrays and objects nested deeper than this in a record are kept as their JSON text by
/// [`parse_record`]. A v5 document holds a record about six levels down, and serde_json (so
/// cctool, Codex and most readers in Rust) stops at 128 levels: a record kept whole at 120
/// levels would make the whole document unreadable.
pub const KEEP_DEPTH: usize = 100;

/// Arrays and objects with more elements than this are kept as their JSON text by
/// [`parse_record`]: as a tree, each element of `[1,1,…]` costs 36 times its two bytes (and
/// in an import becomes an item of its own); no record an agent writes comes near it.
pub const KEEP_ELEMENTS: usize = 100_000;

/// A record as a JSON value, lone surrogates repaired; `null` when it is not JSON at all.
///
/// Arrays and objects more than [`KEEP_DEPTH`] levels down, or with more than
/// [`KEEP_ELEMENTS`] elements, become `{"_raw": TEXT}`, their exact JSON text (as the v5
/// schema keeps unparsable tool arguments): nothing is lost, the value stays readable, no
/// walk over it can overflow the stack however deep the input (the text is skipped by
/// serde_json's iterative scanner, never built as a tree), and the memory it takes stays in
/// proportion to its text. Everything else is exactly what `serde_json::from_slice::<Value>`
/// gives.
pub fn parse_record(bytes: &[u8]) -> serde_json::Value {
    parse_capped(bytes)
        .or_else(|| repair_surrogates(bytes).and_then(|b| parse_capped(&b)))
        .unwrap_or(serde_json::Value::Null)
}

fn parse_capped(bytes: &[u8]) -> Option<serde_json::Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match Capped(1).deserialize(&mut de) {
        Ok(v) => de.end().ok().map(|()| v),
        // A container too large to hold as a tree: read again, container by container.
        Err(e) if e.to_string().starts_with(TOO_MANY) => by_parts(std::str::from_utf8(bytes).ok()?.trim(), 1),
        Err(_) => None,
    }
}

/// The error [`Capped`] stops with on a container of more than [`KEEP_ELEMENTS`] elements.
const TOO_MANY: &str = "cctool: too many elements";

/// `{"_raw": text}`.
fn raw_text(text: &str) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("_raw".into(), serde_json::Value::String(text.to_string()));
    serde_json::Value::Object(m)
}

/// The elements of the container `text`, counted without building them.
fn count_elements(text: &str) -> Option<usize> {
    struct Count;
    impl<'de> Visitor<'de> for Count {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array or an object")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let mut n = 0;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                n += 1;
            }
            Ok(n)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
            let mut n = 0;
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
                n += 1;
            }
            Ok(n)
        }
    }
    serde_json::Deserializer::from_str(text).deserialize_any(Count).ok()
}

/// [`parse_record`]'s value of `text`, found `depth` levels down, each container counted before
/// it is built: the slow way, for a record that holds a container too large for the fast one.
fn by_parts(text: &str, depth: usize) -> Option<serde_json::Value> {
    use serde_json::value::RawValue;
    let container = text.starts_with(['{', '[']);
    if !container {
        return serde_json::from_str(text).ok();
    }
    if depth > KEEP_DEPTH || count_elements(text)? > KEEP_ELEMENTS {
        return Some(raw_text(text));
    }
    if text.starts_with('[') {
        let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
        let v = items
            .into_iter()
            .map(|r| by_parts(r.get(), depth + 1))
            .collect::<Option<Vec<_>>>()?;
        return Some(serde_json::Value::Array(v));
    }
    let members = Members::parse(text.as_bytes())?;
    let mut m = serde_json::Map::new();
    for (k, r) in members.iter() {
        m.insert(k.to_string(), by_parts(r.get(), depth + 1)?);
    }
    Some(serde_json::Value::Object(m))
}

/// Reads a value found `.0` levels down (the record itself is level 1).
struct Capped(usize);

impl<'de> de::DeserializeSeed<'de> for Capped {
    type Value = serde_json::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<serde_json::Value, D::Error> {
        if self.0 > KEEP_DEPTH {
            let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
            let text = raw.get();
            if text.starts_with(['{', '[']) {
                return Ok(raw_text(text));
            }
            return serde_json::from_str(text).map_err(de::Error::custom);
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Capped {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<serde_json::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<serde_json::Value, A::Error> {
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(x) = seq.next_element_seed(Capped(self.0 + 1))? {
            if v.len() == KEEP_ELEMENTS {
                return Err(de::Error::custom(TOO_MANY));
            }
            v.push(x);
        }
        Ok(serde_json::Value::Array(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<serde_json::Value, A::Error> {
        let mut m = serde_json::Map::new();
        let mut n = 0;
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(Capped(self.0 + 1))?;
            n += 1;
            if n > KEEP_ELEMENTS {
                return Err(de::Error::custom(TOO_MANY));
            }
            m.insert(k, v);
        }
        Ok(serde_json::Value::Object(m))
    }
}

/// Hands each element of the JSON array `text` to `f` as it is read, never holding them all:
/// false when `text` is not an array of `T` (the elements before the fault were handed over).
pub fn for_each_element<'de, T: Deserialize<'de>>(text: &'de str, f: impl FnMut(T)) -> bool {
    struct Each<F, T>(F, std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>, F: FnMut(T)> Visitor<'de> for Each<F, T> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
            while let Some(x) = seq.next_element::<T>()? {
                (self.0)(x);
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_seq(Each(f, std::marker::PhantomData)).is_ok() && de.end().is_ok()
}

/// An object's members as written: each key with its value's exact JSON text. Fields can be
/// replaced and the object written again without building (or re-encoding) the rest, so a
/// record keeps its bytes, and its depth costs nothing.
pub struct Members<'a>(Vec<(Cow<'a, str>, Cow<'a, serde_json::value::RawValue>)>);

impl<'a> Members<'a> {
    /// The members of `bytes`, when it is a JSON object (lone surrogates pass as written).
    pub fn parse(bytes: &'a [u8]) -> Option<Members<'a>> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = map.next_entry::<Key<'de>, &'de serde_json::value::RawValue>()? {
                    v.push((k.0, Cow::Borrowed(x)));
                }
                Ok(Members(v))
            }
        }
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let m = de.deserialize_map(V).ok()?;
        de.end().ok()?;
        Some(m)
    }

    /// The members in the order written (a repeated key each time).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &serde_json::value::RawValue)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    /// The text of the last value of `key` (the one `JSON.parse` keeps).
    pub fn get(&self, key: &str) -> Option<&serde_json::value::RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_ref())
    }

    /// `key` as a string, when its last value is one.
    pub fn str(&self, key: &str) -> Option<String> {
        self.get(key).and_then(|v| serde_json::from_str(v.get()).ok())
    }

    /// Gives `key` the value `v`: in place of its first occurrence (the others dropped, so
    /// the value cannot be overridden by a later duplicate), else at the end.
    pub fn set(&mut self, key: &str, v: &impl serde::Serialize) {
        let Ok(text) = serde_json::value::to_raw_value(v) else {
            return;
        };
        match self.0.iter().position(|(k, _)| k == key) {
            Some(i) => {
                self.0[i].1 = Cow::Owned(text);
                let mut n = 0;
                self.0.retain(|(k, _)| {
                    n += usize::from(k == key);
                    k != key || n == 1
                });
            }
            None => self.0.push((Cow::Owned(key.to_string()), Cow::Owned(text))),
        }
    }

    /// The object as compact JSON text: unchanged members byte for byte.
    pub fn write(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(b"{")?;
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            serde_json::to_writer(&mut *w, k.as_ref())?;
            w.write_all(b":")?;
            w.write_all(v.get().as_bytes())?;
        }
        w.write_all(b"}")
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::new();
        let _ = self.write(&mut v);
        v
    }
}

/// The deepest nesting of arrays and objects in JSON text (strings skipped), without
/// building anything: whether a reader that stops at some depth can read it.
pub fn nesting_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut strings = Strings::default();
    for &b in bytes {
        if !strings.structural(b) {
            continue;
        }
        match b {
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The minifier as it was, a byte at a time.
    fn minify_bytewise(raw: &[u8]) -> Vec<u8> {
        let mut strings = Strings::default();
        raw.iter()
            .copied()
            .filter(|&b| !strings.structural(b) || !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn minify_is_the_bytewise_minify(parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::strategy::Just(&b"\""[..]),
                proptest::strategy::Just(&b"\\"[..]),
                proptest::strategy::Just(&b" "[..]),
                proptest::strategy::Just(&b"\n  "[..]),
                proptest::strategy::Just(&b"\t\r"[..]),
                proptest::strategy::Just(&b"{\"a\": [1, 2]}"[..]),
                proptest::strategy::Just(&b"x y"[..]),
                proptest::strategy::Just("é".as_bytes()),
            ],
            0..60,
        )) {
            let raw = parts.concat();
            let mut out = b"kept".to_vec();
            minify_into(&raw, &mut out);
            let mut want = b"kept".to_vec();
            want.extend(minify_bytewise(&raw));
            proptest::prop_assert_eq!(out, want);
        }
    }

    fn nested(n: usize) -> String {
        format!("{}\"x\"{}", "{\"a\":".repeat(n), "}".repeat(n))
    }

    #[test]
    fn records_parse_as_serde_json_parses_them() {
        for line in [
            r#"{"b":[1,2.5,-3,1e300,null,true],"a":"x \u00e9 \ud83d\ude00","a":{"z":{}},"n":18446744073709551615}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"hi"}]},"uuid":"u"}"#,
            &nested(99),
        ] {
            let want: serde_json::Value = serde_json::from_str(line).unwrap_or(serde_json::Value::Null);
            assert_eq!(parse_record(line.as_bytes()), want, "{line}");
            assert_eq!(parse_record(line.as_bytes()).to_string(), want.to_string());
        }
        assert_eq!(parse_record(br#"{"a":"\ud800"}"#)["a"], "\u{fffd}");
        assert_eq!(parse_record(b"{\"a\":"), serde_json::Value::Null);
    }

    #[test]
    fn serde_json_reads_to_its_max_depth_and_no_further() {
        let parse = |n| serde_json::from_str::<serde_json::Value>(&nested(n)).is_ok();
        assert!(parse(SERDE_MAX_DEPTH));
        assert!(!parse(SERDE_MAX_DEPTH + 1));
        assert_eq!(nesting_depth(nested(SERDE_MAX_DEPTH).as_bytes()), SERDE_MAX_DEPTH);
    }

    #[test]
    fn deep_values_are_kept_as_their_text() {
        for n in [101, 130, 100_000] {
            let line = nested(n);
            let v = parse_record(line.as_bytes());
            let mut at = &v;
            for _ in 0..KEEP_DEPTH {
                at = &at["a"];
            }
            let raw = at["_raw"].as_str().unwrap();
            assert_eq!(raw, nested(n - KEEP_DEPTH), "{n}");
            // What is written of it reads back.
            assert!(serde_json::from_str::<serde_json::Value>(&v.to_string()).is_ok());
        }
        // Scalars that deep stay scalars.
        let line = format!("{}1{}", "[".repeat(KEEP_DEPTH + 1), "]".repeat(KEEP_DEPTH + 1));
        let v = parse_record(line.as_bytes());
        assert_eq!(v.pointer(&"/0".repeat(KEEP_DEPTH)).unwrap()["_raw"], "[1]");
    }

    #[test]
    fn huge_containers_are_kept_as_their_text() {
        let big = format!("[{}1]", "1,".repeat(KEEP_ELEMENTS));
        let small = format!("[{}1]", "1,".repeat(KEEP_ELEMENTS - 1));
        let line = format!(r#"{{"a":{{"b":{big},"c":{small},"d":"\u00e9"}},"e":[{big}]}}"#);
        let v = parse_record(line.as_bytes());
        assert_eq!(v["a"]["b"]["_raw"], big);
        assert_eq!(v["a"]["c"].as_array().unwrap().len(), KEEP_ELEMENTS);
        assert_eq!(v["a"]["d"], "é");
        assert_eq!(v["e"][0]["_raw"], big);
        let obj = format!(
            "{{{}\"z\":0}}",
            (0..KEEP_ELEMENTS).map(|i| format!("\"k{i}\":0,")).collect::<String>()
        );
        assert_eq!(parse_record(format!(r#"{{"o":{obj}}}"#).as_bytes())["o"]["_raw"], obj);
        // Beside a large one, the depth rule still holds.
        let line = format!(r#"{{"a":{big},"b":{}}}"#, nested(200));
        let v = parse_record(line.as_bytes());
        assert!(v["b"].to_string().contains("_raw"));
        assert!(serde_json::from_str::<serde_json::Value>(&v.to_string()).is_ok());
        // A lone surrogate in such a record is still repaired.
        let line = format!(r#"{{"a":{big},"s":"\ud800"}}"#);
        assert_eq!(parse_record(line.as_bytes())["s"], "\u{fffd}");
    }

    #[test]
    fn members_rewrite_fields_and_keep_the_rest_as_written() {
        let line = format!(
            r#"{{"uuid":"a","x":"\u00e9 \ud800","uuid":"b","deep":{},"n":1.50}}"#,
            nested(100_000)
        );
        let mut m = Members::parse(line.as_bytes()).unwrap();
        assert_eq!(m.str("uuid").as_deref(), Some("b"));
        m.set("uuid", &"c");
        m.set("parentUuid", &"p");
        let out = String::from_utf8(m.to_vec()).unwrap();
        assert_eq!(
            out,
            format!(
                r#"{{"uuid":"c","x":"\u00e9 \ud800","deep":{},"n":1.50,"parentUuid":"p"}}"#,
                nested(100_000)
            )
        );
        assert!(Members::parse(b"[1]").is_none());
        assert!(Members::parse(b"{\"a\":1} x").is_none());
        assert_eq!(nesting_depth(line.as_bytes()), 100_001);
        assert_eq!(nesting_depth(br#"{"a":"{[{[","b":[{}]}"#), 3);
    }

    #[test]
    fn repairs_only_lone_surrogates() {
        assert_eq!(repair_surrogates(br#"{"a":"ok \ud83d\ude00"}"#), None);
        assert_eq!(
            repair_surrogates(br#"{"a":"x\ud83d y","b":"\\ud800"}"#).unwrap(),
            br#"{"a":"x\uFFFD y","b":"\\ud800"}"#.to_vec()
        );
        assert_eq!(
            repair_surrogates(br#"{"a":"\udc00"}"#).unwrap(),
            br#"{"a":"\uFFFD"}"#.to_vec()
        );
    }

    #[test]
    fn classifies_bad_lines() {
        let c = |b: &[u8], t| {
            let e = serde_json::from_slice::<serde_json::Value>(b).unwrap_err();
            classify(b, t, &e).code
        };
        assert_eq!(c(br#"{"a":1}{"b":2}"#, true), "two-records-on-one-line");
        assert_eq!(c(br#"{"a":"#, false), "truncated-last-line");
        assert_eq!(c(br#"{"a":"#, true), "invalid-json");
        assert_eq!(c(b"{\"a\":\"\xff\"}", true), "invalid-utf8");
        assert_eq!(c(&[b'['; 300], true), "too-deep");
    }

    #[test]
    fn content_texts_read_as_a_json_tree_would() {
        // The same texts as `item.get("text")` over a parsed tree, on every shape of content.
        let tree = |j: &str| -> Vec<String> {
            let v: serde_json::Value = serde_json::from_str(j).unwrap();
            match v.get("content") {
                Some(serde_json::Value::String(s)) => vec![s.clone()],
                Some(serde_json::Value::Array(items)) => items
                    .iter()
                    .filter_map(|c| c.get("text").and_then(|t| t.as_str()).map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            }
        };
        #[derive(serde::Deserialize)]
        struct Body<'a> {
            #[serde(borrow, default)]
            content: ContentTexts<'a>,
        }
        for j in [
            r#"{"content":"plain é"}"#,
            r#"{"content":[{"type":"input_text","text":"a"},{"text":"b\n"},{"text":1},"text",[{"text":"x"}],null,{"text":"c","text":"d"}]}"#,
            r#"{"content":{"text":"an object"}}"#,
            r#"{"content":null}"#,
            r#"{"content":42}"#,
            r#"{"other":1}"#,
            r#"{"content":[]}"#,
        ] {
            let got: Vec<String> = serde_json::from_str::<Body<'_>>(j)
                .unwrap()
                .content
                .0
                .into_iter()
                .map(Cow::into_owned)
                .collect();
            assert_eq!(got, tree(j), "{j}");
        }
    }

    #[test]
    fn minify_keeps_strings_and_order() {
        assert_eq!(
            minify(b"{\n  \"b\" : [1, 2],\n  \"a\": \"x \\\" y\"\n}"),
            br#"{"b":[1,2],"a":"x \" y"}"#.to_vec()
        );
    }
}
