//! `cctool convert`: what the report says, where the output goes, and incremental runs.

use std::path::Path;

use serde_json::{Value, json};

use crate::util::*;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = cctool().args(args).output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Ten more turns for a Claude Code transcript whose last row is `parent`.
fn claude_turns(parent: &str, from: usize) -> String {
    let mut out = String::new();
    let mut parent = parent.to_string();
    for i in from..from + 10 {
        let ids: Vec<String> = (0..4)
            .map(|k| format!("b0000000-0000-4000-8000-{:08}{k:04}", i))
            .collect();
        let rows = [
            json!({"type": "user", "message": {"role": "user", "content": format!("prompt {i}")}}),
            json!({"type": "assistant", "message": {"id": format!("msg_{i}"), "role": "assistant", "model": "claude-opus-4-6",
                "content": [{"type": "tool_use", "id": format!("toolu_{i}"), "name": "Bash", "input": {"command": format!("echo {i}")}}]}}),
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("toolu_{i}"), "content": format!("{i}")}]}}),
            json!({"type": "assistant", "message": {"id": format!("msg_{i}b"), "role": "assistant", "model": "claude-opus-4-6",
                "content": [{"type": "text", "text": format!("reply {i}")}]}}),
        ];
        for (k, mut r) in rows.into_iter().enumerate() {
            r["parentUuid"] = json!(parent);
            r["uuid"] = json!(ids[k]);
            r["isSidechain"] = json!(false);
            r["sessionId"] = json!("5b1e0c2a-7d44-4c1e-9a53-0f3f7c1b2a01");
            r["cwd"] = json!("/home/dev/app");
            r["timestamp"] = json!(format!("2026-11-20T11:{:02}:{:02}.000Z", i, k));
            out.push_str(&format!("{r}\n"));
            parent = ids[k].clone();
        }
    }
    out
}

/// Ten more turns for a Codex rollout.
fn codex_turns(from: usize) -> String {
    let mut out = String::new();
    for i in from..from + 10 {
        let ts = format!("2026-11-21T11:{i:02}:00.000Z");
        let items = [
            json!({"type": "event_msg", "payload": {"type": "task_started", "turn_id": format!("t{i}")}}),
            json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("prompt {i}")}]}}),
            json!({"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "arguments": format!("{{\"cmd\":\"echo {i}\"}}"), "call_id": format!("call_{i}")}}),
            json!({"type": "response_item", "payload": {"type": "function_call_output", "call_id": format!("call_{i}"), "output": format!("{i}")}}),
            json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": format!("reply {i}")}]}}),
            json!({"type": "event_msg", "payload": {"type": "task_complete", "turn_id": format!("t{i}")}}),
        ];
        for mut r in items {
            r["timestamp"] = json!(ts);
            out.push_str(&format!("{r}\n"));
        }
    }
    out
}

/// Lines that are not Codex's estimated token counts (the one kind of line a writer may
/// place differently once the source has grown).
fn without_token_counts(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.contains("\"type\":\"token_count\""))
        .collect()
}

