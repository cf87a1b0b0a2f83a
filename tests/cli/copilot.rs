//! GitHub Copilot CLI sessions: found by their content alone and by their store, read through
//! the session model (`scan`, `rebuild-chain`, `extract-summary`, `doctor`, `export`, the
//! tables, `search`), on the fixtures and on the shared real samples.

use serde_json::Value;

use crate::util::{cctool, fixture, records, shared_files, stdout_of};

fn path(rel: &str) -> String {
    fixture(rel).to_str().unwrap().to_string()
}

fn scan_of(rel: &str) -> Value {
    let out = stdout_of(&["scan", "--json", &path(rel)]);
    records(&out)
        .into_iter()
        .find(|r| r["kind"] == "session")
        .expect("a session record")
}

/// The lines of a fixture whose JSON `type` is `ty`, 1-based.
fn lines_of(rel: &str, ty: &str) -> Vec<u64> {
    let text = std::fs::read(fixture(rel)).unwrap();
    text.split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| serde_json::from_slice::<Value>(l).is_ok_and(|v| v["type"] == ty))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

#[test]
fn every_fixture_of_copilot_and_no_other_is_read_as_copilot() {
    // Some fixtures are damaged on purpose: the exit status says so, the records are read.
    let out = cctool().args(["scan", "--json", &path("")]).output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let mut ours = 0;
    for r in records(&out).into_iter().filter(|r| r["kind"] == "session") {
        let p = r["path"].as_str().unwrap();
        // The recorded conversions into Copilot CLI are its sessions too.
        let is_copilot_fixture = p.contains("/fixtures/copilot/")
            || (p.contains("/fixtures/convert/recorded/") && p.ends_with(".copilot.jsonl"));
        assert_eq!(r["format"] == "copilot", is_copilot_fixture, "{p}: {}", r["format"]);
        ours += usize::from(is_copilot_fixture);
    }
    assert_eq!(
        ours, 11,
        "turns, compacted, dangling, damaged, background-compaction, autopilot, mode-ended, the store's session, the two real ones and a recorded conversion"
    );
}

#[test]
fn scan_reads_title_project_time_and_compactions() {
    let r = scan_of("copilot/turns.jsonl");
    assert_eq!(r["title"], "List the files in src and count the lines of main.rs");
    assert_eq!(r["cwd"], "/home/dev/widget");
    assert_eq!(r["project"], "widget");
    assert_eq!(r["session_id"], "5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19");
    assert_eq!(r["agent_versions"], serde_json::json!(["1.0.74"]));
    assert_eq!(r["first_timestamp"], "2026-11-02T10:00:01.000Z");
    assert_eq!(r["compactions"], 0);
    assert_eq!(r["chain_end"], "start");
    let c = scan_of("copilot/compacted.jsonl");
    assert_eq!(c["compactions"], 1);
    assert_eq!(c["last_compaction_trigger"], "manual");
    assert_eq!(c["last_compaction_pre_tokens"], 5000);
    let at = lines_of("copilot/compacted.jsonl", "session.compaction_complete")[0];
    assert_eq!(c["chain_end"], format!("compacted:{at}"));
    // The summary, the prompt after the resume and the reply with its dangling call.
    assert_eq!(c["chain_messages"], 3);
}

#[test]
fn the_workspace_file_names_the_folder_and_the_session() {
    let rel = "copilot/store/session-state/5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19/events.jsonl";
    let r = scan_of(rel);
    assert_eq!(r["cwd"], "/home/dev/gadget");
    assert_eq!(r["title_source"], "workspace-name");
}

