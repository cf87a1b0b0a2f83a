//! What the reading commands print of a toy session: `scan`, `doctor`, `rebuild-chain`,
//! `scan --rows` and `export`.

use serde_json::Value;

use crate::file::{self, Message, Said, Session};
use cctool_core::agents::view::{ChainSummary, Report};
use cctool_core::io::Source;
use cctool_core::model::diag::{Code, Diagnostic, Severity};
use cctool_core::model::doc::{self, ExportError};
use cctool_core::model::events::{self, Ask, At, Call, Event, Flags, Outcome, Record, Sink, Streamed, UnreadLines};
use cctool_core::model::findings::finding;
use cctool_core::model::rows;
use cctool_core::model::session::{SessionRecord, prompt_text, title};
use cctool_core::model::time::{format_ms, parse_ms};
use cctool_core::output::Out;
use cctool_core::output::render::{self, Render};

/// The file at a glance; a file that cannot be read is reported with its size alone.
pub fn scan(src: &Source) -> SessionRecord {
    let mut r = SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        bytes: src.len(),
        chain_end: Some("start".into()),
        role: "session",
        ..SessionRecord::default()
    };
    let Ok(s) = file::read(src) else { return r };
    r.lines = s.lines;
    r.bad_lines = s.bad_lines();
    r.session_id = s.session_id().map(str::to_string);
    r.cwd = s.cwd().map(str::to_string);
    r.project = cctool_core::model::project::name(s.cwd(), src.name());
    r.chain_messages = s.messages.len();
    // A resume sends every message record as written, one a line.
    r.resume_tokens = cctool_core::model::approx_tokens(s.messages.iter().map(|m| m.raw.len() + 1).sum());
    let first_prompt = s.messages.iter().find_map(|m| match &m.said {
        Said::Text { role: "user", text, .. } => prompt_text(text),
        _ => None,
    });
    (r.title, r.title_source) = title(None, first_prompt);
    let span = s.span();
    r.first_timestamp = span.map(|s| format_ms(s.0));
    r.last_timestamp = span.map(|s| format_ms(s.1));
    r.last_ms = span.map(|s| s.1);
    r
}

/// The lines that are no record, as diagnostics of `file` (`doctor` reports them as
/// findings, `rebuild-chain` as it reads).
fn unread(file: &str, s: &Session, as_finding: bool) -> Vec<Diagnostic> {
    s.unread
        .iter()
        .map(|u| {
            let make = if as_finding { finding } else { diagnostic };
            make(file, Some(u.line), u.why.code, u.why.severity, u.why.message.clone())
        })
        .collect()
}

fn diagnostic(file: &str, line: Option<u64>, code: Code, severity: Severity, message: String) -> Diagnostic {
    Diagnostic::new(file, line, code, severity, message)
}

/// What `doctor` finds: lines that are no record, and calls and results without each other.
pub fn doctor(src: &Source) -> std::io::Result<Vec<Diagnostic>> {
    let s = file::read(src)?;
    let file = src.name();
    let mut out = unread(file, &s, true);
    let calls: Vec<(&str, u64)> = s
        .messages
        .iter()
        .filter_map(|m| match &m.said {
            Said::Call { id, .. } => Some((id.as_str(), m.line)),
            _ => None,
        })
        .collect();
    let results: Vec<(&str, u64)> = s
        .messages
        .iter()
        .filter_map(|m| match &m.said {
            Said::Result { id, .. } => Some((id.as_str(), m.line)),
            _ => None,
        })
        .collect();
    for (id, line) in &calls {
        if !results.iter().any(|(r, _)| r == id) {
            let why = format!("tool call {id} has no result");
            out.push(finding(
                file,
                Some(*line),
                Code::ToolCallWithoutResult,
                Severity::Warning,
                why,
            ));
        }
    }
    for (id, line) in &results {
        if !calls.iter().any(|(c, _)| c == id) {
            let why = format!("tool result {id} answers no call");
            out.push(finding(
                file,
                Some(*line),
                Code::ToolResultWithoutCall,
                Severity::Warning,
                why,
            ));
        }
    }
    out.sort_by_key(|d| d.line);
    Ok(out)
}

