//! A record's message read for the request `scan` measures ([`super::Want::Request`]): its parts
//! read straight into typed parts ([`Part`]), each long text a stand-in of its length, with no
//! `Value` tree per part. What a part holds is read as [`Part::of`] reads it from a `Value`,
//! and every value it passes over is checked as `Value` would read it ([`RawChecked`]), so that
//! a line is refused where the full reading refuses it. A line this reading cannot answer as
//! exactly (a response sent as its whole JSON, a part of many keys, a message that is no
//! object) is refused and read the full way.

use std::borrow::Cow;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use super::{LONG, MARK, Seen, holds_mark, surely_long};
use crate::api::part::{CallPart, Part, ResponsePart, Shape, Text, TypedMessage};
use cctool_core::io::json::{Key, RAW_VALUE_TOKEN, RawChecked, RawStr};

/// A message read typed, with what reading it found.
pub(super) struct Typed<'de> {
    pub(super) message: TypedMessage,
    pub(super) seen: Seen<'de>,
}

impl<'de> Deserialize<'de> for Typed<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut seen = Seen::default();
        let message = d.deserialize_any(MessageSeed { seen: &mut seen })?;
        Ok(Typed { message, seen })
    }
}

/// Why a line is left to the full reading.
fn left<E: de::Error>(why: &str) -> E {
    E::custom(format_args!("{why}: left to the full reading"))
}

/// What a visitor answers of a value it does not take: an error, the line left to the full
/// reading.
macro_rules! refuse_others {
    ($what:literal) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(left($what))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(left($what))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(left($what))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(left($what))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(left($what))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(left($what))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(left($what))
        }
    };
}

/// What a visitor answers of a boolean, a number or `null`: `$make` of whether it is truthy.
macro_rules! scalars {
    ($make:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok($make(v))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok($make(v != 0))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok($make(v != 0))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok($make(v != 0.0))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($make(false))
        }
    };
}

/// A value of a key that is no object: truthy or not, and nothing else read of it.
macro_rules! truthy_only {
    ($make:expr) => {
        scalars!($make);
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok($make(!v.is_empty()))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
            skip_seq(a).map(|()| $make(true))
        }
    };
}

/// The next key of `a`, refusing the mark of a raw value, which `Value` reads otherwise.
fn next_key<'de, A: MapAccess<'de>>(a: &mut A) -> Result<Option<Cow<'de, str>>, A::Error> {
    match a.next_key::<Key<'de>>()? {
        Some(Key(k)) if k == RAW_VALUE_TOKEN => Err(left("a raw value's mark")),
        Some(Key(k)) => Ok(Some(k)),
        None => Ok(None),
    }
}

/// The rest of a map or an array, each value checked as `Value` would read it.
fn skip_map<'de, A: MapAccess<'de>>(mut a: A) -> Result<(), A::Error> {
    while next_key(&mut a)?.is_some() {
        a.next_value::<RawChecked>()?;
    }
    Ok(())
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut a: A) -> Result<(), A::Error> {
    while a.next_element::<RawChecked>()?.is_some() {}
    Ok(())
}

/// A visitor as a seed that reads a value of any JSON type with it.
struct Any<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Any<V> {
    type Value = V::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_any(self.0)
    }
}

/// A message: its `role` and `parts`; any other key checked and dropped.
struct MessageSeed<'a, 'de> {
    seen: &'a mut Seen<'de>,
}

impl<'de> Visitor<'de> for MessageSeed<'_, 'de> {
    type Value = TypedMessage;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a message")
    }

    refuse_others!("a message that is no object");

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<TypedMessage, A::Error> {
        let mut m = TypedMessage::default();
        while let Some(k) = next_key(&mut a)? {
            match k.as_ref() {
                "role" => m.role = a.next_value_seed(Any(Str { seen: None }))?,
                "parts" => {
                    m.parts = a
                        .next_value_seed(Any(Parts { seen: &mut *self.seen }))?
                        .unwrap_or_default();
                }
                _ => {
                    a.next_value::<RawChecked>()?;
                }
            }
        }
        Ok(m)
    }
}

