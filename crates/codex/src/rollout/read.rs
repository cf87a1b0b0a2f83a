//! Reading a rollout's records, line by line or as the 2025 JSON document: each line's
//! envelope parsed, items classified, compactions and metadata kept, bad lines named.

use super::*;

pub(super) fn opt(s: &LStr<'_>) -> Option<String> {
    s.as_str().map(str::to_string)
}

pub(super) fn offset_in(line: &Line<'_>, part: &str) -> u64 {
    line.offset + (part.as_ptr() as usize - line.bytes.as_ptr() as usize) as u64
}

/// Reads every record of a rollout.
pub fn read_records(src: &Source) -> std::io::Result<Rollout> {
    read_records_with_progress(src, &mut |_| {})
}

/// [`read_records`], reporting the byte offset reached now and then.
pub fn read_records_with_progress(src: &Source, progress: &mut dyn FnMut(u64)) -> std::io::Result<Rollout> {
    let name = src.name().to_string();
    let mut out = Rollout {
        file: name.clone(),
        ..Rollout::default()
    };
    // The 2025 TypeScript CLI wrote one (pretty-printed) JSON document.
    if let Some(doc) = read_document(src, &mut out)? {
        src.check()?;
        return Ok(doc);
    }
    let mut first = true;
    let mut reported = 0u64;
    let stats = crate::io::for_each_line(src, |line| {
        if line.offset >= reported + 4 * 1024 * 1024 {
            reported = line.offset;
            progress(reported);
        }
        let is_first = std::mem::replace(&mut first, false);
        ingest(&mut out, &line, is_first);
    })?;
    out.lines = stats.lines;
    // A record of each line: the room the vector grew into past them is given back.
    out.records.shrink_to_fit();
    Ok(out)
}

/// Only the records that name compactions — `session_meta`, `compacted` and rollbacks —
/// found by substring search; every other line is skipped unparsed. Enough to list the
/// compactions of an envelope-era rollout and, when it has no rollback, to know which one a
/// resume starts from (the last).
pub fn read_compaction_records(src: &Source) -> std::io::Result<Rollout> {
    let mut out = Rollout {
        file: src.name().to_string(),
        ..Rollout::default()
    };
    crate::io::lines::for_each_marker_line(
        src,
        &[b"\"session_meta\"", b"\"compacted\"", b"\"thread_rolled_back\""],
        |line| {
            ingest(&mut out, &line, false);
        },
    )?;
    Ok(out)
}

/// [`read_records`] a record at a time: `f` gets each record as its line is read, and none is
/// kept, so a large rollout is read in bounded memory (a 2025 document, read whole, is handed
/// over after). For a reader that needs no index: one that takes every record in order.
pub fn for_each_record(src: &Source, mut f: impl FnMut(u64, Record)) -> std::io::Result<()> {
    let mut out = Rollout {
        file: src.name().to_string(),
        ..Rollout::default()
    };
    if let Some(doc) = read_document(src, &mut out)? {
        src.check()?;
        for (no, rec) in doc.records {
            f(no, rec);
        }
        return Ok(());
    }
    let mut first = true;
    crate::io::for_each_line(src, |line| {
        let is_first = std::mem::replace(&mut first, false);
        ingest(&mut out, &line, is_first);
        for (no, rec) in out.records.drain(..) {
            f(no, rec);
        }
        out.diagnostics.clear();
        out.unreadable_lines.clear();
        // Nothing is kept to share a text with.
        out.texts.clear();
    })?;
    Ok(())
}