/// `rebuild-chain`: every message, which is what a resume loads, printed as written or
/// rendered with `style`.
pub fn rebuild_chain(
    src: &Source,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let s = file::read(src).map_err(|e| cctool_core::agents::view::cannot_read(src, e))?;
    for (i, m) in s.messages.iter().enumerate() {
        match &style {
            None => out.record(&m.raw)?,
            Some(st) => {
                let v = cctool_core::agents::view::value_of(&m.raw);
                let mut block = render::record_block(st, &message_record(m, &v), None);
                block.id = Some(format!("#{}", i + 1));
                out.text(&render::render(st, &block))?;
            }
        }
    }
    let summary = ChainSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        messages: s.messages.len(),
        end: Some("start".into()),
        bad_lines: s.bad_lines(),
        ..ChainSummary::default()
    };
    Ok((unread(src.name(), &s, false), Report::Chain(summary)))
}

/// The session model's events (`scan --rows`, `export`): one per message record, every one
/// loaded on resume (in every view the same), each read by the ask's `parse`.
pub fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> cctool_core::error::Result<Streamed> {
    let s = file::read(src).map_err(cctool_core::error::Error::Read)?;
    Ok(events_of(&s, ask, sink))
}

/// [`events`] of a session read already. Asked for all it holds ([`Ask::native`]), every
/// record carries its JSON, and the header and each line that is no toy record come as
/// records of their own at their place.
pub fn events_of(s: &Session, ask: Ask<'_>, sink: Sink<'_>) -> Streamed {
    let mut streamed = Streamed::default();
    let header = s.header_raw.as_deref().map(|raw| (1, 0, raw));
    let skipped = s.unread.iter().map(|u| (u.line, u.offset, u.raw.as_slice()));
    let mut lines = UnreadLines::new(ask, header.into_iter().chain(skipped));
    for m in &s.messages {
        lines.before(m.line, false, sink);
        let Some(v) = ask.parse(&m.raw) else { continue };
        let mut r = Record {
            session_id: s.session_id().map(str::to_string),
            ..message_record(m, &v)
        };
        rows::earliest(&mut streamed.first_ms, r.ms);
        r.native = ask.native.then_some(v);
        sink(Event::Record(r));
    }
    lines.rest(sink);
    streamed
}

/// One message record, read as `v`, as the session model's record: what `rebuild-chain`
/// renders and the events carry.
fn message_record(m: &Message, v: &Value) -> Record {
    let text = |k: &str| doc::s(v, k).unwrap_or("").to_string();
    let (speaker, part) = match m.said.kind() {
        "call" => (
            "assistant",
            events::Part::Call(Call {
                id: Some(text("id")),
                name: Some(text("tool")),
                kind: "call".into(),
                input: v.get("input").cloned(),
            }),
        ),
        "result" => (
            "tool",
            events::Part::Outcome(Outcome {
                call_id: Some(text("id")),
                is_error: None,
                output: Some(Value::String(text("output"))),
            }),
        ),
        role => (role, events::Part::Text(text("text"))),
    };
    Record {
        at: Some(At {
            line: m.line,
            offset: m.offset,
        }),
        loaded: true,
        ms: m.said.at().and_then(parse_ms),
        time: doc::s(v, "at").map(str::to_string),
        kind: m.said.kind().into(),
        role: Some(speaker.into()),
        speaker: Some(speaker.into()),
        flags: Flags {
            compact_summary: Some(false),
            ..Flags::default()
        },
        parts: vec![part],
        bytes: Some(m.raw.len() as u64),
        ..Record::default()
    }
}

fn unreadable(src: &Source, e: std::io::Error) -> ExportError {
    doc::cannot_read(src, e)
}

/// `export --format jsonl`: every message record as written.
pub fn export_records(src: &Source, emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>) -> Result<(), ExportError> {
    let s = file::read(src).map_err(|e| unreadable(src, e))?;
    s.messages.iter().try_for_each(|m| emit(&m.raw))
}
