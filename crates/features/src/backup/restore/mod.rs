//! What an archive holds, and putting it back.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::io::archive::{Archive, FileEntry, Held};

/// One session of the archive, as `restore` lists it. Every field keeps one JSON type.
#[derive(Serialize, Debug, Clone)]
pub struct Listed {
    /// The agent's name in the archive's manifest.
    pub agent: String,
    /// The session's id, as the agent recorded it.
    pub session_id: Option<String>,
    /// The last component of the folder it ran in, as `scan` shows it.
    pub project: Option<String>,
    /// Its title as `scan` gives it, recorded when it was backed up.
    pub title: Option<String>,
    pub(crate) first_timestamp: Option<String>,
    /// Its last record's timestamp, as written: the list is in this order.
    pub last_timestamp: Option<String>,
    /// Where the file was.
    pub(crate) path: String,
    pub(crate) bytes: u64,
    /// Subagent transcripts stored with it.
    pub(crate) subagents: usize,
    /// Whether the original is still there.
    pub exists: bool,
    /// Whether the original is there with exactly the bytes stored (false when it grew).
    pub same: bool,
    /// The snapshot that holds this copy.
    pub(crate) snapshot: String,
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
    // A session file its agent names by its session id is resumed by that name.
    if let Some(store) = crate::agents::registry()
        .store_by_name(&f.agent)
        .filter(|s| s.resumes_by_name())
        && stem.as_deref().is_some_and(|s| store.id_in_stem(s) == Some(s))
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
pub(crate) fn same_bytes(f: &FileEntry, path: &Path) -> bool {
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
    for (f, snap) in files.iter().filter(|(f, _)| !f.held.is_empty()) {
        let live = Live::of(f);
        out.extend(f.held.iter().map(|h| {
            let now = live.get(&h.id);
            Listed {
                agent: f.agent.clone(),
                session_id: Some(h.id.clone()),
                project: h.session.project.clone(),
                title: h.session.title.clone(),
                first_timestamp: h.session.first_timestamp.clone(),
                last_timestamp: h.session.last_timestamp.clone(),
                path: member_name(f, h),
                bytes: h.bytes,
                subagents: 0,
                exists: now.is_some(),
                same: now.is_some_and(|m| m.size == h.bytes && m.modified_ms == h.modified_ms),
                snapshot: snap.clone(),
            }
        }));
    }
    out.sort_by(|a, b| a.last_timestamp.cmp(&b.last_timestamp).then(a.path.cmp(&b.path)));
    out
}

/// `FILE#ID`, the name a session inside a database goes by ([`crate::io::member::Member`]).
pub fn member_name(f: &FileEntry, h: &Held) -> String {
    format!("{}{}{}", f.path, crate::io::member::SEPARATOR, h.id)
}

/// The sessions the database a stored copy was taken from holds now, by id; none when it is
/// gone or is no longer its agent's.
struct Live(std::collections::HashMap<String, crate::io::member::Member>);

impl Live {
    fn of(f: &FileEntry) -> Live {
        let members = crate::agents::registry()
            .by_name(&f.agent)
            .and_then(|a| a.container())
            // A database file, or a folder kept as one (opencode's per-file storage).
            .filter(|_| Path::new(&f.path).exists())
            .and_then(|c| c.members(Path::new(&f.path)));
        Live(
            members
                .map(|m| m.sessions.into_iter().map(|m| (m.id.clone(), m)).collect())
                .unwrap_or_default(),
        )
    }

    fn get(&self, id: &str) -> Option<&crate::io::member::Member> {
        self.0.get(id)
    }
}

/// The sessions inside stored databases that `ids` name (by id, or by a part of it), and
/// with `deleted` those the database no longer holds.
pub fn select_held<'a>(
    files: &'a [(FileEntry, String)],
    ids: &[String],
    deleted: bool,
) -> Vec<(&'a FileEntry, &'a Held)> {
    let mut out = Vec::new();
    for (f, _) in files.iter().filter(|(f, _)| !f.held.is_empty()) {
        let live = deleted.then(|| Live::of(f));
        for h in &f.held {
            let named = ids.iter().any(|w| names_id(w, &h.id));
            let gone = live.as_ref().is_some_and(|l| l.get(&h.id).is_none());
            if named || gone {
                out.push((f, h));
            }
        }
    }
    out
}

