//! A pi session as `scan`, `doctor` and `extract-summary` read it. A message the resume sends
//! as written (a `user`, `assistant`, `toolResult` or `system` message with content) keeps only
//! what they ask of it and the length of its JSON, counted as it is parsed; every other entry
//! is read whole, by [`file`]'s own code. Each line is still parsed whole (the parts not kept
//! through [`RawChecked`]), so the same lines are refused; a file with anything the fast reading
//! does not cover (a line that is refused or repaired, a header of an older format or a second
//! one, a `context_edit`) is read whole, by [`file::read`].

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::file::{self, Entry, Header, Unread};
use crate::tree::Node;
use cctool_core::io::Source;
use cctool_core::io::json::{
    CheckedStr, IfObject, Key, MeasuredStr, RawChecked, RawLen, RawStr, ValueLen, escaped_len,
};
use cctool_core::model::diag::Code;
use cctool_core::model::time::parse_ms;

/// One entry, as the answers read it.
#[derive(Clone, Debug, PartialEq)]
pub struct Lite {
    /// 1-based line.
    pub line: u64,
    /// Its id.
    pub id: Option<String>,
    /// The id of the entry it follows.
    pub parent: Option<String>,
    /// Its `timestamp`, in milliseconds since the epoch.
    pub ms: Option<i64>,
    /// What is read of it.
    pub kind: Kind,
}

/// What is read of an entry.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A message a resume sends as written.
    Sent(Sent),
    /// Any other entry, read whole.
    Whole(Box<Entry>),
}

/// What is read of a message a resume sends as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    /// Its `role`.
    pub role: &'static str,
    /// An assistant message's `model`.
    pub model: Option<String>,
    /// A user message's first text ([`first_text`]).
    pub first_text: Option<String>,
    /// An assistant message's calls: the `id` of each `toolCall` block of its content.
    pub calls: Vec<String>,
    /// A tool result's `toolCallId`.
    pub tool_call_id: Option<String>,
    /// The length of the message's JSON as it is sent.
    pub len: usize,
}

impl Lite {
    /// An entry read whole.
    pub fn of(e: &Entry) -> Lite {
        Lite {
            line: e.line,
            id: e.id.clone(),
            parent: e.parent.clone(),
            ms: e.timestamp().and_then(parse_ms),
            kind: Kind::Whole(Box::new(e.clone())),
        }
    }

    /// The entry read whole, if it was.
    pub fn whole(&self) -> Option<&Entry> {
        match &self.kind {
            Kind::Whole(e) => Some(e),
            Kind::Sent(_) => None,
        }
    }

    /// An assistant message's `model`.
    pub fn model(&self) -> Option<&str> {
        match &self.kind {
            Kind::Sent(m) => m.model.as_deref(),
            Kind::Whole(e) if e.role() == Some("assistant") => e.message()?.get("model")?.as_str(),
            Kind::Whole(_) => None,
        }
    }

    /// A user message's first text.
    pub fn first_text(&self) -> Option<String> {
        match &self.kind {
            Kind::Sent(m) => m.first_text.clone(),
            Kind::Whole(e) if e.role() == Some("user") => first_text(e.message()?.get("content")?),
            Kind::Whole(_) => None,
        }
    }

    /// An assistant message's calls and a tool result's `toolCallId`.
    pub fn calls_and_result(&self) -> (Vec<&str>, Option<&str>) {
        match &self.kind {
            Kind::Sent(m) => (m.calls.iter().map(String::as_str).collect(), m.tool_call_id.as_deref()),
            Kind::Whole(e) => {
                let Some(m) = e.message() else {
                    return (Vec::new(), None);
                };
                match m.get("role").and_then(Value::as_str) {
                    Some("assistant") => (calls(m.get("content")), None),
                    Some("toolResult") => (Vec::new(), m.get("toolCallId").and_then(Value::as_str)),
                    _ => (Vec::new(), None),
                }
            }
        }
    }
}

/// The ids of the `toolCall` blocks of a content.
fn calls(content: Option<&Value>) -> Vec<&str> {
    let blocks = content.and_then(Value::as_array).into_iter().flatten();
    blocks
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
        .filter_map(|b| b.get("id").and_then(Value::as_str))
        .collect()
}

/// The first text of a content: the string, or its first text block's.
pub fn first_text(content: &Value) -> Option<String> {
    match content {
        Value::String(t) => Some(t.clone()),
        Value::Array(blocks) => blocks
            .iter()
            .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .and_then(|b| b.get("text")?.as_str().map(str::to_string)),
        _ => None,
    }
}

