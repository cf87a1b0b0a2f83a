//! Compaction hooks for Claude Code, Codex, Gemini CLI and Copilot CLI: installing them in the agent's
//! settings, and what `cctool hooks run` does when the agent calls it (each agent's
//! [`crate::agents::Hooks::events`] says which of its events back the transcript up and which
//! archive a summary).
//!
//! Claude Code and Codex run a command on PreCompact and PostCompact with a JSON object on
//! standard input; Gemini CLI on PreCompress (before every request, as it checks whether to
//! compress) and SessionEnd, with the transcript's path in the same key. Claude Code's PostCompact object carries the summary (`compact_summary`, the model's
//! own text); Codex's carries the rollout path, whose last `compacted` record holds it. The
//! command must never stand in the compaction's way: Claude Code takes the plain stdout of a
//! PreCompact hook as extra compaction instructions and Codex fails on stdout that is not
//! valid JSON (Gemini CLI reads it as the hook's decision), so `hooks run` prints nothing, logs its errors and exits 0.

pub mod install;
pub mod run;

pub use crate::model::hooks::{EVENTS, command, is_cctool, is_ours, shell_quote};