/// Where a session restored out of a stored database goes: `DIR/<agent's folder>/ID.json`,
/// as the document its agent imports. The id comes from an archive, which is untrusted: one
/// that is not a plain file name is refused.
pub fn held_target(f: &FileEntry, h: &Held, dir: &Path) -> Result<PathBuf, Escape> {
    let container = crate::agents::registry()
        .by_name(&f.agent)
        .and_then(|a| a.container())
        .ok_or_else(|| Escape::UnknownAgent(f.agent.clone()))?;
    let plain = !h.id.is_empty()
        && !h.id.starts_with('.')
        && h.id.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
    if !plain {
        return Err(Escape::Rel(h.id.clone()));
    }
    let path = dir.join(container.archive_folder()).join(format!("{}.json", h.id));
    no_link_out(dir, &path)?;
    Ok(path)
}

/// Writes the sessions `held` of the stored database `f` as their agent's own documents at
/// `to`, each paired with where it goes: the copy is put together once, in a file beside the
/// archive's chunks that is removed after, and each session read from it in one snapshot.
pub fn restore_held(
    archive: &Archive,
    f: &FileEntry,
    held: &[(&Held, PathBuf)],
    force: bool,
) -> Result<Vec<Result<Put, RestoreError>>, RestoreError> {
    let container = crate::agents::registry()
        .by_name(&f.agent)
        .and_then(|a| a.container())
        .ok_or_else(|| RestoreError::Outside {
            entry: f.path.clone(),
            why: Escape::UnknownAgent(f.agent.clone()),
        })?;
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |cause| RestoreError::Write { path, cause }
    };
    let mut copy = tempfile::Builder::new()
        .prefix(".database-")
        .suffix(".tmp")
        .tempfile_in(&archive.root)
        .map_err(write_err(&archive.root))?;
    archive
        .write_file_to(f, copy.as_file_mut())
        .map_err(RestoreError::Archive)?;
    Ok(held
        .iter()
        .map(|(h, to)| {
            let bytes = container.read(copy.path(), &h.id).map_err(|cause| RestoreError::Read {
                path: PathBuf::from(member_name(f, h)),
                cause,
            })?;
            put_bytes(to, &bytes, force)
        })
        .collect())
}

/// Writes `bytes` at `to` as [`restore_file`] writes a stored file: a file there with the same
/// bytes is left, a different one replaced only with `force` and kept beside it.
fn put_bytes(to: &Path, bytes: &[u8], force: bool) -> Result<Put, RestoreError> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|cause| RestoreError::CreateDir {
            dir: dir.to_path_buf(),
            cause,
        })?;
    }
    let write_err = |cause| write_error(to, cause);
    let write = |w: &mut crate::io::atomic::Output| std::io::Write::write_all(w, bytes);
    match std::fs::metadata(to) {
        Err(_) => crate::io::atomic::write_new_file_by(to, false, write)
            .map(|()| Put::New)
            .map_err(write_err),
        Ok(m) if m.is_file() => {
            let there = std::fs::read(to).map_err(|cause| RestoreError::Read {
                path: to.to_path_buf(),
                cause,
            })?;
            if there == bytes {
                return Ok(Put::Same);
            }
            if !force {
                return Err(RestoreError::Exists(to.to_path_buf()));
            }
            replace_forced(to, &m, write)
                .map(|r| Put::Replaced { backup: r.backup })
                .map_err(write_err)
        }
        Ok(_) => Err(RestoreError::Exists(to.to_path_buf())),
    }
}

