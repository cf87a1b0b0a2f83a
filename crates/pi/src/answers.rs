//! What the reading commands print of a pi session: `scan`, `rebuild-chain`, `extract-summary`,
//! `scan --rows`, `export`. `doctor` is in [`crate::doctor`].

use serde_json::Value;

use crate::file::{self, Session, Unread};
use crate::lite::{self, Kind, Lite};
use crate::model::{self, record};
use crate::tree::{Node, Tree};
use cctool_core::agents::view::{ChainOptions, ChainSummary, Report};
use cctool_core::io::Source;
use cctool_core::model::diag::{Code, Diagnostic, Severity};
use cctool_core::model::doc::{self, ExportError};
use cctool_core::model::events::{self, Ask, Event, Mark, Measured, Sink, Streamed, UnreadLines, View};
use cctool_core::model::rows;
use cctool_core::model::session::{SessionRecord, prompt_text, title};
use cctool_core::model::time::format_ms;
use cctool_core::output::Out;
use cctool_core::output::render::{self, Render};
use cctool_core::summary::{self, SummaryRecord};

/// The file at a glance; a file that cannot be read is reported with its size alone.
pub fn scan(src: &Source) -> SessionRecord {
    match lite::read(src) {
        Ok(s) => scan_of(src, &s),
        Err(_) => unread_record(src),
    }
}

fn unread_record(src: &Source) -> SessionRecord {
    SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        bytes: src.len(),
        role: "session",
        ..SessionRecord::default()
    }
}

/// [`scan`] of `src` read as `s`.
pub(crate) fn scan_of(src: &Source, s: &lite::Session) -> SessionRecord {
    let mut r = unread_record(src);
    let t = Tree::over(&s.entries, None);
    r.lines = s.lines;
    r.bad_lines = s.bad_lines();
    r.session_id = s.session_id().map(str::to_string);
    r.cwd = s.cwd().map(str::to_string);
    r.project = cctool_core::model::project::name(s.cwd(), src.name());
    r.parent_session = s.header.as_ref().and_then(|h| h.parent_session.clone());
    let (messages, bytes) = sent_size(s, &t);
    r.chain_messages = messages;
    r.chain_end = Some(if t.compaction.is_some() { "compaction" } else { "root" }.into());
    r.leaves = Some(t.leaves);
    r.dangling_parents = Some(t.dangling.len());
    r.duplicate_uuids = Some(t.duplicates.len() as u64);
    let compactions: Vec<&file::Entry> = s
        .entries
        .iter()
        .filter_map(Lite::whole)
        .filter(|e| e.ty() == "compaction")
        .collect();
    r.compactions = compactions.len();
    r.last_compaction_pre_tokens = compactions
        .last()
        .and_then(|c| c.value.get("tokensBefore"))
        .and_then(Value::as_i64);
    // What is sent is the messages as JSON; their size in bytes stands for their tokens.
    r.resume_tokens = cctool_core::model::approx_tokens(bytes);
    r.resume_model = resume_model(s, &t);
    let first_prompt = t
        .branch
        .iter()
        .find_map(|&i| s.entries[i].first_text().and_then(|t| prompt_text(&t)));
    (r.title, r.title_source) = title(session_name(s).map(|n| (n, "session_info")), first_prompt);
    let span = s.span();
    r.first_timestamp = span.map(|s| format_ms(s.0));
    r.last_timestamp = span.map(|s| format_ms(s.1));
    r.last_ms = span.map(|s| s.1);
    r
}

/// How many messages a resume of `s` sends and the length of their JSON: [`model::sent`], with
/// the messages sent as written counted as they were read.
fn sent_size(s: &lite::Session, t: &Tree) -> (usize, usize) {
    let edits = model::edits_of(t.context.iter().filter_map(|&i| s.entries[i].whole()));
    let (mut messages, mut bytes) = (0, 0);
    for (k, &i) in t.context.iter().enumerate() {
        let e = &s.entries[i];
        // Only the compaction the resume starts from sends its summary.
        if e.ty() == "compaction" && k > 0 {
            continue;
        }
        match &e.kind {
            Kind::Sent(m) => (messages, bytes) = (messages + 1, bytes + m.len),
            Kind::Whole(e) => {
                for m in model::messages_of(e, &edits) {
                    (messages, bytes) = (messages + 1, bytes + cctool_core::io::json::json_len(&m));
                }
            }
        }
    }
    (messages, bytes)
}