/// An array of parts, or `None` where the value is no array (checked and dropped).
struct Parts<'a, 'de> {
    seen: &'a mut Seen<'de>,
}

impl<'de> Visitor<'de> for Parts<'_, 'de> {
    type Value = Option<Vec<Part<'static>>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("parts")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(p) = a.next_element_seed(Any(PartSeed { seen: &mut *self.seen }))? {
            out.push(p);
        }
        Ok(Some(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
        skip_map(a).map(|()| None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    scalars!(|_| None);
}

/// Keys a part may have before the fast reading leaves its line to the full one: the keys are
/// counted apart, as an object's members are, without a set of them.
const MAX_PART_KEYS: usize = 8;

/// One part.
struct PartSeed<'a, 'de> {
    seen: &'a mut Seen<'de>,
}

impl<'de> Visitor<'de> for PartSeed<'_, 'de> {
    type Value = Part<'static>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a part")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Part<'static>, A::Error> {
        let seen = self.seen;
        let mut p = Part::default();
        let mut keys: [Option<Cow<'de, str>>; MAX_PART_KEYS] = Default::default();
        let (mut inline, mut file) = (None, None);
        while let Some(k) = next_key(&mut a)? {
            match k.as_ref() {
                "text" => p.text = text(a.next_value()?, true, seen)?,
                "thought" => p.thought = a.next_value_seed(Any(Truthy))?,
                "thoughtSignature" => p.signature = a.next_value_seed(Any(Truthy))?,
                "functionCall" => p.call = Some(a.next_value_seed(Any(CallSeed { seen: &mut *seen }))?),
                "functionResponse" => p.response = Some(a.next_value_seed(Any(ResponseSeed { seen: &mut *seen }))?),
                "inlineData" => inline = Some(a.next_value_seed(Any(MediaSeed { seen: &mut *seen }))?),
                "fileData" => file = Some(a.next_value_seed(Any(MediaSeed { seen: &mut *seen }))?),
                _ => {
                    a.next_value::<RawChecked>()?;
                }
            }
            if !keys[..p.keys].iter().any(|x| x.as_deref() == Some(k.as_ref())) {
                *keys.get_mut(p.keys).ok_or_else(|| left("a part of many keys"))? = Some(k);
                p.keys += 1;
            }
        }
        p.media = [inline, file]
            .into_iter()
            .flatten()
            .find_map(|(truthy, mime)| truthy.then_some(mime.map(Cow::Owned)));
        Ok(p)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Part<'static>, E> {
        self.visit_string(v.to_owned())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Part<'static>, E> {
        self.seen.marked |= v.contains(MARK);
        Ok(Part {
            shape: Shape::String,
            string: Some(Cow::Owned(v)),
            ..Part::default()
        })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Part<'static>, A::Error> {
        skip_seq(a).map(|()| other())
    }
    scalars!(|_| other());
}

/// A part that is neither an object nor a string.
fn other() -> Part<'static> {
    Part {
        shape: Shape::Other,
        ..Part::default()
    }
}

/// A text as [`Part::of`] reads it, or its stand-in when it is long: the request only joins it
/// to others, or tells whether it is empty, or (`trimmed`, a part's text) whether it is the
/// placeholder of a turn that timed out, which [`surely_long`] rules out. A text that is no
/// string is never sent.
fn text<'de, E: de::Error>(raw: RawStr<'de>, trimmed: bool, seen: &mut Seen<'de>) -> Result<Text<'static>, E> {
    let body = raw.text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
    if let (Some(body), Some(len)) = (body, raw.len)
        && body.len() >= LONG
        && (!trimmed || surely_long(body.as_bytes()))
    {
        return Ok(Text::Str(Cow::Owned(seen.stand_in(len - 2, raw.text))));
    }
    Ok(match raw.str() {
        Some(s) => {
            seen.marked |= s.contains(MARK);
            Text::Str(Cow::Owned(s.into_owned()))
        }
        None => Text::Other,
    })
}

/// Whether a value is truthy, as JavaScript tells; a container checked as `Value` would read it.
struct Truthy;

impl<'de> Visitor<'de> for Truthy {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    truthy_only!(|truthy| truthy);
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<bool, A::Error> {
        skip_map(a).map(|()| true)
    }
}

/// A string kept as written (an id, a name, a MIME type: each may be sent), looked at for the
/// mark where `seen` is given; `None` where the value is no string (checked and dropped).
struct Str<'a, 'de> {
    seen: Option<&'a mut Seen<'de>>,
}

impl<'de> Visitor<'de> for Str<'_, 'de> {
    type Value = Option<String>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.visit_string(v.to_owned())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        if let Some(seen) = self.seen {
            seen.marked |= v.contains(MARK);
        }
        Ok(Some(v))
    }
    scalars!(|_| None);
    fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
        skip_seq(a).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
        skip_map(a).map(|()| None)
    }
}

