//! Gemini CLI's chats (`crates/gemini`, docs/gemini.md): told by their content, replayed by the
//! client's rules, and what a resume sends equal to what the real client (0.61.0) sent after
//! resuming each fixture (`fixtures/gemini/*.sent.json`, recorded by
//! `scripts/realclient/gemini/record.sh`).

use serde_json::Value;

use crate::util::{cctool, fixture, records, root, stdout_of};

const FIXTURES: &[&str] = &["turns", "slash", "compacted", "twin", "edges"];

fn gemini(name: &str) -> String {
    fixture(&format!("gemini/{name}")).display().to_string()
}

/// A message's content as text: a string, or its parts' texts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

fn api_view(file: &str) -> Vec<Value> {
    records(&stdout_of(&["-q", "rebuild-chain", "--api-view", &gemini(file)]))
}

#[test]
fn api_view_equals_what_the_real_client_sent_on_every_fixture() {
    for name in FIXTURES {
        let sent: Value =
            serde_json::from_slice(&std::fs::read(fixture(&format!("gemini/{name}.sent.json"))).unwrap()).unwrap();
        assert_eq!(Value::Array(api_view(&format!("{name}.jsonl"))), sent, "{name}");
    }
}

#[test]
fn each_function_response_is_sent_once_more_for_every_resume_that_rewrote_it() {
    let responses = |name: &str| {
        api_view(name)
            .iter()
            .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
            .filter(|p| p.get("functionResponse").is_some())
            .count()
    };
    // turns: the resume's snapshot kept the call in the content; twin: in toolCalls as well.
    assert_eq!(responses("turns.jsonl"), 2);
    assert_eq!(responses("twin.jsonl"), 3);
}

#[test]
fn slash_commands_are_not_sent_but_their_replies_are_merged() {
    let contents = api_view("slash.jsonl");
    let texts: Vec<String> = contents
        .iter()
        .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p["text"].as_str().map(str::to_string))
        .collect();
    assert!(!texts.iter().any(|t| t.starts_with('/')), "{texts:?}");
    let model_oks = contents
        .iter()
        .find(|c| c["role"] == "model")
        .map(|c| c["parts"].as_array().unwrap().len());
    assert_eq!(model_oks, Some(3));
}

#[test]
fn the_replay_loads_the_last_snapshot_and_what_follows_it() {
    let ids: Vec<String> = records(&stdout_of(&["-q", "rebuild-chain", &gemini("compacted.jsonl")]))
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let all = records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--full",
        &gemini("compacted.jsonl"),
    ]));
    assert!(all.len() > ids.len());
    // The compression's snapshot starts the loaded history: the session context, the summary.
    let first = records(&stdout_of(&["-q", "rebuild-chain", &gemini("compacted.jsonl")]));
    assert!(
        first[1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("<state_snapshot>")
    );
    // A message written again under its id stands where it first stood, once.
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len());
}

#[test]
fn a_rewind_drops_the_message_and_all_after_it() {
    let text = std::fs::read_to_string(fixture("gemini/turns.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session-2026-12-01T10-00-16bbb8a9.jsonl");
    let rewound = format!("{text}{{\"$rewindTo\":\"3985e1dd-5b60-483f-8935-2931440bc5ad\"}}\nnot json\n");
    std::fs::write(&path, rewound).unwrap();
    let out = cctool()
        .args(["rebuild-chain", path.to_str().unwrap()])
        .output()
        .unwrap();
    let loaded = records(&String::from_utf8(out.stdout).unwrap());
    let texts: Vec<String> = loaded.iter().map(|r| r["content"].to_string()).collect();
    assert!(texts.iter().any(|t| t.contains("first prompt")), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.contains("RUNTOOL") || t.contains("thanks")),
        "{texts:?}"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(":29:"), "the bad line is named with its place: {err}");
}

#[test]
fn a_message_written_again_under_its_id_is_replaced_where_it_stood() {
    let loaded = records(&stdout_of(&["-q", "rebuild-chain", &gemini("edges.jsonl")]));
    let texts: Vec<String> = loaded.iter().map(|r| text_of(&r["content"])).collect();
    // The session context, then the edited first prompt in the first prompt's place.
    assert_eq!(texts[1], "first prompt, edited in place", "{texts:?}");
    assert!(!texts.iter().any(|t| t == "thanks"), "{texts:?}");
    let scan = records(&stdout_of(&["scan", "--json", &gemini("edges.jsonl")]));
    assert_eq!(scan[0]["title"], "an edge case");
    assert_eq!(scan[0]["bad_lines"], 1);
}

