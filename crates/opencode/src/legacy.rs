//! opencode's older per-file storage, `$XDG_DATA_HOME/opencode/storage/`, which releases
//! before the SQLite store (up to 1.1.x) wrote and releases 1.2 to 1.x migrated once into
//! `opencode.db`: `session/<projectID>/<sessionID>.json` (the session's info),
//! `message/<sessionID>/<messageID>.json`, `part/<messageID>/<partID>.json`, and folders
//! cctool does not read (`project/`, `session_diff/`, `todo/`, …).
//!
//! The folder is a container of sessions as the database is ([`crate::store::Database`]): a
//! session is named `STORAGE#ID`, and read as the document `opencode export` prints, so
//! nothing downstream knows where it came from. The ids are taken from the files' paths, not
//! their content, as the client's migration takes them: an earlier migration of the storage
//! itself moved files without rewriting the ids inside.

use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use cctool_core::io::member::{Member, Members};
use cctool_core::model::diag::{Code, Diagnostic, Severity};

/// The name of the storage folder in opencode's data folder.
pub const FOLDER: &str = "storage";

/// Whether `path` may be a storage folder (named `storage`, with a `session/` folder) or a
/// session's own file in one (`storage/session/<project>/<id>.json`).
pub fn may_be(path: &Path) -> bool {
    is_storage(path) || session_file_storage(path).is_some()
}

fn is_storage(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == FOLDER) && path.join("session").is_dir()
}

/// The storage that holds the session file `path`, when it is one.
fn session_file_storage(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let sessions = path.parent()?.parent()?;
    let storage = sessions.parent()?;
    // The names first: this is asked of every `.json` file a walk meets.
    (name.ends_with(".json") && sessions.file_name()? == "session" && storage.file_name()? == FOLDER && path.is_file())
        .then(|| storage.to_path_buf())
}

/// The `.json` files of the folder `dir`, by name (an id: the order the client sorts by); a
/// folder that does not exist has none.
fn json_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let id = name.strip_suffix(".json")?.to_string();
            Some((id, e.path()))
        })
        .collect();
    out.sort();
    out
}

/// The folders of `dir`, by name.
fn folders(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect();
    out.sort();
    out
}

/// Every session file of the storage, by id; the first project folder's when two hold one
/// (the migration inserts the first and ignores the second).
fn session_files(storage: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for (_, project) in folders(&storage.join("session")) {
        for (id, file) in json_files(&project) {
            out.entry(id).or_insert(file);
        }
    }
    out
}

