//! `backup`, `restore` and `hooks` (docs/backup.md).

use super::*;

// --- backup, restore, hooks (docs/backup.md) ---

/// Back up the agents' session stores into an incremental, deduplicating archive.
#[derive(Args, Debug)]
#[command(
    long_about = "Back up the agents' stores (Claude Code transcripts with their \
subagent transcripts and history.jsonl; Codex sessions, archived_sessions and \
session_index.jsonl; pi, Copilot CLI and Qwen Code sessions; Gemini CLI's chats; \
opencode's database, copied whole with SQLite's backup API, one consistent commit while \
the client writes) into an archive folder: zstd-compressed chunks named by their SHA-256, \
and one snapshot manifest per run, written last and atomically, so an interrupted run leaves \
the last complete snapshot usable. A session file that grew costs about its new bytes; a run \
with nothing new writes nothing and says so. A last line still being written (no newline yet) \
is taken by the next run, unless the file has not changed for a minute. The stores are found \
as for every command (docs/stores.md). Safe to run from cron or a hook while agents write.",
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
replaced only with --force. A session inside a database (opencode's, listed as DB#ID) is \
written only under --to DIR, as the agent's export (DIR/opencode/ID.json, for `opencode \
import`). --from-history prints what Claude Code's history.jsonl still \
holds of sessions whose transcripts are gone: their prompts only, marked partial.",
    after_long_help = "OUTPUT\n\
The list is a table on stdout (with --json one {\"kind\":\"archived_session\",\"agent\",\
\"session_id\",\"project\",\"title\",\"first_timestamp\",\"last_timestamp\",\"path\",\"bytes\",\
\"subagents\",\"exists\",\"same\",\"snapshot\"} record per session). A restore names each file \
written on stderr (with --json {\"kind\":\"restored\",\"session_id\",\"from\",\"to\",\"bytes\",\
\"replaced_kept_at\"}: where a different file that --force replaced is kept, else null). A \
manifest entry that leads outside its store (or --to DIR) is refused and named. \
--from-history gives {\"kind\":\"history_session\",\"partial\":true,\"session_id\",\"project\",\
\"first_timestamp\",\"last_timestamp\",\"history_file\",\"prompts\":[{\"timestamp\",\"text\"}]} \
records. Exit status 1 when a session asked for is not in the archive or a file was not \
restored.\n\n\
EXAMPLES\n  \
cctool restore\n  \
cctool restore --json | jq -r 'select(.exists | not) | .session_id'\n  \
cctool restore --deleted\n  \
cctool restore 0f6c2a9e-… --to /tmp/restored\n  \
cctool restore --from ~/old-laptop-backup --deleted --map /Users/me=/home/me\n  \
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

    /// Put back sessions an archive of another machine holds, every path under OLD (the
    /// stores they were in, the folders they ran in) mapped to the same path under NEW, as
    /// `relocate` maps them; a store that is not here is this machine's store of that agent.
    #[arg(long, value_name = "OLD=NEW", value_parser = parse_map, conflicts_with = "from_history")]
    pub map: Option<(String, String)>,

    /// Print what history.jsonl still holds of Claude Code sessions whose transcripts are
    /// gone (their prompts only).
    #[arg(long)]
    pub from_history: bool,
}

/// Merge the archives and stores of several machines into one archive, each session once.
#[derive(Args, Debug)]
#[command(
    long_about = "Merge the backup archives and the agents' stores of several machines (or of \
this one) into one archive, each session once (docs/backup.md, \"Merging machines\"). A SOURCE is \
an archive folder (its newest copy of every file) or a home folder whose agents' stores are read \
as cctool reads them under that home (~/.claude, ~/.codex, pi's, Copilot CLI's, opencode's). A \
session is known by its agent and id wherever its machine kept it: of its copies, one that holds \
the same bytes as another, or the start of another (backed up earlier, or on a machine that saw \
less of it), is left out for the longer one; copies that went apart (the session resumed on two \
machines) are all kept and each divergence is reported — the first under its own path, the others \
under PATH#diverged-<sha>, which restore --to DIR writes beside it. Files each machine keeps of its \
own (Claude Code's history.jsonl, Codex's name index, opencode's database) are kept per source. \
The archive merged into is read as a source too, so merging again adds only what is new, and \
nothing in it is ever overwritten: the merge is a new snapshot of the archive (kind merge), \
which restore (with --map OLD=NEW, for the paths of another machine) and every reading command \
read as any other.",
    after_long_help = "JSON RECORDS\n  {\"kind\":\"merge\",\"archive\",\"sources\",\"files\",\"kept\",\
\"identical\",\"prefixes\",\"diverged\":[{\"agent\",\"session\",\"copies\":[{\"source\",\"path\",\
\"kept_as\",\"bytes\"}]}],\"snapshot\",\"problems\"}: files read, kept, left out as identical or \
as the start of a longer copy; snapshot null when the archive already held everything.\n\n\
EXIT STATUS\n  0 merged (divergences are reported, not errors); 1 when a source could not be read \
whole; 2 on a usage error.\n\n\
EXAMPLES\n  cctool merge /mnt/laptop-backup /mnt/desktop-home --to ~/merged\n  \
cctool merge --json /mnt/laptop-backup | jq '.diverged[]'\n  \
cctool restore --from ~/merged --deleted --map /Users/me=/home/me"
)]
pub struct MergeArgs {
    /// Archive folders and home folders to merge.
    #[arg(value_name = "SOURCE", required = true)]
    pub sources: Vec<PathBuf>,

