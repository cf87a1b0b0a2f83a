//! What the reading commands print of a Copilot CLI session through the session model:
//! `rebuild-chain`, `scan --rows`, `export` and `search`.

use crate::file::{self, Session};
use crate::model::{conversational, loaded_order, marks_before, record, resume_start};
use cctool_core::agents::view::{
    ApiViewSummary, ChainOptions, ChainSummary, Report, cannot_read, print_chat_messages, value_of,
};
use cctool_core::io::Source;
use cctool_core::model::diag::Diagnostic;
use cctool_core::model::doc::{self, ExportError};
use cctool_core::model::events::{Ask, Compaction, Event, Sink, Streamed, UnreadLines, View};
use cctool_core::model::rows;
use cctool_core::output::Out;
use cctool_core::output::render::{self, Render};

/// `--tip` given for a Copilot CLI session, whose events form one line of history.
#[derive(Debug, thiserror::Error)]
#[error("--tip chooses among the branches of a Claude Code transcript; a Copilot CLI session has one line of events")]
pub struct TipRefused;

/// The indexes of the events `rebuild-chain` prints: what a resume loads (from the last
/// compaction on), or with `full` every conversational event.
fn chosen(s: &Session, full: bool) -> (Vec<usize>, Vec<bool>) {
    let loaded = loaded_order(s);
    let mask = mask_of(s, &loaded);
    let order = if full { (0..s.events.len()).collect() } else { loaded };
    let picked = order.into_iter().filter(|&i| conversational(&s.events[i].ty)).collect();
    (picked, mask)
}

/// Whether each event is one of `loaded` ([`loaded_order`]).
fn mask_of(s: &Session, loaded: &[usize]) -> Vec<bool> {
    let mut mask = vec![false; s.events.len()];
    for &i in loaded {
        mask[i] = true;
    }
    mask
}

/// `rebuild-chain`: what a resume loads, printed as written or rendered with `style`; with
/// `--full`, the whole conversation with its compactions.
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
    let (picked, loaded) = chosen(&s, a.full);
    for &i in &picked {
        let e = &s.events[i];
        match &style {
            None => out.record(&e.raw)?,
            Some(st) => {
                let rec = record(e, &value_of(&e.raw), loaded[i]);
                // The summary is the record's text already; the mark adds what was measured.
                let c = e.is_compaction().then(|| Compaction {
                    summary: None,
                    ..crate::model::compaction(e)
                });
                let block = render::record_block(st, &rec, c.as_ref());
                out.text(&render::render(st, &block))?;
            }
        }
    }
    let summary = ChainSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        messages: picked.len(),
        end: Some(match s.last_compaction() {
            Some(i) => format!("compacted:{}", s.events[i].line),
            None => "start".to_string(),
        }),
        bad_lines: s.bad_lines(),
        ..ChainSummary::default()
    };
    Ok((
        crate::doctor::unread(src.name(), &s.unread, &s.nuls, false),
        Report::Chain(summary),
    ))
}

/// The session model's events in the view asked: every event (`scan --rows`), what a resume
/// loads in the order it sends it, or the whole conversation with its compactions marked.
pub fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> cctool_core::error::Result<Streamed> {
    let s = file::read(src).map_err(cctool_core::error::Error::Read)?;
    Ok(events_of(&s, ask, sink))
}

/// [`events`] of a session read already. Asked for all it holds ([`Ask::native`]), every
/// record carries its JSON and, among every event, each line that is no event is a record
/// of its own at its place.
pub fn events_of(s: &Session, ask: Ask<'_>, sink: Sink<'_>) -> Streamed {
    let mut streamed = Streamed::default();
    for e in &s.events {
        rows::earliest(
            &mut streamed.first_ms,
            e.time.as_deref().and_then(cctool_core::model::time::parse_ms),
        );
    }
    let start = resume_start(s);
    let loaded_order = loaded_order(s);
    let mask = mask_of(s, &loaded_order);
    let session_id = s.session_id().map(str::to_string);
    // A resume sends a compaction's summary before what was said while it was made.
    let order = match ask.view {
        View::Loaded => loaded_order,
        _ => (0..s.events.len()).collect(),
    };
    let skipped = s.unread.iter().map(|u| (u.line, u.offset, u.raw.as_slice()));
    let mut unread = UnreadLines::new(ask, skipped);
    for i in order {
        let e = &s.events[i];
        unread.before(e.line, false, sink);
        for m in marks_before(s, i, ask.view, start) {
            sink(Event::Mark(m));
        }
        let loaded = mask[i] && sent(&e.ty);
        let wanted = match ask.view {
            View::Records => true,
            View::Calls => matches!(e.ty.as_str(), "assistant.message" | "tool.execution_complete"),
            View::Loaded => loaded,
            View::History => sent(&e.ty),
        };
        if !wanted {
            continue;
        }
        let Some(v) = ask.parse(&e.raw) else { continue };
        let mut r = record(e, &v, loaded);
        r.session_id = r.session_id.or_else(|| session_id.clone());
        // A compaction is shown by its mark where the view marks compactions.
        if e.is_compaction() && ask.view == View::History {
            r.speaker = None;
        }
        if ask.native {
            r.native = Some(v);
        }
        sink(Event::Record(r));
    }
    unread.rest(sink);
    streamed
}

