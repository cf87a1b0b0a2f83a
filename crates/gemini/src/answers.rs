//! What the reading commands print of a Gemini CLI chat: `scan`, `rebuild-chain` (and its
//! `--api-view`), `extract-summary`, `scan --rows`, `export`. `doctor` is in [`crate::doctor`].

use serde_json::Value;

use crate::file::{self, Chat};
use crate::lite::Reading;
use crate::record::record;
use crate::replay::{Message, Replay, replay};
use cctool_core::agents::view::{ApiViewSummary, ChainOptions, ChainSummary, Report};
use cctool_core::io::Source;
use cctool_core::model::diag::Diagnostic;
use cctool_core::model::doc::{self, ExportError};
use cctool_core::model::events::{self, Ask, Event, Mark, Sink, Streamed, UnreadLines, View};
use cctool_core::model::rows;
use cctool_core::model::session::{SessionRecord, prompt_text, title};
use cctool_core::model::time::{format_ms, parse_ms};
use cctool_core::output::Out;
use cctool_core::output::render::{self, Render};
use cctool_core::summary::{self, SummaryRecord};

/// The client sending the requests `--api-view` shows.
pub const CLIENT: &str = "Gemini CLI 0.61.0";

/// The chat and its replay, refused when the file cannot be read.
pub fn read(src: &Source) -> cctool_core::error::Result<(Chat, Replay)> {
    let mut c = file::read(src).map_err(|e| cctool_core::agents::view::cannot_read(src, e))?;
    let r = replay(&mut c);
    Ok((c, r))
}

/// Which of `r`'s messages are loaded.
pub fn loaded_mask(r: &Replay) -> Vec<bool> {
    let mut mask = vec![false; r.msgs.len()];
    for &i in &r.loaded {
        mask[i] = true;
    }
    mask
}

/// The earliest and latest times the chat records, in milliseconds since the epoch.
fn span<V: Message>(r: &Replay<V>) -> Option<(i64, i64)> {
    let start = r.meta.get("startTime").and_then(Value::as_str);
    start
        .into_iter()
        .chain(r.msgs.iter().filter_map(|m| m.value.timestamp()))
        .filter_map(parse_ms)
        .fold(None, |s, t| {
            Some(s.map_or((t, t), |(lo, hi): (i64, i64)| (lo.min(t), hi.max(t))))
        })
}

/// The file at a glance; a file that cannot be read is reported with its size alone.
pub fn scan(src: &Source) -> SessionRecord {
    match crate::lite::read(src) {
        Ok(reading) => scan_of(src, reading),
        Err(_) => scan_record(src),
    }
}

/// What `scan` tells of any file.
fn scan_record(src: &Source) -> SessionRecord {
    SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        bytes: src.len(),
        role: "session",
        ..SessionRecord::default()
    }
}

/// `scan` of a chat read.
pub(crate) fn scan_of(src: &Source, reading: Reading) -> SessionRecord {
    let mut rec = scan_record(src);
    // What is sent is the contents as JSON; their size in bytes stands for their tokens.
    let sent = match reading {
        Reading::Fast(c, r) => {
            describe(&mut rec, src, &c, &r);
            crate::lite::resume_len(r)
        }
        Reading::Full(c, r) => {
            describe(&mut rec, src, &c, &r);
            // Last: the contents take the loaded messages out of the replay.
            let contents = crate::sent::contents(r, "");
            contents.iter().map(cctool_core::io::json::value_len).sum()
        }
    };
    rec.resume_tokens = cctool_core::model::approx_tokens(sent);
    rec
}

/// All of `scan` but the resume's size.
fn describe<V: Message>(rec: &mut SessionRecord, src: &Source, c: &Chat, r: &Replay<V>) {
    rec.lines = c.physical;
    rec.bad_lines = c.bad_lines();
    rec.session_id = r.session_id().map(str::to_string);
    rec.cwd = crate::store::project_root(std::path::Path::new(src.name()));
    rec.project = cctool_core::model::project::name(rec.cwd.as_deref(), src.name());
    rec.chain_messages = r.loaded.iter().filter(|&&i| r.msgs[i].value.sends()).count();
    rec.chain_end = Some(if r.current().is_some() { "compaction" } else { "root" }.into());
    rec.compactions = r.compressions.len();
    rec.resume_model = r
        .loaded
        .iter()
        .rev()
        .find_map(|&i| r.msgs[i].value.model().map(str::to_string));
    let first_prompt = r.loaded.iter().find_map(|&i| {
        let m = &r.msgs[i].value;
        if m.ty() != "user" {
            return None;
        }
        let text = m.text();
        (!crate::sent::ignored(&text)).then(|| prompt_text(&text)).flatten()
    });
    let named = r
        .meta
        .get("summary")
        .and_then(Value::as_str)
        .map(|s| (s.to_string(), "summary"));
    (rec.title, rec.title_source) = title(named, first_prompt);
    let span = span(r);
    rec.first_timestamp = span.map(|s| format_ms(s.0));
    rec.last_timestamp = span.map(|s| format_ms(s.1));
    rec.last_ms = span.map(|s| s.1);
}