/// A part's `functionCall`.
struct CallSeed<'a, 'de> {
    seen: &'a mut Seen<'de>,
}

impl<'de> Visitor<'de> for CallSeed<'_, 'de> {
    type Value = CallPart<'static>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a function call")
    }

    truthy_only!(|truthy| CallPart {
        truthy,
        ..CallPart::default()
    });

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let seen = self.seen;
        let mut c = CallPart {
            truthy: true,
            ..CallPart::default()
        };
        while let Some(k) = next_key(&mut a)? {
            match k.as_ref() {
                "id" => c.id = a.next_value_seed(Any(Str { seen: Some(&mut *seen) }))?.map(Cow::Owned),
                "name" => c.name = a.next_value_seed(Any(Str { seen: Some(&mut *seen) }))?.map(Cow::Owned),
                "args" => c.args = args(a.next_value()?, seen)?,
                _ => {
                    a.next_value::<RawChecked>()?;
                }
            }
        }
        Ok(c)
    }
}

/// A call's `args` as the request writes them (JSON text, where they are truthy), or the
/// stand-in of that text when it is long. Only an object or an array is one: the request sends
/// `{}` in place of args that are falsy, and a non-empty string stand-in is never falsy.
fn args<'de, E: de::Error>(raw: RawStr<'de>, seen: &mut Seen<'de>) -> Result<Option<Cow<'static, str>>, E> {
    // The request writes `to_json(args)` as a string: its quotes and their escapes are the
    // stand-in's own once it is written so.
    if raw.text.starts_with(['{', '['])
        && let Some(written) = raw.quoted_len()
        && written >= LONG
    {
        let stand_in = seen.stand_in(written - 6, raw.text);
        return Ok(Some(Cow::Owned(cctool_core::io::json::to_json(&Value::String(
            stand_in,
        )))));
    }
    seen.marked |= holds_mark(raw.text.as_bytes());
    let v: Value = serde_json::from_str(raw.text).map_err(E::custom)?;
    Ok(crate::chain::truthy(&v).then(|| Cow::Owned(cctool_core::io::json::to_json(&v))))
}

/// A part's `functionResponse`.
struct ResponseSeed<'a, 'de> {
    seen: &'a mut Seen<'de>,
}

impl<'de> Visitor<'de> for ResponseSeed<'_, 'de> {
    type Value = ResponsePart<'static>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a function response")
    }

    truthy_only!(|truthy| ResponsePart {
        truthy,
        ..ResponsePart::default()
    });

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let seen = self.seen;
        let mut r = ResponsePart {
            truthy: true,
            ..ResponsePart::default()
        };
        while let Some(k) = next_key(&mut a)? {
            match k.as_ref() {
                "id" => r.id = a.next_value_seed(Any(Str { seen: Some(&mut *seen) }))?.map(Cow::Owned),
                "response" => r.sent = a.next_value_seed(Any(Sent { seen: &mut *seen }))?,
                "parts" => r.parts = a.next_value_seed(Any(Parts { seen: &mut *seen }))?,
                _ => {
                    a.next_value::<RawChecked>()?;
                }
            }
        }
        Ok(r)
    }
}

