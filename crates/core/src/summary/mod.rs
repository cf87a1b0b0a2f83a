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
    /// The input as messages name it.
    pub file: String,
    /// The format as output names it (`claude-code`, `codex`, `cctool-v5`).
    pub format: &'static str,
    /// The session's id, when known.
    pub session_id: Option<String>,
    /// 0-based position of the summary among the file's summaries, in file order.
    pub index: usize,
    /// The summary the next resume starts from; at most one record of a file is current.
    pub current: bool,
    /// 1-based line of the compaction record; `None` in a cctool file, which has no lines.
    pub line: Option<u64>,
    /// The compaction record's timestamp, as written.
    pub timestamp: Option<String>,
    /// What started the compaction (`manual`, `auto`…), as the agent recorded it; `None` when
    /// it records none (Codex).
    pub trigger: Option<String>,
    /// Tokens in the context before the compaction, as the agent recorded them; `None` when it
    /// records none (Codex).
    pub pre_tokens: Option<i64>,
    /// Where the summary was made: `local` (by the client), `remote` (by the server,
    /// encrypted) or `legacy` (an older Codex record; `docs/codex.md` says how it is told).
    pub origin: Option<&'static str>,
    /// The summary is encrypted by the server (a remote compaction): `summary` is then `None`,
    /// or what an exporter wrote.
    pub encrypted: bool,
    /// Length of the encrypted item, for an encrypted summary.
    pub encrypted_len: Option<usize>,
    /// The summary's text (with `--strip-template`, without the text the client wraps
    /// around it); `None` when none was found, with a `warning` saying so.
    pub summary: Option<String>,
    /// Remote compactions: the messages the server kept in plaintext.
    pub retained_messages: Option<Vec<Retained>>,
    /// Claude Code: the `compact_boundary` line's uuid.
    pub boundary_uuid: Option<String>,
    /// `compact_boundary`, `microcompact_boundary`, `compacted` or `summary_item`.
    pub event: &'static str,
    /// Line of the message the summary text was taken from.
    pub summary_line: Option<u64>,
    /// Where the text came from: `parent`, `fallback`, `message`, `replacement_history`,
    /// `assistant_item` or `item`.
    pub summary_source: Option<&'static str>,
    /// Claude Code: whether the boundary's `logicalParentUuid` names a line of the file
    /// (the loader never follows it).
    pub logical_parent_resolves: Option<bool>,
    /// Other metadata keys, verbatim (`compactMetadata` minus trigger and preTokens,
    /// `microcompactMetadata`, or the Codex window fields).
    pub metadata: Option<Value>,
    /// What went wrong finding the summary, for people (no summary message follows the
    /// boundary; a current summary the resumed chain does not reach).
    pub warning: Option<String>,
}

/// A message a remote compaction kept in plaintext.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Retained {
    /// The message's role as the server wrote it (empty when it has none).
    pub role: String,
    /// The message's text.
    pub text: String,
}

/// What to extract.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Give the summary without the text the client wraps around it (`--strip-template`).
    pub strip_template: bool,
    /// List compaction events without a summary too (`--all-events`: microcompactions).
    pub all_events: bool,
}

/// A record as JSON, lone surrogates repaired; `null` when it is not JSON at all.
pub fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
        .unwrap_or(Value::Null)
}

/// The string field `k` of `v`, if it is one.
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
