//! A record of the session model ([`crate::model::events`]) as a block: the one way every
//! agent's records, and the messages of a request after a resume, are shown to people.
//!
//! The heading names who speaks: a message (a record that says its role) by its role, with
//! what the format flags of it (` (compaction summary)`, ` (meta)`, ` (sidechain)`) and the
//! model (` · MODEL`); any other record as the transcript names it (its speaker, else its
//! type). The body holds its parts in order, one a line: text as written, reasoning and tool
//! calls and results behind a marker (`[thinking]`, `[tool_use NAME ID]`, `[tool_result ID]`),
//! then what the compaction the record stands for recorded of itself.

use serde_json::Value;

use super::{Block, Render, text_of};
use crate::model::events::{Call, Compaction, Outcome, Part, Record};
use crate::output::sanitize::escape_str;

/// The block of `rec`, followed in its stream by the mark of `compaction` when it stands for
/// one. Its line, time and id are the record's; a caller that numbers blocks otherwise (the
/// messages of a request) sets its own.
pub fn record_block(r: &Render, rec: &Record, compaction: Option<&Compaction>) -> Block {
    let mut body = rec.parts.iter().map(|p| part(r, p)).collect::<Vec<_>>().join("\n");
    if let Some(c) = compaction {
        compaction_notes(r, c, &mut body);
    }
    Block {
        role: heading(rec),
        line: rec.at.map(|at| at.line),
        timestamp: rec.time.clone(),
        id: rec.id.clone(),
        body,
    }
}

/// Who speaks, as the block's heading says it.
fn heading(rec: &Record) -> String {
    let Some(role) = &rec.role else {
        return rec.speaker.clone().unwrap_or_else(|| rec.kind.clone());
    };
    let mut out = role.clone();
    let f = rec.flags;
    if f.compact_summary == Some(true) {
        out.push_str(" (compaction summary)");
    } else if f.meta == Some(true) {
        out.push_str(" (meta)");
    }
    if f.sidechain == Some(true) {
        out.push_str(" (sidechain)");
    }
    if let Some(model) = &rec.model {
        out.push_str(" · ");
        out.push_str(model);
    }
    out
}

/// One part, escaped, with its marker.
fn part(r: &Render, p: &Part) -> String {
    match p {
        Part::Text(t) | Part::Notice(t) => escape_str(t),
        Part::Reasoning { text, summary } => {
            let marker = if *summary { "[thinking summary]" } else { "[thinking]" };
            format!("{} {}", r.marker(marker), r.short(text))
        }
        Part::Redacted => r.marker("[redacted thinking]"),
        Part::Call(c) => call(r, c),
        Part::Outcome(o) => outcome(r, o),
        Part::Image(_) => r.marker("[image]"),
        // A record whose attachment is missing shows an empty one, not `null`.
        Part::Attachment(Value::Null) => r.code(""),
        Part::Attachment(v) => r.code(&crate::io::json::to_json(v)),
        Part::Other { kind, value: None } => r.marker(&format!("[{kind}]")),
        Part::Other { kind, value: Some(v) } => {
            format!(
                "{}\n{}",
                r.marker(&format!("[{kind}]")),
                r.code(&crate::io::json::to_json(v))
            )
        }
    }
}

/// `[KIND NAME ID]` and the input: JSON text as written, any other value as JSON (a
/// container kept as its text as that text).
fn call(r: &Render, c: &Call) -> String {
    let input = match &c.input {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => crate::io::json::to_json(v),
    };
    format!(
        "{}\n{}",
        r.marker(&format!(
            "[{} {} {}]",
            c.kind,
            c.name.as_deref().unwrap_or("?"),
            c.id.as_deref().unwrap_or("")
        )),
        r.code(&input)
    )
}

/// `[tool_result ID]` (`, error` when the tool failed) and the output's text.
fn outcome(r: &Render, o: &Outcome) -> String {
    let error = if o.is_error == Some(true) { ", error" } else { "" };
    format!(
        "{}\n{}",
        r.marker(&format!("[tool_result {}{error}]", o.call_id.as_deref().unwrap_or(""))),
        r.code(&text_of(o.output.as_ref().unwrap_or(&Value::Null)))
    )
}

