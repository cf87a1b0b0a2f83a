//! The registry: every agent cctool knows, each in its own crate, registered once here.
//!
//! The interface every agent implements (`Agent` and its optional capabilities) is the core's
//! (`cctool_core::agents`), re-exported here so that `crate::agents::Agent` reads the same
//! everywhere; each agent crate is re-exported under its folder's old name.

pub use cctool_claude_code as claude_code;
pub use cctool_codex as codex;
pub use cctool_session as cctool;
pub mod detect;
#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod slim_tests;

use std::path::Path;

use crate::model::Format;
pub use cctool_core::agents::*;

/// The agent that reads `format`: the registration of every agent.
pub fn agent(format: Format) -> &'static dyn Agent {
    match format {
        Format::ClaudeCode => &claude_code::agent::ClaudeCode,
        Format::Codex => &codex::agent::Codex,
        Format::CctoolSession => &cctool::agent::Cctool,
    }
}

/// Every agent, in the order of [`Format`]'s variants.
pub fn all() -> impl Iterator<Item = &'static dyn Agent> {
    use clap::ValueEnum;
    Format::value_variants().iter().map(|&f| agent(f))
}

/// Whether some agent names `path`, by its name alone, as a file that belongs with another
/// session file (a Claude Code subagent transcript).
pub fn is_sub_session_path(path: &Path) -> bool {
    all().any(|a| a.is_sub_session_path(path))
}

/// Checks what was said about the resume (`--as-of`, `--settings`, …) with every agent that reads
/// it, once per run: the first agent's refusal.
pub fn check_resume(resume: &crate::model::resume::Overrides) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    all().try_for_each(|a| a.check_resume(resume))
}

/// The agent whose format is called `name` ([`Format::name`]).
pub fn by_name(name: &str) -> Option<&'static dyn Agent> {
    use clap::ValueEnum;
    Format::value_variants()
        .iter()
        .find(|f| f.name() == name)
        .map(|&f| agent(f))
}

/// The stores of every agent that keeps one, in the order of [`all`].
pub fn stores() -> impl Iterator<Item = &'static dyn Store> {
    all().filter_map(|a| a.store())
}

/// The store of the agent called `name` ([`Format::name`], as a backup manifest records it).
pub fn store_by_name(name: &str) -> Option<&'static dyn Store> {
    by_name(name).and_then(|a| a.store())
}

/// The agent and its store whose session folder is `dir` (`ROOT/<folder>`).
pub fn store_of_folder(dir: &Path) -> Option<(&'static dyn Agent, &'static dyn Store)> {
    let name = dir.file_name()?;
    all().find_map(|a| {
        let s = a.store()?;
        s.session_folders().iter().any(|f| name == *f).then_some((a, s))
    })
}

/// The names of the agents cctool installs hooks for: the values `hooks` takes.
pub fn hooks_names() -> Vec<&'static str> {
    all()
        .filter(|a| a.hooks().is_some())
        .map(|a| a.about().format.name())
        .collect()
}

/// The agent `convert --to` names: the one place its values are tied to agents.
pub fn convert_target(t: crate::cli::ConvertTarget) -> Format {
    use crate::cli::ConvertTarget;
    match t {
        ConvertTarget::ClaudeCode => Format::ClaudeCode,
        ConvertTarget::Codex => Format::Codex,
        ConvertTarget::Cctool => Format::CctoolSession,
    }
}

/// The agent whose files are cctool's own sessions (v1 to v5), which are migrated, not
/// imported.
pub fn own_sessions() -> &'static dyn Agent {
    agent(Format::CctoolSession)
}

/// Whether `format` is that of cctool's own sessions.
pub fn is_own_session(format: Format) -> bool {
    format == Format::CctoolSession
}
