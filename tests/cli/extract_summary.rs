//! `cctool extract-summary`: every compaction summary of every sample and fixture, with its
//! exact text, boundary and metadata.

use serde_json::{Value, json};

use crate::util::{CLAUDE_SAMPLE_DIRS, cctool, fixture, records, shared, shared_files, stdout_of};

pub(crate) fn summaries(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["extract-summary", "--json"];
    all.extend_from_slice(args);
    records(&stdout_of(&all))
        .into_iter()
        .filter(|r| r["kind"] == "summary")
        .collect()
}

/// The text of the `isCompactSummary` message on `line` (1-based) of a transcript.
pub(crate) fn summary_text_at(path: &std::path::Path, line: usize) -> String {
    let file = std::fs::read_to_string(path).unwrap();
    let rec: Value = serde_json::from_str(file.lines().nth(line - 1).unwrap()).unwrap();
    assert_eq!(rec["isCompactSummary"], true);
    rec["message"]["content"].as_str().unwrap().to_string()
}

#[test]
fn real_auto_compaction_byte_exact() {
    let Some(path) = shared("claude-code/real/entire_a6e4c2a0fbd1_auto-compact_v2.0.76.jsonl") else {
        return;
    };
    let s = summaries(&[path.to_str().unwrap()]);
    assert_eq!(s.len(), 1);
    let r = &s[0];
    assert_eq!(r["format"], "claude-code");
    assert_eq!(r["index"], 0);
    assert_eq!(r["current"], true);
    assert_eq!(r["line"], 31);
    assert_eq!(r["trigger"], "auto");
    assert_eq!(r["pre_tokens"], 155250);
    assert_eq!(r["origin"], "local");
    assert_eq!(r["encrypted"], false);
    assert_eq!(r["boundary_uuid"], "2698f93f-93a5-40da-819d-287f5b38e7c1");
    assert_eq!(r["summary_line"], 32);
    assert_eq!(r["logical_parent_resolves"], true);
    assert_eq!(r["summary"], summary_text_at(&path, 32));
}

#[test]
fn real_manual_compaction() {
    let Some(path) = shared("claude-code/real/entire_4b7d5121b42a_manual-compact_progress_v2.1.14.jsonl") else {
        return;
    };
    let s = summaries(&[path.to_str().unwrap()]);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0]["line"], 71);
    assert_eq!(s[0]["trigger"], "manual");
    assert_eq!(s[0]["boundary_uuid"], "28e7ab65-6e19-4be6-93e5-80d77d365cd7");
    assert_eq!(s[0]["summary"], summary_text_at(&path, 72));
    assert_eq!(s[0]["current"], true);
}

#[test]
fn three_compactions_with_the_last_current() {
    let Some(path) = shared("claude-code/real-excerpts/entire_cd95adddad32_three-compactions_v2.1.7.excerpt.jsonl")
    else {
        return;
    };
    let s = summaries(&[path.to_str().unwrap()]);
    let lines: Vec<u64> = s.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [4, 11, 18]);
    let current: Vec<bool> = s.iter().map(|r| r["current"].as_bool().unwrap()).collect();
    assert_eq!(current, [false, false, true]);
    for (r, l) in s.iter().zip([5, 12, 19]) {
        assert_eq!(r["summary"], summary_text_at(&path, l));
        assert_eq!(r["trigger"], "auto");
    }
    let only = summaries(&["--current", path.to_str().unwrap()]);
    assert_eq!(only.len(), 1);
    assert_eq!(only[0]["line"], 18);
}

#[test]
fn microcompactions_only_with_all_events() {
    let Some(path) =
        shared("claude-code/real-excerpts/entire_25730c662552_microcompact-and-compact_v2.1.20.excerpt.jsonl")
    else {
        return;
    };
    let s = summaries(&[path.to_str().unwrap()]);
    assert_eq!(
        s.iter().map(|r| r["line"].as_u64().unwrap()).collect::<Vec<_>>(),
        [4, 11]
    );
    assert_eq!(s[1]["current"], true);
    assert_eq!(
        s[0]["logical_parent_resolves"], false,
        "an excerpt: the logical parent is not in it"
    );
    let all = records(&stdout_of(&[
        "extract-summary",
        "--json",
        "--all-events",
        path.to_str().unwrap(),
    ]));
    let events: Vec<&Value> = all.iter().filter(|r| r["kind"] == "event").collect();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["event"], "microcompact_boundary");
    assert_eq!(events[0]["line"], 3);
    assert_eq!(events[0]["metadata"]["tokensSaved"], 38535);
}