/// What a compaction recorded of itself, after the body of the record that stands for it:
/// what started it on the body's last line, a summary the provider keeps encrypted, a summary
/// in the clear.
fn compaction_notes(r: &Render, c: &Compaction, body: &mut String) {
    let line = |body: &mut String, s: String| {
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&s);
    };
    if let Some(m) = &c.measured {
        let trigger = m.trigger.as_deref().unwrap_or("?");
        let tokens = m.pre_tokens.as_ref().map_or_else(|| "?".to_string(), Value::to_string);
        body.push(' ');
        body.push_str(&r.marker(&format!("(trigger {trigger}, {tokens} tokens before)")));
    }
    match (c.encrypted, c.encrypted_bytes) {
        (true, Some(n)) => line(body, r.marker(&format!("[encrypted compaction summary, {n} bytes]"))),
        (true, None) => line(body, r.marker("[encrypted compaction summary]")),
        (false, _) => {}
    }
    if let Some(s) = &c.summary {
        line(body, r.code(s));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::doc::Image;
    use crate::model::events::{At, Flags, Measured};
    use crate::output::render::Style;
    use crate::output::style::Paint;

    fn text() -> Render {
        Render::new(Style::Text, Paint::OFF, false)
    }

    fn body(parts: Vec<Part>) -> String {
        let rec = Record {
            parts,
            ..Record::default()
        };
        record_block(&text(), &rec, None).body
    }

    #[test]
    fn each_part_has_its_marker() {
        let call = Call {
            id: Some("toolu_1".into()),
            name: Some("Read".into()),
            kind: "tool_use".into(),
            input: Some(json!({"path": "a"})),
        };
        let outcome = Outcome {
            call_id: Some("toolu_1".into()),
            is_error: Some(true),
            output: Some(json!([{"type": "text", "text": "no"}, {"type": "image"}])),
        };
        let parts = vec![
            Part::Text("hello".into()),
            Part::Reasoning {
                text: "hmm".into(),
                summary: false,
            },
            Part::Reasoning {
                text: "said".into(),
                summary: true,
            },
            Part::Redacted,
            Part::Call(call),
            Part::Outcome(outcome),
            Part::Image(Image {
                media_type: "image/png".into(),
                data: "AAAA".into(),
            }),
            Part::Notice("compacted".into()),
            Part::Attachment(json!({"type": "file"})),
            Part::Attachment(Value::Null),
            Part::Other {
                kind: "document".into(),
                value: None,
            },
            Part::Other {
                kind: "ghost_snapshot".into(),
                value: Some(json!({"commit": "c0"})),
            },
        ];
        assert_eq!(
            body(parts),
            "hello\n[thinking] hmm\n[thinking summary] said\n[redacted thinking]\n\
             [tool_use Read toolu_1]\n{\"path\":\"a\"}\n[tool_result toolu_1, error]\nno\n[image]\n\
             [image]\ncompacted\n{\"type\":\"file\"}\n\n[document]\n[ghost_snapshot]\n{\"commit\":\"c0\"}"
        );
    }

    #[test]
    fn a_call_without_name_or_id_and_input_as_json_text() {
        let call = Call {
            id: None,
            name: None,
            kind: "function_call".into(),
            input: Some(json!("{\"cmd\":\"ls\"}")),
        };
        assert_eq!(body(vec![Part::Call(call)]), "[function_call ? ]\n{\"cmd\":\"ls\"}");
        let result = Outcome {
            call_id: None,
            is_error: Some(false),
            output: None,
        };
        assert_eq!(body(vec![Part::Outcome(result)]), "[tool_result ]\n");
    }

    #[test]
    fn a_message_is_headed_by_its_role_flags_and_model() {
        let rec = Record {
            at: Some(At { line: 7, offset: 0 }),
            time: Some("2026-01-01T00:00:00Z".into()),
            id: Some("u1".into()),
            kind: "user".into(),
            role: Some("user".into()),
            speaker: Some("compaction summary".into()),
            model: Some("m-1".into()),
            flags: Flags {
                sidechain: Some(true),
                meta: Some(true),
                compact_summary: Some(true),
            },
            ..Record::default()
        };
        let b = record_block(&text(), &rec, None);
        assert_eq!(b.role, "user (compaction summary) (sidechain) · m-1");
        assert_eq!(
            (b.line, b.timestamp.as_deref(), b.id.as_deref()),
            (Some(7), Some("2026-01-01T00:00:00Z"), Some("u1"))
        );
        let meta = Record {
            flags: Flags {
                meta: Some(true),
                ..Flags::default()
            },
            ..rec.clone()
        };
        assert_eq!(record_block(&text(), &meta, None).role, "user (meta) · m-1");
    }

    #[test]
    fn a_record_that_is_no_message_is_headed_as_the_transcript_names_it() {
        let notice = Record {
            kind: "system".into(),
            speaker: Some("system/local_command".into()),
            flags: Flags {
                sidechain: Some(true),
                ..Flags::default()
            },
            ..Record::default()
        };
        assert_eq!(record_block(&text(), &notice, None).role, "system/local_command");
        let bare = Record {
            kind: "ghost_snapshot".into(),
            ..Record::default()
        };
        assert_eq!(record_block(&text(), &bare, None).role, "ghost_snapshot");
    }

    #[test]
    fn a_compaction_says_what_it_recorded_of_itself() {
        let rec = Record {
            parts: vec![Part::Notice("Conversation compacted".into())],
            ..Record::default()
        };
        let measured = Compaction {
            measured: Some(Measured {
                trigger: Some("auto".into()),
                pre_tokens: Some(json!(1234)),
            }),
            ..Compaction::default()
        };
        assert_eq!(
            record_block(&text(), &rec, Some(&measured)).body,
            "Conversation compacted (trigger auto, 1234 tokens before)"
        );
        let unmeasured = Compaction {
            measured: Some(Measured::default()),
            ..Compaction::default()
        };
        assert_eq!(
            record_block(&text(), &rec, Some(&unmeasured)).body,
            "Conversation compacted (trigger ?, ? tokens before)"
        );
        let remote = Compaction {
            encrypted: true,
            summary: Some("kept".into()),
            ..Compaction::default()
        };
        let empty = Record::default();
        assert_eq!(
            record_block(&text(), &empty, Some(&remote)).body,
            "[encrypted compaction summary]\nkept"
        );
        let sized = Compaction {
            encrypted: true,
            encrypted_bytes: Some(2048),
            ..Compaction::default()
        };
        assert_eq!(
            record_block(&text(), &empty, Some(&sized)).body,
            "[encrypted compaction summary, 2048 bytes]"
        );
    }

    /// Transcript content never reaches the terminal as control characters, wherever in the
    /// record it is: heading, text, markers, code.
    #[test]
    fn control_characters_are_escaped_everywhere() {
        let esc = "\u{1b}[31m\u{9b}";
        let rec = Record {
            role: Some(format!("user{esc}")),
            model: Some(esc.into()),
            parts: vec![
                Part::Text(esc.into()),
                Part::Reasoning {
                    text: esc.into(),
                    summary: false,
                },
                Part::Call(Call {
                    id: Some(esc.into()),
                    name: Some(esc.into()),
                    kind: esc.into(),
                    input: Some(json!(esc)),
                }),
                Part::Outcome(Outcome {
                    call_id: Some(esc.into()),
                    is_error: None,
                    output: Some(json!(esc)),
                }),
                Part::Notice(esc.into()),
                Part::Other {
                    kind: esc.into(),
                    value: Some(json!({ "k": esc })),
                },
            ],
            ..Record::default()
        };
        for style in [Style::Text, Style::Markdown] {
            let r = Render::new(style, Paint::OFF, false);
            let shown = super::super::render(&r, &record_block(&r, &rec, None));
            assert!(!shown.contains('\u{1b}') && !shown.contains('\u{9b}'), "{shown}");
            assert!(shown.contains("\\x1b[31m\\x9b"), "{shown}");
        }
    }

    /// In Markdown a tool's output that holds a fence cannot end the block that shows it.
    #[test]
    fn markdown_fences_outlast_the_output_they_hold() {
        let r = Render::new(Style::Markdown, Paint::OFF, false);
        let rec = Record {
            parts: vec![Part::Outcome(Outcome {
                call_id: Some("c1".into()),
                is_error: None,
                output: Some(json!("a\n````\nb")),
            })],
            ..Record::default()
        };
        assert_eq!(
            record_block(&r, &rec, None).body,
            "[tool_result c1]\n`````\na\n````\nb\n`````"
        );
    }
}
