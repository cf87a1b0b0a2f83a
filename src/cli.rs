//! The command-line interface: clap definitions only. Man pages and completions are
//! generated from these, so the help text here *is* the documentation.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::agents::claude_code::chain::Loader;
use crate::agents::claude_code::config::ThinkingPolicy;
use crate::agents::codex::history::Replay;
use crate::io::MmapChoice;
use crate::model::Format;
use crate::model::diag::{Code, Severity};
use crate::output::ColorChoice;

#[derive(Parser, Debug)]
#[command(
    name = "cctool",
    version,
    about = "Transcript forensics and conversion for Claude Code and Codex sessions",
    long_about = "cctool reads Claude Code transcripts, Codex rollouts and cctool session files, \
offline and fast, and answers what a session really holds after compaction: the exact \
conversation a resume loads, the summaries the agent was given, and the integrity problems \
of a file.\n\nData goes to stdout (JSON Lines by default where records are produced); \
diagnostics and progress go to stderr.\n\nExit status: 0 success; 1 a negative answer; \
2 usage or input error; 130 interrupted.",
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Print diagnostics and summaries as JSON Lines records (each with a "kind" field) on
    /// stdout instead of text on stderr.
    #[arg(long, global = true)]
    pub json: bool,

    /// When to use colour (NO_COLOR is honoured by "auto").
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Whether large files may be memory-mapped ("auto" maps files of 4 MiB or more that have
    /// not changed for a minute; everything else is read).
    #[arg(long, global = true, value_enum, default_value_t = MmapChoice::Auto, value_name = "WHEN")]
    pub mmap: MmapChoice,

    /// Inside folders, follow symbolic links, also out of the folder named (each file is read
    /// once; loops are reported). By default links inside folders are not followed.
    #[arg(long, global = true)]
    pub follow: bool,

    /// Read inputs as this format instead of detecting it from their content.
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub input_format: Option<Format>,

    /// Print no diagnostics on stderr (errors that stop the command are still printed).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Backup(BackupArgs),
    Compact(CompactArgs),
    Convert(ConvertArgs),
    Decompress(DecompressArgs),
    Doctor(DoctorArgs),
    Export(ExportArgs),
    ExtractSummary(ExtractSummaryArgs),
    Hooks(HooksArgs),
    Migrate(MigrateArgs),
    RebuildChain(RebuildChainArgs),
    Restore(RestoreArgs),
    Scan(ScanArgs),
    Slim(SlimArgs),
    Completions(CompletionsArgs),
    /// Write the man pages (cctool.1 and one page per subcommand) into a directory.
    #[command(hide = true)]
    GenerateMan {
        /// Directory to write the pages into.
        dir: PathBuf,
    },
}

/// How rebuild-chain prints the conversation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ChainFormat {
    /// One record per line, as written in the file (Claude Code) or as the history item (Codex).
    #[default]
    Jsonl,
    /// Readable text.
    Text,
    /// Markdown.
    Markdown,
}

/// The extra help of `rebuild-chain`: its diagnostic codes come from their one definition.
fn rebuild_chain_help() -> String {
    format!(
        "DIAGNOSTICS\n\
On stderr (or, with --json, as {{\"kind\":\"diagnostic\",\"file\",\"line\",\"code\",\"severity\",\"message\"}} \
records on stdout after the chain), then a summary. Codes (severity):\n{}\n\
With --json, the last record is {{\"kind\":\"chain\",\"file\",\"format\",\"loader\",\"replay\",\
\"messages\",\"end\",\"tip\",\"root\",\"unreachable\",\"duplicate_uuids\",\"bad_lines\",\
\"recovered\",\"appended\",\"pruned\",\"bridged\",\"earlier_parts\"}}; end is one of root, \
boundary, dangling:<uuid>, cycle, empty. Each field keeps one type in every record; the fields a \
format does not have are null (loader and the Claude Code counts for Codex, replay for Claude Code). \
\n\n\
API VIEW\n\
With --api-view the request depends on how Claude Code would be configured at the resume: the \
model it sends to is the session's own (the last assistant entry's inPlaceOfModel or model) \
unless the client's table says that model is unknown, not allowed or retired at that time (from \
local midnight of the date; TZ is honoured), when the model setting or the default is used; \
--model, ANTHROPIC_MODEL, ANTHROPIC_DEFAULT_*_MODEL or a provider other than Anthropic's disable \
the restore. Thinking of other models is removed behind a base URL that is not \
api.anthropic.com and kept otherwise (the client's default, which a server flag can change). \
By default the user's own settings files (user, project, local, managed), ANTHROPIC_* and \
CLAUDE_CODE_* variables, TZ and the current time are read; the options under Resume \
configuration give each instead. With --json the last record is {{\"kind\":\"api_view\",\"file\",\
\"format\",\"client\",\"loader\",\"model\",\"model_choice\",\"model_entry\",\"session_model\",\
\"session_model_retires\",\"notice\",\"thinking_policy\",\"messages\",\"tokens\",\"prompt\",\"rules\",\
\"assumptions\",\"refused\"}} for either agent, null where the agent has no such field (Codex: \
loader, model_choice, the session model, thinking_policy and assumptions; Claude Code: \
model_entry and refused); messages is the length of the request's messages or input array; \
model_choice is restored, explicit, setting, or retired|unknown|not allowed|no session model → \
settings|default.\n\n\
EXAMPLES\n  \
cctool rebuild-chain ~/.claude/projects/-home-me-app/SESSION.jsonl | jq -r .uuid\n  \
cctool rebuild-chain --api-view --json --as-of 2027-01-22 SESSION.jsonl | tail -1 | jq '{{model, model_choice}}'\n  \
cctool rebuild-chain --api-view --body --prompt continue SESSION.jsonl | jq '{{model, max_tokens, thinking}}'\n  \
cctool rebuild-chain --format text SESSION.jsonl | less -R\n  \
cctool rebuild-chain --full --format markdown SESSION.jsonl > history.md\n  \
cctool rebuild-chain ~/.codex/sessions/2026/03/01/rollout-….jsonl | jq -c '{{type, role}}'\n  \
cctool rebuild-chain --api-view --prompt 'go on' --json rollout-….jsonl | tail -1 | jq .rules",
        crate::model::diag::codes_help(|r| r.chain)
    )
}