fn len(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// The ids of the sessions the database beside the storage holds: the database the client
/// migrated the storage into (`opencode.db` in the same data folder).
fn migrated(storage: &Path) -> HashSet<String> {
    let Some(db) = storage.parent().map(|d| d.join("opencode.db")) else {
        return HashSet::new();
    };
    if !db.is_file() {
        return HashSet::new();
    }
    crate::db::session_ids(&db).unwrap_or_default()
}

/// The sessions of `path`: a storage folder's, or the one session a session file of it is.
/// `None` when it is neither.
///
/// A storage folder's sessions that the database beside it holds are left out and counted
/// (`migrated-session`): once `opencode.db` exists, the client loads only it (its migration
/// runs only when the database is missing, and never marks the storage), so the database's
/// copy is the session, and a run over the data folder reads each session once. A session
/// file named directly is read whatever the database holds.
pub fn members(path: &Path) -> Option<Members> {
    if let Some(storage) = session_file_storage(path) {
        let id = path.file_stem()?.to_str()?.to_string();
        let mut out = Members::default();
        out.sessions.push(member(&storage, path.to_path_buf(), &id, path));
        return Some(out);
    }
    if !is_storage(path) {
        return None;
    }
    let name = path.display().to_string();
    let mut out = Members::default();
    let files = session_files(path);
    let held = migrated(path);
    // What the client's migration leaves out and no release loads.
    let orphan = |out: &mut Members, why: String| {
        out.problems
            .push(Diagnostic::new(&name, None, Code::OrphanRow, Severity::Warning, why));
    };
    let mut left_out = 0usize;
    for (id, file) in &files {
        if held.contains(id) {
            left_out += 1;
            continue;
        }
        out.sessions.push(member(path, path.to_path_buf(), id, file));
    }
    if left_out > 0 {
        out.problems.push(Diagnostic::new(
            &name,
            None,
            Code::MigratedSession,
            Severity::Info,
            format!(
                "{left_out} session(s) of the storage are in opencode.db beside it, which the client loads instead: read from there (name a session's file under session/ to read the storage's copy)"
            ),
        ));
    }
    // A session whose project has no file: the client's migration leaves it out (it inserts a
    // session only under a project it inserted), so a migrated client never shows it.
    for (id, file) in &files {
        let project = file.parent().and_then(Path::file_name).unwrap_or_default();
        let mut known = path.join("project").join(project);
        known.as_mut_os_string().push(".json");
        if !held.contains(id) && !known.is_file() {
            orphan(
                &mut out,
                format!(
                    "{}: session {id}'s project has no file ({}): opencode's migration into its database leaves it out",
                    file.display(),
                    known.display()
                ),
            );
        }
    }
    // Messages of no session and parts of no message: the migration leaves them out, and no
    // release loads them.
    let mut messages: HashSet<String> = HashSet::new();
    for (sid, dir) in folders(&path.join("message")) {
        let ids = json_files(&dir);
        if !files.contains_key(&sid) {
            orphan(
                &mut out,
                format!(
                    "{}: {} message(s) of session {sid}, which has no file under session/: no resume loads them",
                    dir.display(),
                    ids.len()
                ),
            );
        }
        messages.extend(ids.into_iter().map(|(id, _)| id));
    }
    for (mid, dir) in folders(&path.join("part")) {
        if !messages.contains(&mid) {
            orphan(
                &mut out,
                format!(
                    "{}: {} part(s) of message {mid}, which has no file under message/: no resume loads them",
                    dir.display(),
                    json_files(&dir).len()
                ),
            );
        }
    }
    Some(out)
}

/// The session `id` of `storage` as a member of `container` (the storage, or the session's
/// own file when it was named), its size what its messages' and parts' files hold (what a
/// database's rows of it would hold, so a backup's copy of the storage says the same).
fn member(storage: &Path, container: PathBuf, id: &str, file: &Path) -> Member {
    let mut size = 0;
    for (mid, m) in json_files(&storage.join("message").join(id)) {
        size += len(&m);
        size += json_files(&storage.join("part").join(&mid))
            .iter()
            .map(|(_, p)| len(p))
            .sum::<u64>();
    }
    let updated = std::fs::read(file)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.pointer("/time/updated").and_then(Value::as_i64));
    let modified = updated.or_else(|| {
        let t = std::fs::metadata(file).ok()?.modified().ok()?;
        Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as i64)
    });
    Member {
        container,
        id: id.to_string(),
        agent: crate::ID,
        size,
        modified_ms: modified,
    }
}

/// The session `id` of the member whose container is `path` (a storage folder, or the
/// session's own file), as the document `opencode export` prints.
pub fn read(path: &Path, id: &str) -> io::Result<Vec<u8>> {
    let file = match session_file_storage(path) {
        Some(_) => path.to_path_buf(),
        None => session_files(path).remove(id).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("no session {id} in {}", path.display()),
            )
        })?,
    };
    export(&file)
}