#[test]
fn extract_summary_gives_the_compression_summary_exactly() {
    let s = records(&stdout_of(&["extract-summary", "--json", &gemini("compacted.jsonl")]));
    let summaries: Vec<&Value> = s.iter().filter(|r| r["kind"] == "summary").collect();
    assert_eq!(summaries.len(), 1, "{s:?}");
    assert_eq!(
        summaries[0]["summary"],
        "<state_snapshot>The user started a long task and ran echo hi, which printed hi.</state_snapshot>"
    );
    assert_eq!(summaries[0]["current"], true);
    let none = records(&stdout_of(&["extract-summary", "--json", &gemini("slash.jsonl")]));
    assert!(
        none.iter().all(|r| r["kind"] != "summary"),
        "/compress in -p mode compresses nothing"
    );
}

/// The chats folder as the real client left it before `--list-sessions` (twin.listing.txt).
fn twin_store(command: &str) -> crate::case::Case {
    let chats = "home/.gemini/tmp/work/chats";
    crate::case::Case::new(command)
        .file(
            &format!("{chats}/session-2026-12-01T10-30-f0d1048d.jsonl"),
            std::fs::read(fixture("gemini/twin.jsonl")).unwrap(),
        )
        .file(
            &format!("{chats}/session-2026-12-01T10-31-f0d1048d.jsonl"),
            std::fs::read(fixture("gemini/twin-stub.jsonl")).unwrap(),
        )
}

#[test]
fn the_listing_records_that_the_client_deleted_the_full_transcript() {
    let listing = std::fs::read_to_string(fixture("gemini/twin.listing.txt")).unwrap();
    let (before, after) = listing.split_once("# after").unwrap();
    assert!(before.contains("T10-30-f0d1048d") && before.contains("T10-31-f0d1048d"));
    assert!(!after.contains("T10-30-f0d1048d") && after.contains("T10-31-f0d1048d"));
}

#[test]
fn doctor_names_the_stub_twin_on_both_files() {
    let run = twin_store("doctor --json home/.gemini/tmp/work/chats").run();
    let found = records(&run.stdout());
    let twin: Vec<&Value> = found
        .iter()
        .filter(|r| r["kind"] == "finding" && r["code"] == "stub-twin")
        .collect();
    assert_eq!(twin.len(), 2, "{}", run.shown());
    let on = |part: &str| {
        twin.iter()
            .find(|r| r["file"].as_str().unwrap().contains(part))
            .unwrap()
    };
    assert_eq!(on("T10-30")["severity"], "error");
    assert!(on("T10-30")["message"].as_str().unwrap().contains("cctool backup"));
    assert_eq!(on("T10-31")["severity"], "warning");
    // Without its twin, the full transcript has nothing to fear.
    let alone = crate::case::Case::new("doctor --json chats")
        .file(
            "chats/session-2026-12-01T10-30-f0d1048d.jsonl",
            std::fs::read(fixture("gemini/twin.jsonl")).unwrap(),
        )
        .run();
    assert!(!alone.stdout().contains("stub-twin"), "{}", alone.shown());
}

