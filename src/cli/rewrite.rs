//! The commands that write a session anew: `migrate`, `compact`, `decompress`.

use super::*;

pub(super) fn parse_version(s: &str) -> Result<u32, String> {
    let n = s.strip_prefix('v').unwrap_or(s);
    match n.parse::<u32>() {
        Ok(v @ 1..=5) => Ok(v),
        _ => Err(format!("unknown schema version {s}: use v1 to v5")),
    }
}

/// Migrate cctool session files to a schema version, or import Claude Code and Codex files.
#[derive(Args, Debug)]
#[command(
    long_about = "Migrate cctool session files to schema version N (default and maximum 5) through the \
chain v1 -> v2 -> v3 -> v4 -> v5, in place and safely: a backup beside the file (FILE.v<old>.bak, \
never overwriting an existing one; a hard link to the original where the filesystem allows), a temporary file in the same folder, fsync, rename, fsync of \
the folder. A file modified in the last 60 s may still be written by its harness (unless cctool \
wrote it and nothing changed it since), a file another \
process holds open for writing (an idle Codex its rollout) would keep receiving its lines in the \
backup, and a read-only file may have been protected on purpose: all are refused unless --force. A file that changes \
while it is migrated is left as it is (the rewrite holds a lock and checks its size and time \
before the rename). Through a symbolic link, the file it points to is migrated and backed up. A \
file already at the target is left byte-identical. Migration is deterministic and idempotent; \
output is two-space pretty JSON with keys in the order of the spec. With -o, nothing is changed in \
place: the migrated session is written to OUT.\n\n\
Claude Code transcripts and Codex rollouts are imported into a new v5 file: the full history in \
chain order with each compaction as a summary item at its place, or with --effective only what a \
resume loads. Records without a v5 equivalent are kept as native items; values nested deeper \
than 100 levels are kept as their JSON text ({\"_raw\": TEXT}). A file named directly goes to -o OUT \
(default <name>.v5.json beside it); the files of a folder go to an output folder (-o DIR, the \
folder's tree under it) and are not imported without one. An existing file is never replaced \
without --force.",
    after_long_help = "JSON RECORDS\n  {\"kind\":\"migration\",\"file\",\"from\",\"to\",\"changed\",\"backup\",\"output\",\"note\",\"error\"} \
per file; from and to are versions (\"v1\"…\"v5\") or the native format imported (\"claude-code\", \"codex\"); \
note says why a file was left alone (a folder's transcript without -o DIR). Temporary files left by a \
killed run in a folder written to are removed, and said so on stderr.\n\n\
EXIT STATUS\n  0 done; 1 with --check/--dry-run when something would change; 2 when a file failed \
(the others are still processed).\n\n\
EXAMPLES\n  cctool migrate sessions/*.json\n  cctool migrate --check sessions/   # in CI: exit 1 if any file is old\n  \
cctool migrate --to v5 ~/.claude/projects/-home-me-app/SESSION.jsonl -o session.v5.json\n  \
cctool migrate ~/.claude/projects -o ~/sessions-v5/   # a folder: into an output folder\n  \
cctool migrate rollout-….jsonl -o - | jq '.messages | length'"
)]
pub struct MigrateArgs {
    /// Session files or directories (searched recursively), a backup archive (or
    /// ARCHIVE/SESSION-ID), or session ids (or prefixes) of your stores.
    #[arg(required_unless_present = "files_from")]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub files: FilesFromArgs,

    /// Target schema version (v1 to v5).
    #[arg(long, value_name = "vN", default_value = "v5", value_parser = parse_version)]
    pub to: u32,

    /// Report what would change and write nothing; exit 1 when anything would.
    #[arg(long, alias = "check")]
    pub dry_run: bool,

    /// Imports: only what a resume would load, instead of the full history.
    #[arg(long)]
    pub effective: bool,

    /// Where to write: a file for one input file, a folder for a folder or several inputs
    /// (created; each output at its input's place in the tree), `-` for standard output.
    /// Nothing is changed in place.
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: Option<PathBuf>,

