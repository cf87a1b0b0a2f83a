//! `mcp`: serve the user's sessions to an agent over the Model Context Protocol.

use super::*;

/// Serve your sessions to an agent over MCP (read-only, on stdin and stdout).
#[derive(Args, Debug)]
#[command(
    long_about = "Serve the sessions of your stores to an agent over the Model Context Protocol, on stdin and \
stdout: the agent starts `cctool mcp` as one of its MCP servers and calls its tools. It never writes anything.\n\n\
Tools: list_sessions (the sessions scan reads, newest activity first, with the filters agent, project, since, \
until and limit), search (the matching and filters of cctool search), read_session (the conversation a resume \
of a session loads, as rebuild-chain --format markdown renders it, a page at a time: offset and max_bytes, \
with next_offset in each answer) and get_summaries (what extract-summary finds in a session). A session is \
named by its id, or any unique prefix of it, as scan and search print it.\n\n\
Every string the tools return passes through the redaction of export --redact: secrets (tokens, keys, \
passwords), your home folder and your login name are replaced by placeholders such as \
[REDACTED:github-token#1], the same secret by the same placeholder for as long as the server runs; \
--no-redact hands them out as written. Redaction rules of your own are read from \
$XDG_CONFIG_HOME/cctool/redact-rules, as for export.\n\n\
--install AGENT prints the entry that adds this server to the agent's MCP configuration; with --write it \
adds it to the agent's configuration of every project (Claude Code: mcpServers in ~/.claude.json, or in \
$CLAUDE_CONFIG_DIR/.claude.json; Codex: [mcp_servers.cctool] in ~/.codex/config.toml, or in $CODEX_HOME; \
Gemini CLI: mcpServers in ~/.gemini/settings.json, or in $GEMINI_CLI_HOME/.gemini), \
keeping everything else in the file as written and a copy of the file as it was beside it. A server named \
cctool that is already there is left alone.",
    after_long_help = "JSON RECORDS (--json, with --install)\n  \
{\"kind\":\"mcp_install\",\"agent\",\"config\",\"action\":\"printed\"|\"added\"|\"unchanged\",\"command\",\"args\":[…],\"backup\"}: \
config is the agent's configuration file, backup the copy of it as it was (null when nothing was replaced).\n\n\
EXIT STATUS\n  0 the client closed the connection, or the entry was printed or added; 2 a \
usage error, or the configuration could not be edited (nothing is written then).\n\n\
EXAMPLES\n  cctool mcp --install claude-code\n  cctool mcp --install codex --write\n  \
claude mcp add --scope user cctool -- cctool mcp"
)]
pub struct McpArgs {
    /// Hand out secrets as the sessions hold them (by default each is replaced by a
    /// placeholder, as `export --redact` does).
    #[arg(long)]
    pub no_redact: bool,

    /// Print the entry that adds this server to AGENT's MCP configuration (with --write, add it).
    #[arg(long, value_name = "AGENT", value_parser = mcp_agents())]
    pub install: Option<String>,

    /// With --install: add the entry to the agent's configuration, keeping a backup of the
    /// file as it was.
    #[arg(long, requires = "install")]
    pub write: bool,

    /// With --install: the program the agent starts (default: the absolute path of this
    /// cctool; `cctool` runs the one on PATH).
    #[arg(long, requires = "install", value_name = "PROGRAM")]
    pub command: Option<String>,
}

/// The values AGENT takes in `mcp --install`: the agents whose MCP configuration cctool edits.
fn mcp_agents() -> clap::builder::PossibleValuesParser {
    let home = |_: &str| Some(std::ffi::OsString::from("/"));
    clap::builder::PossibleValuesParser::new(
        crate::agents::all()
            .filter(|a| a.hooks().is_some_and(|h| h.mcp_config_path(&home).is_some()))
            .map(|a| a.about().format.name()),
    )
}
