//! What the reading commands print of an opencode session through the session model:
//! `rebuild-chain`, `scan --rows`, `export` and `search`.

use crate::file::{self, Session};
use crate::model::{current_compaction, marks_before, record, record_read, resume_start};
use cctool_core::agents::view::{
    ApiViewSummary, ChainOptions, ChainSummary, Report, cannot_read, print_chat_messages, value_of,
};
use cctool_core::io::Source;
use cctool_core::model::diag::{Code, Diagnostic, Severity};
use cctool_core::model::doc::{self, ExportError};
use cctool_core::model::events::{Ask, Event, Sink, Streamed, View};
use cctool_core::output::Out;
use cctool_core::output::render::{self, Render};

/// `--tip` given for an opencode session, whose messages form one line of history.
#[derive(Debug, thiserror::Error)]
#[error("--tip chooses among the branches of a Claude Code transcript; an opencode session has one line of messages")]
pub struct TipRefused;

/// The messages `rebuild-chain` prints: what a resume loads, or with `full` every message.
fn chosen(s: &Session, full: bool) -> (std::ops::Range<usize>, usize) {
    let start = resume_start(s);
    ((if full { 0 } else { start })..s.messages.len(), start)
}

/// The rows of the database that could not be read, as diagnostics of `file`.
pub fn unread(file: &str, s: &Session) -> Vec<Diagnostic> {
    s.unreadable
        .iter()
        .map(|(table, id, why)| {
            Diagnostic::new(
                file,
                None,
                Code::UnreadableRow,
                Severity::Warning,
                format!("{table} {id}: {why}; left out"),
            )
        })
        .collect()
}

/// `rebuild-chain`: what a resume loads, each message `{info, parts}` on a line, or rendered
/// with `style`; with `--full`, every message with its compactions.
pub fn rebuild_chain(
    src: &Source,
    a: &ChainOptions,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let s = file::read(src).map_err(|e| cannot_read(src, e))?;
    if a.api_view {
        return api_view(src, &s, a, style, out);
    }
    let (range, start) = chosen(&s, a.full);
    let count = range.len();
    for i in range {
        let m = &s.messages[i];
        match &style {
            None => out.record(&m.raw)?,
            Some(st) => {
                let rec = record(m, &value_of(&m.raw), i >= start, s.id());
                let c = m.asks_compaction().then(|| crate::model::compaction(&s, i));
                let block = render::record_block(st, &rec, c.as_ref());
                out.text(&render::render(st, &block))?;
            }
        }
    }
    let summary = ChainSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        messages: count,
        end: Some(match current_compaction(&s) {
            Some(i) => format!("compacted:{}", s.messages[i].id().unwrap_or("")),
            None => "start".to_string(),
        }),
        bad_lines: s.unreadable.len() as u64,
        ..ChainSummary::default()
    };
    Ok((unread(src.name(), &s), Report::Chain(summary)))
}

/// The session model's events in the view asked: every message (`scan --rows`), what a
/// resume loads, or the whole history with its compactions marked.
pub fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> cctool_core::error::Result<Streamed> {
    let s = file::read(src).map_err(cctool_core::error::Error::Read)?;
    Ok(events_of(&s, ask, sink))
}

/// [`events`] of a session read already; asked for all it holds ([`Ask::native`]), each
/// record carries its message's JSON, `{info, parts}`.
pub fn events_of(s: &Session, ask: Ask<'_>, sink: Sink<'_>) -> Streamed {
    let streamed = Streamed {
        first_ms: s.messages.iter().filter_map(|m| m.created_ms()).min(),
    };
    let start = resume_start(s);
    for (i, m) in s.messages.iter().enumerate() {
        for mark in marks_before(s, i, ask.view, start) {
            sink(Event::Mark(mark));
        }
        let loaded = i >= start;
        let wanted = match ask.view {
            View::Records | View::History => true,
            View::Calls => m.part_types().any(|t| t == "tool"),
            View::Loaded => loaded,
        };
        if !wanted {
            continue;
        }
        // Read as written, the record is made from what was read of the message already,
        // unless its JSON is asked too.
        let typed = (ask.as_written() && !ask.native)
            .then(|| record_read(m, loaded, s.id()))
            .flatten();
        let read = || {
            let v = ask.parse(&m.raw)?;
            let mut r = record(m, &v, loaded, s.id());
            r.native = ask.native.then_some(v);
            Some(r)
        };
        let Some(mut r) = typed.or_else(read) else {
            continue;
        };
        // A compaction's request is shown by its mark where the view marks compactions.
        if m.asks_compaction() && ask.view == View::History {
            r.speaker = None;
        }
        sink(Event::Record(r));
    }
    streamed
}

/// `export --format jsonl`: the messages a resume loads (with `full`, every message), each
/// `{info, parts}` as written.
pub fn export_records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let s = file::read(src).map_err(|e| doc::cannot_read(src, e))?;
    let (range, _) = chosen(&s, full);
    range.into_iter().try_for_each(|i| emit(&s.messages[i].raw))
}

/// `--api-view`: the messages the client sends after a resume ([`crate::api`]), one JSON
/// object a line, or rendered with `style`.
fn api_view(
    src: &Source,
    s: &Session,
    a: &ChainOptions,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let msgs = crate::api::messages(s, a.prompt.as_deref()).map_err(cctool_core::error::Error::agent)?;
    let bytes = print_chat_messages(&msgs, style.as_ref(), out)?;
    let summary = ApiViewSummary {
        notice: Some("the system prompt and the tools are the resuming client's own and are not shown".into()),
        rules: crate::api::rules(&msgs, a.prompt.is_some()),
        ..ApiViewSummary::of_messages(
            src.name(),
            crate::ID.name(),
            crate::api::CLIENT,
            msgs.len(),
            bytes,
            a.prompt.is_some(),
        )
    };
    Ok((unread(src.name(), s), Report::ApiView(summary)))
}
