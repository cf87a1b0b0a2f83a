//! The thread index told that threads moved to another directory (`cctool relocate`):
//! `codex resume` and `--last` list the threads whose `cwd` column is the directory they run
//! in, whatever the rollout says.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};

use super::{BUSY, Error, Result, check_layout, locked, state_db};

/// What [`relocate_threads`] did, or would do.
#[derive(Debug, PartialEq, Eq)]
pub struct Relocated {
    /// The index; `None` when the Codex home has none.
    pub file: Option<PathBuf>,
    /// Threads whose row names the old directory (and so are, or would be, changed).
    pub rows: usize,
    /// The copy of the index kept before the change.
    pub backup: Option<PathBuf>,
}

/// Sets the directory of each thread `(id, old, new)` whose row still says `old` to `new`, in
/// one transaction, after a copy of the whole index is kept beside it
/// (`state_5.sqlite.relocate.bak`) with SQLite's backup API. A row that says anything else is
/// left alone, so a second run changes nothing. With `dry_run`, only counts.
pub fn relocate_threads(codex_home: &Path, moves: &[(String, String, String)], dry_run: bool) -> Result<Relocated> {
    let Some(file) = state_db(codex_home)? else {
        return Ok(Relocated {
            file: None,
            rows: 0,
            backup: None,
        });
    };
    let failed = |cause: rusqlite::Error| {
        locked(&cause, &file, BUSY).unwrap_or_else(|| Error::Relocate {
            file: file.clone(),
            cause,
        })
    };
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut db = rusqlite::Connection::open_with_flags(&file, flags).map_err(failed)?;
    db.busy_timeout(BUSY).map_err(failed)?;
    check_layout(&db, &file, BUSY)?;
    let due = |db: &rusqlite::Connection| -> rusqlite::Result<usize> {
        let mut n = 0;
        for (id, old, _) in moves {
            let cwd: Option<String> = db
                .query_row("SELECT cwd FROM threads WHERE id = ?1", [id], |r| r.get(0))
                .optional()?;
            n += usize::from(cwd.as_deref() == Some(old.as_str()));
        }
        Ok(n)
    };
    let rows = due(&db).map_err(failed)?;
    if dry_run || rows == 0 {
        return Ok(Relocated {
            file: Some(file),
            rows,
            backup: None,
        });
    }
    let backup = keep_copy(&db, &file)?;
    let tx = db
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(failed)?;
    for (id, old, new) in moves {
        tx.execute(
            "UPDATE threads SET cwd = ?3 WHERE id = ?1 AND cwd = ?2",
            params![id, old, new],
        )
        .map_err(failed)?;
    }
    tx.commit().map_err(failed)?;
    Ok(Relocated {
        file: Some(file),
        rows,
        backup: Some(backup),
    })
}

/// A whole copy of the index as one commit left it, at the first free
/// `state_5.sqlite.relocate[.N].bak`: written as a temporary file, synced, then renamed.
fn keep_copy(db: &rusqlite::Connection, file: &Path) -> Result<PathBuf> {
    let target = cctool_core::io::atomic::backup_path(file, "relocate");
    let tmp = target.with_extension("bak.partial");
    let failed = |e: std::io::Error| Error::IndexBackup {
        file: target.clone(),
        cause: e,
    };
    let _ = std::fs::remove_file(&tmp);
    {
        let mut dst = rusqlite::Connection::open(&tmp).map_err(|e| failed(std::io::Error::other(e)))?;
        let b = rusqlite::backup::Backup::new(db, &mut dst).map_err(|e| failed(std::io::Error::other(e)))?;
        b.run_to_completion(4096, std::time::Duration::from_millis(20), None)
            .map_err(|e| failed(std::io::Error::other(e)))?;
    }
    std::fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(failed)?;
    cctool_core::io::atomic::rename_synced(&tmp, &target).map_err(failed)?;
    Ok(target)
}
