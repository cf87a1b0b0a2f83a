//! What the user said about the resume that `scan`, `doctor`, `compact` and `rebuild-chain`
//! emulate (`--as-of`, `--model`, `--settings`, `--base-url`, `--thinking-policy`), as the
//! commands hand it to every agent.

use std::path::PathBuf;

/// The thinking policy: which thinking blocks of another model a request keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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