impl Node for Lite {
    fn line(&self) -> u64 {
        self.line
    }
    fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }
    fn parent(&self) -> Option<&str> {
        self.parent.as_deref()
    }
    fn ty(&self) -> &str {
        match &self.kind {
            Kind::Sent(_) => "message",
            Kind::Whole(e) => e.ty(),
        }
    }
    fn role(&self) -> Option<&str> {
        match &self.kind {
            Kind::Sent(m) => Some(m.role),
            Kind::Whole(e) => e.role(),
        }
    }
    fn first_kept(&self) -> Option<&str> {
        self.whole()?.s("firstKeptEntryId")
    }
}

/// A pi session as the answers read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// Its header.
    pub header: Option<Header>,
    /// Its entries, in file order.
    pub entries: Vec<Lite>,
    /// The lines the client skips.
    pub unread: Vec<Unread>,
    /// Physical lines, blank ones included.
    pub lines: u64,
}

impl Session {
    /// A session read whole, every entry [`Kind::Whole`].
    pub fn of(s: &file::Session) -> Session {
        Session {
            header: s.header.clone(),
            entries: s.entries.iter().map(Lite::of).collect(),
            unread: s.unread.clone(),
            lines: s.lines,
        }
    }

    /// The session id.
    pub fn session_id(&self) -> Option<&str> {
        self.header.as_ref().map(|h| h.id.as_str())
    }

    /// The folder it ran in.
    pub fn cwd(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.cwd.as_deref())
    }

    /// The lines that could not be read at all, as [`file::Session::bad_lines`].
    pub fn bad_lines(&self) -> u64 {
        self.unread
            .iter()
            .filter(|u| u.why.code != Code::UnknownRecordType)
            .count() as u64
    }

    /// The earliest and latest times it records, as [`file::Session::span`].
    pub fn span(&self) -> Option<(i64, i64)> {
        let started = self
            .header
            .as_ref()
            .and_then(|h| h.timestamp.as_deref())
            .and_then(parse_ms);
        started
            .into_iter()
            .chain(self.entries.iter().filter_map(|e| e.ms))
            .fold(None, |span, t| {
                Some(span.map_or((t, t), |(lo, hi): (i64, i64)| (lo.min(t), hi.max(t))))
            })
    }
}

/// Reads `src` as the answers read it; only reading the file itself fails.
pub fn read(src: &Source) -> std::io::Result<Session> {
    match read_fast(src)? {
        Some(s) => Ok(s),
        None => Ok(Session::of(&file::read(src)?)),
    }
}

/// The fast reading, or `None` where the file holds what only the full reading reads right.
pub fn read_fast(src: &Source) -> std::io::Result<Option<Session>> {
    let mut s = Session::default();
    let mut whole = false;
    let stats = cctool_core::io::for_each_line(src, |l| {
        if whole || l.bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if s.header.is_none() {
            // The first record: the header, read whole (a file without one is read whole).
            match file::parse(l.bytes).ok().and_then(|m| file::header(&m, l.no)) {
                Some(h) if h.version >= file::CURRENT_VERSION => s.header = Some(h),
                _ => whole = true,
            }
            return;
        }
        let Ok(line) = serde_json::from_slice::<Line<'_>>(l.bytes) else {
            whole = true;
            return;
        };
        let ty = line.ty.as_deref().unwrap_or("");
        if ty == "session" || ty == "context_edit" {
            whole = true;
            return;
        }
        let own = |c: &Option<Cow<'_, str>>| c.as_deref().map(str::to_string);
        let entry = match line
            .message
            .as_ref()
            .filter(|_| ty == "message")
            .and_then(Message::sent)
        {
            Some(sent) => Lite {
                line: l.no,
                id: own(&line.id),
                parent: own(&line.parent),
                ms: line.timestamp.as_deref().and_then(parse_ms),
                kind: Kind::Sent(sent),
            },
            None => match file::parse(l.bytes) {
                Ok(m) => Lite::of(&file::entry(l.no, l.offset, l.bytes, m)),
                Err(_) => {
                    whole = true;
                    return;
                }
            },
        };
        s.entries.push(entry);
    })?;
    if whole || s.header.is_none() {
        return Ok(None);
    }
    s.lines = stats.lines;
    Ok(Some(s))
}

