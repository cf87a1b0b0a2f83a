//! `backup` and `restore` of opencode's database: the database is copied whole with SQLite's
//! backup API (every commit, in its WAL too, and nothing of a transaction still open, while the
//! client writes beside it), listed session by session, and a session comes back as the
//! document `opencode export` prints, which `opencode import` reads.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::opencode::{api_view, sent_after_system};
use crate::util::{Client, cctool, fixture, realclient, records};

/// A home folder whose opencode data folder holds a copy of the fixture database.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data/opencode");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::copy(fixture("opencode/opencode.db"), data.join("opencode.db")).unwrap();
        Home { dir }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("data/opencode/opencode.db")
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn cmd(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        cctool()
            .env("HOME", self.dir.path())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .current_dir(self.dir.path())
            .args(args)
            .assert()
    }

    fn json(&self, args: &[&str]) -> Vec<Value> {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        records(&String::from_utf8_lossy(&self.cmd(&all).get_output().stdout))
    }

    /// The archived sessions `restore` lists, by id: (state, title).
    fn listed(&self) -> Vec<(String, bool, bool, String)> {
        let mut l: Vec<_> = self
            .json(&["restore"])
            .into_iter()
            .map(|r| {
                (
                    r["session_id"].as_str().unwrap().to_string(),
                    r["exists"].as_bool().unwrap(),
                    r["same"].as_bool().unwrap(),
                    r["title"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        l.sort();
        l
    }

    fn restored(&self, id: &str) -> Value {
        let p = self.out().join(format!("opencode/{id}.json"));
        serde_json::from_slice(&std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
    }
}

/// The sessions of the fixture database that the real client exported.
fn exported() -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(fixture("opencode"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".export.json").map(str::to_string)
        })
        .collect();
    ids.sort();
    assert!(ids.len() >= 3, "{ids:?}");
    ids
}

fn delete_session(db: &Path, id: &str) {
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute(
        "DELETE FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = ?1)",
        [id],
    )
    .unwrap();
    c.execute("DELETE FROM message WHERE session_id = ?1", [id]).unwrap();
    c.execute("DELETE FROM session WHERE id = ?1", [id]).unwrap();
}

#[test]
fn the_database_is_backed_up_once_and_each_session_restores_as_the_client_exported_it() {
    let h = Home::new();
    let first = h.json(&["backup"]);
    assert_eq!(
        (first[0]["files"].as_u64(), first[0]["new_files"].as_u64()),
        (Some(1), Some(1)),
        "{first:?}"
    );
    assert!(first[0]["snapshot"].is_string());
    let second = h.json(&["backup"]);
    assert!(
        second[0]["snapshot"].is_null(),
        "nothing changed, nothing written: {second:?}"
    );

    let ids = exported();
    let listed = h.listed();
    assert_eq!(listed.iter().map(|l| l.0.clone()).collect::<Vec<_>>(), ids);
    assert!(
        listed.iter().all(|l| l.1 && l.2),
        "every session present and the same: {listed:?}"
    );

    // Into the agent's store a session inside a database is not written: the copy would
    // undo what the client wrote since.
    let refused = h.cmd(&["restore", &ids[0]]).code(1);
    let err = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(err.contains("add --to DIR"), "{err}");
    assert!(!h.out().exists());

    let out = h.out();
    let mut args = vec!["restore", "--to", out.to_str().unwrap()];
    args.extend(ids.iter().map(String::as_str));
    let assert = h.cmd(&args).success();
    let said = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(said.contains("opencode import FILE"), "{said}");
    for id in &ids {
        let client: Value =
            serde_json::from_slice(&std::fs::read(fixture(&format!("opencode/{id}.export.json"))).unwrap()).unwrap();
        assert_eq!(h.restored(id), client, "{id}: restored as `opencode export` prints it");
    }
    resumed_by_the_client(&h, &ids);
    // Again: the files are there with these bytes, nothing to do.
    let again = h.json(&{
        let mut a = vec!["restore", "--to", out.to_str().unwrap()];
        a.extend(ids.iter().map(String::as_str));
        a
    });
    assert!(again.is_empty(), "{again:?}");
}

#[test]
fn a_session_deleted_from_the_database_is_listed_deleted_and_restored_alone() {
    let h = Home::new();
    h.cmd(&["backup"]).success();
    let ids = exported();
    delete_session(&h.db(), &ids[1]);
    let listed = h.listed();
    let gone: Vec<&str> = listed.iter().filter(|l| !l.1).map(|l| l.0.as_str()).collect();
    assert_eq!(gone, [ids[1].as_str()]);
    let restored = h.json(&["restore", "--deleted", "--to", h.out().to_str().unwrap()]);
    assert_eq!(restored.len(), 1, "{restored:?}");
    assert_eq!(restored[0]["session_id"], ids[1].as_str());
    assert!(
        restored[0]["from"]
            .as_str()
            .unwrap()
            .ends_with(&format!("opencode.db#{}", ids[1]))
    );
    assert_eq!(h.restored(&ids[1])["info"]["id"], ids[1].as_str());
    assert_eq!(std::fs::read_dir(h.out().join("opencode")).unwrap().count(), 1);
}

#[test]
fn a_backup_while_the_client_writes_holds_every_commit_and_nothing_uncommitted() {
    let h = Home::new();
    let ids = exported();
    let writer = rusqlite::Connection::open(h.db()).unwrap();
    let mode: String = writer.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    // The client's commits wait in the WAL until a checkpoint: the copy must hold them.
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute("UPDATE session SET title = 'committed' WHERE id = ?1", [&ids[0]])
        .unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    writer
        .execute("UPDATE session SET title = 'uncommitted' WHERE id = ?1", [&ids[1]])
        .unwrap();
    let wal = PathBuf::from(format!("{}-wal", h.db().display()));
    let wal_before = std::fs::metadata(&wal).unwrap().len();
    assert!(wal_before > 0);

    h.cmd(&["backup"]).success();
    let titles: Vec<(String, String)> = h.listed().into_iter().map(|l| (l.0, l.3)).collect();
    assert_eq!(titles[0], (ids[0].clone(), "committed".to_string()), "{titles:?}");
    assert_ne!(titles[1].1, "uncommitted", "{titles:?}");
    // The backup neither checkpointed nor waited for the open transaction.
    assert_eq!(std::fs::metadata(&wal).unwrap().len(), wal_before);
    writer.execute_batch("COMMIT").unwrap();

    let out = h.out();
    h.cmd(&["restore", "--to", out.to_str().unwrap(), &ids[0], &ids[1]])
        .success();
    assert_eq!(h.restored(&ids[0])["info"]["title"], "committed");
    assert_ne!(h.restored(&ids[1])["info"]["title"], "uncommitted");

    // The commit after the copy is the next backup's.
    let next = h.json(&["backup"]);
    assert_eq!(next[0]["changed_files"].as_u64(), Some(1), "{next:?}");
    let titles: Vec<String> = h.listed().into_iter().map(|l| l.3).collect();
    assert!(titles.contains(&"uncommitted".to_string()), "{titles:?}");
    // The archive holds no copy left behind.
    let stray: Vec<_> = walkdir::WalkDir::new(h.dir.path().join("data/cctool/backup"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".database-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// Each restored session, loaded by the real client with `opencode import` and resumed: the
/// request it sends is what `--api-view` gives of the session in the database it was backed
/// up from. Skipped where the client or the agent-support mock is not here.
fn resumed_by_the_client(h: &Home, ids: &[String]) {
    let Some(script) = realclient(Client::Opencode) else {
        return;
    };
    let Some(mock) = crate::util::opencode_mock() else {
        return;
    };
    for id in ids {
        let file = h.out().join(format!("opencode/{id}.json"));
        let out = std::process::Command::new("bash")
            .arg(&script)
            .arg(&file)
            .arg("say-ok")
            .env("OTHERAGENTS", &mock)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
        );
        let request: Value = serde_json::from_slice(&out.stdout).unwrap();
        let member = format!("{}#{id}", h.db().display());
        assert_eq!(sent_after_system(&request), api_view(&member, "say-ok"), "{id}");
    }
}
