//! opencode sessions: the sessions of its SQLite database, each named `DB#ID` and by its id,
//! read without writing a byte, and `opencode export` documents; read through the session
//! model (`scan`, `rebuild-chain`, `extract-summary`, `doctor`, `export`, the tables,
//! `search`), and `--api-view` against the requests the real client sent, on the fixtures
//! (`fixtures/opencode/`, made by `scripts/realclient/opencode/record.sh`) and on the shared
//! real sessions.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{Client, cctool, fixture, realclient, records, shared_files, stdout_of};

fn db() -> PathBuf {
    fixture("opencode/opencode.db")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The scan records of the fixture database, by project.
fn sessions() -> Vec<Value> {
    let out = stdout_of(&["scan", "--json", s(&db())]);
    records(&out).into_iter().filter(|r| r["kind"] == "session").collect()
}

fn session_of(project: &str) -> Value {
    sessions()
        .into_iter()
        .find(|r| r["project"] == project)
        .unwrap_or_else(|| panic!("no session of {project}"))
}

/// The fixtures' recorded requests: `(session, the session's export, the request)`.
fn recorded() -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(fixture("opencode")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(id) = name.strip_suffix(".sent.json") {
            out.push((id.to_string(), fixture(&format!("opencode/{id}.export.json")), e.path()));
        }
    }
    out.sort();
    assert!(!out.is_empty(), "no recorded request under fixtures/opencode");
    out
}

/// `rebuild-chain --api-view --prompt PROMPT` of `input`, one message a line.
pub(crate) fn api_view(input: &str, prompt: &str) -> Vec<Value> {
    let out = stdout_of(&["rebuild-chain", "--api-view", "--prompt", prompt, input]);
    out.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON message"))
        .collect()
}

/// The messages a request sent after its system prompt.
pub(crate) fn sent_after_system(request: &Value) -> Vec<Value> {
    let msgs = request["messages"].as_array().expect("messages");
    assert_eq!(msgs[0]["role"], "system");
    msgs[1..].to_vec()
}

#[test]
fn every_fixture_of_opencode_and_no_other_is_read_as_opencode() {
    let out = cctool().args(["scan", "--json", s(&fixture(""))]).output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let mut ours = 0;
    for r in records(&out).into_iter().filter(|r| r["kind"] == "session") {
        let p = r["path"].as_str().unwrap();
        // A recorded conversion into opencode (tests/cli/convert_clients.rs) is opencode's too.
        let converted = p.contains("/fixtures/convert/recorded/") && p.ends_with(".opencode.jsonl");
        let is_opencode_fixture = p.contains("/fixtures/opencode/");
        assert_eq!(
            r["format"] == "opencode",
            is_opencode_fixture || converted,
            "{p}: {}",
            r["format"]
        );
        ours += usize::from(is_opencode_fixture);
    }
    let exports = recorded().len();
    let legacy = crate::opencode_legacy::recorded().len();
    assert_eq!(
        ours,
        2 * exports + legacy,
        "each session of the database, its export, and each session of the older storage"
    );
}

#[test]
fn the_database_is_listed_session_by_session_and_named_db_hash_id() {
    let all = sessions();
    assert_eq!(all.len(), 3, "three projects");
    for r in &all {
        let id = r["session_id"].as_str().unwrap();
        assert!(id.starts_with("ses_"), "{id}");
        assert_eq!(r["path"], format!("{}#{id}", db().display()));
        assert_eq!(r["agent_versions"], serde_json::json!(["1.18.33"]));
    }
    let a = session_of("proj-a");
    assert_eq!(a["compactions"], 1);
    assert_eq!(a["last_compaction_trigger"], "auto");
    assert!(a["chain_end"].as_str().unwrap().starts_with("compacted:msg_"));
    let b = session_of("proj-b");
    assert_eq!(
        (b["compactions"].as_u64(), b["chain_end"].as_str()),
        (Some(0), Some("start"))
    );
    assert!(session_of("proj-loop")["compactions"].as_u64().unwrap() > 1);
}

