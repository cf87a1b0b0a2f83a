#![deny(missing_docs)]
//! cctool's features that serve every agent alike: `scan` (the table and the links between a
//! session and its subagents), `tables` (`scan --rows`), `export` with `redact`, `search`, `backup` and
//! `restore`, and `hooks`.
//!
//! This crate depends on the core alone, never on an agent crate: what it needs of an agent it
//! asks through the core's `Agent` trait, of the agents the program registered
//! ([`cctool_core::agents::registry`]). The compiler, not a convention, keeps agent-specific
//! code out of here (`tests/cli/architecture.rs` checks the edge is never added).

pub mod backup;
pub mod export;
pub mod hooks;
pub mod redact;
pub mod scan;
pub mod search;
pub mod tables;

pub use cctool_core::{ExitStatus, compact, convert, error, io, model, output, slim, summary, v5};

/// The agents of this run, as the program registered them: the features' one way to an agent.
pub(crate) mod agents {
    pub use cctool_core::agents::*;

    /// The registry the program installed.
    pub fn registry() -> registry::Registry {
        registry::installed()
    }

    /// The registered agent that reads `format`.
    pub fn agent(format: crate::model::AgentId) -> &'static dyn Agent {
        registry().agent(format)
    }
}

/// The agents cctool is built with, registered for the tests that need real agents: the
/// program registers them itself (the CLI's `agents::BUILTIN`).
#[cfg(test)]
pub(crate) fn register_agents_for_tests() {
    static AGENTS: &[&dyn cctool_core::agents::Agent] = &[
        &cctool_claude_code::agent::ClaudeCode,
        &cctool_codex::agent::Codex,
        &cctool_session::agent::Cctool,
    ];
    cctool_core::agents::registry::install(AGENTS);
}