/// Why a manifest entry is not put back where it says. An archive is untrusted input (it may
/// come from another machine, or be edited): every entry must name a file below the store it
/// belongs to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Escape {
    /// The entry's path below its store, which would not stay below it.
    #[error("its path below the store ({0:?}) is absolute, empty or climbs out with `..`")]
    Rel(String),
    /// A session is only ever a transcript file in the folder the agent keeps them in: an
    /// entry naming anything else (`settings.json`, `config.toml`) could plant settings.
    #[error("its path below the store ({rel:?}) is not a transcript in {folders}, where {agent} keeps sessions")]
    NotASession {
        /// The entry's path below its store.
        rel: String,
        /// The agent's name for people.
        agent: &'static str,
        /// The folders it keeps sessions in, as the message names them.
        folders: String,
    },
    /// The entry is of an agent this cctool does not know: where it goes cannot be told.
    #[error("its agent ({0:?}) is not one whose sessions this cctool restores")]
    UnknownAgent(String),
    /// The entry's two records of where it was disagree: which to trust cannot be told.
    #[error("its path ({path:?}) is not its store ({store:?}) joined with its path below it")]
    NotInStore {
        /// The entry's path.
        path: String,
        /// The entry's store.
        store: String,
    },
    /// The entry's store is none of those found here (of the agent named second): without
    /// `--to DIR` it would be written into a folder the user did not point cctool at.
    #[error(
        "its store ({0:?}) is not one of the {1} stores cctool finds here (CLAUDE_CONFIG_DIR, CODEX_HOME, the home \
         folder's); restore it with --to DIR, or point the variable at that store"
    )]
    UnknownStore(String, &'static str),
    /// A folder on the way below `--to DIR` is a symbolic link leading out of it: writing
    /// through it would put the file elsewhere.
    #[error("{} is a symbolic link that leads out of {}", .link.display(), .root.display())]
    Link {
        /// The link.
        link: PathBuf,
        /// The folder the file was to stay in.
        root: PathBuf,
    },
}

/// Each agent's store folders here (`~/.claude`, `~/.codex`, those the environment names),
/// whether or not they exist, by agent name: where `restore` without `--to` may write.
pub fn store_roots(stores: &crate::io::paths::Stores) -> Vec<(&'static str, PathBuf)> {
    let mut roots: Vec<(&'static str, PathBuf)> = stores
        .looked
        .iter()
        .filter_map(|d| {
            let (agent, _) = stores.agent_of(d)?;
            Some((agent.about().format.name(), d.parent()?.to_path_buf()))
        })
        .collect();
    roots.dedup();
    roots
}

/// Where a stored file goes: its original place, which must be below a store of its agent
/// among `roots`, or under `to` by its path in the store. Nothing an entry names may lead
/// elsewhere ([`Escape`]).
pub fn target(f: &FileEntry, to: Option<&Path>, roots: &[(&str, PathBuf)]) -> Result<PathBuf, Escape> {
    let rel = Path::new(&f.rel);
    if f.rel.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(Escape::Rel(f.rel.clone()));
    }
    let (agent, store) = crate::agents::registry()
        .by_name(&f.agent)
        .and_then(|a| Some((a.about().display_name, a.store()?)))
        .ok_or_else(|| Escape::UnknownAgent(f.agent.clone()))?;
    let folders = store.session_folders();
    let top = rel.components().next().map(|c| c.as_os_str());
    let kept = crate::io::paths::is_candidate(rel) || store.companion_of(rel).is_some();
    if !top.is_some_and(|t| folders.iter().any(|f| t == *f)) || !kept {
        return Err(Escape::NotASession {
            rel: f.rel.clone(),
            agent,
            folders: folders.iter().map(|f| format!("{f}/")).collect::<Vec<_>>().join(" or "),
        });
    }
    let Some(dir) = to else {
        let store = Path::new(&f.store);
        if !store.is_absolute() || Path::new(&f.path) != store.join(rel) {
            return Err(Escape::NotInStore {
                path: f.path.clone(),
                store: f.store.clone(),
            });
        }
        if !roots.iter().any(|(a, r)| *a == f.agent && same_folder(r, store)) {
            return Err(Escape::UnknownStore(f.store.clone(), agent));
        }
        // Links inside the user's own store are the user's layout (a dotfile manager's), and
        // are followed as the agent follows them.
        return Ok(store.join(rel));
    };
    let path = dir.join(store.archive_folder()).join(rel);
    no_link_out(dir, &path)?;
    Ok(path)
}

fn same_folder(a: &Path, b: &Path) -> bool {
    a == b || std::fs::canonicalize(a).is_ok_and(|x| std::fs::canonicalize(b).is_ok_and(|y| x == y))
}