/// The lines the client skips, as diagnostics of `file`.
pub fn unread(file: &str, c: &Chat) -> Vec<Diagnostic> {
    c.unread
        .iter()
        .map(|u| Diagnostic::new(file, Some(u.line), u.why.code, u.why.severity, u.why.message.clone()))
        .collect()
}

/// `rebuild-chain`: the messages a resume loads, in the order it loads them (with `--full`
/// the whole history, each message once), as written or rendered with `style`.
pub fn rebuild_chain(
    src: &Source,
    a: &ChainOptions,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let (c, r) = read(src)?;
    if a.api_view {
        return api_view(src, &c, r, a, style, out);
    }
    let mask = loaded_mask(&r);
    let shown: Vec<usize> = if a.full { r.history() } else { r.loaded.clone() };
    for &i in &shown {
        let m = &r.msgs[i];
        match &style {
            None => out.record(&m.json())?,
            Some(st) => {
                let v = Value::Object(m.value.clone());
                let bytes = m.json().len() as u64;
                let mut block = render::record_block(st, &record(m, &v, bytes, mask[i], r.session_id()), None);
                block.id = Some(m.id.clone());
                out.text(&render::render(st, &block))?;
            }
        }
    }
    let summary = ChainSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        messages: shown.len(),
        end: Some(if r.current().is_some() { "compaction" } else { "root" }.into()),
        tip: r.loaded.last().map(|&i| r.msgs[i].id.clone()),
        root: r.loaded.first().map(|&i| r.msgs[i].id.clone()),
        unreachable: Some(r.msgs.len() - r.loaded.len()),
        bad_lines: c.bad_lines(),
        ..ChainSummary::default()
    };
    Ok((unread(src.name(), &c), Report::Chain(summary)))
}

/// `--api-view`: the request's `contents`, one JSON object a line (the whole body is not
/// emulated: `--body` prints the contents in `{"contents": …}`), or rendered.
fn api_view(
    src: &Source,
    c: &Chat,
    r: Replay,
    a: &ChainOptions,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let prompt = a.prompt.as_deref().unwrap_or(DEFAULT_PROMPT);
    let contents = crate::sent::contents(r, prompt);
    let mut bytes = 0;
    if a.body && style.is_none() {
        let body = serde_json::json!({ "contents": contents });
        let text = cctool_core::io::json::to_json(&body);
        bytes = text.len();
        out.record(text.as_bytes())?;
    } else {
        for (i, content) in contents.iter().enumerate() {
            let text = cctool_core::io::json::to_json(content);
            bytes += text.len();
            match &style {
                None => out.record(text.as_bytes())?,
                Some(st) => {
                    let rec = content_record(content);
                    let mut block = render::record_block(st, &rec, None);
                    block.id = Some(format!("#{}", i + 1));
                    out.text(&render::render(st, &block))?;
                }
            }
        }
    }
    let summary = ApiViewSummary {
        assumptions: Some(serde_json::json!({
            "session_context": "the latest the chat holds: the client makes it anew where and when it resumes",
        })),
        ..ApiViewSummary::of_messages(
            src.name(),
            crate::ID.name(),
            CLIENT,
            contents.len(),
            bytes,
            a.prompt.is_some(),
        )
    };
    Ok((unread(src.name(), c), Report::ApiView(summary)))
}

/// The prompt `--api-view` sends when none is given, the harness's default.
pub const DEFAULT_PROMPT: &str = "say ok";

/// One content of the request as a record, for rendering.
fn content_record(content: &Value) -> events::Record {
    let role = content.get("role").and_then(Value::as_str).unwrap_or("");
    events::Record {
        role: Some(role.to_string()),
        speaker: Some(if role == "model" { "assistant" } else { role }.to_string()),
        kind: role.to_string(),
        parts: crate::record::parts(content.get("parts")),
        ..events::Record::default()
    }
}

/// `extract-summary`: every compression's summary exactly as stored, in file order.
pub fn summaries(src: &Source) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
    let reading = crate::lite::read(src).map_err(|e| cctool_core::agents::view::cannot_read(src, e))?;
    Ok(summaries_of(src, &reading))
}

/// `extract-summary` of a chat read.
pub(crate) fn summaries_of(src: &Source, reading: &Reading) -> (Vec<SummaryRecord>, u64) {
    match reading {
        Reading::Fast(c, r) => summaries_in(src, c, r),
        Reading::Full(c, r) => summaries_in(src, c, r),
    }
}

fn summaries_in<V: Message>(src: &Source, c: &Chat, r: &Replay<V>) -> (Vec<SummaryRecord>, u64) {
    let current = r.current();
    let out = r
        .compressions
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let m = k.summary_msg.map(|m| &r.msgs[m]);
            SummaryRecord {
                kind: "summary",
                file: src.name().to_string(),
                format: crate::ID.name(),
                session_id: r.session_id().map(str::to_string),
                index: i,
                current: current == Some(i),
                line: Some(k.line),
                timestamp: m.and_then(|m| m.value.timestamp()).map(str::to_string),
                origin: Some("local"),
                summary: k.summary.clone(),
                summary_source: Some("item"),
                event: "$set",
                boundary_uuid: m.map(|m| m.id.clone()),
                metadata: Some(serde_json::json!({ "dropped_messages": k.dropped })),
                ..SummaryRecord::default()
            }
        })
        .collect();
    (out, c.bad_lines())
}

