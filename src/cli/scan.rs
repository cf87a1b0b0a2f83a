//! `scan`: its arguments and its help, with the columns of every `--rows` table.

use super::*;

/// Sort order of the scan table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ScanSort {
    /// Last activity, newest first.
    #[default]
    Activity,
    /// File size, largest first.
    Size,
    /// Estimated tokens of what a resume sends, largest first.
    Tokens,
    /// Messages on the resumed chain, most first.
    Messages,
    /// Compactions, most first.
    Compactions,
    /// Path.
    Path,
}

/// Every session at a glance: one line per session, then totals.
#[derive(Args, Debug)]
#[command(
    long_about = "Scan session files: one line per session, named by its project (the folder it ran \
in, or a git worktree's main repository, by as much of its path as tells it from the other \
projects shown) and its title (set by the user or the agent, else its first prompt), with a short id, the \
last activity in local time, the messages on the chain a resume loads, the ctx column: the estimated \
tokens of the context a resume sends (ceil(bytes / 4) of the request; its size, not the tokens \
the session used), compactions, size, agent version, \
subagents and bad lines; then totals. The table fits the terminal (or COLUMNS): the least \
important columns are dropped and titles cut before a line would wrap; in a pipe every column \
is shown. --wide adds the path of each file and a line per subagent transcript. Subagent \
transcripts beside a Claude Code session (<session>/subagents/, legacy agent-*.jsonl) are \
scanned with it and counted on its line. For Claude Code the model column is the model a resume \
would send the request to (resume_model, with resume_model_choice saying how the client chose \
it): it depends on the date, the settings and the environment, as for rebuild-chain --api-view. \
With no PATH, the user's own stores are scanned. \
--json prints JSON Lines records instead.",
    after_long_help = scan_help()
)]
pub struct ScanArgs {
    /// Session files or directories (searched recursively), a backup archive (or
    /// ARCHIVE/SESSION-ID), or session ids (or prefixes) of your stores; `-` reads standard input.
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub files: FilesFromArgs,

    #[command(flatten)]
    pub rows: RowsArgs,

    /// Table order.
    #[arg(long, value_enum, default_value_t = ScanSort::Activity)]
    pub sort: ScanSort,

    #[command(flatten)]
    pub resume: ResumeArgs,
    /// Every column at full width, the path of each file, and a line per subagent
    /// transcript under its session.
    #[arg(long)]
    pub wide: bool,
}

/// `scan --help`: the records, the examples, then the columns of every table of `--rows`.
pub(super) fn scan_help() -> String {
    let mut s = String::from(
        "JSON RECORDS\n  \
{\"kind\":\"session\",\"path\",\"format\",\"agent_versions\":[…],\"session_id\",\"cwd\",\"project\",\"title\",\
\"title_source\":\"custom-title\"|\"ai-title\"|\"summary\"|\"first-prompt\",\"bytes\",\"lines\",\"bad_lines\",\
\"chain_messages\",\"chain_end\",\"leaves\",\"compactions\",\"last_compaction_trigger\",\
\"last_compaction_pre_tokens\",\"compaction_origins\":{\"local\"|\"remote\"|\"legacy\":N},\"resume_tokens\",\
\"resume_model\",\"resume_model_choice\",\"dangling_parents\",\"chain_breaks\",\"duplicate_uuids\",\"payload_bytes\",\"request_bytes\",\
\"first_timestamp\",\"last_timestamp\",\"role\":\"session\"|\"subagent\",\"parent_session\",\"subagents\":[paths]} per file, then \
{\"kind\":\"total\",\"files\",\"sessions\",\"subagent_files\",\"bytes\",\"lines\",\"bad_lines\",\"chain_messages\",\
\"compactions\",\"resume_tokens\",\"dangling_parents\",\"chain_breaks\",\"by_format\",\"skipped\",\"errors\"}. \
A file that could not be read or is not a session is a \
{\"kind\":\"diagnostic\",\"file\",\"line\",\"code\",\"severity\",\"message\"} record.\n\n\
Each field keeps one type in every record: numbers are numbers, lists are lists (empty when \
there is nothing), the other fields are strings or null where the format does not have them \
(leaves, dangling_parents and duplicate_uuids are those of the formats whose records name a \
parent: Claude Code, pi, Qwen Code, and dangling_parents Copilot CLI's; chain_breaks and \
request_bytes are Claude Code's; payload_bytes, the base64 bytes of the images and documents stored (docs/slim.md), is null for cctool \
session files; cwd is null \
for cctool sessions). dangling_parents counts what doctor reports as dangling-parent, and \
chain_breaks those that are errors.\n\n\
EXAMPLES\n  cctool scan\n  COLUMNS=200 cctool scan --sort tokens ~/.claude/projects | head -20\n  \
cctool scan --wide ~/.codex/sessions\n  \
cctool scan --json | jq -r 'select(.kind==\"session\" and .resume_tokens > 150000) | .path'\n  \
cctool scan --rows messages --format parquet --files-from paths.txt > messages.parquet\n  \
find ~/.claude/projects -name '*.jsonl' -print0 | cctool scan --rows tool-calls -0 --files-from - --out-dir tables/tool-calls",
    );
    s.push_str("\n\n");
    s.push_str(&crate::tables::man_section());
    s
}
