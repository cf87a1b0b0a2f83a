//! opencode's older per-file storage (`storage/session/<project>/<id>.json`, `message/<id>/…`,
//! `part/<message>/…`): each session read as one of the database's, named `STORAGE#ID`, its own
//! session file, or its id; its request after a resume against what opencode 1.18.33 sent once
//! the storage was migrated (`fixtures/opencode/legacy/`, made by
//! `scripts/realclient/opencode/record-storage.sh` with opencode-ai 1.1.65 and 1.2.1); found in
//! the user's data folder beside the database and counted once; and a broken storage read with
//! each broken file named.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::opencode::{api_view, sent_after_system};
use crate::util::{Client, cctool, fixture, realclient, records, stdout_of};

fn storage() -> PathBuf {
    fixture("opencode/legacy/storage")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The recorded requests of the storage's sessions: `(session id, the request)`.
pub(crate) fn recorded() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(fixture("opencode/legacy"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            Some((name.strip_suffix(".sent.json")?.to_string(), e.path()))
        })
        .collect();
    out.sort();
    assert_eq!(out.len(), 2, "a request recorded for each session of the storage");
    out
}

fn sessions(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["scan", "--json"];
    all.extend_from_slice(args);
    records(&stdout_of(&all))
        .into_iter()
        .filter(|r| r["kind"] == "session")
        .collect()
}