/// The exact conversation the agent would load when this session is resumed.
#[derive(Args, Debug)]
#[command(
    long_about = "Print the conversation exactly as the agent would load it on resume, root first.\n\n\
Claude Code: the load algorithm of Claude Code 2.1.332 (the current client): progress rows \
bridged, duplicate uuids keeping their first position and last content, preserved-segment \
relinks and prunes, gap bridging (5 s rule), parallel tool calls recovered in file order, \
trailing system rows, and the tip chosen from the last row written. --loader 2.1.88 gives the \
older rules (newest leaf as tip, no gap bridging). Each output line is the original record, \
byte for byte, so `cctool rebuild-chain f.jsonl | jq -r .uuid` lists the uuids in order.\n\n\
Codex: the history current Codex (0.171) resumes: the newest surviving `compacted` \
replacement_history plus the records after it, with rolled-back turns discarded whole \
(compactions inside them included). Legacy compactions without replacement_history are \
rebuilt from the user messages (20,000-token budget) plus the summary. Each output line is a \
history item's JSON as written. --replay legacy gives the pre-2026-02-27 forward replay; a \
warning says when the two differ. With --api-view, the `input` items Codex 0.171 sends after \
the resume instead, as Codex writes them: its own form of each item, tool outputs cut to the \
model's budget, images and audio checked, unanswered calls closed with \"aborted\", orphan \
outputs removed (rules X1-X12, docs/codex-request.md); files Codex refuses exit 1.\n\n\
cctool session files: the messages in order, one per line.",
    after_long_help = rebuild_chain_help()
)]
pub struct RebuildChainArgs {
    /// The session file (`-` reads standard input), or ARCHIVE/SESSION-ID for a session kept
    /// in a backup archive.
    pub file: PathBuf,

    /// Claude Code loading rules to follow.
    #[arg(long, value_enum, default_value_t = Loader::V2_1_332)]
    pub loader: Loader,

    /// Walk from this message uuid instead of the loader's tip (Claude Code).
    #[arg(long, value_name = "UUID")]
    pub tip: Option<String>,

    /// Follow compactions back through the earlier history (via logicalParentUuid where it
    /// resolves, file order where it does not), marking each boundary (Claude Code).
    #[arg(long)]
    pub full: bool,

    /// Codex replay semantics.
    #[arg(long, value_enum, default_value_t = Replay::Current)]
    pub replay: Replay,

    /// Print what the agent sends to the model on resume instead of the records: for Claude
    /// Code 2.1.332 one {"role","content"} message per line, from the last compact boundary;
    /// for Codex 0.171 one `input` item per line, as Codex writes it, with its send-time rules
    /// applied.
    #[arg(long)]
    pub api_view: bool,

    /// With --api-view: the prompt of the resumed turn (Claude Code: adds the sentinel reply when
    /// the client would, and the prompt, merged or separate as the client does; Codex: the
    /// prompt as the last user message).
    #[arg(long, value_name = "TEXT", requires = "api_view")]
    pub prompt: Option<String>,

    /// With --api-view: print the whole request body as one JSON object (model, messages with
    /// the system messages newer models take, max_tokens, thinking, context_management,
    /// output_config) instead of one message per line.
    #[arg(long, requires = "api_view")]
    pub body: bool,

    #[command(flatten)]
    pub resume: ResumeArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ChainFormat::Jsonl)]
    pub format: ChainFormat,

    /// With --format text or markdown: show tool input, tool output and thinking whole
    /// (by default each is cut after 600 bytes, with a note saying how much was left out).
    #[arg(long)]
    pub full_output: bool,
}

/// The extra help of `doctor`: the codes come from their one definition.
fn doctor_help() -> String {
    format!(
        "CODES (severity)\n{}\n\
JSON RECORDS\n  {{\"kind\":\"finding\",\"file\",\"line\",\"code\",\"severity\",\"message\"}} per finding, \
then {{\"kind\":\"code\",\"code\",\"findings\",\"errors\",\"warnings\",\"infos\"}} per code found, then \
{{\"kind\":\"total\",\"files\",\"errors\",\"warnings\",\"infos\",\"files_with_errors\",\"skipped\",\"unreadable\"}}. \
Inputs that could not be checked are {{\"kind\":\"diagnostic\",…}} records with the same fields as a finding. \
Each field keeps one type in every record; line is null for a finding about a whole file.\\n\n\
The two session-model codes depend on the date, the settings and the environment (the resume \
configuration options below, as for rebuild-chain --api-view).\n\n\
EXIT STATUS\n  0 no error-level finding is reported; 1 an error-level finding is reported (after \
--min-severity and --code); 2 a named file cannot be read.\n\n\
EXAMPLES\n  cctool doctor ~/.claude/projects\n  \
cctool doctor --min-severity warning --code dangling-parent --code cycle SESSION.jsonl\n  \
cctool doctor --json | jq -r 'select(.kind==\"finding\" and .severity==\"error\") | \"\\(.file):\\(.line) \\(.code)\"'",
        crate::model::diag::codes_help(|r| r.doctor)
    )
}

