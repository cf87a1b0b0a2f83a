//! Which sessions an opencode database holds, how many bytes each one's rows take, and the
//! rows no resume loads because what they name is not in the database.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, types::ValueRef};

use super::{DbError, NEWEST_KNOWN_MIGRATION, columns, is_opencode, open, text_of};
use cctool_core::io::member::{Member, Members};
use cctool_core::model::diag::{Code, Diagnostic, Severity};

/// What one table of messages or parts says of the database.
#[derive(Default)]
struct TableFacts {
    /// The bytes each session's rows of the table hold, by session id.
    sizes: HashMap<String, i64>,
    /// The rows that name a row the database does not hold: `(id, what it names)`.
    orphans: Vec<(String, String)>,
}

/// A table of rows that belong to a session, and how its orphans are found.
struct Table {
    name: &'static str,
    /// Selects a row when any row of the table may be an orphan: over the distinct ids, far
    /// cheaper than [`Table::orphans`] over every row (`EXCEPT` compares the text ids as `=`
    /// does), and most databases have none.
    any_orphan: &'static str,
    /// Selects `(id, what it names)` of every orphan.
    orphans: &'static str,
    /// What a problem says of one orphan.
    says: fn(&str, &str) -> String,
}

const MESSAGES: Table = Table {
    name: "message",
    any_orphan: "SELECT session_id FROM message EXCEPT SELECT id FROM session WHERE id IS NOT NULL",
    orphans: "SELECT m.id, m.session_id FROM message m LEFT JOIN session s ON s.id = m.session_id WHERE s.id IS NULL",
    says: |id, session| {
        format!("message {id} names session {session}, which the database does not hold: no resume loads it")
    },
};

const PARTS: Table = Table {
    name: "part",
    any_orphan: "SELECT message_id FROM part EXCEPT SELECT id FROM message WHERE id IS NOT NULL",
    orphans: "SELECT p.id, p.message_id FROM part p LEFT JOIN message m ON m.id = p.message_id WHERE m.id IS NULL",
    says: |id, message| {
        format!("part {id} names message {message}, which the database does not hold: no resume loads it")
    },
};

/// What `table` says of the database at `path`, read on a connection of its own in one
/// snapshot.
fn facts(path: &Path, table: &Table) -> Result<TableFacts, DbError> {
    let db = open(path)?;
    let tx = db.unchecked_transaction()?;
    let mut out = TableFacts::default();
    // From the lengths SQLite keeps in each record's header (`octet_length` reads no text),
    // in the order the rows are stored: summed here rather than grouped through the session
    // index, which visits the rows in another order than they lie on disk.
    if columns(&tx, table.name)?.iter().any(|c| c == "session_id") {
        let sql = format!("SELECT session_id, octet_length(data) FROM {} NOT INDEXED", table.name);
        let mut st = tx.prepare(&sql)?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let n = r.get::<_, Option<i64>>(1)?.unwrap_or(0);
            let id = r.get_ref(0)?;
            let sum = match id {
                ValueRef::Text(t) if let Some(s) = std::str::from_utf8(t).ok().and_then(|s| out.sizes.get_mut(s)) => s,
                _ => out.sizes.entry(text_of(id)).or_default(),
            };
            *sum = sum.saturating_add(n);
        }
    }
    if tx.prepare(table.any_orphan)?.exists([])? {
        let mut st = tx.prepare(table.orphans)?;
        let rows = st.query_map([], |r| Ok((text_of(r.get_ref(0)?), text_of(r.get_ref(1)?))))?;
        out.orphans = rows.collect::<Result<_, _>>()?;
    }
    Ok(out)
}

/// The sessions of the database at `path`, when it is opencode's; `None` when it is not. What
/// cannot be read (a message of no session, a part of no message, a schema newer than any
/// release checked) is a problem naming the database and the row.
///
/// The messages and the parts are each read on a connection of their own, side by side: each
/// is one snapshot, and what the client commits meanwhile changes no more than a read a moment
/// later would.
pub fn members(path: &Path) -> Option<Members> {
    let db = open(path).ok()?;
    is_opencode(&db).ok()?;
    let name = path.display().to_string();
    let mut out = Members::default();
    let problem =
        |out: &mut Members, sev, code, msg: String| out.problems.push(Diagnostic::new(&name, None, code, sev, msg));
    let r = (|| -> Result<(), DbError> {
        let (messages, parts) = std::thread::scope(|s| {
            let messages = s.spawn(|| facts(path, &MESSAGES));
            let parts = facts(path, &PARTS);
            let messages = messages.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            (messages, parts)
        });
        let (mut messages, parts) = (messages?, parts?);
        for (id, n) in parts.sizes {
            let sum = messages.sizes.entry(id).or_default();
            *sum = sum.saturating_add(n);
        }
        let tx = db.unchecked_transaction()?;
        let updated = columns(&tx, "session")?.iter().any(|c| c == "time_updated");
        let sql = format!(
            "SELECT id, {} FROM session ORDER BY id",
            if updated { "time_updated" } else { "NULL" }
        );
        let mut st = tx.prepare(&sql)?;
        let rows = st.query_map([], |r| Ok((text_of(r.get_ref(0)?), r.get::<_, Option<i64>>(1)?)))?;
        for row in rows {
            let (id, ms) = row?;
            out.sessions.push(Member {
                container: path.to_path_buf(),
                size: messages.sizes.get(&id).copied().unwrap_or(0).max(0) as u64,
                id,
                agent: crate::ID,
                modified_ms: ms,
            });
        }
        drop(st);
        for (table, found) in [(&MESSAGES, &messages.orphans), (&PARTS, &parts.orphans)] {
            for (id, names) in found {
                problem(&mut out, Severity::Warning, Code::OrphanRow, (table.says)(id, names));
            }
        }
        if let Some(newest) = newest_migration(&tx)?
            && newest.as_str() > NEWEST_KNOWN_MIGRATION
        {
            problem(
                &mut out,
                Severity::Info,
                Code::UnknownSchema,
                format!(
                    "schema migration {newest} is newer than the newest cctool knows ({NEWEST_KNOWN_MIGRATION}, opencode 1.18.33): read by table and column name"
                ),
            );
        }
        Ok(())
    })();
    if let Err(e) = r {
        problem(
            &mut out,
            Severity::Error,
            Code::Unreadable,
            format!("cannot read the database: {e}"),
        );
    }
    Some(out)
}

/// The ids of the sessions of the database at `path`, when it is opencode's: read alone, without
/// the sizes [`members`] sums over every row.
pub fn session_ids(path: &Path) -> Option<std::collections::HashSet<String>> {
    let db = open(path).ok()?;
    is_opencode(&db).ok()?;
    let mut st = db.prepare("SELECT id FROM session").ok()?;
    let ids = st.query_map([], |r| Ok(text_of(r.get_ref(0)?))).ok()?;
    ids.collect::<Result<_, _>>().ok()
}

/// The last schema migration the client applied (`migration.id`, named by the time it was
/// written), when the database has the table.
fn newest_migration(db: &Connection) -> Result<Option<String>, DbError> {
    if !columns(db, "migration")?.iter().any(|c| c == "id") {
        return Ok(None);
    }
    Ok(db.query_row("SELECT MAX(id) FROM migration", [], |r| r.get::<_, Option<String>>(0))?)
}
