//! `search` (docs/guide/search.md).

use super::*;
use crate::search::{Role, Scope};

/// Find the sessions and messages whose text matches a pattern, across every agent.
#[derive(Args, Debug)]
#[command(
    long_about = "Find the messages whose text matches PATTERN, in the sessions of every agent cctool reads: \
your own stores with no PATH, or the files and folders given. The text searched is the decoded text of \
each message (a transcript's JSON escapes such as \\n, \\\" and \\u00e9 are read first), never the \
metadata around it (ids, paths, the working directory): by default the user's and the model's texts and \
compaction summaries; with --thinking the model's reasoning; with --tools tool calls' inputs and outputs.\n\n\
PATTERN is literal text unless --regex, and matches regardless of case unless it holds an upper-case \
letter (-i and -s decide instead). --and PATTERN adds a pattern that the same message must also match.\n\n\
--scope full (the default) searches every record of the file: what compactions replaced, and what a rewind \
or a broken link left off the chain a resume loads, since a search is for finding what was said; each hit \
says whether a resume still loads it (scope \"effective\") or only the full history holds it (\"full\", \
marked \"(not resumed)\" on a terminal). --scope effective searches only what a resume loads.\n\n\
On a terminal the hits are grouped by session (its title, project, agent, date and id), each with its \
role, time and a line of text with the match marked; -l lists the sessions only, -c counts the hits of \
each. Every session id and message id shown can be given to rebuild-chain and export (a message id \
with rebuild-chain --tip).",
    after_long_help = "JSON RECORDS (--json)\n  \
{\"kind\":\"hit\",\"session_id\",\"agent\",\"file\",\"subagent\",\"line\",\"message_id\",\"role\":\"user\"|\"assistant\"|\"tool\"|\"summary\",\
\"field\":\"text\"|\"summary\"|\"thinking\"|\"tool_input\"|\"tool_output\",\"timestamp\",\"scope\":\"effective\"|\"full\",\
\"start\",\"end\",\"matches\":[[start,end]],\"snippet\",\"snippet_start\"} per text that matched: start and end are the byte \
offsets of the first match in the decoded text, matches every match; snippet is the decoded text around the first \
match, starting at byte snippet_start. With -l or -c instead one \
{\"kind\":\"search_session\",\"session_id\",\"agent\",\"file\",\"project\",\"title\",\"hits\"} per session. \
A file that could not be read is a {\"kind\":\"diagnostic\",\"file\",\"line\",\"code\",\"severity\",\"message\"} \
record. line, message_id and timestamp are null where the format has none. subagent is true for a hit in a subagent's \
transcript: its session_id is the session's it belongs to, and its message_id is found by rebuild-chain FILE --tip, \
not by the session id.\n\n\
EXIT STATUS\n  0 something matched; 1 nothing matched; 2 bad usage or an input could not be read.\n\n\
EXAMPLES\n  cctool search 'rate limit'\n  cctool search -e 'panic(ked)? at' --tools --since 7d\n  \
cctool search deploy --and staging --role user -l\n  \
cctool search --json 'café' ~/.codex/sessions | jq -r .session_id | sort -u"
)]
pub struct SearchArgs {
    /// What to look for: literal text, or with --regex a regular expression.
    #[arg(value_name = "PATTERN", allow_hyphen_values = true)]
    pub pattern: String,

    /// Session files or directories (searched recursively), a backup archive, or session ids
    /// (or prefixes) of your stores; with none, your own stores.
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub files: FilesFromArgs,

    /// One more pattern the same message must match too. Repeatable.
    #[arg(long = "and", value_name = "PATTERN", allow_hyphen_values = true)]
    pub and: Vec<String>,

    /// Read the patterns as regular expressions (the syntax of Rust's regex crate).
    #[arg(short = 'e', long)]
    pub regex: bool,

    /// Match regardless of case.
    #[arg(short = 'i', long, overrides_with = "case_sensitive")]
    pub ignore_case: bool,

