//! The values of a chat's contents as the fast reading keeps them: kept as their text with
//! their length ([`Raw`]), or read as far as the request's passes and the answers ask ([`Val`],
//! [`Obj`]), checked and measured as they are read.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::member;
use cctool_core::io::json::{Key, RawLen, RawStr, Uncovered, escaped_len};

/// The fields of a part that the client names by a placeholder, when not `null`.
pub(super) const VIDEO: u8 = 1;
pub(super) const CODE_RESULT: u8 = 2;
pub(super) const CODE: u8 = 4;
pub(super) const FILE: u8 = 8;
pub(super) const INLINE: u8 = 16;

/// A value kept as its text, its length known.
#[derive(Clone, Copy, Debug)]
pub(super) struct Raw<'a> {
    pub(super) text: &'a str,
    pub(super) len: usize,
}

impl<'a> Raw<'a> {
    /// The string it is.
    pub(super) fn str(&self) -> Option<Cow<'a, str>> {
        RawStr {
            text: self.text,
            len: Some(self.len),
        }
        .str()
    }

    /// JavaScript's truthiness of the value.
    pub(super) fn truthy(&self) -> bool {
        match self.text.as_bytes().first() {
            Some(b'n' | b'f') | None => false,
            Some(b'"') => self.text.len() > 2,
            Some(b't' | b'{' | b'[') => true,
            Some(_) => self.text.parse::<f64>() != Ok(0.0),
        }
    }
}

/// The next value of `a` as its text; one whose length the fast reading cannot vouch for (an
/// object naming a key twice) is left to the full reading.
pub(super) fn next_raw<'de, A: MapAccess<'de>>(a: &mut A) -> Result<Raw<'de>, A::Error> {
    let r: RawStr<'de> = a.next_value()?;
    let len = r.len.ok_or_else(|| de::Error::custom(Uncovered))?;
    Ok(Raw { text: r.text, len })
}

/// The next value's length, as [`next_raw`].
pub(super) fn next_len<'de, A: MapAccess<'de>>(a: &mut A) -> Result<usize, A::Error> {
    a.next_value::<RawLen>()?.0.ok_or_else(|| de::Error::custom(Uncovered))
}

/// Nested deeper than this in a content, the full reading decides: the parts' fields are
/// measured by [`RawLen`], which bounds nesting from their own start only.
pub(super) const MAX_NESTING: u8 = 6;

/// A content, a call or its result, or a part's call, as far as the request and the answers ask.
#[derive(Debug)]
pub(super) enum Val<'a> {
    Obj(Obj<'a>),
    /// An array, and its length.
    Arr(Vec<Val<'a>>, usize),
    /// A string, and its written length.
    Str(Cow<'a, str>, usize),
    /// `null`, a boolean or a number.
    Scalar {
        len: usize,
        truthy: bool,
        null: bool,
    },
}

impl<'a> Val<'a> {
    pub(super) fn len(&self) -> usize {
        match self {
            Val::Obj(o) => o.len,
            Val::Arr(_, len) | Val::Str(_, len) | Val::Scalar { len, .. } => *len,
        }
    }

    pub(super) fn truthy(&self) -> bool {
        match self {
            Val::Obj(_) | Val::Arr(..) => true,
            Val::Str(s, _) => !s.is_empty(),
            Val::Scalar { truthy, .. } => *truthy,
        }
    }

    pub(super) fn is_null(&self) -> bool {
        matches!(self, Val::Scalar { null: true, .. })
    }

    pub(super) fn obj(&self) -> Option<&Obj<'a>> {
        match self {
            Val::Obj(o) => Some(o),
            _ => None,
        }
    }
}

/// The fields of an object the request and the answers read, as a part, a call (or response)
/// or a stored tool call; its length and how many keys it has.
#[derive(Debug, Default)]
pub(super) struct Obj<'a> {
    pub(super) len: usize,
    pub(super) keys: usize,
    pub(super) others: bool,
    pub(super) text: Option<Raw<'a>>,
    pub(super) thought: Option<Raw<'a>>,
    pub(super) media: u8,
    pub(super) call: Option<Box<Val<'a>>>,
    pub(super) response: Option<Box<Val<'a>>>,
    pub(super) signed: bool,
    pub(super) name: Option<Raw<'a>>,
    pub(super) id: Option<Raw<'a>>,
    pub(super) args: Option<usize>,
    pub(super) response_len: Option<usize>,
    pub(super) result: Option<Box<Val<'a>>>,
}