/// Accepts the ids of the codes doctor reports.
fn doctor_code_parser() -> impl clap::builder::TypedValueParser<Value = Code> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        Code::ALL
            .iter()
            .filter(|c| c.reported().doctor)
            .map(|c| PossibleValue::new(c.id())),
    )
    .map(|id| Code::from_id(&id).unwrap_or(Code::InvalidJson))
}

/// Integrity findings of session files, one per problem, with file, line and a stable code.
#[derive(Args, Debug)]
#[command(
    long_about = "Check session files and report every integrity problem, one finding per problem, \
with the file, the line and a stable code, grouped by file; then one line per code found and a \
total on stderr. Read-only: doctor never changes a file. With no PATH, the user's own stores are \
checked; the subagent transcripts of a named session are checked with it.\n\n\
A finding's severity follows its effect on the conversation a resume loads: an error when the \
agent loses or misreads data (a line it cannot parse, a chain that stops and leaves earlier \
messages behind, a summary it never sees), a warning when something is damaged but nothing is \
lost, info for what changes nothing on resume (a broken link off the resumed chain, before the \
last compaction, or on a progress row).",
    after_long_help = doctor_help()
)]
pub struct DoctorArgs {
    /// Session files or directories (searched recursively), or a backup archive (or
    /// ARCHIVE/SESSION-ID); `-` reads standard input.
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub files: FilesFromArgs,

    #[command(flatten)]
    pub resume: ResumeArgs,
    /// Report only findings of this severity or higher.
    #[arg(long, value_enum, default_value_t = Severity::Info, value_name = "LEVEL")]
    pub min_severity: Severity,

    /// Report only findings with this code (repeatable; the codes are listed below).
    #[arg(long = "code", value_name = "CODE", value_parser = doctor_code_parser(), hide_possible_values = true)]
    pub codes: Vec<Code>,
}

/// Every compaction summary in each session file, oldest first.
#[derive(Args, Debug)]
#[command(
    long_about = "Print every compaction summary in each session file, oldest first: what the agent \
was told about the history it no longer holds.\n\n\
Claude Code: each compact_boundary with its isCompactSummary message (the one parented on the \
boundary, else the first after it before the next boundary). Legacy type:\"summary\" lines are \
branch titles, never summaries. The current summary is the boundary the resumed chain starts \
from; when the chain reaches no boundary the last one is current, with a warning.\n\n\
Codex: each compacted record. origin is remote when its replacement_history holds a \
compaction, compaction_summary or context_compaction item (the summary is encrypted: only its \
length and the plaintext messages the server kept can be shown), local when it has a \
replacement_history, legacy when it has none. Local text comes from the message (with the \
SUMMARY_PREFIX line removed), else the last prefixed user message of the replacement_history, \
else the assistant message just before the record.\n\n\
cctool v5 sessions: each summary item.\n\n\
With no PATH, the user's own stores are read: $CLAUDE_CONFIG_DIR/projects (default \
~/.claude/projects), $CODEX_HOME/sessions and $CODEX_HOME/archived_sessions (default ~/.codex).",
    after_long_help = "JSON RECORDS\n\
{\"kind\":\"summary\",\"file\",\"format\":\"claude-code\"|\"codex\"|\"cctool-v5\",\"session_id\",\"index\",\
\"current\",\"line\",\"timestamp\",\"trigger\",\"pre_tokens\",\"origin\":\"local\"|\"remote\"|\"legacy\",\
\"encrypted\",\"encrypted_len\",\"summary\",\"retained_messages\":[{\"role\",\"text\"}]|null,\"boundary_uuid\",\
\"event\",\"summary_line\",\"summary_source\",\"logical_parent_resolves\",\"metadata\",\"warning\"}\n\
metadata holds the other compactMetadata keys verbatim (Claude Code) or the window fields \
(Codex). With --all-events, microcompactions are {\"kind\":\"event\",\"event\":\"microcompact_boundary\",…}. \
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
    /// Session files or directories (searched recursively), or a backup archive (or
    /// ARCHIVE/SESSION-ID); `-` reads standard input.
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

    /// Claude Code loading rules used to decide which summary is current.
    #[arg(long, value_enum, default_value_t = Loader::V2_1_332)]
    pub loader: Loader,
}

