//! Compaction summaries: what an agent was told about the history it no longer holds.
//!
//! - Claude Code: each `compact_boundary` and its `isCompactSummary` user message (the one
//!   parented on the boundary, else the first after it before the next boundary). The
//!   current summary is the boundary the rebuilt chain starts from.
//! - Codex: each `compacted` record. Local compactions carry their summary as text (with the
//!   `SUMMARY_PREFIX` line since 2025-11-14); remote ones only an encrypted blob, plus the
//!   plaintext messages the server kept. The current one is the snapshot the resume starts from.
//! - cctool v5: each `summary` item.

pub mod template;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::chain::claude::{Chain, Kind, Sub, Transcript, WalkEnd};
use crate::chain::codex::History;
use crate::formats::codex::{Record, Rollout, SUMMARY_PREFIX};
use crate::io::Source;

/// One summary (or, with `--all-events`, one microcompaction), as `cli.md` names the fields;
/// the fields after `boundary_uuid` are additions documented in the man page.
#[derive(Serialize, Clone, Debug, Default)]
pub struct SummaryRecord {
    pub kind: &'static str,
    pub file: String,
    pub format: &'static str,
    pub session_id: Option<String>,
    pub index: usize,
    pub current: bool,
    pub line: Option<u64>,
    pub timestamp: Option<String>,
    pub trigger: Option<String>,
    pub pre_tokens: Option<i64>,
    pub origin: Option<&'static str>,
    pub encrypted: bool,
    pub encrypted_len: Option<usize>,
    pub summary: Option<String>,
    pub retained_messages: Option<Vec<Retained>>,
    pub boundary_uuid: Option<String>,
    /// `compact_boundary`, `microcompact_boundary`, `compacted` or `summary_item`.
    pub event: &'static str,
    /// Line of the message the summary text was taken from.
    pub summary_line: Option<u64>,
    /// Where the text came from: `parent`, `fallback`, `message`, `replacement_history`,
    /// `assistant_item` or `item`.
    pub summary_source: Option<&'static str>,
    pub logical_parent_resolves: Option<bool>,
    /// Other metadata keys, verbatim (`compactMetadata` minus trigger and preTokens,
    /// `microcompactMetadata`, or the Codex window fields).
    pub metadata: Option<Value>,
    pub warning: Option<String>,
}

/// A message a remote compaction kept in plaintext.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Retained {
    pub role: String,
    pub text: String,
}

/// What to extract.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub strip_template: bool,
    pub all_events: bool,
}

fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
        .unwrap_or(Value::Null)
}

fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// `message.content` as text: the string, or the text blocks joined.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => Some(
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