#[test]
fn scan_without_arguments_lists_the_copilot_store() {
    for (var, value) in [
        ("COPILOT_HOME", fixture("copilot/store")),
        ("HOME", fixture("copilot/store/..")),
    ] {
        let mut cmd = cctool();
        cmd.args(["scan", "--json"]).env(var, &value);
        if var == "HOME" {
            // `~/.copilot` is the default: a scratch home holding the store under that name.
            let home = tempfile::tempdir().unwrap();
            crate::util::copy_tree(&fixture("copilot/store"), &home.path().join(".copilot"));
            cmd.env("HOME", home.path());
            let out = cmd.assert().success().get_output().stdout.clone();
            let ids = session_ids(&String::from_utf8(out).unwrap());
            assert_eq!(ids, ["5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19"]);
            continue;
        }
        let out = cmd.assert().success().get_output().stdout.clone();
        let ids = session_ids(&String::from_utf8(out).unwrap());
        assert_eq!(ids, ["5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19"], "{var}");
    }
    let missing = cctool()
        .args(["scan"])
        .env("COPILOT_HOME", "/nonexistent-copilot")
        .assert()
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(missing).unwrap();
    assert!(
        err.contains("no Copilot CLI store at /nonexistent-copilot/session-state (from COPILOT_HOME)"),
        "{err}"
    );
}