/// A line's top-level members, the later of a key written twice winning, as in a `Map`.
#[derive(Default)]
struct Line<'a> {
    ty: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
    parent: Option<Cow<'a, str>>,
    timestamp: Option<Cow<'a, str>>,
    message: Option<Message<'a>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Line<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Line<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an entry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Line<'a>, A::Error> {
                let mut l = Line::default();
                while let Some(k) = a.next_key::<Key<'de>>()? {
                    match k.0.as_ref() {
                        "type" => l.ty = a.next_value::<CheckedStr<'de>>()?.0,
                        "id" => l.id = a.next_value::<CheckedStr<'de>>()?.0,
                        "parentId" => l.parent = a.next_value::<CheckedStr<'de>>()?.0,
                        "timestamp" => l.timestamp = a.next_value::<CheckedStr<'de>>()?.0,
                        "message" => l.message = a.next_value::<IfObject<Message<'de>>>()?.0,
                        _ => {
                            a.next_value::<RawChecked>()?;
                        }
                    }
                }
                Ok(l)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A `message` object's members the answers read, and its length (`None` when it names a key
/// twice).
#[derive(Default)]
struct Message<'a> {
    role: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    tool_call_id: Option<Cow<'a, str>>,
    content: Option<Content<'a>>,
    len: Option<usize>,
}

impl Message<'_> {
    /// What is kept of it, when a resume sends it as written (`convertToLlm` passes it on, and
    /// its content needs no default).
    fn sent(&self) -> Option<Sent> {
        let role = match self.role.as_deref()? {
            "user" => "user",
            "assistant" => "assistant",
            "toolResult" => "toolResult",
            "system" => "system",
            _ => return None,
        };
        let content = self.content.as_ref().filter(|c| !c.null)?;
        let own = |c: &Option<Cow<'_, str>>| c.as_deref().map(str::to_string);
        Some(Sent {
            role,
            model: own(&self.model).filter(|_| role == "assistant"),
            first_text: match role {
                "user" => own(&content.first_text)
                    .or_else(|| content.first_block_text.and_then(|t| t.str()).map(Cow::into_owned)),
                _ => None,
            },
            calls: match role {
                "assistant" => content.calls.iter().map(|c| c.to_string()).collect(),
                _ => Vec::new(),
            },
            tool_call_id: own(&self.tool_call_id).filter(|_| role == "toolResult"),
            len: self.len?,
        })
    }
}

/// Adds `n` to a length that is still known.
fn add(len: &mut Option<usize>, n: Option<usize>) {
    *len = len.zip(n).map(|(a, b)| a + b);
}

/// The members of an object, counted as [`ValueLen`] counts them: `member` reads the value of
/// each key and gives its length; a key written twice leaves no length.
fn members<'de, A: MapAccess<'de>>(
    mut a: A,
    mut member: impl FnMut(&str, &mut A) -> Result<Option<usize>, A::Error>,
) -> Result<Option<usize>, A::Error> {
    let mut keys: Vec<Key<'de>> = Vec::new();
    let mut len = Some(0);
    while let Some(k) = a.next_key::<Key<'de>>()? {
        if keys.iter().any(|seen| seen.0 == k.0) {
            len = None;
        }
        let n = member(&k.0, &mut a)?;
        add(&mut len, n.map(|n| n + escaped_len(&k.0) + 1));
        keys.push(k);
    }
    add(&mut len, Some(2 + keys.len().saturating_sub(1)));
    Ok(len)
}

impl<'de: 'a, 'a> Deserialize<'de> for Message<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Message<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Message<'a>, A::Error> {
                let mut m = Message::default();
                m.len = members(a, |k, a| {
                    let s = |v: MeasuredStr<'de>, to: &mut Option<Cow<'de, str>>| {
                        *to = v.str;
                        v.len
                    };
                    Ok(match k {
                        "role" => s(a.next_value()?, &mut m.role),
                        "model" => s(a.next_value()?, &mut m.model),
                        "toolCallId" => s(a.next_value()?, &mut m.tool_call_id),
                        "content" => {
                            let c: Content<'de> = a.next_value()?;
                            let len = c.len;
                            m.content = Some(c);
                            len
                        }
                        _ => a.next_value::<RawLen>()?.0,
                    })
                })?;
                Ok(m)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A message's `content`: whether it is `null`, its first text ([`first_text`]), its calls
