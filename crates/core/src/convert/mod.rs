//! `cctool convert`: a session continued in the other agent (`docs/convert.md`).
//!
//! Each agent's reader (`agents/<agent>/convert.rs`) turns the conversation its resume loads
//! into a [`model::Conversation`]; the target agent's writer turns that into the target's
//! lines. Every id the writers make is derived from the source session and the source record
//! (`compact::ids`), so the same source always gives the same lines, and a source that grew
//! gives the old lines followed by new ones: [`incremental`] appends only those.

pub mod incremental;
pub mod json;
pub mod model;
pub mod read;
pub mod store;
pub mod stream;
pub mod tools;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::time::{format_ms, parse_ms};

/// What a writer needs besides the conversation.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    /// The target's session id.
    pub session_id: String,
    /// The working directory the target session records.
    pub cwd: String,
    /// The model written into the target (`--model`), if any.
    pub model: Option<String>,
    /// Visible reasoning carried as marked text (`--reasoning-as-text`).
    pub reasoning_as_text: bool,
    /// The tools of the agent the conversation was read from: each call is read through
    /// them into the target's ([`tools::translate`]).
    pub tools: &'static dyn tools::Vocabulary,
}

/// What a writer mapped and left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Tool calls mapped to another tool, per mapping (`Bash → exec_command`).
    pub mapped: BTreeMap<String, u64>,
    /// Left out by the writer (reasoning), by kind.
    pub dropped: BTreeMap<String, u64>,
    /// Estimated tokens of what the target receives on resume.
    pub tokens: u64,
    /// Calls left unanswered in the source, closed with a result of the target's (Claude Code:
    /// `aborted`; Gemini CLI: the client's cancelled response).
    pub closed: u64,
}

impl Tally {
    /// Counts one tool call under its mapping label; `None`: the call kept its name.
    pub fn map(&mut self, label: Option<String>) {
        if let Some(l) = label {
            *self.mapped.entry(l).or_insert(0) += 1;
        }
    }

    /// Counts one left-out item of `kind` (`reasoning`, …).
    pub fn drop(&mut self, kind: &str) {
        *self.dropped.entry(kind.to_string()).or_insert(0) += 1;
    }
}

/// The marker of reasoning carried as text.
pub fn reasoning_text(text: &str) -> String {
    format!("<reasoning carried over by cctool convert>\n{text}\n</reasoning carried over by cctool convert>")
}

/// Timestamps for the target: each entry's own, never earlier than the one before (both
/// agents order by them), as `YYYY-MM-DDTHH:MM:SS.mmmZ` strings.
pub struct Clock {
    last: i64,
}

impl Clock {
    /// A clock that starts at `first` (an RFC 3339 timestamp); the epoch when it is `None` or
    /// unreadable.
    pub fn new(first: Option<&str>) -> Clock {
        Clock {
            last: first.and_then(parse_ms).unwrap_or(0),
        }
    }

    /// The stamp of an entry written at `ts`: `ts` itself unless it is missing, unreadable or
    /// earlier than the last stamp, then the last stamp.
    pub fn stamp(&mut self, ts: Option<&str>) -> String {
        if let Some(ms) = ts.and_then(parse_ms) {
            self.last = self.last.max(ms);
        }
        format_ms(self.last)
    }
}

/// A JSON line (serde_json never writes a raw newline inside one).
pub fn line(v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// The [`line`] of the object `head` followed by `key` with the value already serialized as
/// `raw`, then the `tail` entries: the same bytes as the object built whole, without
/// serializing (escaping) the large value a second time. The Claude Code writer built its
/// rows this way before it wrote them directly; its test oracle still does.
#[cfg(any(test, feature = "testing"))]
pub fn line_with(
    head: serde_json::Map<String, serde_json::Value>,
    key: &str,
    raw: &[u8],
    tail: &[(&str, serde_json::Value)],
) -> Vec<u8> {
    let mut out = line(&serde_json::Value::Object(head));
    out.pop();
    let entry = |out: &mut Vec<u8>, k: &str, v: &[u8]| {
        if out.len() > 1 {
            out.push(b',');
        }
        out.extend(line(&serde_json::Value::from(k)));
        out.push(b':');
        out.extend_from_slice(v);
    };
    entry(&mut out, key, raw);
    for (k, v) in tail {
        entry(&mut out, k, &line(v));
    }
    out.push(b'}');
    out
}

/// A writer of one agent's format, fed the conversation an entry at a time: the lines of
/// each entry go to `out` (without their newlines) as soon as it is written. A text held as
/// its JSON string ([`model::Part::Json`]) goes into the line as written.
pub trait EntryWriter: Send {
    /// Writes the lines of one entry.
    fn entry(&mut self, e: &model::Entry, out: &mut Vec<Vec<u8>>);
    /// The lines that close the conversation.
    fn finish(&mut self, out: &mut Vec<Vec<u8>>);
    /// What was mapped and left out so far.
    fn tally(&mut self) -> Tally;
}

/// Entries built by hand, for the converters' tests.
#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// A writer from the options, the conversation's first timestamp and the calls it answers;
/// the session's first lines go to the last argument.
pub type MakeWriter = fn(&WriteOptions, Option<&str>, model::Answered, &mut Vec<Vec<u8>>) -> Box<dyn EntryWriter>;

/// A whole conversation through the writer `make` makes, at once: each agent's `write` (the
/// command streams instead).
pub fn write_whole(make: MakeWriter, c: &model::Conversation, o: &WriteOptions, tally: &mut Tally) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut w = make(o, c.first_timestamp(), c.answered_calls(), &mut out);
    for e in &c.entries {
        w.entry(e, &mut out);
    }
    w.finish(&mut out);
    *tally = w.tally();
    out
}

