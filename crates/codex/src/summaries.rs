//! Codex's compaction summaries: each `compacted` record. Local compactions carry their
//! summary as text (with the `SUMMARY_PREFIX` line since 2025-11-14); remote ones only an
//! encrypted blob, plus the plaintext messages the server kept. The current one is the
//! snapshot the resume starts from.

use crate::history::History;
use crate::io::Source;
use crate::rollout::{Record, Rollout};
use crate::summary::*;
use serde_json::{Map, Value};

fn message_text(item: &Value) -> String {
    match item.get("content") {
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

fn strip_prefix(s: &str) -> &str {
    crate::rollout::summary_body(s).unwrap_or(s)
}

const REMOTE_ITEMS: &[&str] = &["compaction", "compaction_summary", "context_compaction"];
const WINDOW_FIELDS: &[&str] = &["window_number", "window_id", "first_window_id", "previous_window_id"];

/// Codex: every `compacted` record, classified and with whatever summary text exists.
pub fn codex(src: &Source, rollout: &Rollout, history: &History) -> std::io::Result<Vec<SummaryRecord>> {
    let session_id = rollout.records.iter().find_map(|(_, r)| match r {
        Record::SessionMeta { id, .. } => id.clone(),
        _ => None,
    });
    let mut out = Vec::new();
    // The compactions are read in file order, and a mapping's pages behind them given back
    // (a large rollout is mostly its compactions' replacement histories).
    let mut released = src.releaser();
    for (i, (_, rec)) in rollout.records.iter().enumerate() {
        let Record::Compacted(c) = rec else { continue };
        let payload = parse(&src.read_range(c.offset, c.len as usize)?);
        released.touch(c.offset, c.len);
        let rh = payload.get("replacement_history").and_then(Value::as_array);
        let remote_item = rh.and_then(|items| {
            items.iter().find(|it| {
                it.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| REMOTE_ITEMS.contains(&t))
            })
        });
        let mut r = SummaryRecord {
            kind: "summary",
            file: src.name().to_string(),
            format: "codex",
            session_id: session_id.clone(),
            index: out.len(),
            current: history.base_line == Some(c.line),
            line: Some(c.line),
            timestamp: c.timestamp.clone(),
            event: "compacted",
            ..SummaryRecord::default()
        };
        let window: Map<String, Value> = WINDOW_FIELDS
            .iter()
            .filter_map(|k| payload.get(*k).map(|v| ((*k).to_string(), v.clone())))
            .collect();
        if !window.is_empty() {
            r.metadata = Some(Value::Object(window));
        }
        if let Some(item) = remote_item {
            r.origin = Some("remote");
            r.encrypted = true;
            r.encrypted_len = item.get("encrypted_content").and_then(Value::as_str).map(str::len);
            r.summary = (!c.message.is_empty()).then(|| strip_prefix(&c.message).to_string());
            r.summary_source = r.summary.as_ref().map(|_| "message");
            r.retained_messages = Some(
                rh.into_iter()
                    .flatten()
                    .filter(|it| it.get("type").and_then(Value::as_str) == Some("message"))
                    .map(|it| Retained {
                        role: str_of(it, "role").unwrap_or_default(),
                        text: message_text(it),
                    })
                    .collect(),
            );
        } else {
            r.origin = Some(if rh.is_some() { "local" } else { "legacy" });
            if !c.message.is_empty() {
                r.summary = Some(strip_prefix(&c.message).to_string());
                r.summary_source = Some("message");
            } else if let Some(text) = rh.and_then(|items| {
                items.iter().rev().find_map(|it| {
                    if it.get("role").and_then(Value::as_str) != Some("user") {
                        return None;
                    }
                    crate::rollout::summary_body(&message_text(it)).map(str::to_string)
                })
            }) {
                r.summary = Some(text);
                r.summary_source = Some("replacement_history");
            } else if let Some((line, text)) = assistant_before(src, rollout, i)? {
                r.summary = Some(text);
                r.summary_line = Some(line);
                r.summary_source = Some("assistant_item");
            } else {
                r.warning = Some("no summary text: the message is empty and nothing in the file holds it".into());
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// The summarizer's reply: the assistant message just before record `i` (reasoning items
/// between them are passed over).
fn assistant_before(src: &Source, rollout: &Rollout, i: usize) -> std::io::Result<Option<(u64, String)>> {
    for (line, rec) in rollout.records[..i].iter().rev() {
        match rec {
            Record::Response(item) if item.ty() == "reasoning" => continue,
            Record::Response(item) if item.ty() == "message" && item.role() == Some("assistant") => {
                if let crate::rollout::ItemSrc::Raw { offset, len, .. } = &item.src {
                    let v = parse(&src.read_range(*offset, *len as usize)?);
                    return Ok(Some((*line, message_text(&v))));
                }
                return Ok(None);
            }
            _ => return Ok(None),
        }
    }
    Ok(None)
}