/// The name the user gave the session: the latest `session_info`'s, an empty one clearing it
/// (`getSessionName`).
fn session_name(s: &lite::Session) -> Option<String> {
    let e = s.entries.iter().rev().find(|e| e.ty() == "session_info")?.whole()?;
    e.s("name").map(str::trim).filter(|n| !n.is_empty()).map(str::to_string)
}

/// The model a resume continues with: the last `model_change` or assistant message on the
/// branch (`getSessionContextSettings`).
fn resume_model(s: &lite::Session, t: &Tree) -> Option<String> {
    t.branch.iter().rev().find_map(|&i| {
        let e = &s.entries[i];
        match e.ty() {
            "model_change" => e.whole()?.s("modelId").map(str::to_string),
            "message" if e.role() == Some("assistant") => e.model().map(str::to_string),
            _ => None,
        }
    })
}

/// The lines the client skips, as diagnostics of `file` (findings for `doctor`).
pub fn unread(file: &str, unread: &[Unread], as_finding: bool) -> Vec<Diagnostic> {
    unread
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

/// The session, refused when it has no header: the client reads no session in such a file.
pub fn read(src: &Source) -> cctool_core::error::Result<Session> {
    let s = file::read(src).map_err(|e| cctool_core::agents::view::cannot_read(src, e))?;
    Ok(s)
}

/// Why `--tip` names no entry.
#[derive(Debug, thiserror::Error)]
pub enum TipError {
    /// No entry's id starts with it.
    #[error("--tip {0}: no entry of this pi session has an id that starts so")]
    NotFound(String),
    /// Several do.
    #[error("--tip {0}: several entries of this pi session have ids that start so; give more of it")]
    Ambiguous(String),
}

fn tip_of(s: &Session, tip: &str) -> Result<usize, TipError> {
    let mut found = s
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.id.as_deref().is_some_and(|id| id.starts_with(tip)));
    match (found.next(), found.next()) {
        (Some((i, _)), None) => Ok(i),
        (None, _) => Err(TipError::NotFound(tip.to_string())),
        _ => Err(TipError::Ambiguous(tip.to_string())),
    }
}

/// `rebuild-chain`: the entries a resume loads, in the order it sends them (with `--full`
/// every entry of the file, the whole tree, in file order), printed as written or rendered
/// with `style`.
pub fn rebuild_chain(
    src: &Source,
    a: &ChainOptions,
    style: Option<Render>,
    out: &mut Out,
) -> cctool_core::error::Result<(Vec<Diagnostic>, Report)> {
    let s = read(src)?;
    let tip = match a.tip.as_deref() {
        Some(t) => Some(tip_of(&s, t).map_err(cctool_core::error::Error::agent)?),
        None => None,
    };
    let t = Tree::at(&s, tip);
    let loaded = t.loaded(s.entries.len());
    let shown: Vec<usize> = if a.full {
        (0..s.entries.len()).collect()
    } else {
        t.context.clone()
    };
    for &i in &shown {
        let e = &s.entries[i];
        match &style {
            None => out.record(&e.raw)?,
            Some(st) => {
                let v = cctool_core::agents::view::value_of(&e.raw);
                let mut block = render::record_block(st, &record(e, &v, loaded[i], s.session_id()), None);
                block.id = e.id.clone().or_else(|| Some(format!("#{}", e.line)));
                out.text(&render::render(st, &block))?;
            }
        }
    }
    let mut diags = unread(src.name(), &s.unread, false);
    diags.extend(crate::doctor::tree_findings(src.name(), &s.entries, &t, false));
    let id_of = |i: Option<&usize>| i.and_then(|&i| s.entries[i].id.clone());
    let summary = ChainSummary {
        file: src.name().to_string(),
        format: crate::ID.name(),
        messages: shown.len(),
        end: Some(if t.compaction.is_some() { "compaction" } else { "root" }.into()),
        tip: id_of(t.branch.last()),
        root: id_of(t.branch.first()),
        unreachable: Some(s.entries.len() - t.branch.len()),
        duplicate_uuids: Some(t.duplicates.len() as u64),
        bad_lines: s.bad_lines(),
        ..ChainSummary::default()
    };
    Ok((diags, Report::Chain(summary)))
}

