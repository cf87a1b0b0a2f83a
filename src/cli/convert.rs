//! `convert` (docs/convert.md).

use super::*;

/// The values `--to` takes: the agents `convert` writes, by the name each gives itself there.
fn convert_targets() -> impl clap::builder::TypedValueParser<Value = AgentId> {
    super::agent_values(
        crate::agents::convert_targets()
            .into_iter()
            .map(|(id, v)| (id, v.name, v.help)),
    )
}

/// Continue a session in another agent: a Claude Code transcript, a Codex rollout, a pi session, a
/// Copilot CLI session, an opencode session, a Gemini CLI chat or a Qwen Code session as any of
/// the others.
#[derive(Args, Debug)]
#[command(
    long_about = "Convert a session into another agent's format, so it can be resumed there: a \
Claude Code transcript, a Codex rollout, a pi session, a GitHub Copilot CLI session, an opencode \
session (DB#ID, or an `opencode export` document), a Gemini CLI chat or a Qwen Code session into \
any of the others (or into a cctool v5 \
session, as migrate imports it). A file already in the target's format is \
refused: converting it again would drop its reasoning.\n\n\
What is carried is the conversation a resume of FILE loads: from its last compaction, the summary \
first; --full carries the whole history, each compaction written as the target's own. User and \
assistant text, images, and tool calls with their results are carried as such; tools with an \
equivalent are mapped (Bash and Read to exec_command, Write, Edit and MultiEdit to apply_patch, and \
back; every other agent's shell, read, write, edit and search tools to each of theirs), the \
others keep their name. Reasoning is bound to the model that wrote it: it is dropped and \
counted (--reasoning-as-text carries its visible text as marked text). Records with no equivalent \
(hooks, progress, snapshots, token counts, Codex's context messages) are left out and counted.\n\n\
Every id is derived from the source session, so converting again gives the same file. When OUT \
holds an earlier conversion of the same session, only what the source gained since is appended, \
and a run with nothing new writes nothing. Any other existing OUT is replaced only with --force. \
Writes are atomic. With --into-store the session goes where the target agent finds it, and the \
command that resumes it is printed on stdout; a Claude Code transcript Codex's own importer already imported \
(its ledger in $CODEX_HOME) is reported instead of converted again. --to opencode writes the document \
`opencode import FILE` loads, one line; --into-store refuses it, as cctool never writes into \
opencode's database. The table of tools and what each agent requires of a converted file: \
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
cctool convert --to codex --into-store ~/.claude/projects/-home-me-app/SESSION.jsonl\n  \
cctool convert --to pi --into-store rollout-….jsonl\n  \
cctool convert --to opencode -o session.json SESSION.jsonl && opencode import session.json\n\n\
EXIT STATUS\n  0 converted (or already up to date); 2 unusable input, an OUT that is not an earlier \
conversion of FILE, or a write that failed."
)]
pub struct ConvertArgs {
    /// The session to convert (- for standard input; a session id, or a prefix only it has,
    /// names a session of your stores).
    pub file: PathBuf,

    /// The format to write.
    #[arg(long, value_parser = convert_targets(), value_name = "FORMAT")]
    pub to: AgentId,

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

    /// Write where the target agent looks for sessions (e.g. $CLAUDE_CONFIG_DIR/projects/<folder
    /// of the working directory>/<id>.jsonl; $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl;
    /// docs/stores.md) and print the command that resumes it (refused for opencode: write with -o, then
    /// `opencode import`).
    #[arg(long)]
    pub into_store: bool,

    /// Replace an OUT that is not an earlier conversion of FILE, and convert a transcript
    /// Codex's own importer already imported.
    #[arg(long)]
    pub force: bool,
}
