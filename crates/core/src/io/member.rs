//! A session held inside a file that holds many (a database), named `FILE#ID`.
//!
//! Most agents write a session to a file, and every command reads files. An agent that keeps
//! every session in one database answers through its [`Container`](crate::agents::Container):
//! which sessions a file holds, and each one's content as the agent's own session document,
//! read in one consistent snapshot. Such a session is an input of its own ([`Input::Member`]),
//! opened into memory and then read like any file, so no command and no feature needs to know
//! that it came from a database. Its name, `FILE#ID`, is what every message calls it and what
//! a command accepts back as a PATH.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::source::Input;
use crate::model::AgentId;
use crate::model::diag::Diagnostic;

/// The character between a container's path and a session's id in a member's name.
pub const SEPARATOR: char = '#';

/// One session inside a container file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// The file that holds it.
    pub container: PathBuf,
    /// The session's id in it.
    pub id: String,
    /// The agent whose container it is.
    pub agent: AgentId,
    /// What its rows hold, in bytes (the order in which a batch reads the largest first).
    pub size: u64,
    /// When it was last changed, where the container says.
    pub modified_ms: Option<i64>,
}

// Inputs are ordered by what names them: the container, then the id.
impl PartialOrd for Member {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Member {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.container, &self.id, self.size).cmp(&(&other.container, &other.id, other.size))
    }
}

impl Member {
    /// `FILE#ID`: the name every message gives it, and a PATH that names it again.
    pub fn name(&self) -> String {
        format!("{}{SEPARATOR}{}", self.container.display(), self.id)
    }

    /// When it was last changed, as a time.
    pub fn modified(&self) -> Option<SystemTime> {
        let ms = u64::try_from(self.modified_ms?).ok()?;
        SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::from_millis(ms))
    }
}

/// The sessions of a container file, and what could not be read of it (a row that is no
/// session's, a value that is not JSON), each a diagnostic naming the file and the row.
#[derive(Debug, Default)]
pub struct Members {
    /// The sessions, in the container's order.
    pub sessions: Vec<Member>,
    /// What the batch commands report about the file itself.
    pub problems: Vec<Diagnostic>,
}

/// The bytes a container file of any agent starts with, when it is a SQLite database: a cheap
/// test before any agent is asked. (A container may also be a folder: opencode's older
/// per-file storage.)
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Whether the file at `path` starts as a SQLite database does.
pub fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == SQLITE_MAGIC)
}

/// The sessions of `path` when a registered agent's container claims it (`None` otherwise):
/// a SQLite database is offered to every container; a folder, or a file that is no
/// database (an older per-file store's session file), only to those its name may be.
pub fn members_of(path: &Path) -> Option<Members> {
    let meta = std::fs::metadata(path).ok()?;
    if !(meta.is_dir() || meta.is_file()) {
        return None;
    }
    let database = meta.is_file() && is_sqlite(path);
    crate::agents::registry::installed()
        .agents()
        .iter()
        .filter_map(|a| a.container())
        .filter(|c| database || c.may_be(path))
        .find_map(|c| c.members(path))
}

/// Whether a file or folder met while walking a folder may be an agent's container, by its
/// name (the content decides: see [`members_of`]).
pub fn may_be_container(path: &Path) -> bool {
    crate::agents::registry::installed()
        .agents()
        .iter()
        .filter_map(|a| a.container())
        .any(|c| c.may_be(path))
}

/// The member `arg` names as `FILE#ID`, when `arg` names no file and `FILE` is a container
/// that holds a session of that id.
pub fn parse(arg: &Path) -> Option<Member> {
    if std::fs::symlink_metadata(arg).is_ok() {
        return None;
    }
    let s = arg.to_str()?;
    let (file, id) = s.rsplit_once(SEPARATOR)?;
    if id.is_empty() {
        return None;
    }
    members_of(Path::new(file))?.sessions.into_iter().find(|m| m.id == id)
}

/// The input `arg` names: a member (`FILE#ID`), the one session a file that is no database
/// stands for in its container (a session's file of opencode's per-file storage, whose
/// messages are in folders beside it), else the path as given.
pub fn input_of(arg: &Path) -> Input {
    if let Some(m) = parse(arg) {
        return Input::Member(Box::new(m));
    }
    if arg.is_file()
        && !is_sqlite(arg)
        && may_be_container(arg)
        && let Some(mut members) = members_of(arg)
        && members.sessions.len() == 1
        && let Some(m) = members.sessions.pop()
    {
        return Input::Member(Box::new(m));
    }
    Input::Path(arg.to_path_buf())
}