/// Claude Code: every compact boundary with its summary, in file order.
pub fn claude(src: &Source, t: &Transcript, chain: &Chain, opts: Options) -> std::io::Result<Vec<SummaryRecord>> {
    let boundaries: Vec<u32> = (0..t.nodes.len() as u32).filter(|&p| t.node(p).is_boundary()).collect();
    let summaries: Vec<u32> = (0..t.nodes.len() as u32)
        .filter(|&p| {
            let n = t.node(p);
            n.kind == Kind::User && n.has(crate::chain::claude::flag::COMPACT_SUMMARY)
        })
        .collect();
    let current = chain
        .positions
        .first()
        .copied()
        .filter(|&p| t.node(p).is_boundary())
        .or_else(|| boundaries.last().copied());
    let reached = chain.positions.first().is_some_and(|&p| t.node(p).is_boundary());
    let session_id = t.session_ids.first().cloned();
    let mut out = Vec::new();
    let mut index = 0;
    let micro: Vec<u32> = if opts.all_events {
        (0..t.nodes.len() as u32)
            .filter(|&p| t.node(p).kind == Kind::System && t.node(p).sub == Sub::MicrocompactBoundary)
            .collect()
    } else {
        Vec::new()
    };
    let mut events: Vec<u32> = boundaries.iter().chain(micro.iter()).copied().collect();
    events.sort_unstable();
    for pos in events {
        let node = t.node(pos);
        let v = parse(&src.read_range(node.offset, node.len as usize)?);
        let mut rec = SummaryRecord {
            kind: "summary",
            file: t.file.clone(),
            format: "claude-code",
            session_id: session_id.clone(),
            line: Some(node.line),
            timestamp: str_of(&v, "timestamp"),
            boundary_uuid: Some(t.uuid_text(pos)),
            ..SummaryRecord::default()
        };
        if node.sub == Sub::MicrocompactBoundary {
            rec.kind = "event";
            rec.event = "microcompact_boundary";
            let meta = v.get("microcompactMetadata").cloned();
            rec.trigger = meta.as_ref().and_then(|m| str_of(m, "trigger"));
            rec.pre_tokens = meta.as_ref().and_then(|m| m.get("preTokens")).and_then(Value::as_i64);
            rec.metadata = meta;
            out.push(rec);
            continue;
        }
        rec.event = "compact_boundary";
        rec.index = index;
        index += 1;
        rec.origin = Some("local");
        rec.current = Some(pos) == current;
        if let Some(Value::Object(meta)) = v.get("compactMetadata") {
            rec.trigger = meta.get("trigger").and_then(Value::as_str).map(str::to_string);
            rec.pre_tokens = meta.get("preTokens").and_then(Value::as_i64);
            let rest: Map<String, Value> = meta
                .iter()
                .filter(|(k, _)| *k != "trigger" && *k != "preTokens")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            rec.metadata = Some(Value::Object(rest));
        }
        rec.logical_parent_resolves = v
            .get("logicalParentUuid")
            .and_then(Value::as_str)
            .map(|lp| t.find(lp).is_some());
        let next_boundary = boundaries.iter().copied().find(|&b| b > pos).unwrap_or(u32::MAX);
        let by_parent = summaries
            .iter()
            .copied()
            .find(|&s| t.node(s).parent_id() == Some(node.uuid));
        let found = by_parent.map(|s| (s, "parent")).or_else(|| {
            summaries
                .iter()
                .copied()
                .find(|&s| s > pos && s < next_boundary)
                .map(|s| (s, "fallback"))
        });
        match found {
            Some((s, source)) => {
                let sn = t.node(s);
                let sv = parse(&src.read_range(sn.offset, sn.len as usize)?);
                let text = sv.get("message").and_then(|m| m.get("content")).and_then(content_text);
                rec.summary = text.map(|x| if opts.strip_template { template::strip(&x) } else { x });
                rec.summary_line = Some(sn.line);
                rec.summary_source = Some(source);
            }
            None => {
                rec.warning = Some("no summary message follows this boundary".into());
            }
        }
        if rec.current && !reached {
            let why = match &chain.end {
                Some(WalkEnd::Dangling(u)) => format!("the walk stopped at a missing parent ({u})"),
                Some(WalkEnd::Cycle) => "the walk stopped at a parent cycle".to_string(),
                Some(WalkEnd::Empty) => "there is no message to resume from".to_string(),
                _ => "the walk ended before any boundary".to_string(),
            };
            rec.warning = Some(format!(
                "the resumed chain does not reach a compact boundary ({why}); this is the last boundary in the file"
            ));
        }
        out.push(rec);
    }
    Ok(out)
}

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
    s.strip_prefix(SUMMARY_PREFIX)
        .and_then(|r| r.strip_prefix('\n'))
        .unwrap_or(s)
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
    for (i, (_, rec)) in rollout.records.iter().enumerate() {
        let Record::Compacted(c) = rec else { continue };
        let payload = parse(&src.read_range(c.offset, c.len as usize)?);
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
                    let is_user = it.get("role").and_then(Value::as_str) == Some("user");
                    let text = message_text(it);
                    (is_user && text.starts_with(&format!("{SUMMARY_PREFIX}\n")))
                        .then(|| strip_prefix(&text).to_string())
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
            Record::Response(item) if item.ty == "reasoning" => continue,
            Record::Response(item) if item.ty == "message" && item.role.as_deref() == Some("assistant") => {
                if let crate::formats::codex::ItemSrc::Raw { offset, len, .. } = &item.src {
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

/// cctool v5: every `summary` item; the last one is what a resume sees.
pub fn session(src: &Source, messages: &[Vec<u8>], session_id: Option<String>) -> Vec<SummaryRecord> {
    let mut out = Vec::new();
    for m in messages {
        let v = parse(m);
        for item in v.get("items").and_then(Value::as_array).into_iter().flatten() {
            if item.get("type").and_then(Value::as_str) != Some("summary") {
                continue;
            }
            let structured: Map<String, Value> = item
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| *k != "type" && *k != "text")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            out.push(SummaryRecord {
                kind: "summary",
                file: src.name().to_string(),
                format: "cctool-v5",
                session_id: session_id.clone(),
                index: out.len(),
                timestamp: str_of(&v, "timestamp"),
                origin: Some("local"),
                summary: str_of(item, "text"),
                event: "summary_item",
                summary_source: Some("item"),
                metadata: (!structured.is_empty()).then_some(Value::Object(structured)),
                ..SummaryRecord::default()
            });
        }
    }
    if let Some(last) = out.last_mut() {
        last.current = true;
    }
    out
}
