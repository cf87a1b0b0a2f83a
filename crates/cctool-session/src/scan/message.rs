//! What `scan` reads of each message of a cctool session (v5 and earlier): its time, its
//! compactions and the text a title is taken from, found in one pass that checks the message
//! as strictly as building its `Value` does but builds nothing else. Building every message's
//! tree was more than half of scanning v5 files.

use serde_json::Value;

use crate::model::session::{first_text, session_time};
use crate::model::time::parse_ms;

/// What `scan` takes of one message: from [`MessageFacts::read`], else from its `Value`.
#[derive(Debug, Default, PartialEq)]
pub(super) struct MessageFacts {
    /// [`session_time`] of the message.
    pub time: Option<i64>,
    /// The `origin` of each `summary` item, in order (a compaction each).
    pub summaries: Vec<&'static str>,
    pub user: bool,
    /// For a user message, when asked for: the text its title would be taken from.
    pub title_text: Option<String>,
}

impl MessageFacts {
    /// The facts of a message read as a `Value` (the plain read).
    pub fn of_value(v: &Value, want_title: bool) -> MessageFacts {
        let summaries = v
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|item| item.get("type").and_then(Value::as_str) == Some("summary"))
            .map(|item| origin(item.get("origin").and_then(Value::as_str)))
            .collect();
        let user = v.get("role").and_then(Value::as_str) == Some("user");
        let title_text = (want_title && user)
            .then(|| {
                v.get("items")
                    .and_then(Value::as_array)
                    .and_then(|items| {
                        items
                            .iter()
                            .find(|i| i.get("type").and_then(Value::as_str) == Some("text"))
                            .and_then(|i| i.get("text"))
                            .and_then(Value::as_str)
                    })
                    .or_else(|| v.get("content").and_then(first_text))
                    .map(str::to_string)
            })
            .flatten();
        MessageFacts {
            time: session_time(v),
            summaries,
            user,
            title_text,
        }
    }

    /// The facts of the message `bytes` (minified JSON), read without building it: None where
    /// that read does not settle them as the plain read does (a field it reads written twice,
    /// serde_json's raw-value key) and wherever building the `Value` would fail too, so the
    /// caller reads those the plain way, with its repair of lone surrogates.
    pub fn read(bytes: &[u8], want_title: bool) -> Option<MessageFacts> {
        use pass::{Got, Scalar};
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let want = pass::Want::Message { texts: want_title };
        let got = serde::de::DeserializeSeed::deserialize(pass::Read(want), &mut de).ok()?;
        de.end().ok()?;
        // A message that is not an object has none of the fields.
        let Got::Message(m) = got else {
            return Some(MessageFacts::default());
        };
        let m = *m;
        let items = match m.items {
            Some(Got::Parts(p)) => Some(p),
            _ => None,
        };
        let user = matches!(&m.role, Some(Scalar::Str(r)) if r == "user");
        let title_text = (want_title && user)
            .then(|| {
                items
                    .as_ref()
                    .and_then(|p| p.first_text.as_ref())
                    .and_then(Option::as_deref)
                    .or_else(|| match &m.content {
                        Some(Got::Scalar(Scalar::Str(t))) => Some(t.as_ref()),
                        Some(Got::Parts(p)) => p.first_text.as_ref().and_then(Option::as_deref),
                        _ => None,
                    })
                    .map(str::to_string)
            })
            .flatten();
        Some(MessageFacts {
            time: time(m.timestamp.as_ref(), m.ts.as_ref()),
            summaries: items.map(|p| p.summaries).unwrap_or_default(),
            user,
            title_text,
        })
    }
}

/// A message's time, as [`session_time`] reads it from a `Value`: its `timestamp` when that
/// is a string, else its `ts`, seconds when a number, a time when a string.
pub(super) fn time(timestamp: Option<&pass::Scalar<'_>>, ts: Option<&pass::Scalar<'_>>) -> Option<i64> {
    use pass::Scalar;
    match (timestamp, ts) {
        (Some(Scalar::Str(s)), _) => parse_ms(s),
        (_, Some(Scalar::Int(n))) => n.and_then(|s| s.checked_mul(1000)),
        (_, Some(Scalar::Str(s))) => parse_ms(s),
        _ => None,
    }
}

