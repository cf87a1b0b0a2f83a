//! A document's entries, made from the session model's events (`cctool_core::model::events`)
//! the same way for every agent: a message per record a transcript shows, a section mark per
//! compaction and where earlier history or what a resume loads starts.

use serde_json::Value;

use crate::error::Error;
use crate::io::Source;
use crate::model::AgentId;
use crate::model::doc::{Entry, ExportError, Msg, Part, local_time, output_text, pretty};
use crate::model::events::{self, Ask, Compaction, Event, Mark, Reading, Record, View};

/// The entries of `src`'s document: what a resume loads, or with `full` the whole history;
/// each record read by `parse` (which redacts it when asked).
pub(crate) fn entries(
    src: &Source,
    format: AgentId,
    full: bool,
    parse: &dyn Fn(&[u8]) -> Value,
) -> Result<Vec<Entry>, ExportError> {
    let ask = Ask {
        view: if full { View::History } else { View::Loaded },
        reading: Reading::With(&|bytes| Some(parse(bytes))),
        native: false,
    };
    let mut entries = Vec::new();
    crate::agents::agent(format)
        .events(src, ask, &mut |e| match e {
            Event::Mark(m) => entries.push(mark(m)),
            Event::Record(r) => entries.extend(message(r)),
        })
        .map_err(|e| export_error(src, e))?;
    Ok(entries)
}

/// An agent's error reading `src`, as an export's: a failed read names the file; an agent's
/// own error is said whole, as every command says it.
fn export_error(src: &Source, e: Error) -> ExportError {
    match e {
        Error::Io(cause) | Error::Read(cause) => ExportError::Read {
            file: src.name().to_string(),
            cause,
        },
        Error::Agent(cause) => ExportError::Session(cause),
        e => ExportError::Session(Box::new(e)),
    }
}

/// A record as a message of the document; `None` for one a transcript does not show.
fn message(r: Record) -> Option<Entry> {
    Some(Entry::Msg(Msg {
        role: r.speaker?,
        line: r.at.map(|at| at.line),
        time: r.time.as_deref().map(local_time),
        parts: r.parts.into_iter().map(part).collect(),
    }))
}

/// A mark as a section of the document.
fn mark(m: Mark) -> Entry {
    let (title, summary) = match m {
        Mark::Compaction(c) => compaction(c),
        Mark::Earlier => (
            "Earlier history, replaced by a compaction (not loaded on resume)".into(),
            None,
        ),
        Mark::Loaded => ("What a resume loads".into(), None),
        Mark::ResumedFrom(line) => (format!("Resumed from the compaction at line {line}"), None),
    };
    Entry::Mark { title, summary }
}

/// A compaction's heading (what started it and the tokens before it where the format records
/// them, `?` for what one record leaves out; when it happened) and its summary.
fn compaction(c: Compaction) -> (String, Option<String>) {
    if c.encrypted {
        return (
            "Remote compaction (its summary is encrypted by the server)".into(),
            None,
        );
    }
    let measured = c.measured.map(|m| {
        let tokens = m.pre_tokens.map_or("?".to_string(), |t| t.to_string());
        format!(" ({}, {tokens} tokens before)", m.trigger.as_deref().unwrap_or("?"))
    });
    let at = c.time.map(|t| format!(" at {}", local_time(&t)));
    (
        format!("Compaction{}{}", measured.unwrap_or_default(), at.unwrap_or_default()),
        c.summary,
    )
}

/// A part of a record as a part of a message.
fn part(p: events::Part) -> Part {
    match p {
        events::Part::Text(t) => Part::Text(t),
        events::Part::Reasoning { text, .. } => Part::Thinking(text),
        events::Part::Redacted => Part::Note("[redacted thinking]".into()),
        events::Part::Notice(t) => Part::Note(t),
        events::Part::Call(c) => Part::ToolCall {
            name: c.name.unwrap_or(c.kind),
            id: c.id.unwrap_or_default(),
            input: c.input.as_ref().map(input_text).unwrap_or_default(),
        },
        events::Part::Outcome(o) => {
            let mut images = Vec::new();
            let text = output_text(o.output.as_ref().unwrap_or(&Value::Null), &mut images);
            Part::ToolResult {
                id: o.call_id.unwrap_or_default(),
                error: o.is_error == Some(true),
                text,
                images,
            }
        }
        events::Part::Attachment(a) => Part::ToolResult {
            id: String::new(),
            error: false,
            text: if a.is_null() { String::new() } else { pretty(&a) },
            images: Vec::new(),
        },
        events::Part::Image(i) => Part::Image(i),
        events::Part::Other { kind, .. } => Part::Note(format!("[{kind}]")),
    }
}

/// A call's input as people read it: pretty JSON, JSON text made pretty, other text as written.
fn input_text(v: &Value) -> String {
    match v {
        Value::String(s) if crate::io::json::serde_reads(s.as_bytes()) => {
            crate::io::json::parse_kept_text(s).map_or_else(|| s.clone(), |j| pretty(&j))
        }
        Value::String(s) => s.clone(),
        v => pretty(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::events::Measured;
    use serde_json::json;

    /// A compaction's heading says what its format recorded of it, `?` for what one record
    /// leaves out, and nothing of what the format never records.
    #[test]
    fn compaction_headings_say_what_the_format_recorded() {
        let measured = |trigger: Option<&str>, tokens: Option<Value>| Compaction {
            measured: Some(Measured {
                trigger: trigger.map(str::to_string),
                pre_tokens: tokens,
            }),
            ..Compaction::default()
        };
        assert_eq!(
            compaction(measured(Some("auto"), Some(json!(1200)))).0,
            "Compaction (auto, 1200 tokens before)"
        );
        assert_eq!(compaction(measured(None, None)).0, "Compaction (?, ? tokens before)");
        let plain = Compaction {
            summary: Some("s".into()),
            ..Compaction::default()
        };
        assert_eq!(compaction(plain), ("Compaction".to_string(), Some("s".to_string())));
        let remote = Compaction {
            encrypted: true,
            ..Compaction::default()
        };
        assert_eq!(
            compaction(remote).0,
            "Remote compaction (its summary is encrypted by the server)"
        );
    }

    /// A call's input reads as pretty JSON whether it was written as an object or as JSON
    /// text; text that is not JSON stays as written.
    #[test]
    fn inputs_read_as_pretty_json_or_as_written() {
        assert_eq!(input_text(&json!({"a": 1})), "{\n  \"a\": 1\n}");
        assert_eq!(input_text(&json!("{\"a\":1}")), "{\n  \"a\": 1\n}");
        assert_eq!(input_text(&json!("*** Begin Patch")), "*** Begin Patch");
    }
}