#[test]
fn the_hooks_back_the_chat_up_turn_by_turn_and_restore_brings_a_deleted_one_back() {
    let full = "home/.gemini/tmp/work/chats/session-2026-12-01T10-30-f0d1048d.jsonl";
    let installed = twin_store("hooks install gemini-cli --command cctool").run().code(0);
    assert!(
        installed
            .stderr()
            .contains("added hooks for PreCompress and SessionEnd"),
        "{}",
        installed.shown()
    );
    let settings: Value =
        serde_json::from_slice(&std::fs::read(installed.path("home/.gemini/settings.json")).unwrap()).unwrap();
    for ev in ["PreCompress", "SessionEnd"] {
        assert_eq!(
            settings["hooks"][ev][0]["hooks"][0]["command"], "cctool hooks run gemini-cli",
            "{settings}"
        );
    }
    let input = |event: &str, run: &crate::case::Run| {
        serde_json::json!({
            "session_id": "f0d1048d-bfcd-4504-bd59-05e03d92a90f",
            "transcript_path": run.path(full),
            "cwd": run.path("work"),
            "hook_event_name": event,
            "timestamp": "2026-12-01T10:30:05.000Z",
            "trigger": "auto",
        })
        .to_string()
    };
    let pre = input("PreCompress", &installed);
    let ran = installed
        .then(crate::case::Case::new("hooks run gemini-cli").stdin(pre))
        .code(0);
    assert_eq!((ran.stdout(), ran.stderr()), (String::new(), String::new()));
    // The turn the client writes after the hook ran, then its exit.
    let mut bytes = std::fs::read(ran.path(full)).unwrap();
    bytes.extend_from_slice(b"{\"$set\":{\"lastUpdated\":\"2026-12-01T10:30:09.000Z\"}}\n");
    std::fs::write(ran.path(full), &bytes).unwrap();
    let end = input("SessionEnd", &ran);
    let ended = ran
        .then(crate::case::Case::new("hooks run gemini-cli").stdin(end))
        .code(0);
    let log = std::fs::read_to_string(ended.path("home/.local/share/cctool/backup/hooks.log")).unwrap();
    assert_eq!(log.matches("gemini-cli backed up").count(), 2, "{log}");
    // What the client's next listing does to the full transcript of a stub twin.
    std::fs::remove_file(ended.path(full)).unwrap();
    let restored = ended
        .then(crate::case::Case::new("restore f0d1048d-bfcd-4504-bd59-05e03d92a90f"))
        .code(0);
    assert_eq!(
        std::fs::read(restored.path(full)).unwrap(),
        bytes,
        "{}",
        restored.shown()
    );
    // Uninstalled, the settings install created hold nothing again.
    let removed = restored
        .then(crate::case::Case::new("hooks uninstall gemini-cli"))
        .code(0);
    let left = std::fs::read_to_string(removed.path("home/.gemini/settings.json")).unwrap();
    assert_eq!(left, "{}\n", "{}", removed.shown());
}

#[test]
fn backup_then_restore_brings_the_deleted_transcript_back_byte_for_byte() {
    let run = twin_store("backup --json").run().code(0);
    let full = run.path("home/.gemini/tmp/work/chats/session-2026-12-01T10-30-f0d1048d.jsonl");
    let bytes = std::fs::read(&full).unwrap();
    // What the client's next listing does.
    std::fs::remove_file(&full).unwrap();
    let listed = run.then(crate::case::Case::new("restore --json")).code(0);
    assert!(
        records(&listed.stdout()).iter().any(|r| r["agent"] == "gemini-cli"),
        "{}",
        listed.shown()
    );
    let restored = listed
        .then(crate::case::Case::new("restore f0d1048d-bfcd-4504-bd59-05e03d92a90f"))
        .code(0);
    assert_eq!(std::fs::read(&full).unwrap(), bytes, "{}", restored.shown());
}