fn parse_version(s: &str) -> Result<u32, String> {
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
the folder. A file modified in the last 60 s may still be written by its harness, and a read-only \
file may have been protected on purpose: both are refused unless --force. A file that changes \
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
    /// Session files or directories (searched recursively), or a backup archive (or
    /// ARCHIVE/SESSION-ID).
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
or whose last line is not a complete record look live, and read-only files are protected: both are \
refused unless --force. An existing output is replaced only with --force.",
    after_long_help = "JSON RECORD (--json)\n  \
{\"kind\":\"compaction\",\"file\",\"format\",\"tier\",\"changed\",\"output\",\"backup\",\"tokens_before\",\
\"tokens_after\",\"tokens_of\":\"request\"|\"history\"|\"content\",\"kept_tokens\",\"compacted_units\",\"kept_units\",\"cut_at\",\"on_prompt\",\"tail_reduced\",\
\"budget_met\",\"recap_method\",\"summarizer_fallback\",\"placeholders\",\"reasoning_removed\",\"recap\",\"note\",\
\"error\"}\n\n\
EXAMPLES\n  \
cctool compact --dry-run ~/.claude/projects/-home-me-app/0b1c….jsonl\n  \
cctool compact --budget 60000 -o resumable.jsonl rollout-2026-11-02T10-00-00-….jsonl\n  \
cctool compact --summarizer 'llm -m local-model' --in-place session.json\n\n\
RESUMING THE OUTPUT\n  \
The agents resume a session by its id, so a copy beside the original is not what they load. Claude \
Code resumes ~/.claude/projects/<project>/<id>.jsonl: compact --in-place, then claude --resume <id>; \
or -o into that folder as <new-uuid>.jsonl, then claude --resume <new-uuid>. Codex resumes the \
rollout-*.jsonl under ~/.codex/sessions whose session_meta has the id, the original when there are \
two: compact --in-place, then codex resume <id>.\n\n\
EXIT STATUS\n  0 compacted (or nothing to compact); 1 --dry-run found something to compact, or the \
budget could not be reached; 2 unusable input or a write failed."
)]
pub struct CompactArgs {
    /// The session to compact (ARCHIVE/SESSION-ID reads one kept in a backup archive; write
    /// the result with -o).
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
    /// the input).
    #[arg(short = 'o', long, value_name = "OUT", conflicts_with = "in_place")]
    pub output: Option<PathBuf>,

    /// Replace the input, after keeping a backup of it beside it.
    #[arg(long)]
    pub in_place: bool,

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
in) and its title (set by the user or the agent, else its first prompt), with a short id, the \
last activity in local time, the messages on the chain a resume loads, the estimated tokens of \
what a resume sends (ceil(bytes / 4) of the request), compactions, size, agent version, \
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
    /// Session files or directories (searched recursively), or a backup archive (or
    /// ARCHIVE/SESSION-ID); `-` reads standard input.
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
fn scan_help() -> String {
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
(leaves, dangling_parents, chain_breaks, duplicate_uuids and request_bytes are Claude Code's; \
payload_bytes, the base64 bytes of the images and documents stored (docs/slim.md), is null for cctool \
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

/// Paths read from a list (`--files-from`): the batch commands' way to take work from
/// `find`, `xargs -P`, GNU parallel or Spark's `RDD.pipe`.
#[derive(Args, Debug, Clone, Default)]
pub struct FilesFromArgs {
    /// Also read the paths listed in FILE (`-`: standard input), one per line. Only the files
    /// listed are read (subagent transcripts too are read only when listed; folders listed are
    /// searched), and the user's own stores are not read when the list is empty. Each file's
    /// output depends on that file alone, so the parts of a split list, run apart and
    /// concatenated, give the output of one run.
    #[arg(long, value_name = "FILE")]
    pub files_from: Option<PathBuf>,

    /// With --files-from: the paths are separated by NUL bytes (`find -print0`), not by lines.
    #[arg(short = '0', long = "null", requires = "files_from")]
    pub null: bool,
}

/// `scan --rows`: flat tables for DuckDB, Polars and Spark (`docs/tables.md`).
#[derive(Args, Debug, Clone, Default)]
pub struct RowsArgs {
    /// Print a table instead of the scan: one flat record per session, message, compaction or
    /// tool call, with the columns of `schemas/<table>.json` (see TABLES below).
    #[arg(long, value_enum, value_name = "TABLE")]
    pub rows: Option<crate::tables::Table>,

    /// Format of the table: JSON Lines, or Parquet (when cctool is built with the `parquet`
    /// feature).
    #[arg(long, value_enum, default_value_t = crate::tables::RowFormat::Jsonl, requires = "rows", value_name = "FORMAT")]
    pub format: crate::tables::RowFormat,

    /// Keep the first N characters of each body (message text, tool input and output,
    /// summary) in the table beside its length and SHA-256; 0 keeps none.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "rows")]
    pub max_text: usize,

    /// Write hive-style partitions under DIR (agent=…/date=…/part-….jsonl.zst or .parquet),
    /// one part per input file, instead of standard output. A part already written for the
    /// same file (same path, size and modification time) is kept as it is; a changed file's
    /// part replaces its older one.
    #[arg(long, value_name = "DIR", requires = "rows")]
    pub out_dir: Option<PathBuf>,
}

/// Print a shell completion script.
#[derive(Args, Debug)]
#[command(
    after_long_help = "EXAMPLES\n  cctool completions bash > ~/.local/share/bash-completion/completions/cctool\n  cctool completions zsh > ~/.zfunc/_cctool\n  cctool completions fish > ~/.config/fish/completions/cctool.fish"
)]
pub struct CompletionsArgs {
    /// The shell to generate for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// How Claude Code would be configured when it resumes: by default the user's own settings
/// files and environment, the local time zone and now; each part can be given instead.
#[derive(Args, Debug, Clone, Default)]
pub struct ResumeArgs {
    /// Claude Code: the time of the resume (default now): an RFC 3339 time
    /// (2027-01-22T09:00:00Z), a local date and time (2027-01-22T09:00) or a date (local noon).
    /// Which model a resume uses changes with the date, at local midnight (TZ is honoured).
    #[arg(long, value_name = "DATETIME", help_heading = "Resume configuration (Claude Code)")]
    pub as_of: Option<String>,