    /// The archive to merge into (default as for `backup`).
    #[arg(long, value_name = "ARCHIVE")]
    pub to: Option<PathBuf>,
}

/// Install, remove or run cctool's compaction hooks for Claude Code, Codex, Gemini CLI and
/// GitHub Copilot CLI.
#[derive(Args, Debug)]
#[command(
    long_about = "cctool's hooks keep what a compaction would otherwise lose. Claude Code and \
Codex: on PreCompact the transcript is backed up into the archive; on PostCompact the summary \
is archived with the session id, the trigger and the token count before the compaction, in \
ARCHIVE/summaries/AGENT/SESSION.jsonl (extract-summary reads these files). Gemini CLI: on \
PreCompress (before every request) and SessionEnd the chat is backed up, so a chat the client \
deletes later (a stub twin's full transcript, the retention sweep) can be restored. Copilot \
CLI: on PreCompact the session is backed up, and on SessionEnd once the client has exited (it \
writes the session's last events after the hook). `install` adds the hooks to the agent's \
settings (Claude Code, Gemini CLI and Copilot CLI: settings.json \"hooks\"; \
Codex: config.toml [[hooks.PreCompact]] and [[hooks.PostCompact]]), editing with a real \
parser, keeping everything else, after a backup of the file; installing twice adds nothing. \
`uninstall` removes exactly what install added (a Codex config.toml that install created is \
removed again). The hook runs the absolute path of the cctool that installed it, unless \
--command names another (`--command cctool`: the one on PATH). Codex runs a hook only once \
the user has trusted it: its TUI asks at the next start; Gemini CLI runs a project's hooks only \
in a trusted folder; Copilot CLI's hooks go in the user's settings only. With --json, install and uninstall print \
{\"kind\":\"hooks\",\"agent\",\"settings\",\"action\",\"events\",\"command\",\"backup\",\
\"trust_required\"}: action `added`, `removed`, `removed_file` or `unchanged`, command null on \
uninstall, backup the copy of the file as it was (else null). `run` is what the agent calls: it reads the hook's JSON \
on stdin, prints nothing, logs errors to ARCHIVE/hooks.log and always exits 0."
)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Subcommand, Debug)]
pub enum HooksAction {
    /// Add cctool's hooks (PreCompact and PostCompact; Gemini CLI: PreCompress and SessionEnd;
    /// Copilot CLI: PreCompact and SessionEnd) to the agent's settings.
    Install(HooksInstallArgs),
    /// Remove the hooks `install` added, and nothing else.
    Uninstall(HooksInstallArgs),
    /// Handle one hook call (the agent runs this; JSON on stdin).
    Run(HooksRunArgs),
}

#[derive(Args, Debug)]
pub struct HooksInstallArgs {
    /// The agent whose settings to edit.
    #[arg(value_parser = hooks_agents())]
    pub agent: String,

    /// The user's settings (CLAUDE_CONFIG_DIR or ~/.claude; CODEX_HOME or ~/.codex;
    /// GEMINI_CLI_HOME/.gemini or ~/.gemini; COPILOT_HOME or ~/.copilot) or the project's (.claude/settings.json,
    /// .codex/config.toml, .gemini/settings.json in the current folder).
    #[arg(long, value_enum, default_value_t = crate::model::hooks::Scope::User)]
    pub scope: crate::model::hooks::Scope,

    /// The archive the hooks write to (default as for `backup`).
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,

    /// The program the hook runs (install): `cctool` runs the one on PATH when the hook fires,
    /// so the hook survives an upgrade that moves the binary. Default: the absolute path of
    /// this cctool.
    #[arg(long, value_name = "PROGRAM")]
    pub command: Option<String>,

    /// The hooks also bring the search index up to date with the transcript (install:
    /// `hooks run --index`; see `cctool index`).
    #[arg(long)]
    pub index: bool,
}

#[derive(Args, Debug)]
pub struct HooksRunArgs {
    /// The agent calling.
    #[arg(value_parser = hooks_agents())]
    pub agent: String,

    /// The archive to write to (default as for `backup`).
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,

    /// Also bring the search index (`cctool index`) up to date with the transcript.
    #[arg(long)]
    pub index: bool,

    /// The process whose exit the backup waits for (the detached run a hook that fires
    /// before the agent's last writes starts; not for the agent's own call).
    #[arg(long, value_name = "PID", hide = true)]
    pub after: Option<u32>,
}

/// The values AGENT takes in `hooks`: the agents that have hooks, by their format's name.
fn hooks_agents() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::agents::registry().hooks_names())
}

/// `OLD=NEW`, both absolute paths.
fn parse_map(s: &str) -> Result<(String, String), String> {
    let (old, new) = s.split_once('=').ok_or("expected OLD=NEW")?;
    let absolute = |p: &str| std::path::Path::new(p).is_absolute() || p.as_bytes().get(1) == Some(&b':');
    if !absolute(old) || !absolute(new) {
        return Err("OLD and NEW must be absolute paths".into());
    }
    Ok((old.to_string(), new.to_string()))
}