/// The session whose info is the file `file` (`storage/session/<project>/<id>.json`), with
/// its messages and their parts from the folders beside, as the document `opencode export`
/// prints: each message's and part's file with the ids its path gives appended, messages and
/// parts in the order of their ids. A file that is not a JSON object, or cannot be read, is
/// left out and listed under [`crate::file::UNREADABLE`] by its path; a message whose parts'
/// folder is missing is listed too. The session's own file must be read: without it there is
/// no session.
pub fn export(file: &Path) -> io::Result<Vec<u8>> {
    let storage = session_file_storage(file).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a session file of an opencode storage", file.display()),
        )
    })?;
    let id = file.file_stem().and_then(|s| s.to_str()).unwrap_or("").to_string();
    let project = file
        .parent()
        .and_then(Path::file_name)
        .and_then(|s| s.to_str())
        .unwrap_or("")
        .to_string();
    let bytes = std::fs::read(file).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", file.display())))?;
    let bad = |why: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the session file {}: {why}", file.display()),
        )
    };
    let mut info: Map<String, Value> = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(bad("JSON but not an object".into())),
        Err(e) => return Err(bad(format!("not JSON: {e}"))),
    };
    info.insert("id".into(), Value::String(id.clone()));
    info.insert("projectID".into(), Value::String(project));
    let mut unreadable = Vec::new();
    let mut doc = Vec::with_capacity(bytes.len() * 4);
    doc.extend_from_slice(b"{\"info\":");
    serde_json::to_writer(&mut doc, &Value::Object(info)).map_err(io::Error::other)?;
    doc.extend_from_slice(b",\"messages\":[");
    let mut first = true;
    for (mid, mfile) in json_files(&storage.join("message").join(&id)) {
        let Some(m) = object_file("message", &mfile, &mut unreadable) else {
            continue;
        };
        if !first {
            doc.push(b',');
        }
        first = false;
        doc.extend_from_slice(b"{\"info\":");
        crate::db::with_ids(&mut doc, &m, &[("id", &mid), ("sessionID", &id)]);
        doc.extend_from_slice(b",\"parts\":[");
        let pdir = storage.join("part").join(&mid);
        if !pdir.is_dir() {
            unreadable.push(crate::db::bad(
                "part",
                &pdir.display().to_string(),
                "the folder of the message's parts is missing",
            ));
        }
        let mut first_part = true;
        for (pid, pfile) in json_files(&pdir) {
            let Some(p) = object_file("part", &pfile, &mut unreadable) else {
                continue;
            };
            if !first_part {
                doc.push(b',');
            }
            first_part = false;
            crate::db::with_ids(&mut doc, &p, &[("id", &pid), ("sessionID", &id), ("messageID", &mid)]);
        }
        doc.extend_from_slice(b"]}");
    }
    doc.push(b']');
    if !unreadable.is_empty() {
        doc.extend_from_slice(b",\"");
        doc.extend_from_slice(crate::file::UNREADABLE.as_bytes());
        doc.extend_from_slice(b"\":");
        serde_json::to_writer(&mut doc, &unreadable).map_err(io::Error::other)?;
    }
    doc.push(b'}');
    Ok(doc)
}

/// The bytes of the file at `path` when it holds one JSON object; otherwise `None`, and why
/// it was left out listed in `unreadable` under `table`, by its path.
fn object_file(table: &str, path: &Path, unreadable: &mut Vec<Value>) -> Option<Vec<u8>> {
    let why = match std::fs::read(path) {
        Ok(b) => match crate::db::object_json(&b) {
            Ok(_) => return Some(b),
            Err(why) => why,
        },
        Err(e) => format!("cannot read: {e}"),
    };
    unreadable.push(crate::db::bad(table, &path.display().to_string(), &why));
    None
}

/// The summed length and latest change of every file of the storage: what a backup compares.
pub fn state(storage: &Path) -> io::Result<(u64, Option<std::time::SystemTime>)> {
    let mut len = 0;
    let mut when = std::fs::metadata(storage)?.modified().ok();
    let mut todo = vec![storage.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                todo.push(e.path());
            } else if t.is_file()
                && let Ok(m) = e.metadata()
            {
                len += m.len();
                when = when.max(m.modified().ok());
            }
        }
    }
    Ok((len, when))
}

