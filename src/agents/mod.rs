//! The registry: every agent cctool knows, each in its own crate, registered once here.
//!
//! The interface every agent implements (`Agent` and its optional capabilities) and the
//! questions asked of every agent at once (`registry`) are the core's (`cctool_core::agents`),
//! re-exported here so that `crate::agents::Agent` reads the same everywhere; each agent crate
//! is re-exported under its folder's old name. Adding an agent is its crate and one line in
//! [`BUILTIN`] (CONTRIBUTING.md; the toy agent in `tests/toy-agent` proves it).

pub use cctool_claude_code as claude_code;
pub use cctool_codex as codex;
pub use cctool_copilot as copilot;
pub use cctool_gemini as gemini;
pub use cctool_opencode as opencode;
pub use cctool_pi as pi;
pub use cctool_session as cctool;
pub mod detect;
#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod recap_tests;
#[cfg(test)]
mod slim_tests;

pub use cctool_core::agents::*;

use crate::model::AgentId;

/// The agents cctool is built with, in the order the scan table, detection's ties and every
/// list of agents follow: the one place that names them.
pub static BUILTIN: &[&dyn Agent] = &[
    &claude_code::agent::ClaudeCode,
    &codex::agent::Codex,
    &cctool::agent::Cctool,
    &pi::agent::Pi,
    &copilot::agent::Copilot,
    &opencode::agent::Opencode,
    &gemini::agent::Gemini,
    &cctool_qwen::Qwen,
];

/// The agents of this run: [`BUILTIN`], unless the program installed another registry first
/// (`cctool::run_with`).
pub fn registry() -> registry::Registry {
    registry::install(BUILTIN)
}

/// Every agent of this run.
pub fn all() -> impl Iterator<Item = &'static dyn Agent> {
    registry().all()
}

/// The agent of this run that reads `format`.
pub fn agent(format: AgentId) -> &'static dyn Agent {
    registry().agent(format)
}

/// Whether files of `format` are cctool's own sessions (v1 to v5), which are migrated, not
/// imported.
pub fn is_own_session(format: AgentId) -> bool {
    agent(format).import().is_none()
}

/// The values `convert --to` takes: the agents `convert` writes, with what each is called.
pub fn convert_targets() -> Vec<(AgentId, ArgValue)> {
    all()
        .filter_map(|a| Some((a.about().format, a.convert_to()?)))
        .collect()
}
