//! `relocate` (docs/stores.md, "Sessions follow the project").

use super::*;

/// Make the agents find a project's sessions after its folder moved.
#[derive(Args, Debug)]
#[command(
    long_about = "Make every agent find the sessions of a project folder that moved, was renamed, or \
was cloned into a second folder (docs/stores.md). The stores read are the ones cctool reads by \
default (CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR… say where). A session is relocated \
when its working directory is OLD or a folder under it: each record's working-directory field \
becomes the same path under NEW (the JSON string replaced, every other byte kept), and the session \
goes where its agent looks for the sessions of NEW. Claude Code: the transcript, its subagent \
transcripts and tool results move to the project folder of NEW (projects/<NEW as a folder name>/), \
the original kept as FILE.relocate.bak. Codex: each rollout's session_meta and turn_context are \
rewritten where the rollout is (a backup FILE.relocate.bak beside it), and the thread index's cwd \
column is changed in one transaction after a copy of the index is kept (state_5.sqlite.relocate.bak). \
pi: the header's cwd, and the file moves to the folder of NEW. Qwen Code: every record's cwd, and \
the file moves to the chats of NEW's project folder. Gemini CLI: projects.json and the \
project's .project_root name NEW (the chats stay; into NEW's project folder when NEW is one \
already). Copilot CLI: the context of \
session.start and session.resume, and workspace.yaml beside the events (each kept as \
FILE.relocate.bak). opencode: the sessions' directory, their messages' path and a project's \
worktree, in one transaction of its database after a copy is kept (opencode.db.relocate.bak); \
refused while opencode has the database open. Agents cctool cannot relocate yet \
are named, with the sessions that mention OLD.\n\n\
Paths inside the conversation (tool inputs and outputs, messages) are left as they were unless \
--rewrite-content: then each whole occurrence of OLD (OLD itself, or OLD/… — never OLD2 or \
/x/OLD) is replaced too, and each line changed is reported.\n\n\
Every write is atomic (a temporary file in the same folder, fsync, rename, fsync of the folder) and \
a session modified in the last 60 s, or held open for writing, is refused unless --force. Running it \
again changes nothing; a run that was killed is finished by running it again.",
    after_long_help = "JSON RECORDS\n  {\"kind\":\"relocation\",\"agent\",\"session\",\"old_cwd\",\"new_cwd\",\
\"action\",\"to\",\"cwd_fields\",\"content_rewrites\",\"content_lines\",\"subsessions\",\"side_files\",\"backup\",\"dry_run\",\
\"error\"} per session: action is moved, rewritten (in place), copied, unchanged (--copy: the copy \
made before is there), or unsupported (an agent cctool \
cannot relocate yet, a session that mentions OLD); to is where the session is now (moved or copied); \
cwd_fields the working-directory fields changed; content_rewrites the paths changed in the \
conversation (--rewrite-content) and content_lines the lines they are on; subsessions the subagent \
transcripts that went with it; side_files the files beside it that also name its directory \
(Copilot CLI's workspace.yaml), rewritten.\n\n\
EXIT STATUS\n  0 done (or nothing to do); 1 with --dry-run when something would change; 2 when a \
session failed (the others are still relocated).\n\n\
EXAMPLES\n  cctool relocate --dry-run ~/src/app ~/work/app\n  cctool relocate ~/src/app ~/work/app && mv ~/src/app ~/work/app\n  \
cctool relocate --copy ~/src/app ~/src/app-clone\n  cctool relocate --rewrite-content /home/me/app /Users/me/app"
)]
pub struct RelocateArgs {
    /// The folder as the sessions name it (it need not exist any more).
    #[arg(value_name = "OLD")]
    pub old: PathBuf,

    /// Where it is now, or will be.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,

    /// Say what would change, change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Also replace whole occurrences of OLD in the conversation (tool inputs and outputs,
    /// messages), reporting each line changed.
    #[arg(long)]
    pub rewrite_content: bool,

    /// Keep the originals: the sessions are copied to NEW (a clone of the project in a second
    /// folder), for the agents whose stores keep one folder per project.
    #[arg(long)]
    pub copy: bool,

    /// Rewrite sessions modified in the last 60 s or held open for writing, and replace a file
    /// already at the destination.
    #[arg(long)]
    pub force: bool,
}
