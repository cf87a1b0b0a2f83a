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
    /// Calls left unanswered in the source, closed with an `aborted` result.
    pub closed: u64,
}

impl Tally {
    pub fn map(&mut self, label: Option<String>) {
        if let Some(l) = label {
            *self.mapped.entry(l).or_insert(0) += 1;
        }
    }

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
    pub fn new(first: Option<&str>) -> Clock {
        Clock {
            last: first.and_then(parse_ms).unwrap_or(0),
        }
    }

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
#[cfg(test)]
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
    fn entry(&mut self, e: &model::Entry, out: &mut Vec<Vec<u8>>);
    /// The lines that close the conversation.
    fn finish(&mut self, out: &mut Vec<Vec<u8>>);
    /// What was mapped and left out so far.
    fn tally(&mut self) -> Tally;
}

/// What the converters' tests are made of: the project's fixtures, and entries built by hand.
#[cfg(test)]
pub(crate) mod testing {
    use super::model::{Block, Body, Conversation, Image, JsonText, Part, ToolCall, ToolResult};
    use crate::io::Source;
    use crate::model::Format;

    /// Every Claude Code transcript and Codex rollout of the project's fixtures, with its format.
    pub fn fixture_sources() -> Vec<(Source, Format)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        walkdir::WalkDir::new(&root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .filter_map(|e| {
                let bytes = std::fs::read(e.path()).ok()?;
                let src = Source::from_bytes(&e.path().display().to_string(), bytes);
                let format = crate::agents::detect::detect(&src).ok()?;
                (format != Format::CctoolSession).then_some((src, format))
            })
            .collect()
    }

    /// The conversation of each of [`fixture_sources`], read whole (`--full`) by its agent's
    /// reader: what the writers' tests write.
    pub fn fixture_conversations() -> Vec<Conversation> {
        fixture_sources()
            .iter()
            .filter_map(|(src, format)| match format {
                Format::ClaudeCode => crate::agents::claude_code::convert::read(src, true).ok(),
                _ => crate::agents::codex::convert::read(src, true).ok(),
            })
            .collect()
    }

    pub fn text(t: &str) -> Part {
        Part::Text(t.to_string())
    }

    /// `t` held as its JSON string.
    pub fn json(t: &str) -> Part {
        Part::Json(JsonText::canonical(&serde_json::to_string(t).unwrap()).unwrap())
    }

    pub fn img(url: &str) -> Part {
        Part::Image(Image::from_url(url))
    }

    pub fn call(id: &str, name: &str, input: serde_json::Value) -> Block {
        Block::Call(ToolCall {
            id: id.into(),
            name: name.into(),
            input,
        })
    }

    pub fn result(id: &str, output: Vec<Part>, is_error: bool) -> Body {
        Body::ToolResult(ToolResult {
            call_id: id.into(),
            output,
            is_error,
        })
    }
}

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

/// One agent's side of a conversion: its reader, its writer, and the lines of its own that
/// a later conversion may place elsewhere ([`incremental`]).
pub struct Side {
    /// Streams the conversation (`full`; `answered`: the head carries the answered calls).
    pub read: fn(&crate::io::Source, bool, bool, model::Sink<'_>) -> std::io::Result<model::Conversation>,
    pub writer: MakeWriter,
    /// Whether the writer needs the answered calls (it closes the others).
    pub needs_answered: bool,
    pub passable: fn(&[u8]) -> bool,
}

/// The agents `convert` reads and writes.
pub fn side(format: crate::model::Format) -> Option<Side> {
    use crate::agents::{claude_code, codex};
    use crate::model::Format;
    match format {
        Format::ClaudeCode => Some(Side {
            read: claude_code::convert::read_stream,
            writer: claude_code::convert::writer,
            needs_answered: true,
            passable: |_| false,
        }),
        Format::Codex => Some(Side {
            read: codex::convert::read_stream,
            writer: codex::convert::writer,
            needs_answered: false,
            passable: codex::convert::is_token_count,
        }),
        Format::CctoolSession => None,
    }
}

/// The target's session id: a UUID derived from the source session, the target format and
/// what is carried, so converting again names the same session.
pub fn target_session_id(c: &model::Conversation, to: crate::model::Format, full: bool) -> String {
    let from = c.source.map_or("", |f| f.name());
    let scope = if full { "full" } else { "resumed" };
    crate::compact::ids::uuid(&["cctool-convert", from, &c.session_id, to.name(), scope])
}

/// The fields of a line the readers' counting pass needs (`type`, `timestamp`, and the
/// payload's `type`, `id`, `cwd`, `model`); every other value is skipped without being built.
#[derive(serde::Deserialize, Default, Debug, PartialEq)]
pub struct LineHead<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    pub timestamp: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    pub payload: Option<PayloadHead<'a>>,
}

