//! What `doctor` finds in a Gemini CLI chat, each finding weighed by its effect on a resume:
//! the lines the client skips, a rewind to an id the history does not hold (the client then
//! drops the whole history), a history that ends on an unanswered tool response, and the stub
//! twin: another file of the same folder under the same short id that holds no conversation,
//! which makes Gemini CLI 0.61.0 delete the full transcript at its next listing or new session.

use std::path::{Path, PathBuf};

use crate::file::Chat;
use crate::lite::Reading;
use crate::replay::{Message, Replay};
use cctool_core::io::Source;
use cctool_core::model::diag::{Code, Diagnostic, Severity};

fn finding(file: &str, line: u64, code: Code, severity: Severity, message: String) -> Diagnostic {
    Diagnostic {
        kind: "finding",
        ..Diagnostic::new(file, Some(line), code, severity, message)
    }
}

/// What `doctor` finds in `src`.
pub fn doctor(src: &Source) -> cctool_core::error::Result<Vec<Diagnostic>> {
    let reading = crate::lite::read(src).map_err(|e| cctool_core::agents::view::cannot_read(src, e))?;
    Ok(doctor_of(src, &reading))
}

/// What `doctor` finds in a chat read.
pub(crate) fn doctor_of(src: &Source, reading: &Reading) -> Vec<Diagnostic> {
    match reading {
        Reading::Fast(c, r) => findings(src.name(), c, r),
        Reading::Full(c, r) => findings(src.name(), c, r),
    }
}

fn findings<V: Message>(file: &str, c: &Chat, r: &Replay<V>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = crate::answers::unread(file, c)
        .into_iter()
        .map(|d| Diagnostic { kind: "finding", ..d })
        .collect();
    if r.session_id().is_none() {
        out.push(finding(
            file,
            1,
            Code::Unreadable,
            Severity::Error,
            "no header names the session (sessionId and projectHash): Gemini CLI reads no chat in this file".into(),
        ));
        return out;
    }
    for &(line, found) in &r.rewinds {
        if !found {
            out.push(finding(
                file,
                line,
                Code::NoConversation,
                Severity::Info,
                "a $rewindTo names no message the history holds: the client drops the whole history there".into(),
            ));
        }
    }
    if !resumable(r) {
        out.push(finding(
            file,
            1,
            Code::NoConversation,
            Severity::Info,
            "no message a resume sends: Gemini CLI lists no such chat and will not resume it".into(),
        ));
    }
    out.extend(twins(file, resumable(r)));
    out.sort_by_key(|d| d.line);
    out
}

/// Whether the chat holds a message a resume sends (`hasResumableConversationContent`).
pub fn resumable<V: Message>(r: &Replay<V>) -> bool {
    r.loaded.iter().any(|&i| r.msgs[i].value.sends())
}

/// The short id of a chat file's name, `session-<time>-<short id>.json[l]`.
pub fn short_id(name: &str) -> Option<&str> {
    let stem = name
        .strip_suffix(".jsonl")
        .or_else(|| name.strip_suffix(".json"))?
        .strip_prefix("session-")?;
    let (_, id) = stem.rsplit_once('-')?;
    (id.len() == 8).then_some(id)
}

/// The other chat files beside `path` under the same short id.
fn siblings(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Vec::new();
    };
    let Some(id) = short_id(name) else { return Vec::new() };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_str()?.to_string();
            (n != name && short_id(&n) == Some(id)).then(|| e.path())
        })
        .collect();
    out.sort();
    out
}

/// Whether the chat file at `path` holds a conversation a resume sends.
fn holds_conversation(path: &Path) -> Option<bool> {
    let src = Source::open_path(path, cctool_core::io::source::MmapChoice::Never).ok()?;
    Some(match crate::lite::read(&src).ok()? {
        Reading::Fast(_, r) => resumable(&r),
        Reading::Full(_, r) => resumable(&r),
    })
}

/// The stub-twin finding, on the full transcript (an error: it is the file the client deletes)
/// or on the stub (a warning: removing it, after a backup, keeps the transcript).
fn twins(file: &str, mine: bool) -> Vec<Diagnostic> {
    let path = Path::new(file);
    let mut out = Vec::new();
    for other in siblings(path) {
        let Some(theirs) = holds_conversation(&other) else {
            continue;
        };
        let other_name = other
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if mine && !theirs {
            out.push(finding(
                file,
                1,
                Code::StubTwin,
                Severity::Error,
                format!(
                    "{other_name} shares this chat's short id and holds no conversation (a stub a resume in a later minute wrote): Gemini CLI's next --list-sessions or new session deletes this full transcript. Keep it: run `cctool backup` now, then delete the stub {other_name} (or move this file out of the folder) before running gemini again"
                ),
            ));
        } else if !mine && theirs {
            out.push(finding(
                file,
                1,
                Code::StubTwin,
                Severity::Warning,
                format!(
                    "a stub with no conversation beside the full transcript {other_name} of the same short id: Gemini CLI's next --list-sessions or new session deletes {other_name}. Run `cctool backup`, then delete this stub"
                ),
            ));
        }
    }
    out
}
