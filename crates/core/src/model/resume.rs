//! How a resume is emulated, as the user chose it: what `scan`, `doctor`, `compact` and
//! `rebuild-chain` hand to every agent (`--as-of`, `--model`, `--settings`, `--base-url`,
//! `--thinking-policy`, `--loader`, `--replay`), which each agent interprets in its own folder
//! and ignores where it does not apply to its resume.

use std::path::PathBuf;

/// Which client's loading rules to follow (Claude Code's loader; other agents have one way of
/// loading, and say so when it is given).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Loader {
    /// Claude Code 2.1.88: the load rules before the four changes of 2.1.332.
    #[cfg_attr(feature = "clap", value(name = "2.1.88"))]
    V2_1_88,
    /// Claude Code 2.1.332, the current client.
    #[default]
    #[cfg_attr(feature = "clap", value(name = "2.1.332"))]
    V2_1_332,
}

impl Loader {
    /// The client version, as `--loader` names it and the records print it.
    pub fn name(self) -> &'static str {
        match self {
            Loader::V2_1_88 => "2.1.88",
            Loader::V2_1_332 => "2.1.332",
        }
    }
}

/// Which replay semantics to use (Codex's history reconstruction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Replay {
    /// Current Codex: reverse-scan turn segments, rolled-back turns discarded whole.
    #[default]
    Current,
    /// Codex before 2026-02-27: forward replay, rollbacks cut the rebuilt history.
    Legacy,
}

/// The thinking policy: which thinking blocks of another model a request keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ThinkingPolicy {
    /// Keep the thinking of every other model.
    All,
    /// Keep none.
    None,
    /// Keep it when the request model is of the same or a higher family and version.
    Upgrade,
}

impl ThinkingPolicy {
    /// The policy's name, as `--thinking-policy` takes it and the report says it.
    pub fn name(self) -> &'static str {
        match self {
            ThinkingPolicy::All => "all",
            ThinkingPolicy::None => "none",
            ThinkingPolicy::Upgrade => "upgrade",
        }
    }
}

/// What the user gave explicitly instead of what cctool would read. Each agent interprets it
/// in its own folder (Claude Code builds its configuration from it) and ignores what does
/// not apply to its resume.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `--as-of`: the time of the resume.
    pub as_of: Option<String>,
    /// `--model`: as the client's own `--model`.
    pub model: Option<String>,
    /// `--settings`: the one settings file read instead of the user's, project's and local ones.
    pub settings: Option<PathBuf>,
    /// `--base-url`: as `ANTHROPIC_BASE_URL`.
    pub base_url: Option<String>,
    /// `--thinking-policy`.
    pub thinking_policy: Option<ThinkingPolicy>,
}