/// The fields of a line the readers' counting pass needs (`type`, `timestamp`, and the
/// payload's `type`, `id`, `cwd`, `model`); every other value is skipped without being built.
#[derive(serde::Deserialize, Default, Debug, PartialEq)]
pub struct LineHead<'a> {
    /// The line's `type`.
    #[serde(rename = "type", borrow, default)]
    pub ty: Option<std::borrow::Cow<'a, str>>,
    /// The line's `timestamp`, as written.
    #[serde(borrow, default)]
    pub timestamp: Option<std::borrow::Cow<'a, str>>,
    /// The `payload` object's fields, for a Codex line.
    #[serde(borrow, default)]
    pub payload: Option<PayloadHead<'a>>,
}

/// The fields of a Codex line's `payload` that [`LineHead`] keeps.
#[derive(serde::Deserialize, Default, Debug, PartialEq)]
pub struct PayloadHead<'a> {
    /// The payload's `type`.
    #[serde(rename = "type", borrow, default)]
    pub ty: Option<std::borrow::Cow<'a, str>>,
    /// The payload's `id` (the session id in `session_meta`).
    #[serde(borrow, default)]
    pub id: Option<std::borrow::Cow<'a, str>>,
    /// The working directory (`session_meta`, `turn_context`).
    #[serde(borrow, default)]
    pub cwd: Option<std::borrow::Cow<'a, str>>,
    /// The model (`turn_context`).
    #[serde(borrow, default)]
    pub model: Option<std::borrow::Cow<'a, str>>,
}

impl LineHead<'_> {
    /// The same head, holding its strings.
    pub fn into_owned(self) -> LineHead<'static> {
        use std::borrow::Cow;
        let own = |s: Option<Cow<'_, str>>| s.map(|s| Cow::Owned(s.into_owned()));
        LineHead {
            ty: own(self.ty),
            timestamp: own(self.timestamp),
            payload: self.payload.map(|p| PayloadHead {
                ty: own(p.ty),
                id: own(p.id),
                cwd: own(p.cwd),
                model: own(p.model),
            }),
        }
    }
}

/// [`LineHead`] of a line. A line the typed parse refuses (a field of another type, a repeated
/// key, a lone surrogate) is read the lenient way, as every reader reads it.
pub fn line_head(bytes: &[u8]) -> LineHead<'static> {
    use std::borrow::Cow;
    if let Ok(h) = serde_json::from_slice::<LineHead<'_>>(bytes) {
        return h.into_owned();
    }
    let v = crate::io::json::parse_record(bytes);
    let s = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_str)
            .map(|s| Cow::Owned(s.to_string()))
    };
    LineHead {
        ty: s(&v, "type"),
        timestamp: s(&v, "timestamp"),
        payload: v.get("payload").filter(|p| p.is_object()).map(|p| PayloadHead {
            ty: s(p, "type"),
            id: s(p, "id"),
            cwd: s(p, "cwd"),
            model: s(p, "model"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An object written with one value already serialized is the object written whole.
    #[test]
    fn line_with_equals_the_whole_object() {
        use serde_json::{Map, json};
        let big = json!({"text": "a \"quoted\" line\n\u{1}é", "n": [1, 2.5, null]});
        for (head, tail) in [
            (Map::new(), vec![]),
            (Map::from_iter([("type".to_string(), json!("x"))]), vec![]),
            (
                Map::from_iter([("a".to_string(), json!(null)), ("b\"".to_string(), json!([1]))]),
                vec![("t", json!("2026")), ("u", json!({"k": false}))],
            ),
        ] {
            let mut whole = head.clone();
            whole.insert("payload".into(), big.clone());
            for (k, v) in &tail {
                whole.insert(k.to_string(), v.clone());
            }
            assert_eq!(
                line_with(head, "payload", &line(&big), &tail),
                line(&serde_json::Value::Object(whole))
            );
        }
    }

    /// The typed parse and the lenient one agree, on lines of every shape the pass meets.
    #[test]
    fn line_head_equals_the_lenient_read() {
        let lenient = |b: &[u8]| {
            let v = crate::io::json::parse_record(b);
            let s = |v: &serde_json::Value, k: &str| v.get(k).and_then(serde_json::Value::as_str).map(str::to_string);
            (
                s(&v, "type"),
                s(&v, "timestamp"),
                v.get("payload").and_then(|p| s(p, "type")),
                v.get("payload").and_then(|p| s(p, "cwd")),
            )
        };
        for line in [
            r#"{"type":"session_meta","timestamp":"t","payload":{"id":"x","cwd":"/w","base_instructions":{"text":"…"}}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"a\"b"}]},"timestamp":12}"#,
            r#"{"type":"user","type":"assistant"}"#,
            r#"{"type":"response_item","payload":null}"#,
            r#"{"type":"x","payload":{"cwd":7}}"#,
            r#"not json"#,
            r#"{"type":"a\ud800b"}"#,
        ] {
            let h = line_head(line.as_bytes());
            let got = (
                h.ty.map(|s| s.into_owned()),
                h.timestamp.map(|s| s.into_owned()),
                h.payload.as_ref().and_then(|p| p.ty.clone()).map(|s| s.into_owned()),
                h.payload.as_ref().and_then(|p| p.cwd.clone()).map(|s| s.into_owned()),
            );
            assert_eq!(got, lenient(line.as_bytes()), "{line}");
        }
    }
}
