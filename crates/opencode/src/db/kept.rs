//! The read-only connection a thread keeps to the database it reads session after session.
//!
//! Opening a connection reads the database's whole schema before its first statement, which
//! for one session's export costs as much as reading a small session. A reader that reads
//! every session of a database one at a time (`scan --rows`, `doctor`, `extract-summary`)
//! therefore keeps its connection for the next session, as long as nothing the connection
//! read may have changed: the database file, its WAL and the WAL's index are the same files
//! with the same length and modification time, and the header's change counter (which a commit
//! in rollback mode increments) is the same. Only a connection opened `immutable` (no client
//! had the database open, so no WAL was beside it) is kept: it takes no lock and trusts that
//! nothing changes, so it is never used past any of these. One opened with the WAL is used for
//! one read, as before: kept, it would hold the WAL's index open between reads.
//!
//! A process that opens an opencode database for writing ([`writing`]: `slim`, `relocate`,
//! `backup`) reads on a new connection each time from then on, and closes no kept one: closing
//! a descriptor of the file releases every POSIX lock the process holds on it, its writer's
//! too, and an `immutable` connection is outside SQLite's bookkeeping of those locks.

use std::cell::RefCell;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use rusqlite::Connection;

use super::{DbError, is_opencode, open};

/// Whether this process opened an opencode database for writing.
static WROTE: AtomicBool = AtomicBool::new(false);

/// Says that this process is about to open an opencode database for writing: no connection
/// is kept, closed or used again from then on.
pub(crate) fn writing() {
    WROTE.store(true, Ordering::SeqCst);
}

/// What identifies one file's content: device, inode, length and modification time.
type FileStamp = (u64, u64, u64, Option<SystemTime>);

/// What a kept connection was opened against.
#[derive(PartialEq)]
struct Stamp {
    /// The database, its WAL and the WAL's index, each when it exists.
    files: [Option<FileStamp>; 3],
    /// Bytes 24..28 of the database's header: its file change counter.
    counter: Option<[u8; 4]>,
}

fn file_stamp(path: &Path) -> Option<FileStamp> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0, 0);
    Some((dev, ino, m.len(), m.modified().ok()))
}

fn stamp(path: &Path) -> Stamp {
    let side = |ext| file_stamp(&crate::reclaim::side(path, ext));
    let counter = std::fs::File::open(path).ok().and_then(|mut f| {
        let mut head = [0u8; 28];
        f.read_exact(&mut head).ok()?;
        Some([head[24], head[25], head[26], head[27]])
    });
    Stamp {
        files: [file_stamp(path), side("-wal"), side("-shm")],
        counter,
    }
}

/// Runs `f` on a read-only connection to the opencode database at `path`: the one this thread
/// kept from its last read of it when nothing changed since, else a new one, which is kept.
pub(super) fn reading<T>(path: &Path, f: impl FnOnce(&Connection) -> Result<T, DbError>) -> Result<T, DbError> {
    thread_local! {
        static KEPT: RefCell<Option<(PathBuf, Stamp, Connection)>> = const { RefCell::new(None) };
    }
    let fresh = || -> Result<Connection, DbError> {
        #[cfg(test)]
        tests::OPENED.with(|n| n.set(n.get() + 1));
        let db = open(path)?;
        is_opencode(&db)?;
        Ok(db)
    };
    if WROTE.load(Ordering::SeqCst) {
        return f(&fresh()?);
    }
    // Taken before the connection opens: a change in between makes the next read open anew,
    // never keeps a connection older than its stamp.
    let now = stamp(path);
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        match &*kept {
            Some((p, s, db)) if p == path && *s == now => return f(db),
            _ => *kept = None,
        }
        let db = fresh()?;
        // One opened with the WAL would hold the WAL's index open between reads, and the
        // client that closes last could not remove its WAL: used once.
        if now.files[1..].iter().any(Option::is_some) {
            return f(&db);
        }
        let (_, _, db) = kept.insert((path.to_path_buf(), now, db));
        f(db)
    })
}

#[cfg(test)]
mod tests {
    use super::super::export;
    use rusqlite::Connection;
    use std::cell::Cell;

    thread_local! {
        /// How many connections this thread opened to read.
        pub(super) static OPENED: Cell<u32> = const { Cell::new(0) };
    }

    fn create(path: &std::path::Path, title: &str) {
        let db = Connection::open(path).unwrap();
        db.execute_batch(
            "CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT);
             CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT);
             CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT);",
        )
        .unwrap();
        db.execute("INSERT INTO session VALUES ('ses_1', ?1)", [title]).unwrap();
    }

    fn title(path: &std::path::Path) -> String {
        let doc: serde_json::Value = serde_json::from_slice(&export(path, "ses_1").unwrap()).unwrap();
        doc["info"]["title"].as_str().unwrap().to_string()
    }

    /// A kept connection is used again while nothing changed, and never answers from before
    /// a change: a commit written in place at once (same length, maybe the same modification
    /// time), in WAL mode while the writer is open and after it closed, a database replaced
    /// by another file.
    #[test]
    fn a_kept_connection_sees_every_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        create(&path, "aaaa");
        let opened = OPENED.with(Cell::get);
        assert_eq!(title(&path), "aaaa");
        assert_eq!(title(&path), "aaaa");
        // Another test of this binary that writes a database reads on a new connection each
        // time from then on.
        if !super::WROTE.load(std::sync::atomic::Ordering::SeqCst) {
            assert_eq!(OPENED.with(Cell::get) - opened, 1, "kept for the second read");
        }
        let set = |t: &str| {
            let db = Connection::open(&path).unwrap();
            db.execute("UPDATE session SET title = ?1", [t]).unwrap();
        };
        set("bbbb");
        assert_eq!(title(&path), "bbbb");

        let wal = Connection::open(&path).unwrap();
        wal.pragma_update(None, "journal_mode", "WAL").unwrap();
        assert_eq!(title(&path), "bbbb");
        wal.execute("UPDATE session SET title = 'cccc'", []).unwrap();
        assert_eq!(title(&path), "cccc");
        wal.execute("UPDATE session SET title = 'dddd'", []).unwrap();
        assert_eq!(title(&path), "dddd");
        wal.pragma_update(None, "journal_mode", "DELETE").unwrap();
        drop(wal);
        set("eeee");
        assert_eq!(title(&path), "eeee");

        let other = dir.path().join("other.db");
        create(&other, "ffff");
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(title(&path), "ffff");
    }

    /// Once the process opened a database for writing, every read opens anew.
    #[test]
    fn after_a_write_every_read_opens_anew() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        create(&path, "aaaa");
        super::writing();
        let opened = OPENED.with(Cell::get);
        assert_eq!(title(&path), "aaaa");
        assert_eq!(title(&path), "aaaa");
        assert_eq!(OPENED.with(Cell::get) - opened, 2);
    }
}