fn incremental(source: &str, to: &str, more: impl Fn() -> String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("source.jsonl");
    std::fs::copy(fixture(source), &src).expect("copy");
    let out = dir.path().join("out.jsonl");
    let convert = |o: &Path| {
        let (code, stdout, stderr) = run(&["convert", "--json", "--to", to, "-o", s(o), s(&src)]);
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str::<Value>(&stdout).expect("json record")
    };
    assert_eq!(convert(&out)["written"], "new");
    let before = std::fs::read_to_string(&out).expect("out");

    std::fs::OpenOptions::new()
        .append(true)
        .open(&src)
        .and_then(|mut f| std::io::Write::write_all(&mut f, more().as_bytes()))
        .expect("grow");
    let r = convert(&out);
    assert_eq!(r["written"], "appended", "{r}");
    let after = std::fs::read_to_string(&out).expect("out");
    assert!(after.starts_with(&before), "the earlier conversion is kept as it was");
    let gained = &after[before.len()..];
    let prompts: Vec<String> = (0..10).map(|i| format!("prompt {i}")).collect();
    for (i, p) in prompts.iter().enumerate() {
        assert!(gained.contains(&format!("\"{p}\"")), "turn {i} not appended");
    }
    assert_eq!(r["lines_written"].as_u64(), Some(gained.lines().count() as u64));
    // Exactly what a fresh conversion of the grown source holds.
    let fresh = dir.path().join("fresh.jsonl");
    convert(&fresh);
    assert_eq!(
        without_token_counts(&after),
        without_token_counts(&std::fs::read_to_string(&fresh).expect("fresh"))
    );

    let r = convert(&out);
    assert_eq!(r["written"], "up-to-date");
    assert_eq!(r["lines_written"], 0);
    assert_eq!(
        std::fs::read_to_string(&out).expect("out"),
        after,
        "a run with nothing new writes nothing"
    );
}

#[test]
fn a_grown_claude_session_appends_only_its_new_turns() {
    incremental("convert/compacted.claude.jsonl", "codex", || {
        claude_turns("a0000000-0000-4000-8000-000000000020", 0)
    });
}

#[test]
fn a_grown_codex_session_appends_only_its_new_turns() {
    incremental("convert/tools.codex.jsonl", "claude-code", || codex_turns(0));
}

#[test]
fn an_output_that_is_no_earlier_conversion_is_kept_unless_forced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    std::fs::write(&out, "{\"something\":\"else\"}\n").expect("write");
    let src = fixture("convert/compacted.claude.jsonl");
    let (code, _, stderr) = run(&["convert", "--to", "codex", "-o", s(&out), s(&src)]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("exists and is not an earlier conversion of this session (line 1 differs; was it resumed since?); choose another -o, or pass --force to replace it"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&out).expect("out"),
        "{\"something\":\"else\"}\n"
    );
    let (code, _, stderr) = run(&["convert", "--to", "codex", "--force", "-o", s(&out), s(&src)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("replaced"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&out).expect("out"),
        std::fs::read_to_string(fixture("convert/recorded/compacted.claude.codex.jsonl")).expect("recorded")
    );
}

#[test]
fn the_report_counts_what_was_carried_mapped_and_left_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let src = fixture("convert/compacted.claude.jsonl");
    let (code, stdout, stderr) = run(&["convert", "--json", "--to", "codex", "-o", s(&out), s(&src)]);
    assert_eq!(code, 0, "{stderr}");
    let mut r: Value = serde_json::from_str(&stdout).expect("json");
    r["file"] = json!("SRC");
    r["output"] = json!("OUT");
    assert_eq!(
        r,
        json!({
            "kind": "conversion", "file": "SRC", "from": "claude-code", "to": "codex", "output": "OUT",
            "session_id": r["session_id"], "full": false, "written": "new", "lines_written": 25,
            "carried": {"user_texts": 2, "assistant_texts": 3, "tool_calls": 5, "tool_results": 5,
                        "images": 1, "compactions": 1, "reasoning_as_text": 0},
            "mapped": {"Bash → exec_command": 1, "Edit → apply_patch": 1, "Read → exec_command": 1,
                       "Write → apply_patch": 1},
            "dropped": {"not loaded:assistant": 1, "not loaded:file-history-snapshot": 1, "not loaded:user": 1,
                        "reasoning": 1, "tool_result:is_error flag": 1},
            "tokens": r["tokens"], "closed": 0, "resume": null, "imported_by_codex": null, "registered": null, "error": null,
        })
    );
    assert!(r["tokens"].as_u64().is_some_and(|t| t > 100), "{r}");
    let id = r["session_id"].as_str().expect("id");
    assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");
    // Without --json, the same on stderr.
    let (_, _, stderr) = run(&["convert", "--force", "--to", "codex", "-o", s(&out), s(&src)]);
    assert!(
        stderr.contains(
            "mapped: Bash → exec_command 1, Edit → apply_patch 1, Read → exec_command 1, Write → apply_patch 1"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("left out: not loaded:assistant 1"), "{stderr}");
    assert!(
        stderr.contains(
            "carried: 2 user texts, 3 assistant texts, 5 tool calls, 5 tool results, 1 image, 1 compaction\n"
        ),
        "{stderr}"
    );
}

