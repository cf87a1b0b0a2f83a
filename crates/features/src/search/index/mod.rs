//! `cctool index`: a full-text index of what `search` can match, kept in one SQLite file with
//! an FTS5 table (the `rusqlite` cctool already links, SQLite bundled with FTS5; one file,
//! and readers in WAL mode are never blocked by the writer).
//!
//! The index finds candidates; it never decides a hit. A search with a fresh index reads
//! only the files whose indexed text may match every pattern, through the same reader and
//! matcher as without the index, so the hits are the same: which records a resume loads,
//! scopes, lines and offsets all come from the file itself. The index's trigram tokens and
//! case folding only ever rule a file out when no indexed text of it holds a run of the
//! pattern that every match must hold (see [`query`]).
//!
//! Files are append-only while their agent writes them: a file that only grew (same device
//! and inode, larger, and the last line indexed still as it was) is read from the end of
//! that line; any other change re-reads it whole. Each file's update is one transaction, so
//! an update killed at any moment leaves the index as it was before that file.

mod query;
mod rows;
mod store;
mod update;

use std::path::{Path, PathBuf};

pub use query::{Candidates, Reader};
pub use store::{IndexError, Writer};
pub use update::{Change, Stat, Updated};

/// The version of the index's tables, as `PRAGMA user_version` holds it: an index written
/// with another is rebuilt by the next `cctool index` and not read by `search`.
pub const SCHEMA: i32 = 1;

/// The index's file in its folder.
pub const FILE: &str = "index.sqlite3";

/// Where the index is: `CCTOOL_INDEX_DIR`, else `$XDG_CACHE_HOME/cctool`, else
/// `~/.cache/cctool`; `None` without any of them.
pub fn default_dir(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(d) = env("CCTOOL_INDEX_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(x) = env("XDG_CACHE_HOME").filter(|x| Path::new(x).is_absolute()) {
        return Some(PathBuf::from(x).join("cctool"));
    }
    env("HOME").map(|h| PathBuf::from(h).join(".cache").join("cctool"))
}

/// The key a file is indexed under: its canonical path (the same file named two ways is
/// one file), or the path as given when it cannot be resolved.
pub fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A file's state against the index, found before it is read.
pub struct Plan {
    /// The file's key in the index.
    pub key: PathBuf,
    /// What changed.
    pub change: Change,
    /// The file as it is now.
    pub stat: Stat,
    /// Bytes read to tell (the last line indexed, for a file that grew).
    pub bytes_read: u64,
    old: Option<update::Indexed>,
}

impl Plan {
    /// How `path` changed since `w` indexed it.
    pub fn of(w: &Writer, path: &Path) -> Result<Plan, Error> {
        let key = key(path);
        let stat = Stat::of(&key).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let old = w.indexed(&key)?;
        let mut bytes_read = 0;
        let mut change = update::change(&key, old.as_ref(), &stat, &mut bytes_read).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        // A file of an agent this build does not read any more is read whole, and detected.
        if change == Change::Grown
            && old
                .as_ref()
                .is_some_and(|o| crate::agents::registry().by_name(&o.agent).is_none())
        {
            change = Change::Whole;
        }
        Ok(Plan {
            key,
            change,
            stat,
            bytes_read,
            old,
        })
    }

    /// Reads the whole file, opened as `src` and detected as `format`.
    pub fn read_whole(&self, src: &crate::io::Source, format: crate::model::AgentId) -> crate::error::Result<Updated> {
        let mut u = update::whole(crate::agents::agent(format), src, &self.key, self.stat)?;
        u.bytes_read += self.bytes_read;
        Ok(u)
    }

    /// Reads what the file gained (for [`Change::Grown`]), and the agent it was indexed as.
    pub fn read_grown(&self) -> crate::error::Result<Option<(Updated, &str)>> {
        let Some(old) = self.old.as_ref().filter(|_| self.change == Change::Grown) else {
            return Ok(None);
        };
        let Some(agent) = crate::agents::registry().by_name(&old.agent) else {
            return Ok(None);
        };
        let mut u = update::grown(agent, &self.key, old, self.stat)?;
        u.bytes_read += self.bytes_read;
        Ok(Some((u, &old.agent)))
    }
}

/// What stopped a file's update.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The index refused.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The file could not be looked at.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