/// A store laid out as 1.0.102 leaves it: beside each session's `events.jsonl`, files that are
/// no session. `scan` reads the events alone and says nothing of the rest; the id it prints,
/// and a prefix of it, name the session as input.
#[test]
fn a_store_is_its_sessions_and_scan_ids_name_them() {
    let home = tempfile::tempdir().unwrap();
    let copilot = home.path().join("copilot-home");
    crate::util::copy_tree(&fixture("copilot/store"), &copilot);
    let id = "5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19";
    let session = copilot.join("session-state").join(id);
    for (rel, text) in [
        (
            "rewind-file-snapshots/tracking.json",
            "{\"version\":1,\"snapshots\":[]}",
        ),
        ("checkpoints/index.md", "# Checkpoints\n"),
        ("files/notes.json", "[1,2]"),
        ("research/r.jsonl", "{\"q\":1}\n"),
        ("session.db", "SQLite format 3"),
    ] {
        let p = session.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let run = |args: &[&str]| {
        cctool()
            .args(args)
            .env("HOME", home.path())
            .env("COPILOT_HOME", &copilot)
            .output()
            .unwrap()
    };
    let out = run(&["scan", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(session_ids(&stdout), [id]);
    assert!(!stdout.contains("not-a-session"), "{stdout}");
    let total = records(&stdout).into_iter().find(|r| r["kind"] == "total").unwrap();
    assert_eq!(total["skipped"], 0, "{total}");
    // Named on the command line, such a file is still read (and is no session).
    let named = cctool()
        .args(["scan", "--json"])
        .arg(session.join("files/notes.json"))
        .output()
        .unwrap();
    assert!(!named.status.success());
    for arg in [id, "5b1d7c2e"] {
        let out = run(&["rebuild-chain", arg]);
        assert!(out.status.success(), "{arg}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{arg}");
    }
}

fn session_ids(out: &str) -> Vec<String> {
    records(out)
        .into_iter()
        .filter(|r| r["kind"] == "session")
        .map(|r| r["session_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn rebuild_chain_loads_from_the_last_compaction() {
    let rel = "copilot/compacted.jsonl";
    let types = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["rebuild-chain"];
        all.extend_from_slice(args);
        let p = path(rel);
        all.push(&p);
        records(&stdout_of(&all))
            .iter()
            .map(|r| r["type"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        types(&[]),
        ["session.compaction_complete", "user.message", "assistant.message"]
    );
    let full = types(&["--full"]);
    assert_eq!(full.first().map(String::as_str), Some("user.message"));
    assert_eq!(full.iter().filter(|t| *t == "tool.execution_complete").count(), 1);
    assert_eq!(full.len(), 8);
    let mut cmd = cctool();
    cmd.args(["rebuild-chain", "--tip", "x"]).arg(path(rel));
    let out = cmd.assert().failure().get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("Copilot CLI"));
}

#[test]
fn summaries_are_exactly_as_stored() {
    let rel = "copilot/compacted.jsonl";
    let out = stdout_of(&["extract-summary", "--json", &path(rel)]);
    let s: Vec<Value> = records(&out).into_iter().filter(|r| r["kind"] == "summary").collect();
    assert_eq!(s.len(), 1);
    let line = lines_of(rel, "session.compaction_complete")[0];
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    let rec: Value = serde_json::from_str(text.lines().nth(line as usize - 1).unwrap()).unwrap();
    assert_eq!(s[0]["summary"], rec["data"]["summaryContent"]);
    assert_eq!(s[0]["current"], true);
    assert_eq!(s[0]["line"], line);
    assert_eq!(s[0]["metadata"]["checkpointNumber"], 1);
    assert_eq!(s[0]["metadata"]["tokensRemoved"], 3600);
}

#[test]
fn doctor_names_the_reported_failures_with_their_lines() {
    let out = cctool()
        .args(["doctor", "--json", &path("copilot/damaged.jsonl")])
        .assert()
        .get_output()
        .stdout
        .clone();
    let found: Vec<(u64, String, String)> = records(&String::from_utf8(out).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "finding")
        .map(|r| {
            let code = r["code"].as_str().unwrap().to_string();
            (
                r["line"].as_u64().unwrap_or(0),
                code,
                r["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let has = |line: u64, code: &str| found.iter().any(|(l, c, _)| *l == line && c == code);
    assert!(has(5, "invalid-json"), "{found:?}");
    assert!(
        found
            .iter()
            .any(|(l, _, m)| *l == 5 && m.starts_with("interleaved lines")),
        "{found:?}"
    );
    assert!(has(6, "invalid-json"), "{found:?}");
    assert!(has(7, "dangling-parent"), "{found:?}");
    assert!(has(8, "tool-result-without-call"), "{found:?}");
    assert!(has(9, "negative-tokens-removed"), "{found:?}");
    assert!(has(10, "not-an-object"), "{found:?}");
    assert!(has(12, "nul-padding"), "{found:?}");
    let dangling = cctool()
        .args(["doctor", "--json", &path("copilot/compacted.jsonl")])
        .assert()
        .get_output()
        .stdout
        .clone();
    let d = String::from_utf8(dangling).unwrap();
    assert!(
        d.contains("tool-call-without-result") && d.contains("synthetic \\\"interrupted\\\" result"),
        "{d}"
    );
}

#[test]
fn a_file_over_the_resume_limit_is_named() {
    // A sparse file: its size is what the client refuses, its content a valid session.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("events.jsonl");
    let mut body = std::fs::read(fixture("copilot/turns.jsonl")).unwrap();
    body.push(b'\n');
    std::fs::write(&f, &body).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&f).unwrap();
    file.set_len(512 * 1024 * 1024 + 1).unwrap();
    drop(file);
    let out = cctool()
        .args(["doctor", "--json", f.to_str().unwrap()])
        .assert()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("session-too-large"));
}

#[test]
fn tables_export_and_search_come_through_the_session_model() {
    let turns = path("copilot/turns.jsonl");
    let calls = records(&stdout_of(&["scan", "--rows", "tool-calls", &turns]));
    let names: Vec<&str> = calls.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["bash", "bash", "view"]);
    assert!(calls.iter().all(|c| c["has_result"] == true));
    assert_eq!(calls[2]["is_error"], true);
    let msgs = records(&stdout_of(&["scan", "--rows", "messages", &turns]));
    let users = msgs.iter().filter(|m| m["role"] == "user").count();
    assert_eq!(users, 2);
    let exported = stdout_of(&["export", "--format", "jsonl", &turns]);
    assert_eq!(exported.lines().count(), 9);
    let hits = stdout_of(&["search", "--json", "second stanza", &path("copilot")]);
    assert!(hits.contains("compacted.jsonl"), "{hits}");
    let none = cctool()
        .args(["search", "--json", "no such words anywhere", &path("copilot")])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert!(!String::from_utf8_lossy(&none).contains("compacted.jsonl"));
}

#[test]
fn real_samples_read_whole_with_their_summary_exact() {
    let Some(files) = shared_files(&["copilot/real"]) else {
        return;
    };
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")) {
        let p = f.to_str().unwrap();
        let r = records(&stdout_of(&["scan", "--json", p]));
        let s = r.iter().find(|r| r["kind"] == "session").expect("session");
        assert_eq!(s["format"], "copilot", "{p}");
        assert_eq!(s["bad_lines"], 0, "{p}");
        assert!(s["title"].is_string(), "{p}");
        let summaries = records(&stdout_of(&["extract-summary", "--json", p]));
        let text = std::fs::read_to_string(f).unwrap();
        let stored: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["type"] == "session.compaction_complete")
            .map(|v| v["data"]["summaryContent"].clone())
            .collect();
        let got: Vec<Value> = summaries
            .iter()
            .filter(|r| r["kind"] == "summary")
            .map(|r| r["summary"].clone())
            .collect();
        assert_eq!(got, stored, "{p}");
    }
}

/// A session the real client (1.0.102, offline against the mock) wrote: a call, a `/compact`,
/// a resume; beside it the messages it sent on that resume. What `rebuild-chain` loads is what
/// the request carries after the system prompt: the compaction's summary in the client's
/// wrapper, with the prompts before it, then the prompt after it as `transformedContent`.
#[test]
fn what_a_resume_loads_is_what_the_real_client_sent() {
    let rel = "copilot/real/compacted-resumed.jsonl";
    let loaded = records(&stdout_of(&["rebuild-chain", &path(rel)]));
    let types: Vec<&str> = loaded.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["session.compaction_complete", "user.message", "assistant.message"]
    );
    let sent: Value =
        serde_json::from_slice(&std::fs::read(fixture("copilot/real/compacted-resumed.sent.json")).unwrap()).unwrap();
    let msgs = sent.as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "user", "assistant", "user"]);
    let summary = records(&stdout_of(&["extract-summary", "--json", &path(rel)]))
        .into_iter()
        .find(|r| r["kind"] == "summary")
        .unwrap();
    let wrapper = msgs[0]["content"].as_str().unwrap();
    let text = summary["summary"].as_str().unwrap();
    assert!(wrapper.contains(&format!("<summary>\n{text}\n</summary>")), "{wrapper}");
    let file = std::fs::read_to_string(fixture(rel)).unwrap();
    let prompts: Vec<Value> = file
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "user.message")
        .collect();
    let before = prompts[0]["data"]["content"].as_str().unwrap();
    assert!(
        wrapper.contains(&format!("<user_message>\n{before}\n</user_message>")),
        "{wrapper}"
    );
    assert_eq!(msgs[1]["content"], loaded[1]["data"]["transformedContent"]);
    assert_eq!(msgs[2]["content"], loaded[2]["data"]["content"]);
    // The compaction's own model call is chained apart: no broken link is reported.
    let d = stdout_of(&["doctor", "--json", &path(rel)]);
    assert!(!d.contains("dangling-parent"), "{d}");
}

