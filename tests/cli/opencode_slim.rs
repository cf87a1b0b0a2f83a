//! `slim` of opencode's database: the report on a database grown with large tool outputs, and
//! taking the space back, which must leave every session's request after a resume as it was,
//! refuse while a client has the database open, and leave a whole database wherever the
//! process is killed.

use std::path::{Path, PathBuf};
use std::process::Command as Std;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::{Value, json};

use crate::util::{cctool, fixture, kill_after, next_random, records};

/// The session whose first turn ran a tool before the compaction a resume starts from.
const SESSION: &str = "ses_dc2d3a7f7ffePjSuyqFAs2GNEo";
/// That turn's assistant message.
const BEFORE: &str = "msg_23d2c786d001nMpoFcGrQRM5m3";
/// Its message after the compaction that ran a tool.
const AFTER: &str = "msg_23d2d6577001WUiedr8tj7R7fC";

/// How many large tool outputs are added before the compaction.
const ADDED: usize = 40;

/// A tool part of `message` whose output is `output`.
fn tool_part(db: &Connection, id: &str, message: &str, output: &str) {
    let data = json!({"type": "tool", "tool": "read", "callID": format!("call_{id}"), "state": {
        "status": "completed", "input": {"filePath": "/x"}, "output": output,
        "metadata": {"output": output}, "title": "x", "time": {"start": 1, "end": 2}}});
    db.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 1, 1, ?4)",
        rusqlite::params![id, message, SESSION, data.to_string()],
    )
    .unwrap();
}

/// The fixture database in WAL mode, as the client keeps it, grown with large tool outputs
/// before the compaction (some the same), one after it, and free pages.
fn grown(dir: &Path) -> PathBuf {
    let path = dir.join("opencode.db");
    std::fs::copy(fixture("opencode/opencode.db"), &path).unwrap();
    let db = Connection::open(&path).unwrap();
    db.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())).unwrap();
    for i in 0..ADDED {
        let body = format!("{i:04}").repeat(25_000 + (i % 4) * 1000);
        let output = if i % 5 == 0 { "same".repeat(20_000) } else { body };
        tool_part(&db, &format!("prt_zz{i:04}"), BEFORE, &output);
    }
    tool_part(&db, "prt_zzlast", AFTER, &"kept".repeat(10_000));
    db.execute_batch("CREATE TABLE scratch (x); INSERT INTO scratch VALUES (zeroblob(2000000)); DROP TABLE scratch;")
        .unwrap();
    db.close().unwrap();
    assert!(!path.with_file_name("opencode.db-wal").exists());
    path
}

