//! Values read exactly as `serde_json::Value` reads them, without building one: the parts a
//! fast reader does not keep are still parsed through `deserialize_any`, so a line is accepted
//! or refused as the full reading would (UTF-8, lone surrogates, numbers out of range, nesting),
//! which `IgnoredAny` does not promise. A fast reader built of these can then fall back to the
//! full reading on any error and give the same answers.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{Key, escaped_len};

/// The visits of the scalars a value of another kind than the one asked for may be, each `None`.
macro_rules! none_for_scalars {
    ($out:ty, $none:expr) => {
        fn visit_borrowed_str<E: de::Error>(self, _: &'de str) -> Result<$out, E> {
            Ok($none)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$out, E> {
            Ok($none)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$out, E> {
            Ok($none)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$out, E> {
            Ok($none)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$out, E> {
            Ok($none)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$out, E> {
            Ok($none)
        }
        fn visit_unit<E: de::Error>(self) -> Result<$out, E> {
            Ok($none)
        }
    };
}

/// Any JSON value, checked as `Value` would read it and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Checked;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
                while a.next_element::<Checked>()?.is_some() {}
                Ok(Checked)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
                while a.next_entry::<Key<'_>, Checked>()?.is_some() {}
                Ok(Checked)
            }
            none_for_scalars!(Checked, Checked);
        }
        d.deserialize_any(V)
    }
}

/// A value that is a string, else `None`: `value.as_str()` of the value `Value` would read,
/// borrowed from the input when it holds no escapes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckedStr<'a>(pub Option<Cow<'a, str>>);

impl<'a> CheckedStr<'a> {
    /// The string, owned.
    pub fn owned(&self) -> Option<String> {
        self.0.as_deref().map(str::to_string)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for CheckedStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = CheckedStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CheckedStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CheckedStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(CheckedStr(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(CheckedStr(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(CheckedStr(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(CheckedStr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(CheckedStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<Checked>()?.is_some() {}
                Ok(CheckedStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<Key<'_>, Checked>()?.is_some() {}
                Ok(CheckedStr(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A value that is an object, read as `T` from its members; `None` (the value checked and
/// dropped) for any other value, as `value.as_object()` gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfObject<T>(pub Option<T>);

/// A value that is an array, read as `T` from its elements; `None` (the value checked and
/// dropped) for any other value, as `value.as_array()` gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfArray<T>(pub Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for IfObject<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = IfObject<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<IfObject<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(a)).map(|t| IfObject(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<IfObject<T>, A::Error> {
                while a.next_element::<Checked>()?.is_some() {}
                Ok(IfObject(None))
            }
            none_for_scalars!(IfObject<T>, IfObject(None));
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for IfArray<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = IfArray<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<IfArray<T>, A::Error> {
                T::deserialize(de::value::SeqAccessDeserializer::new(a)).map(|t| IfArray(Some(t)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<IfArray<T>, A::Error> {
                while a.next_entry::<Key<'_>, Checked>()?.is_some() {}
                Ok(IfArray(None))
            }
            none_for_scalars!(IfArray<T>, IfArray(None));
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// The length [`json_len`](super::json_len) gives the `Value` read from a value (its compact
/// JSON as serde_json writes it), counted while it is checked; `None` when an object in it
/// names a key twice, where the `Value` keeps one member and the count would not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValueLen(pub Option<usize>);

impl<'de> Deserialize<'de> for ValueLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ValueLen::visit(|f| d.deserialize_any(Each(f)))
    }
}

/// A value as [`CheckedStr`] reads it, with its length as [`ValueLen`] counts it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MeasuredStr<'a> {
    /// The value when it is a string.
    pub str: Option<Cow<'a, str>>,
    /// Its length, as [`ValueLen`].
    pub len: Option<usize>,
}

impl<'de: 'a, 'a> Deserialize<'de> for MeasuredStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        fn other<E>(len: Result<ValueLen, E>) -> Result<MeasuredStr<'static>, E> {
            len.map(|l| MeasuredStr { str: None, len: l.0 })
        }
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = MeasuredStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MeasuredStr {
                    len: Some(v.len() + 2),
                    str: Some(Cow::Borrowed(v)),
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MeasuredStr {
                    len: Some(escaped_len(v)),
                    str: Some(Cow::Owned(v.to_owned())),
                })
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                other(ValueLen::visit(|f| Each(f).visit_bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                other(ValueLen::visit(|f| Each(f).visit_i64(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                other(ValueLen::visit(|f| Each(f).visit_u64(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                other(ValueLen::visit(|f| Each(f).visit_f64(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                other(ValueLen::visit(|f| Each(f).visit_unit()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                other(ValueLen::visit(|f| Each(f).visit_seq(a)))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                other(ValueLen::visit(|f| Each(f).visit_map(a)))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl ValueLen {
    /// The length counted by `visit`, a visit of [`Each`] with the counter it is given.
    fn visit<E>(visit: impl FnOnce(&mut dyn FnMut(Leaf)) -> Result<&mut dyn FnMut(Leaf), E>) -> Result<ValueLen, E> {
        let mut len = Some(0usize);
        let mut count = |l: Leaf| {
            len = match (len, l) {
                (Some(n), Leaf::Bytes(k)) => Some(n + k),
                _ => None,
            }
        };
        visit(&mut count)?;
        Ok(ValueLen(len))
    }
}

/// What [`Each`] reports of a value as it reads it: the bytes its compact JSON takes, piece by
/// piece, or a repeated key.
enum Leaf {
    Bytes(usize),
    RepeatedKey,
}

/// A visitor of any value that hands each piece to `f`.
struct Each<F>(F);

impl<'de, F: FnMut(Leaf)> Visitor<'de> for Each<F> {
    type Value = F;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(mut self, v: &'de str) -> Result<F, E> {
        // Borrowed means written without escapes, and serde_json refuses a raw control
        // character, so it is written back as it was.
        (self.0)(Leaf::Bytes(v.len() + 2));
        Ok(self.0)
    }
    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<F, E> {
        (self.0)(Leaf::Bytes(escaped_len(v)));
        Ok(self.0)
    }
    fn visit_bool<E: de::Error>(mut self, v: bool) -> Result<F, E> {
        (self.0)(Leaf::Bytes(if v { 4 } else { 5 }));
        Ok(self.0)
    }
    fn visit_i64<E: de::Error>(mut self, v: i64) -> Result<F, E> {
        (self.0)(Leaf::Bytes(super::json_len(&v)));
        Ok(self.0)
    }
    fn visit_u64<E: de::Error>(mut self, v: u64) -> Result<F, E> {
        (self.0)(Leaf::Bytes(super::json_len(&v)));
        Ok(self.0)
    }
    fn visit_f64<E: de::Error>(mut self, v: f64) -> Result<F, E> {
        // As `Value` holds it: a number (every parsed float is finite).
        let n = serde_json::Number::from_f64(v).map_or(4, |n| super::json_len(&n));
        (self.0)(Leaf::Bytes(n));
        Ok(self.0)
    }
    fn visit_unit<E: de::Error>(mut self) -> Result<F, E> {
        (self.0)(Leaf::Bytes(4));
        Ok(self.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<F, A::Error> {
        let mut f = self.0;
        let mut n = 0usize;
        // One type for every level below, so nesting does not make a new one each.
        while a.next_element_seed(Seed(&mut f as &mut dyn FnMut(Leaf)))?.is_some() {
            n += 1;
        }
        f(Leaf::Bytes(2 + n.saturating_sub(1)));
        Ok(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<F, A::Error> {
        let mut f = self.0;
        let mut keys: Vec<Key<'_>> = Vec::new();
        while let Some(k) = a.next_key::<Key<'_>>()? {
            if keys.iter().any(|seen| seen.0 == k.0) {
                f(Leaf::RepeatedKey);
            }
            f(Leaf::Bytes(escaped_len(&k.0) + 1));
            keys.push(k);
            a.next_value_seed(Seed(&mut f as &mut dyn FnMut(Leaf)))?;
        }
        f(Leaf::Bytes(2 + keys.len().saturating_sub(1)));
        Ok(f)
    }
}

struct Seed<F>(F);

impl<'de, F: FnMut(Leaf)> de::DeserializeSeed<'de> for Seed<F> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(Each(self.0)).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What the full reading gives: `Value`, its compact length, and whether it repeats a key.
    fn full(text: &str) -> Option<usize> {
        let v: Value = serde_json::from_str(text).ok()?;
        Some(super::super::json_len(&v))
    }

    #[test]
    fn the_length_is_the_full_readings_and_the_same_lines_are_refused() {
        let cases = [
            r#"{"a":1,"b":[true,false,null,1.5,-0,1e3,-7,18446744073709551615]}"#,
            r#" { "a" : "x\ny\"z\\\u0001\u00e9\ud83d\ude00/\/" , "b" : { } , "c" : [ ] } "#,
            r#""plain""#,
            r#"[1.0, 2.50, 3e-7, 123456789012345678901234567890, 0.1]"#,
            r#"{"k\u0041":"\t","é":"ü"}"#,
            r#"{"a":"\ud83d"}"#,
            r#"{"a":1e400}"#,
            r#"{"a":"#,
            r#"{"a":1}x"#,
            "{\"a\":\"\u{1}\"}",
        ];
        for c in cases {
            let fast = serde_json::from_str::<ValueLen>(c).ok().map(|l| l.0);
            assert_eq!(fast.map(Option::unwrap), full(c), "{c}");
            assert_eq!(serde_json::from_str::<Checked>(c).is_ok(), full(c).is_some(), "{c}");
            assert_eq!(
                serde_json::from_str::<CheckedStr<'_>>(c).is_ok(),
                full(c).is_some(),
                "{c}"
            );
        }
        let bad_utf8 = b"{\"a\":\"\xff\"}";
        assert!(serde_json::from_slice::<Checked>(bad_utf8).is_err());
        assert!(serde_json::from_slice::<ValueLen>(bad_utf8).is_err());
    }

    #[test]
    fn an_object_or_array_is_read_only_when_it_is_one() {
        type Members = IfObject<std::collections::BTreeMap<String, Checked>>;
        let m: Members = serde_json::from_str(r#"{"a":[1],"b":{}}"#).unwrap();
        assert_eq!(m.0.map(|m| m.len()), Some(2));
        for other in [r#"[1,{"a":2}]"#, "1", "-2", "1.5", r#""x""#, "true", "null"] {
            assert_eq!(serde_json::from_str::<Members>(other).unwrap().0, None, "{other}");
            assert_eq!(
                serde_json::from_str::<IfArray<Vec<Checked>>>(other)
                    .unwrap()
                    .0
                    .is_some(),
                other.starts_with('['),
                "{other}"
            );
        }
        assert!(serde_json::from_str::<IfArray<Vec<Checked>>>(r#"{"a":"\ud800"}"#).is_err());
    }

    #[test]
    fn a_repeated_key_gives_no_length() {
        assert_eq!(
            serde_json::from_str::<ValueLen>(r#"{"a":1,"b":{"a":1}}"#).unwrap().0,
            Some(19)
        );
        assert_eq!(serde_json::from_str::<ValueLen>(r#"[{"a":1,"a":2}]"#).unwrap().0, None);
    }

    #[test]
    fn a_string_is_borrowed_when_it_can_be() {
        let s: CheckedStr<'_> = serde_json::from_str(r#""abc""#).unwrap();
        assert!(matches!(s.0, Some(Cow::Borrowed("abc"))));
        let s: CheckedStr<'_> = serde_json::from_str(r#""a\nc""#).unwrap();
        assert_eq!(s.owned().as_deref(), Some("a\nc"));
        let s: CheckedStr<'_> = serde_json::from_str(r#"{"a":"b"}"#).unwrap();
        assert_eq!(s.0, None);
    }
}
