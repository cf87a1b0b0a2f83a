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

/// Parses `bytes` as `T` and hands it to `f`. On a lone-surrogate failure the line is
/// repaired and parsed again; the flag in the result says so.
pub fn with_parsed_borrowed<T, R>(
    bytes: &[u8],
    terminated: bool,
    f: impl for<'x> FnOnce(T::Out<'x>) -> R,
) -> Result<(R, bool), BadLine>
where
    T: BorrowedParse,
{
    match serde_json::from_slice::<T::Out<'_>>(bytes) {
        Ok(v) => Ok((f(v), false)),
        Err(e) => {
            if is_surrogate_error(&e)
                && let Some(fixed) = repair_surrogates(bytes)
                && let Ok(v) = serde_json::from_slice::<T::Out<'_>>(&fixed)
            {
                return Ok((f(v), true));
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

/// Replaces `\uXXXX` escapes that encode a lone surrogate with `\uFFFD`. Returns `None` when
/// there is nothing to repair.
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

/// [`minify`], appended to `out`.
pub fn minify_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut in_string = false;
    let mut escaped = false;
    for &b in raw {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
            out.push(b);
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            out.push(b);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

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