#[test]
fn full_carries_the_history_before_the_compaction_and_the_compaction_itself() {
    let src = fixture("convert/compacted.claude.jsonl");
    let (code, stdout, stderr) = run(&["convert", "--full", "--to", "codex", s(&src)]);
    assert_eq!(code, 0, "{stderr}");
    let lines = records(&stdout);
    let texts: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "response_item" && l["payload"]["type"] == "message")
        .filter_map(|l| l["payload"]["content"][0]["text"].as_str())
        .collect();
    assert_eq!(
        texts[..2],
        [
            "Start the refactor of the greeting module.",
            "Started: the module is split in two."
        ]
    );
    let compacted: Vec<&Value> = lines.iter().filter(|l| l["type"] == "compacted").collect();
    assert_eq!(compacted.len(), 1);
    assert!(
        compacted[0]["payload"]["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("1. The greeting module was split in two."))
    );
    // The compaction replaces what came before: Codex resumes from the summary.
    let view = stdout_of_stdin(&["rebuild-chain", "--input-format", "codex", "-"], &stdout);
    assert!(!view.contains("Start the refactor"), "{view}");
    assert!(view.contains("Now rename foo to bar"), "{view}");
}

fn stdout_of_stdin(args: &[&str], input: &str) -> String {
    let out = cctool()
        .args(args)
        .write_stdin(input.to_string())
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn reasoning_as_text_carries_visible_thinking_marked() {
    let src = fixture("convert/compacted.claude.jsonl");
    let out = stdout_of(&["convert", "--reasoning-as-text", "--to", "codex", s(&src)]);
    assert!(out.contains("<reasoning carried over by cctool convert>\\nEdit, then cargo test.\\n</reasoning carried over by cctool convert>"), "{out}");
    let out = stdout_of(&["convert", "--to", "codex", s(&src)]);
    assert!(!out.contains("Edit, then cargo test."));
}

#[test]
fn the_model_a_claude_code_row_names_is_the_source_s_unless_asked() {
    // Readers of transcripts require the model that wrote each response; Claude Code does not
    // restore one it does not know.
    let src = fixture("convert/tools.codex.jsonl");
    let out = stdout_of(&["convert", "--to", "claude-code", s(&src)]);
    let assistant: Vec<Value> = records(&out).into_iter().filter(|r| r["type"] == "assistant").collect();
    assert!(!assistant.is_empty());
    assert!(
        assistant.iter().all(|r| r["message"]["model"] == "gpt-5.3-codex"),
        "{out}"
    );
    let out = stdout_of(&["convert", "--to", "claude-code", "--model", "claude-opus-4-6", s(&src)]);
    assert!(
        records(&out)
            .iter()
            .filter(|r| r["type"] == "assistant")
            .all(|r| r["message"]["model"] == "claude-opus-4-6")
    );
}

#[test]
fn to_cctool_is_the_import_and_a_cctool_session_is_not_converted() {
    let src = fixture("convert/tools.codex.jsonl");
    let out = stdout_of(&["convert", "--to", "cctool", s(&src)]);
    let doc: Value = serde_json::from_str(&out).expect("v5 json");
    assert_eq!(doc["schema_version"], 5);
    let migrate = stdout_of(&["migrate", "--effective", "-o", "-", s(&src)]);
    assert_eq!(out, migrate);
    let (code, _, stderr) = run(&["convert", "--to", "codex", s(&fixture("session/refactor.v5.json"))]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is imported with --to cctool or migrated with cctool migrate"),
        "{stderr}"
    );
}

#[test]
fn json_needs_an_output_file() {
    let (code, stdout, _) = run(&[
        "convert",
        "--json",
        "--to",
        "codex",
        s(&fixture("convert/compacted.claude.jsonl")),
    ]);
    assert_eq!(code, 2);
    let r: Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(
        r["error"],
        "--json prints the report on standard output: write the conversion with -o OUT"
    );
}

#[test]
fn into_store_writes_where_each_agent_looks_and_says_how_to_resume() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let convert = |to: &str, src: &Path, env: &[(&str, &Path)]| {
        let mut cmd = cctool();
        cmd.env("HOME", h);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .args(["convert", "--json", "--into-store", "--to", to, s(src)])
            .output()
            .expect("run");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).expect("json")
    };
    let claude_src = fixture("convert/compacted.claude.jsonl");
    let r = convert("codex", &claude_src, &[]);
    let id = r["session_id"].as_str().expect("id").to_string();
    let rollout = h.join(format!(
        ".codex/sessions/2026/11/20/rollout-2026-11-20T09-00-03-{id}.jsonl"
    ));
    assert_eq!(r["output"], s(&rollout));
    assert!(rollout.is_file());
    assert_eq!(r["resume"], format!("codex resume {id}"));
    assert_eq!(convert("codex", &claude_src, &[])["written"], "up-to-date");

    let codex_home = h.join("elsewhere");
    let r = convert(
        "claude-code",
        &fixture("convert/tools.codex.jsonl"),
        &[("CLAUDE_CONFIG_DIR", &codex_home)],
    );
    let id = r["session_id"].as_str().expect("id").to_string();
    assert_eq!(
        r["output"],
        s(&codex_home.join(format!("projects/-home-dev-app/{id}.jsonl")))
    );
    assert_eq!(r["resume"], format!("cd /home/dev/app && claude --resume {id}"));

    // A transcript Codex's own importer took is reported, not converted again.
    let ledger = json!({"records": [{"source_path": s(&claude_src), "content_sha256": "x",
                                     "imported_thread_id": "019d0000-aaaa-7bbb-8ccc-dddddddddddd"}]});
    let codex_home = h.join("codex2");
    std::fs::create_dir_all(&codex_home).expect("mkdir");
    std::fs::write(
        codex_home.join("external_agent_session_imports.json"),
        ledger.to_string(),
    )
    .expect("ledger");
    let r = convert("codex", &claude_src, &[("CODEX_HOME", &codex_home)]);
    assert_eq!(r["written"], "imported-by-codex");
    assert_eq!(r["imported_by_codex"], "019d0000-aaaa-7bbb-8ccc-dddddddddddd");
    assert_eq!(r["resume"], "codex resume 019d0000-aaaa-7bbb-8ccc-dddddddddddd");
    assert!(!codex_home.join("sessions").exists(), "nothing written");
}