#[test]
fn api_view_answers_a_dangling_call_with_the_interrupted_result() {
    let got = records(&stdout_of(&[
        "rebuild-chain",
        "--api-view",
        &path("copilot/compacted.jsonl"),
    ]));
    let roles: Vec<&str> = got.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "user", "assistant", "tool"]);
    assert_eq!(got[3]["tool_call_id"], "call_a");
    assert!(
        got[3]["content"]
            .as_str()
            .unwrap()
            .starts_with("Tool execution was interrupted before a result was recorded. Its effects")
    );
    assert!(got[0]["content"].as_str().unwrap().contains("<user_message>\nWrite a haiku about rust into poem.txt\n</user_message>\n<user_message>\n/compact\n</user_message>"));
}

/// The texts a resume of a Copilot CLI file sends, in order, and the ids of its calls and
/// results, as `rebuild-chain --api-view` gives them (the client's date before each prompt
/// left out).
fn sent_texts(file: &str) -> Vec<String> {
    let out = stdout_of(&["-q", "rebuild-chain", "--api-view", file]);
    let mut got = Vec::new();
    for m in records(&out) {
        let text = m["content"].as_str().unwrap_or("");
        let text = text.split_once("</current_datetime>\n\n").map_or(text, |(_, t)| t);
        if !text.is_empty() {
            got.push(format!("{}: {text}", m["role"].as_str().unwrap_or("")));
        }
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            got.push(format!("call {} {}", c["id"], c["function"]["name"]));
        }
    }
    got
}

