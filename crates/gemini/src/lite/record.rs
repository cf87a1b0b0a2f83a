//! A chat's line as the fast reading reads it: the fields of a record the replay and the
//! answers read ([`Rec`]), at each level a record may sit (a line, a `$set`, a listed message).

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::value::{Seen, Val};
use cctool_core::io::json::{CheckedStr, IfArray, IfObject, Key, RawChecked};

/// A record read at a level ([`LINE`], [`SET`] or [`LISTED`]): what each may hold that the
/// replay reads.
pub(super) struct RecAt<'a, const LEVEL: u8>(pub(super) Rec<'a>);

/// A line's own record: a rewind, a message, a `$set` or a header.
pub(super) const LINE: u8 = 0;
/// A `$set`'s object: its `messages` and metadata.
pub(super) const SET: u8 = 1;
/// A message of a `$set`'s or header's list: only a message's fields are read of it.
pub(super) const LISTED: u8 = 2;

impl<'de, const LEVEL: u8> Deserialize<'de> for RecAt<'de, LEVEL> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(RecVisitor { level: LEVEL }).map(RecAt)
    }
}

/// A message of a list, when it is an object.
pub(super) struct Listed<'a>(pub(super) Option<Rec<'a>>);

impl<'de> Deserialize<'de> for Listed<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Listed(IfObject::<RecAt<'de, LISTED>>::deserialize(d)?.0.map(|r| r.0)))
    }
}

/// The fields of a record the replay and the answers read. A key written twice is left to the
/// full reading.
#[derive(Default)]
pub(super) struct Rec<'a> {
    pub(super) rewind_to: Option<Cow<'a, str>>,
    pub(super) id: Option<Cow<'a, str>>,
    pub(super) set: Option<Box<Rec<'a>>>,
    pub(super) session_id: Option<Value>,
    pub(super) project_hash: bool,
    /// What a header or a `$set` merges into the metadata, of what the answers read.
    pub(super) meta: Vec<(String, Value)>,
    pub(super) messages: Option<Vec<Listed<'a>>>,
    pub(super) ty: Option<Cow<'a, str>>,
    pub(super) timestamp: Option<Cow<'a, str>>,
    pub(super) model: Option<Cow<'a, str>>,
    pub(super) content: Option<Val<'a>>,
    pub(super) thoughts: Option<usize>,
    pub(super) tool_calls: Option<Vec<Val<'a>>>,
}

/// The metadata the answers read: the session id, the start and the summary.
pub(super) const META: [&str; 3] = ["sessionId", "startTime", "summary"];

/// How many elements an array has, each checked.
pub(super) struct Count(pub(super) usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                let mut n = 0;
                while a.next_element::<RawChecked>()?.is_some() {
                    n += 1;
                }
                Ok(Count(n))
            }
        }
        d.deserialize_seq(V)
    }
}

pub(super) struct RecVisitor {
    pub(super) level: u8,
}

impl<'de> Visitor<'de> for RecVisitor {
    type Value = Rec<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a record")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Rec<'de>, A::Error> {
        let mut r = Rec::default();
        let mut keys = Seen::default();
        while let Some(k) = a.next_key::<Key<'de>>()? {
            let s = |a: &mut A| a.next_value::<CheckedStr<'de>>().map(|s| s.0);
            match keys.add(k)? {
                "$rewindTo" if self.level == LINE => r.rewind_to = s(&mut a)?,
                "id" => r.id = s(&mut a)?,
                "$set" if self.level == LINE => {
                    r.set = a.next_value::<IfObject<RecAt<'de, SET>>>()?.0.map(|s| Box::new(s.0));
                }
                "projectHash" if self.level == LINE => r.project_hash = s(&mut a)?.is_some(),
                "messages" if self.level != LISTED => {
                    r.messages = a.next_value::<IfArray<Vec<Listed<'de>>>>()?.0;
                }
                key if self.level != LISTED && META.contains(&key) => {
                    let v: Value = a.next_value()?;
                    if key == "sessionId" {
                        r.session_id = Some(v.clone());
                    }
                    r.meta.push((key.to_string(), v));
                }
                "type" => r.ty = s(&mut a)?,
                "timestamp" => r.timestamp = s(&mut a)?,
                "model" => r.model = s(&mut a)?,
                "content" => r.content = Some(a.next_value()?),
                "thoughts" => r.thoughts = a.next_value::<IfArray<Count>>()?.0.map(|c| c.0),
                "toolCalls" => r.tool_calls = a.next_value::<IfArray<Vec<Val<'de>>>>()?.0,
                _ => {
                    a.next_value::<RawChecked>()?;
                }
            }
        }
        Ok(r)
    }
}
