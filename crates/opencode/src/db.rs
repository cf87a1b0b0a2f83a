//! opencode's database (`opencode.db`, SQLite in WAL mode, written by the running client):
//! which sessions it holds, and each one as the document `opencode export` prints.
//!
//! It is opened read-only (`SQLITE_OPEN_READ_ONLY`): cctool never writes, never checkpoints
//! the WAL and never takes a write lock, so a client running beside it is not disturbed. A
//! session is read inside one read transaction, one snapshot, so a turn the client is writing
//! is seen whole or not at all. Tables and columns are found by name: the schema is moving
//! (newer releases add tables and columns), and a missing table or column is said, never
//! guessed.

mod kept;
mod members;

use std::path::Path;

use rusqlite::{Connection, OpenFlags, types::ValueRef};
use serde_json::{Map, Value};

pub(crate) use kept::writing;
pub use members::{members, session_ids};

/// The newest schema migration opencode 1.18.33 applied (its `migration` table's last id): a
/// database with a later one was written by a release cctool has not been checked against.
pub const NEWEST_KNOWN_MIGRATION: &str = "20260622202450_simplify_session_input";

/// How long a read waits for the client's checkpoint to let go of the WAL index.
const BUSY: std::time::Duration = std::time::Duration::from_secs(5);

/// Why a database cannot be read as opencode's.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite refused.
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A table or column a session needs is missing.
    #[error("the database has no {0}: not a schema cctool reads")]
    Missing(String),
    /// No session of that id.
    #[error("no session {0} in the database")]
    NoSession(String),
}

impl From<DbError> for std::io::Error {
    fn from(e: DbError) -> std::io::Error {
        std::io::Error::other(e.to_string())
    }
}

/// Opens `path` read-only, never creating it and never writing to it.
///
/// While the client runs, its WAL (`-wal`) and the WAL's index (`-shm`) exist, and a reader
/// must use them to see what is committed. When neither exists, no client has the database
/// open: it is opened `immutable`, so that SQLite does not leave an empty WAL and index of
/// its own in the user's folder.
pub fn open(path: &Path) -> Result<Connection, DbError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let side = |ext: &str| {
        let mut p = path.as_os_str().to_os_string();
        p.push(ext);
        std::path::PathBuf::from(p).exists()
    };
    let db = if side("-wal") || side("-shm") {
        Connection::open_with_flags(path, flags)?
    } else {
        Connection::open_with_flags(uri(path, "ro&immutable=1"), flags)?
    };
    db.busy_timeout(BUSY)?;
    Ok(db)
}

/// Copies the whole database at `path` to `to` with SQLite's online backup API, in one
/// step: the pages are read inside one read transaction, so the copy is the database as one
/// commit left it, even while the client writes (WAL mode lets it go on meanwhile). What the
/// WAL holds is in the copy; the copy has no WAL of its own.
pub fn snapshot(path: &Path, to: &Path) -> Result<(), DbError> {
    let from = open(path)?;
    is_opencode(&from)?;
    writing();
    let mut dst = Connection::open(to)?;
    {
        use rusqlite::backup::StepResult;
        let b = rusqlite::backup::Backup::new(&from, &mut dst)?;
        // Every page in one step (-1): one read transaction, so one commit's view.
        let waited = std::time::Instant::now();
        loop {
            match b.step(-1)? {
                StepResult::Done => break,
                StepResult::More => {}
                StepResult::Busy | StepResult::Locked if waited.elapsed() < BUSY => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                StepResult::Busy | StepResult::Locked => {
                    return Err(DbError::Sqlite(rusqlite::Error::SqliteFailure(
                        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                        Some("the database stayed locked while it was copied".into()),
                    )));
                }
                _ => {}
            }
        }
    }
    // The copy is a file on its own: a reader of it needs no WAL beside it.
    dst.pragma_update(None, "journal_mode", "DELETE")?;
    dst.close().map_err(|(_, e)| e)?;
    Ok(())
}