/// Refuses a path below `root` one of whose existing folders is a symbolic link leading out of
/// `root`: writing through it would put the file elsewhere.
fn no_link_out(root: &Path, path: &Path) -> Result<(), Escape> {
    let Ok(real_root) = std::fs::canonicalize(root) else {
        // Nothing exists below a folder that does not exist yet.
        return Ok(());
    };
    let Ok(below) = path.strip_prefix(root) else {
        return Ok(());
    };
    let mut at = root.to_path_buf();
    for c in below.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                // A dangling link leads nowhere this check can follow: refused as well.
                if !std::fs::canonicalize(&at).is_ok_and(|leads| leads.starts_with(&real_root)) {
                    return Err(Escape::Link {
                        link: at,
                        root: root.to_path_buf(),
                    });
                }
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Whether the session named `want` on the command line is `id` (or the file stem that holds
/// it): any part of it, or its two ends as `scan` shortens an id (`a1b2c3d4…000a`,
/// `…qV2vNPG4N14`), in any case.
pub fn names_id(want: &str, id: &str) -> bool {
    let Some((start, end)) = want.split_once('…') else {
        return id.contains(want);
    };
    crate::model::store::id_has_ends(id, start, end)
}

/// The stored files of the sessions chosen: each session with its subagent transcripts and
/// the files its agent keeps beside it ([`crate::agents::Store::companion_of`]).
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
                        .is_some_and(|s| names_id(w, &s.to_string_lossy()))
            });
            let gone = deleted && !Path::new(&f.path).exists();
            (by_id || gone).then_some(id)
        })
        .collect();
    let companion = |f: &FileEntry| {
        (f.role == super::stores::COMPANION)
            .then(|| crate::agents::registry().store_by_name(&f.agent))
            .flatten()
            .and_then(|s| s.companion_of(Path::new(&f.rel)).map(str::to_string))
    };
    files
        .iter()
        .map(|(f, _)| f)
        .filter(|f| {
            let of = match f.role.as_str() {
                "session" | "subagent" => session_of(f),
                _ => companion(f),
            };
            of.is_some_and(|s| wanted.contains(&s))
        })
        // A deleted session's subagents and companions come back with it, whether or not
        // they are gone too: one already there is left as it is.
        .filter(|f| !deleted || f.role != "session" || !Path::new(&f.path).exists())
        .collect()
}

/// Where a copy `merge` found gone apart from another is put back: `to` itself for any other
/// file, else beside it as `FILE.diverged-<sha>`, a name its agent does not list, so both
/// copies are kept.
pub fn diverged_name(f: &FileEntry, to: PathBuf) -> PathBuf {
    match f.path.rsplit_once("#diverged-") {
        Some((_, tag)) => {
            let name = to.file_name().unwrap_or_default().to_string_lossy().into_owned();
            to.with_file_name(format!("{name}.diverged-{tag}"))
        }
        None => to,
    }
}

/// Why one stored file was not put back.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The folder the file goes in could not be made.
    #[error("{}: cannot create: {cause}", .dir.display())]
    CreateDir {
        /// The folder.
        dir: std::path::PathBuf,
        /// What creating it said.
        cause: std::io::Error,
    },
    /// Its stored copy is damaged: nothing was replaced.
    #[error(transparent)]
    Archive(crate::io::archive::ArchiveError),
    /// Something other than the stored copy is where it goes (a different file without
    /// `--force`, a folder, or a file that appeared while it was written): left as it is.
    #[error(
        "{}: exists and differs from the archived copy; not overwritten (--force replaces it, keeping it as \
         FILE.cctool-restore.bak)",
        .0.display()
    )]
    Exists(std::path::PathBuf),
    /// The manifest names a place outside the store (or `--to DIR`): nothing was written.
    #[error("{entry}: not restored: {why}; nothing written")]
    Outside {
        /// The entry's path as the manifest records it.
        entry: String,
        /// Why the place it names is refused.
        why: Escape,
    },
    /// The file already there could not be read to compare it with the stored copy.
    #[error("{}: cannot read: {cause}", .path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// What reading it said.
        cause: std::io::Error,
    },
    /// The file, or the copy kept of the one it replaces, could not be written.
    #[error("{}: cannot write: {cause}", .path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// What writing it said.
        cause: std::io::Error,
    },
}

/// How a file already at the place of a stored one relates to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Existing {
    /// Exactly the stored bytes.
    Same,
    /// The stored bytes and `extra` more: it grew since the backup, and holds everything the
    /// archive does.
    Holds { extra: u64 },
    /// Anything else: shorter (the archive has lines it lost) or different.
    Differs,
}