/// Whether a resume sends an event of type `ty`: the conversation's own, and a notification
/// the client gave the model (a background shell that ended, …), sent as a user message where
/// it was written (GH9).
fn sent(ty: &str) -> bool {
    conversational(ty) || ty == "system.notification"
}

/// `export --format jsonl`: the events a resume loads (with `full`, every conversational
/// event), as written.
pub fn export_records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let s = file::read(src).map_err(|e| doc::cannot_read(src, e))?;
    let (picked, _) = chosen(&s, full);
    picked.iter().try_for_each(|&i| emit(&s.events[i].raw))
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
    let req = crate::api::messages(s, a.prompt.as_deref());
    let msgs = &req.messages;
    let bytes = print_chat_messages(msgs, style.as_ref(), out)?;
    let summary = ApiViewSummary {
        notice: Some("the system prompt is the resuming client's own and is not shown".into()),
        rules: crate::api::rules(&req, a.prompt.is_some()),
        ..ApiViewSummary::of_messages(
            src.name(),
            crate::ID.name(),
            crate::api::CLIENT,
            msgs.len(),
            bytes,
            a.prompt.is_some(),
        )
    };
    Ok((
        crate::doctor::unread(src.name(), &s.unread, &s.nuls, false),
        Report::ApiView(summary),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::model::events::{Mark, Reading};

    /// A compaction started, a reply and a prompt while it ran, then its end, and a line that
    /// is no event.
    const SESSION: &str = concat!(
        r#"{"type":"session.start","data":{"sessionId":"s1"},"id":"e1","timestamp":"2026-11-02T10:00:00Z"}"#,
        "\n",
        r#"{"type":"session.compaction_start","data":{},"id":"e2","timestamp":"2026-11-02T10:00:01Z"}"#,
        "\n",
        r#"{"type":"assistant.message","data":{"content":"working","toolRequests":[]},"id":"e3","timestamp":"2026-11-02T10:00:02Z"}"#,
        "\nnot json\n",
        r#"{"type":"user.message","data":{"content":"and clippy"},"id":"e5","timestamp":"2026-11-02T10:00:03Z"}"#,
        "\n",
        r#"{"type":"session.compaction_complete","data":{"success":true,"summaryContent":"the summary"},"id":"e6","timestamp":"2026-11-02T10:00:04Z"}"#,
        "\n",
        r#"{"type":"system.message","data":{"content":"the client's prompt"},"id":"e7","timestamp":"2026-11-02T10:00:05Z"}"#,
        "\n",
        r#"{"type":"system.notification","data":{"content":"shell 1 ended"},"id":"e8","timestamp":"2026-11-02T10:00:06Z"}"#,
        "\n",
    );

    fn stream(ask: Ask<'_>) -> Vec<Event> {
        let s = file::read(&Source::from_bytes("s.jsonl", SESSION.as_bytes().to_vec())).unwrap();
        let mut out = Vec::new();
        events_of(&s, ask, &mut |e| out.push(e));
        out
    }

    fn lines(events: &[Event]) -> Vec<Option<u64>> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Record(r) => Some(r.at.map(|a| a.line)),
                Event::Mark(_) => None,
            })
            .collect()
    }

    #[test]
    fn what_a_resume_loads_comes_in_the_order_it_is_sent() {
        let events = stream(Ask {
            view: View::Loaded,
            ..Ask::records()
        });
        assert!(matches!(events[0], Event::Mark(Mark::ResumedFrom(6))));
        // The notification is sent as a user message (GH9); the client's own prompt is not.
        assert_eq!(lines(&events), [Some(6), Some(3), Some(5), Some(8)]);
    }

    #[test]
    fn asked_for_all_it_holds_every_line_comes_with_its_json() {
        let events = stream(Ask {
            native: true,
            reading: Reading::With(&|b| Some(cctool_core::v5::build::parse(b))),
            ..Ask::records()
        });
        assert_eq!(lines(&events), (1..=8).map(Some).collect::<Vec<_>>());
        let Event::Record(unread) = &events[3] else { panic!() };
        assert_eq!((unread.kind.as_str(), unread.speaker.as_deref()), ("", None));
        assert_eq!(unread.native, Some(serde_json::Value::Null));
        let Event::Record(start) = &events[0] else { panic!() };
        assert_eq!(start.native.as_ref().unwrap()["data"]["sessionId"], "s1");
        // Not asked, neither the JSON nor the line that is no event.
        let lean = stream(Ask::records());
        assert_eq!(
            lines(&lean),
            [Some(1), Some(2), Some(3), Some(5), Some(6), Some(7), Some(8)]
        );
        assert!(
            lean.iter()
                .all(|e| !matches!(e, Event::Record(r) if r.native.is_some()))
        );
    }
}