#[test]
fn reading_never_writes_the_database() {
    let before = std::fs::read(db()).unwrap();
    let dir = db().parent().unwrap().to_path_buf();
    for args in [
        vec!["scan", s(&db())],
        vec!["doctor", s(&db())],
        vec!["extract-summary", s(&db())],
        vec!["search", "RUNTOOL", s(&db())],
    ] {
        cctool().args(&args).output().unwrap();
    }
    assert_eq!(std::fs::read(db()).unwrap(), before, "the database's bytes");
    for side in ["opencode.db-wal", "opencode.db-shm", "opencode.db-journal"] {
        assert!(!dir.join(side).exists(), "{side} was made");
    }
}

#[test]
fn a_wal_database_no_client_has_open_is_read_without_leaving_a_wal() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("opencode.db");
    std::fs::copy(db(), &copy).unwrap();
    {
        let c = rusqlite::Connection::open(&copy).unwrap();
        let mode: String = c.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
    }
    let before = std::fs::read(&copy).unwrap();
    let out = cctool().args(["scan", "--json", s(&copy)]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        records(&String::from_utf8(out.stdout).unwrap()).len(),
        4,
        "three sessions and the total"
    );
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["opencode.db"]);
}

#[test]
fn a_resume_loads_from_the_last_answered_compaction() {
    let a = session_of("proj-a");
    let out = stdout_of(&["rebuild-chain", a["path"].as_str().unwrap()]);
    let msgs: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(msgs.len() as u64, a["chain_messages"].as_u64().unwrap());
    // The compaction's request first, then its summary, then what followed.
    assert_eq!(msgs[0]["info"]["role"], "user");
    assert!(
        msgs[0]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["type"] == "compaction")
    );
    assert_eq!(msgs[1]["info"]["summary"], true);
    let full = stdout_of(&["rebuild-chain", "--full", a["path"].as_str().unwrap()]);
    assert!(
        full.lines().count() > msgs.len(),
        "--full gives the history before it too"
    );
}

#[test]
fn api_view_equals_what_the_real_client_sent_on_every_recorded_session() {
    for (id, export, sent) in recorded() {
        let request: Value = serde_json::from_slice(&std::fs::read(&sent).unwrap()).unwrap();
        let want = sent_after_system(&request);
        let from_db = api_view(&format!("{}#{id}", db().display()), "say-ok");
        assert_eq!(from_db, want, "{id} read from the database");
        assert_eq!(api_view(s(&export), "say-ok"), want, "{id} read from its export");
    }
}

