//! What `compact` reports of a compaction, and in which measure its token counts are.

use serde::Serialize;
use serde_json::Value;

/// What a compaction's token counts measure, per format: ceil(bytes / 4) of what a resume
/// of the session sends, as `scan` reports it (`resume_tokens`).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// Claude Code: the `messages` of the request (`rebuild-chain --api-view`).
    Request,
    /// Codex: the history items a resume loads, as a JSON array.
    History,
    /// cctool v5: the messages' texts and tool data (`docs/cctool-session.md`).
    Content,
}

impl Measure {
    /// The counts' unit in words.
    pub fn describe(self) -> &'static str {
        match self {
            Measure::Request => "tokens of the request a resume sends",
            Measure::History => "tokens of the history a resume sends",
            Measure::Content => "tokens of message content",
        }
    }
}

/// What a compaction did, for the report and `--json`.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Report {
    /// The input's name, as diagnostics name it.
    pub file: String,
    /// The input's format name.
    pub format: String,
    /// The tier that changed the file (1 or 2); `None` when nothing was done.
    pub tier: Option<u8>,
    /// Whether the session was (with `--dry-run`, would be) compacted.
    pub changed: bool,
    /// Where the result was (or, with `--dry-run`, would be) written.
    pub output: Option<String>,
    /// The backup of the original beside a file rewritten in place.
    pub backup: Option<String>,
    /// With `--into-store`: the id of the new session the compaction was (with `--dry-run`,
    /// would be) placed as in its agent's store, at `output`.
    pub session_id: Option<String>,
    /// With `--into-store`: the command that resumes the new session.
    pub resume: Option<String>,
    /// With `--into-store`, when the agent keeps an index of its sessions (Codex's thread
    /// index): what registering the new session there did (`added`, `updated`, `unchanged`,
    /// `no-database`), as `convert --into-store` reports it.
    pub registered: Option<&'static str>,
    /// Tokens before compaction, in the unit of `tokens_of`.
    pub tokens_before: usize,
    /// Tokens after compaction, in the unit of `tokens_of`.
    pub tokens_after: usize,
    /// What the token counts measure ([`Measure`]).
    pub tokens_of: Option<Measure>,
    /// Estimated tokens of the tail kept verbatim.
    pub kept_tokens: usize,
    /// Units summarised into the recap.
    pub compacted_units: usize,
    /// Units kept verbatim after the cut.
    pub kept_units: usize,
    /// Where the kept tail starts: a uuid (Claude Code), a line (Codex), a message id (v5).
    pub cut_at: Option<Value>,
    /// Tier 2: whether the cut is before a user prompt; `None` when no cut was made.
    pub on_prompt: Option<bool>,
    /// The tail is smaller than `--keep-recent` because the budget asked for it.
    pub tail_reduced: bool,
    /// With `--budget`: whether the result fits it; `None` without one.
    pub budget_met: Option<bool>,
    /// How the recap was made: `extractive` or `summarizer`.
    pub recap_method: Option<&'static str>,
    /// Why the summarizer was not used, when one was asked for.
    pub summarizer_fallback: Option<String>,
    /// Tier 1: tool results replaced with placeholders.
    pub placeholders: usize,
    /// Tier 1: reasoning items removed.
    pub reasoning_removed: usize,
    /// The recap text, as the agent reads it.
    pub recap: Option<String>,
    /// Why nothing was done, when nothing was (already within the budget, …).
    pub note: Option<String>,
    /// Why this file failed, in a batch that goes on.
    pub error: Option<String>,
}
