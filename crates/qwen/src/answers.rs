//! What the reading commands print of a Qwen Code session: `scan`, `rebuild-chain` (and its
//! `--api-view`), `extract-summary`, `scan --rows`, `export`. `doctor` is in [`crate::doctor`].

use serde_json::Value;

use crate::chain::Chain;
use crate::file::{self, Session};
use crate::model::record;
use cctool_core::agents::view::{
    ApiViewSummary, ChainOptions, ChainSummary, Report, cannot_read, print_chat_messages, value_of,
};
use cctool_core::io::Source;
use cctool_core::model::diag::Diagnostic;
use cctool_core::model::doc::{self, ExportError};
use cctool_core::model::events::{self, Ask, Event, Mark, Measured, Sink, Streamed, UnreadLines, View};
use cctool_core::model::rows;
use cctool_core::model::session::{SessionRecord, prompt_text, title};
use cctool_core::model::time::format_ms;
use cctool_core::output::Out;
use cctool_core::output::render::{self, Render};
use cctool_core::summary::{self, SummaryRecord};

/// The session, or why the file cannot be read.
pub fn read(src: &Source) -> cctool_core::error::Result<Session> {
    file::read(src).map_err(|e| cannot_read(src, e))
}

/// The session as an answer that prints no record and wants `want` of the messages reads it
/// ([`crate::lite`]), or why the file cannot be read.
pub fn read_light(src: &Source, want: crate::lite::Want) -> cctool_core::error::Result<Session> {
    crate::lite::read(src, want).map_err(|e| cannot_read(src, e))
}

/// The file at a glance; a file that cannot be read is reported with its size alone.
pub fn scan(src: &Source) -> SessionRecord {
    scan_of(src, crate::lite::read(src, crate::lite::Want::Request))
}

/// [`scan`] of the session `read` from `src`.
pub(crate) fn scan_of(src: &Source, read: std::io::Result<Session>) -> SessionRecord {
    let mut r = SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        bytes: src.len(),
        role: "session",
        ..SessionRecord::default()
    };
    let Ok(s) = read else { return r };
    let c = Chain::of(&s);
    r.lines = s.lines;
    r.bad_lines = s.bad_lines();
    r.session_id = s.session_id().map(str::to_string);
    r.cwd = s.cwd().map(str::to_string);
    r.project = cctool_core::model::project::name(s.cwd(), src.name());
    r.agent_versions = versions(&s);
    let (sent, _) = crate::api::request(&s, &c, None);
    r.chain_messages = sent.len();
    r.chain_end = Some(end(&s, &c));
    r.leaves = Some(c.leaves);
    r.dangling_parents = Some(c.dangling.len());
    r.duplicate_uuids = Some(c.duplicates as u64);
    let compactions: Vec<&file::Rec> = s.records.iter().filter(|e| e.is_system("chat_compression")).collect();
    r.compactions = compactions.len();
    r.last_compaction_pre_tokens = compactions.last().and_then(|c| info(c, "originalTokenCount"));
    r.last_compaction_trigger = compactions
        .last()
        .and_then(|c| {
            c.value
                .get("systemPayload")?
                .get("info")?
                .get("triggerReason")?
                .as_str()
        })
        .map(str::to_string);
    // What is sent is the messages as JSON; their size in bytes stands for their tokens.
    r.resume_tokens = cctool_core::model::approx_tokens(sent.iter().map(|m| s.sent_len(m)).sum());
    r.resume_model = c
        .walked
        .iter()
        .rev()
        .find_map(|&i| s.records[i].s("model").map(str::to_string));
    let first_prompt = c.walked.iter().find_map(|&i| {
        let e = &s.records[i];
        (e.ty() == "user" && e.subtype().is_none())
            .then(|| {
                let (_, parts) = e.message_parts()?;
                parts.iter().find_map(|p| p.text.as_str()).and_then(prompt_text)
            })
            .flatten()
    });
    (r.title, r.title_source) = title(custom_title(&s).map(|t| (t, "custom_title")), first_prompt);
    let span = s.span();
    r.first_timestamp = span.map(|s| format_ms(s.0));
    r.last_timestamp = span.map(|s| format_ms(s.1));
    r.last_ms = span.map(|s| s.1);
    r
}