    /// Match case exactly.
    #[arg(short = 's', long, overrides_with = "ignore_case")]
    pub case_sensitive: bool,

    /// Match whole words only.
    #[arg(short = 'w', long)]
    pub word: bool,

    /// Search the model's reasoning too.
    #[arg(long)]
    pub thinking: bool,

    /// Search tool calls' inputs and outputs too.
    #[arg(long)]
    pub tools: bool,

    /// Which records: every record of the file (what compactions replaced too), or what a
    /// resume loads.
    #[arg(long, value_enum, default_value_t = Scope::Full)]
    pub scope: Scope,

    /// Only texts of this role. Repeatable.
    #[arg(long, value_enum, value_name = "ROLE")]
    pub role: Vec<Role>,

    /// Only sessions of this agent.
    #[arg(long, value_parser = input_formats(), value_name = "AGENT")]
    pub agent: Option<AgentId>,

    /// Only sessions that ran in this folder or a folder below it.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// Only the session with this id (or an id starting with it, or the ends scan shows of it).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Only messages written on or after this local date (2027-01-22), or in the last N days
    /// (7d) or hours (12h).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only messages written before this local date, or before N days (7d) or hours ago.
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// List the matching sessions only.
    #[arg(short = 'l', long, conflicts_with = "count")]
    pub files_with_matches: bool,

    /// Count the hits of each matching session.
    #[arg(short = 'c', long)]
    pub count: bool,

    /// Show N messages before and after each hit.
    #[arg(short = 'C', long, value_name = "N", default_value_t = 0)]
    pub context: usize,

    /// Decode every line instead of ruling lines out by their raw bytes first (the results
    /// are the same; for checking that they are).
    #[arg(long, hide = true)]
    pub no_prefilter: bool,

    /// Read every file, even where `cctool index` holds a fresh index of it.
    #[arg(long)]
    pub no_index: bool,

    /// Order sessions, and the hits of each, by relevance (SQLite's bm25) as the index
    /// measures it; without a fresh index the hits stay in file order.
    #[arg(long, conflicts_with = "context")]
    pub rank: bool,

    /// The index's folder (default: CCTOOL_INDEX_DIR, else $XDG_CACHE_HOME/cctool, else
    /// ~/.cache/cctool).
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
}

/// Build or bring up to date the full-text index `search` uses (docs/guide/search.md).
#[derive(Args, Debug)]
#[command(
    long_about = "Build or bring up to date the index search uses: every text search can match (of every role, \
reasoning and tool calls included), read through the same readers, in one SQLite file with an FTS5 table in \
$XDG_CACHE_HOME/cctool (else ~/.cache/cctool; CCTOOL_INDEX_DIR or --index-dir to choose). With no PATH, your \
own stores, as search reads them.\n\n\
Incremental: a file unchanged since it was indexed is not read; a file that only grew (same file, larger, its \
last indexed line unchanged) is read from where it grew; any other file is read whole; a file the index holds \
that no longer exists is forgotten. One run writes at a time (another waits); searches read while it writes, and \
each file is updated in one transaction, so an interrupted run leaves a usable index.\n\n\
search uses the index for the files it is fresh for and reads the others; its hits are the same either way.",
    after_long_help = "JSON RECORDS (--json)\n  {\"kind\":\"index\",\"index\",\"files\",\"unchanged\",\"grown\",\"whole\",\
\"removed\",\"bytes_read\",\"rows\"} once, after the files are done.\n\n\
EXAMPLES\n  cctool index\n  cctool index ~/.claude/projects/my-app\n  cctool search 'rate limit' --rank"
)]
pub struct IndexArgs {
    /// Session files or directories (searched recursively); with none, your own stores.
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub files: FilesFromArgs,

    /// The index's folder (default: CCTOOL_INDEX_DIR, else $XDG_CACHE_HOME/cctool, else
    /// ~/.cache/cctool).
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
}