    /// The model the resume runs with. Claude Code: as `claude --model MODEL` (the session's
    /// own model is then not restored). Codex: as `codex -m MODEL` (default: the rollout's last
    /// turn_context model); it decides how much of a tool output is kept.
    #[arg(long, value_name = "MODEL", help_heading = "Resume configuration")]
    pub model: Option<String>,

    /// Claude Code: read this settings file (its model, availableModels and env) instead of
    /// the user's, the project's, the local and the managed settings files.
    #[arg(long, value_name = "FILE", help_heading = "Resume configuration (Claude Code)")]
    pub settings: Option<PathBuf>,

    /// Claude Code: the API base URL, as ANTHROPIC_BASE_URL. Behind a URL that is not
    /// api.anthropic.com the client drops the thinking of other models.
    #[arg(long, value_name = "URL", help_heading = "Resume configuration (Claude Code)")]
    pub base_url: Option<String>,

    /// Claude Code: which thinking blocks of other models the request keeps (default: as the
    /// client decides from the base URL and CLAUDE_CODE_RUSTLING_PIXEL; a server flag can
    /// change it).
    #[arg(
        long,
        value_enum,
        value_name = "POLICY",
        help_heading = "Resume configuration (Claude Code)"
    )]
    pub thinking_policy: Option<ThinkingPolicy>,
}

impl ResumeArgs {
    pub fn overrides(&self) -> crate::agents::claude_code::config::Overrides {
        crate::agents::claude_code::config::Overrides {
            as_of: self.as_of.clone(),
            model: self.model.clone(),
            settings: self.settings.clone(),
            base_url: self.base_url.clone(),
            thinking_policy: self.thinking_policy,
        }
    }

    /// Whether a part that only a Claude Code resume has was given.
    pub fn any_claude_only(&self) -> bool {
        self.as_of.is_some() || self.settings.is_some() || self.base_url.is_some() || self.thinking_policy.is_some()
    }

    /// Whether any part was given.
    pub fn any(&self) -> bool {
        self.as_of.is_some()
            || self.model.is_some()
            || self.settings.is_some()
            || self.base_url.is_some()
            || self.thinking_policy.is_some()
    }
}

// --- backup, restore, hooks (docs/backup.md) ---

/// Back up both agents' session stores into an incremental, deduplicating archive.
#[derive(Args, Debug)]
#[command(
    long_about = "Back up the Claude Code and Codex stores (Claude Code transcripts with their \
subagent transcripts and history.jsonl; Codex sessions, archived_sessions and \
session_index.jsonl) into an archive folder: zstd-compressed chunks named by their SHA-256, \
and one snapshot manifest per run, written last and atomically, so an interrupted run leaves \
the last complete snapshot usable. A session file that grew costs about its new bytes; a run \
with nothing new writes nothing and says so. A last line still being written (no newline yet) \
is taken by the next run, unless the file has not changed for a minute. The stores are found \
as for every command (CLAUDE_CONFIG_DIR, CODEX_HOME, else ~/.claude, ~/.config/claude, \
~/.codex). Safe to run from cron or a hook while agents write.",
    after_long_help = "OUTPUT\n\
One line on stderr (with --json a {\"kind\":\"backup\",\"archive\",\"snapshot\",\"files\",\
\"new_files\",\"changed_files\",\"unchanged_files\",\"gone_files\",\"partial_lines\",\"new_bytes\",\
\"written_bytes\",\"problems\"} record on stdout; snapshot is null when nothing was new). With \
--verify, one line per damaged chunk or stored file, then a {\"kind\":\"verify\",\"archive\",\
\"chunks\",\"damaged\",\"problems\"} record; exit status 1 on damage.\n\n\
EXAMPLES\n  \
cctool backup\n  \
cctool backup --to /mnt/usb/cctool-archive\n  \
cctool backup --verify\n  \
crontab: 0 * * * * cctool -q backup"
)]
pub struct BackupArgs {
    /// The archive folder (default: $XDG_DATA_HOME/cctool/backup, else
    /// ~/.local/share/cctool/backup).
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,

    /// Check every stored chunk and file of the archive instead of backing up; exit status 1
    /// names what is damaged.
    #[arg(long)]
    pub verify: bool,
}

/// List what a backup archive holds and restore sessions from it, byte for byte.
#[derive(Args, Debug)]
#[command(
    long_about = "Without a session: list the sessions of the archive (agent, session id, \
project, title, first and last activity, and whether the original is still there), the \
newest copy of each. With SESSION ids or --deleted: write those sessions (with their subagent \
transcripts) back where they were, or under --to DIR (DIR/claude/projects/…, \
DIR/codex/sessions/…), byte for byte, each chunk checked, atomically; an existing file is \
replaced only with --force. --from-history prints what Claude Code's history.jsonl still \
holds of sessions whose transcripts are gone: their prompts only, marked partial.",
    after_long_help = "OUTPUT\n\
The list is a table on stdout (with --json one {\"kind\":\"archived_session\",\"agent\",\
\"session_id\",\"project\",\"title\",\"first_timestamp\",\"last_timestamp\",\"path\",\"bytes\",\
\"subagents\",\"exists\",\"same\",\"snapshot\"} record per session). A restore names each file \
written on stderr (with --json {\"kind\":\"restored\",\"session_id\",\"from\",\"to\",\"bytes\"}). \
--from-history gives {\"kind\":\"history_session\",\"partial\":true,\"session_id\",\"project\",\
\"first_timestamp\",\"last_timestamp\",\"history_file\",\"prompts\":[{\"timestamp\",\"text\"}]} \
records. Exit status 1 when a session asked for is not in the archive or a file was not \
restored.\n\n\
EXAMPLES\n  \
cctool restore\n  \
cctool restore --json | jq -r 'select(.exists | not) | .session_id'\n  \
cctool restore --deleted\n  \
cctool restore 0f6c2a9e-… --to /tmp/restored\n  \
cctool restore --from-history --json"
)]
pub struct RestoreArgs {
    /// Session ids (or a part of the file name) to restore.
    #[arg(value_name = "SESSION")]
    pub sessions: Vec<String>,