/// The summed length and latest change of the database at `path` and its WAL: a commit
/// grows or rewrites the WAL, and a checkpoint writes the database, so either changes one.
pub fn state(path: &Path) -> std::io::Result<(u64, Option<std::time::SystemTime>)> {
    let main = std::fs::metadata(path)?;
    let mut len = main.len();
    let mut when = main.modified().ok();
    let mut wal = path.as_os_str().to_os_string();
    wal.push("-wal");
    if let Ok(m) = std::fs::metadata(std::path::PathBuf::from(wal)) {
        len += m.len();
        when = when.max(m.modified().ok());
    }
    Ok((len, when))
}

/// `file:` URI of `path` with `query`, its characters that a URI reserves escaped.
fn uri(path: &Path, query: &str) -> String {
    let mut out = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'%' | b'?' | b'#' | 0x80.. => out.push_str(&format!("%{b:02X}")),
            _ => out.push(char::from(*b)),
        }
    }
    format!("{out}?mode={query}")
}

/// The columns of `table`, in order; empty when the table does not exist.
pub(crate) fn columns(db: &Connection, table: &str) -> Result<Vec<String>, DbError> {
    let mut st = db.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = st.query_map([table], |r| r.get::<_, String>(0))?;
    Ok(names.collect::<Result<_, _>>()?)
}

/// Whether the database has opencode's tables, with the columns a session is read by.
pub(crate) fn is_opencode(db: &Connection) -> Result<(), DbError> {
    let need: &[(&str, &[&str])] = &[
        ("session", &["id"]),
        ("message", &["id", "session_id", "data"]),
        ("part", &["id", "message_id", "data"]),
    ];
    for (table, cols) in need {
        let have = columns(db, table)?;
        if have.is_empty() {
            return Err(DbError::Missing(format!("table `{table}`")));
        }
        if let Some(c) = cols.iter().find(|c| !have.iter().any(|h| h == *c)) {
            return Err(DbError::Missing(format!("column `{table}.{c}`")));
        }
    }
    Ok(())
}

pub(crate) fn text_of(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Null => String::new(),
    }
}

fn json_of(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Integer(i) => Value::from(i),
        // JavaScript prints a whole number without a fraction (`cost: 0`), and the client's
        // export is JavaScript's printing of these columns.
        ValueRef::Real(f) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => Value::from(f as i64),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Null => Value::Null,
    }
}

/// The session `id` of the database at `path` as the document `opencode export` prints
/// (`{info, messages: [{info, parts}]}`), read in one snapshot. A row whose `data` is not a
/// JSON object is kept out of the messages and listed under [`crate::file::UNREADABLE`] with
/// its table, id and why.
///
/// The document is written from the rows' own bytes: each `data` is checked to be one JSON
/// object and its ids are appended to it, rather than parsed into a tree and printed again,
/// which on a large database costs more than reading it. A key the row already has is read
/// as the appended one, as the client's `{...data, id}` reads (`tests::the_document_from_bytes_equals_the_one_from_trees`).
pub fn export(path: &Path, id: &str) -> Result<Vec<u8>, DbError> {
    kept::reading(path, |db| export_on(db, id))
}

