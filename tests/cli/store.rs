//! Placing a session where its agent finds it (`docs/stores.md`): Claude Code's project
//! folders, Codex's rollout paths and thread index, Codex's import ledger. The index is built
//! from `fixtures/store/codex/state_5-0.171.sql`, the database the real Codex 0.171 creates;
//! the real-client tests (skipped where the clients are absent) place hand-written sessions
//! with these functions and check that each client lists and resumes them.

use std::path::{Path, PathBuf};

use cctool::agents::claude_code::store as cc;
use cctool::agents::codex::store::{self as codex, Registered, Thread};
use jiff::Timestamp;

use crate::util::{Client, fixture, realclient};

/// A Codex home holding the thread index as Codex 0.171 creates it.
pub(crate) fn codex_home_with_index() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let sql = std::fs::read_to_string(fixture("store/codex/state_5-0.171.sql")).unwrap();
    let db = rusqlite::Connection::open(home.path().join(codex::STATE_DB)).unwrap();
    db.execute_batch(&sql).unwrap();
    // Codex keeps its index in write-ahead-log mode.
    let _: String = db.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).unwrap();
    home
}

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

/// A minimal rollout Codex resumes and lists: `session_meta`, then one exchange as response
/// items with the `user_message` / `agent_message` events the picker and the resumed screen
/// read.
fn write_rollout(path: &Path, id: &str, cwd: &str, started: &str, question: &str, answer: &str) {
    let recs = [
        serde_json::json!({"timestamp": started, "type": "session_meta", "payload": {
            "id": id, "timestamp": started, "cwd": cwd, "originator": "cctool",
            "cli_version": "0.171.0", "source": "cli", "model_provider": "openai"}}),
        serde_json::json!({"timestamp": started, "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": question}]}}),
        serde_json::json!({"timestamp": started, "type": "event_msg", "payload": {
            "type": "user_message", "message": question, "images": []}}),
        serde_json::json!({"timestamp": started, "type": "turn_context", "payload": {
            "cwd": cwd, "model": "gpt-5.3-codex"}}),
        serde_json::json!({"timestamp": started, "type": "response_item", "payload": {
            "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}}),
        serde_json::json!({"timestamp": started, "type": "event_msg", "payload": {
            "type": "agent_message", "message": answer}}),
    ];
    write_lines(path, &recs);
}

/// JSON Lines at `path`, its folders made.
fn write_lines(path: &Path, recs: &[serde_json::Value]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = recs.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// Thread `ID`, started 2026-11-30 10:00 UTC in `/w`, at its place in `home`.
fn sample_rollout(home: &Path) -> PathBuf {
    let path = codex::rollout_path(home, &ts("2026-11-30T10:00:00Z"), ID);
    write_rollout(
        &path,
        ID,
        "/w",
        "2026-11-30T10:00:00.000Z",
        "the question",
        "the answer",
    );
    path
}

fn thread(home: &Path, id: &str, cwd: &str, updated: &str) -> Thread {
    Thread {
        id: id.into(),
        rollout_path: codex::rollout_path(home, &ts("2026-11-30T10:00:00Z"), id),
        cwd: cwd.into(),
        title: "what is the magic word".into(),
        created_at: ts("2026-11-30T10:00:00Z"),
        updated_at: ts(updated),
        model: None,
        model_provider: Some("openai".into()),
        source: "cli".into(),
        originator: "cctool".into(),
        cli_version: "0.171.0".into(),
    }
}

pub(crate) fn rows(home: &Path) -> Vec<Vec<String>> {
    let db = rusqlite::Connection::open(home.join(codex::STATE_DB)).unwrap();
    let mut st = db
        .prepare(
            "SELECT id, rollout_path, created_at, updated_at, created_at_ms, updated_at_ms, recency_at_ms, source, \
             originator, history_mode, model_provider, ifnull(model, '-'), cwd, title, preview, first_user_message, \
             approval_mode, tokens_used, archived, memory_mode FROM threads ORDER BY id",
        )
        .unwrap();
    st.query_map([], |r| {
        (0..20)
            .map(|i| {
                r.get::<_, rusqlite::types::Value>(i).map(|v| match v {
                    rusqlite::types::Value::Integer(n) => n.to_string(),
                    rusqlite::types::Value::Text(s) => s,
                    other => format!("{other:?}"),
                })
            })
            .collect()
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

const ID: &str = "019d0000-0000-7000-8000-0000000000a1";

#[test]
fn rollout_paths_are_dated_in_utc_and_named_by_id() {
    let p = codex::rollout_path(Path::new("/h"), &ts("2026-01-02T03:04:05.678+09:00"), ID);
    assert_eq!(
        p,
        Path::new("/h/sessions/2026/01/01/rollout-2026-01-01T18-04-05-019d0000-0000-7000-8000-0000000000a1.jsonl")
    );
}

#[test]
fn register_writes_the_row_codex_writes_once() {
    let home = codex_home_with_index();
    let t = thread(home.path(), ID, "/w", "2026-11-30T12:00:00.250Z");
    assert_eq!(codex::register(home.path(), &t).unwrap(), Registered::Added);
    let path = t.rollout_path.display().to_string();
    let want = vec![
        ID.to_string(),
        path.clone(),
        "1796032800".into(),
        "1796040000".into(),
        "1796032800000".into(),
        "1796040000250".into(),
        "1796040000250".into(),
        "cli".into(),
        "cctool".into(),
        "legacy".into(),
        "openai".into(),
        "-".into(),
        "/w".into(),
        "what is the magic word".into(),
        "what is the magic word".into(),
        "what is the magic word".into(),
        "on-request".into(),
        "0".into(),
        "0".into(),
        "enabled".into(),
    ];
    assert_eq!(rows(home.path()), vec![want.clone()]);
    // Twice is once.
    assert_eq!(codex::register(home.path(), &t).unwrap(), Registered::Unchanged);
    assert_eq!(rows(home.path()), vec![want]);

    // A grown session: the same row moves forward.
    let mut later = thread(home.path(), ID, "/w", "2026-11-30T13:00:00Z");
    later.model = Some("gpt-5.5".into());
    assert_eq!(codex::register(home.path(), &later).unwrap(), Registered::Updated);
    let got = rows(home.path());
    assert_eq!(got.len(), 1);
    assert_eq!(got[0][3], "1796043600");
    assert_eq!(got[0][6], "1796043600000", "the list order follows");
    assert_eq!(got[0][11], "gpt-5.5");
    // An older registration never moves it back, nor forgets the model Codex recorded.
    let older = thread(home.path(), ID, "/w", "2026-11-30T12:00:00Z");
    assert_eq!(codex::register(home.path(), &older).unwrap(), Registered::Unchanged);
    assert_eq!(rows(home.path())[0][11], "gpt-5.5");
}

#[test]
fn without_an_index_nothing_is_created() {
    let home = tempfile::tempdir().unwrap();
    let t = thread(home.path(), ID, "/w", "2026-11-30T12:00:00Z");
    assert_eq!(codex::register(home.path(), &t).unwrap(), Registered::NoDatabase);
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
}

#[test]
fn an_index_of_another_layout_is_refused_and_left_alone() {
    let t = |h: &Path| thread(h, ID, "/w", "2026-11-30T12:00:00Z");
    // Another generation.
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("state_6.sqlite"), b"").unwrap();
    let e = codex::register(home.path(), &t(home.path())).unwrap_err().to_string();
    assert!(e.contains("state_6.sqlite") && e.contains("resumes by id"), "{e}");

    // A threads table without a column cctool writes.
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(codex::STATE_DB);
    let db = rusqlite::Connection::open(&file).unwrap();
    db.execute_batch(
        "CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, success BOOLEAN NOT NULL);
         INSERT INTO _sqlx_migrations VALUES (1, 1);
         CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL);",
    )
    .unwrap();
    let before = std::fs::read(&file).unwrap();
    let e = codex::register(home.path(), &t(home.path())).unwrap_err().to_string();
    assert!(
        e.contains("no column created_at") && e.contains("not registered"),
        "{e}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);

    // A later migration that adds a column with a default: accepted.
    let home = codex_home_with_index();
    let db = rusqlite::Connection::open(home.path().join(codex::STATE_DB)).unwrap();
    db.execute_batch(
        "ALTER TABLE threads ADD COLUMN workspace TEXT NOT NULL DEFAULT 'x';
         INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
             VALUES (65, 'later', 1, x'00', 0);",
    )
    .unwrap();
    assert_eq!(
        codex::register(home.path(), &t(home.path())).unwrap(),
        Registered::Added
    );
    // One that requires a column cctool does not fill (SQLite adds such a column only to a
    // new table): refused.
    let cols: Vec<String> = db
        .prepare("SELECT name FROM pragma_table_info('threads') WHERE name <> 'workspace'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let home2 = tempfile::tempdir().unwrap();
    let db2 = rusqlite::Connection::open(home2.path().join(codex::STATE_DB)).unwrap();
    db2.execute_batch(&format!(
        "CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, success BOOLEAN NOT NULL);
         INSERT INTO _sqlx_migrations VALUES (66, 1);
         CREATE TABLE threads ({}, workspace TEXT NOT NULL);",
        cols.join(", ")
    ))
    .unwrap();
    let e = codex::register(home2.path(), &t(home2.path())).unwrap_err().to_string();
    assert!(e.contains("requires a column cctool does not fill, workspace"), "{e}");
}

#[test]
fn a_rollout_is_read_as_codex_indexes_it() {
    let home = tempfile::tempdir().unwrap();
    let path = sample_rollout(home.path());
    let t = Thread::from_rollout(&path).unwrap();
    assert_eq!(t.id, ID);
    assert_eq!(t.rollout_path, path);
    assert_eq!(t.cwd, "/w");
    assert_eq!(t.title, "the question");
    assert_eq!(t.created_at, ts("2026-11-30T10:00:00Z"));
    assert_eq!(t.model.as_deref(), Some("gpt-5.3-codex"));
    assert_eq!(t.model_provider.as_deref(), Some("openai"));
    assert_eq!(t.source, "cli");
    let mtime = Timestamp::try_from(std::fs::metadata(&path).unwrap().modified().unwrap()).unwrap();
    assert_eq!(t.updated_at, mtime);

    // The model is looked for near the first prompt only: a rollout is not read through.
    let far = home.path().join("far.jsonl");
    let mut recs: Vec<serde_json::Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r["type"] != "turn_context")
        .collect();
    let filler = serde_json::json!({"timestamp": "2026-11-30T10:00:00.000Z", "type": "event_msg",
        "payload": {"type": "token_count"}});
    recs.extend(std::iter::repeat_n(filler, 300));
    recs.push(
        serde_json::json!({"timestamp": "2026-11-30T10:00:00.000Z", "type": "turn_context",
        "payload": {"model": "late"}}),
    );
    write_lines(&far, &recs);
    assert_eq!(Thread::from_rollout(&far).unwrap().model, None);
    recs.drain(5..300);
    write_lines(&far, &recs);
    assert_eq!(Thread::from_rollout(&far).unwrap().model.as_deref(), Some("late"));

    let bad = home.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"event_msg\",\"payload\":{}}\n").unwrap();
    let e = Thread::from_rollout(&bad).unwrap_err().to_string();
    assert!(e.contains("bad.jsonl") && e.contains("no session_meta"), "{e}");
}

#[test]
fn the_import_ledger_names_what_codex_imported() {
    let home = tempfile::tempdir().unwrap();
    let src = home.path().join("t.jsonl");
    std::fs::write(&src, "{}\n").unwrap();
    assert_eq!(codex::imported_by_codex(home.path(), &src).unwrap(), None, "no ledger");
    // The shape Codex 0.171's importer writes (one record per transcript, updated in place
    // when it imports a changed transcript again), plus an entry of another shape.
    let ledger = serde_json::json!({
        "records": [
            {"source_path": src.display().to_string(),
             "content_sha256": "ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356",
             "imported_thread_id": "01a23071-fcf4-7460-89ec-a125ebaeb77f",
             "imported_at": 1796109106, "source_modified_at": 1796109106301902583u64,
             "connector_names": [], "title": "what is the magic word"},
            {"something": "else"}
        ],
        "detected_connector_records": []
    });
    std::fs::write(home.path().join(codex::IMPORT_LEDGER), ledger.to_string()).unwrap();
    assert_eq!(
        codex::imported_by_codex(home.path(), &src).unwrap().as_deref(),
        Some("01a23071-fcf4-7460-89ec-a125ebaeb77f")
    );
    // Named through another path to the same file.
    #[cfg(unix)]
    {
        let link = home.path().join("link");
        std::os::unix::fs::symlink(home.path(), &link).unwrap();
        assert!(
            codex::imported_by_codex(home.path(), &link.join("t.jsonl"))
                .unwrap()
                .is_some()
        );
    }
    assert_eq!(
        codex::imported_by_codex(home.path(), &home.path().join("u.jsonl")).unwrap(),
        None
    );
    // The hash tells whether Codex's copy is current.
    let rec = codex::import_of(home.path(), &src).unwrap().unwrap();
    assert!(rec.is_current().unwrap(), "sha256 of \"{{}}\\n\"");
    std::fs::write(&src, "{}\n{}\n").unwrap();
    assert!(!rec.is_current().unwrap());

    std::fs::write(home.path().join(codex::IMPORT_LEDGER), "{\n\"records\": [\n").unwrap();
    let e = codex::imported_by_codex(home.path(), &src).unwrap_err().to_string();
    assert!(e.contains(codex::IMPORT_LEDGER) && e.contains("line 3"), "{e}");
}

#[test]
fn resume_commands() {
    assert_eq!(codex::resume_command(ID), format!("codex resume {ID}"));
    assert_eq!(codex::resume_command("a b"), "codex resume 'a b'");
    assert_eq!(
        cc::resume_command("11111111-2222-4333-8444-555555555555", "/home/me/my project"),
        "cd '/home/me/my project' && claude --resume 11111111-2222-4333-8444-555555555555"
    );
}

/// Another thread of the directory `cwd`, indexed, from the day before: what makes `--last`
/// depend on the index.
fn index_an_older_thread(home: &Path, cwd: &str) {
    let other = "019d0000-0000-7000-8000-0000000000b2";
    let other_path = codex::rollout_path(home, &ts("2026-11-29T10:00:00Z"), other);
    write_rollout(
        &other_path,
        other,
        cwd,
        "2026-11-29T10:00:00.000Z",
        "OTHER-Q",
        "OTHER-A",
    );
    let mut t = Thread::from_rollout(&other_path).unwrap();
    t.updated_at = ts("2026-11-29T11:00:00Z");
    assert_eq!(codex::register(home, &t).unwrap(), Registered::Added);
}

/// Runs a store script of the harness; `None` when the client sent nothing.
pub(crate) fn store_view(script: &Path, store: &Path, work: &Path, which: &str) -> Option<String> {
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(store)
        .arg(work)
        .arg(which)
        .output()
        .expect("run the harness");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The real Codex lists a registered rollout (`exec resume --last` in its directory, the app
/// server's `thread/list`) and resumes it by id; unregistered, with another thread in the
/// index, `--last` passes it over, which is why cctool registers.
#[test]
fn real_codex_lists_and_resumes_a_registered_rollout() {
    let Some(view) = realclient(Client::Codex) else { return };
    let script = view.with_file_name("codex-store-view.sh");
    let run = |registered: bool| -> (tempfile::TempDir, PathBuf) {
        let home = codex_home_with_index();
        let work = home.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let cwd = work.display().to_string();
        index_an_older_thread(home.path(), &cwd);
        let path = codex::rollout_path(home.path(), &ts("2026-11-30T10:00:00Z"), ID);
        write_rollout(
            &path,
            ID,
            &cwd,
            "2026-11-30T10:00:00.000Z",
            "XYZZY-QUESTION",
            "PLUGH-ANSWER",
        );
        if registered {
            assert_eq!(codex::register_rollout(home.path(), &path).unwrap(), Registered::Added);
        }
        (home, work)
    };
    let (home, work) = run(true);
    let listed = store_view(&script, home.path(), &work, "--list").expect("thread/list answers");
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let ours = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == ID)
        .expect("listed");
    assert_eq!(ours["preview"], "XYZZY-QUESTION");
    assert_eq!(ours["cwd"], work.display().to_string());
    let sent = store_view(&script, home.path(), &work, "--last").expect("resumed the newest thread");
    assert!(
        sent.contains("XYZZY-QUESTION") && sent.contains("PLUGH-ANSWER"),
        "{sent}"
    );

    let (home, work) = run(false);
    let sent = store_view(&script, home.path(), &work, "--last").expect("resumed the other thread");
    assert!(!sent.contains("XYZZY-QUESTION") && sent.contains("OTHER-Q"), "{sent}");
    let sent = store_view(&script, home.path(), &work, ID).expect("resumed by id");
    assert!(
        sent.contains("XYZZY-QUESTION") && sent.contains("PLUGH-ANSWER"),
        "{sent}"
    );
}

/// A minimal Claude Code transcript: a linked user prompt and assistant answer.
fn write_transcript(path: &Path, id: &str, cwd: &str) {
    let recs = [
        serde_json::json!({"type": "user", "uuid": "aaaaaaaa-0000-4000-8000-000000000001", "parentUuid": null,
            "sessionId": id, "cwd": cwd, "timestamp": "2026-11-30T10:00:00.000Z", "isSidechain": false,
            "userType": "external", "message": {"role": "user", "content": "XYZZY-QUESTION"}}),
        serde_json::json!({"type": "assistant", "uuid": "aaaaaaaa-0000-4000-8000-000000000002",
            "parentUuid": "aaaaaaaa-0000-4000-8000-000000000001", "sessionId": id, "cwd": cwd,
            "timestamp": "2026-11-30T10:00:01.000Z", "isSidechain": false, "userType": "external",
            "message": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "PLUGH-ANSWER"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    ];
    write_lines(path, &recs);
}

/// The real Claude Code resumes a transcript placed at `transcript_path` by id and lists it
/// (its `--resume` picker shows the first prompt; `--continue` takes the newest of the
/// directory's project folder), for a working directory
/// whose folder name is cut and hashed, reached through a symbolic link; a new session the
/// client starts there lands in the same folder.
#[test]
fn real_claude_code_lists_and_resumes_a_placed_transcript() {
    let Some(view) = realclient(Client::ClaudeCode) else {
        return;
    };
    let script = view.with_file_name("cc-store-view.sh");
    let id = "11111111-2222-4333-8444-555555555555";
    let place = || {
        let root = tempfile::tempdir().unwrap();
        let config = root.path().join("config");
        let deep = root
            .path()
            .join(format!("dé😀 {}", "a".repeat(80)))
            .join("b".repeat(90))
            .join("c".repeat(40));
        std::fs::create_dir_all(&deep).unwrap();
        let work = root.path().join("link");
        std::os::unix::fs::symlink(&deep, &work).unwrap();
        let cwd = work.display().to_string();
        let path = cc::transcript_path(&config, &cwd, id);
        assert!(
            path.parent().unwrap().file_name().unwrap().len() > 200,
            "{}",
            path.display()
        );
        write_transcript(&path, id, &cc::physical_cwd(&cwd));
        (root, config, work)
    };
    let (_root, config, work) = place();
    let sent = store_view(&script, &config, &work, id).expect("resumed by id");
    assert!(
        sent.contains("XYZZY-QUESTION") && sent.contains("PLUGH-ANSWER"),
        "{sent}"
    );
    let (_root, config, work) = place();
    let screen = store_view(&script, &config, &work, "--picker").expect("the picker showed its list");
    assert!(screen.contains("XYZZY-QUESTION"), "not in the picker: {screen}");
    let (_root, config, work) = place();
    let sent = store_view(&script, &config, &work, "--continue").expect("continued");
    assert!(
        sent.contains("XYZZY-QUESTION") && sent.contains("PLUGH-ANSWER"),
        "{sent}"
    );
    // Where the client itself puts a new session of that directory: the same folder.
    let (_root, config, work) = place();
    std::fs::remove_dir_all(config.join("projects")).unwrap();
    store_view(&script, &config, &work, "--continue").expect("a new session");
    let made: Vec<PathBuf> = std::fs::read_dir(config.join("projects"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(made, [cc::project_dir(&config, &work.display().to_string())]);
}

/// `restore` puts a deleted rollout back and registers it: `codex delete` removes the row with
/// the file, and without a row Codex would resume the thread by id but list it nowhere.
#[test]
fn a_restored_rollout_is_registered_again() {
    let root = tempfile::tempdir().unwrap();
    let home = codex_home_with_index();
    let claude = root.path().join("claude");
    std::fs::create_dir_all(claude.join("projects")).unwrap();
    let path = sample_rollout(home.path());
    let run = |args: &[&str]| {
        crate::util::cctool()
            .env("CODEX_HOME", home.path())
            .env("CLAUDE_CONFIG_DIR", &claude)
            .env("XDG_DATA_HOME", root.path().join("data"))
            .current_dir(root.path())
            .args(args)
            .output()
            .unwrap()
    };
    assert!(run(&["backup"]).status.success());
    std::fs::remove_file(&path).unwrap();
    assert!(rows(home.path()).is_empty());
    let out = run(&["restore", ID]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(path.is_file());
    let got = rows(home.path());
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0][0].as_str(), got[0][12].as_str(), got[0][13].as_str()),
        (ID, "/w", "the question")
    );
}

/// While Codex holds the index for writing, `register` waits, then gives up with a message
/// and writes nothing.
#[test]
fn a_locked_index_is_waited_for_then_left_alone() {
    let home = codex_home_with_index();
    let holder = rusqlite::Connection::open(home.path().join(codex::STATE_DB)).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let t = thread(home.path(), ID, "/w", "2026-11-30T12:00:00Z");
    let started = std::time::Instant::now();
    let e = codex::register_waiting(home.path(), &t, std::time::Duration::from_millis(200))
        .unwrap_err()
        .to_string();
    assert!(started.elapsed() >= std::time::Duration::from_millis(200));
    assert!(
        e.contains("locked by a running Codex (cctool waited 200 ms)") && e.contains("not registered"),
        "{e}"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    assert!(rows(home.path()).is_empty());
    assert_eq!(codex::register(home.path(), &t).unwrap(), Registered::Added);
}

/// `convert --into-store` to Codex registers the rollout it writes: the row is there (offline),
/// and the real Codex's `exec resume --last` in the session's directory takes it over another,
/// older thread of that directory, which it would not do for an unregistered rollout.
#[test]
fn a_conversion_into_codex_s_store_is_registered_and_taken_by_resume_last() {
    let home = codex_home_with_index();
    let work = home.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let cwd = work.display().to_string();
    index_an_older_thread(home.path(), &cwd);
    let src = home.path().join("source.jsonl");
    write_transcript(&src, "11111111-2222-4333-8444-555555555555", &cwd);
    let out = crate::util::cctool()
        .args(["convert", "--to", "codex", "--into-store", "--json"])
        .arg(&src)
        .env("CODEX_HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["registered"], "added", "{r}");
    let id = r["session_id"].as_str().unwrap();
    let row = rows(home.path()).into_iter().find(|row| row[0] == id).expect("the row");
    assert_eq!(row[1], r["output"].as_str().unwrap());
    assert_eq!(row[12], cwd);
    let Some(view) = realclient(Client::Codex) else { return };
    let script = view.with_file_name("codex-store-view.sh");
    let sent = store_view(&script, home.path(), &work, "--last").expect("resumed the newest thread");
    assert!(
        sent.contains("XYZZY-QUESTION") && sent.contains("PLUGH-ANSWER"),
        "{sent}"
    );
}

/// `convert --into-store` to Claude Code: a Codex rollout of a directory becomes a transcript
/// the real Claude Code resumes by the printed id and takes with `--continue` there.
#[test]
fn a_conversion_into_claude_code_s_store_is_resumed_by_id_and_continued() {
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("config");
    let work = root.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let cwd = work.display().to_string();
    let src = root.path().join("rollout.jsonl");
    write_rollout(
        &src,
        ID,
        &cwd,
        "2026-11-30T10:00:00.000Z",
        "XYZZY-QUESTION",
        "PLUGH-ANSWER",
    );
    let out = crate::util::cctool()
        .args(["convert", "--to", "claude-code", "--into-store", "--json"])
        .arg(&src)
        .env("CLAUDE_CONFIG_DIR", &config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = r["session_id"].as_str().unwrap();
    assert_eq!(
        r["output"],
        cc::transcript_path(&config, &cwd, id).display().to_string()
    );
    assert_eq!(r["resume"], cc::resume_command(id, &cwd));
    let Some(view) = realclient(Client::ClaudeCode) else {
        return;
    };
    let script = view.with_file_name("cc-store-view.sh");
    for how in [id, "--continue"] {
        let sent = store_view(&script, &config, &work, how).expect("resumed");
        assert!(
            sent.contains("XYZZY-QUESTION") && sent.contains("PLUGH-ANSWER"),
            "{how}: {sent}"
        );
    }
}

/// An index another process holds so that it cannot even be read (a Codex that locks it
/// exclusively, or an index in rollback-journal mode during a write) is said to be locked by
/// a running Codex, with what to do, not taken for an index of another layout.
#[test]
fn an_index_locked_against_reading_is_said_to_be_locked() {
    for how in [
        "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE",
        "PRAGMA journal_mode=DELETE; BEGIN EXCLUSIVE",
    ] {
        let home = codex_home_with_index();
        let holder = rusqlite::Connection::open(home.path().join(codex::STATE_DB)).unwrap();
        holder.execute_batch(how).unwrap();
        let t = thread(home.path(), ID, "/w", "2026-11-30T12:00:00Z");
        let e = codex::register_waiting(home.path(), &t, std::time::Duration::from_millis(100))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("locked by a running Codex")
                && e.contains("not registered")
                && !e.contains("not the thread index"),
            "{how}: {e}"
        );
        holder.execute_batch("ROLLBACK").unwrap();
    }
}

/// A placement killed between its rename and its registration leaves a rollout without a row:
/// the re-run finds the rollout up to date and registers it, not "up-to-date" with no row.
#[test]
fn an_up_to_date_placement_left_unregistered_is_registered_by_the_re_run() {
    let home = codex_home_with_index();
    let cwd = home.path().join("work").display().to_string();
    let src = home.path().join("source.jsonl");
    write_transcript(&src, "11111111-2222-4333-8444-555555555555", &cwd);
    let convert = || {
        let out = crate::util::cctool()
            .args(["convert", "--to", "codex", "--into-store", "--json"])
            .arg(&src)
            .env("CODEX_HOME", home.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    assert_eq!(convert()["registered"], "added");
    let db = rusqlite::Connection::open(home.path().join(codex::STATE_DB)).unwrap();
    db.execute("DELETE FROM threads", []).unwrap();
    let r = convert();
    assert_eq!(
        (&r["written"], &r["registered"]),
        (&"up-to-date".into(), &"added".into()),
        "{r}"
    );
    assert_eq!(rows(home.path()).len(), 1);
    // Registered and up to date: nothing to do.
    assert_eq!(convert()["registered"], "unchanged");
}