#[test]
fn a_conversion_to_copilot_is_a_session_it_resumes_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("events.jsonl");
    let out_s = out.to_str().unwrap();
    stdout_of(&[
        "-q",
        "convert",
        "--to",
        "copilot",
        "-o",
        out_s,
        &path("claude/parallel_tool_calls.jsonl"),
    ]);
    assert_eq!(scan_of_path(out_s)["format"], "copilot");
    let got = sent_texts(out_s);
    assert_eq!(
        got,
        [
            "user: read both config files",
            "assistant: Reading both.",
            "call \"toolu_a\" \"view\"",
            "call \"toolu_b\" \"view\"",
            "tool: a = 1",
            "tool: b = 2",
            "assistant: a is 1 and b is 2.",
        ]
    );
    let doctor = cctool().args(["doctor", "--json", out_s]).output().unwrap();
    let findings: Vec<Value> = records(&String::from_utf8(doctor.stdout).unwrap())
        .into_iter()
        .filter(|r| r["severity"] == "warning" || r["severity"] == "error")
        .collect();
    assert!(findings.is_empty(), "{findings:#?}");
    // A Copilot session taken to Claude Code and back sends the same messages.
    let claude = dir.path().join("c.jsonl");
    let back = dir.path().join("b.jsonl");
    let src = path("copilot/turns.jsonl");
    stdout_of(&[
        "-q",
        "convert",
        "--to",
        "claude-code",
        "-o",
        claude.to_str().unwrap(),
        &src,
    ]);
    stdout_of(&[
        "-q",
        "convert",
        "--to",
        "copilot",
        "-o",
        back.to_str().unwrap(),
        claude.to_str().unwrap(),
    ]);
    assert_eq!(sent_texts(back.to_str().unwrap()), sent_texts(&src));
}

fn scan_of_path(file: &str) -> Value {
    records(&stdout_of(&["scan", "--json", file]))
        .into_iter()
        .find(|r| r["kind"] == "session")
        .expect("a session record")
}

