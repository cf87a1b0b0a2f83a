//! Qwen Code's sessions (`crates/qwen`, docs/qwen.md): told by their content from Claude Code's,
//! whose records they resemble, read by the client's rules (the chain from the last record,
//! the last `chat_compression`, the repair of calls without results), and `--api-view` equal to
//! what Qwen Code 0.24.4 sent resuming each fixture: offline against the recordings
//! (`fixtures/qwen/NAME.sent.json`, by `scripts/realclient/qwen/record.sh`), live against the
//! installed client (skipped with a notice where it is absent).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{Client, cctool, fixture, realclient, records, root, stdout_of};

/// Every session of `fixtures/qwen/`, sorted.
fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("qwen"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn qwen(name: &str) -> String {
    fixture(&format!("qwen/{name}.jsonl")).display().to_string()
}

/// The messages `rebuild-chain --api-view --prompt PROMPT` prints for `file`, and its stderr.
fn api_view(file: &Path, prompt: &str) -> (Vec<Value>, String) {
    let out = cctool()
        .args(["rebuild-chain", "--api-view", "--prompt", prompt])
        .arg(file)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{}: {err}", file.display());
    (records(&String::from_utf8(out.stdout).unwrap()), err)
}

/// The file as JSON records, each line that parses.
fn lines_of(path: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn api_view_equals_the_recorded_request_on_every_fixture() {
    let all = fixtures();
    assert!(all.len() >= 7, "{all:?}");
    for file in all {
        let sent = file.with_extension("sent.json");
        let text = std::fs::read(&sent)
            .unwrap_or_else(|_| panic!("{}: no recording (scripts/realclient/qwen/record.sh)", file.display()));
        let expected: Value = serde_json::from_slice(&text).unwrap();
        if expected.is_null() {
            assert_refused(&file);
            continue;
        }
        let (got, _) = api_view(&file, "say ok");
        assert_eq!(Value::Array(got), expected, "{}", file.display());
    }
}

/// A file the client refuses to load (its recording is `null`): `--api-view` prints no
/// request and says why, and doctor names an error in it.
fn assert_refused(file: &Path) {
    let out = cctool()
        .args(["rebuild-chain", "--api-view", "--prompt", "say ok"])
        .arg(file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.stdout.is_empty() && err.contains("refuses"),
        "{}: {err}",
        file.display()
    );
    let doctor = cctool().args(["doctor", "--json"]).arg(file).output().unwrap();
    let errors = records(&String::from_utf8(doctor.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "finding" && r["severity"] == "error")
        .count();
    assert!(errors > 0, "{}", file.display());
}

#[test]
fn only_qwen_files_are_read_as_qwen_and_every_qwen_fixture_is() {
    let out = cctool()
        .args(["scan", "--json", root().join("fixtures").to_str().unwrap()])
        .output()
        .unwrap();
    let mut found: Vec<String> = records(&String::from_utf8(out.stdout).unwrap())
        .into_iter()
        .filter(|r| r["format"] == "qwen-code")
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    found.sort();
    let want: Vec<String> = fixtures().iter().map(|p| p.display().to_string()).collect();
    assert_eq!(found, want);
}

/// Qwen Code's records carry Claude Code's link fields: a message of `parts` (or a record type
/// of its own) makes one Qwen Code's, a message of `content` keeps one Claude Code's.
#[test]
fn detection_tells_qwen_code_from_claude_code_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}"#,
            "qwen-code",
        ),
        (
            r#"{"uuid":"u2","parentUuid":"u1","sessionId":"s","type":"tool_result","message":{"role":"user","parts":[]}}"#,
            "qwen-code",
        ),
        (
            r#"{"uuid":"u3","parentUuid":"u2","sessionId":"s","type":"system","subtype":"ui_telemetry","systemPayload":{}}"#,
            "qwen-code",
        ),
        (
            r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#,
            "claude-code",
        ),
        (
            r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","type":"system","subtype":"compact_boundary","content":"x"}"#,
            "claude-code",
        ),
    ];
    for (i, (line, format)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("{i}.jsonl"));
        std::fs::write(&path, format!("{line}\n")).unwrap();
        let r = records(&stdout_of(&["scan", "--json", path.to_str().unwrap()]));
        assert_eq!(r[0]["format"], *format, "{line}");
    }
    // Every Claude Code fixture stays Claude Code's.
    let out = stdout_of(&["scan", "--json", fixture("claude").to_str().unwrap()]);
    assert!(records(&out).iter().all(|r| r["format"] != "qwen-code"));
}

