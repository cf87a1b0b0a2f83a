//! A backup archive named as a PATH: the read commands read the files it keeps as they read
//! a store (`docs/backup.md`, "Reading an archive").
//!
//! - `ARCHIVE` — every session and subagent transcript it holds, the newest copy of each
//!   (sessions deleted from the store included: reading them is what the archive is for);
//! - `ARCHIVE/<session id>` (or a part of a session file's name) — that session with its
//!   subagent transcripts;
//! - `ARCHIVE/claude/…`, `ARCHIVE/codex/…` (each agent's `Store::archive_folder`) — the files
//!   below that path of the stores, laid out as `restore --to DIR` lays them out, which is
//!   also how each file is named in output.
//!
//! Nothing is extracted: each file is put together from its chunks when it is opened, every
//! chunk checked against its hash.

use std::path::{Path, PathBuf};

use crate::io::Input;
use crate::io::archive::{Archive, ArchiveError, FileEntry, Stored};

/// Why a PATH below a backup archive names nothing a command can read.
#[derive(Debug, thiserror::Error)]
pub enum NameError {
    /// The archive's snapshots could not be listed.
    #[error("{}: cannot read the backup archive: {cause}", .archive.display())]
    Unreadable {
        /// The archive folder.
        archive: PathBuf,
        /// What listing it said.
        cause: std::io::Error,
    },
    /// The path below the archive matches no file or session it holds.
    #[error(
        "no file or session {rest:?} in the backup archive {} (`cctool restore --from {}` lists what it holds)",
        .archive.display(),
        .archive.display()
    )]
    NothingNamed {
        /// The archive folder.
        archive: PathBuf,
        /// The path below it, as given.
        rest: String,
    },
    /// A manifest of the archive names an agent this cctool does not know.
    #[error("{}: the backup archive holds files of an agent this cctool does not know ({agent:?})", .archive.display())]
    UnknownAgent {
        /// The archive folder.
        archive: PathBuf,
        /// The agent as the manifest names it.
        agent: String,
    },
    /// A single-file command was given a path that selects no session transcript (only
    /// subagent transcripts, say).
    #[error("{}: names no session file in the backup archive {}", .path.display(), .archive.display())]
    NoSession {
        /// The path as given.
        path: PathBuf,
        /// The archive folder.
        archive: PathBuf,
    },
    /// A single-file command was given a selection of several sessions; `shown` are the
    /// first few of them, as paths inside the archive.
    #[error("{}: names {count} sessions in the backup archive; name one, e.g. {}{}", .path.display(), examples(.archive, .shown), if *.count > .shown.len() { " (`cctool restore --from ARCHIVE` lists them all)" } else { "" })]
    ManySessions {
        /// The path as given.
        path: PathBuf,
        /// The archive folder.
        archive: PathBuf,
        /// How many sessions it selects.
        count: usize,
        /// The first few of them.
        shown: Vec<String>,
    },
}