fn versions(s: &Session) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in s.records.iter().filter_map(|r| r.s("version")) {
        if !out.iter().any(|x| x == v) {
            out.push(v.to_string());
        }
    }
    out
}

/// A number of a `chat_compression`'s `systemPayload.info`.
fn info(r: &file::Rec, key: &str) -> Option<i64> {
    r.value.get("systemPayload")?.get("info")?.get(key)?.as_i64()
}

/// The title the user gave the session: the latest `custom_title`'s.
fn custom_title(s: &Session) -> Option<String> {
    let r = s.records.iter().rev().find(|r| r.is_system("custom_title"))?;
    let t = r.value.get("systemPayload")?.get("customTitle")?.as_str()?.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Why the walk stopped: at a compaction, a gap, a cycle, the root, or at nothing.
fn end(s: &Session, c: &Chain) -> String {
    if let Some(i) = c.cycle {
        return format!("cycle:{}", s.records[i].uuid);
    }
    if c.compaction.is_some() {
        return "compaction".into();
    }
    match (&c.gap, c.leaf) {
        (Some((_, parent)), _) => format!("dangling:{parent}"),
        (None, Some(_)) => "root".into(),
        (None, None) => "empty".into(),
    }
}

/// The lines and objects the client passes over, as diagnostics of `file` (findings for
/// `doctor`).
pub fn unread(file: &str, s: &Session, as_finding: bool) -> Vec<Diagnostic> {
    s.unread
        .iter()
        .map(|u| {
            let d = Diagnostic::new(file, Some(u.line), u.why.code, u.why.severity, u.why.message.clone());
            if as_finding {
                Diagnostic { kind: "finding", ..d }
            } else {
                d
            }
        })
        .collect()
}

/// `rebuild-chain`: the records a resume walks, from the compaction it starts from on (with
/// `--full` every record of the walk), as written or rendered with `style`.
pub fn rebuild_chain(
    src: &Source,
    a: &ChainOptions,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let s = read(src)?;
    let c = Chain::of(&s);
    if a.api_view {
        return api_view(src, &s, &c, a, style, out);
    }
    let loaded = c.loaded(s.records.len());
    let from = if a.full { 0 } else { c.compaction.unwrap_or(0) };
    let shown = &c.walked[from.min(c.walked.len())..];
    for &i in shown {
        let e = &s.records[i];
        match &style {
            None => out.record(&e.raw)?,
            Some(st) => {
                let mut block = render::record_block(st, &record(e, &value_of(&e.raw), loaded[i]), None);
                block.id = Some(e.uuid.clone());
                out.text(&render::render(st, &block))?;
            }
        }
    }
    let mut diags = unread(src.name(), &s, false);
    diags.extend(crate::doctor::chain_findings(src.name(), &s, &c, false));
    let uuid_of = |i: Option<&usize>| i.map(|&i| s.records[i].uuid.clone());
    let summary = ChainSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        messages: shown.len(),
        end: Some(end(&s, &c)),
        tip: uuid_of(c.walked.last()),
        root: uuid_of(c.walked.first()),
        unreachable: Some(s.records.len() - c.walked.len() - c.fragments.values().map(Vec::len).sum::<usize>()),
        duplicate_uuids: Some(c.duplicates as u64),
        bad_lines: s.bad_lines(),
        ..ChainSummary::default()
    };
    Ok((diags, Report::Chain(summary)))
}

/// `--api-view`: the messages the client sends after resuming ([`crate::api`]), one JSON
/// object a line, or rendered with `style`.
fn api_view(
    src: &Source,
    s: &Session,
    c: &Chain,
    a: &ChainOptions,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let mut diags = unread(src.name(), s, false);
    diags.extend(crate::doctor::chain_findings(src.name(), s, c, false));
    if let Some((line, other)) = s.other_session_ids().first() {
        // The client refuses to load records of several sessions: nothing is sent.
        let summary = ApiViewSummary {
            refused: Some(format!(
                "line {line} is a record of session {other}: Qwen Code refuses to resume a file that mixes sessions"
            )),
            ..ApiViewSummary::of_messages(
                src.name(),
                crate::ID.name(),
                crate::api::CLIENT,
                0,
                0,
                a.prompt.is_some(),
            )
        };
        return Ok((diags, Report::ApiView(summary)));
    }
    let (sent, applied) = crate::api::request(s, c, a.prompt.as_deref());
    let msgs: Vec<Value> = sent.iter().map(crate::api::Message::value).collect();
    let bytes = print_chat_messages(&msgs, style.as_ref(), out)?;
    let summary = ApiViewSummary {
        model: c
            .walked
            .iter()
            .rev()
            .find_map(|&i| s.records[i].s("model").map(str::to_string)),
        notice: Some(
            "the system prompt and the <system-reminder> parts are the resuming client's own and are not shown".into(),
        ),
        rules: rules(c, applied),
        assumptions: Some(serde_json::json!({"provider_api": "openai"})),
        ..ApiViewSummary::of_messages(
            src.name(),
            crate::ID.name(),
            crate::api::CLIENT,
            msgs.len(),
            bytes,
            a.prompt.is_some(),
        )
    };
    Ok((diags, Report::ApiView(summary)))
}