/// A summary item's `origin` as scan counts it.
fn origin(o: Option<&str>) -> &'static str {
    match o {
        Some("remote") => "remote",
        Some("legacy") => "legacy",
        _ => "local",
    }
}

/// The pass of [`MessageFacts::read`]: every value is read with `deserialize_any`, as the
/// `Value` reader reads it (each string unescaped and checked, each number parsed, the same
/// depth limit), by one visitor told what to keep of it ([`Want`]); the rest is dropped.
pub(super) mod pass {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};

    use crate::io::json::Key;

    /// What a value is read for. Texts (a `content` string, a part's `text`) are kept only
    /// while a title is wanted: a file takes one title, and every other message's texts were
    /// copied (each holding an escape) only to be dropped.
    #[derive(Clone, Copy, PartialEq)]
    pub enum Want {
        /// Nothing: it is only checked.
        Nothing,
        /// A string or a number: a message's time and role, a part's type, origin and text.
        Scalar,
        /// `items` or `content`: a string, or an array of parts.
        Parts { texts: bool },
        /// An element of such an array: an object's type, origin and text.
        Part { texts: bool },
        /// The message: an object's fields.
        Message { texts: bool },
    }

    /// A scalar as the facts need it.
    #[derive(Debug, Default)]
    pub enum Scalar<'a> {
        Str(Cow<'a, str>),
        /// A number, as `Value::as_i64` gives it.
        Int(Option<i64>),
        #[default]
        Other,
    }

    /// What was kept of a value.
    pub enum Got<'a> {
        Scalar(Scalar<'a>),
        Parts(Parts<'a>),
        Part(Part<'a>),
        Message(Box<Message<'a>>),
    }

    /// The fields of a message object.
    #[derive(Default)]
    pub struct Message<'a> {
        pub timestamp: Option<Scalar<'a>>,
        pub ts: Option<Scalar<'a>>,
        pub role: Option<Scalar<'a>>,
        pub items: Option<Got<'a>>,
        pub content: Option<Got<'a>>,
    }

    /// An array of parts: the origin of each of type `summary`, and the text of the first of
    /// type `text` (None inside when that text is not a string).
    #[derive(Default)]
    pub struct Parts<'a> {
        pub summaries: Vec<&'static str>,
        pub first_text: Option<Option<Cow<'a, str>>>,
    }

    #[derive(Default)]
    pub struct Part<'a> {
        ty: Option<Scalar<'a>>,
        origin: Option<Scalar<'a>>,
        text: Option<Scalar<'a>>,
    }

    fn str_of<'s>(s: &'s Option<Scalar<'_>>) -> Option<&'s str> {
        match s {
            Some(Scalar::Str(t)) => Some(t),
            _ => None,
        }
    }

    /// Sets a field read once; a second one is refused (the plain read keeps the last).
    fn once<T, E: Error>(slot: &mut Option<T>, v: T) -> Result<(), E> {
        match slot {
            Some(_) => Err(E::custom("repeated field")),
            None => {
                *slot = Some(v);
                Ok(())
            }
        }
    }

    /// An object's key, refused when it is the one that makes serde_json's `Value` reader
    /// read the object as a raw value.
    fn key<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Key<'de>>, A::Error> {
        match map.next_key::<Key<'de>>()? {
            Some(k) if k.as_ref() == "$serde_json::private::RawValue" => Err(A::Error::custom("raw value key")),
            k => Ok(k),
        }
    }

    /// Reads a value for what [`Want`] says.
    pub struct Read(pub Want);

    impl Read {
        /// A field's value as a scalar, or only checked unless `keep`.
        fn scalar<'de, A: MapAccess<'de>>(map: &mut A, keep: bool) -> Result<Scalar<'de>, A::Error> {
            let want = if keep { Want::Scalar } else { Want::Nothing };
            match map.next_value_seed(Read(want))? {
                Got::Scalar(s) => Ok(s),
                _ => Ok(Scalar::Other),
            }
        }

        /// A number, kept when a scalar is wanted.
        fn number<'de>(&self, n: Option<i64>) -> Got<'de> {
            Got::Scalar(match self.0 {
                Want::Scalar => Scalar::Int(n),
                _ => Scalar::Other,
            })
        }

        /// A string, kept (and only then copied) when a scalar or a `content` is wanted.
        fn string<'de>(&self, s: impl FnOnce() -> Cow<'de, str>) -> Got<'de> {
            Got::Scalar(match self.0 {
                Want::Scalar | Want::Parts { texts: true } => Scalar::Str(s()),
                _ => Scalar::Other,
            })
        }
    }

    impl<'de> DeserializeSeed<'de> for Read {
        type Value = Got<'de>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Got<'de>, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Read {
        type Value = Got<'de>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Got<'de>, E> {
            Ok(Got::Scalar(Scalar::Other))
        }
        fn visit_i64<E>(self, n: i64) -> Result<Got<'de>, E> {
            Ok(self.number(Some(n)))
        }
        fn visit_u64<E>(self, n: u64) -> Result<Got<'de>, E> {
            Ok(self.number(i64::try_from(n).ok()))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Got<'de>, E> {
            Ok(self.number(None))
        }
        fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Got<'de>, E> {
            Ok(self.string(|| Cow::Borrowed(s)))
        }
        fn visit_str<E>(self, s: &str) -> Result<Got<'de>, E> {
            Ok(self.string(|| Cow::Owned(s.to_string())))
        }
        fn visit_unit<E>(self) -> Result<Got<'de>, E> {
            Ok(Got::Scalar(Scalar::Other))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Got<'de>, A::Error> {
            let Want::Parts { texts } = self.0 else {
                while seq.next_element_seed(Read(Want::Nothing))?.is_some() {}
                return Ok(Got::Scalar(Scalar::Other));
            };
            let mut parts = Parts::default();
            while let Some(got) = seq.next_element_seed(Read(Want::Part { texts }))? {
                let Got::Part(p) = got else { continue };
                match str_of(&p.ty) {
                    Some("summary") => parts.summaries.push(super::origin(str_of(&p.origin))),
                    Some("text") if parts.first_text.is_none() => {
                        parts.first_text = Some(match p.text {
                            Some(Scalar::Str(t)) => Some(t),
                            _ => None,
                        });
                    }
                    _ => {}
                }
            }
            Ok(Got::Parts(parts))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Got<'de>, A::Error> {
            match self.0 {
                Want::Message { texts } => {
                    let mut m = Message::default();
                    while let Some(k) = key(&mut map)? {
                        match k.as_ref() {
                            "timestamp" => once(&mut m.timestamp, Read::scalar(&mut map, true)?)?,
                            "ts" => once(&mut m.ts, Read::scalar(&mut map, true)?)?,
                            "role" => once(&mut m.role, Read::scalar(&mut map, true)?)?,
                            "items" => once(&mut m.items, map.next_value_seed(Read(Want::Parts { texts }))?)?,
                            "content" => once(&mut m.content, map.next_value_seed(Read(Want::Parts { texts }))?)?,
                            _ => drop(map.next_value_seed(Read(Want::Nothing))?),
                        }
                    }
                    Ok(Got::Message(Box::new(m)))
                }
                Want::Part { texts } => {
                    let mut p = Part::default();
                    while let Some(k) = key(&mut map)? {
                        match k.as_ref() {
                            "type" => once(&mut p.ty, Read::scalar(&mut map, true)?)?,
                            "origin" => once(&mut p.origin, Read::scalar(&mut map, true)?)?,
                            "text" => once(&mut p.text, Read::scalar(&mut map, texts)?)?,
                            _ => drop(map.next_value_seed(Read(Want::Nothing))?),
                        }
                    }
                    Ok(Got::Part(p))
                }
                _ => {
                    while key(&mut map)?.is_some() {
                        map.next_value_seed(Read(Want::Nothing))?;
                    }
                    Ok(Got::Scalar(Scalar::Other))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Source;

    /// The facts of a message read without building it are those of its `Value`, wherever
    /// that read gives them (elsewhere the caller reads the `Value`).
    fn same_facts(bytes: &[u8]) -> bool {
        let plain = serde_json::from_slice::<Value>(bytes).ok();
        let mut read = false;
        for want in [false, true] {
            if let Some(f) = MessageFacts::read(bytes, want) {
                let v = plain.as_ref().unwrap_or_else(|| {
                    panic!("read what the Value reader refuses: {}", String::from_utf8_lossy(bytes))
                });
                assert_eq!(f, MessageFacts::of_value(v, want), "{}", String::from_utf8_lossy(bytes));
                read = true;
            }
        }
        read
    }

    #[test]
    fn message_facts_of_every_v5_fixture_are_those_of_the_value() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures");
        let (mut messages, mut read) = (0, 0);
        for e in walkdir::WalkDir::new(&root).into_iter().filter_map(Result::ok) {
            if e.path().extension().is_none_or(|x| x != "json") {
                continue;
            }
            let src = Source::from_bytes(&e.path().display().to_string(), std::fs::read(e.path()).unwrap());
            let mut minified = Vec::new();
            let _ = crate::file::for_each_message(&src, |m| {
                minified.clear();
                crate::io::json::minify_into(m, &mut minified);
                messages += 1;
                read += usize::from(same_facts(&minified));
            });
        }
        assert!(
            messages > 200 && read * 10 > messages * 9,
            "{read} of {messages} messages read"
        );
    }

    /// A JSON text of a message, written by hand so that it can hold what a serializer never
    /// writes: repeated keys, numbers out of range, lone surrogates, serde_json's raw-value key.
    fn message_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let key = prop_oneof![
            Just("timestamp"),
            Just("ts"),
            Just("role"),
            Just("content"),
            Just("items"),
            Just("type"),
            Just("origin"),
            Just("text"),
            Just("other"),
            Just("$serde_json::private::RawValue"),
        ];
        let scalar = prop_oneof![
            Just("\"user\"".to_string()),
            Just("\"summary\"".to_string()),
            Just("\"text\"".to_string()),
            Just("\"remote\"".to_string()),
            Just("\"legacy\"".to_string()),
            Just("\"2026-03-01T10:00:00.000Z\"".to_string()),
            Just("\"2026-03-01T10:00:00Z\"".to_string()),
            Just("\"  Fix the \\\"parser\\\"\\nnow \\u00e9\"".to_string()),
            Just("\"<command-name>\"".to_string()),
            Just("\"lone \\ud800\"".to_string()),
            Just("\"bad \\q\"".to_string()),
            Just("1752573600".to_string()),
            Just("-5".to_string()),
            Just("18446744073709551615".to_string()),
            Just("9223372036854775807".to_string()),
            Just("1.5".to_string()),
            Just("1e400".to_string()),
            Just("1e-400".to_string()),
            Just("null".to_string()),
            Just("true".to_string()),
            Just("[]".to_string()),
            Just("{}".to_string()),
        ];
        scalar.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
                proptest::collection::vec((key.clone(), inner), 0..6).prop_map(|kv| {
                    let members: Vec<String> = kv.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn message_facts_are_those_of_the_value(text in message_text(), pad in 0usize..3) {
            let text = format!("{}{text}{}", " ".repeat(pad), ["", " ", " x"][pad]);
            same_facts(text.as_bytes());
        }
    }

    /// Messages past the `Value` reader's depth limit, and of every odd shape, are left to it.
    #[test]
    fn message_facts_are_refused_where_the_value_reader_refuses() {
        let deep = format!("{{\"items\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        for text in [
            deep.as_str(),
            r#"{"items":[{"type":"summary","type":"summary"}]}"#,
            r#"{"role":"user","role":"assistant"}"#,
            r#"{"$serde_json::private::RawValue":"{}"}"#,
            r#"{"ts":1e400}"#,
            r#"{"other":[1e400]}"#,
            r#"{"other":"\ud800"}"#,
            r#"{"role":"user"} x"#,
        ] {
            assert_eq!(MessageFacts::read(text.as_bytes(), true), None, "{text}");
        }
        assert!(same_facts(
            br#"{"role":"user","items":[{"type":"text","text":5},{"type":"text","text":"b"}],"content":"c"}"#
        ));
        assert!(same_facts(br#"{"timestamp":7,"ts":"2026-03-01T10:00:00.000Z","items":[{"type":"summary","origin":"remote"},{"type":"summary"}]}"#));
    }
}