/// A home whose opencode data folder holds a copy of the storage, and `db` as `opencode.db`
/// when given.
fn home(db: Option<&Path>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data/opencode");
    copy_tree(&storage(), &data.join("storage"));
    if let Some(db) = db {
        std::fs::copy(db, data.join("opencode.db")).unwrap();
    }
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

fn in_home(dir: &Path, args: &[&str]) -> std::process::Output {
    cctool()
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_storage_is_listed_session_by_session_and_named_storage_hash_id() {
    let all = sessions(&[s(&storage())]);
    assert_eq!(all.len(), 2);
    for r in &all {
        let id = r["session_id"].as_str().unwrap();
        assert_eq!(r["format"], "opencode");
        assert_eq!(r["path"], format!("{}#{id}", storage().display()));
        assert_eq!(r["agent_versions"], serde_json::json!(["1.1.65"]));
    }
    let a = all.iter().find(|r| r["project"] == "proj-a").unwrap();
    assert_eq!(a["compactions"], 1);
    assert_eq!(a["last_compaction_trigger"], "auto");
    // The name printed is a PATH again, as is the session's own file.
    let name = a["path"].as_str().unwrap();
    assert_eq!(sessions(&[name]).len(), 1);
    let id = a["session_id"].as_str().unwrap();
    let file = storage().join(format!("session/global/{id}.json"));
    let by_file = sessions(&[s(&file)]);
    assert_eq!(by_file.len(), 1);
    assert_eq!(by_file[0]["session_id"], id);
    assert_eq!(sessions(&[by_file[0]["path"].as_str().unwrap()]).len(), 1);
}

#[test]
fn api_view_equals_what_the_client_sent_after_migrating_the_storage() {
    for (id, sent) in recorded() {
        let request: Value = serde_json::from_slice(&std::fs::read(&sent).unwrap()).unwrap();
        let want = sent_after_system(&request);
        let from_storage = api_view(&format!("{}#{id}", storage().display()), "say-ok");
        assert_eq!(from_storage, want, "{id} read from the storage");
        let file = storage().join(format!("session/global/{id}.json"));
        assert_eq!(api_view(s(&file), "say-ok"), want, "{id} read by its session file");
        // The database 1.2.1 migrated the storage into says the same.
        let migrated = fixture("opencode/legacy/migrated.db");
        assert_eq!(
            api_view(&format!("{}#{id}", migrated.display()), "say-ok"),
            want,
            "{id} read from the migrated database"
        );
    }
}

#[test]
fn the_real_client_resumes_the_migrated_storage_as_recorded() {
    let Some(script) = realclient(Client::Opencode) else {
        return;
    };
    let Some(mock) = crate::util::opencode_mock() else {
        return;
    };
    let migrated = fixture("opencode/legacy/migrated.db");
    for (id, _) in recorded() {
        let out = std::process::Command::new("bash")
            .arg(&script)
            .arg(format!("{}#{id}", migrated.display()))
            .arg("say-ok")
            .env("OTHERAGENTS", &mock)
            .output()
            .unwrap();
        if !out.status.success() {
            crate::util::skip_notice(&format!(
                "opencode sent no request for {id}: {}",
                String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
            ));
            continue;
        }
        let request: Value = serde_json::from_slice(&out.stdout).unwrap();
        let from_storage = api_view(&format!("{}#{id}", storage().display()), "say-ok");
        assert_eq!(from_storage, sent_after_system(&request), "{id}");
    }
}

#[test]
fn the_reading_commands_read_it_through_the_session_model() {
    let a = sessions(&[s(&storage())])
        .into_iter()
        .find(|r| r["project"] == "proj-a")
        .unwrap();
    let name = a["path"].as_str().unwrap().to_string();
    let summaries = records(&stdout_of(&["extract-summary", "--json", &name]));
    assert_eq!(summaries.iter().filter(|r| r["current"] == true).count(), 1);
    let doctor = cctool().args(["doctor", "--json", s(&storage())]).output().unwrap();
    assert!(doctor.status.success(), "{}", String::from_utf8_lossy(&doctor.stderr));
    let exported = stdout_of(&["export", &name]);
    assert!(exported.contains("after-the-compaction-RUNTOOL"), "{exported}");
    let found = stdout_of(&["search", "--json", "after-the-compaction", s(&storage())]);
    assert!(found.contains(&name), "{found}");
    let rows = stdout_of(&["scan", "--rows", "messages", "--json", s(&storage())]);
    assert!(records(&rows).len() > 5, "{rows}");
    let full = stdout_of(&["rebuild-chain", "--full", &name]);
    let loaded = stdout_of(&["rebuild-chain", &name]);
    assert!(full.lines().count() > loaded.lines().count());
}

#[test]
fn the_data_folder_is_read_with_its_storage_and_each_session_once() {
    // A database of other sessions beside the storage: both are read.
    let dir = home(Some(&fixture("opencode/opencode.db")));
    let out = in_home(dir.path(), &["scan", "--json"]);
    let listed: Vec<Value> = records(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .filter(|r| r["kind"] == "session")
        .collect();
    assert_eq!(listed.len(), 3 + 2, "{}", String::from_utf8_lossy(&out.stderr));
    // A storage session's id names it again.
    let id = recorded()[0].0.clone();
    let out = in_home(dir.path(), &["scan", "--json", &id[..12]]);
    let got = records(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        got[0]["session_id"],
        id.as_str(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(got[0]["path"].as_str().unwrap().contains("storage#"));

    // The database the storage was migrated into: each session once, from the database,
    // which is what the client loads; the storage's copies are said once.
    let dir = home(Some(&fixture("opencode/legacy/migrated.db")));
    let out = in_home(dir.path(), &["scan", "--json"]);
    let listed: Vec<Value> = records(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .filter(|r| r["kind"] == "session")
        .collect();
    assert_eq!(listed.len(), 2);
    assert!(
        listed
            .iter()
            .all(|r| r["path"].as_str().unwrap().contains("opencode.db#"))
    );
    let out = in_home(dir.path(), &["doctor", "--json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("migrated-session"), "{text}");
    // The storage's copy is still read by its session file.
    let file = dir
        .path()
        .join(format!("data/opencode/storage/session/global/{id}.json"));
    let out = in_home(dir.path(), &["scan", "--json", s(&file)]);
    let got = records(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(got.iter().filter(|r| r["kind"] == "session").count(), 1, "{got:?}");
}

#[test]
fn doctor_names_each_broken_file_of_a_storage_and_reads_the_rest() {
    let dir = home(None);
    let st = dir.path().join("data/opencode/storage");
    let (a, _) = recorded()[1].clone();
    let messages: Vec<PathBuf> = {
        let mut m: Vec<PathBuf> = std::fs::read_dir(st.join("message").join(&a))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        m.sort();
        m
    };
    // A part that is not JSON, a message whose parts are gone, a message that is not JSON, and
    // messages and parts of no session.
    let first = messages[0].file_stem().unwrap().to_string_lossy().into_owned();
    let part = std::fs::read_dir(st.join("part").join(&first))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    std::fs::write(&part, b"{\"type\": ").unwrap();
    let gone = messages[1].file_stem().unwrap().to_string_lossy().into_owned();
    std::fs::remove_dir_all(st.join("part").join(&gone)).unwrap();
    std::fs::write(&messages[2], b"\xff not json").unwrap();
    std::fs::create_dir_all(st.join("message/ses_nosuchsession")).unwrap();
    std::fs::write(st.join("message/ses_nosuchsession/msg_x.json"), b"{}").unwrap();
    std::fs::create_dir_all(st.join("part/msg_nosuchmessage")).unwrap();
    std::fs::write(st.join("part/msg_nosuchmessage/prt_x.json"), b"{}").unwrap();

    let out = cctool().args(["doctor", "--json", s(&st)]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    for (code, path) in [
        ("unreadable-row", part.display().to_string()),
        ("unreadable-row", st.join("part").join(&gone).display().to_string()),
        ("unreadable-row", messages[2].display().to_string()),
        ("orphan-row", st.join("message/ses_nosuchsession").display().to_string()),
        ("orphan-row", st.join("part/msg_nosuchmessage").display().to_string()),
    ] {
        assert!(
            records(&text)
                .iter()
                .any(|r| r["code"] == code && r["message"].as_str().is_some_and(|m| m.contains(&path))),
            "{code} {path}: {text}"
        );
    }
    // Both sessions are still read, the damaged one without what could not be read.
    assert_eq!(sessions(&[s(&st)]).len(), 2);
    let view = cctool()
        .args([
            "rebuild-chain",
            "--api-view",
            "--prompt",
            "say-ok",
            &format!("{}#{a}", st.display()),
        ])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&view.stderr).contains("panicked"));
    // A session file that is not JSON is that session's error, and the other is read.
    let (b, _) = recorded()[0].clone();
    std::fs::write(st.join(format!("session/global/{b}.json")), b"nope").unwrap();
    let out = cctool().args(["scan", "--json", s(&st)]).output().unwrap();
    let got = records(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(got.iter().filter(|r| r["kind"] == "session").count(), 1);
    let session_file = st.join(format!("session/global/{b}.json")).display().to_string();
    assert!(
        got.iter().any(|r| r["kind"] == "diagnostic"
            && r["file"].as_str().is_some_and(|f| f.ends_with(&b))
            && r["message"].as_str().is_some_and(|m| m.contains(&session_file))),
        "{got:?}"
    );
}

#[test]
fn backup_takes_the_storage_and_restore_gives_each_session_back_as_its_export() {
    let dir = home(None);
    let out = in_home(dir.path(), &["backup"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed = records(&String::from_utf8_lossy(
        &in_home(dir.path(), &["--json", "restore"]).stdout,
    ));
    assert_eq!(listed.len(), 2);
    assert!(
        listed.iter().all(|r| r["exists"] == true && r["same"] == true),
        "{listed:?}"
    );
    let (id, sent) = recorded()[1].clone();
    let to = dir.path().join("out");
    let out = in_home(dir.path(), &["restore", "--to", s(&to), &id]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let restored = to.join(format!("opencode/{id}.json"));
    let request: Value = serde_json::from_slice(&std::fs::read(&sent).unwrap()).unwrap();
    assert_eq!(api_view(s(&restored), "say-ok"), sent_after_system(&request));
}

/// Every file under `dir` with its bytes and modification time.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                let m = e.metadata().unwrap().modified().unwrap();
                out.push((e.path(), std::fs::read(e.path()).unwrap(), m));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn reading_and_backing_up_never_write_the_storage() {
    let dir = home(None);
    let st = dir.path().join("data/opencode/storage");
    let before = tree(&st);
    let id = recorded()[1].0.clone();
    let name = format!("{}#{id}", st.display());
    for args in [
        vec!["scan"],
        vec!["doctor"],
        vec!["search", "RUNTOOL"],
        vec!["extract-summary"],
        vec!["backup"],
        vec!["rebuild-chain", "--api-view", "--prompt", "say-ok", name.as_str()],
        vec!["export", name.as_str()],
    ] {
        let out = in_home(dir.path(), &args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(tree(&st), before);
}