    /// The archive folder (default as for `backup`).
    #[arg(long, value_name = "ARCHIVE")]
    pub from: Option<PathBuf>,

    /// Restore every session whose original is gone.
    #[arg(long, conflicts_with = "from_history")]
    pub deleted: bool,

    /// Write under this folder instead of the agents' stores.
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,

    /// Replace files that exist.
    #[arg(long)]
    pub force: bool,

    /// Print what history.jsonl still holds of Claude Code sessions whose transcripts are
    /// gone (their prompts only).
    #[arg(long)]
    pub from_history: bool,
}

/// Install, remove or run cctool's compaction hooks for Claude Code and Codex.
#[derive(Args, Debug)]
#[command(
    long_about = "cctool's hooks keep what a compaction would otherwise lose. On PreCompact \
the transcript is backed up into the archive; on PostCompact the summary is archived with \
the session id, the trigger and the token count before the compaction, in \
ARCHIVE/summaries/AGENT/SESSION.jsonl (extract-summary reads these files). `install` adds the \
hooks to the agent's settings (Claude Code: settings.json \"hooks\"; Codex: config.toml \
[[hooks.PreCompact]] and [[hooks.PostCompact]]), editing with a real parser, keeping \
everything else, after a backup of the file; installing twice adds nothing. `uninstall` \
removes exactly what install added. `run` is what the agent calls: it reads the hook's JSON \
on stdin, prints nothing, logs errors to ARCHIVE/hooks.log and always exits 0."
)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Subcommand, Debug)]
pub enum HooksAction {
    /// Add cctool's PreCompact and PostCompact hooks to the agent's settings.
    Install(HooksInstallArgs),
    /// Remove the hooks `install` added, and nothing else.
    Uninstall(HooksInstallArgs),
    /// Handle one hook call (the agent runs this; JSON on stdin).
    Run(HooksRunArgs),
}

#[derive(Args, Debug)]
pub struct HooksInstallArgs {
    /// The agent whose settings to edit.
    #[arg(value_enum)]
    pub agent: crate::hooks::Agent,

    /// The user's settings (CLAUDE_CONFIG_DIR or ~/.claude; CODEX_HOME or ~/.codex) or the
    /// project's (.claude/settings.json, .codex/config.toml in the current folder).
    #[arg(long, value_enum, default_value_t = crate::hooks::install::Scope::User)]
    pub scope: crate::hooks::install::Scope,

    /// The archive the hooks write to (default as for `backup`).
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct HooksRunArgs {
    /// The agent calling.
    #[arg(value_enum)]
    pub agent: crate::hooks::Agent,

    /// The archive to write to (default as for `backup`).
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,
}

// ---- export (docs/export.md) ----

/// What `cctool export` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// A Markdown document: the conversation, tool calls and results in fences.
    #[default]
    Markdown,
    /// One self-contained HTML page: table of contents, search, collapsible tool calls.
    Html,
    /// The records of the chain (or, with --full, the whole history) as JSON Lines.
    Jsonl,
    /// The whole file in its own format (Claude Code, Codex, cctool), still resumable.
    Native,
}

/// Export sessions as Markdown, one HTML page, JSON Lines or their own format, with secrets redacted.
#[derive(Args, Debug)]
#[command(
    long_about = "Export sessions to share them: as Markdown, as one self-contained HTML page, as the \
JSON Lines of the chain, or as the file in its own format. Markdown and HTML show the conversation a \
resume loads (--full: the whole history, each compaction marked with its summary), in local time, with \
a Claude Code session's subagent transcripts after it.\n\n\
With --share (or --redact), secrets and personal data are replaced by placeholders such as \
[REDACTED:github-token#3]; the same secret gets the same placeholder in every file of the export. \
The rules are described in docs/export.md; more come from --redact-rule and from the rules file \
($XDG_CONFIG_HOME/cctool/redact-rules, else ~/.config/cctool/redact-rules; one NAME=REGEX per line). \
The report (stderr, or a --json record) counts matches per rule and never shows them.",
    after_long_help = "OUTPUT\n  \
One input: stdout, or -o FILE. Several inputs: -o DIR (created if missing), one file per input and \
an index page (index.html or index.md). Outputs are written atomically and never replace a file \
(an input above all) unless --force.\n\n\
JSON RECORDS (--json)\n  \
{\"kind\":\"export\",\"file\",\"output\",\"format\",\"messages\"} per input, then \
{\"kind\":\"redaction\",\"rules\":[{\"rule\",\"count\",\"distinct\"}],\"total\"} when redacting.\n\n\
EXIT STATUS\n  0 every input exported; 1 some inputs could not be read (the others were written); 2 bad usage."
)]
pub struct ExportArgs {
    /// Sessions to export (files, or folders searched for sessions; - for standard input).
    #[arg(required_unless_present = "files_from", value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub list: FilesFromArgs,