/// `extract-summary`: every compaction's summary exactly as stored, in file order; the current
/// one is the compaction the resume starts from. With `--strip-template` nothing changes: the
/// client stores the summary without its wrapper.
pub fn summaries(src: &Source, _: summary::Options) -> cctool_core::error::Result<(Vec<SummaryRecord>, u64)> {
    let s = lite::read(src).map_err(|e| cctool_core::agents::view::cannot_read(src, e))?;
    Ok(summaries_of(src, &s))
}

/// [`summaries`] of `src` read as `s`.
pub(crate) fn summaries_of(src: &Source, s: &lite::Session) -> (Vec<SummaryRecord>, u64) {
    let t = Tree::over(&s.entries, None);
    let mut out = Vec::new();
    let whole = s.entries.iter().enumerate().filter_map(|(i, e)| Some((i, e.whole()?)));
    for (i, e) in whole.filter(|(_, e)| e.ty() == "compaction") {
        let mut r = SummaryRecord {
            kind: "summary",
            file: src.name().to_string(),
            format: crate::ID.name(),
            session_id: s.session_id().map(str::to_string),
            index: out.len(),
            current: t.compaction == Some(i),
            line: Some(e.line),
            timestamp: e.timestamp().map(str::to_string),
            pre_tokens: e.value.get("tokensBefore").and_then(Value::as_i64),
            origin: Some("local"),
            summary: e.s("summary").map(str::to_string),
            summary_source: Some("item"),
            event: "compaction",
            boundary_uuid: e.id.clone(),
            trigger: e
                .value
                .get("fromHook")
                .and_then(Value::as_bool)
                .map(|h| if h { "extension" } else { "pi" }.into()),
            ..SummaryRecord::default()
        };
        let meta: serde_json::Map<String, Value> = ["firstKeptEntryId", "details"]
            .iter()
            .filter_map(|k| e.value.get(*k).map(|v| ((*k).to_string(), v.clone())))
            .collect();
        r.metadata = (!meta.is_empty()).then_some(Value::Object(meta));
        if r.summary.is_none() {
            r.warning = Some("the compaction holds no summary text: pi sends `undefined` in its place".into());
        } else if t.compaction == Some(i) && !t.first_kept_found {
            r.warning = Some("its firstKeptEntryId is not on the resumed branch: nothing before it is kept".into());
        }
        out.push(r);
    }
    (out, s.bad_lines())
}

/// The session model's events (`scan --rows`, `export`), in the view asked.
pub fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> cctool_core::error::Result<Streamed> {
    let s = file::read(src).map_err(cctool_core::error::Error::Read)?;
    Ok(events_of(&s, ask, sink))
}