/// [`export`] on the connection `db`, whose tables were checked to be opencode's.
fn export_on(db: &Connection, id: &str) -> Result<Vec<u8>, DbError> {
    let tx = db.unchecked_transaction()?;
    let info = session_info(&tx, id)?;
    let mut doc = Vec::new();
    doc.extend_from_slice(b"{\"info\":");
    serde_json::to_writer(&mut doc, &Value::Object(info)).map_err(|e| DbError::Missing(e.to_string()))?;
    doc.extend_from_slice(b",\"messages\":[");
    // The messages by id and their parts by message then id, read side by side and written
    // as they come: a part belongs to the message whose parts are open, or to one that could
    // not be read.
    let (mut bad_messages, mut bad_parts) = (Vec::new(), Vec::new());
    let mut ms = tx.prepare_cached("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
    let mut ps = tx.prepare_cached(
        "SELECT p.id, p.message_id, p.data FROM part p JOIN message m ON m.id = p.message_id \
         WHERE m.session_id = ?1 ORDER BY p.message_id, p.id",
    )?;
    let mut messages = ms.query([id])?;
    let mut parts = ps.query([id])?;
    let mut part = parts.next()?;
    // The message whose parts are being written, and how many it has so far.
    let mut open: Option<String> = None;
    let mut written = (0usize, 0usize);
    loop {
        let message = messages.next()?;
        let next = message.map(|r| r.get_ref(0).map(text_of)).transpose()?;
        while let Some(p) = part {
            let mid = text_of(p.get_ref(1)?);
            if next.as_deref().is_some_and(|n| mid.as_str() >= n) {
                break;
            }
            let pid = text_of(p.get_ref(0)?);
            match object_bytes(p.get_ref(2)?) {
                Ok(data) if open.as_deref() == Some(mid.as_str()) => {
                    if written.1 > 0 {
                        doc.push(b',');
                    }
                    written.1 += 1;
                    with_ids(&mut doc, data, &[("id", &pid), ("sessionID", id), ("messageID", &mid)]);
                }
                // Its message was unreadable, and was said.
                Ok(_) => bad_parts.push(bad("part", &pid, "its message cannot be read")),
                Err(why) => bad_parts.push(bad("part", &pid, &why)),
            }
            part = parts.next()?;
        }
        if open.take().is_some() {
            doc.extend_from_slice(b"]}");
        }
        let (Some(r), Some(mid)) = (message, next) else {
            break;
        };
        match object_bytes(r.get_ref(1)?) {
            Ok(data) => {
                if written.0 > 0 {
                    doc.push(b',');
                }
                written = (written.0 + 1, 0);
                doc.extend_from_slice(b"{\"info\":");
                with_ids(&mut doc, data, &[("id", &mid), ("sessionID", id)]);
                doc.extend_from_slice(b",\"parts\":[");
                open = Some(mid);
            }
            Err(why) => bad_messages.push(bad("message", &mid, &why)),
        }
    }
    drop((messages, parts));
    drop((ms, ps));
    tx.finish()?;
    doc.push(b']');
    bad_messages.append(&mut bad_parts);
    if !bad_messages.is_empty() {
        doc.extend_from_slice(b",\"");
        doc.extend_from_slice(crate::file::UNREADABLE.as_bytes());
        doc.extend_from_slice(b"\":");
        serde_json::to_writer(&mut doc, &bad_messages).map_err(|e| DbError::Missing(e.to_string()))?;
    }
    doc.push(b'}');
    Ok(doc)
}

/// `data`, one JSON object, written to `out` with `ids` appended as its last keys.
pub(crate) fn with_ids(out: &mut Vec<u8>, data: &[u8], ids: &[(&str, &str)]) {
    let data = data.trim_ascii();
    // `object_bytes` made sure it is `{…}`.
    let body = &data[..data.len() - 1];
    out.extend_from_slice(body);
    let mut empty = body[1..].trim_ascii().is_empty();
    for (k, v) in ids {
        if !empty {
            out.push(b',');
        }
        empty = false;
        out.push(b'"');
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b"\":");
        // An id is printable ASCII with nothing to escape (the client's ids always are), so
        // it is its own JSON; any other string is printed by serde.
        if v.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\') {
            out.push(b'"');
            out.extend_from_slice(v.as_bytes());
            out.push(b'"');
        } else {
            // A string cannot fail to print.
            let _ = serde_json::to_writer(&mut *out, v);
        }
    }
    out.push(b'}');
}

/// A row's `data` if it is one JSON object, or why it is not one.
fn object_bytes(v: ValueRef<'_>) -> Result<&[u8], String> {
    let bytes = match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => t,
        ValueRef::Null => return Err("its data is NULL".into()),
        _ => return Err("its data is not text".into()),
    };
    object_json(bytes)
}

/// `bytes` if they are one JSON object, or why they are not one.
pub(crate) fn object_json(bytes: &[u8]) -> Result<&[u8], String> {
    // The skip of a string checks no UTF-8, and the document must parse whole.
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(format!("its data is not JSON: {e}"));
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
        Ok(_) if bytes.trim_ascii_start().first() == Some(&b'{') => Ok(bytes),
        Ok(_) => Err("its data is JSON but not an object".into()),
        Err(e) => Err(format!("its data is not JSON: {e}")),
    }
}

