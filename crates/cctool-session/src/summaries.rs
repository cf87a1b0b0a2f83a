//! cctool v5 sessions' summaries: each `summary` item; the last one is what a resume sees.

use crate::io::Source;
use crate::summary::*;
use serde_json::{Map, Value};

/// Fields of a v5 `summary` item that map onto a record's own fields; the others (a
/// structured recap's goal, constraints…) are reported under `metadata`.
const ITEM_FIELDS: &[&str] = &[
    "type",
    "text",
    "origin",
    "encrypted",
    "encrypted_len",
    "retained_messages",
    "trigger",
    "pre_tokens",
];

/// cctool v5: every `summary` item; the last one is what a resume sees.
pub fn session(src: &Source, messages: &crate::file::Messages, session_id: Option<String>) -> Vec<SummaryRecord> {
    session_with(src, messages, session_id, Options::default())
}

/// [`session()`] with `--strip-template`. An imported compaction keeps what the native file
/// said of it (`origin`, `encrypted`, `encrypted_len`, `retained_messages`, `trigger`,
/// `pre_tokens`; see `docs/cctool-session.md`), so it reads back as it did there; an item
/// without `origin` is cctool's own or a local one.
pub fn session_with(
    src: &Source,
    messages: &crate::file::Messages,
    session_id: Option<String>,
    opts: Options,
) -> Vec<SummaryRecord> {
    let mut s = SessionSummaries::new(src, opts);
    for m in messages.iter() {
        s.message(m);
    }
    s.finish(session_id)
}

/// The summary records of a cctool session, fed its messages one at a time (see
/// [`crate::file::for_each_message`]).
pub(crate) struct SessionSummaries {
    file: String,
    opts: Options,
    out: Vec<SummaryRecord>,
    /// Messages that cannot hold a summary item are not parsed (see [`SessionSummaries::message`]).
    prefilter: bool,
}

impl SessionSummaries {
    /// A collector for the file `src`, before any message is fed to it.
    pub fn new(src: &Source, opts: Options) -> SessionSummaries {
        SessionSummaries {
            file: src.name().to_string(),
            opts,
            out: Vec::new(),
            prefilter: true,
        }
    }

    /// One message, as JSON text. A summary item's `"type"` is the string `summary`, which the
    /// text holds as written (`"type": "summary"`, any JSON whitespace around the colon)
    /// unless an escape spells one of the letters of the key or the value, and only `\u0061`
    /// to `\u007a` can: a message with neither is skipped unparsed, as most of a session's
    /// messages are (control characters, escaped as `\u001b`, are common; so is `"summary"`
    /// as another field's value, such as a Codex turn context's reasoning summary setting).
    pub fn message(&mut self, m: &[u8]) {
        // Searchers built once: building one per message cost a tenth of reading a session.
        static SUMMARY: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"summary\""));
        static ESCAPE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u00"));
        let may_hold = |m: &[u8]| {
            SUMMARY.find_iter(m).any(|at| is_type_value(m, at))
                || ESCAPE.find_iter(m).any(|at| matches!(m.get(at + 4), Some(b'6' | b'7')))
        };
        if self.prefilter && !may_hold(m) {
            return;
        }
        let v = parse(m);
        for item in v.get("items").and_then(Value::as_array).into_iter().flatten() {
            if item.get("type").and_then(Value::as_str) != Some("summary") {
                continue;
            }
            let structured: Map<String, Value> = item
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| !ITEM_FIELDS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let origin = match item.get("origin").and_then(Value::as_str) {
                Some("remote") => "remote",
                Some("legacy") => "legacy",
                _ => "local",
            };
            let retained = item.get("retained_messages").and_then(Value::as_array).map(|kept| {
                kept.iter()
                    .map(|r| Retained {
                        role: str_of(r, "role").unwrap_or_default(),
                        text: str_of(r, "text").unwrap_or_default(),
                    })
                    .collect()
            });
            let text = str_of(item, "text").map(|t| {
                if self.opts.strip_template {
                    template::strip(&t)
                } else {
                    t
                }
            });
            self.out.push(SummaryRecord {
                kind: "summary",
                file: self.file.clone(),
                format: "cctool-v5",
                session_id: None,
                index: self.out.len(),
                timestamp: str_of(&v, "timestamp"),
                trigger: str_of(item, "trigger"),
                pre_tokens: item.get("pre_tokens").and_then(Value::as_i64),
                origin: Some(origin),
                encrypted: item.get("encrypted").and_then(Value::as_bool) == Some(true),
                encrypted_len: item.get("encrypted_len").and_then(Value::as_u64).map(|n| n as usize),
                summary: text,
                retained_messages: retained,
                event: "summary_item",
                summary_source: Some("item"),
                metadata: (!structured.is_empty()).then_some(Value::Object(structured)),
                ..SummaryRecord::default()
            });
        }
    }

    /// The records, the last one current, each with the session's id.
    pub fn finish(mut self, session_id: Option<String>) -> Vec<SummaryRecord> {
        for r in &mut self.out {
            r.session_id = session_id.clone();
        }
        if let Some(last) = self.out.last_mut() {
            last.current = true;
        }
        self.out
    }
}

