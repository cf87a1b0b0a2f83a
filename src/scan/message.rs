//! What `scan` reads of each message of a cctool session (v5 and earlier): its time, its
//! compactions and the text a title is taken from, found in one pass that checks the message
//! as strictly as building its `Value` does but builds nothing else. Building every message's
//! tree was more than half of scanning v5 files.

use serde_json::Value;

use super::{first_text, session_time};
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
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let m = serde::de::DeserializeSeed::deserialize(pass::Top, &mut de).ok()?;
        de.end().ok()?;
        let text = |s: &pass::Scalar<'_>| match s {
            pass::Scalar::Str(t) => Some(t.to_string()),
            _ => None,
        };
        let title_text = (want_title && m.user)
            .then(|| {
                m.items
                    .as_ref()
                    .and_then(|i| i.first_text.as_ref())
                    .and_then(text)
                    .or_else(|| m.content.as_ref().and_then(text))
            })
            .flatten();
        let time = match (&m.timestamp, &m.ts) {
            (Some(pass::Scalar::Str(s)), _) => parse_ms(s),
            (_, Some(pass::Scalar::Int(n))) => n.and_then(|s| s.checked_mul(1000)),
            (_, Some(pass::Scalar::Str(s))) => parse_ms(s),
            _ => None,
        };
        Some(MessageFacts {
            time,
            summaries: m.items.map(|i| i.summaries).unwrap_or_default(),
            user: m.user,
            title_text,
        })
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
/// depth limit), and only the fields scan needs are kept.
mod pass {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};

    use crate::io::json::Key;

    /// A scalar field as the facts need it.
    #[derive(Debug)]
    pub enum Scalar<'a> {
        Str(Cow<'a, str>),
        /// A number, as `Value::as_i64` gives it.
        Int(Option<i64>),
        Other,
    }

    /// The fields of a message object (all None for a message that is not an object).
    #[derive(Default)]
    pub struct Message<'a> {
        pub timestamp: Option<Scalar<'a>>,
        pub ts: Option<Scalar<'a>>,
        pub user: bool,
        /// `items`, when it is an array.
        pub items: Option<Items<'a>>,
        /// `content`: a string, or the `text` of its first block of type `text`.
        pub content: Option<Scalar<'a>>,
    }

    #[derive(Default)]
    pub struct Items<'a> {
        pub summaries: Vec<&'static str>,
        /// The `text` of the first item of type `text`.
        pub first_text: Option<Scalar<'a>>,
    }

    /// One object of `items` or `content`: its `type`, `origin` and `text`.
    #[derive(Default)]
    struct Part<'a> {
        ty: Option<Scalar<'a>>,
        origin: Option<Scalar<'a>>,
        text: Option<Scalar<'a>>,
    }

    fn is(s: &Option<Scalar<'_>>, want: &str) -> bool {
        matches!(s, Some(Scalar::Str(t)) if t == want)
    }

    /// Sets a field read once; a second one is refused (the plain read keeps the last).
    fn once<'a, E: Error>(slot: &mut Option<Scalar<'a>>, v: Scalar<'a>) -> Result<(), E> {
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

    /// Any value, checked and dropped.
    pub struct Skip;

    impl<'de> DeserializeSeed<'de> for Skip {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(Skip)
        }
    }

    impl<'de> Visitor<'de> for Skip {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(Skip)?.is_some() {}
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while key(&mut map)?.is_some() {
                map.next_value_seed(Skip)?;
            }
            Ok(())
        }
    }

    /// A scalar field (a container is checked and taken as [`Scalar::Other`]).
    struct ScalarSeed;

    impl<'de> DeserializeSeed<'de> for ScalarSeed {
        type Value = Scalar<'de>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar<'de>, D::Error> {
            d.deserialize_any(ScalarSeed)
        }
    }

    impl<'de> Visitor<'de> for ScalarSeed {
        type Value = Scalar<'de>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Other)
        }
        fn visit_i64<E>(self, n: i64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Int(Some(n)))
        }
        fn visit_u64<E>(self, n: u64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Int(i64::try_from(n).ok()))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Int(None))
        }
        fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Str(Cow::Borrowed(s)))
        }
        fn visit_str<E>(self, s: &str) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Str(Cow::Owned(s.to_string())))
        }
        fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Other)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar<'de>, A::Error> {
            Skip.visit_seq(seq).map(|()| Scalar::Other)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar<'de>, A::Error> {
            Skip.visit_map(map).map(|()| Scalar::Other)
        }
    }

    /// An element of `items` or of `content`: an object's three fields, else nothing.
    struct PartSeed;

    impl<'de> DeserializeSeed<'de> for PartSeed {
        type Value = Part<'de>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Part<'de>, D::Error> {
            d.deserialize_any(PartSeed)
        }
    }

    impl<'de> Visitor<'de> for PartSeed {
        type Value = Part<'de>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Part<'de>, E> {
            Ok(Part::default())
        }
        fn visit_i64<E>(self, _: i64) -> Result<Part<'de>, E> {
            Ok(Part::default())
        }
        fn visit_u64<E>(self, _: u64) -> Result<Part<'de>, E> {
            Ok(Part::default())
        }
        fn visit_f64<E>(self, _: f64) -> Result<Part<'de>, E> {
            Ok(Part::default())
        }
        fn visit_str<E>(self, _: &str) -> Result<Part<'de>, E> {
            Ok(Part::default())
        }
        fn visit_unit<E>(self) -> Result<Part<'de>, E> {
            Ok(Part::default())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Part<'de>, A::Error> {
            Skip.visit_seq(seq).map(|()| Part::default())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part<'de>, A::Error> {
            let mut p = Part::default();
            while let Some(k) = key(&mut map)? {
                match k.as_ref() {
                    "type" => once(&mut p.ty, map.next_value_seed(ScalarSeed)?)?,
                    "origin" => once(&mut p.origin, map.next_value_seed(ScalarSeed)?)?,
                    "text" => once(&mut p.text, map.next_value_seed(ScalarSeed)?)?,
                    _ => map.next_value_seed(Skip)?,
                }
            }
            Ok(p)
        }
    }

    /// `items`: its summaries and its first text, when it is an array.
    struct ItemsSeed;

    impl<'de> DeserializeSeed<'de> for ItemsSeed {
        type Value = Option<Items<'de>>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(ItemsSeed)
        }
    }

    impl<'de> Visitor<'de> for ItemsSeed {
        type Value = Option<Items<'de>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            Skip.visit_map(map).map(|()| None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Items::default();
            let mut found = false;
            while let Some(p) = seq.next_element_seed(PartSeed)? {
                if is(&p.ty, "summary") {
                    items.summaries.push(super::origin(match &p.origin {
                        Some(Scalar::Str(o)) => Some(o.as_ref()),
                        _ => None,
                    }));
                }
                if !found && is(&p.ty, "text") {
                    found = true;
                    items.first_text = Some(p.text.unwrap_or(Scalar::Other));
                }
            }
            Ok(Some(items))
        }
    }

    /// `content`: a string, or the `text` of its first block of type `text` (an array
    /// without one, and any other value: [`Scalar::Other`]).
    struct ContentSeed;

    impl<'de> DeserializeSeed<'de> for ContentSeed {
        type Value = Scalar<'de>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar<'de>, D::Error> {
            d.deserialize_any(ContentSeed)
        }
    }

    impl<'de> Visitor<'de> for ContentSeed {
        type Value = Scalar<'de>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Other)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Other)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Other)
        }
        fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Str(Cow::Borrowed(s)))
        }
        fn visit_str<E>(self, s: &str) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Str(Cow::Owned(s.to_string())))
        }
        fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
            Ok(Scalar::Other)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar<'de>, A::Error> {
            Skip.visit_map(map).map(|()| Scalar::Other)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar<'de>, A::Error> {
            let mut first = None;
            while let Some(p) = seq.next_element_seed(PartSeed)? {
                if first.is_none() && is(&p.ty, "text") {
                    first = Some(p.text.unwrap_or(Scalar::Other));
                }
            }
            Ok(first.unwrap_or(Scalar::Other))
        }
    }

    /// The message.
    pub struct Top;

    impl<'de> DeserializeSeed<'de> for Top {
        type Value = Message<'de>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Message<'de>, D::Error> {
            d.deserialize_any(Top)
        }
    }

    impl<'de> Visitor<'de> for Top {
        type Value = Message<'de>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a message")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Message<'de>, E> {
            Ok(Message::default())
        }
        fn visit_i64<E>(self, _: i64) -> Result<Message<'de>, E> {
            Ok(Message::default())
        }
        fn visit_u64<E>(self, _: u64) -> Result<Message<'de>, E> {
            Ok(Message::default())
        }
        fn visit_f64<E>(self, _: f64) -> Result<Message<'de>, E> {
            Ok(Message::default())
        }
        fn visit_str<E>(self, _: &str) -> Result<Message<'de>, E> {
            Ok(Message::default())
        }
        fn visit_unit<E>(self) -> Result<Message<'de>, E> {
            Ok(Message::default())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Message<'de>, A::Error> {
            Skip.visit_seq(seq).map(|()| Message::default())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message<'de>, A::Error> {
            let mut m = Message::default();
            let (mut role, mut items, mut content) = (None, None, None);
            while let Some(k) = key(&mut map)? {
                match k.as_ref() {
                    "timestamp" => once(&mut m.timestamp, map.next_value_seed(ScalarSeed)?)?,
                    "ts" => once(&mut m.ts, map.next_value_seed(ScalarSeed)?)?,
                    "role" => once(&mut role, map.next_value_seed(ScalarSeed)?)?,
                    "content" => once(&mut content, map.next_value_seed(ContentSeed)?)?,
                    "items" => match items {
                        Some(_) => return Err(A::Error::custom("repeated field")),
                        None => items = Some(map.next_value_seed(ItemsSeed)?),
                    },
                    _ => map.next_value_seed(Skip)?,
                }
            }
            m.user = is(&role, "user");
            m.items = items.flatten();
            m.content = content;
            Ok(m)
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
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let (mut messages, mut read) = (0, 0);
        for e in walkdir::WalkDir::new(&root).into_iter().filter_map(Result::ok) {
            if e.path().extension().is_none_or(|x| x != "json") {
                continue;
            }
            let src = Source::from_bytes(&e.path().display().to_string(), std::fs::read(e.path()).unwrap());
            let mut minified = Vec::new();
            let _ = crate::agents::cctool::file::for_each_message(&src, |m| {
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