    /// What to write.
    #[arg(long, value_enum, default_value_t = ExportFormat::Markdown)]
    pub format: ExportFormat,

    /// Where to write: a file for one input, a folder for several (default: stdout for one).
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// The whole history, each compaction marked with its summary, instead of what a resume
    /// loads (markdown, html and jsonl).
    #[arg(long)]
    pub full: bool,

    /// Prepare the export for other people: redaction is on unless --no-redact.
    #[arg(long)]
    pub share: bool,

    /// Replace secrets and personal data with placeholders.
    #[arg(long, overrides_with = "no_redact")]
    pub redact: bool,

    /// Do not redact, even with --share.
    #[arg(long, overrides_with = "redact")]
    pub no_redact: bool,

    /// One more redaction rule, NAME=REGEX or REGEX (placeholder [REDACTED:NAME#n]; default
    /// name "custom"). Repeatable.
    #[arg(long = "redact-rule", value_name = "[NAME=]REGEX")]
    pub redact_rules: Vec<String>,

    /// Read more rules from this file instead of the default rules file.
    #[arg(long, value_name = "FILE")]
    pub redact_config: Option<PathBuf>,

    /// Keep images when redacting (by default each becomes a placeholder: a screenshot can
    /// show what no rule reads).
    #[arg(long)]
    pub keep_images: bool,

    /// Leave out the subagent transcripts of Claude Code sessions.
    #[arg(long)]
    pub no_subagents: bool,

    /// Replace existing outputs.
    #[arg(long)]
    pub force: bool,
}

/// Take duplicated and unneeded payloads (images, documents) out of a session, every word kept.
#[derive(Args, Debug)]
#[command(
    long_about = "Make a Claude Code transcript or a Codex rollout smaller without losing anything a \
resume needs (docs/slim.md). A payload is a base64 image or document stored in the file. Claude Code \
keeps a read or pasted image twice per line (in the message and again in toolUseResult, for its own \
display); Codex copies every image again into each compaction's replacement_history, of which a \
resume replays only the last. By default each payload that a resume does not send and that is kept \
elsewhere in the file becomes a short reference to that copy; payloads a resume sends are never \
touched, so the request after a resume is the same as before. --images outside-window and \
--max-payload also take out payloads a resume does not send and that have no other copy: each is \
written once to the --extract folder, named by its sha256, and replaced by a text the model can \
read ([image/png 1.3 MB, sha256:…, saved as ….png]). --images all (and --max-payload, for the \
larger ones) also replaces the images a resume sends, each by a text block with that text: what a \
Claude Code session whose request is over the API's 32 MB limit needs (doctor: request-too-large). \
--restore DIR puts every payload back: the original file, byte for byte.\n\n\
The file is read twice, as a stream, keeping only the hashes of the payloads seen. With -o the \
result goes to OUT; with --in-place the file is replaced safely, as migrate does it: a backup beside \
it (FILE.slim.bak, or FILE.restore.bak), a temporary file, fsync, rename; a file modified in the \
last 60 s or read-only is refused unless --force.",
    after_long_help = "JSON RECORDS\n  {\"kind\":\"slim\",\"file\",\"bytes_before\",\"bytes_after\",\"payloads\",\
\"payload_bytes\",\"deduplicated\",\"replaced\",\"extracted\",\"kept_sent\",\"restored\",\"dry_run\",\
\"output\",\"backup\",\"error\"} per file: payloads is the number of distinct payloads, payload_bytes \
their base64 bytes counting every copy, deduplicated the copies replaced by a reference, replaced \
those replaced by a placeholder naming an extracted file, extracted the files written, kept_sent the \
copies kept because a resume sends them, restored (with --restore) the payloads put back.\n\n\
EXIT STATUS\n  0 done; 1 with --dry-run when something would change; 2 when a file failed (the \
others are still processed).\n\n\
EXAMPLES\n  cctool slim --dry-run ~/.codex/sessions/2026/11/30/rollout-….jsonl\n  \
cctool slim --in-place SESSION.jsonl\n  \
cctool slim --images outside-window --extract ~/slim-payloads SESSION.jsonl -o slim.jsonl\n  \
cctool slim --restore ~/slim-payloads slim.jsonl -o SESSION.jsonl"
)]
pub struct SlimArgs {
    /// Claude Code transcripts or Codex rollouts.
    #[arg(required = true, value_name = "FILE")]
    pub paths: Vec<PathBuf>,

    /// Write the result to OUT (a file for one input, a folder for several).
    #[arg(short = 'o', long, value_name = "OUT", conflicts_with = "in_place")]
    pub output: Option<PathBuf>,

    /// Replace each file, keeping a backup beside it.
    #[arg(long)]
    pub in_place: bool,

    /// Report what would be saved and write nothing; exit 1 when anything would change.
    #[arg(long)]
    pub dry_run: bool,

    /// Which payloads go out of the file (with --extract): none (only duplicates become
    /// references), those a resume does not load, or all (those it sends become text blocks).
    #[arg(long, value_enum, default_value_t = crate::slim::Images::None, value_name = "WHICH")]
    pub images: crate::slim::Images,

