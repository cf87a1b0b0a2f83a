//! The errors of Codex's store: a rollout read as Codex indexes it, its row in the thread
//! index, the import ledger.

use std::path::PathBuf;
use std::time::Duration;

use super::{KNOWN_MIGRATION, STATE_DB};

/// Why a rollout cannot be indexed as Codex indexes it, its row cannot be written in Codex's
/// thread index, or Codex's import ledger cannot be read. `Display` is the sentence printed;
/// where a cause is a `source()` (a rollout that cannot be read, an error of the database
/// itself), the printer that walks the chain says it after the sentence and `Display` alone
/// does not, as when these errors were first reported.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The rollout cannot be read.
    #[error("{}: cannot read", .path.display())]
    Read {
        /// The rollout.
        path: PathBuf,
        /// What the system said.
        #[source]
        cause: std::io::Error,
    },
    /// The rollout has no `session_meta` record.
    #[error("{}: no session_meta record: not a Codex rollout Codex can resume", .path.display())]
    NoSessionMeta {
        /// The rollout.
        path: PathBuf,
    },
    /// The rollout's `session_meta` record has no `id` (nor `session_id`).
    #[error("{}: the session_meta record has no id", .path.display())]
    NoId {
        /// The rollout.
        path: PathBuf,
    },
    /// The rollout's `session_meta` record has no `timestamp` that is a time.
    #[error("{}: the session_meta record has no valid timestamp", .path.display())]
    NoTimestamp {
        /// The rollout.
        path: PathBuf,
    },
    /// The Codex home holds a thread index of another generation than [`STATE_DB`].
    #[error(
        "{}: Codex's thread index is {other}, a layout cctool does not know (it knows {STATE_DB}, \
         Codex 0.171): the session was not registered; it resumes by id all the same",
        .codex_home.display()
    )]
    UnknownGeneration {
        /// The Codex home.
        codex_home: PathBuf,
        /// The name of the index file found there.
        other: String,
    },
    /// The thread index is not laid out as the one cctool knows.
    #[error(
        "{}: {why}; this is not the thread index of Codex 0.171 that cctool knows: the session was not \
         registered (it resumes by id all the same)",
        .file.display()
    )]
    UnknownLayout {
        /// The index file.
        file: PathBuf,
        /// What differs.
        why: Layout,
    },
    /// Codex held the index for longer than cctool waited.
    #[error(transparent)]
    Locked(#[from] IndexLocked),
    /// The database failed while its layout was read.
    #[error(transparent)]
    Database(rusqlite::Error),
    /// The thread's row could not be written.
    #[error("{}: cannot register thread {id}: {cause}", .file.display())]
    Register {
        /// The index file.
        file: PathBuf,
        /// The thread.
        id: String,
        /// What the database said.
        cause: rusqlite::Error,
    },
    /// The threads' directories could not be changed in the index; nothing was.
    #[error("{}: cannot change the threads' directory: {cause}", .file.display())]
    Relocate {
        /// The index file.
        file: PathBuf,
        /// What the database said.
        cause: rusqlite::Error,
    },
    /// The copy of the index kept before it is changed could not be made; nothing was changed.
    #[error("{}: cannot keep a copy of the index before changing it: {cause}", .file.display())]
    IndexBackup {
        /// Where the copy was to be.
        file: PathBuf,
        /// What failed.
        cause: std::io::Error,
    },
    /// The import ledger exists and cannot be read.
    #[error("{}: cannot read: {cause}", .file.display())]
    LedgerUnreadable {
        /// The ledger.
        file: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// The import ledger is not the JSON Codex writes.
    #[error(
        "{}: line {}: not the import ledger Codex writes ({cause}); cctool cannot tell whether Codex imported the session",
        .file.display(),
        .cause.line()
    )]
    LedgerInvalid {
        /// The ledger.
        file: PathBuf,
        /// What the JSON parser said (it names the line).
        cause: serde_json::Error,
    },
}

/// How a thread index differs from the layout cctool knows.
#[derive(Debug, thiserror::Error)]
pub enum Layout {
    /// The migration history cannot be read.
    #[error("no migration history ({0})")]
    NoMigrationHistory(rusqlite::Error),
    /// The migration history holds no migration.
    #[error("an empty migration history")]
    EmptyMigrationHistory,
    /// A migration is recorded as failed.
    #[error("a migration Codex did not finish")]
    UnfinishedMigration,
    /// There is no `threads` table.
    #[error("no threads table")]
    NoThreadsTable,
    /// The `threads` table lacks a column cctool writes.
    #[error("the threads table has no column {column} (migration {migration})")]
    NoColumn {
        /// The column.
        column: &'static str,
        /// The newest migration applied.
        migration: i64,
    },
    /// The `threads` table requires a column cctool does not write.
    #[error(
        "the threads table requires a column cctool does not fill, {column} (migration {migration}, newer than {KNOWN_MIGRATION})"
    )]
    UnfilledColumn {
        /// The column.
        column: String,
        /// The newest migration applied.
        migration: i64,
    },
}

/// A result whose error is a store [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Codex's thread index stayed locked (by a running Codex, the one program that writes it)
/// for as long as cctool waited.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: Codex's thread index is locked by a running Codex (cctool waited {} ms): the session was not \
     registered, so Codex resumes it by id but does not list it; run the command again once Codex is idle \
     or closed",
    .file.display(),
    .waited.as_millis()
)]
pub struct IndexLocked {
    /// The lock file waited on.
    pub file: PathBuf,
    /// How long it was waited on.
    pub waited: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `restore` says the sentence alone; `convert --into-store` says it with its causes, as
    /// it did when the rollout's read error was context over the system's.
    #[test]
    fn a_rollout_that_cannot_be_read_says_why_only_with_its_causes() {
        let e = Error::Read {
            path: "r.jsonl".into(),
            cause: std::io::Error::other("disk says no"),
        };
        assert_eq!(e.to_string(), "r.jsonl: cannot read");
        assert_eq!(crate::error::with_causes(&e), "r.jsonl: cannot read: disk says no");
        let e = Error::UnknownLayout {
            file: "s.sqlite".into(),
            why: Layout::NoColumn {
                column: "title",
                migration: 70,
            },
        };
        assert_eq!(crate::error::with_causes(&e), e.to_string());
    }
}
