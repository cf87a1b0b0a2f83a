//! Where the space of opencode's database goes (`slim --dry-run opencode.db`): each session's
//! rows, the parts by type, the tool outputs and how much of them a resume no longer loads,
//! large values stored more than once, and the free pages only a VACUUM gives back.
//!
//! Read through [`crate::db::open`] in one read transaction, so a client writing beside it is
//! seen as of one moment, a session at a time: what is kept is a few numbers per session, the
//! messages of the session being read, and a hash per distinct large value, never the values.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::db::{DbError, text_of};
use crate::file::Message;
use cctool_core::slim::database::{Duplicate, Duplicates, KindSpace, ObjectSpace, SessionSpace, Space};

/// Each table and index with the bytes of its pages, from SQLite's `dbstat` (one pass over
/// the pages, none of the rows decoded); none when the build lacks it.
fn objects(db: &Connection) -> Vec<ObjectSpace> {
    let sql = "SELECT s.name, m.type, m.tbl_name, s.pgsize FROM dbstat AS s \
               JOIN sqlite_schema AS m ON m.name = s.name WHERE s.aggregate = TRUE ORDER BY s.pgsize DESC, s.name";
    let read = || -> rusqlite::Result<Vec<ObjectSpace>> {
        let mut st = db.prepare(sql)?;
        let rows = st.query_map([], |r| {
            Ok(ObjectSpace {
                name: text_of(r.get_ref(0)?),
                kind: text_of(r.get_ref(1)?),
                table: text_of(r.get_ref(2)?),
                bytes: r.get::<_, Option<i64>>(3)?.unwrap_or(0).max(0) as u64,
            })
        })?;
        rows.collect()
    };
    read().unwrap_or_default()
}

/// The smallest value counted as a duplicate: below it a copy costs less than the row that
/// would point to it.
pub const DUPLICATE_MIN: u64 = 1024;

/// How many duplicated values the report names.
const LARGEST: usize = 10;

/// One session and which of its messages a resume loads.
pub(crate) struct Window {
    /// The session's id.
    pub id: String,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// Each of its messages: whether a resume loads it, and its row's bytes.
    pub messages: HashMap<String, (bool, u64)>,
}

/// The parts of one session, each with its message: what [`each_window`]'s callers read.
pub(crate) const SESSION_PARTS: &str =
    "SELECT p.id, p.message_id, p.data FROM part p JOIN message m ON m.id = p.message_id WHERE m.session_id = ?1";

/// Each session's [`Window`], one at a time, given to `f`: which messages a resume loads
/// ([`crate::model::resume_start`] on the messages with only what it reads: their roles,
/// summaries, parents and compaction parts). Only one session's messages are held at a time,
/// so a database of millions of rows is read in the memory of its largest session.
pub(crate) fn each_window(db: &Connection, mut f: impl FnMut(&Window) -> Result<(), DbError>) -> Result<(), DbError> {
    let titled = crate::db::columns(db, "session")?.iter().any(|c| c == "title");
    let sql = format!(
        "SELECT id, {} FROM session ORDER BY id",
        if titled { "title" } else { "NULL" }
    );
    let mut sessions = Vec::new();
    {
        let mut st = db.prepare(&sql)?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            sessions.push((text_of(r.get_ref(0)?), r.get::<_, Option<String>>(1).ok().flatten()));
        }
    }
    // Only a part that holds the word can be a compaction: the rest are not parsed.
    let mut compacting = db.prepare(
        "SELECT p.message_id, p.data FROM part p JOIN message m ON m.id = p.message_id \
         WHERE m.session_id = ?1 AND instr(p.data, 'compaction') > 0",
    )?;
    let mut listed = db.prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
    for (id, title) in sessions {
        let mut compactions = std::collections::HashSet::new();
        let mut rows = compacting.query([&id])?;
        while let Some(r) = rows.next()? {
            let v = serde_json::from_slice::<Value>(bytes(r.get_ref(1)?)).unwrap_or(Value::Null);
            if v.get("type").and_then(Value::as_str) == Some("compaction") {
                compactions.insert(text_of(r.get_ref(0)?));
            }
        }
        let mut ids = Vec::new();
        let mut ms = Vec::new();
        let mut rows = listed.query([&id])?;
        while let Some(r) = rows.next()? {
            let mid = text_of(r.get_ref(0)?);
            let data = bytes(r.get_ref(1)?);
            let parts = match compactions.contains(&mid) {
                true => vec![crate::file::Part::from_value(serde_json::json!({"type": "compaction"}))],
                false => Vec::new(),
            };
            ms.push(Message::new(trimmed(&mid, data), parts, Vec::new()));
            ids.push((mid, data.len() as u64));
        }
        let start = crate::model::resume_start(&crate::file::Session {
            messages: ms,
            ..crate::file::Session::default()
        });
        let messages = ids
            .into_iter()
            .enumerate()
            .map(|(i, (mid, n))| (mid, (i >= start, n)))
            .collect();
        f(&Window { id, title, messages })?;
    }
    Ok(())
}

