//! The messages of the request Qwen Code sends ([`super`]), typed, and written as the client
//! writes them: `--api-view` prints them, and `scan` counts their length without writing them.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// One message of the request, as the client writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Message<'s> {
    /// `{"role":"user","content":[{"type":"text","text":…}…]}`.
    User(Vec<Cow<'s, str>>),
    /// `{"role":"tool","tool_call_id":…,"content":…}`: its texts as text parts, or `""` when it
    /// has none.
    Tool {
        /// The call it answers.
        id: Cow<'s, str>,
        /// Its texts.
        texts: Vec<Cow<'s, str>>,
    },
    /// `{"role":"assistant","content":…,"tool_calls":[…],"reasoning_content":…}`.
    Assistant(Assistant<'s>),
}

/// An assistant message of the request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Assistant<'s> {
    /// Its `content`: `null`, or its texts joined.
    pub content: Option<String>,
    /// Its `tool_calls`, written only when there are some.
    pub calls: Vec<Call<'s>>,
    /// Its `reasoning_content`, written only when it is not empty.
    pub reasoning: String,
    /// Whether `tool_calls` is written after `reasoning_content`: calls joined to a message that
    /// had reasoning and no calls, whose keys keep their order in the client's object.
    pub(super) calls_last: bool,
}

/// A call of an assistant message: `{"id":…,"type":"function","function":{"name":…,"arguments":…}}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call<'s> {
    /// Its id.
    pub id: Cow<'s, str>,
    /// The function's name.
    pub name: Cow<'s, str>,
    /// Its arguments as JSON text.
    pub arguments: Cow<'s, str>,
}

impl Message<'_> {
    /// Its calls, where it is an assistant's.
    pub(super) fn calls(&self) -> &[Call<'_>] {
        match self {
            Message::Assistant(a) => &a.calls,
            _ => &[],
        }
    }

    /// It as the JSON the client sends.
    pub fn value(&self) -> Value {
        // Writing strings, arrays and maps to a value cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Its length written as compact JSON.
    pub fn written_len(&self) -> usize {
        cctool_core::io::json::json_len(self)
    }

    /// Calls `f` with each of its strings that is no key.
    pub fn for_each_str(&self, f: &mut impl FnMut(&str)) {
        match self {
            Message::User(texts) => texts.iter().for_each(|t| f(t)),
            Message::Tool { id, texts } => {
                f(id);
                texts.iter().for_each(|t| f(t));
            }
            Message::Assistant(a) => {
                if let Some(c) = &a.content {
                    f(c);
                }
                for c in &a.calls {
                    f(&c.id);
                    f("function");
                    f(&c.name);
                    f(&c.arguments);
                }
                f(&a.reasoning);
            }
        }
    }
}

/// `{"type":"text","text":…}`.
struct TextPart<'a>(&'a str);

impl Serialize for TextPart<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("type", "text")?;
        m.serialize_entry("text", self.0)?;
        m.end()
    }
}

/// Texts as an array of text parts.
struct TextParts<'a, 's>(&'a [Cow<'s, str>]);

impl Serialize for TextParts<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| TextPart(t)))
    }
}

impl Serialize for Message<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::User(texts) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("role", "user")?;
                m.serialize_entry("content", &TextParts(texts))?;
                m.end()
            }
            Message::Tool { id, texts } => {
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("role", "tool")?;
                m.serialize_entry("tool_call_id", id)?;
                if texts.is_empty() {
                    m.serialize_entry("content", "")?;
                } else {
                    m.serialize_entry("content", &TextParts(texts))?;
                }
                m.end()
            }
            Message::Assistant(a) => {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("role", "assistant")?;
                m.serialize_entry("content", &a.content)?;
                let reasoning = !a.reasoning.is_empty();
                if a.calls_last && reasoning {
                    m.serialize_entry("reasoning_content", &a.reasoning)?;
                }
                if !a.calls.is_empty() {
                    m.serialize_entry("tool_calls", &a.calls)?;
                }
                if !a.calls_last && reasoning {
                    m.serialize_entry("reasoning_content", &a.reasoning)?;
                }
                m.end()
            }
        }
    }
}

impl Serialize for Call<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Function<'a>(&'a str, &'a str);
        impl Serialize for Function<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("name", self.0)?;
                m.serialize_entry("arguments", self.1)?;
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("type", "function")?;
        m.serialize_entry("function", &Function(&self.name, &self.arguments))?;
        m.end()
    }
}

impl<'s> Assistant<'s> {
    /// `next` joined to this message: contents and reasoning concatenated, calls appended.
    pub(super) fn join(&mut self, next: Assistant<'s>) {
        // Appended in place: a run of many messages joined costs their length, not its square.
        match (&mut self.content, next.content) {
            (Some(content), Some(more)) => content.push_str(&more),
            (None, Some(more)) => self.content = Some(more),
            _ => {}
        }
        if self.content.as_deref() == Some("") {
            self.content = None;
        }
        self.calls_last |= self.calls.is_empty() && !self.reasoning.is_empty() && !next.calls.is_empty();
        self.calls.extend(next.calls);
        self.reasoning.push_str(&next.reasoning);
    }
}
