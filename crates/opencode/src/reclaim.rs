//! Taking space back from opencode's database (`slim --in-place opencode.db`), never leaving a
//! half-written state: whatever moment the process dies at, the database opens with every
//! session as it was or as slimmed.
//!
//! 1. Refused while a client has the database open (its `-wal` or `-shm` beside it, or a lock
//!    held), unless forced. Otherwise the database is locked exclusively until the end, so no
//!    client opens it halfway.
//! 2. A backup made with SQLite's online backup API, written under a temporary name, synced,
//!    then renamed: a backup under its final name is always whole.
//! 3. One write transaction (`BEGIN IMMEDIATE`): the outputs of the tool calls a resume no
//!    longer loads (before the compaction it starts from, [`crate::model::resume_start`]) are
//!    replaced as the client prunes one, its `state.time.compacted` set, and the text the
//!    client sends for a pruned output in place of the output ([`crate::api::CLEARED`]). The
//!    request a resume sends is the same: none of those messages is in it.
//! 4. The free pages go back to the file system: alone, `VACUUM INTO` a new file in the same
//!    folder, synced, renamed over the database (its WAL emptied first), the folder synced;
//!    beside a client (forced), a plain `VACUUM` under SQLite's own locking.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use crate::db::{DbError, text_of};
use crate::space::{bytes, tool_output};
use cctool_core::slim::database::{Reclaim, Reclaimed};

/// Why the database was left alone, or where taking space back stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReclaimError {
    /// A client has the database open.
    #[error("{0}: opencode has it open ({1}); quit opencode, or --force to write beside it")]
    Live(PathBuf, String),
    /// SQLite or the database refused.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A file could not be written.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
}

impl From<rusqlite::Error> for ReclaimError {
    fn from(e: rusqlite::Error) -> ReclaimError {
        ReclaimError::Db(DbError::Sqlite(e))
    }
}

/// How long a forced run waits for the client to let go of its write lock.
const BUSY: Duration = Duration::from_secs(10);

/// `path` with `ext` appended to its name (`opencode.db-wal`).
pub(crate) fn side(path: &Path, ext: &str) -> PathBuf {
    let mut p = path.as_os_str().to_os_string();
    p.push(ext);
    PathBuf::from(p)
}

/// For the test that kills the process at each step: `CCTOOL_SLIM_DIE_AT=STEP` ends it there
/// at once, as a kill would, with no destructor run and nothing flushed.
fn die_at(step: &str) {
    if std::env::var("CCTOOL_SLIM_DIE_AT").is_ok_and(|s| s == step) {
        std::process::abort();
    }
}

