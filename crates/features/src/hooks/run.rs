//! `cctool hooks run AGENT`: what the agent calls at a compaction.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agents::Agent;
use crate::backup::Archive;
use crate::backup::stores::Found;
use crate::model::hooks::HookAction;

/// One archived compaction summary: a line of `summaries/<agent>/<session>.jsonl`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct ArchivedSummary {
    pub(crate) kind: String,
    pub(crate) agent: String,
    pub(crate) session_id: Option<String>,
    /// `manual` or `auto`.
    pub(crate) trigger: Option<String>,
    pub(crate) archived_at: String,
    pub(crate) transcript_path: Option<String>,
    pub(crate) cwd: Option<String>,
    /// The tokens of the conversation before the compaction, as the agent counted them.
    pub(crate) pre_tokens: Option<i64>,
    /// The summary as the agent gave it.
    pub(crate) summary: Option<String>,
}

pub(crate) const SUMMARY_KIND: &str = "archived_summary";

/// Why a hook call did nothing; said in the hook log only (a hook must never stop its agent).
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// The agent's hook input, on standard input, did not parse.
    #[error("the hook input is not JSON: {0}")]
    NotJson(serde_json::Error),
    /// A file or folder of the archive, and what could not be done to it (`action` ends
    /// with `: ` where it says anything).
    #[error("{}: {action}{cause}", .path.display())]
    File {
        /// The file or folder.
        path: PathBuf,
        /// What was being done to it.
        action: &'static str,
        /// What doing it said.
        cause: std::io::Error,
    },
    /// A compaction summary could not be serialised for the archive.
    #[error("the summary record cannot be written as JSON: {0}")]
    Record(serde_json::Error),
    /// The backup ran and found a problem: its sentence as the backup's report holds it
    /// (`Report::problems`, text in its JSON record), so a String.
    #[error("{0}")]
    Backup(String),
}