/// What `createToolMessage` sends of a response ([`crate::api::part::sent`]): its `output` or
/// `error` where one is a string (a stand-in where it is long).
struct Sent<'a, 'de> {
    seen: &'a mut Seen<'de>,
}

impl<'de> Visitor<'de> for Sent<'_, 'de> {
    type Value = Cow<'static, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a response")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(""))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.visit_string(v.to_owned())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.seen.marked |= v.contains(MARK);
        Ok(Cow::Owned(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(if v { "true" } else { "false" }))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        let n = Number::from_f64(v).map_or(Value::Null, Value::Number);
        Ok(Cow::Owned(cctool_core::io::json::to_json(&n)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(left("a response sent as its JSON"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let seen = self.seen;
        let (mut output, mut error) = (Text::Absent, Text::Absent);
        while let Some(k) = next_key(&mut a)? {
            match k.as_ref() {
                "output" => output = text(a.next_value()?, false, seen)?,
                "error" => error = text(a.next_value()?, false, seen)?,
                _ => {
                    a.next_value::<RawChecked>()?;
                }
            }
        }
        match (output, error) {
            (Text::Str(s), _) | (_, Text::Str(s)) => Ok(s),
            _ => Err(left("a response sent as its JSON")),
        }
    }
}

/// A part's `inlineData` or `fileData`: whether it is truthy, and its `mimeType` where that is
/// a string.
struct MediaSeed<'a, 'de> {
    seen: &'a mut Seen<'de>,
}

impl<'de> Visitor<'de> for MediaSeed<'_, 'de> {
    type Value = (bool, Option<String>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an image or a file")
    }

    truthy_only!(|truthy| (truthy, None));

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let mut mime = None;
        while let Some(k) = next_key(&mut a)? {
            match k.as_ref() {
                "mimeType" => {
                    mime = a.next_value_seed(Any(Str {
                        seen: Some(&mut *self.seen),
                    }))?;
                }
                _ => {
                    a.next_value::<RawChecked>()?;
                }
            }
        }
        Ok((true, mime))
    }
}

/// Makes each stand-in of the user's message `m` the text it stands for, read from its JSON in
/// `written`; `None` where one cannot be, or holds [`MARK`].
pub(super) fn given_back(m: &mut TypedMessage, written: &[&str]) -> Option<()> {
    m.parts.iter_mut().try_for_each(|p| part_given_back(p, written))
}

fn part_given_back(p: &mut Part<'static>, written: &[&str]) -> Option<()> {
    if let Text::Str(s) = &mut p.text {
        text_given_back(s, written)?;
    }
    if let Some(a) = p.call.as_mut().and_then(|c| c.args.as_mut())
        && let Some(inner) = a.strip_prefix('"').and_then(|a| a.strip_suffix('"'))
        && inner.starts_with(MARK)
    {
        let v: Value = serde_json::from_str(stood_for(inner, written)?).ok()?;
        *a = Cow::Owned(cctool_core::io::json::to_json(&v));
    }
    if let Some(r) = &mut p.response {
        text_given_back(&mut r.sent, written)?;
        for n in r.parts.iter_mut().flatten() {
            part_given_back(n, written)?;
        }
    }
    Some(())
}

/// `s` made the text it stands for, where it is a stand-in.
fn text_given_back(s: &mut Cow<'static, str>, written: &[&str]) -> Option<()> {
    if s.starts_with(MARK) {
        *s = Cow::Owned(serde_json::from_str(stood_for(s, written)?).ok()?);
    }
    Some(())
}

/// The JSON of the text the stand-in `s` stands for, where it holds no [`MARK`].
fn stood_for<'w>(s: &str, written: &[&'w str]) -> Option<&'w str> {
    let (_, index) = s.strip_prefix(MARK)?.strip_suffix(MARK)?.split_once(' ')?;
    let text = written.get(index.parse::<usize>().ok()?)?;
    (!holds_mark(text.as_bytes())).then_some(*text)
}