#[test]
fn a_session_already_in_the_target_format_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    for (src, to, noun) in [
        ("convert/tools.codex.jsonl", "codex", "a Codex rollout"),
        (
            "convert/compacted.claude.jsonl",
            "claude-code",
            "a Claude Code transcript",
        ),
    ] {
        let (code, stdout, stderr) = run(&["convert", "--to", to, "-o", s(&out), s(&fixture(src))]);
        assert_eq!(code, 2, "{src}: {stderr}");
        assert_eq!(stdout, "");
        assert!(
            stderr.contains(&format!("the file is already {noun}: convert --to {to}")),
            "{src}: {stderr}"
        );
        assert!(!out.exists(), "{src}: nothing is written");
    }
}

/// Each Claude Code file tool's call in `out` (a rollout): apply_patch patches, and the calls
/// that kept the name `Edit`, `MultiEdit` or `Write`.
fn patches_and_kept(out: &Path) -> (u64, u64) {
    let text = std::fs::read_to_string(out).expect("converted");
    let mut counts = (0, 0);
    for l in text.lines() {
        let r: Value = serde_json::from_str(l).expect("json line");
        let p = &r["payload"];
        match (p["type"].as_str(), p["name"].as_str()) {
            (Some("custom_tool_call"), Some("apply_patch")) => counts.0 += 1,
            (Some("function_call"), Some("Edit" | "MultiEdit" | "Write")) => counts.1 += 1,
            _ => {}
        }
    }
    counts
}

