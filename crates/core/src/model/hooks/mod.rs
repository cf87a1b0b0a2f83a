//! The vocabulary of compaction hooks that the hooks feature and each agent's settings share:
//! the events, the command cctool installs and how it is recognised again, the scope of a
//! settings file and what editing one did.

pub mod json;
pub mod settings;

use std::path::Path;

use serde_json::Value;

/// The events cctool hooks into in Claude Code and Codex.
pub const EVENTS: [&str; 2] = ["PreCompact", "PostCompact"];

/// What `hooks run` does when the agent calls it on one of the events it was installed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookAction {
    /// Back the transcript the input names up into the archive, before the agent changes it.
    Backup,
    /// Archive the summary of the compaction that just ran, from the input or the transcript.
    ArchiveSummary,
    /// Back the transcript up once the agent that called has exited: for an event the agent
    /// fires before it writes the transcript's last lines (Copilot CLI's `SessionEnd`).
    BackupAfterExit,
}

/// The names of `events`, in their order: what an agent's settings editor installs.
pub fn names(events: &[(&'static str, HookAction)]) -> Vec<&'static str> {
    events.iter().map(|(e, _)| *e).collect()
}

/// Claude Code's and Codex's events and what each does: PreCompact backs the transcript up,
/// PostCompact archives the summary.
pub const COMPACTION_EVENTS: &[(&str, HookAction)] = &[
    ("PreCompact", HookAction::Backup),
    ("PostCompact", HookAction::ArchiveSummary),
];

/// Which settings file hooks go into: `user` (the user's own settings, for every project) or
/// `project` (the current project's). The variants carry no doc comments because clap would
/// print them in `--help`.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Scope {
    User,
    Project,
}

/// What an edit did.
#[derive(Debug, PartialEq, Eq)]
pub enum Edit {
    /// The new content, and the events changed.
    Changed(String, Vec<&'static str>),
    /// Already as asked.
    Unchanged,
}

/// Why an agent's settings file cannot be edited; nothing is written then.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A JSON settings file that does not parse, where it stops.
    #[error("not valid JSON (line {line}, column {column}): {cause}; fix it or move it aside first")]
    Json {
        /// The line the parser stopped at, from 1.
        line: usize,
        /// The column the parser stopped at, from 1.
        column: usize,
        /// The parser's error.
        cause: serde_json::Error,
    },
    /// A TOML settings file that does not parse.
    #[error("not valid TOML: {0}; fix it or move it aside first")]
    Toml(toml_edit::TomlError),
    /// A JSON settings file whose top level is not an object.
    #[error("the settings file is not a JSON object")]
    NotAnObject,
    /// A JSON settings file whose `hooks` is not an object.
    #[error("\"hooks\" is not an object")]
    HooksNotAnObject,
    /// A JSON settings file where an event under `hooks` is not a list.
    #[error("\"hooks\".\"{event}\" is not a list")]
    EventNotAList {
        /// The event ([`EVENTS`]).
        event: &'static str,
    },
    /// A TOML settings file whose `hooks` is not a table.
    #[error("[hooks] is not a table")]
    HooksNotATable,
    /// A TOML settings file where an event under `hooks` is not an array of tables.
    #[error("hooks.{event} is not a list of tables ([[hooks.{event}]])")]
    EventNotTables {
        /// The event ([`EVENTS`]).
        event: &'static str,
    },
    /// The agent's table of MCP servers (`mcpServers`, `[mcp_servers]`) is not a table.
    #[error("{0} is not a table of MCP servers")]
    McpServersNotATable(&'static str),
    /// An MCP server of that name is there already, started another way: the user's entry is
    /// never replaced.
    #[error(
        "an MCP server named {0} is there already, starting another command; not changed (remove or rename it first)"
    )]
    McpServerTaken(String),
    /// cctool does not know where this agent configures its MCP servers.
    #[error("cctool does not know where this agent configures its MCP servers")]
    NoMcpConfig,
}

/// An MCP server as an agent's configuration names it: `mcp --install` adds cctool's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpServer {
    /// The server's name in the configuration (`cctool`).
    pub name: String,
    /// The program the agent starts.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
}

pub use crate::output::shell::quote as shell_quote;

/// The command the agent called `agent` runs: `program` (this cctool binary's absolute path,
/// or what `--command` names), `hooks run AGENT`, and the archive when one was named.
pub fn command(program: &str, agent: &str, archive: Option<&Path>) -> String {
    let mut c = format!("{} hooks run {agent}", shell_quote(program));
    if let Some(a) = archive {
        c.push_str(" --to ");
        c.push_str(&shell_quote(&a.to_string_lossy()));
    }
    c
}

/// Whether `program` is one [`is_ours`] recognises: a file named `cctool…`.
pub fn is_cctool(program: &str) -> bool {
    Path::new(program)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("cctool"))
}

/// Whether a hook command is one cctool installed for the agent called `agent` (whatever
/// binary path or archive it names).
pub fn is_ours(cmd: &str, agent: &str) -> bool {
    let marker = format!(" hooks run {agent}");
    cmd.find(&marker).is_some_and(|i| {
        let prog = cmd[..i].trim_matches(|c| c == '\'' || c == '"');
        let rest = &cmd[i + marker.len()..];
        is_cctool(prog) && (rest.is_empty() || rest.starts_with(' '))
    })
}

/// The JSON records among the last lines of a file, at most `n` bytes, whole lines only:
/// where an agent's transcript holds the compaction a hook is called about.
pub fn tail_records(path: &Path, n: u64) -> Vec<Value> {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let start = len.saturating_sub(n);
    let mut buf = Vec::new();
    if f.seek(SeekFrom::Start(start)).is_err() || f.read_to_end(&mut buf).is_err() {
        return Vec::new();
    }
    let mut lines: Vec<&[u8]> = buf.split(|b| *b == b'\n').collect();
    if start > 0 && !lines.is_empty() {
        lines.remove(0);
    }
    lines.iter().filter_map(|l| serde_json::from_slice(l).ok()).collect()
}

/// What a transcript says of the compaction a PostCompact hook is called about: the summary
/// (when the hook's input does not carry it) and the tokens in use before it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Compaction {
    /// The summary as the transcript holds it.
    pub summary: Option<String>,
    /// The tokens of the conversation before the compaction, as the agent counted them.
    pub pre_tokens: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_is_recognised_by_program_and_agent() {
        assert!(is_ours("'/a b/cctool' hooks run codex --to /x", "codex"));
        assert!(is_ours("cctool hooks run claude-code", "claude-code"));
        assert!(!is_ours("cctool hooks run claude-code", "codex"));
        assert!(!is_ours("other hooks run codex", "codex"));
        assert!(!is_ours("cctool hooks run codexx", "codex"));
    }
}