#[test]
fn only_gemini_files_are_read_as_gemini_and_every_gemini_fixture_is() {
    let out = cctool()
        .args(["scan", "--json", root().join("fixtures").to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut found: Vec<String> = records(&stdout)
        .into_iter()
        .filter(|r| r["format"] == "gemini-cli")
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    found.sort();
    let mut want: Vec<String> = ["compacted", "edges", "slash", "turns", "twin", "twin-stub"]
        .iter()
        .map(|n| gemini(&format!("{n}.jsonl")))
        .collect();
    // A recorded conversion into Gemini CLI (`tests/cli/convert_clients.rs`).
    want.push(
        fixture("convert/recorded/tools.codex.gemini-cli.jsonl")
            .display()
            .to_string(),
    );
    want.sort();
    assert_eq!(found, want);
}

#[test]
fn the_older_single_document_chat_is_read() {
    let doc = serde_json::json!({
        "sessionId": "0e0e0e0e-0000-4000-8000-000000000001",
        "projectHash": "abc",
        "startTime": "2025-08-01T10:00:00.000Z",
        "lastUpdated": "2025-08-01T10:01:00.000Z",
        "messages": [
            {"id": "m1", "timestamp": "2025-08-01T10:00:00.000Z", "type": "user", "content": "hello"},
            {"id": "m2", "timestamp": "2025-08-01T10:00:01.000Z", "type": "gemini", "content": "hi there"}
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session-2025-08-01T10-00-0e0e0e0e.json");
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let contents = records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        path.to_str().unwrap(),
    ]));
    assert_eq!(contents.len(), 3);
    assert_eq!(contents[1]["parts"][0]["text"], "hi there");
    let scan = records(&stdout_of(&["scan", "--json", path.to_str().unwrap()]));
    assert_eq!(scan[0]["format"], "gemini-cli");
}

/// The real client, when installed: resuming each fixture sends what `--api-view` says.
#[test]
fn the_real_client_sends_what_api_view_says() {
    if !client_installed() {
        return;
    }
    let script = root().join("scripts/realclient/gemini/resume-view.sh");
    let out = std::process::Command::new(&script)
        .arg(gemini("turns.jsonl"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(Value::Array(api_view("turns.jsonl")), sent);
}

/// The texts and calls of a request's contents, in order, the session context left out.
fn said(contents: &[Value]) -> Vec<String> {
    contents
        .iter()
        .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| {
            if let Some(t) = p["text"].as_str() {
                (!t.starts_with("<session_context>")).then(|| format!("text {t}"))
            } else if let Some(f) = p.get("functionCall") {
                Some(format!("call {} {}", f["name"], f["args"]))
            } else {
                p.get("functionResponse").map(|f| format!("result {}", f["id"]))
            }
        })
        .collect()
}

#[test]
fn convert_to_gemini_carries_every_text_and_call() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.jsonl");
    let status = cctool()
        .args(["convert", "--to", "gemini-cli", "-o", out.to_str().unwrap()])
        .arg(fixture("claude/parallel_tool_calls.jsonl"))
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let contents = records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        out.to_str().unwrap(),
    ]));
    let said = said(&contents);
    assert_eq!(
        said,
        [
            "text read both config files",
            "text Reading both.",
            "call \"read_file\" {\"file_path\":\"/home/dev/app/a.toml\"}",
            "call \"read_file\" {\"file_path\":\"/home/dev/app/b.toml\"}",
            "result \"toolu_a\"",
            "result \"toolu_b\"",
            "text a is 1 and b is 2.",
            "text say ok",
        ],
        "{said:?}"
    );
}

#[test]
fn convert_from_gemini_carries_each_result_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.jsonl");
    let run = cctool()
        .args(["convert", "--json", "--to", "claude-code", "-o", out.to_str().unwrap()])
        .arg(fixture("gemini/twin.jsonl"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report = records(&String::from_utf8(run.stdout).unwrap());
    let summary = report
        .iter()
        .find(|r| r["kind"] == "conversion")
        .expect("a conversion record");
    assert_eq!(summary["carried"]["tool_calls"], 1, "{summary}");
    assert_eq!(summary["carried"]["tool_results"], 1, "{summary}");
    assert_eq!(summary["dropped"]["repeated function response"], 2, "{summary}");
    let compacted = cctool()
        .args([
            "convert",
            "--json",
            "--to",
            "pi",
            "-o",
            dir.path().join("p.jsonl").to_str().unwrap(),
        ])
        .arg(fixture("gemini/compacted.jsonl"))
        .output()
        .unwrap();
    let report = records(&String::from_utf8(compacted.stdout).unwrap());
    let summary = report
        .iter()
        .find(|r| r["kind"] == "conversion")
        .expect("a conversion record");
    assert_eq!(summary["carried"]["compactions"], 1, "{summary}");
}

/// A call the source leaves without a result, the last one too, is closed with the client's
/// cancelled response right after its turn: the client adds none, and the API refuses a call
/// turn that is not answered.
#[test]
fn convert_to_gemini_closes_every_unanswered_call() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.jsonl");
    let run = cctool()
        .args(["convert", "--json", "--to", "gemini-cli", "-o", out.to_str().unwrap()])
        .arg(fixture("copilot/dangling.jsonl"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report = records(&String::from_utf8(run.stdout).unwrap());
    let summary = report.iter().find(|r| r["kind"] == "conversion").unwrap();
    assert_eq!(summary["closed"], 3, "{summary}");
    let contents = records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        out.to_str().unwrap(),
    ]));
    let parts = |c: &Value, key: &str| -> Vec<String> {
        c["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.get(key).map(|f| f["id"].as_str().unwrap().to_string()))
            .collect()
    };
    let mut turns = 0;
    for (k, c) in contents.iter().enumerate() {
        let mut calls = parts(c, "functionCall");
        if calls.is_empty() {
            continue;
        }
        turns += 1;
        let mut responses = parts(&contents[k + 1], "functionResponse");
        calls.sort();
        responses.sort();
        assert_eq!(calls, responses, "turn {k}: {contents:?}");
    }
    assert_eq!(turns, 2);
    let closed = std::fs::read_to_string(&out).unwrap();
    assert_eq!(closed.matches(r#""status":"cancelled""#).count(), 3, "{closed}");
    assert_eq!(closed.matches("[Operation Cancelled] Reason:").count(), 3, "{closed}");
}

/// The model's acknowledgement of a compression's summary is the client's own: a conversion
/// carries the summary as a compaction and not the acknowledgement as a reply.
#[test]
fn convert_from_gemini_leaves_the_summary_s_acknowledgement() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::convert_clients::convert(&fixture("gemini/compacted.jsonl"), "claude-code", dir.path(), &[]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("<state_snapshot>"), "{text}");
    assert!(!text.contains(crate::convert_clients::ACKNOWLEDGEMENT), "{text}");
}

/// The real client, when installed: a conversion into Gemini CLI resumes with every text and
/// call of the source, in order.
#[test]
fn the_real_client_resumes_a_conversion_with_every_text_and_call() {
    if !client_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.jsonl");
    let converted = cctool()
        .args(["convert", "--to", "gemini-cli", "-o", out.to_str().unwrap()])
        .arg(fixture("claude/parallel_tool_calls.jsonl"))
        .output()
        .unwrap();
    assert!(converted.status.success());
    let sent = std::process::Command::new(root().join("scripts/realclient/gemini/resume-view.sh"))
        .arg(&out)
        .output()
        .unwrap();
    assert!(sent.status.success(), "{}", String::from_utf8_lossy(&sent.stderr));
    let sent: Vec<Value> = serde_json::from_slice(&sent.stdout).unwrap();
    let view = records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        out.to_str().unwrap(),
    ]));
    assert_eq!(said(&sent), said(&view));
}