/// Whether the string starting at `at` in `m` is written as the value of a `"type"` key: a
/// colon before it, and `"type"` before that, JSON whitespace between them.
fn is_type_value(m: &[u8], at: usize) -> bool {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let before = |end: usize| end - m[..end].iter().rev().take_while(|b| ws(b)).count();
    let colon = before(at);
    colon > 0 && m[colon - 1] == b':' && m[..before(colon - 1)].ends_with(b"\"type\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skipping the messages that hold neither `"summary"` nor a `\u` escape gives the records
    /// of reading every message.
    #[test]
    fn session_prefilter_is_the_full_read() {
        let messages = [
            r#"{"role":"user","items":[{"type":"text","text":"summary of it \u001b[1m"}]}"#,
            r#"{"role":"assistant","items":[{"type":"\u0073ummar\u0079","text":"escaped s and y"}]}"#,
            r#"{"role":"assistant","items":[{"type":"su\u006Dmary","text":"upper-case hex"}]}"#,
            r#"{"role":"assistant","timestamp":"2026-01-02T03:04:05Z","items":[{"type":"summary","text":"S1","origin":"remote","retained_messages":[{"role":"user","text":"k"}],"extra":1}]}"#,
            r#"{"role":"assistant","items":[{"type":"summ\u0061ry","text":"escaped type"}]}"#,
            r#"{"role":"assistant","items":[{"type" : "summary" , "text":"spaced", "trigger":"auto","pre_tokens":12}]}"#,
            r#"{"role":"tool","items":[{"type":"text","text":"\"summary\" in a text"}]}"#,
            r#"{"role":"assistant","items":[{"type":"summary"}],"items":[]}"#,
            r#"not json "summary""#,
            r#"{"role":"assistant","items":{"type":"summary"}}"#,
            "{\"role\":\"assistant\",\"items\":[{\"type\"\n\t :\r\n \"summary\",\"text\":\"pretty\"}]}",
            r#"{"role":"user","reasoning":{"summary":"auto"},"items":[{"type":"text","text":"summary"}]}"#,
            r#"{"role":"user","items":[{"kind":"summary","type":"text","summary":"x","text":":"summary"}]}"#,
            r#"{"role":"assistant","items":[{"text":"before","type":"summary"}]}"#,
        ];
        let src = Source::from_bytes("s.json", Vec::new());
        let read = |prefilter: bool| {
            let mut s = SessionSummaries::new(
                &src,
                Options {
                    strip_template: false,
                    all_events: false,
                },
            );
            s.prefilter = prefilter;
            for m in messages {
                s.message(m.as_bytes());
            }
            let records = s.finish(Some("id".into()));
            let summaries = records.iter().filter(|r| r.kind == "summary").count();
            (serde_json::to_string(&records).unwrap(), summaries)
        };
        let all = read(false);
        assert_eq!(read(true), all);
        assert_eq!(all.1, 7, "{}", all.0);
    }
}
