//! `extract-summary`: its arguments and its help.

use super::*;

/// The first paragraph of `extract-summary`'s long help; each agent's follows, then
/// [`EXTRACT_SUMMARY_END`] ([`crate::cli::command`]).
pub(crate) const EXTRACT_SUMMARY_LEAD: &str = "Print every compaction summary in each session file, oldest first: \
what the agent was told about the history it no longer holds.";

/// The last paragraph of `extract-summary`'s long help.
pub(crate) const EXTRACT_SUMMARY_END: &str = "With no PATH, the user's own stores are read, every agent's \
(docs/stores.md says where each is found).";

/// Every compaction summary in each session file, oldest first.
#[derive(Args, Debug)]
#[command(
    long_about = EXTRACT_SUMMARY_LEAD,
    after_long_help = "JSON RECORDS\n\
{\"kind\":\"summary\",\"file\",\"format\",\"session_id\",\"index\",\
\"current\",\"line\",\"timestamp\",\"trigger\",\"pre_tokens\",\"origin\":\"local\"|\"remote\"|\"legacy\",\
\"encrypted\",\"encrypted_len\",\"summary\",\"retained_messages\":[{\"role\",\"text\"}]|null,\"boundary_uuid\",\
\"event\",\"summary_line\",\"summary_source\",\"logical_parent_resolves\",\"metadata\",\"warning\"}\n\
format is the agent's name as --input-format takes it. metadata holds the other \
compactMetadata keys verbatim (Claude Code), the window fields (Codex), or what another agent \
records of the compaction (its page in docs/). With --all-events, microcompactions are {\"kind\":\"event\",\"event\":\"microcompact_boundary\",…}. \
The run ends with {\"kind\":\"total\",\"files\",\"summaries\",\"with_current\",\"without_current\",\"skipped\",\"errors\",\"bad_lines\"}. \
A file that could not be read, or a line that could not be used, is a \
{\"kind\":\"diagnostic\",\"file\",\"line\",\"code\",\"severity\",\"message\"} record. \
Each field keeps one type in every record; fields a format does not have are null.\n\n\
EXIT STATUS\n  0 success; 1 with --current when a file has no current summary; 2 when a named file \
cannot be read or is not a session.\n\n\
EXAMPLES\n  \
cctool extract-summary --current SESSION.jsonl\n  \
cctool extract-summary --json ~/.claude/projects | jq -r 'select(.current and .summary) | .summary'\n  \
cctool extract-summary --json --strip-template | jq -r 'select(.kind==\"summary\") | \"\\(.file)\\t\\(.pre_tokens)\"'\n  \
cctool extract-summary --json ~/.codex/sessions | jq -c 'select(.encrypted) | {file, encrypted_len, kept: (.retained_messages|length)}'"
)]
pub struct ExtractSummaryArgs {
    /// Session files or directories (searched recursively), a backup archive (or
    /// ARCHIVE/SESSION-ID), or session ids (or prefixes) of your stores; `-` reads standard input.
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub files: FilesFromArgs,

    /// Only the summary the next resume would see, per file (exit 1 if a file has none).
    #[arg(long)]
    pub current: bool,

    /// Remove the agent's wrapper text (header, trailers, Claude Code's Analysis section).
    #[arg(long)]
    pub strip_template: bool,

    /// Also list microcompactions, which clear old tool results but write no summary.
    #[arg(long)]
    pub all_events: bool,

    /// Claude Code loading rules used to decide which summary is current [default: 2.1.332].
    #[arg(long, value_enum)]
    pub loader: Option<Loader>,
}

impl ExtractSummaryArgs {
    /// The Claude Code loading rules asked for, or the current client's.
    pub fn loader(&self) -> Loader {
        self.loader.unwrap_or_default()
    }
}