pub(crate) fn bad(table: &str, id: &str, why: &str) -> Value {
    serde_json::json!({"table": table, "id": id, "why": why})
}

/// The session row as the `info` of `opencode export` (`Session.fromRow`): its columns named as
/// the client names them, the `time_*` and `summary_*` columns gathered, JSON columns read.
fn session_info(db: &Connection, id: &str) -> Result<Map<String, Value>, DbError> {
    let mut st = db.prepare_cached("SELECT * FROM session WHERE id = ?1")?;
    let names: Vec<String> = st.column_names().map(str::to_string).collect();
    let mut rows = st.query([id])?;
    let Some(r) = rows.next()? else {
        return Err(DbError::NoSession(id.to_string()));
    };
    let mut info = Map::new();
    let mut time = Map::new();
    let mut summary = Map::new();
    let mut tokens = Map::new();
    for (i, col) in names.iter().enumerate() {
        let v = json_of(r.get_ref(i)?);
        if let Some(k) = col.strip_prefix("time_") {
            if !v.is_null() {
                time.insert(k.to_string(), v);
            }
        } else if let Some(k) = col.strip_prefix("summary_") {
            if !v.is_null() {
                summary.insert(k.to_string(), parsed(v));
            }
        } else if let Some(k) = col.strip_prefix("tokens_cache_") {
            // `tokens_cache_read` is the client's `tokens.cache.read`.
            let cache = tokens.entry("cache").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(cache) = cache {
                cache.insert(k.to_string(), v);
            }
        } else if let Some(k) = col.strip_prefix("tokens_") {
            tokens.insert(k.to_string(), v);
        } else if !v.is_null() {
            info.insert(client_name(col), parsed(v));
        }
    }
    if !summary.is_empty() {
        info.insert("summary".into(), Value::Object(summary));
    }
    if !tokens.is_empty() {
        info.insert("tokens".into(), Value::Object(tokens));
    }
    info.insert("time".into(), Value::Object(time));
    Ok(info)
}

/// A text column that holds JSON (an object or array), read; any other value as it is.
fn parsed(v: Value) -> Value {
    match &v {
        Value::String(s) if s.starts_with('{') || s.starts_with('[') => serde_json::from_str(s).unwrap_or(v),
        _ => v,
    }
}

