//! One pass over a cctool session document that hands each element of its `messages` array to
//! a callback as serde_json's deserializer reaches it, instead of reading the whole document
//! first and splitting the array in a second pass (see [`super::file::for_each_message`]).
//!
//! The document is read by the same deserializer, with the same rules, as the whole-document
//! read (`file::Doc`): the same fields and field names, a repeated field refused, the other
//! fields skipped as `IgnoredAny`, each message skipped as a `RawValue` (which checks its
//! UTF-8), nothing but whitespace after the document. So a document this pass accepts is one
//! the whole-document read accepts, with the same messages; the converse is checked by
//! [`tests`] and by `file`'s tests on every shape of document.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::io::json::{LNum, LString};

/// What the pass tells of a document besides its messages.
#[derive(Debug, Default)]
pub(crate) struct Streamed {
    pub version: Option<LNum>,
    pub schema_version: Option<LNum>,
    pub session_id: LString,
    pub id: LString,
    /// `messages` is present (not `null`).
    pub has_messages: bool,
    /// `messages` is present and an array.
    pub is_array: bool,
    /// The number of messages handed to the callback.
    pub messages: usize,
}

/// Why the pass stopped: the document is not valid as `file::Doc`, or it is not an object
/// (the struct's array form, which the whole-document read also accepts, is left to it).
#[derive(Debug)]
pub(crate) struct Stopped {
    pub error: serde_json::Error,
    /// Messages were handed to the callback before the pass stopped.
    pub delivered: usize,
}

/// Reads `body` (a whole session document, without its byte-order mark), handing each
/// message as written (borrowed from `body`, without the whitespace around it) to `each`,
/// with its offset in `body`. The messages of a document that turns out invalid have been
/// seen by `each` by the time the error is returned: the caller drops what it made of them.
pub(crate) fn stream(body: &[u8], each: &mut dyn FnMut(usize, &[u8])) -> Result<Streamed, Stopped> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let mut delivered = 0usize;
    let seed = DocSeed {
        base: body.as_ptr() as usize,
        each,
        delivered: &mut delivered,
    };
    let result = seed.deserialize(&mut de).and_then(|doc| de.end().map(|()| doc));
    result.map_err(|error| Stopped { error, delivered })
}

/// The field names of `file::Doc`, read as its derived field identifier reads them.
#[derive(Clone, Copy, Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    Version,
    SchemaVersion,
    SessionId,
    Id,
    Messages,
    #[serde(other)]
    Other,
}

struct DocSeed<'c, 'f> {
    base: usize,
    each: &'c mut (dyn FnMut(usize, &[u8]) + 'f),
    delivered: &'c mut usize,
}

const FIELDS: &[&str] = &["version", "schema_version", "session_id", "id", "messages"];

impl<'de> DeserializeSeed<'de> for DocSeed<'_, '_> {
    type Value = Streamed;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Streamed, D::Error> {
        d.deserialize_struct("Doc", FIELDS, self)
    }
}

impl<'de> Visitor<'de> for DocSeed<'_, '_> {
    type Value = Streamed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Doc")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Streamed, A::Error> {
        let mut doc = Streamed::default();
        let mut seen = [false; 5];
        while let Some(field) = map.next_key::<Field>()? {
            if let Field::Other = field {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let at = field as usize;
            if std::mem::replace(&mut seen[at], true) {
                return Err(de::Error::duplicate_field(FIELDS[at]));
            }
            match field {
                Field::Version => doc.version = map.next_value()?,
                Field::SchemaVersion => doc.schema_version = map.next_value()?,
                Field::SessionId => doc.session_id = map.next_value()?,
                Field::Id => doc.id = map.next_value()?,
                Field::Messages | Field::Other => {
                    let (present, array) = map.next_value_seed(MessagesSeed {
                        base: self.base,
                        each: &mut *self.each,
                        delivered: &mut *self.delivered,
                    })?;
                    doc.has_messages = present;
                    doc.is_array = array;
                }
            }
        }
        doc.messages = *self.delivered;
        Ok(doc)
    }
}

/// `messages`: `null` reads as absent (an `Option`), an array is streamed, anything else is
/// read through and reported as not an array.
struct MessagesSeed<'c, 'f> {
    base: usize,
    each: &'c mut (dyn FnMut(usize, &[u8]) + 'f),
    delivered: &'c mut usize,
}

impl<'de> DeserializeSeed<'de> for MessagesSeed<'_, '_> {
    /// (present, an array)
    type Value = (bool, bool);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(bool, bool), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for MessagesSeed<'_, '_> {
    type Value = (bool, bool);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_none<E: de::Error>(self) -> Result<(bool, bool), E> {
        Ok((false, false))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(bool, bool), E> {
        Ok((false, false))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(bool, bool), D::Error> {
        d.deserialize_any(Present(self))
    }
}

/// A present `messages` value.
struct Present<'c, 'f>(MessagesSeed<'c, 'f>);

impl<'de> Visitor<'de> for Present<'_, '_> {
    type Value = (bool, bool);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(bool, bool), A::Error> {
        let MessagesSeed { base, each, delivered } = self.0;
        while let Some(m) = seq.next_element::<&'de RawValue>()? {
            let bytes = m.get().as_bytes();
            each(bytes.as_ptr() as usize - base, bytes);
            *delivered += 1;
        }
        Ok((true, true))
    }

    /// Keys are read as strings and values as raw values, so that invalid UTF-8 anywhere
    /// fails here as in the whole-document read (an ignored value's bytes are not checked).
    /// Stricter than that read on keys (a lone surrogate escape): the caller words every
    /// error with it, and nothing was handed out yet.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(bool, bool), A::Error> {
        while map.next_entry::<String, &'de RawValue>()?.is_some() {}
        Ok((true, false))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(bool, bool), E> {
        Ok((true, false))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(bool, bool), E> {
        Ok((true, false))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(bool, bool), E> {
        Ok((true, false))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(bool, bool), E> {
        Ok((true, false))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(bool, bool), E> {
        Ok((true, false))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(bool, bool), E> {
        Ok((false, false))
    }
}
