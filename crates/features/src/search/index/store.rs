//! The index's SQLite file: its tables, the one writer's lock, and each file's update in one
//! transaction.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use super::update::{Indexed, Stat, Updated};
use super::{FILE, SCHEMA};

/// What went wrong with the index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// SQLite refused.
    #[error("the search index {path}: {source}")]
    Sql {
        /// The index's file.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// The folder or the lock could not be made.
    #[error("the search index {path}: {source}")]
    Io {
        /// The index's folder or file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl IndexError {
    /// What SQLite said, about the index at `path`.
    pub(super) fn sql_at(path: &Path) -> impl Fn(rusqlite::Error) -> IndexError + Copy + '_ {
        |source| IndexError::Sql {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The tables. `pieces` holds each text with where it was found; `texts` is its FTS5 index
/// (external content: the text is stored once), trigrams so that any substring of three
/// characters or more is found.
const TABLES: &str = "
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, agent TEXT NOT NULL,
  dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  resume_at INTEGER NOT NULL, lines INTEGER NOT NULL, tail_at INTEGER NOT NULL,
  tail_hash BLOB NOT NULL, rebuilt_known INTEGER NOT NULL);
CREATE TABLE pieces(id INTEGER PRIMARY KEY, file INTEGER NOT NULL, line INTEGER,
  session_id TEXT, message_id TEXT, role TEXT NOT NULL, field TEXT NOT NULL, time TEXT,
  ms INTEGER, loaded INTEGER NOT NULL, seen TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX pieces_file ON pieces(file, line);
CREATE VIRTUAL TABLE texts USING fts5(text, content='pieces', content_rowid='id', tokenize='trigram');
CREATE TRIGGER pieces_ai AFTER INSERT ON pieces BEGIN
  INSERT INTO texts(rowid, text) VALUES (new.id, new.text); END;
CREATE TRIGGER pieces_ad AFTER DELETE ON pieces BEGIN
  INSERT INTO texts(texts, rowid, text) VALUES ('delete', old.id, old.text); END;
";

/// The one writer of an index, holding its lock.
pub struct Writer {
    conn: Connection,
    path: PathBuf,
    _lock: File,
}

/// The index's file in `dir`.
pub(crate) fn db_path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

impl Writer {
    /// Opens (or makes) the index in `dir` for writing, after taking the writers' lock:
    /// when another writer holds it, `waiting` is called once and this one waits for it, or
    /// without `waiting` (a hook must not wait) nothing is opened. An index of another schema
    /// is removed and made anew.
    pub fn open(dir: &Path, waiting: Option<&mut dyn FnMut()>) -> Result<Option<Writer>, IndexError> {
        let io = |source| IndexError::Io {
            path: dir.to_path_buf(),
            source,
        };
        fs::create_dir_all(dir).map_err(io)?;
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("index.lock"))
            .map_err(io)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => match waiting {
                Some(waiting) => {
                    waiting();
                    lock.lock().map_err(io)?;
                }
                None => return Ok(None),
            },
            Err(fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let path = db_path(dir);
        let sql = IndexError::sql_at(&path);
        let mut conn = open_conn(&path).map_err(sql)?;
        let version: i32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sql)?;
        if version != SCHEMA {
            // Readers of the old file keep it open until they are done; the new one is
            // another file.
            drop(conn);
            for suffix in ["", "-wal", "-shm"] {
                let mut p = path.clone().into_os_string();
                p.push(suffix);
                match fs::remove_file(&p) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e)),
                    _ => {}
                }
            }
            conn = open_conn(&path).map_err(sql)?;
            let tx = conn.transaction().map_err(sql)?;
            tx.execute_batch(TABLES).map_err(sql)?;
            tx.pragma_update(None, "user_version", SCHEMA).map_err(sql)?;
            tx.commit().map_err(sql)?;
        }
        Ok(Some(Writer {
            conn,
            path,
            _lock: lock,
        }))
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        IndexError::sql_at(&self.path)
    }

    /// What the index holds about the file keyed `key`.
    pub(crate) fn indexed(&self, key: &Path) -> Result<Option<Indexed>, IndexError> {
        indexed(&self.conn, key).map_err(self.sql())
    }

    /// Every file the index holds, by key.
    pub fn keys(&self) -> Result<Vec<PathBuf>, IndexError> {
        let mut st = self.conn.prepare("SELECT path FROM files").map_err(self.sql())?;
        let keys = st
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(self.sql())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.sql())?;
        Ok(keys.into_iter().map(PathBuf::from).collect())
    }

    /// Stores what reading the file keyed `key` gave, in one transaction: rows replaced
    /// (all of them for a whole read, those of the lines read again for a grown file).
    pub fn store(&mut self, key: &Path, agent: &str, u: &Updated) -> Result<(), IndexError> {
        let path = self.path.clone();
        let sql = IndexError::sql_at(&path);
        let tx = self.conn.transaction().map_err(sql)?;
        let key_text = key.to_string_lossy();
        let old: Option<i64> = tx
            .query_row("SELECT id FROM files WHERE path = ?1", [&key_text], |r| r.get(0))
            .optional()
            .map_err(sql)?;
        let id = match (old, u.whole) {
            (Some(id), true) => {
                tx.execute("DELETE FROM pieces WHERE file = ?1", [id]).map_err(sql)?;
                id
            }
            (Some(id), false) => {
                tx.execute(
                    "DELETE FROM pieces WHERE file = ?1 AND line >= ?2",
                    params![id, u.first_line as i64],
                )
                .map_err(sql)?;
                id
            }
            (None, _) => {
                tx.execute(
                    "INSERT INTO files(path, agent, dev, ino, size, mtime_ns, resume_at, lines, tail_at, tail_hash, rebuilt_known)
                     VALUES (?1, ?2, 0, 0, 0, 0, 0, 0, 0, x'', 0)",
                    params![key_text, agent],
                )
                .map_err(sql)?;
                tx.last_insert_rowid()
            }
        };
        {
            let mut ins = tx
                .prepare_cached(
                    "INSERT INTO pieces(file, line, session_id, message_id, role, field, time, ms, loaded, seen, text)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                )
                .map_err(sql)?;
            for r in &u.rows {
                ins.execute(params![
                    id,
                    r.line.map(|l| l as i64),
                    r.session_id,
                    r.message_id,
                    r.role,
                    r.field,
                    r.time,
                    r.ms,
                    r.loaded,
                    r.seen.name(),
                    r.text
                ])
                .map_err(sql)?;
            }
        }
        let s = u.stat;
        tx.execute(
            "UPDATE files SET agent = ?2, dev = ?3, ino = ?4, size = ?5, mtime_ns = ?6, resume_at = ?7,
               lines = ?8, tail_at = ?9, tail_hash = ?10,
               rebuilt_known = CASE WHEN ?11 THEN 1 ELSE 0 END
             WHERE id = ?1",
            params![
                id,
                agent,
                s.dev as i64,
                s.ino as i64,
                s.size as i64,
                s.mtime_ns,
                u.resume_at as i64,
                u.lines as i64,
                u.tail_at as i64,
                u.tail_hash,
                u.rebuilt_known
            ],
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)
    }

    /// Forgets the file keyed `key` (deleted, or no longer a session), in one transaction.
    pub fn remove(&mut self, key: &Path) -> Result<bool, IndexError> {
        let path = self.path.clone();
        let sql = IndexError::sql_at(&path);
        let tx = self.conn.transaction().map_err(sql)?;
        let key_text = key.to_string_lossy();
        tx.execute(
            "DELETE FROM pieces WHERE file = (SELECT id FROM files WHERE path = ?1)",
            [&key_text],
        )
        .map_err(sql)?;
        let n = tx
            .execute("DELETE FROM files WHERE path = ?1", [&key_text])
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(n > 0)
    }
}

fn open_conn(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(60))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(conn)
}

/// What `conn`'s index holds about the file keyed `key`.
pub(crate) fn indexed(conn: &Connection, key: &Path) -> rusqlite::Result<Option<Indexed>> {
    conn.query_row(
        "SELECT id, agent, dev, ino, size, mtime_ns, resume_at, lines, tail_at, tail_hash FROM files WHERE path = ?1",
        [key.to_string_lossy()],
        |r| {
            Ok(Indexed {
                id: r.get(0)?,
                agent: r.get(1)?,
                stat: Stat {
                    dev: r.get::<_, i64>(2)? as u64,
                    ino: r.get::<_, i64>(3)? as u64,
                    size: r.get::<_, i64>(4)? as u64,
                    mtime_ns: r.get(5)?,
                },
                resume_at: r.get::<_, i64>(6)? as u64,
                lines: r.get::<_, i64>(7)? as u64,
                tail_at: r.get::<_, i64>(8)? as u64,
                tail_hash: r.get(9)?,
            })
        },
    )
    .optional()
}