/// A column's name as the client's objects name it: `project_id` → `projectID`,
/// `share_url` → `shareUrl`.
fn client_name(col: &str) -> String {
    let mut out = String::new();
    let mut parts = col.split('_');
    out.push_str(parts.next().unwrap_or(""));
    for p in parts {
        if p == "id" {
            out.push_str("ID");
        } else {
            let mut c = p.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase());
                out.push_str(c.as_str());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document as it was built before `export` wrote bytes: every row parsed into a
    /// tree, its ids inserted, the whole printed.
    fn from_trees(db: &Connection, id: &str) -> Value {
        let tree = |v: ValueRef<'_>| -> Option<Map<String, Value>> {
            let (ValueRef::Text(b) | ValueRef::Blob(b)) = v else {
                return None;
            };
            match serde_json::from_slice::<Value>(b) {
                Ok(Value::Object(m)) => Some(m),
                _ => None,
            }
        };
        let mut messages: Vec<(String, Map<String, Value>, Vec<Value>)> = Vec::new();
        let mut unreadable = Vec::new();
        let mut st = db
            .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")
            .unwrap();
        let mut rows = st.query([id]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let mid = text_of(r.get_ref(0).unwrap());
            match tree(r.get_ref(1).unwrap()) {
                Some(mut m) => {
                    m.insert("id".into(), mid.clone().into());
                    m.insert("sessionID".into(), id.into());
                    messages.push((mid, m, Vec::new()));
                }
                None => unreadable.push(mid),
            }
        }
        let mut st = db
            .prepare(
                "SELECT p.id, p.message_id, p.data FROM part p JOIN message m ON m.id = p.message_id \
                 WHERE m.session_id = ?1 ORDER BY p.message_id, p.id",
            )
            .unwrap();
        let mut rows = st.query([id]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let pid = text_of(r.get_ref(0).unwrap());
            let mid = text_of(r.get_ref(1).unwrap());
            match (tree(r.get_ref(2).unwrap()), messages.iter_mut().find(|m| m.0 == mid)) {
                (Some(mut p), Some(m)) => {
                    p.insert("id".into(), pid.into());
                    p.insert("sessionID".into(), id.into());
                    p.insert("messageID".into(), mid.into());
                    m.2.push(Value::Object(p));
                }
                _ => unreadable.push(pid),
            }
        }
        let messages: Vec<Value> = messages
            .into_iter()
            .map(|(_, info, parts)| serde_json::json!({"info": info, "parts": parts}))
            .collect();
        serde_json::json!({"info": session_info(db, id).unwrap(), "messages": messages, "unreadable": unreadable})
    }

    #[test]
    fn the_document_from_bytes_equals_the_one_from_trees() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        let db = Connection::open(&path).unwrap();
        db.execute_batch(
            "CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT, time_created INTEGER);
             CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT);
             CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT);
             INSERT INTO session VALUES ('ses_1', 't', 5);",
        )
        .unwrap();
        // Rows as the client writes them, and as no client should: keys it also appends, an
        // empty object, whitespace around and inside, escapes, not an object, not JSON, not
        // UTF-8, NULL, a number.
        let messages: &[(&str, &[u8])] = &[
            ("msg_1", br#"{"role":"user","time":{"created":1}}"#),
            (
                "msg_2",
                br#"{"id":"msg_other","role":"assistant","sessionID":"x","a":"\u00e9\/"}"#,
            ),
            ("msg_3", b"{}"),
            ("msg_4", b" \n{ \"role\" : \"user\" } \r\n"),
            ("msg_5", b"[1]"),
            ("msg_6", b"{\"role\":"),
            ("msg_7", b"{\"role\":\"\xff\"}"),
            ("msg_8", b"{ }"),
            // Ids the client never writes, which must still print as JSON.
            ("msg_\"q\\", br#"{"role":"user"}"#),
            ("msg_\u{e9}\u{1}\u{7f}", br#"{"role":"user"}"#),
        ];
        for (id, data) in messages {
            db.execute(
                "INSERT INTO message VALUES (?1, 'ses_1', ?2)",
                rusqlite::params![id, data],
            )
            .unwrap();
        }
        db.execute("INSERT INTO message VALUES ('msg_9', 'ses_1', NULL)", [])
            .unwrap();
        db.execute("INSERT INTO message VALUES ('msg_10', 'ses_1', 7)", [])
            .unwrap();
        let parts: &[(&str, &str, &[u8])] = &[
            ("prt_1", "msg_1", br#"{"type":"text","text":"a\nb"}"#),
            ("prt_2", "msg_1", br#"{"messageID":"m","id":"p","type":"text"}"#),
            ("prt_3", "msg_2", b"{}"),
            ("prt_4", "msg_5", br#"{"type":"text"}"#),
            ("prt_5", "msg_2", b"\"text\""),
            ("prt_6", "msg_4", b"\t{\"type\":\"reasoning\",\"n\":1.50}\n"),
            ("prt_7", "msg_none", br#"{"type":"text"}"#),
            ("prt_\u{e9}\t", "msg_\"q\\", br#"{"type":"text"}"#),
        ];
        for (id, m, data) in parts {
            db.execute("INSERT INTO part VALUES (?1, ?2, ?3)", rusqlite::params![id, m, data])
                .unwrap();
        }
        let want = from_trees(&db, "ses_1");
        drop(db);
        let got: Value = serde_json::from_slice(&export(&path, "ses_1").unwrap()).unwrap();
        assert_eq!(got["info"], want["info"]);
        assert_eq!(got["messages"], want["messages"]);
        // Key order too: the appended ids stay where the row had them.
        assert_eq!(
            serde_json::to_string(&got["messages"]).unwrap(),
            serde_json::to_string(&want["messages"]).unwrap()
        );
        let said: Vec<&str> = got[crate::file::UNREADABLE]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["id"].as_str().unwrap())
            .collect();
        let mut said = said;
        said.sort_unstable();
        let mut want: Vec<&str> = want["unreadable"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        want.sort_unstable();
        assert_eq!(said, want);
    }
}