/// The rules that shaped what a resume sends, with how often each applied: the records
/// walked, the compaction started from, and the send-time rules.
fn rules(c: &Chain, a: crate::api::Applied) -> Vec<Value> {
    let counts = [
        ("QW2", c.walked.len()),
        ("QW3", usize::from(c.compaction.is_some())),
        ("QW4", a.curated),
        ("QW5", a.orphans),
        ("QW7", a.repaired),
        ("QW8", a.media),
    ];
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| serde_json::json!({"rule": r, "count": n}))
        .collect()
}

/// `extract-summary`: every `chat_compression`'s summary exactly as stored (the first text of
/// its compressed history), in file order; the current one is the compaction a resume starts
/// from.
pub fn summaries(src: &Source, _: summary::Options) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
    Ok(summaries_of(src, &read_light(src, crate::lite::Want::Nothing)?))
}

/// [`summaries`] of the session `s` read from `src`.
pub(crate) fn summaries_of(src: &Source, s: &Session) -> (Vec<SummaryRecord>, u64) {
    let c = Chain::of(s);
    let current = c.compaction.map(|k| c.walked[k]);
    let mut out = Vec::new();
    for (i, e) in s
        .records
        .iter()
        .enumerate()
        .filter(|(_, e)| e.is_system("chat_compression"))
    {
        let trigger = e
            .value
            .get("systemPayload")
            .and_then(|p| p.get("info")?.get("triggerReason")?.as_str())
            .map(str::to_string);
        let mut r = SummaryRecord {
            kind: "summary",
            file: src.name().to_string(),
            format: crate::ID.name(),
            session_id: e.s("sessionId").map(str::to_string),
            index: out.len(),
            current: current == Some(i),
            line: Some(e.line),
            timestamp: e.timestamp().map(str::to_string),
            pre_tokens: info(e, "originalTokenCount"),
            origin: Some("local"),
            summary: crate::model::summary(e).map(str::to_string),
            summary_source: Some("item"),
            event: "chat_compression",
            boundary_uuid: Some(e.uuid.clone()),
            trigger,
            ..SummaryRecord::default()
        };
        r.metadata = e.value.get("systemPayload").and_then(|p| p.get("info")).cloned();
        if r.summary.is_none() {
            r.warning = Some("the compaction keeps no compressed history: a resume does not start from it".into());
        } else if !c.walked.contains(&i) {
            r.warning = Some("the compaction is not on the chain a resume walks".into());
        }
        out.push(r);
    }
    (out, s.bad_lines())
}

/// The session model's events (`scan --rows`, `export`), in the view asked: every record, what
/// a resume loads, or the walked chain with its compactions marked.
pub fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> cctool_core::error::Result<Streamed> {
    let s = file::read(src).map_err(cctool_core::error::Error::Read)?;
    Ok(events_of(&s, ask, sink))
}

/// [`events`] of a session read already. Asked for all it holds ([`Ask::native`]), every
/// record carries its JSON and, among every record, each line or object the client passes
/// over is a record of its own after the records read before it.
pub fn events_of(s: &Session, ask: Ask<'_>, sink: Sink<'_>) -> Streamed {
    events_along(s, &Chain::of(s), ask, sink)
}