/// The uuids of the records `rebuild-chain` prints.
fn chain(args: &[&str]) -> Vec<String> {
    let mut all = vec!["-q", "rebuild-chain"];
    all.extend_from_slice(args);
    records(&stdout_of(&all))
        .iter()
        .map(|r| r["uuid"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_resume_walks_from_the_last_record_to_the_root_or_a_missing_parent() {
    // The branch written last is loaded, the other branch of the same fork is not.
    let branch = lines_of(&qwen("branch"));
    let walked = chain(&[&qwen("branch")]);
    assert_eq!(walked.last().unwrap(), branch.last().unwrap()["uuid"].as_str().unwrap());
    let second_prompt = branch.iter().filter(|r| r["type"] == "user").nth(1).unwrap();
    assert!(!walked.iter().any(|u| u == second_prompt["uuid"].as_str().unwrap()));
    assert_eq!(walked.first().unwrap(), branch[0]["uuid"].as_str().unwrap());
    // A missing parent ends the walk: what was written before it is not loaded.
    let broken = lines_of(&qwen("broken-parent"));
    let cut = broken
        .iter()
        .find(|r| r["parentUuid"] == "00000000-0000-4000-8000-00000000dead")
        .unwrap();
    let walked = chain(&[&qwen("broken-parent")]);
    assert_eq!(walked.first().unwrap(), cut["uuid"].as_str().unwrap());
    let out = cctool()
        .args(["rebuild-chain", "--json", &qwen("broken-parent")])
        .output()
        .unwrap();
    let end = records(&String::from_utf8(out.stdout).unwrap());
    let summary = end.iter().find(|r| r["kind"] == "chain").unwrap();
    assert_eq!(summary["end"], "dangling:00000000-0000-4000-8000-00000000dead");
}

#[test]
fn a_resume_starts_at_the_last_compaction() {
    let file = qwen("ran-compress");
    let all = lines_of(&file);
    let at = all.iter().position(|r| r["subtype"] == "chat_compression").unwrap();
    let walked = chain(&[&file]);
    assert_eq!(walked[0], all[at]["uuid"].as_str().unwrap());
    assert_eq!(walked.len(), all.len() - at);
    // --full prints the whole walk.
    assert_eq!(chain(&["--full", &file]).len(), all.len());
    let (msgs, err) = api_view(Path::new(&file), "say ok");
    let summary = all[at]["systemPayload"]["compressedHistory"][0]["parts"][0]["text"].clone();
    assert_eq!(msgs[0]["content"][0]["text"], summary);
    assert!(err.contains("QW3 x1"), "{err}");
}

#[test]
fn summaries_are_extracted_exactly_as_stored() {
    let file = qwen("ran-compress");
    let stored = lines_of(&file)
        .into_iter()
        .find(|r| r["subtype"] == "chat_compression")
        .unwrap();
    let got = records(&stdout_of(&["extract-summary", "--json", &file]));
    let summaries: Vec<&Value> = got.iter().filter(|r| r["kind"] == "summary").collect();
    assert_eq!(summaries.len(), 1, "{got:?}");
    let s = summaries[0];
    assert_eq!(
        s["summary"],
        stored["systemPayload"]["compressedHistory"][0]["parts"][0]["text"]
    );
    assert!(s["summary"].as_str().unwrap().starts_with("<state_snapshot>"));
    assert_eq!(s["current"], true);
    assert_eq!(s["pre_tokens"], stored["systemPayload"]["info"]["originalTokenCount"]);
    assert_eq!(s["trigger"], "manual");
    let none = records(&stdout_of(&["extract-summary", "--json", &qwen("ran-tools")]));
    assert!(none.iter().all(|r| r["kind"] != "summary"), "{none:?}");
}

/// doctor's findings of `name`: (line, code, severity).
fn findings(name: &str) -> Vec<(u64, String, String)> {
    let out = cctool().args(["doctor", "--json", &qwen(name)]).output().unwrap();
    records(&String::from_utf8(out.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "finding")
        .map(|r| {
            (
                r["line"].as_u64().unwrap_or(0),
                r["code"].as_str().unwrap().to_string(),
                r["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn doctor_names_what_breaks_a_resume_with_its_line() {
    let f = |l: u64, c: &str, s: &str| (l, c.to_string(), s.to_string());
    assert_eq!(
        findings("damaged"),
        [
            f(2, "two-records-on-one-line", "error"),
            f(16, "truncated-last-line", "warning")
        ]
    );
    assert_eq!(findings("broken-parent"), [f(9, "dangling-parent", "error")]);
    assert_eq!(
        findings("dangling-call"),
        [f(12, "tool-call-without-result", "warning")]
    );
    // The prompt that set off the client's own compaction is not in its history.
    assert_eq!(
        findings("ran-autocompress"),
        [f(5, "prompt-lost-to-compaction", "warning")]
    );
    for clean in ["ran-plain", "ran-tools", "ran-compress", "branch"] {
        assert_eq!(findings(clean), [], "{clean}");
    }
    // Records of two sessions in one file: the client refuses to load it.
    let dir = tempfile::tempdir().unwrap();
    let mixed = dir.path().join("mixed.jsonl");
    let mut text = std::fs::read_to_string(qwen("ran-plain")).unwrap();
    text.push_str(r#"{"uuid":"x1","parentUuid":null,"sessionId":"other","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}"#);
    text.push('\n');
    std::fs::write(&mixed, text).unwrap();
    let out = cctool()
        .args(["doctor", "--json", mixed.to_str().unwrap()])
        .output()
        .unwrap();
    let found = records(&String::from_utf8(out.stdout).unwrap());
    assert!(
        found
            .iter()
            .any(|r| r["code"] == "mixed-sessions" && r["severity"] == "error"),
        "{found:?}"
    );
}

#[test]
fn the_damaged_line_s_records_are_read_and_the_cut_line_is_not() {
    let out = cctool().args(["scan", "--json", &qwen("damaged")]).output().unwrap();
    let r = &records(&String::from_utf8(out.stdout).unwrap())[0];
    assert_eq!(r["bad_lines"], 2);
    // Both records of line 2 are on the chain: nothing before them is lost.
    let walked = chain(&[&qwen("damaged")]);
    let first = lines_of(&qwen("ran-tools"))[0]["uuid"].clone();
    assert_eq!(walked[0], first.as_str().unwrap());
}

#[test]
fn scan_reads_title_project_model_and_compactions() {
    let r = &records(&stdout_of(&["scan", "--json", &qwen("ran-compress")]))[0];
    assert_eq!(r["format"], "qwen-code");
    assert_eq!(r["title"], "look around the project");
    assert_eq!(r["project"], "proj");
    assert_eq!(r["resume_model"], "mock-model");
    assert_eq!(r["compactions"], 1);
    assert_eq!(r["agent_versions"], serde_json::json!(["0.24.4"]));
}

#[test]
fn rows_export_and_search_read_the_session_model() {
    let rows = records(&stdout_of(&[
        "scan",
        "--rows",
        "tool-calls",
        "--json",
        &qwen("ran-tools"),
    ]));
    let calls: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(calls, ["run_shell_command", "read_file"], "{rows:?}");
    let md = stdout_of(&["export", "--format", "markdown", &qwen("ran-tools")]);
    assert!(md.contains("what does the readme say") && md.contains("It describes a small project."));
    let hits = stdout_of(&["search", "small project", &qwen("ran-tools")]);
    assert!(hits.contains("small project"), "{hits}");
}

#[test]
fn scan_without_a_path_finds_qwen_s_store_and_its_variables() {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join("q/projects/-w/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::copy(
        qwen("ran-plain"),
        chats.join("5f0e0000-0000-4000-8000-000000000001.jsonl"),
    )
    .unwrap();
    std::fs::write(chats.parent().unwrap().join("meta.json"), "{\"version\":1}").unwrap();
    let out = cctool()
        .env("HOME", home.path())
        .env("QWEN_HOME", home.path().join("q"))
        .args(["scan", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let all = records(&String::from_utf8(out.stdout).unwrap());
    let found: Vec<&Value> = all.iter().filter(|r| r["kind"] == "session").collect();
    assert_eq!(found.len(), 1, "{all:?} {err}");
    assert_eq!(found[0]["format"], "qwen-code");
    // The project folder's own file is passed over, not skipped as no session.
    let total = all.iter().find(|r| r["kind"] == "total").unwrap();
    assert_eq!(total["skipped"], 0, "{err}");
    let out = cctool()
        .env("HOME", home.path())
        .env("QWEN_HOME", home.path().join("missing"))
        .args(["scan", "--json"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no Qwen Code store at"));
}

#[test]
fn tip_and_compact_are_refused_with_why() {
    let out = cctool()
        .args(["rebuild-chain", "--tip", "ab", &qwen("ran-tools")])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Qwen Code resumes at the file's last record"));
}

/// What the installed client sent for `file`, normalised as the recordings are; `null` when
/// it refused to load the file.
fn client_sent(script: &Path, file: &Path) -> Value {
    let out = Command::new("bash")
        .arg(script)
        .arg(file)
        .arg("say ok")
        .env("VIEW_NORMALISE", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(1) && err.contains("TranscriptRecordPreparationError") {
        return Value::Null;
    }
    assert!(out.status.success(), "{}: {err}", file.display());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs the installed client on every fixture: `--api-view` is what it sends.
#[test]
fn api_view_equals_what_the_installed_client_sends() {
    let Some(script) = realclient(Client::Qwen) else {
        return;
    };
    let files = fixtures();
    // The client spends most of a run starting: a few at once.
    std::thread::scope(|s| {
        for chunk in files.chunks(files.len().div_ceil(3).max(1)) {
            let script = &script;
            s.spawn(move || {
                for file in chunk {
                    let sent = client_sent(script, file);
                    if sent.is_null() {
                        assert_refused(file);
                        continue;
                    }
                    let (got, _) = api_view(file, "say ok");
                    assert_eq!(Value::Array(got), sent, "{}", file.display());
                }
            });
        }
    });
}

/// The texts and calls `--api-view` sends for `file`, in order: each text, `call NAME`.
fn sent_texts(file: &str) -> Vec<String> {
    let (msgs, _) = api_view(Path::new(file), "say ok");
    let mut out = Vec::new();
    for m in msgs {
        match &m["content"] {
            Value::String(t) => out.push(t.clone()),
            Value::Array(parts) => out.extend(parts.iter().filter_map(|p| p["text"].as_str().map(str::to_string))),
            _ => {}
        }
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            out.push(format!("call {}", c["function"]["name"].as_str().unwrap()));
        }
    }
    out
}

#[test]
fn a_conversion_to_qwen_is_a_qwen_session_that_resumes_the_source_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.jsonl");
    let out_s = out.to_str().unwrap();
    let src = fixture("convert/compacted.claude.jsonl");
    stdout_of(&["-q", "convert", "--to", "qwen-code", "-o", out_s, src.to_str().unwrap()]);
    let scan = records(&stdout_of(&["scan", "--json", out_s]));
    assert_eq!(scan[0]["format"], "qwen-code", "{scan:?}");
    assert_eq!(scan[0]["compactions"], 1);
    // The compaction opens what a resume sends, with the client's acknowledgement after it.
    let got = sent_texts(out_s);
    let summary = records(&stdout_of(&["extract-summary", "--json", src.to_str().unwrap()]))
        .into_iter()
        .find(|r| r["kind"] == "summary" && r["current"] == true)
        .unwrap();
    assert_eq!(got[0], summary["summary"].as_str().unwrap());
    assert_eq!(got[1], "Got it. Thanks for the additional context!");
    let doctor = cctool().args(["doctor", "--json", out_s]).output().unwrap();
    let findings: Vec<Value> = records(&String::from_utf8(doctor.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "finding")
        .collect();
    assert!(findings.is_empty(), "{findings:#?}");
    // A Qwen Code session converted to Codex and back sends the same texts and calls.
    let codex = dir.path().join("c.jsonl");
    let back = dir.path().join("b.jsonl");
    let tools = qwen("ran-tools");
    stdout_of(&["-q", "convert", "--to", "codex", "-o", codex.to_str().unwrap(), &tools]);
    stdout_of(&[
        "-q",
        "convert",
        "--to",
        "qwen-code",
        "-o",
        back.to_str().unwrap(),
        codex.to_str().unwrap(),
    ]);
    assert_eq!(sent_texts(back.to_str().unwrap()), sent_texts(&tools));
}

#[test]
fn a_qwen_session_converts_to_claude_code_with_its_calls_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cc.jsonl");
    stdout_of(&[
        "-q",
        "convert",
        "--to",
        "claude-code",
        "-o",
        out.to_str().unwrap(),
        &qwen("ran-compress"),
    ]);
    let rows = records(&stdout_of(&[
        "scan",
        "--rows",
        "tool-calls",
        "--json",
        out.to_str().unwrap(),
    ]));
    let calls: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    // What a resume loads: the summary, then the turn after the compaction and its shell call.
    assert_eq!(calls, ["Bash"], "{rows:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("It holds README.md and main.rs.") && text.contains("cat main.rs"));
    // A Qwen Code session is not converted to Qwen Code again.
    let again = cctool()
        .args(["convert", "--to", "qwen-code", &qwen("ran-tools")])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
}

#[test]
fn into_store_places_the_session_where_qwen_code_resumes_it() {
    let home = tempfile::tempdir().unwrap();
    let src = fixture("claude/parallel_tool_calls.jsonl");
    let out = cctool()
        .env("HOME", home.path())
        .args(["convert", "--to", "qwen-code", "--into-store", src.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let chats = home.path().join(".qwen/projects/-home-dev-app/chats");
    let files: Vec<_> = std::fs::read_dir(&chats).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let first: Value =
        serde_json::from_str(std::fs::read_to_string(&files[0]).unwrap().lines().next().unwrap()).unwrap();
    let id = first["sessionId"].as_str().unwrap();
    assert_eq!(files[0].file_stem().unwrap(), id);
    assert_eq!(first["cwd"], "/home/dev/app");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("cd /home/dev/app && qwen --resume {id}")
    );
}

/// What the installed client sends resuming a conversion to Qwen Code is what `--api-view`
/// says it sends: the converted file is one the client loads as cctool reads it.
#[test]
fn the_installed_client_resumes_conversions_as_api_view_says() {
    let Some(script) = realclient(Client::Qwen) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for src in ["convert/compacted.claude.jsonl", "convert/tools.codex.jsonl"] {
        let out = dir.path().join(format!("{}.qwen.jsonl", src.replace('/', "-")));
        stdout_of(&[
            "-q",
            "convert",
            "--to",
            "qwen-code",
            "-o",
            out.to_str().unwrap(),
            fixture(src).to_str().unwrap(),
        ]);
        let (got, _) = api_view(&out, "say ok");
        assert_eq!(Value::Array(got), client_sent(&script, &out), "{src}");
    }
}

/// Qwen Code's store and Claude Code's both keep sessions under a folder named `projects`:
/// each is backed up as its own agent's, the project's metadata is no session, and a Qwen Code
/// session is restored where it was.
#[test]
fn backup_keeps_qwen_s_store_as_qwen_s_and_restore_puts_it_back() {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join(".qwen/projects/-w/chats");
    let claude = home.path().join(".claude/projects/-w");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::create_dir_all(&claude).unwrap();
    let id = "12d6cc34-06c0-4422-927c-f72a70b178f1";
    let session = chats.join(format!("{id}.jsonl"));
    std::fs::copy(qwen("ran-plain"), &session).unwrap();
    std::fs::write(home.path().join(".qwen/projects/-w/meta.json"), "{\"version\":1}").unwrap();
    std::fs::copy(
        fixture("convert/compacted.claude.jsonl"),
        claude.join("5b1e0c2a-7d44-4c1e-9a53-0f3f7c1b2a01.jsonl"),
    )
    .unwrap();
    for f in [&session, &claude.join("5b1e0c2a-7d44-4c1e-9a53-0f3f7c1b2a01.jsonl")] {
        crate::util::age(f);
    }
    let run = |args: &[&str]| {
        let out = cctool().env("HOME", home.path()).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        records(&String::from_utf8(out.stdout).unwrap())
    };
    run(&["backup", "--json"]);
    let listed = run(&["restore", "--json"]);
    let agents: Vec<(String, String)> = listed
        .iter()
        .filter(|r| r["kind"] == "archived_session")
        .map(|r| {
            (
                r["agent"].as_str().unwrap().to_string(),
                r["session_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(agents.len(), 2, "{listed:?}");
    assert!(
        agents.contains(&("qwen-code".to_string(), id.to_string())),
        "{agents:?}"
    );
    assert!(agents.iter().any(|(a, _)| a == "claude-code"), "{agents:?}");
    let bytes = std::fs::read(&session).unwrap();
    std::fs::remove_file(&session).unwrap();
    run(&["restore", &id[..8]]);
    assert_eq!(std::fs::read(&session).unwrap(), bytes);
}

/// `--api-view` says which send-time rule changed what the file holds, and how often.
#[test]
fn api_view_names_the_send_time_rules_that_applied() {
    let rules = |name: &str| api_view(Path::new(&qwen(name)), "say ok").1;
    let dangling = rules("dangling-call");
    assert!(dangling.contains("QW7 x1"), "{dangling}");
    let image = rules("image");
    assert!(image.contains("QW8 x1") && !image.contains("QW7"), "{image}");
    let plain = rules("ran-tools");
    assert!(!plain.contains("QW7") && !plain.contains("QW8"), "{plain}");
}

/// An empty reply text beside a call (pi writes one) is no part of the written model turn: the
/// client's curated history would drop the turn, and its call, for it.
#[test]
fn convert_to_qwen_writes_no_empty_reply_text() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("pi.jsonl");
    std::fs::write(&src, PI_EMPTY_TEXT_BESIDE_A_CALL).unwrap();
    let out = crate::convert_clients::convert(&src, "qwen-code", dir.path(), &[]);
    let sent = crate::util::records(&crate::util::stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        out.to_str().unwrap(),
    ]));
    assert!(sent.iter().any(|m| m["tool_calls"][0]["id"] == "call_ls"), "{sent:?}");
    assert!(sent.iter().any(|m| m["tool_call_id"] == "call_ls"), "{sent:?}");
}

const PI_EMPTY_TEXT_BESIDE_A_CALL: &str = r#"{"type":"session","version":3,"id":"0e0e0e0e-0000-4000-8000-000000000009","timestamp":"2026-04-20T02:29:50.000Z","cwd":"/home/dev/app"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-04-20T02:29:54.812Z","message":{"role":"user","content":[{"type":"text","text":"list the folder"}],"timestamp":1776652194812}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-04-20T02:29:59.919Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_ls","name":"ls","arguments":{"path":"."}},{"type":"text","text":""}],"api":"openai-completions","provider":"mock","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1776652199919}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-04-20T02:29:59.945Z","message":{"role":"toolResult","toolCallId":"call_ls","toolName":"ls","content":[{"type":"text","text":"src"}],"isError":false,"timestamp":1776652199945}}
{"type":"message","id":"a4","parentId":"a3","timestamp":"2026-04-20T02:30:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"It holds src."}],"api":"openai-completions","provider":"mock","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1776652201000}}
"#;

/// `hooks install qwen-code` hooks PreCompact, PostCompact and SessionEnd into the user's
/// settings beside what they hold; `hooks run` backs the session up before a compression and at
/// the exit, and archives the summary a PostCompact hands over, which `extract-summary` reads;
/// `restore` brings the deleted session back byte for byte; `uninstall` takes the hooks out.
#[test]
fn the_hooks_back_the_session_up_and_archive_its_summary() {
    let session = std::fs::read(qwen("ran-compress")).unwrap();
    let first: Value = serde_json::from_slice(session.split(|b| *b == b'\n').next().unwrap()).unwrap();
    let id = first["sessionId"].as_str().unwrap().to_string();
    let file = format!("home/.qwen/projects/-work/chats/{id}.jsonl");
    let settings = "home/.qwen/settings.json";
    let installed = crate::case::Case::new("hooks install qwen-code --command cctool")
        .file(&file, session.clone())
        .file(
            settings,
            b"{\n  \"general\": {\"disableAutoUpdate\": true}\n}\n".to_vec(),
        )
        .run()
        .code(0);
    assert!(
        installed
            .stderr()
            .contains("added hooks for PreCompact, PostCompact and SessionEnd"),
        "{}",
        installed.shown()
    );
    let written: Value = serde_json::from_slice(&std::fs::read(installed.path(settings)).unwrap()).unwrap();
    assert_eq!(written["general"]["disableAutoUpdate"], true, "{written}");
    for ev in ["PreCompact", "PostCompact", "SessionEnd"] {
        assert_eq!(
            written["hooks"][ev][0]["hooks"][0]["command"], "cctool hooks run qwen-code",
            "{written}"
        );
    }
    let input = |event: &str, run: &crate::case::Run, more: Value| {
        let mut v = serde_json::json!({
            "session_id": id,
            "transcript_path": run.path(&file),
            "cwd": run.path("work"),
            "hook_event_name": event,
            "timestamp": "2026-12-05T08:07:00.000Z",
        });
        v.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
        v.to_string()
    };
    let hook = |run: crate::case::Run, stdin: String| {
        let ran = run
            .then(crate::case::Case::new("hooks run qwen-code").stdin(stdin))
            .code(0);
        assert_eq!((ran.stdout(), ran.stderr()), (String::new(), String::new()));
        ran
    };
    let pre = input("PreCompact", &installed, serde_json::json!({"trigger": "manual"}));
    let ran = hook(installed, pre);
    let summary = "<state_snapshot>\n<overall_goal>Look around.</overall_goal>\n</state_snapshot>";
    let post = input(
        "PostCompact",
        &ran,
        serde_json::json!({"trigger": "manual", "compact_summary": summary}),
    );
    let ran = hook(ran, post);
    let end = input("SessionEnd", &ran, serde_json::json!({"reason": "other"}));
    let ended = hook(ran, end);
    let archive = "home/.local/share/cctool/backup";
    let log = std::fs::read_to_string(ended.path(&format!("{archive}/hooks.log"))).unwrap();
    assert_eq!(log.matches("qwen-code backed up").count(), 2, "{log}");
    let archived = ended.path(&format!("{archive}/summaries/qwen-code/{id}.jsonl"));
    let rec: Value = serde_json::from_slice(&std::fs::read(&archived).unwrap()).unwrap();
    assert_eq!(
        (&rec["kind"], &rec["trigger"], &rec["summary"]),
        (&"archived_summary".into(), &"manual".into(), &summary.into()),
        "{rec}"
    );
    // The client writes the compaction's record, with its tokens, after the hook returns: the
    // session's last one is an earlier compaction's, never read as this one's.
    assert_eq!(rec["pre_tokens"], Value::Null, "{rec}");
    let summaries = ended
        .then(crate::case::Case::new(&format!(
            "extract-summary --json {}",
            archived.display()
        )))
        .code(0);
    let got = records(&summaries.stdout());
    assert_eq!(got[0]["summary"], summary, "{got:?}");
    std::fs::remove_file(summaries.path(&file)).unwrap();
    let restored = summaries.then(crate::case::Case::new(&format!("restore {id}"))).code(0);
    assert_eq!(
        std::fs::read(restored.path(&file)).unwrap(),
        session,
        "{}",
        restored.shown()
    );
    let removed = restored
        .then(crate::case::Case::new("hooks uninstall qwen-code"))
        .code(0);
    let left: Value = serde_json::from_slice(&std::fs::read(removed.path(settings)).unwrap()).unwrap();
    assert_eq!(left["general"]["disableAutoUpdate"], true, "{left}");
    assert!(
        left.get("hooks")
            .is_none_or(|h| h.as_object().is_some_and(|o| o.is_empty())),
        "{left}"
    );
}

/// The real client, when installed, runs cctool's hooks: a compression backs the session up and
/// archives its summary, the exit of an interactive session backs it up, and the archive's last
/// copy is the whole session.
#[test]
fn the_real_client_runs_the_hooks_and_the_archive_holds_its_session() {
    if realclient(Client::Qwen).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("archive");
    let run = Command::new(root().join("scripts/realclient/qwen/hooks-view.sh"))
        .arg(env!("CARGO_BIN_EXE_cctool"))
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let files = String::from_utf8(run.stdout).unwrap();
    let session = PathBuf::from(files.lines().next().expect("the client wrote a session"));
    let log = std::fs::read_to_string(archive.join("hooks.log")).unwrap();
    // PreCompact once; SessionEnd at the interactive session's exit (runs with `-p` fire none).
    assert_eq!(log.matches("qwen-code backed up").count(), 2, "{log}");
    let id = session.file_stem().unwrap().to_str().unwrap();
    let archived = archive.join(format!("summaries/qwen-code/{id}.jsonl"));
    let rec: Value = serde_json::from_slice(&std::fs::read(&archived).unwrap()).unwrap();
    // The summary as the model wrote it, which the session stores with the client's
    // instructions after it.
    let stored = cctool()
        .args(["extract-summary", "--json"])
        .arg(&session)
        .output()
        .unwrap();
    let stored = records(&String::from_utf8(stored.stdout).unwrap());
    let summary = rec["summary"].as_str().unwrap();
    assert!(summary.contains("<overall_goal>Look around the project."), "{rec}");
    assert!(
        stored[0]["summary"].as_str().is_some_and(|s| s.starts_with(summary)),
        "{stored:?}\n{rec}"
    );
    let (bytes, recs) = crate::util::archived_bytes(&dir.path().join("home"), &archive, &session);
    let size = std::fs::metadata(&session).unwrap().len();
    assert_eq!(bytes, Some(Value::from(size)), "{recs:?}\n{log}");
}
