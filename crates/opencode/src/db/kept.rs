//! The read-only connection a thread keeps to the database it reads session after session.
//!
//! Opening a connection reads the database's whole schema before its first statement, which
//! for one session's export costs as much as reading a small session. A reader that reads
//! every session of a database one at a time (`scan --rows`, `doctor`, `extract-summary`)
//! therefore keeps its connection for the next session, as long as nothing the connection
//! read may have changed: the database file, its WAL and the WAL's index are the same files
//! with the same length and modification time, the header's change counter (which a commit
//! in rollback mode increments) is the same, and cctool itself opened the database for no
//! write since ([`writing`]). Only a connection opened `immutable` (no client had the database
//! open, so no WAL was beside it) is kept: it takes no lock and trusts that nothing changes,
//! so it is never used past any of these. One opened with the WAL is used for one read, as
//! before: kept, it would hold the WAL's index open between reads.

use std::cell::RefCell;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use rusqlite::Connection;

use super::{DbError, is_opencode, open};

/// How many times cctool opened an opencode database for writing in this process.
static WRITES: AtomicU64 = AtomicU64::new(0);

/// Says that the database is about to be written by this process: no connection kept from
/// before is used again.
pub(crate) fn writing() {
    WRITES.fetch_add(1, Ordering::SeqCst);
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
    /// [`WRITES`] when it was opened.
    writes: u64,
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
        // Taken before the connection opens: a change in between makes the next read open
        // anew, never keep a connection older than its stamp.
        writes: WRITES.load(Ordering::SeqCst),
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
    let now = stamp(path);
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        match &*kept {
            Some((p, s, db)) if p == path && *s == now => return f(db),
            _ => *kept = None,
        }
        let db = open(path)?;
        is_opencode(&db)?;
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

    /// A kept connection never answers from before a change: a commit written in place at once
    /// (same length, maybe the same modification time), in WAL mode while the writer is open and
    /// after it closed, a database replaced by another file, and a write cctool says it makes.
    #[test]
    fn a_kept_connection_sees_every_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        create(&path, "aaaa");
        assert_eq!(title(&path), "aaaa");
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

        // Written so that nothing but cctool's word tells: the header's counter and the file's
        // times put back as they were.
        let before = std::fs::metadata(&path).unwrap();
        let head = std::fs::read(&path).unwrap()[..100].to_vec();
        set("gggg");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[24..28].copy_from_slice(&head[24..28]);
        std::fs::write(&path, &bytes).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(before.modified().unwrap()).unwrap();
        drop(f);
        assert_eq!(title(&path), "ffff", "kept while nothing tells");
        super::writing();
        assert_eq!(title(&path), "gggg");
    }
}
