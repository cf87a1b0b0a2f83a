//! Compaction hooks for Claude Code and Codex: installing them in the agent's settings, and
//! what `cctool hooks run` does when the agent calls it.
//!
//! Both agents run a command on PreCompact and PostCompact with a JSON object on standard
//! input. Claude Code's PostCompact object carries the summary (`compact_summary`, the model's
//! own text); Codex's carries the rollout path, whose last `compacted` record holds it. The
//! command must never stand in the compaction's way: Claude Code takes the plain stdout of a
//! PreCompact hook as extra compaction instructions and Codex fails on stdout that is not
//! valid JSON, so `hooks run` prints nothing, logs its errors and exits 0.

pub mod install;
pub mod json;
pub mod run;

/// The agents cctool installs hooks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    ClaudeCode,
    Codex,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
        }
    }
}

/// The events cctool hooks into.
pub const EVENTS: [&str; 2] = ["PreCompact", "PostCompact"];

pub use crate::output::shell::quote as shell_quote;

/// The command the agent runs: `program` (this cctool binary's absolute path, or what
/// `--command` names), `hooks run AGENT`, and the archive when one was named.
pub fn command(program: &str, agent: Agent, archive: Option<&std::path::Path>) -> String {
    let mut c = format!("{} hooks run {}", shell_quote(program), agent.name());
    if let Some(a) = archive {
        c.push_str(" --to ");
        c.push_str(&shell_quote(&a.to_string_lossy()));
    }
    c
}

/// Whether `program` is one [`is_ours`] recognises: a file named `cctool…`.
pub fn is_cctool(program: &str) -> bool {
    std::path::Path::new(program)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("cctool"))
}

/// Whether a hook command is one cctool installed for `agent` (whatever binary path or
/// archive it names).
pub fn is_ours(cmd: &str, agent: Agent) -> bool {
    let marker = format!(" hooks run {}", agent.name());
    cmd.find(&marker).is_some_and(|i| {
        let prog = cmd[..i].trim_matches(|c| c == '\'' || c == '"');
        let rest = &cmd[i + marker.len()..];
        is_cctool(prog) && (rest.is_empty() || rest.starts_with(' '))
    })
}