fn file_error(path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> HookError {
    let path = path.to_path_buf();
    move |cause| HookError::File { path, action, cause }
}

/// Handles one hook call; an error is for the log only. `after`: the process whose exit a
/// [`HookAction::BackupAfterExit`] waits for (the detached `hooks run --after PID` this
/// function starts for it); `None` in the call the agent makes.
pub fn handle(
    agent: &'static dyn Agent,
    input: &[u8],
    archive: &Archive,
    after: Option<u32>,
) -> Result<String, HookError> {
    let v: Value = serde_json::from_slice(input).map_err(HookError::NotJson)?;
    let event = v.get("hook_event_name").and_then(Value::as_str).unwrap_or("");
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let hooks = agent.hooks();
    let env = |k: &str| std::env::var_os(k).filter(|x| !x.is_empty());
    let transcript = hooks.and_then(|h| h.transcript(&v, &env));
    match hooks.and_then(|h| h.action(event)) {
        Some(HookAction::Backup) => backup(agent, archive, event, transcript.as_deref()),
        Some(HookAction::BackupAfterExit) => match (after, &transcript) {
            (Some(pid), Some(path)) => {
                wait_for_exit(pid, path);
                backup(agent, archive, event, Some(path))
            }
            (None, Some(path)) => match detach(agent, input, archive) {
                Ok(pid) => Ok(format!(
                    "{event}: {} is backed up once the agent (process {pid}) has exited",
                    path.display()
                )),
                Err(e) => {
                    let done = backup(agent, archive, event, Some(path))?;
                    Ok(format!("{done} (at once: cannot wait for the agent's exit: {e})"))
                }
            },
            (_, None) => backup(agent, archive, event, None),
        },
        Some(HookAction::ArchiveSummary) => {
            let mut rec = ArchivedSummary {
                kind: SUMMARY_KIND.into(),
                agent: agent.about().format.name().into(),
                session_id: s("session_id"),
                trigger: s("trigger"),
                archived_at: crate::model::time::format_ms(crate::backup::run::now_ms()),
                transcript_path: transcript.as_ref().map(|p| p.display().to_string()),
                cwd: s("cwd"),
                pre_tokens: None,
                summary: s("compact_summary"),
            };
            if let Some(p) = &transcript
                && let Some(hooks) = hooks
            {
                let c = hooks.compaction(p);
                rec.pre_tokens = c.pre_tokens;
                if rec.summary.is_none() {
                    rec.summary = c.summary;
                }
            }
            let file = append_summary(archive, &rec)?;
            Ok(format!("summary archived in {}", file.display()))
        }
        None => Ok(format!("event {event:?}: nothing to do")),
    }
}

/// Backs the transcript `path` up into `archive` as a snapshot of its own (kind `hook`),
/// unless a backup is running (it takes the file).
fn backup(agent: &'static dyn Agent, archive: &Archive, event: &str, path: Option<&Path>) -> Result<String, HookError> {
    let Some(path) = path else {
        return Ok(format!("{event} without a transcript: nothing to back up"));
    };
    let found = found_for(agent, path);
    let Some(lock) = archive.try_lock().map_err(file_error(&archive.root, ""))? else {
        return Ok(format!(
            "{}: a backup is running; it takes the transcript",
            path.display()
        ));
    };
    let r = crate::backup::run::backup_locked(
        archive,
        &lock,
        &[found],
        "hook",
        crate::backup::run::SETTLE,
        &indicatif::ProgressBar::hidden(),
    )
    .map_err(file_error(path, "cannot back up: "))?;
    if let Some(p) = r.problems.first() {
        return Err(HookError::Backup(p.clone()));
    }
    Ok(format!("backed up {} ({} new bytes)", path.display(), r.new_bytes))
}

/// How long a transcript left alone means its agent is done with it, though the agent runs
/// on (one session ended, another begun in the same process).
const QUIET: std::time::Duration = std::time::Duration::from_secs(3);

/// The longest a detached hook waits before it backs up whatever the transcript holds.
const AFTER_EXIT_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// Returns once process `pid` has exited (where `/proc` tells), the file at `path` has been
/// left alone for [`QUIET`], or [`AFTER_EXIT_LIMIT`] has passed.
fn wait_for_exit(pid: u32, path: &Path) {
    let start = std::time::Instant::now();
    let state = || std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()));
    let proc_dir = Path::new("/proc");
    let mut last = state();
    let mut since = std::time::Instant::now();
    while start.elapsed() < AFTER_EXIT_LIMIT {
        if proc_dir.is_dir() && !proc_dir.join(pid.to_string()).exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        let now = state();
        if now != last {
            last = now;
            since = std::time::Instant::now();
        } else if since.elapsed() >= QUIET {
            return;
        }
    }
}

/// Starts this cctool again as `hooks run AGENT --to ARCHIVE --after PID` with the same
/// input, in a process group of its own so that the agent, which waits for its hook, is not
/// kept waiting and does not take it down when it ends its hook's group; returns the PID of
/// the process it waits for (this one's parent: the agent, which runs the command without a
/// shell of its own between).
#[cfg(unix)]
fn detach(agent: &'static dyn Agent, input: &[u8], archive: &Archive) -> std::io::Result<u32> {
    use std::os::unix::process::CommandExt;
    let parent = std::os::unix::process::parent_id();
    let mut child = std::process::Command::new(std::env::current_exe()?)
        .args(["hooks", "run", agent.about().format.name(), "--to"])
        .arg(&archive.root)
        .arg("--after")
        .arg(parent.to_string())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input)?;
    }
    Ok(parent)
}

/// Elsewhere the backup is taken at once.
#[cfg(not(unix))]
fn detach(_: &'static dyn Agent, _: &[u8], _: &Archive) -> std::io::Result<u32> {
    Err(std::io::Error::other("not supported on this system"))
}