/// Parses one line into `out`, or records why it could not be.
pub(super) fn ingest(out: &mut Rollout, line: &Line<'_>, first: bool) {
    // Positions are taken in the bytes parsed, which are a repaired copy for a line with a
    // lone surrogate (same length, so the same positions in the file).
    let parsed = json::with_parsed_borrowed::<EnvelopeLineFamily, _>(line.bytes, line.terminated, |env, bytes| {
        let parsed_line = Line { bytes, ..*line };
        read_line(&parsed_line, &env, first, out)
    });
    match parsed {
        Ok(((), true)) => out.diagnostics.push(Diagnostic::new(
            out.file.clone(),
            Some(line.no),
            Code::LoneSurrogate,
            Severity::Info,
            "lone UTF-16 surrogate escape; read as U+FFFD",
        )),
        Ok(((), false)) => {}
        Err(bad) => {
            out.bad_lines += 1;
            out.diagnostics.push(Diagnostic::new(
                out.file.clone(),
                Some(line.no),
                bad.code,
                bad.severity,
                bad.message,
            ));
        }
    }
}

pub(super) struct EnvelopeLineFamily;
impl json::BorrowedParse for EnvelopeLineFamily {
    type Out<'x> = EnvelopeLine<'x>;
}

pub(super) fn read_line(line: &Line<'_>, env: &EnvelopeLine<'_>, first: bool, out: &mut Rollout) {
    let no = line.no;
    if let Some(ts) = env.timestamp.as_str().and_then(crate::model::time::parse_ms) {
        out.time_span = Some(out.time_span.map_or((ts, ts), |(lo, hi)| (lo.min(ts), hi.max(ts))));
    }
    if env.record_type.is_some() {
        out.era = Era::Bare;
        out.records.push((no, Record::Other));
        return;
    }
    let Some(payload) = env.payload else {
        // Pre-envelope: a bare header first, then bare ResponseItems.
        if first && env.ty.as_str().is_none() && env.id.is_some() {
            out.era = Era::Bare;
            let meta: Option<MetaBody<'_>> = serde_json::from_slice(line.bytes).ok();
            out.records.push((
                no,
                Record::SessionMeta {
                    id: meta.as_ref().and_then(|m| opt(&m.id)),
                    cli_version: None,
                },
            ));
            return;
        }
        if env.ty.as_str().is_some_and(is_response_item_type) {
            out.era = Era::Bare;
            let raw = std::str::from_utf8(line.bytes).unwrap_or("");
            push_item(out, raw, line.offset, no);
            return;
        }
        out.records.push((no, Record::Other));
        return;
    };
    let raw = payload.get();
    let ty = env.ty.as_str().unwrap_or("");
    let record = match ty {
        "session_meta" => session_meta(out, raw),
        "response_item" => {
            push_item(out, raw, offset_in(line, raw), no);
            return;
        }
        "inter_agent_communication" => match inter_agent_item(raw, offset_in(line, raw), no) {
            Some(item) => Record::InterAgent(item),
            None => Record::Other,
        },
        "event_msg" => event(out, raw, no),
        "compacted" => compacted(out, line, env, raw, no),
        "turn_context" => {
            let t: Option<TurnContextBody<'_>> = serde_json::from_str(raw).ok();
            Record::TurnContext {
                turn_id: t.as_ref().and_then(|t| opt(&t.turn_id)),
                model: t.as_ref().and_then(|t| opt(&t.model)),
            }
        }
        _ => Record::Other,
    };
    out.records.push((no, record));
}

/// A `session_meta` record; the first one's `history_mode` says whether Codex resumes the file.
fn session_meta(out: &mut Rollout, raw: &str) -> Record {
    let m: Option<MetaBody<'_>> = serde_json::from_str(raw).ok();
    let first = !std::mem::replace(&mut out.meta_seen, true);
    if first && let Some(m) = &m {
        match &m.history_mode {
            LStr::Absent | LStr::Null => {}
            LStr::Str(mode) if mode == "legacy" || mode == "paginated" => {}
            LStr::Str(mode) => {
                out.unresumable = Some(format!(
                    "its session_meta names history_mode `{mode}`, which Codex does not know (legacy or paginated), and Codex refuses the file"
                ));
            }
            LStr::Other => {
                out.unresumable =
                    Some("its session_meta history_mode is not a string, and Codex refuses the file".into());
            }
        }
    }
    Record::SessionMeta {
        id: m.as_ref().and_then(|m| opt(&m.id)),
        cli_version: m.as_ref().and_then(|m| opt(&m.cli_version)),
    }
}