#[test]
fn a_copilot_session_is_not_converted_to_copilot() {
    let out = cctool()
        .args(["convert", "--to", "copilot", &path("copilot/turns.jsonl")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn into_store_places_the_session_with_its_workspace_and_converting_again_adds_nothing() {
    let home = tempfile::tempdir().unwrap();
    let src = path("claude/parallel_tool_calls.jsonl");
    let run = || {
        let out = cctool()
            .env("HOME", home.path())
            .args(["convert", "--to", "copilot", "--into-store", &src])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let stdout = run();
    let state = home.path().join(".copilot/session-state");
    let sessions: Vec<_> = std::fs::read_dir(&state).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let id = sessions[0].file_name().unwrap().to_str().unwrap().to_string();
    assert_eq!(stdout.trim(), format!("cd /home/dev/app && copilot --resume={id}"));
    let yaml = std::fs::read_to_string(sessions[0].join("workspace.yaml")).unwrap();
    assert!(yaml.starts_with(&format!("id: {id}\ncwd: /home/dev/app\n")), "{yaml}");
    // The store is read as Copilot's: scan lists the session under its folder and project.
    let scan = cctool()
        .env("HOME", home.path())
        .args(["scan", "--json"])
        .output()
        .unwrap();
    let listed: Vec<Value> = records(&String::from_utf8(scan.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "session")
        .collect();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["format"], "copilot");
    let events = sessions[0].join("events.jsonl");
    let before = std::fs::read(&events).unwrap();
    run();
    assert_eq!(std::fs::read(&events).unwrap(), before);
}

/// A Copilot CLI session is a folder: `backup` takes its `workspace.yaml` (by which the client
/// lists it) and its checkpoints with its events, `restore` lists the session once and puts
/// the whole folder back, byte for byte.
#[test]
fn backup_and_restore_keep_a_session_s_whole_folder() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("copilot");
    let session = home.join("session-state/5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19");
    std::fs::create_dir_all(session.join("checkpoints")).unwrap();
    let src = fixture("copilot/store/session-state/5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19");
    for f in ["events.jsonl", "workspace.yaml"] {
        std::fs::copy(src.join(f), session.join(f)).unwrap();
    }
    std::fs::write(session.join("checkpoints/index.json"), b"{\"checkpoints\":[]}\n").unwrap();
    std::fs::write(session.join("checkpoints/001.md"), b"# checkpoint\n").unwrap();
    let files: Vec<(std::path::PathBuf, Vec<u8>)> = walkdir::WalkDir::new(&session)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect();
    assert_eq!(files.len(), 4);
    let run = |args: &[&str]| {
        cctool()
            .env("HOME", dir.path())
            .env("COPILOT_HOME", &home)
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .args(args)
            .assert()
    };
    let backup = records(&String::from_utf8_lossy(
        &run(&["--json", "backup"]).success().get_output().stdout,
    ));
    assert_eq!(backup[0]["files"], 4, "{backup:?}");
    let listed = records(&String::from_utf8_lossy(
        &run(&["--json", "restore"]).success().get_output().stdout,
    ));
    assert_eq!(listed.len(), 1, "one session, not its checkpoints: {listed:?}");
    assert_eq!(listed[0]["session_id"], "5b1d7c2e-8a40-4f6b-9d3e-2c7a1e0f4b19");

    std::fs::remove_dir_all(&session).unwrap();
    run(&["restore", "--deleted"]).success();
    for (path, bytes) in &files {
        assert_eq!(&std::fs::read(path).unwrap(), bytes, "{}", path.display());
    }
    // The client lists it again, and cctool reads it as before.
    let scan = records(&stdout_of(&[
        "scan",
        "--json",
        session.join("events.jsonl").to_str().unwrap(),
    ]));
    assert_eq!(scan[0]["project"], "gadget");
}

/// The real client, when installed, runs cctool's hooks: a new session and a resume each back
/// the session up once the client has exited (SessionEnd), a `/compact` before it compacts
/// (PreCompact), and `restore` gives back the session byte for byte as the client left it.
#[test]
fn the_real_client_runs_the_hooks_and_restore_gives_the_session_back_as_it_left_it() {
    if crate::util::realclient(crate::util::Client::Copilot).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("archive");
    let run = std::process::Command::new(crate::util::root().join("scripts/realclient/copilot-hooks-view.sh"))
        .arg(env!("CARGO_BIN_EXE_cctool"))
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let session = std::path::PathBuf::from(String::from_utf8(run.stdout).unwrap().trim());
    let log = std::fs::read_to_string(archive.join("hooks.log")).unwrap();
    assert_eq!(log.matches("copilot backed up").count(), 3, "{log}");
    assert_eq!(log.matches("copilot SessionEnd: ").count(), 2, "{log}");
    let id = session.parent().unwrap().file_name().unwrap().to_str().unwrap();
    let to = dir.path().join("restored");
    let restored = cctool()
        .args(["restore", id, "--from"])
        .arg(&archive)
        .arg("--to")
        .arg(&to)
        .output()
        .unwrap();
    assert!(
        restored.status.success(),
        "{}",
        String::from_utf8_lossy(&restored.stderr)
    );
    let back = to.join("copilot/session-state").join(id).join("events.jsonl");
    let bytes = std::fs::read(&session).unwrap();
    assert!(
        bytes.ends_with(b"\n")
            && String::from_utf8_lossy(&bytes)
                .lines()
                .last()
                .unwrap()
                .contains("\"session.shutdown\""),
        "the client's last event is its shutdown"
    );
    assert_eq!(std::fs::read(&back).unwrap(), bytes, "{log}");
}