/// How the file at `path` relates to the stored copy `f`, read side by side once.
pub(crate) fn existing(f: &FileEntry, path: &Path) -> Result<Existing, RestoreError> {
    use std::io::Read;
    let unreadable = |cause| RestoreError::Read {
        path: path.to_path_buf(),
        cause,
    };
    let len = std::fs::metadata(path).map_err(unreadable)?.len();
    if len < f.size {
        return Ok(Existing::Differs);
    }
    // The file's first `f.size` bytes hashed: a match is the stored copy, whole.
    let mut file = std::fs::File::open(path).map_err(unreadable)?.take(f.size);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(unreadable)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    if crate::io::archive::hex(&hasher.finalize()) != f.sha256 {
        return Ok(Existing::Differs);
    }
    Ok(if len == f.size {
        Existing::Same
    } else {
        Existing::Holds { extra: len - f.size }
    })
}

/// What putting one stored file back did.
#[derive(Debug, PartialEq, Eq)]
pub enum Put {
    /// Written where nothing was.
    New,
    /// The file there already held exactly these bytes.
    Same,
    /// The file there holds the stored copy and `extra` bytes more: left as it is, since
    /// replacing it would only lose what was written after the backup.
    Kept {
        /// The bytes the file holds beyond the stored copy.
        extra: u64,
    },
    /// A different file was there (`--force`): replaced, its bytes kept at `backup`.
    Replaced {
        /// Where the replaced file's bytes are kept.
        backup: PathBuf,
    },
}

/// `to`, which restore was told to replace (`--force`), replaced by what `write` writes, its
/// old content kept beside it as `FILE.cctool-restore.bak`.
fn replace_forced<W>(to: &Path, m: &std::fs::Metadata, write: W) -> std::io::Result<crate::io::atomic::Replaced>
where
    W: FnOnce(&mut crate::io::atomic::Output) -> std::io::Result<()>,
{
    let how = crate::io::atomic::InPlace {
        tag: "cctool-restore",
        seen: crate::io::atomic::Seen {
            len: m.len(),
            modified: m.modified().ok(),
        },
        force: true,
    };
    crate::io::atomic::replace_with_backup_by(to, &how, write)
}

/// Writes one stored file at `to`, checked chunk by chunk and whole, atomically. A file
/// already there is never lost: one holding the stored bytes (and maybe more) is left as it
/// is; any other is replaced only with `force`, and then kept beside it as
/// `FILE.cctool-restore.bak`.
pub fn restore_file(archive: &Archive, f: &FileEntry, to: &Path, force: bool) -> Result<Put, RestoreError> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|cause| RestoreError::CreateDir {
            dir: dir.to_path_buf(),
            cause,
        })?;
    }
    let there = match std::fs::metadata(to) {
        Ok(m) if m.is_file() => Some(existing(f, to)?),
        Ok(_) => return Err(RestoreError::Exists(to.to_path_buf())),
        Err(_) => None,
    };
    match there {
        Some(Existing::Same) => return Ok(Put::Same),
        Some(Existing::Holds { extra }) => return Ok(Put::Kept { extra }),
        Some(Existing::Differs) if !force => return Err(RestoreError::Exists(to.to_path_buf())),
        _ => {}
    }
    // The archive's error travels inside the writer's io error, and is taken out below.
    let write = |w: &mut crate::io::atomic::Output| archive.write_file_to(f, w).map_err(std::io::Error::other);
    let written = match there {
        None => crate::io::atomic::write_new_file_by(to, false, write).map(|()| Put::New),
        Some(_) => std::fs::metadata(to)
            .and_then(|m| replace_forced(to, &m, write))
            .map(|r| Put::Replaced { backup: r.backup }),
    };
    written.map_err(|cause| match cause.downcast::<crate::io::archive::ArchiveError>() {
        Ok(damage) => RestoreError::Archive(damage),
        Err(cause) => write_error(to, cause),
    })
}

/// A failed write of `to`: a file that appeared there meanwhile is one the restore would
/// have overwritten.
fn write_error(to: &Path, cause: std::io::Error) -> RestoreError {
    if cause.kind() == std::io::ErrorKind::AlreadyExists {
        RestoreError::Exists(to.to_path_buf())
    } else {
        RestoreError::Write {
            path: to.to_path_buf(),
            cause,
        }
    }
}

#[cfg(test)]
mod tests;