#[test]
fn legacy_summary_titles_are_never_summaries() {
    for f in [
        "claude-code/real-excerpts/entire_013118c3a750_top-summaries-foreign-leafs.excerpt.jsonl",
        "claude-code/real-excerpts/dkimuson_fe5e1c67_v1.0.98_top-summary_inline-sidechains.excerpt.jsonl",
        "claude-code/real-excerpts/entire_37995ebed6e4_concatenated-lines_v2.1.x.excerpt.jsonl",
        // This excerpt ends a file whose boundary (line 530 of the original) is not in it.
        "claude-code/real-excerpts/entire_38346dbfe2e0_dangling-parent-chain-break_v2.1.29.excerpt.jsonl",
    ] {
        let Some(path) = shared(f) else { return };
        assert!(summaries(&[path.to_str().unwrap()]).is_empty(), "{f}");
    }
}

#[test]
fn current_summary_when_the_chain_misses_the_boundary_is_marked() {
    let s = summaries(&[fixture("claude/summaries/chain_misses_boundary.jsonl")
        .to_str()
        .unwrap()]);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0]["current"], true);
    let w = s[0]["warning"].as_str().unwrap();
    assert!(
        w.contains("does not reach a compact boundary") && w.contains("00000000-0000-4000-8000-000000000006"),
        "{w}"
    );
}

#[test]
fn boundary_without_summary_is_reported_not_invented() {
    let s = summaries(&[fixture("claude/summaries/boundary_without_summary.jsonl")
        .to_str()
        .unwrap()]);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0]["summary"], Value::Null);
    assert_eq!(s[0]["warning"], "no summary message follows this boundary");
}