    /// Rewrite session files modified in the last 60 s or read-only, and replace outputs that
    /// exist.
    #[arg(long)]
    pub force: bool,
}

/// Compact a session offline so that the agent can resume it.
#[derive(Args, Debug)]
#[command(
    long_about = "Compact a Claude Code transcript, a Codex rollout or a cctool session file offline. \
The most recent --keep-recent tokens stay verbatim; everything older (or, with --budget, the \
smallest older span that brings the resumed conversation under the budget) is replaced by a \
structured, literal recap: Goal, Constraints, Progress, Key Decisions, Next Steps, then the files \
read and modified, taken from the tool calls. The cut falls at the latest point that meets the \
request, never between a tool call and its result: between complete tool exchanges when the last \
user prompt is further back, before a prompt only within a twentieth of that tail. Tokens are what \
scan reports as resume_tokens, for the input and the output: ceil(bytes / 4) of the request a resume \
sends (Claude Code: the messages of rebuild-chain --api-view; Codex: the history items), or of a v5 \
session's message content (tokens_of says which). A recap left by an earlier compaction is merged, \
not rewritten.\n\n\
The output keeps the input's format. Claude Code: the transcript followed by a compact_boundary row, \
the summary row and copies of the kept tail, so Claude Code resumes boundary, summary, tail. Codex: the \
rollout followed by a compacted record (the kept user messages, the prefixed summary, the tail) and a \
context_compacted event. cctool v5: tier 1 (reasoning dropped, older tool results replaced by \
placeholders that decompress restores) and tier 2 (the recap) in place, logged in `compactions`. \
Native files are compacted by a summary (tier 2); --tier 1 applies to v5 sessions.\n\n\
The input is never changed, except by --in-place, which keeps a backup (FILE.precompact.bak) and \
replaces the file atomically, holding a lock and refusing if the file changed meanwhile (an agent \
appending to it); through a symbolic link, the file it points to. Files modified in the last 60 s \
or whose last line is not a complete record look live, files another process holds open for writing \
(naming it) would keep receiving its lines in the backup, and read-only files are protected: all are \
refused unless --force. An existing output is replaced only with --force.",
    after_long_help = "JSON RECORD (--json)\n  \
{\"kind\":\"compaction\",\"file\",\"format\",\"tier\",\"changed\",\"output\",\"backup\",\"session_id\",\"resume\",\
\"registered\",\"tokens_before\",\
\"tokens_after\",\"tokens_of\":\"request\"|\"history\"|\"content\",\"kept_tokens\",\"compacted_units\",\"kept_units\",\"cut_at\",\"on_prompt\",\"tail_reduced\",\
\"budget_met\",\"recap_method\",\"summarizer_fallback\",\"placeholders\",\"reasoning_removed\",\"recap\",\"note\",\
\"error\"}\n\n\
EXAMPLES\n  \
cctool compact --dry-run ~/.claude/projects/-home-me-app/0b1c….jsonl\n  \
cctool compact --budget 60000 -o resumable.jsonl rollout-2026-11-02T10-00-00-….jsonl\n  \
cctool compact --summarizer 'llm -m local-model' --in-place session.json\n  \
cctool compact --into-store ~/.codex/sessions/2026/11/02/rollout-2026-11-02T10-00-00-….jsonl\n\n\
RESUMING THE OUTPUT\n  \
The agents resume a session by its id, so a copy beside the original is not what they load. \
--into-store places the compaction in the store of the input's agent as a new session and prints the \
command that resumes it: Claude Code, ~/.claude/projects/<project>/<new-id>.jsonl with every row's \
sessionId the new id (claude --resume <new-id> in the project's folder); Codex, a rollout under \
~/.codex/sessions whose session_meta has the new id, registered in Codex's thread index as convert \
--into-store registers one (codex resume <new-id>). The new id is derived from the input's session, \
its length and the options that shape the compaction, so compacting it again the same way names the \
same session, which is refused unless --force replaces it; --dry-run says where it would go. cctool \
sessions have no store: write them with -o. --in-place instead replaces the session itself, which the \
agent resumes by its own id as before.\n\n\
EXIT STATUS\n  0 compacted (or nothing to compact); 1 --dry-run found something to compact, or the \
budget could not be reached; 2 unusable input or a write failed."
)]
pub struct CompactArgs {
    /// The session to compact (ARCHIVE/SESSION-ID reads one kept in a backup archive; write
    /// the result with -o), or the id of a session in your stores (or a prefix only it has).
    pub file: PathBuf,