#[test]
fn a_session_id_names_the_session_in_the_users_database() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("opencode")).unwrap();
    std::fs::copy(db(), data.join("opencode/opencode.db")).unwrap();
    let a = session_of("proj-a");
    let id = a["session_id"].as_str().unwrap();
    let run = |args: &[&str]| {
        cctool()
            .args(args)
            .env("HOME", dir.path())
            .env("XDG_DATA_HOME", &data)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .output()
            .unwrap()
    };
    let out = run(&["rebuild-chain", id]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().lines().count() as u64,
        a["chain_messages"].as_u64().unwrap()
    );
    // Its prefix, as scan shows ids, and scan with no PATH lists the database's sessions.
    let out = run(&["extract-summary", "--json", &id[..12]]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed = run(&["scan", "--json"]);
    let found: Vec<Value> = records(&String::from_utf8(listed.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "session")
        .collect();
    assert_eq!(found.len(), 3);
    // Every id the table shows names its session: the database's ids share their start, so
    // the table shows their ends (`…qV2vNPG4N14`).
    let table = cctool()
        .arg("scan")
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", &data)
        .env("COLUMNS", "200")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .output()
        .unwrap();
    let shown: Vec<String> = String::from_utf8(table.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("total"))
        .map(|l| l.split_whitespace().nth(2).unwrap().to_string())
        .collect();
    assert_eq!(shown.len(), 3, "{shown:?}");
    assert!(shown.iter().all(|id| id.starts_with('…')), "{shown:?}");
    for id in &shown {
        let out = run(&["rebuild-chain", id]);
        assert!(out.status.success(), "{id}: {}", String::from_utf8_lossy(&out.stderr));
        let found = run(&["search", "--json", "--session", id, "ok"]);
        let hits = records(&String::from_utf8(found.stdout).unwrap());
        let tail = id.trim_start_matches('…');
        assert!(
            !hits.is_empty() && hits.iter().all(|h| h["session_id"].as_str().unwrap().ends_with(tail)),
            "{id}: {hits:?}"
        );
    }
}

#[test]
fn summaries_are_the_summary_messages_as_stored() {
    let a = session_of("proj-a");
    let out = stdout_of(&["extract-summary", "--json", a["path"].as_str().unwrap()]);
    let sums: Vec<Value> = records(&out).into_iter().filter(|r| r["kind"] == "summary").collect();
    assert_eq!(sums.len(), 1);
    assert_eq!(sums[0]["current"], true);
    assert_eq!(sums[0]["trigger"], "auto");
    assert_eq!(sums[0]["summary"], "ok", "the mock's reply, as stored");
}

#[test]
fn doctor_names_a_compaction_loop_orphan_rows_and_unreadable_rows() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("opencode.db");
    std::fs::copy(db(), &copy).unwrap();
    let b = session_of("proj-b")["session_id"].as_str().unwrap().to_string();
    let a = session_of("proj-a")["session_id"].as_str().unwrap().to_string();
    {
        let c = rusqlite::Connection::open(&copy).unwrap();
        // A session row gone (its messages stay), and a part whose data is not JSON.
        c.execute("PRAGMA foreign_keys = OFF", []).unwrap();
        c.execute("DELETE FROM session WHERE id = ?1", [&b]).unwrap();
        c.execute(
            "UPDATE part SET data = 'not json' WHERE id = (SELECT p.id FROM part p JOIN message m ON m.id = p.message_id WHERE m.session_id = ?1 ORDER BY p.id LIMIT 1)",
            [&a],
        )
        .unwrap();
    }
    let out = cctool().args(["doctor", "--json", s(&copy)]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let codes: Vec<String> = records(&text)
        .iter()
        .filter_map(|r| r["code"].as_str().map(str::to_string))
        .collect();
    assert!(codes.iter().any(|c| c == "orphan-row"), "{text}");
    assert!(codes.iter().any(|c| c == "unreadable-row"), "{text}");
    assert!(codes.iter().any(|c| c == "compaction-loop"), "{text}");
    assert!(text.contains(&format!("names session {b}")), "{text}");
    // Two sessions are left, and both are read whatever their damaged rows.
    let scanned = stdout_of(&["scan", "--json", s(&copy)]);
    assert_eq!(records(&scanned).iter().filter(|r| r["kind"] == "session").count(), 2);
}

#[test]
fn export_tables_and_search_read_it_through_the_session_model() {
    let a = session_of("proj-a");
    let path = a["path"].as_str().unwrap();
    let md = stdout_of(&["export", "--format", "markdown", path]);
    assert!(md.contains("after-the-compaction-RUNTOOL"), "{md}");
    let rows = stdout_of(&["scan", "--rows", "tool-calls", "--json", path]);
    let calls: Vec<Value> = records(&rows);
    assert!(calls.iter().any(|r| r["name"] == "bash"), "{rows}");
    let hits = stdout_of(&["search", "--json", "after-the-compaction", s(&db())]);
    assert!(hits.contains(a["session_id"].as_str().unwrap()), "{hits}");
}

#[test]
fn compact_refuses_opencode_and_convert_refuses_opencode_into_opencode() {
    let path = session_of("proj-b")["path"].as_str().unwrap().to_string();
    let out = cctool().args(["compact", "--dry-run", &path]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("opencode"));
    let out = cctool().args(["convert", "--to", "opencode", &path]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already an opencode session"));
}

/// A session of the database converted to each other agent and back to opencode is sent on
/// resume exactly as the session itself (`--api-view`): its compaction, prompts, replies,
/// calls and their results, in order.
#[test]
fn a_session_converted_to_each_agent_and_back_is_sent_as_itself() {
    let a = session_of("proj-a");
    let path = a["path"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let want = stdout_of(&["-q", "rebuild-chain", "--api-view", path]);
    for to in ["claude-code", "codex", "pi", "copilot"] {
        let there = dir.path().join(format!("s.{to}.jsonl"));
        let back = dir.path().join(format!("s.{to}.opencode.json"));
        stdout_of(&["-q", "convert", "--to", to, "-o", s(&there), path]);
        stdout_of(&["-q", "convert", "--to", "opencode", "-o", s(&back), s(&there)]);
        let scan = records(&stdout_of(&["scan", "--json", s(&back)]));
        assert_eq!(scan[0]["format"], "opencode", "{to}: {scan:?}");
        assert_eq!(scan[0]["cwd"], a["cwd"], "{to}");
        let doctor = stdout_of(&["doctor", "--json", s(&back)]);
        assert!(
            !records(&doctor)
                .iter()
                .any(|r| r["severity"] == "warning" || r["severity"] == "error"),
            "{to}: {doctor}"
        );
        let got = stdout_of(&["-q", "rebuild-chain", "--api-view", s(&back)]);
        assert_eq!(got, want, "{to} and back");
    }
}

/// The report says what was carried and mapped; the document is one line of JSON.
#[test]
fn a_conversion_to_opencode_reports_its_mappings_and_is_one_document() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let src = fixture("convert/tools.codex.jsonl");
    let run = cctool()
        .args(["convert", "--to", "opencode", "--json", "-o", s(&out), s(&src)])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report = records(&String::from_utf8(run.stdout).unwrap());
    let r = report.iter().find(|r| r.get("mapped").is_some()).expect("a report");
    assert_eq!(r["mapped"]["exec_command → bash"], 1, "{r}");
    assert_eq!(r["carried"]["compactions"], 1, "{r}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 1);
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert!(doc["info"]["id"].as_str().unwrap().starts_with("ses_"));
    // Converting again writes the same document.
    let again = dir.path().join("u.json");
    stdout_of(&["-q", "convert", "--to", "opencode", "-o", s(&again), s(&src)]);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);
}

/// `--into-store` never writes into the client's database: it is refused, naming what to do.
#[test]
fn into_store_is_refused_naming_opencode_import() {
    let home = tempfile::tempdir().unwrap();
    let out = cctool()
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .args([
            "convert",
            "--to",
            "opencode",
            "--into-store",
            s(&fixture("convert/tools.codex.jsonl")),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("opencode import FILE") && err.contains("-o FILE"), "{err}");
    assert!(!home.path().join("data/opencode").exists());
}

#[test]
fn the_shared_real_exports_are_read_and_their_request_is_the_real_clients() {
    let Some(files) = shared_files(&["opencode/real"]) else {
        return;
    };
    let sessions: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with("_full.jsonl"))
        .collect();
    assert!(!sessions.is_empty());
    for f in &sessions {
        let r = records(&stdout_of(&["scan", "--json", s(f)]));
        assert_eq!(r[0]["format"], "opencode", "{}", f.display());
        assert!(r[0]["chain_messages"].as_u64().unwrap() > 0);
    }
    let Some(script) = realclient(Client::Opencode) else {
        return;
    };
    let Some(mock) = crate::util::opencode_mock() else {
        return;
    };
    for f in &sessions {
        let out = std::process::Command::new("bash")
            .arg(&script)
            .arg(f)
            .arg("say-ok")
            .env("OTHERAGENTS", &mock)
            .output()
            .unwrap();
        if !out.status.success() {
            crate::util::skip_notice(&format!(
                "opencode sent no request for {}: {}",
                f.display(),
                String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
            ));
            continue;
        }
        let request: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(api_view(s(f), "say-ok"), sent_after_system(&request), "{}", f.display());
    }
}

/// A database larger than the address space `scan` and `slim --dry-run` may use is read
/// session by session: every session is listed, and nothing of the database is held beyond the
/// sessions being read.
#[test]
fn a_database_larger_than_the_memory_cap_is_scanned_session_by_session() {
    const CAP: u64 = 96 << 20;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    std::fs::copy(db(), &path).unwrap();
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute("ATTACH ?1 AS src", [s(&db())]).unwrap();
    let ids: Vec<String> = c
        .prepare("SELECT id FROM src.session")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let cols: Vec<String> = c
        .prepare("SELECT name FROM pragma_table_info('session', 'src')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let select = cols
        .iter()
        .map(|k| if k == "id" { "?1" } else { k.as_str() })
        .collect::<Vec<_>>()
        .join(", ");
    // Copies of the client's own sessions, each holding its rows many times over (new ids
    // that keep their order), until the file is well past the cap.
    let mut n = 0;
    while std::fs::metadata(&path).unwrap().len() < 2 * CAP {
        c.execute_batch("BEGIN").unwrap();
        for id in &ids {
            let new = format!("{id}{n:04}");
            c.execute(
                &format!("INSERT INTO session SELECT {select} FROM src.session WHERE id = ?2"),
                [&new, id],
            )
            .unwrap();
            for rep in 0..40 {
                let tag = format!("{n:04}{rep:03}");
                c.execute(
                    "INSERT INTO message SELECT 'msg_' || ?1 || substr(id, 5), ?2, time_created, time_updated, data \
                     FROM src.message WHERE session_id = ?3",
                    [&tag, &new, id],
                )
                .unwrap();
                c.execute(
                    "INSERT INTO part SELECT 'prt_' || ?1 || substr(id, 5), 'msg_' || ?1 || substr(message_id, 5), ?2, \
                     time_created, time_updated, data FROM src.part WHERE session_id = ?3",
                    [&tag, &new, id],
                )
                .unwrap();
            }
        }
        c.execute_batch("COMMIT").unwrap();
        n += 1;
    }
    let total: i64 = c.query_row("SELECT count(*) FROM session", [], |r| r.get(0)).unwrap();
    drop(c);
    let Some(out) = crate::util::under_cap(&["scan", "--json", s(&path)], Some(CAP)) else {
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr:.500}");
    let listed = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["format"] == "opencode")
        .count();
    assert_eq!(listed as i64, total, "{stderr:.500}");
    // The report of where its space goes, too (exit 1: a VACUUM would change the file).
    let out = crate::util::under_cap(&["slim", "--dry-run", "--json", s(&path)], Some(CAP)).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr:.500}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["space"]["sessions"].as_array().map(Vec::len),
        Some(total as usize),
        "{stderr:.500}"
    );
}

/// A command that reads one session, given the whole database, says it holds several and how
/// to name one, rather than that it is not JSON; `migrate` of one without `-o` says it is a
/// session of a database; the batch commands count the database's sessions as sessions.
#[test]
fn the_database_given_where_one_session_is_read_is_named_as_many() {
    let db = db();
    for args in [
        vec!["rebuild-chain"],
        vec!["compact"],
        vec!["convert", "--to", "codex", "-o", "-"],
    ] {
        let out = cctool().args(&args).arg(&db).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("a database of 3 sessions, not one session") && stderr.contains(&format!("{}#ID", s(&db))),
            "{args:?}: {stderr}"
        );
    }
    let member = format!("{}#{}", s(&db), session_of("proj-a")["session_id"].as_str().unwrap());
    let out = cctool().args(["migrate", &member]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a session inside an agent's database"), "{stderr}");
    let out = cctool().args(["doctor", s(&db)]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("3 sessions checked"));
    let out = cctool().args(["extract-summary", s(&db)]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("3 sessions, "));
}
