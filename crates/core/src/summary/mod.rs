//! Compaction summaries: what an agent was told about the history it no longer holds. The
//! record every agent reports is here; how each agent's summaries are found is in its folder
//! (`agents/<agent>/summaries.rs`):
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
use serde_json::Value;

/// One summary (or, with `--all-events`, one microcompaction), with the fields the man page
/// documents (`docs/summaries.md` says where each comes from).
#[derive(Serialize, Clone, Debug, Default)]
pub struct SummaryRecord {
    /// `summary`, or `event` for a compaction event without one; the record's kind (see
    /// `commands::record`).
    #[serde(skip)]
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

pub fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
        .unwrap_or(Value::Null)
}

pub fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// `message.content` as text: the string, or the text blocks joined.
pub fn content_text(content: &Value) -> Option<String> {
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