/// What shows that a client has the database open, when anything does.
pub(crate) fn in_use(path: &Path) -> Option<String> {
    for ext in ["-wal", "-shm"] {
        if side(path, ext).exists() {
            return Some(format!("{} exists", side(path, ext).display()));
        }
    }
    None
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReclaimError + '_ {
    move |e| ReclaimError::Io(path.to_path_buf(), e)
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Takes back what `opts` chose from the database at `path`.
pub fn reclaim(path: &Path, opts: &Reclaim) -> Result<Reclaimed, ReclaimError> {
    if let (Some(why), false) = (in_use(path), opts.force) {
        return Err(ReclaimError::Live(path.to_path_buf(), why));
    }
    let (db, alone) = open(path, opts.force)?;
    crate::db::is_opencode(&db)?;
    let backup = backup(&db, path, opts.backup_dir.as_deref(), "slim")?;
    die_at("after-backup");
    let mut out = Reclaimed {
        backup,
        ..Reclaimed::default()
    };
    if opts.unloaded_outputs {
        clear_unloaded(&db, &mut out)?;
    }
    die_at("after-commit");
    match alone {
        true => {
            vacuum_into(&db, path)?;
            out.vacuum = "vacuum-into";
        }
        false => {
            db.execute_batch("VACUUM")?;
            out.vacuum = "vacuum";
        }
    }
    db.close().map_err(|(_, e)| DbError::from(e))?;
    out.file_bytes_after = std::fs::metadata(path).map_or(0, |m| m.len());
    Ok(out)
}

/// The database opened for writing, and whether this connection is the only one: it then
/// holds an exclusive lock until it is closed (`locking_mode = EXCLUSIVE`), so no client
/// opens the database while its file is replaced. A client that has it open holds a lock of
/// its own: refused, or, forced, the database is written under SQLite's usual locking.
pub(crate) fn open(path: &Path, force: bool) -> Result<(Connection, bool), ReclaimError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    crate::db::writing();
    let db = Connection::open_with_flags(path, flags).map_err(DbError::from)?;
    // Set before the first read, so that the WAL is opened without the shared index.
    db.query_row("PRAGMA locking_mode = EXCLUSIVE", [], |_| Ok(()))?;
    match db.execute_batch("BEGIN EXCLUSIVE; COMMIT;") {
        Ok(()) => Ok((db, true)),
        Err(e) if !force => Err(ReclaimError::Live(
            path.to_path_buf(),
            format!("the database is locked: {e}"),
        )),
        Err(_) => {
            drop(db);
            let db = Connection::open_with_flags(path, flags).map_err(DbError::from)?;
            db.busy_timeout(BUSY)?;
            Ok((db, false))
        }
    }
}

/// The database written anew without its free pages, and renamed over the old one.
fn vacuum_into(db: &Connection, path: &Path) -> Result<(), ReclaimError> {
    let tmp = side(path, ".slim-vacuum");
    let _ = std::fs::remove_file(&tmp);
    let mode: String = db.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    db.execute("VACUUM INTO ?1", [tmp.to_string_lossy()])?;
    // `VACUUM INTO` writes a database in rollback mode; the client's is in WAL mode, which
    // the header keeps.
    if mode.eq_ignore_ascii_case("wal") {
        let new = Connection::open(&tmp).map_err(DbError::from)?;
        new.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
        new.close().map_err(|(_, e)| DbError::from(e))?;
    }
    std::fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(io(&tmp))?;
    die_at("after-vacuum-into");
    // Everything of the WAL into the old file and the WAL emptied: a WAL left beside the
    // new file, were the process to die after the rename, holds no frame to replay into it.
    if mode.eq_ignore_ascii_case("wal") {
        let busy: i64 = db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
        if busy != 0 || std::fs::metadata(side(path, "-wal")).is_ok_and(|m| m.len() > 0) {
            let _ = std::fs::remove_file(&tmp);
            return Err(ReclaimError::Io(
                path.to_path_buf(),
                std::io::Error::other("its WAL could not be emptied: the database was left as it is"),
            ));
        }
    }
    std::fs::rename(&tmp, path).map_err(io(path))?;
    die_at("after-rename");
    sync_dir(&folder(path)).map_err(io(path))?;
    Ok(())
}

/// A copy of the database as it is, with SQLite's online backup API, at `DIR/NAME.<tag>.bak`
/// (beside the database when no folder is given; a number added when one exists).
pub(crate) fn backup(db: &Connection, path: &Path, dir: Option<&Path>, tag: &str) -> Result<PathBuf, ReclaimError> {
    let beside = cctool_core::io::atomic::backup_path(path, tag);
    let target = match dir {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(io(d))?;
            let name = beside.file_name().unwrap_or_default();
            let first = d.join(name);
            match first.exists() {
                false => first,
                true => cctool_core::io::atomic::backup_path(&d.join(path.file_name().unwrap_or_default()), tag),
            }
        }
        None => beside,
    };
    let tmp = side(&target, ".partial");
    let _ = std::fs::remove_file(&tmp);
    {
        let mut dst = Connection::open(&tmp).map_err(DbError::from)?;
        let b = rusqlite::backup::Backup::new(db, &mut dst)?;
        b.run_to_completion(4096, Duration::ZERO, None)?;
    }
    std::fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &target).map_err(io(&target))?;
    sync_dir(&folder(&target)).map_err(io(&target))?;
    Ok(target)
}

