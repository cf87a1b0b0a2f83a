//! The normalised vocabulary shared by every format: diagnostics, timestamps, formats.

pub mod diag;
pub mod time;

use serde::Serialize;

/// What a file is, decided from its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// A Claude Code transcript (`~/.claude/projects/**/<session>.jsonl`).
    ClaudeCode,
    /// A Codex rollout (`~/.codex/sessions/**/rollout-*.jsonl`), any era.
    Codex,
    /// A cctool session file, schema version 1 to 5.
    CctoolSession,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::CctoolSession => "cctool-session",
        }
    }
}
