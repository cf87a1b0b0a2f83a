//! What an archive holds, and putting it back.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::io::archive::{Archive, FileEntry};

/// One session of the archive, as `restore` lists it. Every field keeps one JSON type.
#[derive(Serialize, Debug, Clone)]
pub struct Listed {
    pub agent: String,
    pub session_id: Option<String>,
    pub project: Option<String>,
    pub title: Option<String>,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
    /// Where the file was.
    pub path: String,
    pub bytes: u64,
    /// Subagent transcripts stored with it.
    pub subagents: usize,
    /// Whether the original is still there.
    pub exists: bool,
    /// Whether the original is there with exactly the bytes stored (false when it grew).
    pub same: bool,
    /// The snapshot that holds this copy.
    pub snapshot: String,
}

/// The session id a stored file belongs to: its recorded id, else its file name's uuid.
pub fn session_of(f: &FileEntry) -> Option<String> {
    if f.role == "subagent" {
        // <project>/<session>/subagents/agent-….jsonl
        let p = Path::new(&f.rel);
        let comps: Vec<_> = p
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let i = comps.iter().position(|c| c == "subagents")?;
        return i.checked_sub(1).map(|j| comps[j].clone());
    }
    let stem = Path::new(&f.path).file_stem().map(|s| s.to_string_lossy().into_owned());
    // A Claude Code session file is named by its session id; resume finds it by that name.
    if f.agent == "claude-code"
        && stem
            .as_deref()
            .is_some_and(crate::agents::claude_code::subagents::is_uuid)
    {
        return stem;
    }
    f.session.as_ref().and_then(|s| s.session_id.clone()).or_else(|| {
        Path::new(&f.path)
            .file_stem()
            .map(|s| s.to_string_lossy().trim_end_matches(".jsonl").to_string())
    })
}

/// Whether `path` holds exactly the bytes of the stored copy `f`.
pub fn same_bytes(f: &FileEntry, path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == f.size)
        && crate::io::archive::hash_file(path).is_ok_and(|(_, sha)| sha == f.sha256)
}

/// The sessions of the archive, newest copy of each, sorted by last activity then path.
pub fn list(files: &[(FileEntry, String)]) -> Vec<Listed> {
    let mut subagents: std::collections::HashMap<String, usize> = Default::default();
    for (f, _) in files.iter().filter(|(f, _)| f.role == "subagent") {
        if let Some(s) = session_of(f) {
            *subagents.entry(s).or_default() += 1;
        }
    }
    let mut out: Vec<Listed> = files
        .iter()
        .filter(|(f, _)| f.role == "session")
        .map(|(f, snap)| {
            let meta = f.session.clone().unwrap_or_default();
            let id = session_of(f);
            let exists = Path::new(&f.path).is_file();
            Listed {
                agent: f.agent.clone(),
                subagents: id.as_ref().and_then(|i| subagents.get(i)).copied().unwrap_or(0),
                session_id: id,
                project: meta.project,
                title: meta.title,
                first_timestamp: meta.first_timestamp,
                last_timestamp: meta.last_timestamp,
                path: f.path.clone(),
                bytes: f.size,
                exists,
                same: exists && same_bytes(f, Path::new(&f.path)),
                snapshot: snap.clone(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.last_timestamp.cmp(&b.last_timestamp).then(a.path.cmp(&b.path)));
    out
}

/// Where a stored file goes: its original place, or under `to` by its path in the store.
pub fn target(f: &FileEntry, to: Option<&Path>) -> PathBuf {
    match to {
        Some(dir) => {
            let top = if f.agent == "claude-code" { "claude" } else { "codex" };
            dir.join(top).join(&f.rel)
        }
        None => PathBuf::from(&f.path),
    }
}

/// The stored files of the sessions chosen: each session with its subagent transcripts.
pub fn select<'a>(files: &'a [(FileEntry, String)], ids: &[String], deleted: bool) -> Vec<&'a FileEntry> {
    let wanted: std::collections::HashSet<String> = files
        .iter()
        .filter(|(f, _)| f.role == "session")
        .filter_map(|(f, _)| {
            let id = session_of(f)?;
            let by_id = ids.iter().any(|w| {
                *w == id
                    || Path::new(&f.path)
                        .file_stem()
                        .is_some_and(|s| s.to_string_lossy().contains(w.as_str()))
            });
            let gone = deleted && !Path::new(&f.path).exists();
            (by_id || gone).then_some(id)
        })
        .collect();
    files
        .iter()
        .map(|(f, _)| f)
        .filter(|f| (f.role == "session" || f.role == "subagent") && session_of(f).is_some_and(|s| wanted.contains(&s)))
        .filter(|f| !deleted || f.role == "subagent" || !Path::new(&f.path).exists())
        .collect()
}

/// Why one stored file was not put back.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("{}: cannot create: {cause}", .dir.display())]
    CreateDir {
        dir: std::path::PathBuf,
        cause: std::io::Error,
    },
    /// Its stored copy is damaged: nothing was replaced.
    #[error(transparent)]
    Archive(crate::io::archive::ArchiveError),
    #[error("{}: exists; not overwritten (--force replaces it)", .0.display())]
    Exists(std::path::PathBuf),
    #[error("{}: cannot write: {cause}", .path.display())]
    Write {
        path: std::path::PathBuf,
        cause: std::io::Error,
    },
}

/// Writes one stored file at `to`, checked chunk by chunk and whole, atomically; an
/// existing file is replaced only with `force`.
pub fn restore_file(archive: &Archive, f: &FileEntry, to: &Path, force: bool) -> Result<(), RestoreError> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|cause| RestoreError::CreateDir {
            dir: dir.to_path_buf(),
            cause,
        })?;
    }
    let mut damage = None;
    let written = crate::io::atomic::write_new_file_by(to, force, |w| {
        archive.write_file_to(f, w).map_err(|e| {
            let message = e.to_string();
            damage = Some(e);
            std::io::Error::other(message)
        })
    });
    if let Some(d) = damage {
        return Err(RestoreError::Archive(d));
    }
    written.map_err(|cause| {
        if cause.kind() == std::io::ErrorKind::AlreadyExists {
            RestoreError::Exists(to.to_path_buf())
        } else {
            RestoreError::Write {
                path: to.to_path_buf(),
                cause,
            }
        }
    })
}