fn examples(archive: &Path, shown: &[String]) -> String {
    shown
        .iter()
        .map(|s| format!("{}/{s}", archive.display()))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// What a PATH names in an archive.
pub struct Named {
    /// The archive folder.
    pub archive: PathBuf,
    /// The files, sessions first where `single` picks one.
    pub(crate) files: Vec<(FileEntry, Stored)>,
    /// True when the PATH is the archive itself (a folder walked), false for a selection
    /// (files named, whose problems are errors).
    pub whole: bool,
    /// A message for each snapshot that could not be read.
    pub unreadable: Vec<ArchiveError>,
}

impl Named {
    /// The inputs, in the order of the files' names.
    pub fn inputs(&self) -> Vec<Input> {
        self.files
            .iter()
            .map(|(_, s)| Input::Archived(Box::new(s.clone())))
            .collect()
    }

    /// The one session a single-file command reads: the selection must hold exactly one
    /// session file (its subagent transcripts are not sessions of their own).
    pub fn single(&self, path: &Path) -> Result<Input, NameError> {
        let sessions: Vec<&Stored> = self
            .files
            .iter()
            .filter(|(f, _)| f.role == "session")
            .map(|(_, s)| s)
            .collect();
        match sessions[..] {
            [one] => Ok(Input::Archived(Box::new(one.clone()))),
            [] => Err(NameError::NoSession {
                path: path.to_path_buf(),
                archive: self.archive.clone(),
            }),
            ref many => Err(NameError::ManySessions {
                path: path.to_path_buf(),
                archive: self.archive.clone(),
                count: many.len(),
                shown: many.iter().take(5).map(|s| s.rel.clone()).collect(),
            }),
        }
    }
}

/// What `path` names inside a backup archive: `None` when it is not the archive or a path
/// below one (it is read as any other PATH), an error when it is below an archive but names
/// nothing there.
pub fn resolve(path: &Path) -> Option<Result<Named, NameError>> {
    if path.is_dir() {
        return Archive::is_archive(path).then(|| named(path, None));
    }
    if path.symlink_metadata().is_ok() {
        return None;
    }
    // Below an archive: the nearest folder that exists is the archive itself.
    let archive = path
        .ancestors()
        .skip(1)
        .take_while(|a| !a.as_os_str().is_empty())
        .find(|a| a.is_dir())?;
    if !Archive::is_archive(archive) {
        return None;
    }
    let rest = path.strip_prefix(archive).ok()?;
    let rest: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(named(archive, Some(&rest.join("/"))))
}

fn named(archive: &Path, rest: Option<&str>) -> Result<Named, NameError> {
    let (latest, unreadable) = Archive::new(archive)
        .latest_files()
        .map_err(|cause| NameError::Unreadable {
            archive: archive.to_path_buf(),
            cause,
        })?;
    let sessions: Vec<(FileEntry, String)> = latest
        .into_iter()
        .filter(|(f, _)| f.role == "session" || f.role == "subagent")
        .collect();
    // A manifest naming an agent this cctool does not know is refused, not read as another
    // agent's.
    if let Some((f, _)) = sessions
        .iter()
        .find(|(f, _)| crate::agents::registry().store_by_name(&f.agent).is_none())
    {
        return Err(NameError::UnknownAgent {
            archive: archive.to_path_buf(),
            agent: f.agent.clone(),
        });
    }
    let chosen: Vec<&FileEntry> = match rest {
        None => sessions.iter().map(|(f, _)| f).collect(),
        Some(rest) if under_an_agent(rest) => {
            let under = format!("{rest}/");
            sessions
                .iter()
                .map(|(f, _)| f)
                .filter(|f| {
                    let rel = format!("{}/{}", top(f), f.rel);
                    rel == rest || rel.starts_with(&under)
                })
                .collect()
        }
        Some(rest) if !rest.contains('/') => super::restore::select(&sessions, &[rest.to_string()], false),
        Some(_) => Vec::new(),
    };
    if chosen.is_empty() {
        return Err(NameError::NothingNamed {
            archive: archive.to_path_buf(),
            rest: rest.unwrap_or("").to_string(),
        });
    }
    let mut files: Vec<(FileEntry, Stored)> = chosen
        .into_iter()
        .map(|f| (f.clone(), Stored::of(archive, top(f), f)))
        .collect();
    files.sort_by(|a, b| a.1.rel.cmp(&b.1.rel));
    Ok(Named {
        archive: archive.to_path_buf(),
        files,
        whole: rest.is_none(),
        unreadable,
    })
}

/// The folder of the archive that holds `f`'s agent's files (its agent is known: checked
/// before).
fn top(f: &FileEntry) -> &'static str {
    crate::agents::registry()
        .store_by_name(&f.agent)
        .map_or("", |s| s.archive_folder())
}

/// Whether `rest` is an agent's folder of the archive or a path below one.
fn under_an_agent(rest: &str) -> bool {
    crate::agents::registry().stores().any(|s| {
        let top = s.archive_folder();
        rest == top || rest.strip_prefix(top).is_some_and(|r| r.starts_with('/'))
    })
}