/// Every Edit, MultiEdit and Write of every Claude Code fixture (and of the samples, when
/// present) is written as an apply_patch patch, and the report counts each.
#[test]
fn every_file_tool_call_of_every_fixture_is_a_patch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut files = fixture_files(&[
        "claude",
        "claude/api",
        "claude/chain",
        "claude/summaries",
        "compact",
        "convert",
    ]);
    let mut dirs = CLAUDE_SAMPLE_DIRS.to_vec();
    dirs.push("claude-code/real-2026");
    files.extend(shared_files(&dirs).unwrap_or_default());
    let (mut mapped, mut kept) = (0, 0);
    for src in files.iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")) {
        let out = dir.path().join("out.jsonl");
        let (code, stdout, stderr) = run(&[
            "convert",
            "--json",
            "--full",
            "--force",
            "--to",
            "codex",
            "-o",
            s(&out),
            s(src),
        ]);
        let r: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{}: {e}: {stderr}", src.display()));
        if r["from"] != "claude-code" {
            continue;
        }
        assert_eq!(code, 0, "{}: {stderr}", src.display());
        let (patches, by_name) = patches_and_kept(&out);
        let reported: u64 = ["Edit", "MultiEdit", "Write"]
            .iter()
            .map(|t| r["mapped"][format!("{t} → apply_patch")].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(by_name, 0, "{}: file tool calls kept by name", src.display());
        assert_eq!(patches, reported, "{}", src.display());
        mapped += patches;
        kept += by_name;
    }
    eprintln!("file tool calls: {mapped} mapped to apply_patch, {kept} kept by name");
    // The project's own fixtures alone hold the 19 below.
    assert!(mapped >= 19, "{mapped} mapped");
}

/// What a patch cannot say of a call is counted as left out, and the file tools' calls of
/// every shape are mapped.
#[test]
fn the_report_counts_what_a_patch_cannot_say() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let src = fixture("convert/file-tools.claude.jsonl");
    let (code, stdout, stderr) = run(&["convert", "--json", "--to", "codex", "-o", s(&out), s(&src)]);
    assert_eq!(code, 0, "{stderr}");
    let r: Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(
        r["mapped"],
        json!({"Edit → apply_patch": 6, "MultiEdit → apply_patch": 2, "Read → exec_command": 1,
               "Write → apply_patch": 4})
    );
    assert_eq!(
        r["dropped"],
        json!({"Edit:replace_all flag": 1, "MultiEdit:replace_all flag": 1, "Write:no final newline": 1})
    );
    let text = std::fs::read_to_string(&out).expect("converted");
    let inputs: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .filter(|r| r["payload"]["name"] == "apply_patch")
        .map(|r| r["payload"]["input"].as_str().expect("patch").to_string())
        .collect();
    // Lines the old and new strings share are context; a file the session read is replaced.
    assert!(inputs.contains(
        &"*** Begin Patch\n*** Update File: /home/dev/app/src/main.rs\n@@\n fn main() {\n-    old();\n+    new();\n+    more();\n }\n \n*** End Patch".to_string()
    ), "{inputs:#?}");
    assert_eq!(
        inputs.last().map(String::as_str),
        Some(
            "*** Begin Patch\n*** Delete File: /home/dev/app/README.md\n*** Add File: /home/dev/app/README.md\n+# app\n+\n+Rewritten.\n*** End Patch"
        )
    );
}
