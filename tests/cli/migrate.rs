//! `cctool migrate`: the v1→v5 chain in place, safely; imports of native files.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{age, cctool, fixture, fixture_files, shared, write_aged};

fn copy_to(dir: &Path, from: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::copy(from, &p).unwrap();
    age(&p);
    p
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn golden_files_of_every_version_migrate_to_their_exact_v5() {
    // The expected files were computed from the spec by an independent script, not by cctool.
    for v in ["v1", "v2", "v3", "v4", "spec_example.v1"] {
        let dir = tempfile::tempdir().unwrap();
        let input = fixture(&format!("migrate/{v}.json"));
        let f = copy_to(dir.path(), &input, "s.json");
        let out = cctool()
            .args(["migrate", "--json", f.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{v}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rec: Value = serde_json::from_slice(&out.stdout).unwrap();
        let old = if v.contains("spec") { "v1" } else { v };
        assert_eq!(rec["from"], old);
        assert_eq!(rec["to"], "v5", "one type for from and to");
        assert_eq!(rec["changed"], true);
        let expected = fixture(&format!("migrate/{}.expected.v5.json", v.trim_end_matches(".v1")));
        assert_eq!(
            std::fs::read_to_string(&f).unwrap(),
            std::fs::read_to_string(expected).unwrap(),
            "{v}"
        );
        // The backup holds the original bytes.
        let backup = dir.path().join(format!("s.json.{old}.bak"));
        assert_eq!(rec["backup"], backup.display().to_string());
        assert_eq!(std::fs::read(&backup).unwrap(), std::fs::read(&input).unwrap());
        // Idempotent: a second run changes nothing, not even a byte.
        let before = std::fs::read(&f).unwrap();
        let out = cctool().args(["migrate", f.to_str().unwrap()]).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{}: already v5\n", f.display())
        );
        assert_eq!(std::fs::read(&f).unwrap(), before);
        assert_eq!(files_in(dir.path()), ["s.json", &format!("s.json.{old}.bak")]);
    }
}

#[test]
fn intermediate_targets_and_no_downgrades() {
    let dir = tempfile::tempdir().unwrap();
    let f = copy_to(dir.path(), &fixture("migrate/v1.json"), "s.json");
    cctool()
        .args(["migrate", "--to", "v3", f.to_str().unwrap()])
        .assert()
        .success();
    let got: Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
    let want: Value = serde_json::from_slice(&std::fs::read(fixture("migrate/v3.json")).unwrap()).unwrap();
    assert_eq!(got, want);
    let v5 = copy_to(dir.path(), &fixture("migrate/v5.json"), "v5.json");
    let out = cctool()
        .args(["migrate", "--to", "3", v5.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is v5; migrating to v3 would be a downgrade"));
    let out = cctool()
        .args(["migrate", "--to", "v9", v5.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "clap rejects unknown targets");
}

#[test]
fn every_error_names_the_file_and_the_path_and_writes_nothing() {
    let cases: &[(&str, &str)] = &[
        ("{\"version\": 1, \"id\": \"x\", \"messages\": [", "not valid JSON"),
        ("{\"version\": 1, \"id\": \"x\"}", "messages: missing"),
        (
            "{\"version\": 1, \"id\": \"x\", \"messages\": {}}",
            "messages: expected an array",
        ),
        (
            "{\"version\": 1, \"id\": \"x\", \"messages\": [{\"content\": \"hi\"}]}",
            "messages[0].role: missing",
        ),
        (
            "{\"version\": 1, \"id\": \"x\", \"messages\": [{\"role\": \"user\", \"content\": \"\"}, {\"role\": \"tool\", \"content\": \"x\"}]}",
            "messages[1].tool_call_id: missing",
        ),
        ("{\"messages\": []}", "unknown schema version (missing)"),
        ("{\"schema_version\": 0, \"messages\": []}", "unknown schema version 0"),
        ("{\"schema_version\": 9, \"messages\": []}", "unknown schema version 9"),
        (
            "{\"schema_version\": 2.5, \"messages\": []}",
            "unknown schema version 2.5",
        ),
    ];
    for (body, msg) in cases {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("bad.json");
        write_aged(&f, body.as_ref());
        let out = cctool()
            .args(["--input-format", "cctool-session", "migrate", f.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{body}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{}: ", f.display())) && stderr.contains(msg),
            "{body}: {stderr}"
        );
        assert_eq!(std::fs::read_to_string(&f).unwrap(), *body, "nothing written");
        assert_eq!(files_in(dir.path()), ["bad.json"], "no backup, no temporary file");
    }
}

#[test]
fn invalid_arguments_are_kept_raw_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let f = copy_to(dir.path(), &fixture("migrate/v1.json"), "s.json");
    cctool().args(["migrate", f.to_str().unwrap()]).assert().success();
    let v: Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
    assert_eq!(
        v["messages"][2]["items"][2]["args"],
        serde_json::json!({"_raw": "{not json"})
    );
    assert_eq!(
        v["messages"][4]["items"][0],
        serde_json::json!({"type": "tool_result", "content": "", "original_size": 0})
    );
}

#[test]
fn check_reports_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let old = copy_to(dir.path(), &fixture("migrate/v2.json"), "old.json");
    copy_to(dir.path(), &fixture("migrate/v5.json"), "new.json");
    let out = cctool()
        .args(["migrate", "--check", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("new.json: already v5") && text.contains("old.json: would migrate v2 -> v5"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(&old).unwrap(),
        std::fs::read(fixture("migrate/v2.json")).unwrap()
    );
    assert_eq!(files_in(dir.path()), ["new.json", "old.json"]);
    std::fs::remove_file(&old).unwrap();
    cctool()
        .args(["migrate", "--dry-run", dir.path().to_str().unwrap()])
        .assert()
        .code(0);
}

#[test]
fn a_failed_file_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    copy_to(dir.path(), &fixture("migrate/v1.json"), "a.json");
    std::fs::write(dir.path().join("b.json"), "{\"schema_version\": 9, \"messages\": []}").unwrap();
    copy_to(dir.path(), &fixture("migrate/v3.json"), "c.json");
    let out = cctool()
        .args(["migrate", "--json", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let recs: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let changed: Vec<bool> = recs.iter().map(|r| r["changed"].as_bool().unwrap()).collect();
    assert_eq!(changed, [true, false, true]);
    assert_eq!(recs[1]["error"], "unknown schema version 9");
}

#[test]
fn a_failure_at_any_step_leaves_a_whole_file_and_the_backup() {
    let input = fixture("migrate/v1.json");
    let original = std::fs::read(&input).unwrap();
    let migrated = std::fs::read(fixture("migrate/v1.expected.v5.json")).unwrap();
    // The backup is a hard link, or a copy where links are refused (forced here).
    for (step, backup_mode) in [
        "before-backup",
        "after-backup",
        "after-temp",
        "before-rename",
        "after-rename",
    ]
    .into_iter()
    .flat_map(|s| [(s, "link"), (s, "copy")])
    {
        let dir = tempfile::tempdir().unwrap();
        let f = copy_to(dir.path(), &input, "s.json");
        let out = cctool()
            .env("CCTOOL_FAIL_AT", step)
            .env("CCTOOL_BACKUP", backup_mode)
            .args(["migrate", f.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{step}");
        let now = std::fs::read(&f).unwrap();
        assert!(
            now == original || now == migrated,
            "{step}: the file is neither old nor new"
        );
        let backup = dir.path().join("s.json.v1.bak");
        if step == "before-backup" {
            assert_eq!(now, original);
            assert!(!backup.exists());
        } else {
            assert_eq!(std::fs::read(&backup).unwrap(), original, "{step}: backup");
        }
        if step == "after-backup" {
            use std::os::unix::fs::MetadataExt;
            let same_inode = std::fs::metadata(&f).unwrap().ino() == std::fs::metadata(&backup).unwrap().ino();
            assert_eq!(same_inode, backup_mode == "link", "{backup_mode}");
        }
        let temps = files_in(dir.path()).into_iter().filter(|n| n.ends_with(".tmp")).count();
        assert_eq!(temps, 0, "{step}: no temporary file left behind");
    }
}

/// Imports a Claude Code transcript and checks that the v5 file holds every text, tool call
/// and tool result of the full chain, in order, with the session id; returns how many there
/// were, and the summary and native items.
fn claude_import(transcript: &Path, session_id: &str) -> (usize, Vec<Value>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.v5.json");
    cctool()
        .args(["migrate", transcript.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .assert()
        .success();
    let v5: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v5["schema_version"], 5);
    assert_eq!(v5["source"]["format"], "claude-code");
    assert_eq!(v5["source"]["native_session_id"], session_id);
    // What the full chain holds, in order: user texts, assistant texts, tool call ids.
    let chain = crate::util::stdout_of(&["-q", "rebuild-chain", "--full", transcript.to_str().unwrap()]);
    let mut want: Vec<String> = Vec::new();
    for line in chain.lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        if r["isCompactSummary"] == true {
            continue;
        }
        let content = &r["message"]["content"];
        match (r["type"].as_str(), content) {
            (Some("user"), Value::String(s)) => want.push(format!("text:{s}")),
            (Some("user" | "assistant"), Value::Array(blocks)) => {
                for b in blocks {
                    match b["type"].as_str() {
                        Some("text") => want.push(format!("text:{}", b["text"].as_str().unwrap())),
                        Some("tool_use") => want.push(format!("call:{}", b["id"].as_str().unwrap())),
                        Some("tool_result") => want.push(format!("result:{}", b["tool_use_id"].as_str().unwrap())),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    let mut got: Vec<String> = Vec::new();
    // The records off that chain come in file order around it, marked.
    for m in v5["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["source"]["off_chain"] != true)
    {
        if m["role"] == "tool" {
            got.push(format!("result:{}", m["tool_call_id"].as_str().unwrap()));
            continue;
        }
        for it in m["items"].as_array().unwrap() {
            match it["type"].as_str() {
                Some("text") => got.push(format!("text:{}", it["text"].as_str().unwrap())),
                Some("tool_call") => got.push(format!("call:{}", it["id"].as_str().unwrap())),
                _ => {}
            }
        }
    }
    assert_eq!(got, want);
    let items: Vec<&Value> = v5["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["items"].as_array().unwrap())
        .collect();
    let summaries = items
        .iter()
        .filter(|i| i["type"] == "summary")
        .map(|i| (*i).clone())
        .collect();
    let natives = items.iter().filter(|i| i["type"] == "native").count();
    (want.len(), summaries, natives)
}

#[test]
fn claude_import_keeps_every_text_and_tool_call_in_order() {
    let transcript = fixture("claude/chain/microcompact_then_compact_2_1_20.jsonl");
    let (events, summaries, natives) = claude_import(&transcript, "5e551000-0000-4000-8000-000000001004");
    assert_eq!(events, 11);
    // Each compaction is a summary item at its place, with the summary's text.
    assert_eq!(summaries.len(), 2);
    let file = std::fs::read_to_string(&transcript).unwrap();
    let row: Value = serde_json::from_str(file.lines().nth(12).unwrap()).unwrap();
    assert_eq!(summaries[1]["text"], row["message"]["content"]);
    assert_eq!(summaries[1]["trigger"], "auto");
    // Nothing is lost: the two microcompactions and the progress row are native items.
    assert_eq!(natives, 3);
}

#[test]
fn claude_import_of_a_real_transcript() {
    let Some(transcript) = shared("claude-code/real/entire_4b7d5121b42a_manual-compact_progress_v2.1.14.jsonl") else {
        return;
    };
    let (events, summaries, natives) = claude_import(&transcript, "0cf3db51-1c73-43bb-8d05-dc02739514a5");
    assert!(events > 50, "{events}");
    assert_eq!(summaries.len(), 1);
    assert!(
        summaries[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("This session is being continued")
    );
    assert_eq!(summaries[0]["trigger"], "manual");
    assert!(natives > 0);
}

#[test]
fn codex_remote_compaction_becomes_an_encrypted_summary() {
    let Some(remote) = shared("codex/synthetic/synthetic_remote_compaction.jsonl") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let f = copy_to(dir.path(), &remote, "rollout.jsonl");
    cctool().args(["migrate", f.to_str().unwrap()]).assert().success();
    let v5: Value = serde_json::from_slice(&std::fs::read(dir.path().join("rollout.v5.json")).unwrap()).unwrap();
    let items: Vec<&Value> = v5["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["items"].as_array().unwrap())
        .collect();
    let s = items.iter().find(|i| i["type"] == "summary").unwrap();
    assert_eq!(s["encrypted"], true);
    assert_eq!(s["text"], Value::Null);
    assert_eq!(s["encrypted_len"], 40);
    // --effective: only what a resume loads.
    let eff = dir.path().join("eff.json");
    cctool()
        .args([
            "migrate",
            "--effective",
            f.to_str().unwrap(),
            "-o",
            eff.to_str().unwrap(),
        ])
        .assert()
        .success();
    let e: Value = serde_json::from_slice(&std::fs::read(&eff).unwrap()).unwrap();
    let kinds: Vec<String> = e["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}:{}",
                m["role"].as_str().unwrap(),
                m["items"][0]["type"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        kinds,
        ["user:text", "user:text", "user:summary", "user:text", "assistant:text"]
    );
    // Never over the native file.
    let out = cctool()
        .args(["migrate", f.to_str().unwrap(), "-o", f.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_file_modified_in_the_last_minute_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("live.json");
    let original = std::fs::read(fixture("migrate/v1.json")).unwrap();
    std::fs::write(&f, &original).unwrap();
    let out = cctool().args(["migrate", f.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "live.json: not migrated: modified 0 s ago, so it may still be written; retry in a minute, or pass --force"
        ),
        "{err}"
    );
    assert_eq!(std::fs::read(&f).unwrap(), original, "untouched");
    assert_eq!(files_in(dir.path()), ["live.json"], "no backup, no temp");
    // A dry run writes nothing, so it does not care.
    cctool()
        .args(["migrate", "--check", f.to_str().unwrap()])
        .assert()
        .code(1);
    cctool()
        .args(["migrate", "--force", f.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&f).unwrap(),
        std::fs::read(fixture("migrate/v1.expected.v5.json")).unwrap()
    );
}

#[test]
fn imports_written_message_by_message_are_the_held_session_written_whole() {
    use cctool::agents::claude_code::import;
    use cctool::io::{MmapChoice, Source};
    use cctool::v5::schema as migrate;
    let mut dirs = crate::util::CLAUDE_SAMPLE_DIRS.to_vec();
    dirs.extend(["codex/real", "codex/synthetic"]);
    let jsonl = |f: &PathBuf| f.extension().is_some_and(|e| e == "jsonl");
    let mut files: Vec<PathBuf> = crate::util::shared_files(&dirs).unwrap_or_default();
    files.retain(jsonl);
    let samples = files.len();
    files.extend(
        fixture_files(crate::util::TRANSCRIPT_FIXTURE_DIRS)
            .into_iter()
            .filter(jsonl),
    );
    assert!(samples == 0 || samples > 20, "{samples} samples");
    assert!(files.len() - samples > 40, "{} fixtures", files.len() - samples);
    for f in &files {
        let src = Source::open_path(f, MmapChoice::Auto).unwrap();
        let codex = cctool::agents::detect::detect(&src).unwrap() == cctool::agents::codex::ID;
        for effective in [false, true] {
            let (held, written) = if codex {
                let mut w = Vec::new();
                (
                    cctool::agents::codex::import::codex(&src, effective),
                    cctool::agents::codex::import::codex_to(&src, effective, &mut w).map(|()| w),
                )
            } else {
                let mut w = Vec::new();
                (
                    import::claude(&src, effective),
                    import::claude_to(&src, effective, &mut w).map(|()| w),
                )
            };
            let whole = migrate::to_bytes(&held.unwrap());
            assert_eq!(
                String::from_utf8(written.unwrap()).unwrap(),
                String::from_utf8(whole).unwrap(),
                "{} (effective: {effective})",
                f.display()
            );
        }
    }
}

#[test]
fn off_chain_records_join_a_native_only_message_that_ends_the_chain() {
    // The chain ends with a system record kept as a native item; the progress row and the
    // snapshot are off the chain. Runs of native-only messages share one message, so all
    // three are items of message 3, which keeps the chain record's source.
    let lines = [
        r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s"}"#,
        r#"{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","message":{"id":"m1","role":"assistant","model":"x","content":[{"type":"text","text":"hello"}]},"uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2026-01-01T00:00:01.000Z","sessionId":"s"}"#,
        r#"{"parentUuid":"00000000-0000-4000-8000-000000000002","isSidechain":false,"type":"system","subtype":"informational","content":"note","uuid":"00000000-0000-4000-8000-000000000003","timestamp":"2026-01-01T00:00:02.000Z","sessionId":"s"}"#,
        r#"{"type":"progress","parentUuid":"00000000-0000-4000-8000-000000000003","data":{"type":"hook_progress"},"uuid":"00000000-0000-4000-8000-000000000004","timestamp":"2026-01-01T00:00:03.000Z","sessionId":"s"}"#,
        r#"{"type":"file-history-snapshot","messageId":"x","snapshot":{}}"#,
    ];
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.jsonl");
    write_aged(&input, format!("{}\n", lines.join("\n")).as_bytes());
    let out = dir.path().join("t.v5.json");
    cctool()
        .args(["-q", "migrate"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let shape: Vec<(u64, String, Vec<Option<u64>>)> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let items = m["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["line"].as_u64())
                .collect();
            (
                m["id"].as_u64().unwrap(),
                m["role"].as_str().unwrap().to_string(),
                items,
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (1, "user".to_string(), vec![None]),
            (2, "assistant".to_string(), vec![None]),
            (3, "system".to_string(), vec![Some(3), Some(4), Some(5)]),
        ]
    );
    assert_eq!(doc["messages"][2]["source"]["line"], 3);
}
