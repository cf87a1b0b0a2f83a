//! A part of a Content as the request's passes read it ([`Part`]): what they ask of it, read
//! once. A session read whole lends its parts' strings ([`Part::of`]); the fast reader of `scan`
//! ([`crate::lite`]) reads parts straight into owned ones, with no `Value` tree per part.

use std::borrow::Cow;

use serde_json::Value;

use crate::chain::truthy;

/// A part of a Content: the keys the passes read, each as they read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Part<'s> {
    /// What JSON value the part is.
    pub shape: Shape,
    /// How many keys it has (an object's).
    pub keys: usize,
    /// The part itself, where it is a string: sent as a text.
    pub string: Option<Cow<'s, str>>,
    /// Its `text`.
    pub text: Text<'s>,
    /// Whether its `thought` is truthy.
    pub thought: bool,
    /// Whether its `thoughtSignature` is truthy.
    pub signature: bool,
    /// Its `functionCall`, where it has one.
    pub call: Option<CallPart<'s>>,
    /// Its `functionResponse`, where it has one.
    pub response: Option<ResponsePart<'s>>,
    /// The `mimeType` of the first of its `inlineData` and `fileData` that is truthy, where one
    /// is (`None` inside where it names none that is a string).
    pub media: Option<Option<Cow<'s, str>>>,
}

/// A record's message as the fast reader of `scan` keeps it ([`crate::lite`]): its role and
/// its parts, typed, in place of the message's `Value`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypedMessage {
    /// Its `role`, where it is a string.
    pub role: Option<String>,
    /// Its `parts`, where they are an array (else none).
    pub parts: Vec<Part<'static>>,
}

/// What JSON value a part is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shape {
    /// An object.
    #[default]
    Object,
    /// A string.
    String,
    /// A number, a boolean, `null` or an array.
    Other,
}

/// A part's `text`.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Text<'s> {
    /// It has none.
    #[default]
    Absent,
    /// A value that is no string.
    Other,
    /// A string.
    Str(Cow<'s, str>),
}

impl Text<'_> {
    /// The string, where it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Text::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A part's `functionCall`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallPart<'s> {
    /// Whether it is truthy.
    pub truthy: bool,
    /// Its `id`, where it is an object and the id a string.
    pub id: Option<Cow<'s, str>>,
    /// Its `name`, where it is an object and the name a string.
    pub name: Option<Cow<'s, str>>,
    /// Its `args` written as JSON, where they are truthy.
    pub args: Option<Cow<'s, str>>,
}

/// A part's `functionResponse`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResponsePart<'s> {
    /// Whether it is truthy.
    pub truthy: bool,
    /// Its `id`, where it is an object and the id a string.
    pub id: Option<Cow<'s, str>>,
    /// What `createToolMessage` sends of its `response`: its `output` or `error` where one is a
    /// string, the response as JSON otherwise, nothing where there is none.
    pub sent: Cow<'s, str>,
    /// Its `parts`, where they are an array.
    pub parts: Option<Vec<Part<'s>>>,
}

impl<'s> Part<'s> {
    /// The part written `v`, its strings borrowed.
    pub fn of(v: &'s Value) -> Part<'s> {
        let o = match v {
            Value::Object(o) => o,
            Value::String(s) => {
                return Part {
                    shape: Shape::String,
                    string: Some(Cow::Borrowed(s)),
                    ..Part::default()
                };
            }
            _ => {
                return Part {
                    shape: Shape::Other,
                    ..Part::default()
                };
            }
        };
        let str_of = |v: &'s Value, k: &str| v.get(k).and_then(Value::as_str).map(Cow::Borrowed);
        Part {
            shape: Shape::Object,
            keys: o.len(),
            string: None,
            text: match o.get("text") {
                None => Text::Absent,
                Some(Value::String(s)) => Text::Str(Cow::Borrowed(s)),
                Some(_) => Text::Other,
            },
            thought: o.get("thought").is_some_and(truthy),
            signature: o.get("thoughtSignature").is_some_and(truthy),
            call: o.get("functionCall").map(|f| CallPart {
                truthy: truthy(f),
                id: str_of(f, "id"),
                name: str_of(f, "name"),
                args: f
                    .get("args")
                    .filter(|a| truthy(a))
                    .map(|a| Cow::Owned(cctool_core::io::json::to_json(a))),
            }),
            response: o.get("functionResponse").map(|r| ResponsePart {
                truthy: truthy(r),
                id: str_of(r, "id"),
                sent: sent(r.get("response")),
                parts: r
                    .get("parts")
                    .and_then(Value::as_array)
                    .map(|p| p.iter().map(Part::of).collect()),
            }),
            media: ["inlineData", "fileData"]
                .iter()
                .find_map(|k| o.get(*k).filter(|m| truthy(m)))
                .map(|m| str_of(m, "mimeType")),
        }
    }

    /// The part `{"text": text}`.
    pub fn text(text: Cow<'s, str>) -> Part<'s> {
        Part {
            keys: 1,
            text: Text::Str(text),
            ..Part::default()
        }
    }

    /// The same part, its strings borrowed from this one.
    pub fn lent(&self) -> Part<'_> {
        Part {
            shape: self.shape,
            keys: self.keys,
            string: lend(&self.string),
            text: match &self.text {
                Text::Absent => Text::Absent,
                Text::Other => Text::Other,
                Text::Str(s) => Text::Str(Cow::Borrowed(s)),
            },
            thought: self.thought,
            signature: self.signature,
            call: self.call.as_ref().map(|c| CallPart {
                truthy: c.truthy,
                id: lend(&c.id),
                name: lend(&c.name),
                args: lend(&c.args),
            }),
            response: self.response.as_ref().map(|r| ResponsePart {
                truthy: r.truthy,
                id: lend(&r.id),
                sent: Cow::Borrowed(&r.sent),
                parts: r.parts.as_ref().map(|p| p.iter().map(Part::lent).collect()),
            }),
            media: self.media.as_ref().map(lend),
        }
    }
}

/// `s` borrowed.
fn lend<'a>(s: &'a Option<Cow<'_, str>>) -> Option<Cow<'a, str>> {
    s.as_deref().map(Cow::Borrowed)
}

/// What `createToolMessage` sends of a function response's `response`.
pub fn sent(response: Option<&Value>) -> Cow<'_, str> {
    match response {
        None | Some(Value::Null) => Cow::Borrowed(""),
        Some(Value::String(s)) => Cow::Borrowed(s),
        Some(o @ Value::Object(m)) => match (m.get("output"), m.get("error")) {
            (Some(Value::String(s)), _) | (_, Some(Value::String(s))) => Cow::Borrowed(s),
            _ => Cow::Owned(cctool_core::io::json::to_json(o)),
        },
        Some(v) => Cow::Owned(cctool_core::io::json::to_json(v)),
    }
}