/// An `event_msg` record: the events that bound turns and roll them back, the rest `Other`.
fn event(out: &mut Rollout, raw: &str, no: u64) -> Record {
    match serde_json::from_str::<EventBody<'_>>(raw) {
        Ok(ev) => Record::Event(match ev.ty.as_str() {
            Some("task_started" | "turn_started") => Event::TaskStarted(opt(&ev.turn_id)),
            Some("task_complete" | "turn_complete") => Event::TaskComplete(opt(&ev.turn_id)),
            Some("turn_aborted") => Event::TurnAborted(opt(&ev.turn_id)),
            Some("user_message") => Event::UserMessage,
            Some("thread_rolled_back") => match ev.num_turns.as_i64() {
                Some(n) if n >= 0 => Event::RolledBack(n as u64),
                _ => {
                    out.diagnostics.push(Diagnostic::new(
                        out.file.clone(),
                        Some(no),
                        Code::BadRollback,
                        Severity::Warning,
                        "thread_rolled_back without a usable num_turns; Codex skips this line",
                    ));
                    Event::Other
                }
            },
            _ => Event::Other,
        }),
        Err(_) => Record::Other,
    }
}

/// A `compacted` record: the replacement history it holds, or why Codex skips it.
fn compacted(out: &mut Rollout, line: &Line<'_>, env: &EnvelopeLine<'_>, raw: &str, no: u64) -> Record {
    match serde_json::from_str::<CompactedBody<'_>>(raw) {
        Ok(body) if matches!(body.message, LStr::Str(_)) => {
            // Every item of a replacement history must read into Codex's types, or Codex
            // skips the whole line.
            let mut unreadable = false;
            let replacement_history = body.replacement_history.map(|items| {
                items
                    .into_iter()
                    .filter_map(|it| {
                        let r = it.get();
                        let Some(mut item) = classify_item(r, offset_in(line, r), no, true) else {
                            unreadable = true;
                            return None;
                        };
                        if item.ty() == "ghost_snapshot" {
                            out.ghost_snapshots += 1;
                            return None;
                        }
                        item.share_text(&mut out.texts);
                        Some(item)
                    })
                    .collect()
            });
            if unreadable {
                out.diagnostics.push(Diagnostic::new(
                    out.file.clone(),
                    Some(no),
                    crate::model::diag::Code::UnusableCompacted,
                    Severity::Error,
                    "compacted record whose replacement_history holds an item Codex cannot read; Codex skips this line",
                ));
            }
            Record::Compacted(Box::new(Compacted {
                line: no,
                offset: offset_in(line, raw),
                len: raw.len() as u64,
                message: body.message.as_str().unwrap_or("").to_string(),
                replacement_history,
                timestamp: opt(&env.timestamp),
                skipped_by_codex: unreadable,
            }))
        }
        _ => {
            out.diagnostics.push(Diagnostic::new(
                out.file.clone(),
                Some(no),
                Code::UnusableCompacted,
                Severity::Error,
                "compacted record whose message is not a string or whose replacement_history is not a list; Codex skips this line",
            ));
            Record::Other
        }
    }
}

pub(super) fn push_item(out: &mut Rollout, raw: &str, offset: u64, no: u64) {
    match classify_item(raw, offset, no, false) {
        Some(item) if item.ty() == "ghost_snapshot" => {
            out.ghost_snapshots += 1;
            out.records.push((no, Record::Other));
        }
        Some(mut item) => {
            if !item.api && item.ty() != "message" && item.ty() != "compaction_trigger" {
                out.unknown_items += 1;
            }
            item.share_text(&mut out.texts);
            out.records.push((no, Record::Response(item)));
        }
        None => {
            out.unreadable_lines.push(no);
            let why = items::parse_item(raw)
                .err()
                .map_or_else(|| "no type".into(), |e| e.to_string());
            out.diagnostics.push(Diagnostic::new(
                out.file.clone(),
                Some(no),
                crate::model::diag::Code::UnreadableItem,
                Severity::Warning,
                format!("history item Codex cannot read ({why}); Codex skips this line"),
            ));
            out.records.push((no, Record::Other));
        }
    }
}

