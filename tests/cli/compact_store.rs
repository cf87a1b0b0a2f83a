//! `compact --into-store`: the compaction placed in the store of the input's agent as a new
//! session of its own (`docs/stores.md`), read back by `scan`, `rebuild-chain` and `doctor` as
//! the agent's own, and resumed by the real clients when they are installed.

use std::path::{Path, PathBuf};

use cctool::agents::claude_code::store as cc;
use cctool::agents::codex::store as codex;
use serde_json::Value;

use crate::store::{codex_home_with_index, rows, store_view};
use crate::util::{Client, cctool, fixture, realclient, records, write_aged};

const CLAUDE: &str = "compact/claude-work.jsonl";
const CODEX: &str = "compact/codex-work.jsonl";
/// The session ids of the two fixtures.
const CLAUDE_ID: &str = "5f1c2a9e-8d7b-4c3a-9e21-0b6f4d2c8a11";
const CODEX_ID: &str = "019a4b2c-1111-7222-8333-444455556666";
const CWD: &str = "/home/dev/app";

/// A run's exit status, stdout and stderr.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", self.stdout, self.stderr))
    }
}

/// Runs cctool with `HOME` in `home`, `env` set and `args`.
fn run(home: &Path, env: &[(&str, &Path)], args: &[&str]) -> Run {
    let mut cmd = cctool();
    cmd.env("HOME", home).env("SOURCE_DATE_EPOCH", "1764000000");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `compact --json --into-store --keep-recent 3000 ARGS FILE`, whose exit status is `code`.
fn into_store(home: &Path, env: &[(&str, &Path)], file: &Path, args: &[&str], code: i32) -> Value {
    let mut all = vec!["--json", "compact", "--into-store", "--keep-recent", "3000"];
    all.extend_from_slice(args);
    all.push(file.to_str().unwrap());
    let r = run(home, env, &all);
    assert_eq!(r.code, Some(code), "{all:?}: {}", r.stderr);
    r.json()
}

/// An old (not live) copy of the fixture `name` at `path`, its folders made, with `cwd` for
/// the fixture's working directory.
fn place_input(name: &str, path: &Path, cwd: &str) -> Vec<u8> {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(fixture(name)).unwrap().replace(CWD, cwd);
    write_aged(path, text.as_bytes());
    text.into_bytes()
}

fn lines(path: &Path) -> Vec<Value> {
    records(&std::fs::read_to_string(path).unwrap())
}

/// The `total` record of `doctor --json FILE`: what it found, by severity.
fn doctor_total(home: &Path, file: &Path) -> (Value, Value) {
    let r = run(home, &[], &["doctor", "--json", file.to_str().unwrap()]);
    let total = records(&r.stdout)
        .into_iter()
        .find(|t| t["kind"] == "total")
        .expect("a total");
    (total["errors"].clone(), total["warnings"].clone())
}

/// The session ids `scan --json DIR` lists.
fn scanned_ids(home: &Path, dir: &Path) -> Vec<String> {
    let r = run(home, &[], &["scan", "--json", dir.to_str().unwrap()]);
    let mut ids: Vec<String> = records(&r.stdout)
        .into_iter()
        .filter(|s| s["kind"] == "session")
        .map(|s| s["session_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_claude_code_transcript_becomes_a_session_of_its_own_in_its_project_folder() {
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("config");
    let env = [("CLAUDE_CONFIG_DIR", config.as_path())];
    let input = cc::transcript_path(&config, CWD, CLAUDE_ID);
    let before = place_input(CLAUDE, &input, CWD);
    let r = into_store(root.path(), &env, &input, &[], 0);
    let id = r["session_id"].as_str().expect("the new id").to_string();
    assert!(cctool::model::store::is_uuid(&id) && id != CLAUDE_ID, "{id}");
    let placed = cc::transcript_path(&config, CWD, &id);
    assert_eq!(r["output"], placed.to_str().unwrap());
    assert_eq!(r["resume"], cc::resume_command(&id, CWD));
    assert_eq!(r["registered"], Value::Null);
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input is untouched");

    // Every row that names a session names the new one.
    let rows = lines(&placed);
    assert!(rows.len() > before.iter().filter(|&&b| b == b'\n').count());
    assert!(
        rows.iter()
            .all(|row| row.get("sessionId").is_none_or(|s| s == id.as_str()))
    );
    // scan lists both sessions, each once; the resume loads boundary, summary, tail.
    let mut both = vec![CLAUDE_ID.to_string(), id.clone()];
    both.sort();
    assert_eq!(scanned_ids(root.path(), &config.join("projects")), both);
    let chain = run(root.path(), &[], &["rebuild-chain", "--json", placed.to_str().unwrap()]);
    assert_eq!(chain.code, Some(0), "{}", chain.stderr);
    let chain = records(&chain.stdout);
    assert_eq!(chain[0]["subtype"], "compact_boundary");
    assert_eq!(chain[1]["isCompactSummary"], true);
    assert!(
        chain
            .iter()
            .all(|row| row.get("sessionId").is_none_or(|s| s == id.as_str()))
    );
    assert_eq!(doctor_total(root.path(), &placed), doctor_total(root.path(), &input));
}

#[test]
fn a_codex_rollout_becomes_a_thread_of_its_own_registered_in_the_index() {
    let home = codex_home_with_index();
    let env = [("CODEX_HOME", home.path())];
    let input = home.path().join("elsewhere/rollout.jsonl");
    let before = place_input(CODEX, &input, CWD);
    let r = into_store(home.path(), &env, &input, &[], 0);
    let id = r["session_id"].as_str().expect("the new id").to_string();
    assert!(id != CODEX_ID);
    // Dated by the rollout's first line, as convert --into-store dates one.
    let started = "2026-11-02T09:00:01Z".parse().unwrap();
    let placed = codex::rollout_path(home.path(), &started, &id);
    assert_eq!(r["output"], placed.to_str().unwrap());
    assert_eq!(r["resume"], codex::resume_command(&id));
    assert_eq!(r["registered"], "added");
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input is untouched");

    let recs = lines(&placed);
    assert_eq!(recs[0]["type"], "session_meta");
    assert_eq!(recs[0]["payload"]["id"], id.as_str());
    assert!(recs.iter().any(|r| r["type"] == "compacted"), "the compaction is in it");
    let row = rows(home.path()).into_iter().find(|row| row[0] == id).expect("its row");
    assert_eq!(row[1], placed.to_str().unwrap());
    assert_eq!(scanned_ids(home.path(), &home.path().join("sessions")), [id.as_str()]);
    let chain = run(home.path(), &[], &["rebuild-chain", placed.to_str().unwrap()]);
    assert_eq!(chain.code, Some(0), "{}", chain.stderr);
    assert!(
        chain
            .stdout
            .contains("Another language model started to solve this problem")
    );
    assert_eq!(doctor_total(home.path(), &placed), doctor_total(home.path(), &input));
}

#[test]
fn a_dry_run_says_where_it_would_go_and_writes_nothing() {
    let root = tempfile::tempdir().unwrap();
    for (name, var, store) in [(CLAUDE, "CLAUDE_CONFIG_DIR", "claude"), (CODEX, "CODEX_HOME", "codex")] {
        let store = root.path().join(store);
        let input = root.path().join(name.replace('/', "-"));
        place_input(name, &input, CWD);
        let env = [(var, store.as_path())];
        let r = into_store(root.path(), &env, &input, &["--dry-run"], 1);
        let id = r["session_id"].as_str().unwrap();
        assert!(r["output"].as_str().unwrap().starts_with(store.to_str().unwrap()));
        assert!(r["output"].as_str().unwrap().contains(id));
        assert_eq!(r["resume"], Value::Null);
        assert!(!store.exists(), "{name}: nothing written");
        let text = run(
            root.path(),
            &env,
            &[
                "compact",
                "--into-store",
                "--dry-run",
                "--keep-recent",
                "3000",
                input.to_str().unwrap(),
            ],
        );
        assert_eq!(text.code, Some(1));
        let first = text.stdout.lines().next().unwrap();
        assert!(
            first.ends_with(&format!(
                "would write {} as the new session {id}",
                r["output"].as_str().unwrap()
            )),
            "{first}"
        );
        assert!(!store.exists(), "{name}: nothing written");
    }
}

#[test]
fn into_store_conflicts_with_o_and_in_place() {
    let root = tempfile::tempdir().unwrap();
    let input = root.path().join("in.jsonl");
    place_input(CLAUDE, &input, CWD);
    for other in [&["-o", "out.jsonl"][..], &["--in-place"]] {
        let mut args = vec!["compact", "--into-store"];
        args.extend_from_slice(other);
        args.push(input.to_str().unwrap());
        let r = run(root.path(), &[], &args);
        assert_eq!(r.code, Some(2));
        assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    }
}

#[test]
fn compacting_again_names_the_same_session_which_only_force_replaces() {
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("config");
    let env = [("CLAUDE_CONFIG_DIR", config.as_path())];
    let input = root.path().join("in.jsonl");
    place_input(CLAUDE, &input, CWD);
    let args = [
        "compact",
        "--into-store",
        "--keep-recent",
        "3000",
        input.to_str().unwrap(),
    ];
    let first = run(root.path(), &env, &args);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    // What is said, then the command that resumes it, alone on its line.
    let said: Vec<&str> = first.stdout.lines().collect();
    assert_eq!(said.len(), 2, "{}", first.stdout);
    let id = said[0].rsplit(' ').next().unwrap();
    assert_eq!(said[1], cc::resume_command(id, CWD));
    let placed = cc::transcript_path(&config, CWD, id);

    std::fs::write(&placed, "resumed since\n").unwrap();
    let again = run(root.path(), &env, &args);
    assert_eq!(again.code, Some(2));
    assert!(again.stderr.contains("exists"), "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(&placed).unwrap(), "resumed since\n");

    let r = into_store(root.path(), &env, &input, &["--force"], 0);
    assert_eq!(r["session_id"], id);
    assert_eq!(r["output"], placed.to_str().unwrap());
    assert!(lines(&placed).len() > 1, "replaced");
    // Another compaction of it is another session.
    let other = run(
        root.path(),
        &env,
        &[
            "--json",
            "compact",
            "--into-store",
            "--keep-recent",
            "2000",
            input.to_str().unwrap(),
        ],
    );
    assert_eq!(other.code, Some(0), "{}", other.stderr);
    assert_ne!(other.json()["session_id"], id);
}

#[test]
fn a_cctool_session_has_no_store_to_go_into() {
    let root = tempfile::tempdir().unwrap();
    let input = root.path().join("s.json");
    write_aged(&input, &std::fs::read(fixture("compact/session-v5.json")).unwrap());
    let r = into_store(root.path(), &[], &input, &[], 2);
    assert_eq!(
        r["error"],
        "a cctool session has no agent store to go into: write the compaction with -o OUT"
    );
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1, "nothing written");
}

/// The real clients resume the placed session by the printed id: the recap, then the tail.
#[test]
fn the_real_clients_resume_a_compaction_placed_in_their_store() {
    if let Some(view) = realclient(Client::ClaudeCode) {
        let root = tempfile::tempdir().unwrap();
        let (config, work) = (root.path().join("config"), root.path().join("work"));
        std::fs::create_dir_all(&work).unwrap();
        let cwd = work.display().to_string();
        let input = cc::transcript_path(&config, &cwd, CLAUDE_ID);
        place_input(CLAUDE, &input, &cwd);
        let r = into_store(root.path(), &[("CLAUDE_CONFIG_DIR", &config)], &input, &[], 0);
        let sent =
            store_view(&view.with_file_name("cc-store-view.sh"), &config, &work, id_of(&r)).expect("resumed by id");
        assert!(sent.contains("This session is being continued"), "{sent}");
        assert!(sent.contains("Continue with the evaluator"), "{sent}");
    }
    if let Some(view) = realclient(Client::Codex) {
        let home = codex_home_with_index();
        let work: PathBuf = home.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let input = home.path().join("rollout.jsonl");
        place_input(CODEX, &input, &work.display().to_string());
        let r = into_store(home.path(), &[("CODEX_HOME", home.path())], &input, &[], 0);
        let sent = store_view(
            &view.with_file_name("codex-store-view.sh"),
            home.path(),
            &work,
            id_of(&r),
        )
        .expect("resumed by id");
        assert!(
            sent.contains("Another language model started to solve this problem"),
            "{sent}"
        );
    }
}

fn id_of(r: &Value) -> &str {
    r["session_id"].as_str().unwrap()
}