/// A backup's copy of the storage, written to `to` (an empty file): a database of opencode's
/// tables, which `restore` lists and reads as it does a copy of `opencode.db`, and every file of
/// the storage kept as it is in `cctool_storage_file (path, data)`, so that nothing of it is
/// lost, a file cctool cannot read included. The rows are the files' bytes as they are, ids
/// from their paths (as the client's migration takes them), a session's columns from its info.
pub fn snapshot(storage: &Path, to: &Path) -> io::Result<()> {
    let sql = |e: rusqlite::Error| io::Error::other(e.to_string());
    crate::db::writing();
    let mut db = rusqlite::Connection::open(to).map_err(sql)?;
    let tx = db.transaction().map_err(sql)?;
    tx.execute_batch(
        "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, \
           title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data BLOB);
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, data BLOB);
         CREATE TABLE cctool_storage_file (path TEXT PRIMARY KEY, data BLOB);",
    )
    .map_err(sql)?;
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    for (id, file) in session_files(storage) {
        let v: Value = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null);
        let project = file
            .parent()
            .and_then(Path::file_name)
            .map(|s| s.to_string_lossy().into_owned());
        tx.execute(
            "INSERT OR IGNORE INTO session VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            rusqlite::params![
                id,
                project,
                text(&v, "parentID"),
                text(&v, "directory"),
                text(&v, "title"),
                text(&v, "version"),
                v.pointer("/time/created").and_then(Value::as_i64),
                v.pointer("/time/updated").and_then(Value::as_i64),
            ],
        )
        .map_err(sql)?;
    }
    let mut session_of = std::collections::HashMap::new();
    for (sid, dir) in folders(&storage.join("message")) {
        for (mid, file) in json_files(&dir) {
            let data = std::fs::read(&file).unwrap_or_default();
            tx.execute(
                "INSERT OR IGNORE INTO message VALUES (?1, ?2, ?3)",
                rusqlite::params![mid, sid, data],
            )
            .map_err(sql)?;
            session_of.insert(mid, sid.clone());
        }
    }
    for (mid, dir) in folders(&storage.join("part")) {
        for (pid, file) in json_files(&dir) {
            let data = std::fs::read(&file).unwrap_or_default();
            tx.execute(
                "INSERT OR IGNORE INTO part VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![pid, mid, session_of.get(&mid), data],
            )
            .map_err(sql)?;
        }
    }
    let mut todo = vec![storage.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir)?.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                todo.push(e.path());
            } else if t.is_file() {
                let path = e.path();
                let rel = path
                    .strip_prefix(storage)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .into_owned();
                // A file removed since the listing (a client deleting a session) is not there
                // to keep; any other failure fails the copy rather than lose the file.
                let data = match std::fs::read(&path) {
                    Ok(d) => d,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
                };
                tx.execute(
                    "INSERT INTO cctool_storage_file VALUES (?1, ?2)",
                    rusqlite::params![rel, data],
                )
                .map_err(sql)?;
            }
        }
    }
    tx.commit().map_err(sql)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, bytes: &[u8]) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }

    /// A storage of one session: two messages (their files written out of order, one with ids
    /// inside that its path contradicts), parts, and the broken files a storage can have.
    fn storage() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let st = dir.path().join("storage");
        write(
            &st.join("session/proj/ses_a.json"),
            br#"{"id":"ses_wrong","projectID":"other","title":"t","directory":"/w","time":{"created":1,"updated":9}}"#,
        );
        write(
            &st.join("message/ses_a/msg_2.json"),
            br#"{"role":"assistant","parentID":"msg_1"}"#,
        );
        write(
            &st.join("message/ses_a/msg_1.json"),
            br#"{"id":"msg_moved","sessionID":"ses_old","role":"user"}"#,
        );
        write(&st.join("part/msg_1/prt_2.json"), br#"{"type":"text","text":"b"}"#);
        write(&st.join("part/msg_1/prt_1.json"), br#"{"type":"text","text":"a"}"#);
        write(&st.join("part/msg_2/prt_3.json"), b"{\"type\": ");
        write(&st.join("part/msg_2/prt_4.json"), b"\xff\xfe");
        write(&st.join("message/ses_a/msg_3.json"), b"[1]");
        write(&st.join("message/ses_gone/msg_9.json"), b"{}");
        write(&st.join("part/msg_none/prt_9.json"), b"{}");
        (dir, st)
    }

    fn doc(st: &Path) -> Value {
        serde_json::from_slice(&read(st, "ses_a").unwrap()).unwrap()
    }

    #[test]
    fn ids_come_from_the_paths_and_order_from_the_ids() {
        let (_d, st) = storage();
        let d = doc(&st);
        assert_eq!(d["info"]["id"], "ses_a");
        assert_eq!(d["info"]["projectID"], "proj");
        let ids: Vec<&str> = d["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["info"]["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["msg_1", "msg_2"]);
        assert_eq!(d["messages"][0]["info"]["sessionID"], "ses_a");
        let parts: Vec<&str> = d["messages"][0]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["text"].as_str().unwrap())
            .collect();
        assert_eq!(parts, ["a", "b"]);
        assert_eq!(d["messages"][0]["parts"][0]["messageID"], "msg_1");
    }

    #[test]
    fn each_file_that_cannot_be_read_is_named_by_its_path_and_the_rest_is_read() {
        let (_d, st) = storage();
        let d = doc(&st);
        let bad: Vec<String> = d[crate::file::UNREADABLE]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["id"].as_str().unwrap().to_string())
            .collect();
        for f in [
            "part/msg_2/prt_3.json",
            "part/msg_2/prt_4.json",
            "message/ses_a/msg_3.json",
        ] {
            assert!(bad.contains(&st.join(f).display().to_string()), "{f}: {bad:?}");
        }
        // The reader reads the document whole.
        let src = cctool_core::io::Source::from_bytes("x", read(&st, "ses_a").unwrap());
        let s = crate::file::read(&src).unwrap();
        assert_eq!(s.messages.len(), 2);
        assert_eq!(s.unreadable.len(), 3);
    }

    #[test]
    fn a_message_whose_parts_folder_is_missing_is_said() {
        let (_d, st) = storage();
        std::fs::remove_dir_all(st.join("part/msg_1")).unwrap();
        let d = doc(&st);
        assert!(
            d[crate::file::UNREADABLE]
                .to_string()
                .contains("folder of the message's parts is missing")
        );
        assert_eq!(d["messages"][0]["parts"], serde_json::json!([]));
    }

    #[test]
    fn the_storage_lists_its_sessions_and_what_belongs_to_none() {
        let (_d, st) = storage();
        let m = members(&st).unwrap();
        assert_eq!(m.sessions.len(), 1);
        assert_eq!(m.sessions[0].name(), format!("{}#ses_a", st.display()));
        assert_eq!(m.sessions[0].modified_ms, Some(9));
        let said: Vec<&str> = m.problems.iter().map(|p| p.message.as_str()).collect();
        assert!(said.iter().any(|p| p.contains("session ses_gone")), "{said:?}");
        assert!(said.iter().any(|p| p.contains("message msg_none")), "{said:?}");
        assert!(said.iter().any(|p| p.contains("project has no file")), "{said:?}");
        write(&st.join("project/proj.json"), b"{}");
        let m = members(&st).unwrap();
        assert!(!m.problems.iter().any(|p| p.message.contains("project has no file")));
        // Its session file stands for the one session.
        let one = members(&st.join("session/proj/ses_a.json")).unwrap();
        assert_eq!(one.sessions.len(), 1);
        assert_eq!(one.sessions[0].id, "ses_a");
        assert!(members(&st.join("message/ses_a/msg_1.json")).is_none());
        assert!(members(st.parent().unwrap()).is_none());
    }

    #[test]
    fn sessions_the_database_beside_holds_are_left_out_and_said() {
        let (d, st) = storage();
        let db = rusqlite::Connection::open(d.path().join("opencode.db")).unwrap();
        db.execute_batch(
            "CREATE TABLE session (id TEXT PRIMARY KEY);
             CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT);
             CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT);
             INSERT INTO session VALUES ('ses_a');",
        )
        .unwrap();
        drop(db);
        let m = members(&st).unwrap();
        assert!(m.sessions.is_empty());
        assert!(m.problems.iter().any(|p| p.code == Code::MigratedSession));
        // Named by its file, the storage's copy is read.
        assert_eq!(members(&st.join("session/proj/ses_a.json")).unwrap().sessions.len(), 1);
    }

    #[test]
    fn a_backup_copy_reads_as_the_storage_does_and_keeps_every_file() {
        let (d, st) = storage();
        let copy = d.path().join("copy.db");
        snapshot(&st, &copy).unwrap();
        let from_copy: Value = serde_json::from_slice(&crate::db::export(&copy, "ses_a").unwrap()).unwrap();
        let from_storage = doc(&st);
        assert_eq!(from_copy["messages"], from_storage["messages"]);
        assert_eq!(from_copy["info"]["title"], "t");
        assert_eq!(from_copy["info"]["directory"], "/w");
        let db = rusqlite::Connection::open(&copy).unwrap();
        let files: i64 = db
            .query_row("SELECT COUNT(*) FROM cctool_storage_file", [], |r| r.get(0))
            .unwrap();
        assert_eq!(files, 10);
    }

    #[test]
    fn broken_files_are_errors_or_left_out_never_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let st = dir.path().join("storage");
        write(&st.join("session/p/ses_x.json"), b"");
        write(&st.join("message/ses_x/msg_1.json"), b"");
        std::fs::create_dir_all(st.join("part/msg_1/prt_1.json")).unwrap();
        assert!(read(&st, "ses_x").is_err());
        write(&st.join("session/p/ses_x.json"), b"{}");
        let d: Value = serde_json::from_slice(&read(&st, "ses_x").unwrap()).unwrap();
        assert_eq!(d["messages"], serde_json::json!([]));
        assert!(read(&st, "ses_none").is_err());
        assert!(members(&st).is_some());
    }
}