pub(super) fn read_document(src: &Source, out: &mut Rollout) -> std::io::Result<Option<Rollout>> {
    if first_line_is_a_record(src)? {
        return Ok(None);
    }
    let held = src.whole()?;
    let bytes: &[u8] = &held;
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let trimmed = body.trim_ascii_start();
    // JSONL files parse their first line and then fail at the second record: cheap to try.
    if !trimmed.starts_with(b"{") {
        return Ok(None);
    }
    let Ok(doc) = serde_json::from_slice::<Document<'_>>(body) else {
        return Ok(None);
    };
    let base = bytes.as_ptr() as usize;
    let mut rollout = Rollout {
        era: Era::Document,
        lines: memchr::memchr_iter(b'\n', bytes).count() as u64 + u64::from(!bytes.ends_with(b"\n")),
        file: out.file.clone(),
        diagnostics: std::mem::take(&mut out.diagnostics),
        ..Rollout::default()
    };
    rollout.records.push((
        1,
        Record::SessionMeta {
            id: doc.session.get("id").and_then(|v| v.as_str()).map(str::to_string),
            cli_version: None,
        },
    ));
    for raw in doc.items {
        let r = raw.get();
        let offset = (r.as_ptr() as usize - base) as u64;
        let line = 1 + bytes[..offset as usize].iter().filter(|&&b| b == b'\n').count() as u64;
        push_item(&mut rollout, r, offset, line);
    }
    Ok(Some(rollout))
}

/// Whether the file's first line is a whole JSON value with more after it: a JSONL file, which
/// the parse of one document would refuse at its second line (so its records are its lines'). Found from the first line alone,
/// so a large rollout is not read into memory to learn that it is no document.
pub fn first_line_is_a_record(src: &Source) -> std::io::Result<bool> {
    let mut n = 4096usize;
    let head = loop {
        let n_now = n.min(src.len() as usize);
        let head = src.read_range(0, n_now)?;
        if memchr::memchr(b'\n', &head).is_some() || n_now == src.len() as usize || n >= 64 << 20 {
            break head;
        }
        n *= 16;
    };
    let Some(nl) = memchr::memchr(b'\n', &head) else {
        return Ok(false);
    };
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    let line = &body[..nl - (head.len() - body.len())];
    if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err() {
        return Ok(false);
    }
    // Something other than whitespace after it (within the bytes read).
    Ok(head[nl + 1..].iter().any(|b| !b.is_ascii_whitespace()))
}

#[cfg(test)]
mod first_line_tests {
    use super::*;

    /// The shortcut says "a record" only of files the parse of one document refuses.
    #[test]
    fn a_file_whose_first_line_is_a_record_is_no_document() {
        let long = format!("{{\"k\":\"{}\"}}\n{{}}\n", "x".repeat(100_000));
        for (text, record) in [
            ("{\"type\":\"session_meta\"}\n{\"type\":\"x\"}\n", true),
            ("\u{feff}{\"a\":1}\n{\"b\":2}\n", true),
            (long.as_str(), true),
            ("{\"session\":{},\"items\":[]}\n", false),
            ("{\"session\":{},\"items\":[]}\n  \n", false),
            ("{\n  \"session\": {},\n  \"items\": []\n}\n", false),
            ("\n{\"a\":1}\n", false),
            ("{\"a\":1}", false),
            ("{\"a\":1}\n\u{c}", false),
        ] {
            let src = Source::from_bytes("t.jsonl", text.as_bytes().to_vec());
            assert_eq!(first_line_is_a_record(&src).unwrap(), record, "{text:?}");
            if record {
                let body = text.as_bytes().strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text.as_bytes());
                assert!(serde_json::from_slice::<Document<'_>>(body).is_err(), "{text:?}");
            }
        }
    }
}