/// The file as a backup finds it: its agent folder is the parent of one of the agent's
/// session folders (`projects/`; `sessions/`, `archived_sessions/`), else its own folder.
fn found_for(agent: &'static dyn Agent, path: &Path) -> Found {
    let mark = agent.store().map_or(&[][..], |s| s.session_folders());
    let store = path
        .ancestors()
        .skip(1)
        .find(|a| a.file_name().is_some_and(|n| mark.iter().any(|m| n == *m)))
        .and_then(Path::parent)
        .or_else(|| path.parent())
        .unwrap_or(Path::new("/"))
        .to_path_buf();
    Found {
        agent: agent.about().format.name(),
        role: if path.components().any(|c| c.as_os_str() == "subagents") {
            "subagent"
        } else {
            "session"
        },
        rel: path.strip_prefix(&store).unwrap_or(path).to_path_buf(),
        path: path.to_path_buf(),
        store,
    }
}

/// A file name safe for any session id.
fn safe_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect()
}

/// Appends one record to the session's summaries file, in one write, fsynced.
fn append_summary(archive: &Archive, rec: &ArchivedSummary) -> Result<PathBuf, HookError> {
    let dir = archive.root.join("summaries").join(&rec.agent);
    std::fs::create_dir_all(&dir).map_err(file_error(&dir, "cannot create: "))?;
    let file = dir.join(format!(
        "{}.jsonl",
        safe_name(rec.session_id.as_deref().unwrap_or("unknown-session"))
    ));
    let mut line = serde_json::to_vec(rec).map_err(HookError::Record)?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .map_err(file_error(&file, "cannot open: "))?;
    f.write_all(&line)
        .and_then(|()| f.sync_all())
        .map_err(file_error(&file, "cannot write: "))?;
    Ok(file)
}

/// Appends a line to `<archive>/hooks.log`; a log that cannot be written is given up on
/// (the hook must still exit 0).
pub fn log(archive: &Path, agent: &str, line: &str) {
    let _ = std::fs::create_dir_all(archive);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(archive.join("hooks.log"))
    {
        let stamp = crate::model::time::format_ms(crate::backup::run::now_ms());
        let _ = writeln!(f, "{stamp} {agent} {}", line.replace('\n', " "));
    }
}

/// The archived summaries in a summaries file, or `None` when it is not one.
pub(crate) fn read_summaries(bytes: &[u8]) -> Option<Vec<ArchivedSummary>> {
    let mut out = Vec::new();
    for line in bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
    {
        let r: ArchivedSummary = serde_json::from_slice(line).ok()?;
        if r.kind != SUMMARY_KIND {
            return None;
        }
        out.push(r);
    }
    (!out.is_empty()).then_some(out)
}

/// The summaries of a file written by the PostCompact hook, as `extract-summary` records
/// (`format` is `archived`, `event` is `post_compact_hook`; the last one is the current one),
/// or `None` when `path` is not such a file.
pub fn summary_records(path: &Path) -> Option<Vec<crate::summary::SummaryRecord>> {
    if path.extension().is_none_or(|e| e != "jsonl") {
        return None;
    }
    // Every session named to extract-summary comes through here: its first bytes tell, so a
    // transcript is not read twice. Each archived line starts with its `kind`.
    let head = crate::io::paths::regular_file_head(path, 4096)?;
    memchr::memmem::find(&head, SUMMARY_KIND.as_bytes())?;
    let bytes = crate::io::paths::regular_file_head(path, u64::MAX)?;
    let list = read_summaries(&bytes)?;
    let n = list.len();
    Some(
        list.into_iter()
            .enumerate()
            .map(|(i, s)| crate::summary::SummaryRecord {
                kind: "summary",
                file: path.display().to_string(),
                format: "archived",
                session_id: s.session_id,
                index: i + 1,
                current: i + 1 == n,
                line: Some(i as u64 + 1),
                timestamp: Some(s.archived_at),
                trigger: s.trigger,
                pre_tokens: s.pre_tokens,
                summary: s.summary,
                event: "post_compact_hook",
                summary_source: Some(
                    crate::agents::registry()
                        .by_name(&s.agent)
                        .and_then(|a| a.hooks())
                        .map_or("hook", |h| h.summary_source()),
                ),
                ..Default::default()
            })
            .collect(),
    )
}
