//! `cctool relocate OLD NEW` (docs/stores.md, "Sessions follow the project"): on a home that
//! holds the shipped store fixtures (Claude Code projects with a subagent transcript, Codex
//! rollouts registered in a thread index as Codex 0.171 creates it, a pi session), the
//! sessions of OLD follow it and nothing else changes; a dry run and a second run change
//! nothing; a run killed at each step is finished by the next; the real clients, where they
//! are installed, list and resume the moved sessions from NEW with the request they sent from
//! OLD.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cctool::agents::codex::store as codex;

use crate::util::{Client, age, cctool, copy_tree, fixture, realclient};

const OLD: &str = "/home/dev/shop";
const NEW: &str = "/work/shop";

/// A home with `.claude`, `.codex` (and its thread index, every rollout registered) and
/// `.pi`, every file old enough not to be live.
fn populated() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture("store/.claude"), &home.path().join(".claude"));
    let index = crate::store::codex_home_with_index();
    let codex_home = home.path().join(".codex");
    copy_tree(&fixture("store/.codex"), &codex_home);
    for f in std::fs::read_dir(index.path()).unwrap() {
        let f = f.unwrap().path();
        if f.is_file() {
            std::fs::copy(&f, codex_home.join(f.file_name().unwrap())).unwrap();
        }
    }
    for r in rollouts(&codex_home) {
        codex::register_rollout(&codex_home, &r).unwrap();
        age(&r);
    }
    let pi = home.path().join(".pi/agent/sessions/--home-dev-shop--");
    std::fs::create_dir_all(&pi).unwrap();
    let text = std::fs::read_to_string(fixture("pi/basic.jsonl")).unwrap();
    let file = pi.join("2026-05-01T10-00-00-000Z_019e0000-0000-7000-8000-000000000001.jsonl");
    std::fs::write(&file, text.replacen(r#""cwd":"/tmp""#, &format!(r#""cwd":"{OLD}""#), 1)).unwrap();
    age(&file);
    let qwen = home.path().join(".qwen/projects/-home-dev-shop/chats");
    std::fs::create_dir_all(&qwen).unwrap();
    let text = std::fs::read_to_string(fixture("qwen/ran-tools.jsonl")).unwrap();
    std::fs::write(qwen.join(QWEN), text.replace("/tmp/cctool-qwen-record/proj", OLD)).unwrap();
    age(&qwen.join(QWEN));
    let copilot = home.path().join(".copilot");
    copy_tree(&fixture("copilot/store"), &copilot);
    for f in walkdir::WalkDir::new(&copilot) {
        let f = f.unwrap().into_path();
        if f.is_file() {
            let text = std::fs::read_to_string(&f).unwrap().replace("/home/dev/gadget", OLD);
            std::fs::write(&f, text).unwrap();
            age(&f);
        }
    }
    home
}

const QWEN: &str = "429e1d8c-a905-4f2a-8689-f018a6091520.jsonl";

const COPILOT: &str = ".copilot/session-state/5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19";

fn rollouts(codex_home: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(codex_home.join("sessions"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

fn relocate(home: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    cctool().env("HOME", home).arg("relocate").args(args).assert()
}

/// Every file of the home and its bytes, the index as its rows.
fn tree(home: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(home) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(home).unwrap().display().to_string();
        if e.file_type().is_file() && !rel.contains("state_5.sqlite") {
            out.insert(rel, std::fs::read(e.path()).unwrap());
        }
    }
    out.insert("threads".into(), threads(&home.join(".codex")).into_bytes());
    out
}

fn threads(codex_home: &Path) -> String {
    let db = rusqlite::Connection::open(codex_home.join(codex::STATE_DB)).unwrap();
    let mut st = db
        .prepare("SELECT id, cwd, rollout_path FROM threads ORDER BY id")
        .unwrap();
    st.query_map([], |r| {
        Ok(format!(
            "{} {} {}\n",
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// The lines of `after` are those of `before` with only the strings at `cwd` keys changed
/// from OLD to NEW.
fn only_cwds_changed(before: &[u8], after: &[u8]) {
    let (b, a) = (String::from_utf8_lossy(before), String::from_utf8_lossy(after));
    assert_eq!(b.lines().count(), a.lines().count());
    for (lb, la) in b.lines().zip(a.lines()) {
        assert_eq!(lb.replace(&format!(r#""cwd":"{OLD}"#), &format!(r#""cwd":"{NEW}"#)), la);
    }
}

#[test]
fn a_dry_run_says_what_would_change_and_changes_nothing() {
    let home = populated();
    let before = tree(home.path());
    let out = relocate(home.path(), &["--dry-run", "--json", OLD, NEW]).code(1);
    let recs = crate::util::records(&String::from_utf8_lossy(&out.get_output().stdout));
    let actions: Vec<(String, String)> = recs
        .iter()
        .map(|r| {
            (
                r["agent"].as_str().unwrap().into(),
                r["action"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        [
            ("claude-code".into(), "moved".into()),
            ("claude-code".into(), "moved".into()),
            ("codex".into(), "rewritten".into()),
            ("pi".into(), "moved".into()),
            ("copilot".into(), "rewritten".into()),
            ("qwen-code".into(), "moved".into()),
        ]
    );
    assert!(recs.iter().all(|r| r["dry_run"] == true && r["backup"].is_null()));
    assert_eq!(tree(home.path()), before);
}

#[test]
fn sessions_follow_the_folder_and_a_second_run_changes_nothing() {
    let home = populated();
    let h = home.path();
    let cc_old = h.join(".claude/projects/-home-dev-shop");
    let session = "b2c3d4e5-2222-4bbb-8bbb-00000000000b";
    let before = std::fs::read(cc_old.join(format!("{session}.jsonl"))).unwrap();
    let sub_before = std::fs::read(cc_old.join(session).join("subagents/agent-b2c3.jsonl")).unwrap();
    let api_before = std::fs::read_dir(h.join(".claude/projects/-home-dev-api"))
        .unwrap()
        .count();
    relocate(h, &[OLD, NEW])
        .success()
        .stderr(predicates::str::contains("changed the directory of 1 thread(s)"));

    let cc_new = h.join(".claude/projects/-work-shop");
    only_cwds_changed(
        &before,
        &std::fs::read(cc_new.join(format!("{session}.jsonl"))).unwrap(),
    );
    only_cwds_changed(
        &sub_before,
        &std::fs::read(cc_new.join(session).join("subagents/agent-b2c3.jsonl")).unwrap(),
    );
    assert_eq!(
        std::fs::read(cc_old.join(format!("{session}.jsonl.relocate.bak"))).unwrap(),
        before
    );
    assert!(!cc_old.join(session).exists());
    assert_eq!(
        std::fs::read_dir(h.join(".claude/projects/-home-dev-api"))
            .unwrap()
            .count(),
        api_before
    );
    // Codex: the rollout where it was, its directory and its index row changed, the other
    // project's thread untouched.
    let rows = threads(&h.join(".codex"));
    assert!(
        rows.contains("019d2a2a-0b11-7c22-8d33-4e445f667788 /work/shop "),
        "{rows}"
    );
    assert!(
        rows.contains("019d2a29-fe67-7632-b14f-5419a515b120 /home/dev/api "),
        "{rows}"
    );
    assert!(h.join(".codex/state_5.sqlite.relocate.bak").is_file());
    // pi: the session in the folder of NEW, its header's cwd NEW.
    let pi =
        h.join(".pi/agent/sessions/--work-shop--/2026-05-01T10-00-00-000Z_019e0000-0000-7000-8000-000000000001.jsonl");
    assert!(std::fs::read_to_string(pi).unwrap().starts_with(&format!(
        r#"{{"type":"session","version":3,"id":"019e0000-0000-7000-8000-000000000001","timestamp":"2026-05-01T10:00:00.000Z","cwd":"{NEW}"}}"#
    )));

    // Qwen Code: in the chats of the new folder, every record's cwd NEW.
    let qwen = std::fs::read_to_string(h.join(".qwen/projects/-work-shop/chats").join(QWEN)).unwrap();
    assert_eq!(qwen.matches(&format!(r#""cwd":"{NEW}""#)).count(), 16);
    // Copilot CLI: the session where it was, its start context and workspace.yaml say NEW.
    let events = std::fs::read_to_string(h.join(COPILOT).join("events.jsonl")).unwrap();
    assert!(
        events.contains(&format!(r#""context":{{"cwd":"{NEW}","gitRoot":"{NEW}""#)),
        "{events}"
    );
    let yaml = std::fs::read_to_string(h.join(COPILOT).join("workspace.yaml")).unwrap();
    assert!(yaml.contains(&format!("\ncwd: {NEW}\ngit_root: {NEW}\n")), "{yaml}");
    assert!(h.join(COPILOT).join("workspace.yaml.relocate.bak").is_file());

    let after = tree(h);
    relocate(h, &[OLD, NEW]).success().stdout("");
    relocate(h, &["--dry-run", OLD, NEW]).code(0).stdout("");
    assert_eq!(tree(h), after);
}

#[test]
fn content_paths_change_only_when_asked_and_only_whole() {
    let home = populated();
    let h = home.path();
    let rollout = rollouts(&h.join(".codex"))
        .into_iter()
        .find(|p| p.to_string_lossy().contains("04/06"))
        .unwrap();
    let text = std::fs::read_to_string(&rollout).unwrap();
    assert!(text.contains("<cwd>/home/dev/shop</cwd>"));
    relocate(h, &[OLD, NEW]).success();
    let kept = std::fs::read_to_string(&rollout).unwrap();
    assert!(
        kept.contains("<cwd>/home/dev/shop</cwd>"),
        "the conversation is kept without --rewrite-content"
    );

    let home = populated();
    let h = home.path();
    let rollout = h.join(rollout.strip_prefix(rollout.ancestors().nth(6).unwrap()).unwrap());
    let mut text = std::fs::read_to_string(&rollout).unwrap();
    text.push_str(&format!(
        "{}\n",
        serde_json::json!({"timestamp":"2026-04-06T14:09:00.000Z","type":"event_msg","payload":{"type":"agent_message",
            "message":"see /home/dev/shop/src/lib.rs, not /home/dev/shopping nor /x/home/dev/shop"}})
    ));
    std::fs::write(&rollout, &text).unwrap();
    age(&rollout);
    let out = relocate(h, &["--rewrite-content", "--json", OLD, NEW]).success();
    let recs = crate::util::records(&String::from_utf8_lossy(&out.get_output().stdout));
    let codex = recs.iter().find(|r| r["agent"] == "codex").unwrap();
    let last = text.lines().count() as u64;
    assert_eq!(codex["content_rewrites"], 2, "{codex}");
    assert_eq!(codex["content_lines"][1], last, "{codex}");
    let after = std::fs::read_to_string(&rollout).unwrap();
    assert!(after.contains("<cwd>/work/shop</cwd>"));
    assert!(after.contains("see /work/shop/src/lib.rs, not /home/dev/shopping nor /x/home/dev/shop"));
}

#[test]
fn a_copy_keeps_the_originals_where_the_store_allows_two() {
    let home = populated();
    let h = home.path();
    let out = relocate(h, &["--copy", "--json", OLD, NEW]).code(2);
    let recs = crate::util::records(&String::from_utf8_lossy(&out.get_output().stdout));
    let copied = recs
        .iter()
        .filter(|r| r["action"] == "copied" && r["error"].is_null())
        .count();
    assert_eq!(copied, 4, "Claude Code's two, pi's, Qwen Code's: {recs:?}");
    for agent in ["codex", "copilot"] {
        let r = recs.iter().find(|r| r["agent"] == agent).unwrap();
        assert!(r["error"].as_str().unwrap().contains("same id"), "{r}");
    }
    let old = h.join(".claude/projects/-home-dev-shop/b2c3d4e5-2222-4bbb-8bbb-00000000000b");
    assert!(old.join("subagents/agent-b2c3.jsonl").is_file());
    let new = h.join(".claude/projects/-work-shop/b2c3d4e5-2222-4bbb-8bbb-00000000000b");
    assert!(
        std::fs::read_to_string(new.join("subagents/agent-b2c3.jsonl"))
            .unwrap()
            .contains(r#""cwd":"/work/shop""#)
    );
    let after = tree(h);
    relocate(h, &["--copy", OLD, NEW]).code(2);
    assert_eq!(tree(h), after, "a second copy changes nothing");
}

#[test]
fn new_inside_old_and_live_sessions_are_refused() {
    let home = populated();
    let h = home.path();
    relocate(h, &[OLD, "/home/dev/shop/inner"])
        .code(2)
        .stderr(predicates::str::contains("inside OLD"));
    relocate(h, &[OLD, OLD]).code(2);
    let live = h.join(".claude/projects/-home-dev-shop/a1b2c3d4-1111-4aaa-8aaa-00000000000a.jsonl");
    let bytes = std::fs::read(&live).unwrap();
    std::fs::write(&live, &bytes).unwrap();
    relocate(h, &[OLD, NEW])
        .code(2)
        .stderr(predicates::str::contains("modified 0 s ago"));
    assert_eq!(std::fs::read(&live).unwrap(), bytes);
    relocate(h, &["--force", OLD, NEW]).success();
}

/// Killed at each step, the run leaves every session readable where one of OLD and NEW
/// lists it, and the next run finishes it: the home ends as after one whole run.
#[test]
fn a_run_killed_at_any_step_is_finished_by_the_next() {
    let whole = populated();
    relocate(whole.path(), &[OLD, NEW]).success();
    let expected = normalized(whole.path());
    for step in ["written", "side-moved", "rewritten"] {
        let home = populated();
        let h = home.path();
        let out = cctool()
            .env("HOME", h)
            .env("CCTOOL_RELOCATE_DIE_AT", step)
            .args(["relocate", OLD, NEW])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{step}: the run was killed");
        let listed = cctool().env("HOME", h).args(["scan", "--json"]).output().unwrap();
        let scanned = crate::util::records(&String::from_utf8_lossy(&listed.stdout));
        assert!(
            scanned.iter().filter(|r| r["kind"] == "session").count() >= 6,
            "{step}: {scanned:?}"
        );
        assert!(scanned.iter().all(|r| r["kind"] != "diagnostic"), "{step}: {scanned:?}");
        relocate(h, &[OLD, NEW]).success();
        assert_eq!(normalized(h), expected, "{step}");
    }
}

/// [`tree`] with the file names of backups and temporary home paths left out: what the
/// agents read.
fn normalized(home: &Path) -> BTreeMap<String, Vec<u8>> {
    let prefix = home.display().to_string();
    tree(home)
        .into_iter()
        .filter(|(k, _)| !k.ends_with(".bak"))
        .map(|(k, v)| (k, String::from_utf8_lossy(&v).replace(&prefix, "HOME").into_bytes()))
        .collect()
}

/// The real Claude Code, started in NEW after `relocate` and the folder's move, resumes the
/// session by id and with `--continue`, sending the messages it sent from OLD.
#[test]
fn real_claude_code_resumes_a_relocated_session_from_the_new_folder() {
    let Some(view) = realclient(Client::ClaudeCode) else {
        return;
    };
    let script = view.with_file_name("cc-store-view.sh");
    let root = tempfile::tempdir().unwrap();
    let old = root.path().join("old-place");
    std::fs::create_dir(&old).unwrap();
    let old = PathBuf::from(cctool::agents::claude_code::store::physical_cwd(
        &old.display().to_string(),
    ));
    let new = old.with_file_name("new-place");
    let id = "a1b2c3d4-1111-4aaa-8aaa-00000000000a";
    let text = std::fs::read_to_string(fixture(&format!("store/.claude/projects/-home-dev-shop/{id}.jsonl")))
        .unwrap()
        .replace(OLD, &old.display().to_string());
    let store = |dir: &Path| {
        let config = dir.join("config");
        let path = cctool::agents::claude_code::store::transcript_path(&config, &old.display().to_string(), id);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        age(&path);
        config
    };
    let before_dir = tempfile::tempdir().unwrap();
    let before = crate::store::store_view(&script, &store(before_dir.path()), &old, id).expect("resumed from OLD");
    let config = store(root.path());
    cctool()
        .env("CLAUDE_CONFIG_DIR", &config)
        .args(["relocate", &old.display().to_string(), &new.display().to_string()])
        .assert()
        .success();
    std::fs::rename(&old, &new).unwrap();
    let by_id = crate::store::store_view(&script, &config, &new, id).expect("resumed from NEW by id");
    assert_eq!(
        by_id.replace(&new.display().to_string(), "DIR"),
        before.replace(&old.display().to_string(), "DIR")
    );
    let first: serde_json::Value = serde_json::from_str(&before).unwrap();
    let first = first[0]["content"].to_string();
    let cont = crate::store::store_view(&script, &config, &new, "--continue").expect("continued in NEW");
    let cont: serde_json::Value = serde_json::from_str(&cont).unwrap();
    assert_eq!(
        cont[0]["content"].to_string(),
        first,
        "--continue in NEW takes the relocated session"
    );
}

/// The real Codex, run in NEW after `relocate` and the folder's move, lists the thread there
/// and resumes it with `--last`, sending what it sent from OLD.
#[test]
fn real_codex_lists_a_relocated_thread_in_the_new_folder() {
    let Some(view) = realclient(Client::Codex) else { return };
    let script = view.with_file_name("codex-store-view.sh");
    let root = tempfile::tempdir().unwrap();
    let old = root.path().join("old-place");
    std::fs::create_dir(&old).unwrap();
    let new = root.path().join("new-place");
    let src = rollouts(&fixture("store/.codex"))
        .into_iter()
        .find(|p| p.to_string_lossy().contains("04/06"))
        .unwrap();
    let text = std::fs::read_to_string(&src)
        .unwrap()
        .replace(OLD, &old.display().to_string());
    let home = || {
        let home = crate::store::codex_home_with_index();
        let rollout = home.path().join(src.strip_prefix(fixture("store/.codex")).unwrap());
        std::fs::create_dir_all(rollout.parent().unwrap()).unwrap();
        std::fs::write(&rollout, &text).unwrap();
        age(&rollout);
        codex::register_rollout(home.path(), &rollout).unwrap();
        home
    };
    let scratch = home();
    let before = crate::store::store_view(&script, scratch.path(), &old, "--last").expect("resumed in OLD");
    let home = home();
    cctool()
        .env("CODEX_HOME", home.path())
        .args(["relocate", &old.display().to_string(), &new.display().to_string()])
        .assert()
        .success();
    std::fs::rename(&old, &new).unwrap();
    let listed = crate::store::store_view(&script, home.path(), &new, "--list").expect("listed");
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let ours = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "019d2a2a-0b11-7c22-8d33-4e445f667788")
        .expect("listed in NEW");
    assert_eq!(ours["cwd"], new.display().to_string());
    let after = crate::store::store_view(&script, home.path(), &new, "--last").expect("resumed in NEW");
    assert_eq!(
        sent_items(&after, &[(&new, "DIR"), (home.path(), "HOME")]),
        sent_items(&before, &[(&old, "DIR"), (scratch.path(), "HOME")])
    );
}

/// The input items Codex sent, without what differs from run to run (item ids, turn ids and
/// times) and with `paths` named by their roles.
fn sent_items(sent: &str, paths: &[(&Path, &str)]) -> serde_json::Value {
    let mut text = sent.to_string();
    for (p, name) in paths {
        text = text.replace(&p.display().to_string(), name);
    }
    let mut items: serde_json::Value = serde_json::from_str(&text).unwrap();
    for item in items.as_array_mut().unwrap() {
        let item = item.as_object_mut().unwrap();
        item.remove("id");
        item.remove("internal_chat_message_metadata_passthrough");
    }
    items
}

/// opencode: the session's `directory` and its messages' `path` change in the database, in
/// one transaction after a copy is kept; a database the client has open is refused.
#[test]
fn opencode_sessions_follow_the_folder_in_the_database() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join(".local/share/opencode");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("opencode.db");
    std::fs::copy(fixture("opencode/opencode.db"), &db).unwrap();
    let old = "/tmp/cctool-opencode-record/proj-a";
    let rows = |db: &Path| -> Vec<String> {
        let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut st = c
            .prepare("SELECT s.id, s.directory, (SELECT group_concat(json_extract(m.data, '$.path.cwd')) FROM message m WHERE m.session_id = s.id) FROM session s ORDER BY s.id")
            .unwrap();
        st.query_map([], |r| {
            Ok(format!(
                "{} {} {:?}",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let before = rows(&db);
    let wal = data.join("opencode.db-wal");
    std::fs::write(&wal, b"").unwrap();
    relocate(home.path(), &[old, "/work/proj-a"])
        .code(2)
        .stderr(predicates::str::contains("opencode has it open"));
    std::fs::remove_file(&wal).unwrap();
    assert_eq!(rows(&db), before);

    let out = relocate(home.path(), &["--json", old, "/work/proj-a"]).success();
    let recs = crate::util::records(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert_eq!(
        recs[0]["session"],
        format!("{}#ses_dc2d3a7f7ffePjSuyqFAs2GNEo", db.display())
    );
    let after = rows(&db);
    let expected: Vec<String> = before
        .iter()
        .map(|r| match r.starts_with("ses_dc2d3a7f7ffePjSuyqFAs2GNEo") {
            true => r.replace(old, "/work/proj-a"),
            false => r.clone(),
        })
        .collect();
    assert_eq!(after, expected);
    assert_ne!(after, before);
    assert_eq!(rows(&data.join("opencode.db.relocate.bak")), before);
    relocate(home.path(), &[old, "/work/proj-a"]).success().stdout("");
    assert_eq!(rows(&db), expected);
}

/// The real pi, run in NEW after `relocate` and the folder's move, continues the relocated
/// session (`--continue` takes the newest of the folder's sessions) with the messages it sent
/// from OLD.
#[test]
fn real_pi_continues_a_relocated_session_in_the_new_folder() {
    let Some(view) = realclient(Client::Pi) else { return };
    let script = view.with_file_name("pi-store-view.sh");
    let root = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(root.path()).unwrap();
    let (old, new) = (root.join("old-place"), root.join("new-place"));
    std::fs::create_dir(&old).unwrap();
    let text = std::fs::read_to_string(fixture("pi/basic.jsonl")).unwrap().replacen(
        r#""cwd":"/tmp""#,
        &format!(r#""cwd":"{}""#, old.display()),
        1,
    );
    let store = |agent: &Path| {
        let dir = agent
            .join("sessions")
            .join(cctool::agents::pi::store::project_folder(&old.display().to_string()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("2026-05-01T10-00-00-000Z_019e0000-0000-7000-8000-000000000001.jsonl");
        std::fs::write(&file, &text).unwrap();
        age(&file);
    };
    let scratch = root.join("scratch-agent");
    store(&scratch);
    let before = crate::store::store_view(&script, &scratch, &old, "--continue").expect("continued in OLD");
    let agent = root.join("agent");
    store(&agent);
    cctool()
        .env("PI_CODING_AGENT_DIR", &agent)
        .args(["relocate", &old.display().to_string(), &new.display().to_string()])
        .assert()
        .success();
    std::fs::rename(&old, &new).unwrap();
    let after = crate::store::store_view(&script, &agent, &new, "--continue").expect("continued in NEW");
    assert!(after.contains("List the files here."), "{after}");
    assert_eq!(
        after.replace(&new.display().to_string(), "DIR"),
        before.replace(&old.display().to_string(), "DIR")
    );
}

/// The real Gemini CLI, run in NEW after `relocate` and the folder's move, lists the chats it
/// listed in OLD: `projects.json` and the project's `.project_root` name NEW, the chats stay.
#[test]
fn real_gemini_lists_a_relocated_project_s_chats_in_the_new_folder() {
    let installs = std::env::var_os("CCTOOL_REALCLIENTS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cctool-realclients")));
    if !installs.is_some_and(|h| {
        h.join("gemini/node_modules/@google/gemini-cli/bundle/gemini.js")
            .is_file()
    }) {
        crate::util::skip_notice("Gemini CLI 0.61.0 not installed (scripts/realclient/gemini/install.sh)");
        return;
    }
    let script = crate::util::root().join("scripts/realclient/gemini/list-view.sh");
    let root = std::fs::canonicalize(tempfile::tempdir().unwrap().keep()).unwrap();
    let (old, new) = (root.join("old-place"), root.join("new-place"));
    std::fs::create_dir(&old).unwrap();
    let home = root.join("home");
    let chats = home.join(".gemini/tmp/app/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let text = std::fs::read_to_string(fixture("gemini/turns.jsonl")).unwrap();
    let sid = text
        .split("\"sessionId\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    std::fs::write(
        chats.join(format!("session-2026-01-01T10-00-{}.jsonl", &sid[..8])),
        &text,
    )
    .unwrap();
    std::fs::write(
        home.join(".gemini/projects.json"),
        serde_json::to_string_pretty(&serde_json::json!({"projects": {old.display().to_string(): "app"}})).unwrap(),
    )
    .unwrap();
    std::fs::write(home.join(".gemini/tmp/app/.project_root"), old.display().to_string()).unwrap();
    let list = |work: &Path| {
        let out = std::process::Command::new("bash")
            .arg(&script)
            .arg(&home)
            .arg(work)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(list(&old).contains(&sid), "listed in OLD");
    std::fs::create_dir(&new).unwrap();
    assert!(!list(&new).contains(&sid), "not listed in NEW before relocate");
    std::fs::remove_dir(&new).unwrap();
    cctool()
        .env("HOME", &home)
        .args(["relocate", &old.display().to_string(), &new.display().to_string()])
        .assert()
        .success();
    std::fs::rename(&old, &new).unwrap();
    assert!(list(&new).contains(&sid), "listed in NEW");
    std::fs::remove_dir_all(&root).unwrap();
}

/// The real Qwen Code, run in NEW after `relocate` and the folder's move, resumes the moved
/// session by id with the messages it sent from OLD (its system prompt, which names the run's
/// own folders, aside).
#[test]
fn real_qwen_resumes_a_relocated_session_in_the_new_folder() {
    let installs = std::env::var_os("CCTOOL_REALCLIENTS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cctool-realclients")));
    if !installs.is_some_and(|h| h.join("qwen/node_modules/@qwen-code/qwen-code/cli.js").is_file()) {
        crate::util::skip_notice("Qwen Code 0.24.4 not installed (scripts/realclient/qwen/install.sh)");
        return;
    }
    let script = crate::util::root().join("scripts/realclient/qwen/qwen-store-view.sh");
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (old, new) = (root.join("old-place"), root.join("new-place"));
    std::fs::create_dir(&old).unwrap();
    let text = std::fs::read_to_string(fixture("qwen/ran-tools.jsonl"))
        .unwrap()
        .replace("/tmp/cctool-qwen-record/proj", &old.display().to_string());
    let id = QWEN.trim_end_matches(".jsonl");
    let store = |qwen: &Path| {
        let chats = qwen
            .join("projects")
            .join(cctool_qwen::store::project_folder(&old.display().to_string()))
            .join("chats");
        std::fs::create_dir_all(&chats).unwrap();
        std::fs::write(chats.join(QWEN), &text).unwrap();
        age(&chats.join(QWEN));
    };
    let sent = |qwen: &Path, work: &Path| -> Vec<serde_json::Value> {
        let got = crate::store::store_view(&script, qwen, work, id).expect("resumed");
        let all: Vec<serde_json::Value> = serde_json::from_str(&got).unwrap();
        all.into_iter().skip(1).collect()
    };
    let scratch = root.join("scratch");
    store(&scratch);
    let before = sent(&scratch, &old);
    let qwen = root.join("qwen");
    store(&qwen);
    cctool()
        .env("HOME", &root)
        .env("QWEN_HOME", &qwen)
        .args(["relocate", &old.display().to_string(), &new.display().to_string()])
        .assert()
        .success();
    std::fs::rename(&old, &new).unwrap();
    let after = sent(&qwen, &new);
    // The folder the client runs in is NEW; the paths the conversation named are OLD's still
    // (no --rewrite-content): both are DIR here.
    let norm = |v: &[serde_json::Value]| {
        serde_json::to_string(v)
            .unwrap()
            .replace(&new.display().to_string(), "DIR")
            .replace(&old.display().to_string(), "DIR")
    };
    assert!(norm(&after).contains("DIR/README.md"));
    assert_eq!(norm(&after), norm(&before));
}

/// The real Copilot CLI, run in NEW after `relocate` and the folder's move, continues the
/// session with the messages it sent from OLD (it finds a session by its folder of id, from any
/// working folder: what relocate changes is what the session says of its folder).
#[test]
fn real_copilot_continues_a_relocated_session_in_the_new_folder() {
    let Some(view) = realclient(Client::Copilot) else {
        return;
    };
    let script = view.with_file_name("copilot-store-view.sh");
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (old, new) = (root.join("old-place"), root.join("new-place"));
    std::fs::create_dir(&old).unwrap();
    let store = |home: &Path| {
        copy_tree(&fixture("copilot/store"), home);
        for f in walkdir::WalkDir::new(home) {
            let f = f.unwrap().into_path();
            if f.is_file() {
                let text = std::fs::read_to_string(&f)
                    .unwrap()
                    .replace("/home/dev/gadget", &old.display().to_string());
                std::fs::write(&f, text).unwrap();
                age(&f);
            }
        }
    };
    let sent = |home: &Path, work: &Path| -> String {
        let got = crate::store::store_view(&script, home, work, "--continue").expect("continued");
        let all: Vec<serde_json::Value> = serde_json::from_str(&got).unwrap();
        // The system message aside, and the new prompt, which carries the time it was sent.
        let (prompt, history) = all[1..].split_last().unwrap();
        assert!(prompt["content"].as_str().unwrap().ends_with("say ok"), "{prompt}");
        serde_json::to_string(history).unwrap()
    };
    let scratch = root.join("scratch");
    store(&scratch);
    let before = sent(&scratch, &old);
    let home = root.join("copilot");
    store(&home);
    cctool()
        .env("COPILOT_HOME", &home)
        .args(["relocate", &old.display().to_string(), &new.display().to_string()])
        .assert()
        .success();
    let yaml = std::fs::read_to_string(home.join(&COPILOT[".copilot/".len()..]).join("workspace.yaml")).unwrap();
    assert!(yaml.contains(&format!("cwd: {}", new.display())), "{yaml}");
    std::fs::rename(&old, &new).unwrap();
    let after = sent(&home, &new);
    assert!(after.contains("Explain the build script"), "{after}");
    let norm = |s: &str| {
        s.replace(&new.display().to_string(), "DIR")
            .replace(&old.display().to_string(), "DIR")
    };
    assert_eq!(norm(&after), norm(&before));
}

/// What each agent's resume would send (`rebuild-chain --api-view`, equal to the real
/// clients' requests on the fixtures) of every session of the home: the same after
/// `relocate` as before, but for OLD named NEW where the client states its folder (paths in
/// the conversation stay as written: `content_paths_change_only_when_asked_and_only_whole`).
#[test]
fn every_session_sends_the_same_request_after_relocate() {
    let home = populated();
    let h = home.path();
    let views = || -> BTreeMap<(String, String), String> {
        let out = cctool().env("HOME", h).args(["scan", "--json"]).output().unwrap();
        let mut views = BTreeMap::new();
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let rec: serde_json::Value = serde_json::from_str(line).unwrap();
            let (Some(path), Some(id)) = (rec["path"].as_str(), rec["session_id"].as_str()) else {
                continue;
            };
            let view = cctool()
                .env("HOME", h)
                .args(["rebuild-chain", "--api-view", path])
                .output()
                .unwrap();
            if view.status.success() {
                let key = (rec["format"].as_str().unwrap().to_string(), id.to_string());
                views.insert(key, String::from_utf8(view.stdout).unwrap());
            }
        }
        views
    };
    let before = views();
    for agent in ["claude-code", "codex", "pi", "qwen-code", "copilot"] {
        assert!(
            before.keys().any(|(f, _)| f == agent),
            "no request of {agent}: {:?}",
            before.keys()
        );
    }
    relocate(h, &[OLD, NEW]).success();
    let after = views();
    assert_eq!(after.keys().collect::<Vec<_>>(), before.keys().collect::<Vec<_>>());
    let moved: Vec<&String> = before
        .iter()
        .filter(|(k, view)| {
            assert_eq!(after[*k].replace(OLD, NEW), view.replace(OLD, NEW), "{k:?}");
            after[*k] != **view
        })
        .map(|((format, _), _)| format)
        .collect();
    // Some requests state the folder (pi's system prompt names its working directory).
    assert!(moved.contains(&&"pi".to_string()), "{moved:?}");
}