/// [`events`] of a session read already. Asked for all it holds ([`Ask::native`]), every
/// record carries its JSON and, among every entry, the header and each line the client skips
/// are records of their own at their place.
pub fn events_of(s: &Session, ask: Ask<'_>, sink: Sink<'_>) -> Streamed {
    let t = Tree::of(s);
    let loaded = t.loaded(s.entries.len());
    let mut streamed = Streamed::default();
    let order: Vec<usize> = match ask.view {
        View::Records | View::Calls => (0..s.entries.len()).collect(),
        View::Loaded => t.context.clone(),
        View::History => t.branch.clone(),
    };
    let marks = ask.view == View::History && t.compaction.is_some();
    let mut seen_loaded = false;
    if marks && order.first().is_some_and(|&i| !loaded[i]) {
        sink(Event::Mark(Mark::Earlier));
    }
    let mut lines = UnreadLines::new(ask, other_lines(s));
    for i in order {
        let e = &s.entries[i];
        lines.before(e.line, false, sink);
        if marks && loaded[i] && !std::mem::replace(&mut seen_loaded, true) && i != t.branch[0] {
            sink(Event::Mark(Mark::Loaded));
        }
        let Some(v) = ask.parse(&e.raw) else { continue };
        let mut r = record(e, &v, loaded[i], s.session_id());
        rows::earliest(&mut streamed.first_ms, r.ms);
        if e.ty() == "compaction" {
            sink(Event::Mark(Mark::Compaction(events::Compaction {
                time: r.time.clone(),
                measured: Some(Measured {
                    trigger: None,
                    pre_tokens: v.get("tokensBefore").cloned(),
                }),
                summary: None,
                encrypted: false,
                encrypted_bytes: None,
            })));
        }
        if ask.native {
            r.native = Some(v);
        }
        sink(Event::Record(r));
    }
    lines.rest(sink);
    if let Some(ms) = s.span().map(|s| s.0) {
        rows::earliest(&mut streamed.first_ms, Some(ms));
    }
    streamed
}

/// The lines that are no entry: the header, the lines the client skips.
fn other_lines(s: &Session) -> impl Iterator<Item = (u64, u64, &[u8])> {
    let header = s.header.as_ref().zip(s.header_raw.as_deref());
    let header = header.map(|(h, raw)| (h.line, s.header_offset, raw));
    let skipped = s.unread.iter().map(|u| (u.line, u.offset, u.raw.as_slice()));
    header.into_iter().chain(skipped)
}

/// `export --format jsonl`: the entries a resume loads as written (`full`: every line the
/// client reads, the header first).
pub fn export_records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let s = file::read(src).map_err(|e| doc::cannot_read(src, e))?;
    if full {
        if let Some(h) = &s.header_raw {
            emit(h)?;
        }
        return s.entries.iter().try_for_each(|e| emit(&e.raw));
    }
    let t = Tree::of(&s);
    t.context.iter().try_for_each(|&i| emit(&s.entries[i].raw))
}

/// The file's header missing: the client refuses the file as no session of its own.
pub fn no_header(file: &str) -> Diagnostic {
    Diagnostic::new(
        file,
        Some(1),
        Code::Unreadable,
        Severity::Error,
        "the first record is not a session header ({\"type\":\"session\",\"id\":…}): pi refuses the file".to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::model::events::Reading;

    #[test]
    fn asked_for_all_it_holds_the_header_and_skipped_lines_come_at_their_place() {
        let text = concat!(
            "not json\n",
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}"#,
            "\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"hi"}}"#,
            "\n{broken\n",
        );
        let s = file::read(&Source::from_bytes("s.jsonl", text.as_bytes().to_vec())).unwrap();
        let stream = |ask: Ask<'_>| {
            let mut out = Vec::new();
            events_of(&s, ask, &mut |e| {
                if let Event::Record(r) = e {
                    out.push((r.at.map(|a| (a.line, a.offset)), r.kind, r.native));
                }
            });
            out
        };
        let all = stream(Ask {
            native: true,
            reading: Reading::With(&|b| Some(cctool_core::v5::build::parse(b))),
            ..Ask::records()
        });
        let at: Vec<_> = all.iter().map(|(at, ..)| *at).collect();
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i as u64 + 1));
        let want: Vec<_> = (1..=4).zip(starts).map(Some).collect();
        assert_eq!(at, want);
        assert_eq!(all[0].2, Some(Value::Null));
        assert_eq!(all[1].1, "", "the header is no entry");
        assert_eq!(all[1].2.as_ref().unwrap()["id"], "s1");
        assert_eq!(all[2].1, "message");
        let lean = stream(Ask::records());
        assert_eq!(lean.len(), 1);
        assert_eq!(lean[0].2, None);
    }
}