/// `extract-summary`'s options change nothing: the client stores the summary as it sent it.
pub fn summaries_with(src: &Source, _: summary::Options) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
    summaries(src)
}

/// The session model's events (`scan --rows`, `export`), in the view asked.
pub fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> cctool_core::error::Result<Streamed> {
    let mut c = file::read(src).map_err(cctool_core::error::Error::Read)?;
    let r = replay(&mut c);
    Ok(events_of(&c, &r, ask, sink))
}

/// [`events`] of a chat read and replayed already. Asked for all it holds ([`Ask::native`]),
/// every record carries its JSON and, among every message, each line that is no message (a
/// header, a `$set`, a line the client skips) is a record of its own, before the messages it
/// holds.
pub fn events_of(c: &Chat, r: &Replay, ask: Ask<'_>, sink: Sink<'_>) -> Streamed {
    let mask = loaded_mask(r);
    let mut streamed = Streamed::default();
    let order: Vec<usize> = match ask.view {
        View::Records | View::Calls => (0..r.msgs.len()).collect(),
        View::History => r.history(),
        View::Loaded => r.loaded.clone(),
    };
    // By id: each resume writes the summary again.
    let summaries: Vec<&str> = r
        .compressions
        .iter()
        .filter_map(|k| k.summary_msg.map(|m| r.msgs[m].id.as_str()))
        .collect();
    let mut lines = UnreadLines::new(ask, other_lines(c));
    for i in order {
        let m = &r.msgs[i];
        lines.before(m.line, true, sink);
        if ask.view == View::History && summaries.contains(&m.id.as_str()) {
            sink(Event::Mark(Mark::Compaction(events::Compaction {
                time: m.s("timestamp").map(str::to_string),
                measured: None,
                summary: None,
                encrypted: false,
                encrypted_bytes: None,
            })));
        }
        // Written once: read as asked, and measured.
        let json = m.json();
        let Some(v) = ask.parse(&json) else { continue };
        let mut rec = record(m, &v, json.len() as u64, mask[i], r.session_id());
        rows::earliest(&mut streamed.first_ms, rec.ms);
        if ask.native {
            rec.native = Some(v);
        }
        sink(Event::Record(rec));
    }
    lines.rest(sink);
    if let Some((first, _)) = span(r) {
        rows::earliest(&mut streamed.first_ms, Some(first));
    }
    streamed
}

/// The lines that are no message: a header, a `$set`, a line the client skips.
fn other_lines(c: &Chat) -> impl Iterator<Item = (u64, u64, &[u8])> {
    let read = c.lines.iter().filter(|l| l.kind != file::Kind::Message);
    let read = read.map(|l| (l.line, l.offset, l.raw.as_slice()));
    let skipped = c.unread.iter().map(|u| (u.line, u.offset, u.raw.as_slice()));
    read.chain(skipped)
}

/// `export --format jsonl`: the messages a resume loads (`full`: every line as written).
pub fn export_records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let mut c = file::read(src).map_err(|e| doc::cannot_read(src, e))?;
    if full {
        return c.lines.iter().try_for_each(|l| emit(&l.raw));
    }
    let r = replay(&mut c);
    r.loaded.iter().try_for_each(|&i| emit(&r.msgs[i].json()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::model::events::Reading;

    #[test]
    fn asked_for_all_it_holds_a_line_of_no_message_comes_before_the_messages_it_holds() {
        let text = concat!(
            r#"{"sessionId":"s","projectHash":"p","startTime":"2026-12-01T10:00:00Z","lastUpdated":"2026-12-01T10:00:00Z"}"#,
            "\n",
            r#"{"$set":{"messages":[{"id":"m1","timestamp":"2026-12-01T10:00:01Z","type":"user","content":[{"text":"hi"}]}]}}"#,
            "\nnot json\n",
            r#"{"id":"m2","timestamp":"2026-12-01T10:00:02Z","type":"gemini","content":"hello"}"#,
            "\n",
        );
        let mut c = file::read(&Source::from_bytes("s.jsonl", text.as_bytes().to_vec())).unwrap();
        let r = replay(&mut c);
        let mut seen = Vec::new();
        let ask = Ask {
            native: true,
            reading: Reading::With(&|b| Some(cctool_core::v5::build::parse(b))),
            ..Ask::records()
        };
        events_of(&c, &r, ask, &mut |e| {
            if let Event::Record(r) = e {
                seen.push((r.at.map(|a| a.line), r.id, r.native.is_some()));
            }
        });
        let want = [
            (Some(1), None, true),
            (Some(2), None, true),
            (Some(2), Some("m1".to_string()), true),
            (Some(3), None, true),
            (Some(4), Some("m2".to_string()), true),
        ];
        assert_eq!(seen, want);
    }
}
