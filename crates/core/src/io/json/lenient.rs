//! Fields read leniently: a value of another type than expected is remembered as such, never
//! an error, so one odd field cannot cost a whole line.

use super::*;

/// A JSON value read leniently as a string: other types are remembered as such, never an
/// error, so one odd field cannot cost the whole line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LStr<'a> {
    /// The member is not in the object.
    #[default]
    Absent,
    /// The member is JSON `null`.
    Null,
    /// A string: borrowed from the line when it has no escapes, else unescaped into a copy.
    Str(Cow<'a, str>),
    /// A number, boolean, array or object: remembered only as "not a string".
    Other,
}

impl<'a> LStr<'a> {
    /// The text of a string; `None` when absent, `null` or of another type.
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
    /// The member is not in the object.
    #[default]
    Absent,
    /// A JSON boolean.
    Bool(bool),
    /// Anything else, `null` and the strings `"true"`/`"false"` included.
    Other,
}

impl LBool {
    /// Only the boolean `true` counts: a `"true"` string or `1` does not.
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
    /// Absent, or any value that is not a number (`null`, a string of digits…).
    #[default]
    NotNumber,
    /// An integer that fits `i64`.
    Int(i64),
    /// Any other number: fractional, in exponent form, or an integer beyond `i64`.
    Float(f64),
}

impl LNum {
    /// The number as an integer: an `Int`, or a `Float` with no fraction and below 9e15 in
    /// magnitude (exact in an `f64`); `None` otherwise.
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