#[test]
fn into_store_places_a_conversion_in_the_project_s_chats_folder_or_refuses() {
    let projects = r#"{"projects":{"/home/dev/app":"app"}}"#;
    let run = crate::case::Case::new("convert --to gemini-cli --into-store claude/parallel_tool_calls.jsonl")
        .fixture("claude/parallel_tool_calls.jsonl")
        .file("home/.gemini/projects.json", projects)
        .run()
        .code(0);
    let chats = run.path("home/.gemini/tmp/app/chats");
    let placed: Vec<String> = std::fs::read_dir(&chats)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(placed.len(), 1, "{}", run.shown());
    assert!(
        placed[0].starts_with("session-2026-03-01T10-00-") && placed[0].ends_with(".jsonl"),
        "{placed:?}"
    );
    assert!(run.stdout().contains("gemini --resume"), "{}", run.shown());
    // Without the client's name for the folder there is no place to put it.
    let refused = crate::case::Case::new("convert --to gemini-cli --into-store claude/parallel_tool_calls.jsonl")
        .fixture("claude/parallel_tool_calls.jsonl")
        .run()
        .code(2);
    assert!(refused.stderr().contains("projects.json"), "{}", refused.shown());
}

/// The real client, when installed: resuming a chat in a later minute writes the stub, doctor
/// names it, and the next listing deletes the full transcript, as doctor said it would.
#[test]
fn the_real_client_deletes_the_transcript_doctor_warned_of() {
    if !client_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let name = "session-2026-12-01T10-00-16bbb8a9.jsonl";
    std::fs::copy(fixture("gemini/turns.jsonl"), dir.path().join(name)).unwrap();
    let out = dir.path().join("out");
    let run = std::process::Command::new(root().join("scripts/realclient/gemini/twin-view.sh"))
        .arg(dir.path().join(name))
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let left = String::from_utf8(run.stdout).unwrap();
    assert!(!left.contains(name), "the client kept the transcript: {left}");
    // An error found: doctor exits 1.
    let found = cctool()
        .args(["doctor", "--json"])
        .arg(out.join("before"))
        .output()
        .unwrap();
    assert_eq!(found.status.code(), Some(1));
    let doctor = records(&String::from_utf8(found.stdout).unwrap());
    let on_full = doctor
        .iter()
        .find(|r| r["code"] == "stub-twin" && r["file"].as_str().is_some_and(|f| f.ends_with(name)));
    assert_eq!(
        on_full.map(|r| r["severity"].clone()),
        Some(Value::from("error")),
        "{doctor:?}"
    );
}