/// [`events_of`] of a session whose chain is walked already.
pub fn events_along(s: &Session, c: &Chain, ask: Ask<'_>, sink: Sink<'_>) -> Streamed {
    let loaded = c.loaded(s.records.len());
    let mut streamed = Streamed::default();
    let order: Vec<usize> = match ask.view {
        View::Records | View::Calls => (0..s.records.len()).collect(),
        View::Loaded => c.walked[c.compaction.unwrap_or(0).min(c.walked.len())..].to_vec(),
        View::History => c.walked.clone(),
    };
    let marks = ask.view == View::History && c.compaction.is_some();
    if marks && order.first().is_some_and(|&i| !loaded[i]) {
        sink(Event::Mark(Mark::Earlier));
    }
    let skipped = s.unread.iter().map(|u| (u.line, u.offset, u.raw.as_slice()));
    let mut unread = UnreadLines::new(ask, skipped);
    for i in order {
        let e = &s.records[i];
        unread.before(e.line, false, sink);
        let Some(v) = ask.parse(&e.raw) else { continue };
        let mut r = record(e, &v, loaded[i]);
        rows::earliest(&mut streamed.first_ms, r.ms);
        if e.is_system("chat_compression") && ask.view == View::History {
            sink(Event::Mark(Mark::Compaction(events::Compaction {
                time: r.time.clone(),
                measured: Some(Measured {
                    trigger: None,
                    pre_tokens: info(e, "originalTokenCount").map(Value::from),
                }),
                summary: None,
                encrypted: false,
                encrypted_bytes: None,
            })));
            if c.compaction.map(|k| c.walked[k]) == Some(i) {
                sink(Event::Mark(Mark::Loaded));
            }
        }
        if ask.native {
            r.native = Some(v);
        }
        sink(Event::Record(r));
    }
    unread.rest(sink);
    streamed
}

/// The walked records of `chain`, by index, as the session model's stream hands them on in
/// its history view, each asked for its place only.
pub fn walked(s: &Session, chain: &Chain) -> Vec<usize> {
    let mut walked = Vec::new();
    events_along(s, chain, cctool_core::convert::read::order(true), &mut |e| {
        if let Event::Record(r) = e {
            walked.extend(index_of(s, &r));
        }
    });
    walked
}

/// The record of the session that the stream's record `rec` is: the one of its line with
/// its uuid (the client reads several records from a line that lost its newline).
pub fn index_of(s: &Session, rec: &events::Record) -> Option<usize> {
    let line = rec.at?.line;
    let from = s.records.partition_point(|r| r.line < line);
    let to = s.records.partition_point(|r| r.line <= line);
    (from..to).find(|&i| rec.id.as_deref() == Some(s.records[i].uuid.as_str()))
}

/// `export --format jsonl`: the records a resume walks from its compaction on, as written
/// (`full`: every record of the file).
pub fn export_records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let s = file::read(src).map_err(|e| doc::cannot_read(src, e))?;
    if full {
        return s.records.iter().try_for_each(|e| emit(&e.raw));
    }
    let c = Chain::of(&s);
    c.walked[c.compaction.unwrap_or(0).min(c.walked.len())..]
        .iter()
        .try_for_each(|&i| emit(&s.records[i].raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::model::events::Reading;

    #[test]
    fn asked_for_all_it_holds_a_line_passed_over_follows_the_records_read_from_it() {
        let rec = |uuid: &str, parent: &str| {
            format!(
                r#"{{"uuid":"{uuid}","parentUuid":{parent},"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","type":"user","message":{{"role":"user","parts":[{{"text":"hi"}}]}}}}"#
            )
        };
        // Two records on one line (a lost newline), then a line that is no JSON.
        let text = format!("{}{}\nnot json\n", rec("a", "null"), rec("b", r#""a""#));
        let s = file::read(&Source::from_bytes("s.jsonl", text.into_bytes())).unwrap();
        let mut seen = Vec::new();
        let ask = Ask {
            native: true,
            reading: Reading::With(&|b| Some(cctool_core::v5::build::parse(b))),
            ..Ask::records()
        };
        events_of(&s, ask, &mut |e| {
            if let Event::Record(r) = e {
                seen.push((r.at.map(|a| a.line), r.id, r.native.is_some()));
            }
        });
        let want = [
            (Some(1), Some("a".to_string()), true),
            (Some(1), Some("b".to_string()), true),
            (Some(1), None, true),
            (Some(2), None, true),
        ];
        assert_eq!(seen, want);
    }
}