    /// Also take out payloads larger than SIZE (decoded; 500K, 2M, 1MiB…), those a resume
    /// sends too (with --extract).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_payload: Option<u64>,

    /// Write each payload taken out to DIR once, named by its sha256.
    #[arg(long, value_name = "DIR", conflicts_with = "restore")]
    pub extract: Option<PathBuf>,

    /// Put back the payloads of a slimmed file, from the file itself and from DIR (the folder
    /// of --extract).
    #[arg(long, value_name = "DIR")]
    pub restore: Option<PathBuf>,

    /// Rewrite files modified in the last 60 s or read-only, and replace outputs that exist.
    #[arg(long)]
    pub force: bool,
}

/// A size: bytes, or with a unit K, M, G (powers of 1000; KiB, MiB, GiB powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s}: not a size (500K, 2M, 1MiB, 1048576)"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "ki" | "kib" => 1024.0,
        "mi" | "mib" => 1024.0 * 1024.0,
        "gi" | "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("{s}: unknown unit (use K, M, G, KiB, MiB or GiB)")),
    };
    Ok((n * mult) as u64)
}
/// The format `convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConvertTarget {
    /// A Claude Code transcript.
    ClaudeCode,
    /// A Codex rollout.
    Codex,
    /// A cctool v5 session (the import of `migrate`).
    Cctool,
}

/// Continue a session in the other agent: a Claude Code transcript as a Codex rollout, or back.
#[derive(Args, Debug)]
#[command(
    long_about = "Convert a session into another agent's format, so it can be resumed there: a \
Claude Code transcript into a Codex rollout, a Codex rollout into a Claude Code transcript (or \
either into a cctool v5 session, as migrate imports it).\n\n\
What is carried is the conversation a resume of FILE loads: from its last compaction, the summary \
first; --full carries the whole history, each compaction written as the target's own. User and \
assistant text, images, and tool calls with their results are carried as such; tools with an \
equivalent are mapped (Bash and Read to exec_command, Write, Edit and MultiEdit to apply_patch, and \
back), the others keep their name. Reasoning is bound to the model that wrote it: it is dropped and \
counted (--reasoning-as-text carries its visible text as marked text). Records with no equivalent \
(hooks, progress, snapshots, token counts, Codex's context messages) are left out and counted.\n\n\
Every id is derived from the source session, so converting again gives the same file. When OUT \
holds an earlier conversion of the same session, only what the source gained since is appended, \
and a run with nothing new writes nothing. Any other existing OUT is replaced only with --force. \
Writes are atomic. With --into-store the session goes where the target agent finds it, and the \
command that resumes it is printed on stdout; a Claude Code transcript Codex's own importer already imported \
(its ledger in $CODEX_HOME) is reported instead of converted again. The table of tools and what each agent requires of a converted file: \
docs/convert.md.",
    after_long_help = "JSON RECORD (--json)\n  \
{\"kind\":\"conversion\",\"file\",\"from\",\"to\",\"output\",\"session_id\",\"full\",\"written\",\
\"lines_written\",\"carried\":{\"user_texts\",\"assistant_texts\",\"tool_calls\",\"tool_results\",\
\"images\",\"compactions\",\"reasoning_as_text\"},\"mapped\":{MAPPING: N},\"dropped\":{KIND: N},\
\"tokens\",\"closed\",\"resume\",\"imported_by_codex\",\"registered\",\"error\"}; written is new, appended, up-to-date, \
replaced or imported-by-codex (nothing written: imported_by_codex names Codex's thread); registered (--into-store \
to Codex) is added, updated, unchanged or no-database: what was done in Codex's thread index; carried, mapped, dropped, \
tokens and closed (calls the source left unanswered, closed with an aborted result) are null for \
--to cctool.\n\n\
EXAMPLES\n  \
cctool convert --to codex -o rollout-converted.jsonl ~/.claude/projects/-home-me-app/SESSION.jsonl\n  \
cctool convert --to claude-code --model claude-opus-4-6 -o SESSION.jsonl rollout-….jsonl\n  \
cctool convert --to codex --full --json -o out.jsonl SESSION.jsonl | jq .dropped\n  \
cctool convert --to codex --into-store ~/.claude/projects/-home-me-app/SESSION.jsonl\n\n\
EXIT STATUS\n  0 converted (or already up to date); 2 unusable input, an OUT that is not an earlier \
conversion of FILE, or a write that failed."
)]
pub struct ConvertArgs {
    /// The session to convert (- for standard input).
    pub file: PathBuf,

    /// The format to write.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub to: ConvertTarget,

    /// Carry the whole history, each compaction written as the target's own compaction.
    #[arg(long)]
    pub full: bool,

    /// The model the target resumes with (default: the target's own choice).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,

    /// Carry visible reasoning as marked assistant text instead of dropping it.
    #[arg(long)]
    pub reasoning_as_text: bool,

    /// Where to write (default, and -: standard output).
    #[arg(short = 'o', long, value_name = "OUT", conflicts_with = "into_store")]
    pub output: Option<PathBuf>,

    /// Write where the target agent looks for sessions ($CLAUDE_CONFIG_DIR/projects/<folder of
    /// the working directory>/<id>.jsonl; $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl)
    /// and print the command that resumes it.
    #[arg(long)]
    pub into_store: bool,

    /// Replace an OUT that is not an earlier conversion of FILE, and convert a transcript
    /// Codex's own importer already imported.
    #[arg(long)]
    pub force: bool,
}