    /// Tokens at the end kept verbatim.
    #[arg(long, value_name = "TOKENS", default_value_t = 20_000)]
    pub keep_recent: usize,

    /// Tokens the resumed conversation should fit in: the largest tail that fits is kept (it
    /// shrinks below --keep-recent only if it must).
    #[arg(long, value_name = "TOKENS")]
    pub budget: Option<usize>,

    /// 1: drop reasoning and replace older tool results with placeholders (v5 only); 2: a
    /// recap of the oldest span; auto: tier 1 and, when still over --budget (or with no
    /// budget), tier 2.
    #[arg(long, value_enum, default_value_t = crate::compact::Tier::Auto)]
    pub tier: crate::compact::Tier,

    /// Tier 1: the number of most recent tool results kept whole.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub keep_results: usize,

    /// Write the recap with this command instead: it gets a prompt on stdin (the span as text,
    /// large tool results elided) and prints the five fields; on failure the extractive recap
    /// is used and the report says why.
    #[arg(long, value_name = "CMD")]
    pub summarizer: Option<String>,

    /// Seconds the summarizer may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub summarizer_timeout: u64,

    /// Show the cut, the tokens before and after, and the recap; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Where to write the compacted session (default: <name>.compacted.jsonl or .json beside
    /// the input; in the current folder when the input is in an agent's store).
    #[arg(short = 'o', long, value_name = "OUT", conflicts_with = "in_place")]
    pub output: Option<PathBuf>,

    /// Replace the input, after keeping a backup of it beside it.
    #[arg(long)]
    pub in_place: bool,

    /// Place the compaction in the store of the input's agent as a new session of its own
    /// (its id derived from the input's and the compaction's), and print the command that
    /// resumes it.
    #[arg(long, conflicts_with_all = ["output", "in_place"])]
    pub into_store: bool,

    /// Compact files that look live (modified in the last 60 s, or a last line that is not a
    /// complete record) or are read-only, and replace an existing output.
    #[arg(long)]
    pub force: bool,
}

/// Restore tier-1 placeholders of a compacted v5 session from the full record.
#[derive(Args, Debug)]
#[command(
    long_about = "Restore what tier-1 compaction removed from a cctool v5 session: every placeholder \
tool result whose tool call id is in the full record gets its content back, and messages whose \
reasoning was dropped get it back when the full record has the same message. The full record is a \
v5 session, or the Claude Code transcript or Codex rollout it was imported from. Placeholders that \
cannot be restored are listed (exit status 1).",
    after_long_help = "JSON RECORD (--json)\n  \
{\"kind\":\"decompression\",\"file\",\"from\",\"output\",\"backup\",\"messages\",\"placeholders\",\"reasoning\",\
\"unrestored\":[{\"message_id\",\"tool_call_id\"}]}\n\n\
EXIT STATUS\n  0 everything restored; 1 some placeholders could not be restored; 2 unusable input."
)]
pub struct DecompressArgs {
    /// The compacted v5 session.
    pub file: PathBuf,

    /// The full record: a v5 session, or the native file it was imported from.
    #[arg(long, value_name = "FULL", required = true)]
    pub from: PathBuf,

    /// Where to write the result (default: <name>.decompressed.json beside the input).
    #[arg(short = 'o', long, value_name = "OUT", conflicts_with = "in_place")]
    pub output: Option<PathBuf>,

    /// Replace the input, after keeping a backup of it beside it.
    #[arg(long)]
    pub in_place: bool,

    /// Show what would be restored; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Replace an existing output, or rewrite a file modified in the last 60 s or read-only.
    #[arg(long)]
    pub force: bool,
}