/// A message's data with only what decides where a resume starts.
fn trimmed(id: &str, data: &[u8]) -> Value {
    let full = serde_json::from_slice::<Value>(data).unwrap_or(Value::Null);
    let mut out = serde_json::Map::new();
    out.insert("id".into(), Value::String(id.to_string()));
    for k in ["role", "parentID", "finish", "error"] {
        if let Some(v) = full.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    if let Some(b @ Value::Bool(_)) = full.get("summary") {
        out.insert("summary".into(), b.clone());
    }
    Value::Object(out)
}

pub(crate) fn bytes(v: rusqlite::types::ValueRef<'_>) -> &[u8] {
    match v {
        rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => t,
        _ => &[],
    }
}

/// The output a completed tool part stores, and whether the client marked it cleared.
pub(crate) fn tool_output(part: &Value) -> Option<(&str, bool)> {
    let state = part.get("state")?;
    if part.get("type").and_then(Value::as_str) != Some("tool")
        || state.get("status").and_then(Value::as_str) != Some("completed")
    {
        return None;
    }
    let cleared = state.pointer("/time/compacted").is_some_and(|c| !c.is_null());
    Some((state.get("output").and_then(Value::as_str)?, cleared))
}

/// Where the space of the database at `path` goes.
pub fn space(path: &Path) -> Result<Space, DbError> {
    let db = crate::db::open(path)?;
    crate::db::is_opencode(&db)?;
    let tx = db.unchecked_transaction()?;
    let mut out = Space {
        file_bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
        wal_bytes: std::fs::metadata(crate::reclaim::side(path, "-wal")).map_or(0, |m| m.len()),
        ..Space::default()
    };
    let pages: i64 = tx.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
    let page: i64 = tx.query_row("PRAGMA page_size", [], |r| r.get(0))?;
    out.free_bytes = (pages.max(0) * page.max(0)) as u64;
    out.objects = objects(&tx);
    let mut sessions: Vec<SessionSpace> = Vec::new();
    let mut kinds: HashMap<String, KindSpace> = HashMap::new();
    let mut dups = Dups::default();
    let mut parts = tx.prepare(SESSION_PARTS)?;
    each_window(&tx, |w| {
        let mut ss = SessionSpace {
            id: w.id.clone(),
            title: w.title.clone(),
            messages: w.messages.len() as u64,
            bytes: w.messages.values().map(|&(_, n)| n).sum(),
            ..SessionSpace::default()
        };
        let mut rows = parts.query([&w.id])?;
        while let Some(r) = rows.next()? {
            let Some(&(loaded, _)) = w.messages.get(&text_of(r.get_ref(1)?)) else {
                continue;
            };
            let data = bytes(r.get_ref(2)?);
            let n = data.len() as u64;
            let v = serde_json::from_slice::<Value>(data).unwrap_or(Value::Null);
            let kind = v.get("type").and_then(Value::as_str).unwrap_or("(unreadable)");
            let k = kinds.entry(kind.to_string()).or_insert_with(|| KindSpace {
                kind: kind.to_string(),
                ..KindSpace::default()
            });
            k.count += 1;
            k.bytes += n;
            ss.parts += 1;
            ss.bytes += n;
            let at = || {
                (
                    w.id.clone(),
                    text_of(r.get_ref(0).unwrap_or(rusqlite::types::ValueRef::Null)),
                )
            };
            match tool_output(&v) {
                Some((o, cleared)) => {
                    let len = o.len() as u64;
                    let t = &mut out.tool_outputs;
                    t.count += 1;
                    t.bytes += len;
                    ss.tool_output_bytes += len;
                    if cleared {
                        t.cleared_count += 1;
                        t.cleared_bytes += len;
                    }
                    if !loaded && o != crate::api::CLEARED {
                        t.unloaded_count += 1;
                        t.unloaded_bytes += len;
                        ss.unloaded_output_bytes += len;
                    }
                    dups.add("tool output", o.as_bytes(), &at);
                    if let Some(m) = v.pointer("/state/metadata/output").and_then(Value::as_str) {
                        dups.add("tool display copy", m.as_bytes(), &at);
                    }
                }
                None if kind != "tool" => dups.add(kind, data, &at),
                None => {}
            }
        }
        sessions.push(ss);
        Ok(())
    })?;
    drop(parts);
    tx.finish()?;
    out.row_bytes = sessions.iter().map(|s| s.bytes).sum();
    sessions.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.id.cmp(&b.id)));
    out.sessions = sessions;
    let mut kinds: Vec<KindSpace> = kinds.into_values().collect();
    kinds.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.kind.cmp(&b.kind)));
    out.kinds = kinds;
    out.duplicates = dups.finish();
    Ok(out)
}

/// Large values by their hash: how many copies, and where the first is.
#[derive(Default)]
struct Dups {
    seen: HashMap<[u8; 32], Duplicate>,
}

impl Dups {
    fn add(&mut self, what: &str, value: &[u8], at: &dyn Fn() -> (String, String)) {
        if (value.len() as u64) < DUPLICATE_MIN {
            return;
        }
        let key: [u8; 32] = Sha256::digest(value).into();
        self.seen
            .entry(key)
            .or_insert_with(|| {
                let (session, part) = at();
                Duplicate {
                    what: what.to_string(),
                    bytes: value.len() as u64,
                    copies: 0,
                    session,
                    part,
                }
            })
            .copies += 1;
    }

    fn finish(self) -> Duplicates {
        let mut many: Vec<Duplicate> = self.seen.into_values().filter(|d| d.copies > 1).collect();
        many.sort_by(|a, b| {
            (b.bytes * (b.copies - 1))
                .cmp(&(a.bytes * (a.copies - 1)))
                .then_with(|| a.part.cmp(&b.part))
        });
        let mut out = Duplicates {
            min_bytes: DUPLICATE_MIN,
            values: many.len() as u64,
            copies: many.iter().map(|d| d.copies - 1).sum(),
            bytes: many.iter().map(|d| d.bytes * (d.copies - 1)).sum(),
            largest: Vec::new(),
        };
        many.truncate(LARGEST);
        out.largest = many;
        out
    }
}
