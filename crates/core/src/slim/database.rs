//! `slim` of a database that holds every session of an agent (opencode's `opencode.db`):
//! where its space goes, and taking back what a resume no longer loads.
//!
//! A session file is slimmed by rewriting it as a stream ([`super::Slimmer`]); a database is
//! not a stream of lines, and what can go out of it, and how it is written without a
//! half-written state, is the agent's. The command asks the agent's [`DatabaseSlimmer`] and
//! prints what it answers, the same for any agent that keeps one.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// What `slim` asks of an agent that keeps its sessions in one database.
pub trait DatabaseSlimmer: Sync {
    /// Whether the file at `path` is this agent's database (its content decides).
    fn claims(&self, path: &Path) -> bool;

    /// Where the space of the database at `path` goes, read without writing, in one snapshot.
    fn space(&self, path: &Path) -> crate::error::Result<Space>;

    /// Takes back the space `opts` chose, in one write transaction after a backup, then
    /// returns the free pages to the file system.
    fn reclaim(&self, path: &Path, opts: &Reclaim) -> crate::error::Result<Reclaimed>;
}

/// Where the space of a database goes.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Space {
    /// Size of the database file.
    pub file_bytes: u64,
    /// Size of its write-ahead log, when one exists (a client has it open).
    pub wal_bytes: u64,
    /// Bytes of the pages no table uses, which only a VACUUM gives back.
    pub free_bytes: u64,
    /// Bytes of every session's rows (messages and their parts).
    pub row_bytes: u64,
    /// Each session, the largest first.
    pub sessions: Vec<SessionSpace>,
    /// The rows by the kind of part, the largest first.
    pub kinds: Vec<KindSpace>,
    /// The outputs of tool calls.
    pub tool_outputs: ToolOutputs,
    /// Large values stored more than once.
    pub duplicates: Duplicates,
    /// Each table and index with the bytes of its pages, the largest first: the rows are
    /// only part of the file, beside the indexes and the room each page keeps. Empty when the
    /// SQLite build cannot say (no `dbstat`).
    pub objects: Vec<ObjectSpace>,
}

/// One table or index of a database and the pages it takes.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ObjectSpace {
    /// Its name.
    pub name: String,
    /// `table` or `index`.
    pub kind: String,
    /// The table it belongs to (its own name for a table).
    pub table: String,
    /// Bytes of its pages.
    pub bytes: u64,
}

/// One session's share of a database.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SessionSpace {
    /// Its id.
    pub id: String,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// Its messages.
    pub messages: u64,
    /// Their parts.
    pub parts: u64,
    /// Bytes of its rows.
    pub bytes: u64,
    /// Bytes of its tool calls' outputs.
    pub tool_output_bytes: u64,
    /// Bytes of the outputs a resume no longer loads and that are still stored.
    pub unloaded_output_bytes: u64,
}

/// The parts of one kind.
#[derive(Clone, Debug, Default, Serialize)]
pub struct KindSpace {
    /// The kind (`text`, `tool`, `reasoning`, …).
    pub kind: String,
    /// How many.
    pub count: u64,
    /// Bytes of their rows.
    pub bytes: u64,
}

/// The outputs of tool calls.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ToolOutputs {
    /// Outputs stored.
    pub count: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Outputs a resume no longer loads (before the compaction it starts from), still stored.
    pub unloaded_count: u64,
    /// Their bytes.
    pub unloaded_bytes: u64,
    /// Outputs the client itself has marked cleared, still stored.
    pub cleared_count: u64,
    /// Their bytes.
    pub cleared_bytes: u64,
}

/// Large values stored more than once.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Duplicates {
    /// The smallest value counted, in bytes.
    pub min_bytes: u64,
    /// Distinct values stored more than once.
    pub values: u64,
    /// Copies beyond the first.
    pub copies: u64,
    /// Bytes of the copies beyond the first.
    pub bytes: u64,
    /// The values whose extra copies take the most, the largest first.
    pub largest: Vec<Duplicate>,
}

/// One value stored more than once.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Duplicate {
    /// What it is (`tool output`, `tool display copy`, a part's kind).
    pub what: String,
    /// Bytes of one copy.
    pub bytes: u64,
    /// Copies stored.
    pub copies: u64,
    /// The session of the first copy.
    pub session: String,
    /// The part of the first copy.
    pub part: String,
}

/// What `slim` takes back from a database, as the user chose.
#[derive(Clone, Debug, Default)]
pub struct Reclaim {
    /// Replace the tool outputs a resume no longer loads.
    pub unloaded_outputs: bool,
    /// Where the backup goes: a folder, else beside the database.
    pub backup_dir: Option<PathBuf>,
    /// Write while a client has the database open.
    pub force: bool,
}

/// What `slim` took back.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Reclaimed {
    /// Tool outputs replaced.
    pub outputs: u64,
    /// Their bytes before.
    pub output_bytes: u64,
    /// The backup of the database as it was.
    pub backup: PathBuf,
    /// How the free pages went back: `vacuum-into` (a new file renamed over the old) or
    /// `vacuum` (in place, while a client has it open).
    pub vacuum: &'static str,
    /// Size of the database file after.
    pub file_bytes_after: u64,
}