/// Reads a [`Val`] `.0` levels into a content.
#[derive(Clone, Copy)]
pub(super) struct ValSeed(pub(super) u8);

impl<'de> DeserializeSeed<'de> for ValSeed {
    type Value = Val<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Val<'de>, D::Error> {
        if self.0 > MAX_NESTING {
            return Err(de::Error::custom(Uncovered));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Deserialize<'de> for Val<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ValSeed(0).deserialize(d)
    }
}

pub(super) fn scalar<'a>(len: usize, truthy: bool) -> Val<'a> {
    Val::Scalar {
        len,
        truthy,
        null: false,
    }
}

/// A number's written length, as `Value` writes it.
pub(super) fn number_len<T: Into<Value>>(n: T) -> usize {
    cctool_core::io::json::json_len(&n.into())
}

impl<'de> Visitor<'de> for ValSeed {
    type Value = Val<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Borrowed(v), v.len() + 2))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v.to_owned()), escaped_len(v)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Val<'de>, E> {
        Ok(scalar(if v { 4 } else { 5 }, v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Val<'de>, E> {
        Ok(scalar(number_len(v), v != 0))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Val<'de>, E> {
        Ok(scalar(number_len(v), v != 0))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Val<'de>, E> {
        // As `Value` holds it (a float out of range is refused before it gets here).
        Ok(scalar(number_len(v), v != 0.0))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Val<'de>, E> {
        Ok(Val::Scalar {
            len: 4,
            truthy: false,
            null: true,
        })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Val<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = a.next_element_seed(ValSeed(self.0 + 1))? {
            items.push(v);
        }
        let len = 2 + items.iter().map(Val::len).sum::<usize>() + items.len().saturating_sub(1);
        Ok(Val::Arr(items, len))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Val<'de>, A::Error> {
        let mut o = Obj::default();
        let mut keys = Seen::default();
        let mut len = 0;
        while let Some(k) = a.next_key::<Key<'de>>()? {
            let k = keys.add(k)?;
            let deeper = ValSeed(self.0 + 1);
            let n = match k {
                key @ ("text" | "thought" | "name" | "id") => {
                    let r = next_raw(&mut a)?;
                    let slot = match key {
                        "text" => &mut o.text,
                        "thought" => &mut o.thought,
                        "name" => &mut o.name,
                        _ => &mut o.id,
                    };
                    *slot = Some(r);
                    r.len
                }
                key @ ("videoMetadata" | "codeExecutionResult" | "executableCode" | "fileData" | "inlineData") => {
                    let r = next_raw(&mut a)?;
                    if r.text != "null" {
                        o.media |= match key {
                            "videoMetadata" => VIDEO,
                            "codeExecutionResult" => CODE_RESULT,
                            "executableCode" => CODE,
                            "fileData" => FILE,
                            _ => INLINE,
                        };
                    }
                    r.len
                }
                key @ ("functionCall" | "functionResponse" | "result") => {
                    let v = Box::new(a.next_value_seed(deeper)?);
                    let n = v.len();
                    match key {
                        "functionCall" => o.call = Some(v),
                        "functionResponse" => o.response = Some(v),
                        _ => o.result = Some(v),
                    }
                    n
                }
                "args" => {
                    let n = next_len(&mut a)?;
                    o.args = Some(n);
                    n
                }
                "response" => {
                    let n = next_len(&mut a)?;
                    o.response_len = Some(n);
                    n
                }
                "thoughtSignature" => {
                    o.signed = true;
                    next_len(&mut a)?
                }
                _ => next_len(&mut a)?,
            };
            o.others |= !matches!(k, "text" | "thought" | "callIndex");
            len += member(k, n);
        }
        o.keys = keys.n;
        o.len = 2 + len + keys.n.saturating_sub(1);
        Ok(Val::Obj(o))
    }
}

/// The keys of an object so far. One named twice, one written with an escape, or more keys
/// than it holds leave the line to the full reading: rare, and kept out of a list that would
/// be allocated for every object.
#[derive(Default)]
pub(super) struct Seen<'a> {
    pub(super) keys: [&'a str; 24],
    pub(super) n: usize,
}

impl<'a> Seen<'a> {
    pub(super) fn add<E: de::Error>(&mut self, k: Key<'a>) -> Result<&'a str, E> {
        let Cow::Borrowed(k) = k.0 else {
            return Err(E::custom(Uncovered));
        };
        if self.n == self.keys.len() || self.keys[..self.n].contains(&k) {
            return Err(E::custom(Uncovered));
        }
        self.keys[self.n] = k;
        self.n += 1;
        Ok(k)
    }
}