#[test]
fn template_eras_stripped_and_kept() {
    let path = fixture("claude/summaries/template_eras.jsonl");
    let stripped = summaries(&["--strip-template", path.to_str().unwrap()]);
    let texts: Vec<&str> = stripped.iter().map(|r| r["summary"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        [
            "1. Primary Request and Intent: port the build to bazel\n2. Next Step: write BUILD files",
            "1. Primary Request and Intent: port the build to bazel\n2. Current Work: CI config",
            "1. Primary Request and Intent: port the build to bazel\n2. Current Work: CI is green",
        ]
    );
    let raw = summaries(&[path.to_str().unwrap()]);
    assert_eq!(raw[0]["summary"], summary_text_at(&path, 4));
    assert_eq!(raw[1]["summary"], summary_text_at(&path, 7));
    // Text blocks are joined.
    assert!(
        raw[2]["summary"]
            .as_str()
            .unwrap()
            .contains("CI is green\nRecent messages are preserved verbatim.")
    );
    assert_eq!(
        raw[2]["metadata"],
        json!({"userContext": "keep the cache", "messagesSummarized": 12})
    );
    assert_eq!(
        raw.iter().map(|r| r["current"].as_bool().unwrap()).collect::<Vec<_>>(),
        [false, false, true]
    );
}

#[test]
fn codex_local_legacy_and_remote() {
    let Some(local) = shared("codex/synthetic/synthetic_local_compaction_2026.jsonl") else {
        return;
    };
    let local = summaries(&[local.to_str().unwrap()]);
    assert_eq!(local.len(), 1);
    assert_eq!(local[0]["origin"], "local");
    assert_eq!(local[0]["format"], "codex");
    assert!(
        !local[0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("Another language model")
    );
    assert!(
        local[0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("- Added --verbose flag (src/main.rs)")
    );
    assert_eq!(local[0]["retained_messages"], Value::Null);

    let Some(legacy) = shared("codex/synthetic/synthetic_legacy_compaction_no_replacement_history.jsonl") else {
        return;
    };
    let legacy = summaries(&[legacy.to_str().unwrap()]);
    assert_eq!(legacy[0]["origin"], "legacy");
    assert_eq!(legacy[0]["current"], true);

    let Some(remote) = shared("codex/synthetic/synthetic_remote_compaction.jsonl") else {
        return;
    };
    let remote = summaries(&[remote.to_str().unwrap()]);
    let r = &remote[0];
    assert_eq!(r["origin"], "remote");
    assert_eq!(r["encrypted"], true);
    assert_eq!(r["encrypted_len"], 40);
    assert_eq!(r["summary"], Value::Null);
    assert_eq!(
        r["retained_messages"],
        json!([{"role": "user", "text": "Port the build to bazel"}, {"role": "user", "text": "Keep going, also fix CI"}])
    );
    assert_eq!(r["metadata"]["window_number"], 1);
    assert_eq!(r["boundary_uuid"], Value::Null);
}

#[test]
fn codex_compaction_inside_a_rolled_back_turn_is_not_current() {
    let Some(path) = shared("codex/synthetic/synthetic_rollback_over_midturn_compaction.jsonl") else {
        return;
    };
    let s = summaries(&[path.to_str().unwrap()]);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0]["current"], false);
    let out = cctool()
        .args(["extract-summary", "--current", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "no summary reaches the next resume");
}

#[test]
fn codex_union_fixture_six_compacted_lines_classified() {
    let Some(path) = shared("codex/real/agent-sessions__stage0_codex_small.jsonl") else {
        return;
    };
    let s = summaries(&[path.to_str().unwrap()]);
    let origins: Vec<&str> = s.iter().map(|r| r["origin"].as_str().unwrap()).collect();
    assert_eq!(origins, ["local", "remote", "remote", "remote", "remote", "remote"]);
    // Redacted copies keep a non-empty message on remote records: still remote, text reported.
    assert_eq!(s[1]["summary"], "[trimmed for fixture]");
    assert_eq!(
        s[0]["metadata"],
        json!({"window_number": 2, "window_id": "w-2", "first_window_id": "w-1", "previous_window_id": "w-1"})
    );
    assert_eq!(s.iter().filter(|r| r["current"] == true).count(), 1);
}

#[test]
fn codex_fixtures_of_every_shape() {
    let remote = summaries(&[fixture("codex/summaries/remote_empty_message.jsonl").to_str().unwrap()]);
    assert_eq!(
        (remote[0]["origin"].as_str(), remote[0]["encrypted_len"].as_u64()),
        (Some("remote"), Some(100))
    );
    assert_eq!(remote[0]["summary"], Value::Null);
    assert_eq!(remote[0]["retained_messages"].as_array().unwrap().len(), 3);
    assert_eq!(
        remote[0]["retained_messages"][1],
        json!({"role": "assistant", "text": "Plan ready."})
    );

    let raw = summaries(&[fixture("codex/summaries/legacy_raw_2025_09.jsonl").to_str().unwrap()]);
    assert_eq!(raw[0]["origin"], "legacy");
    assert_eq!(raw[0]["summary"], "Parser split into lexer and parser.");

    let old_name = summaries(&[fixture("codex/summaries/compaction_summary_item.jsonl")
        .to_str()
        .unwrap()]);
    assert_eq!(old_name[0]["origin"], "remote");
    assert_eq!(old_name[0]["encrypted_len"], 56);

    // A copy whose exporter filled the empty message of a remote compaction: still remote (the
    // replacement history holds the encrypted item), and the text is reported as written.
    let redacted = summaries(&[fixture("codex/summaries/remote_redacted_message.jsonl")
        .to_str()
        .unwrap()]);
    assert_eq!(
        (redacted[0]["origin"].as_str(), redacted[0]["encrypted"].as_bool()),
        (Some("remote"), Some(true))
    );
    assert_eq!(redacted[0]["summary"], "[removed by the exporter]");
    assert_eq!(
        redacted[0]["retained_messages"],
        json!([{"role": "user", "text": "index the docs for search"}])
    );

    let local = summaries(&[fixture("codex/summaries/local_empty_message.jsonl").to_str().unwrap()]);
    assert_eq!(local[0]["summary"], "The build uses sccache now.");
    assert_eq!(local[0]["summary_source"], "replacement_history");
    assert_eq!(local[1]["summary"], "Caching is configured; next: CI.");
    assert_eq!(local[1]["summary_source"], "assistant_item");
    assert_eq!(local[1]["current"], true);
}

#[test]
fn v5_session_summary_items() {
    let s = summaries(&[fixture("session/with_summary.v5.json").to_str().unwrap()]);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0]["format"], "cctool-v5");
    assert_eq!(s[0]["session_id"], "cc-session-20260716-b4c5d6");
    assert!(
        s[0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("[Summary]\nGoal: Refactor module A")
    );
    assert_eq!(s[0]["metadata"]["goal"], "Refactor module A");
    assert_eq!(s[0]["current"], true);
}

#[test]
fn many_files_and_folders_in_stable_order_with_a_total() {
    let out = stdout_of(&[
        "extract-summary",
        "--json",
        fixture("codex/summaries").to_str().unwrap(),
        fixture("claude/summaries/template_eras.jsonl").to_str().unwrap(),
    ]);
    let recs = records(&out);
    let files: Vec<String> = recs
        .iter()
        .filter(|r| r["kind"] == "summary")
        .map(|r| r["file"].as_str().unwrap().rsplit('/').next().unwrap().to_string())
        .collect();
    assert_eq!(
        files,
        [
            "compaction_summary_item.jsonl",
            "legacy_raw_2025_09.jsonl",
            "local_empty_message.jsonl",
            "local_empty_message.jsonl",
            "remote_empty_message.jsonl",
            "remote_redacted_message.jsonl",
            "template_eras.jsonl",
            "template_eras.jsonl",
            "template_eras.jsonl"
        ]
    );
    let total = recs.last().unwrap();
    assert_eq!(total["kind"], "total");
    assert_eq!(
        (
            total["files"].as_u64(),
            total["summaries"].as_u64(),
            total["with_current"].as_u64()
        ),
        (Some(6), Some(9), Some(6))
    );
}

#[test]
fn current_exits_1_when_a_file_has_none() {
    let with = fixture("claude/summaries/template_eras.jsonl");
    let without = fixture("claude/tips_differ.jsonl");
    let out = cctool()
        .args(["extract-summary", "--current", with.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = cctool()
        .args([
            "extract-summary",
            "--current",
            with.to_str().unwrap(),
            without.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn text_output_has_a_header_per_summary() {
    let out = stdout_of(&[
        "-q",
        "extract-summary",
        "--strip-template",
        fixture("claude/summaries/template_eras.jsonl").to_str().unwrap(),
    ]);
    assert!(out.contains("== "));
    assert!(out.contains("template_eras.jsonl · #2 · 2026-01-20T08:03:00.000Z · line 9 · auto · 160001 tokens before · local · current\n1. Primary Request and Intent: port the build to bazel\n2. Current Work: CI is green\n\n"));
    let remote = stdout_of(&[
        "-q",
        "extract-summary",
        fixture("codex/summaries/remote_empty_message.jsonl").to_str().unwrap(),
    ]);
    assert!(remote.contains("[the summary is encrypted by the server (100 bytes) and cannot be read offline]\nkept in plaintext (3 messages):\n  user: migrate the db\n"), "{remote}");
}

#[test]
fn default_stores_and_non_session_files() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join(".claude/projects/-home-dev-app");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::copy(
        fixture("claude/summaries/template_eras.jsonl"),
        proj.join("5e551000-0000-4000-8000-0000000000b2.jsonl"),
    )
    .unwrap();
    std::fs::write(proj.join("agent-x.meta.json"), r#"{"agentType":"general-purpose"}"#).unwrap();
    let out = cctool()
        .env("HOME", home.path())
        .args(["extract-summary", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "a sidecar found while walking is skipped, not an error"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A user of Claude Code alone is not told about the Codex store they do not have.
    assert!(!stderr.contains("Codex"), "{stderr}");
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(recs.iter().filter(|r| r["kind"] == "summary").count(), 3);
    assert!(recs.iter().any(|r| r["code"] == "not-a-session"));
    // Named explicitly, the same sidecar is an input error.
    let out = cctool()
        .args(["extract-summary", proj.join("agent-x.meta.json").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn current_from_the_tail_agrees_with_the_full_load_everywhere() {
    // extract-summary decides `current` from the lines after the last boundary when that is
    // provably enough; rebuild-chain always loads the whole file. They must agree.
    let mut files = shared_files(CLAUDE_SAMPLE_DIRS).unwrap_or_default();
    let samples = !files.is_empty();
    for dir in ["claude", "claude/summaries", "claude/api", "claude/chain"] {
        for e in std::fs::read_dir(fixture(dir)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    let mut checked = 0;
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")) {
        let s = summaries(&[f.to_str().unwrap()]);
        let Some(cur) = s.iter().find(|r| r["current"] == true) else {
            continue;
        };
        let chain = records(&stdout_of(&["-q", "rebuild-chain", f.to_str().unwrap()]));
        let reached = chain.first().is_some_and(|r| r["subtype"] == "compact_boundary");
        if reached {
            assert_eq!(chain[0]["uuid"], cur["boundary_uuid"], "{}", f.display());
            assert!(
                !cur["warning"].as_str().unwrap_or("").contains("does not reach"),
                "{}",
                f.display()
            );
        } else {
            assert!(
                cur["warning"].as_str().unwrap().contains("does not reach"),
                "{}",
                f.display()
            );
        }
        checked += 1;
    }
    // The fixtures with a compaction, and as many samples again where they are present: the
    // check cannot pass by finding no current summary anywhere.
    let least = 11 + if samples { 6 } else { 0 };
    assert!(checked >= least, "checked {checked}");
}

#[test]
fn text_that_only_mentions_the_markers_is_not_a_summary() {
    // A tool result quoting "compact_boundary" or "isCompactSummary" must not count.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let body = std::fs::read_to_string(fixture("claude/tips_differ.jsonl"))
        .unwrap()
        .replace(
            "go on",
            r#"grep for \"subtype\":\"compact_boundary\" and isCompactSummary"#,
        );
    std::fs::write(&path, body).unwrap();
    assert!(summaries(&[path.to_str().unwrap()]).is_empty());
}