#[test]
fn doctor_names_the_chats_gemini_s_thirty_day_sweep_deletes() {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join(".gemini/tmp/work/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let old = chats.join("session-2026-12-01T10-00-16bbb8a9.jsonl");
    std::fs::copy(fixture("gemini/turns.jsonl"), &old).unwrap();
    std::fs::copy(
        fixture("gemini/slash.jsonl"),
        chats.join("session-2026-12-01T10-10-0a0b0c0d.jsonl"),
    )
    .unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&old).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(40 * 86_400))
        .unwrap();
    let doctor = |home: &std::path::Path| {
        let out = cctool().env("HOME", home).args(["doctor", "--json"]).output().unwrap();
        records(&String::from_utf8(out.stdout).unwrap())
    };
    let found = doctor(home.path());
    let r = found
        .iter()
        .find(|r| r["kind"] == "retention")
        .expect("a retention record");
    assert_eq!(
        (
            r["cleanup_period_days"].clone(),
            r["sessions"].clone(),
            r["at_risk"].clone()
        ),
        (30.into(), 2.into(), 1.into()),
        "{r}"
    );
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("sessionRetention.maxAge is 30 days"),
        "{r}"
    );
    // Switched off in the user's settings: nothing is at risk.
    std::fs::write(
        home.path().join(".gemini/settings.json"),
        r#"{"general":{"sessionRetention":{"enabled":false}}}"#,
    )
    .unwrap();
    assert!(!doctor(home.path()).iter().any(|r| r["kind"] == "retention"));
}

/// Whether the real client (and libfaketime, which its scripts use) is installed; says that the
/// test skipped when not.
fn client_installed() -> bool {
    crate::util::realclient(crate::util::Client::Gemini).is_some()
}

/// The real client, when installed, runs cctool's hooks: a prompt backs the chat up before the
/// request (PreCompress) and at the exit (SessionEnd), and the archive holds the chat as the
/// client left it.
#[test]
fn the_real_client_runs_the_hooks_and_the_archive_holds_its_chat() {
    if !client_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("archive");
    let run = std::process::Command::new(root().join("scripts/realclient/gemini/hooks-view.sh"))
        .arg(env!("CARGO_BIN_EXE_cctool"))
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let chats = String::from_utf8(run.stdout).unwrap();
    let chat = std::path::PathBuf::from(chats.lines().next().expect("the client wrote a chat"));
    let log = std::fs::read_to_string(archive.join("hooks.log")).unwrap();
    assert!(log.matches("gemini-cli backed up").count() >= 2, "{log}");
    // The archive names the chat where the client wrote it; its last copy is the whole chat.
    let (bytes, recs) = crate::util::archived_bytes(&dir.path().join("home"), &archive, &chat);
    let size = std::fs::metadata(&chat).unwrap().len();
    assert_eq!(bytes, Some(Value::from(size)), "{recs:?}\n{log}");
}

#[test]
fn a_chat_s_project_is_the_folder_its_project_root_names() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".gemini/tmp/app");
    std::fs::create_dir_all(project.join("chats")).unwrap();
    std::fs::copy(
        fixture("gemini/turns.jsonl"),
        project.join("chats/session-2026-12-01T10-00-16bbb8a9.jsonl"),
    )
    .unwrap();
    let scanned = |home: &std::path::Path| {
        let out = cctool()
            .env("HOME", home)
            .env_remove("GEMINI_CLI_HOME")
            .args(["scan", "--json"])
            .output()
            .unwrap();
        let all = records(&String::from_utf8(out.stdout).unwrap());
        let r = all.into_iter().find(|r| r["kind"] == "session").expect("the chat");
        (r["cwd"].clone(), r["project"].clone())
    };
    // Without the client's record of the folder, nothing says where the chat ran.
    assert_eq!(scanned(home.path()), (Value::Null, "chats".into()));
    std::fs::write(project.join(".project_root"), "/home/me/app").unwrap();
    assert_eq!(scanned(home.path()), ("/home/me/app".into(), "app".into()));
}

#[test]
fn doctor_says_a_stub_twin_costs_the_whole_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::copy(
        fixture("gemini/twin.jsonl"),
        chats.join("session-2026-12-01T10-30-f0d1048d.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        fixture("gemini/twin-stub.jsonl"),
        chats.join("session-2026-12-01T10-31-f0d1048d.jsonl"),
    )
    .unwrap();
    let out = cctool()
        .env("COLUMNS", "200")
        .arg("doctor")
        .arg(&chats)
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    let full = table
        .lines()
        .find(|l| l.contains("10-30-f0d1048d"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        full.starts_with("error") && full.contains("the whole session"),
        "{table}"
    );
}