/// (the ids of its `toolCall` blocks), and its length.
#[derive(Default)]
struct Content<'a> {
    null: bool,
    /// The content when it is a string.
    first_text: Option<Cow<'a, str>>,
    /// The `text` of its first `text` block, decoded only for a user's message.
    first_block_text: Option<RawStr<'a>>,
    calls: Vec<Cow<'a, str>>,
    len: Option<usize>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Content<'a>, A::Error> {
                let mut c = Content {
                    len: Some(0),
                    ..Content::default()
                };
                let (mut n, mut text_found) = (0usize, false);
                while let Some(b) = a.next_element::<Block<'de>>()? {
                    n += 1;
                    add(&mut c.len, b.len);
                    if b.ty.as_deref() == Some("text") && !std::mem::replace(&mut text_found, true) {
                        c.first_block_text = b.text;
                    }
                    if let (Some("toolCall"), Some(id)) = (b.ty.as_deref(), b.id) {
                        c.calls.push(id);
                    }
                }
                add(&mut c.len, Some(2 + n.saturating_sub(1)));
                Ok(c)
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Content<'a>, E> {
                let m = MeasuredStr::deserialize(serde::de::value::BorrowedStrDeserializer::<E>::new(v))?;
                Ok(Content {
                    len: m.len,
                    first_text: m.str,
                    ..Content::default()
                })
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Content<'a>, E> {
                Ok(Content {
                    len: Some(escaped_len(v)),
                    first_text: Some(Cow::Owned(v.to_owned())),
                    ..Content::default()
                })
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Content<'a>, E> {
                Ok(Content {
                    null: true,
                    len: Some(4),
                    ..Content::default()
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Content<'a>, A::Error> {
                let len = ValueLen::deserialize(serde::de::value::MapAccessDeserializer::new(a))?;
                Ok(Content {
                    len: len.0,
                    ..Content::default()
                })
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Content<'a>, E> {
                scalar(serde::de::value::BoolDeserializer::<E>::new(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Content<'a>, E> {
                scalar(serde::de::value::I64Deserializer::<E>::new(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Content<'a>, E> {
                scalar(serde::de::value::U64Deserializer::<E>::new(v))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Content<'a>, E> {
                scalar(serde::de::value::F64Deserializer::<E>::new(v))
            }
        }
        fn scalar<'de, 'a, D: Deserializer<'de>>(d: D) -> Result<Content<'a>, D::Error> {
            Ok(Content {
                len: ValueLen::deserialize(d)?.0,
                ..Content::default()
            })
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A content block: its `type`, `text` and `id` when they are strings, and its length.
#[derive(Default)]
struct Block<'a> {
    ty: Option<Cow<'a, str>>,
    text: Option<RawStr<'a>>,
    id: Option<Cow<'a, str>>,
    len: Option<usize>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Block<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Block<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a block")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Block<'a>, A::Error> {
                let mut b = Block::default();
                b.len = members(a, |k, a| {
                    let s = |v: MeasuredStr<'de>, to: &mut Option<Cow<'de, str>>| {
                        *to = v.str;
                        v.len
                    };
                    Ok(match k {
                        "type" => s(a.next_value()?, &mut b.ty),
                        "text" => {
                            let t: RawStr<'de> = a.next_value()?;
                            b.text = Some(t);
                            t.len
                        }
                        "id" => s(a.next_value()?, &mut b.id),
                        _ => a.next_value::<RawLen>()?.0,
                    })
                })?;
                Ok(b)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Block<'a>, A::Error> {
                let len = ValueLen::deserialize(serde::de::value::SeqAccessDeserializer::new(a))?;
                Ok(Block {
                    len: len.0,
                    ..Block::default()
                })
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Block<'a>, E> {
                Ok(Block {
                    len: Some(v.len() + 2),
                    ..Block::default()
                })
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Block<'a>, E> {
                Ok(Block {
                    len: Some(escaped_len(v)),
                    ..Block::default()
                })
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Block<'a>, E> {
                Ok(Block {
                    len: Some(4),
                    ..Block::default()
                })
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Block<'a>, E> {
                scalar(serde::de::value::BoolDeserializer::<E>::new(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Block<'a>, E> {
                scalar(serde::de::value::I64Deserializer::<E>::new(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Block<'a>, E> {
                scalar(serde::de::value::U64Deserializer::<E>::new(v))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Block<'a>, E> {
                scalar(serde::de::value::F64Deserializer::<E>::new(v))
            }
        }
        fn scalar<'de, 'a, D: Deserializer<'de>>(d: D) -> Result<Block<'a>, D::Error> {
            Ok(Block {
                len: ValueLen::deserialize(d)?.0,
                ..Block::default()
            })
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests;