fn sessions(db: &Path) -> Vec<String> {
    let c = Connection::open(db).unwrap();
    let mut st = c.prepare("SELECT id FROM session ORDER BY id").unwrap();
    st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

/// Each session's request after a resume (`rebuild-chain --api-view`).
fn views(db: &Path) -> Vec<String> {
    sessions(db)
        .iter()
        .map(|s| {
            let o = cctool()
                .args(["rebuild-chain", "--api-view", "--prompt", "go"])
                .arg(format!("{}#{s}", db.display()))
                .output()
                .unwrap();
            assert!(o.status.success(), "{s}: {}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8(o.stdout).unwrap()
        })
        .collect()
}

fn integrity(db: &Path) {
    let c = Connection::open(db).unwrap();
    let ok: String = c.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(ok, "ok", "{}", db.display());
}

fn outputs(db: &Path, message: &str) -> Vec<String> {
    let c = Connection::open(db).unwrap();
    let mut st = c
        .prepare("SELECT json_extract(data, '$.state.output') FROM part WHERE message_id = ?1 AND json_extract(data, '$.type') = 'tool'")
        .unwrap();
    st.query_map([message], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn slim(db: &Path) -> Std {
    let mut c = Std::new(assert_cmd::cargo::cargo_bin("cctool"));
    c.env("HOME", "/nonexistent-home")
        .args(["slim", "--in-place", "--clear-unloaded-outputs"])
        .arg(db);
    c
}

#[test]
fn the_report_names_where_the_space_goes() {
    let dir = tempfile::tempdir().unwrap();
    let db = grown(dir.path());
    let out = cctool()
        .args(["slim", "--dry-run", "--json"])
        .arg(&db)
        .output()
        .unwrap();
    // Something would change: what --dry-run says with exit 1.
    assert_eq!(out.status.code(), Some(1));
    let r = &records(&String::from_utf8_lossy(&out.stdout))[0];
    let s = &r["space"];
    assert_eq!(r["kind"], "slim_database");
    assert!(s["free_bytes"].as_u64().unwrap() >= 1_000_000, "{s}");
    assert_eq!(s["sessions"][0]["id"], SESSION);
    assert_eq!(s["tool_outputs"]["unloaded_count"], ADDED + 1);
    assert!(s["tool_outputs"]["unloaded_bytes"].as_u64().unwrap() > 3_000_000);
    assert_eq!(s["kinds"][0]["kind"], "tool");
    // Eight outputs are the same, and each is kept twice per part (the display copy).
    let d = &s["duplicates"];
    assert!(d["values"].as_u64().unwrap() >= 1, "{d}");
    assert_eq!(d["largest"][0]["copies"], 16);
    assert!(
        !db.with_file_name("opencode.db-wal").exists(),
        "the report wrote beside the database"
    );
}

#[test]
fn reclaiming_keeps_every_resume_and_returns_the_space() {
    let dir = tempfile::tempdir().unwrap();
    let db = grown(dir.path());
    let before = views(&db);
    let size = std::fs::metadata(&db).unwrap().len();
    let out = slim(&db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    integrity(&db);
    assert_eq!(views(&db), before);
    assert!(
        outputs(&db, BEFORE)
            .iter()
            .all(|o| o == "[Old tool result content cleared]")
    );
    assert_eq!(
        outputs(&db, AFTER).iter().filter(|o| o.starts_with("keptkept")).count(),
        1
    );
    let after = std::fs::metadata(&db).unwrap().len();
    assert!(after * 4 < size, "{size} -> {after}");
    let c = Connection::open(&db).unwrap();
    let mode: String = c.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    // The backup is the database as it was.
    let backup = dir.path().join("opencode.db.slim.bak");
    integrity(&backup);
    assert_eq!(outputs(&backup, BEFORE).len(), ADDED + 1);
    assert!(!outputs(&backup, BEFORE).iter().any(|o| o.starts_with("[Old")));
    // Nothing left to take back: the database is left alone, no second backup.
    let again = slim(&db).output().unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains("left alone"));
    assert!(!dir.path().join("opencode.db.slim.1.bak").exists());
}

#[test]
fn a_database_a_client_has_open_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let db = grown(dir.path());
    let before = views(&db);
    // The client's connection keeps the WAL and its index beside the database.
    let client = Connection::open(&db).unwrap();
    client
        .query_row("SELECT count(*) FROM session", [], |_| Ok(()))
        .unwrap();
    let out = slim(&db).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("opencode has it open"),
        "{out:?}"
    );
    assert_eq!(outputs(&db, BEFORE).len(), ADDED + 1);
    assert!(!outputs(&db, BEFORE).iter().any(|o| o.starts_with("[Old")));
    let forced = slim(&db).arg("--force").output().unwrap();
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    assert!(String::from_utf8_lossy(&forced.stdout).contains("(vacuum)"));
    // The client's connection sees the slimmed database: the file it holds is the same one.
    let n: i64 = client
        .query_row(
            "SELECT count(*) FROM part WHERE json_extract(data, '$.state.output') = '[Old tool result content cleared]'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n as usize, ADDED + 1);
    drop(client);
    integrity(&db);
    assert_eq!(views(&db), before);
}

/// Every session as it was, or as slimmed: the database opens whole and every resume sends
/// what it sent.
fn whole(db: &Path, before: &[String], when: &str) {
    assert_eq!(views(db), before, "killed {when}");
    integrity(db);
    let cleared = outputs(db, BEFORE).iter().filter(|o| o.starts_with("[Old")).count();
    assert!(
        cleared == 0 || cleared == ADDED + 1,
        "killed {when}: {cleared} outputs cleared, a half-written state"
    );
}

#[test]
fn killed_at_any_step_the_database_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let original = grown(dir.path());
    let before = views(&original);
    let steps = [
        "after-backup",
        "in-transaction",
        "before-commit",
        "after-commit",
        "after-vacuum-into",
        "after-rename",
    ];
    for (i, step) in steps.iter().enumerate() {
        let work = dir.path().join(format!("step{i}"));
        std::fs::create_dir(&work).unwrap();
        let db = work.join("opencode.db");
        std::fs::copy(&original, &db).unwrap();
        let out = slim(&db).env("CCTOOL_SLIM_DIE_AT", step).output().unwrap();
        assert!(!out.status.success(), "{step}: not stopped");
        // The files the killed run left, as they are, for a second run.
        let again = dir.path().join(format!("again{i}"));
        std::fs::create_dir(&again).unwrap();
        for e in std::fs::read_dir(&work).unwrap().flatten() {
            std::fs::copy(e.path(), again.join(e.file_name())).unwrap();
        }
        whole(&db, &before, step);
        // A WAL the killed run left looks like a client's: refused, and --force finds no
        // client holding the database and finishes the work.
        let db = again.join("opencode.db");
        let done = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).contains("left alone");
        if again.join("opencode.db-wal").exists() {
            let out = slim(&db).output().unwrap();
            assert!(out.status.code() == Some(2) || done(&out), "{step}: {out:?}");
        }
        let out = slim(&db).arg("--force").output().unwrap();
        assert!(out.status.success(), "{step}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(
            done(&out) || String::from_utf8_lossy(&out.stdout).contains("(vacuum-into)"),
            "{step}"
        );
        whole(&db, &before, step);
        assert!(outputs(&db, BEFORE).iter().all(|o| o.starts_with("[Old")), "{step}");
    }
    // SIGKILL after delays spread over a whole run.
    let work = dir.path().join("timed");
    std::fs::create_dir(&work).unwrap();
    let db = work.join("opencode.db");
    std::fs::copy(&original, &db).unwrap();
    let t = Instant::now();
    assert!(slim(&db).output().unwrap().status.success());
    let run = t.elapsed().as_micros() as u64;
    let mut seed = 39;
    for n in 0..12 {
        let work = dir.path().join(format!("kill{n}"));
        std::fs::create_dir(&work).unwrap();
        let db = work.join("opencode.db");
        std::fs::copy(&original, &db).unwrap();
        let delay = Duration::from_micros(next_random(&mut seed) % (run + run / 4).max(1));
        kill_after(&mut slim(&db), delay);
        whole(&db, &before, &format!("after {delay:?}"));
    }
}

#[test]
fn a_database_in_a_clients_write_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = grown(dir.path());
    let c = Connection::open(&db).unwrap();
    c.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(())).unwrap();
    c.execute_batch("BEGIN IMMEDIATE; UPDATE session SET title = title;")
        .unwrap();
    assert!(!db.with_file_name("opencode.db-wal").exists());
    let out = slim(&db).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("locked"), "{out:?}");
    c.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn a_session_file_is_not_a_database() {
    let out = cctool()
        .args(["slim", "--dry-run", "--clear-unloaded-outputs"])
        .arg(fixture("opencode/ses_dc2d3a7f7ffePjSuyqFAs2GNEo.export.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = Value::String(String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(v.as_str().unwrap().contains("is for a database"), "{v}");
}