/// Replaces, in one write transaction, every output a resume no longer loads.
fn clear_unloaded(db: &Connection, out: &mut Reclaimed) -> Result<(), ReclaimError> {
    let tx = rusqlite::Transaction::new_unchecked(db, rusqlite::TransactionBehavior::Immediate)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    // Session by session: a session's parts are read, then its changed ones written, so no
    // cursor reads the table while it is written and only one session's changes are held.
    let mut parts = tx.prepare(crate::space::SESSION_PARTS)?;
    let mut update = tx.prepare("UPDATE part SET data = ?2 WHERE id = ?1")?;
    crate::space::each_window(&tx, |w| {
        let mut changed = Vec::new();
        let mut rows = parts.query([&w.id])?;
        while let Some(r) = rows.next()? {
            // Only a part that holds the word can be a tool call: the rest are not parsed.
            let data = bytes(r.get_ref(2)?);
            if memchr::memmem::find(data, b"tool").is_none()
                || w.messages
                    .get(&text_of(r.get_ref(1)?))
                    .is_none_or(|&(loaded, _)| loaded)
            {
                continue;
            }
            let Ok(mut v) = serde_json::from_slice::<Value>(data) else {
                continue;
            };
            let Some((o, _)) = tool_output(&v) else { continue };
            if o == crate::api::CLEARED {
                continue;
            }
            let n = o.len() as u64;
            pruned(&mut v, now);
            changed.push((text_of(r.get_ref(0)?), serde_json::to_string(&v).unwrap_or_default(), n));
        }
        drop(rows);
        for (id, data, n) in &changed {
            update.execute([id, data])?;
            out.outputs += 1;
            out.output_bytes += n;
            if out.outputs == 1 {
                die_at("in-transaction");
            }
        }
        Ok(())
    })
    .map_err(ReclaimError::from)?;
    drop((parts, update));
    die_at("before-commit");
    tx.commit()?;
    Ok(())
}

/// A completed tool part as the client leaves one it pruned (`state.time.compacted`), its
/// output, and the copy of it kept for display, replaced by the text the client sends for a
/// pruned output; its attachments, which the client drops from a pruned part, emptied.
fn pruned(part: &mut Value, now: i64) {
    let Some(state) = part.get_mut("state").and_then(Value::as_object_mut) else {
        return;
    };
    state.insert("output".into(), Value::from(crate::api::CLEARED));
    if let Some(m) = state.get_mut("metadata").and_then(Value::as_object_mut)
        && m.get("output").is_some_and(Value::is_string)
    {
        m.insert("output".into(), Value::from(crate::api::CLEARED));
    }
    if let Some(a) = state.get_mut("attachments").filter(|a| a.is_array()) {
        *a = Value::Array(Vec::new());
    }
    let time = state
        .entry("time")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Some(t) = time.as_object_mut()
        && t.get("compacted").is_none_or(Value::is_null)
    {
        t.insert("compacted".into(), Value::from(now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pruned_part_keeps_its_call_and_reads_as_the_clients_own() {
        let mut p = json!({"type": "tool", "tool": "bash", "callID": "c", "state": {"status": "completed",
            "input": {"command": "ls"}, "output": "big", "metadata": {"output": "big", "exit": 0},
            "title": "ls", "time": {"start": 1, "end": 2}}});
        pruned(&mut p, 9);
        assert_eq!(p["state"]["output"], crate::api::CLEARED);
        assert_eq!(p["state"]["metadata"]["output"], crate::api::CLEARED);
        assert_eq!(p["state"]["metadata"]["exit"], 0);
        assert_eq!(p["state"]["input"]["command"], "ls");
        assert_eq!(p["state"]["time"], json!({"start": 1, "end": 2, "compacted": 9}));
    }
}
