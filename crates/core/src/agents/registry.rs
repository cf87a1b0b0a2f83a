//! The agents this process knows: one list, installed once by the program before it reads a
//! file, and asked by everything that serves any agent.
//!
//! The list lives here, in the core, so that the features (which never see an agent crate)
//! and the program (which names the agents) share it; the program that links the agent
//! crates is the one place that writes it (the CLI's `agents::BUILTIN`).

use std::sync::OnceLock;

use super::{Agent, Store};
use crate::model::AgentId;

static AGENTS: OnceLock<Registry> = OnceLock::new();

/// Makes `agents` this process's registry unless one was installed before; the registry in
/// force either way.
pub fn install(agents: &'static [&'static dyn Agent]) -> Registry {
    *AGENTS.get_or_init(|| Registry { agents })
}

/// The installed registry, or an empty one before the program installed it.
pub fn installed() -> Registry {
    AGENTS.get().copied().unwrap_or(Registry { agents: &[] })
}

/// A list of agents, and the questions asked of all of them at once.
#[derive(Clone, Copy)]
pub struct Registry {
    agents: &'static [&'static dyn Agent],
}

impl Registry {
    /// The agents, in the registry's order.
    pub fn agents(self) -> &'static [&'static dyn Agent] {
        self.agents
    }

    /// Every agent, in the registry's order.
    pub fn all(self) -> impl Iterator<Item = &'static dyn Agent> {
        self.agents.iter().copied()
    }

    /// The agent whose id is `id`. Ids are made by the registered agents' crates, so every
    /// id a run meets is one of theirs.
    ///
    /// # Panics
    ///
    /// When no agent has the id: a program that names an agent it did not register.
    pub fn agent(self, id: AgentId) -> &'static dyn Agent {
        self.find(id)
            .unwrap_or_else(|| panic!("no registered agent reads {}", id.name()))
    }

    /// The agent whose id is `id`, if one is registered.
    pub fn find(self, id: AgentId) -> Option<&'static dyn Agent> {
        self.all().find(|a| a.about().format == id)
    }

    /// The agent whose format is called `name` ([`AgentId::name`]).
    pub fn by_name(self, name: &str) -> Option<&'static dyn Agent> {
        self.all().find(|a| a.about().format.name() == name)
    }

    /// The stores of every agent that keeps one, in the registry's order.
    pub fn stores(self) -> impl Iterator<Item = &'static dyn Store> {
        self.all().filter_map(|a| a.store())
    }

    /// The store of the agent called `name` ([`AgentId::name`], as a backup manifest
    /// records it).
    pub fn store_by_name(self, name: &str) -> Option<&'static dyn Store> {
        self.by_name(name).and_then(|a| a.store())
    }

    /// The agent and its store whose session folder is `dir` (`ROOT/<folder>`).
    pub fn store_of_folder(self, dir: &std::path::Path) -> Option<(&'static dyn Agent, &'static dyn Store)> {
        let name = dir.file_name()?;
        self.all().find_map(|a| {
            let s = a.store()?;
            s.session_folders().iter().any(|f| name == *f).then_some((a, s))
        })
    }

    /// Whether some agent names `path`, by its name alone, as a file that belongs with
    /// another session file (a Claude Code subagent transcript).
    pub fn is_sub_session_path(self, path: &std::path::Path) -> bool {
        self.all().any(|a| a.is_sub_session_path(path))
    }

    /// Checks what was said about the resume (`--as-of`, `--settings`, …) with every agent
    /// that reads it, once per run: the first agent's refusal.
    pub fn check_resume(
        self,
        resume: &crate::model::resume::Overrides,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        self.all().try_for_each(|a| a.check_resume(resume))
    }

    /// The names of the agents cctool installs hooks for: the values `hooks` takes.
    pub fn hooks_names(self) -> Vec<&'static str> {
        self.all()
            .filter(|a| a.hooks().is_some())
            .map(|a| a.about().format.name())
            .collect()
    }

    /// Which of the agents wrote `src`, from its first records ([`super::detect`]).
    pub fn detect(self, src: &crate::io::Source) -> Result<AgentId, super::detect::Undetected> {
        super::detect::detect(src, self.agents)
    }
}