#[derive(serde::Deserialize, Default, Debug, PartialEq)]
pub struct PayloadHead<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    pub id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    pub cwd: Option<std::borrow::Cow<'a, str>>,
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

    /// The lines written from texts held as JSON strings are those written from the same
    /// texts held as text, by both writers: on the conversations of every transcript of the
    /// fixtures, as the typed read gives them, and on entries of every shape.
    #[test]
    fn json_texts_write_the_lines_of_plain_texts() {
        use model::{Body, Entry};
        use testing::{call, img, json, result, text};
        let mut convs: Vec<Vec<Entry>> = Vec::new();
        for (src, format) in testing::fixture_sources() {
            if format != crate::model::Format::ClaudeCode {
                continue;
            }
            for full in [false, true] {
                let mut entries = Vec::new();
                let read = crate::agents::claude_code::convert::read_stream(&src, full, false, &mut |m| {
                    if let model::Msg::Entry(e) = m {
                        entries.push(e);
                    }
                    Ok(())
                });
                if read.is_ok() {
                    convs.push(entries);
                }
            }
        }
        let img = img("data:image/png;base64,AAA=");
        let result = |id: &str, output: Vec<model::Part>| result(id, output, false);
        let odd = [
            Body::User(vec![json("a \"q\"\n\u{1}é😀"), img.clone(), text("b\t"), json("c")]),
            Body::User(vec![json("")]),
            Body::User(vec![img.clone(), json("\\ \u{7f}\u{2028}")]),
            Body::Assistant(vec![call(
                "c5",
                "Edit",
                serde_json::json!({"file_path": "/a", "old_string": "x", "new_string": "y"}),
            )]),
            result("c1", vec![json("out\r\n")]),
            result("c2", vec![json("a"), text("\u{8}"), json("\u{c}c")]),
            result("c3", vec![json("a"), img.clone(), json("b")]),
            result("c5", vec![json("x"), img, json("y\u{1f}")]),
            result("c5", vec![json("p\"atch")]),
        ];
        convs.push(
            odd.into_iter()
                .enumerate()
                .map(|(k, body)| Entry {
                    key: format!("k{k}"),
                    timestamp: Some(format!("2026-01-01T00:00:0{k}.000Z")),
                    body,
                })
                .collect(),
        );
        let (mut compared, mut held) = (0, 0);
        // Each writer reads the calls through the other agent's tools, as a conversion does.
        let writers: [(crate::convert::MakeWriter, crate::model::Format); 2] = [
            (crate::agents::codex::convert::writer, crate::model::Format::ClaudeCode),
            (crate::agents::claude_code::convert::writer, crate::model::Format::Codex),
        ];
        for ((make, from), entries) in writers.iter().flat_map(|m| convs.iter().map(move |c| (m, c))) {
            let o = WriteOptions {
                session_id: "s".into(),
                cwd: "/w".into(),
                model: None,
                reasoning_as_text: false,
                tools: crate::agents::agent(*from).tools().expect("an agent with tools"),
            };
            let first = entries.iter().find_map(|e| e.timestamp.clone());
            let mut both = [Vec::new(), Vec::new()];
            for (k, out) in both.iter_mut().enumerate() {
                let mut w = make(&o, first.as_deref(), Default::default(), out);
                for e in entries {
                    match k {
                        0 => w.entry(e, out),
                        _ => w.entry(&e.clone().into_plain(), out),
                    }
                }
                w.finish(out);
            }
            held += entries.iter().filter(|e| e.body.json_texts() > 0).count();
            let [json_lines, plain_lines] = both;
            for (a, b) in json_lines.iter().zip(&plain_lines) {
                assert_eq!(String::from_utf8_lossy(a), String::from_utf8_lossy(b));
            }
            assert_eq!(json_lines.len(), plain_lines.len());
            compared += json_lines.len();
        }
        assert!(
            held > 400 && compared > 4_500,
            "{held} entries with JSON texts, {compared} lines"
        );
    }

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
