//! Typed values read with a limit on the elements they build: a view that must hold a record
//! in an agent's own types (the request a resume sends) cannot keep a container past the caps
//! as its text, so it stops at a budget and says so instead.
//!
//! [`Counted`] wraps a deserializer and spends one unit of a [`Budget`] on each value the
//! value being read builds: itself, each element of its arrays and each member's value of its
//! objects (a member's name is not counted: an object's members cost what their values cost).
//! What the value skips (a member its type does not know, read as `IgnoredAny`) is skipped by
//! the inner deserializer's scanner, neither built nor counted.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};

/// How many more values a read may build, and whether it wanted more.
#[derive(Debug)]
pub struct Budget {
    left: Cell<usize>,
    over: Cell<bool>,
}

impl Budget {
    /// A budget of `cap` values.
    pub fn new(cap: usize) -> Budget {
        Budget {
            left: Cell::new(cap),
            over: Cell::new(false),
        }
    }

    /// Whether a read stopped because it would have built more than the budget: its error
    /// says nothing about the input's validity.
    pub fn exceeded(&self) -> bool {
        self.over.get()
    }

    fn spend<E: de::Error>(&self) -> Result<(), E> {
        match self.left.get().checked_sub(1) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.over.set(true);
                Err(E::custom("cctool: more elements than the budget"))
            }
        }
    }
}

/// A deserializer whose reads spend `budget` on each value they build.
pub struct Counted<'b, D> {
    d: D,
    budget: &'b Budget,
}

impl<'b, D> Counted<'b, D> {
    /// `d`, its reads spending `budget`.
    pub fn new(d: D, budget: &'b Budget) -> Self {
        Counted { d, budget }
    }
}

macro_rules! forward_counted {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
            self.budget.spend()?;
            self.d.$method(Wrap { v, budget: self.budget })
        })*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Counted<'_, D> {
    type Error = D::Error;

    forward_counted! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map deserialize_identifier
    }

    /// Skipped by the inner scanner: nothing is built, so nothing is spent.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.d.deserialize_ignored_any(v)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, D::Error> {
        self.budget.spend()?;
        self.d.deserialize_unit_struct(name, Wrap { v, budget: self.budget })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, D::Error> {
        self.budget.spend()?;
        self.d.deserialize_newtype_struct(name, Wrap { v, budget: self.budget })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, D::Error> {
        self.budget.spend()?;
        self.d.deserialize_tuple(len, Wrap { v, budget: self.budget })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.budget.spend()?;
        self.d
            .deserialize_tuple_struct(name, len, Wrap { v, budget: self.budget })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.budget.spend()?;
        self.d.deserialize_struct(name, fields, Wrap { v, budget: self.budget })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.budget.spend()?;
        self.d.deserialize_enum(name, variants, Wrap { v, budget: self.budget })
    }

    fn is_human_readable(&self) -> bool {
        self.d.is_human_readable()
    }
}

/// A visitor whose containers spend the budget.
struct Wrap<'b, V> {
    v: V,
    budget: &'b Budget,
}

macro_rules! forward_visit {
    ($($method:ident($ty:ty))*) => {
        $(fn $method<E: de::Error>(self, x: $ty) -> Result<V::Value, E> {
            self.v.$method(x)
        })*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    forward_visit! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64) visit_i128(i128)
        visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64) visit_u128(u128)
        visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str) visit_borrowed_str(&'de str)
        visit_string(String) visit_bytes(&[u8]) visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.v.visit_some(Counted::new(d, self.budget))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.v.visit_newtype_struct(Counted::new(d, self.budget))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.v.visit_seq(Wrap {
            v: seq,
            budget: self.budget,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.v.visit_map(Wrap {
            v: map,
            budget: self.budget,
        })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.v.visit_enum(Wrap {
            v: data,
            budget: self.budget,
        })
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Wrap<'_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.v.next_element_seed(Wrap {
            v: seed,
            budget: self.budget,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.v.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Wrap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        // A name is read whether its value is kept or skipped: not counted.
        self.v.next_key_seed(seed)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.v.next_value_seed(Wrap {
            v: seed,
            budget: self.budget,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.v.size_hint()
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Wrap<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.v.deserialize(Counted::new(d, self.budget))
    }
}

impl<'b, 'de, A: EnumAccess<'de>> EnumAccess<'de> for Wrap<'b, A> {
    type Error = A::Error;
    type Variant = Wrap<'b, A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant), A::Error> {
        let (value, variant) = self.v.variant_seed(Wrap {
            v: seed,
            budget: self.budget,
        })?;
        Ok((
            value,
            Wrap {
                v: variant,
                budget: self.budget,
            },
        ))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Wrap<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.v.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.v.newtype_variant_seed(Wrap {
            v: seed,
            budget: self.budget,
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, A::Error> {
        self.v.tuple_variant(len, Wrap { v, budget: self.budget })
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], v: V) -> Result<V::Value, A::Error> {
        self.v.struct_variant(fields, Wrap { v, budget: self.budget })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Item {
        command: Vec<String>,
    }

    fn read(text: &str, cap: usize) -> (serde_json::Result<Item>, bool) {
        let budget = Budget::new(cap);
        let mut d = serde_json::Deserializer::from_str(text);
        let r = Item::deserialize(Counted::new(&mut d, &budget));
        (r, budget.exceeded())
    }

    /// Within the budget a value reads as it does unwrapped; past it the read stops, and says
    /// it was the budget.
    #[test]
    fn what_is_built_is_counted() {
        let text = r#"{"command":["a","b"]}"#;
        // The object, its member's array and its two elements.
        let (r, over) = read(text, 4);
        assert_eq!(r.unwrap(), serde_json::from_str::<Item>(text).unwrap());
        assert!(!over);
        let (r, over) = read(text, 3);
        assert!(r.is_err() && over);
        let (r, over) = read(r#"{"command":[1]}"#, 4);
        assert!(r.is_err() && !over, "a wrong type is not the budget");
    }

    /// A member the type does not know is skipped unbuilt, however large.
    #[test]
    fn what_is_skipped_is_not_counted() {
        let big = format!("[{}]", vec!["0"; 10_000].join(","));
        let (r, over) = read(&format!(r#"{{"extra":{big},"command":["a"]}}"#), 3);
        assert_eq!(r.unwrap().command, ["a"]);
        assert!(!over);
    }
}
