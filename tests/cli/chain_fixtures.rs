//! The project's own fixtures for every format era and loader rule: `fixtures/claude/chain/`
//! and `fixtures/codex/chain/`. Each `NAME.jsonl` was written for this project; `NAME.sent.json`
//! is what the real client sent after resuming it (Claude Code 2.1.332: the request's
//! `messages`; Codex 0.171: its `input`), recorded with `scripts/realclient/` and normalised as
//! its README says. The tests below hold cctool to those requests, to the chain each loader
//! walks, and to what every command reports on these files. `docs/` names the fixture that
//! shows each rule.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::extract_summary::{summaries, summary_text_at};
use crate::util::{cctool, chain, codex_items, fixture, fixture_files, records, split, stdout_of};

fn claude(name: &str) -> PathBuf {
    fixture(&format!("claude/chain/{name}.jsonl"))
}

/// A rollout fixture: `.jsonl`, or `.json` for the 2025 TypeScript CLI's single document.
fn codex(name: &str) -> PathBuf {
    let lines = fixture(&format!("codex/chain/{name}.jsonl"));
    if lines.exists() {
        lines
    } else {
        fixture(&format!("codex/chain/{name}.json"))
    }
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The recorded request of a fixture.
fn sent(path: &Path) -> Vec<Value> {
    let file = path.with_extension("sent.json");
    let v: Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))).unwrap();
    v.as_array().unwrap().clone()
}

/// Every session fixture of a folder (not the recorded requests), by name, so that a new one
/// cannot go untested.
fn names(dir: &str) -> Vec<String> {
    fixture_files(&[dir])
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|f| !f.ends_with(".sent.json"))
        .map(|f| f.rsplit_once('.').unwrap().0.to_string())
        .collect()
}

/// (fixture, chain with 2.1.332, chain with 2.1.88), by the last two digits of the uuids.
const CLAUDE_CHAINS: &[(&str, &str, &str)] = &[
    // The boundary is the root; the stop-hook row under the last reply is appended (B3).
    (
        "auto_compaction_2_0_76",
        "08 09 10 11 12 13 14 15 16 17 18 19",
        "08 09 10 11 12 13 14 15 16 17 18",
    ),
    // Progress rows 16-17 bridged: the prompt 18 hangs under the command output 15.
    (
        "manual_compaction_progress_2_1_14",
        "11 12 13 14 15 18 19",
        "11 12 13 14 15 18 19",
    ),
    ("three_compactions_2_1_7", "13 14 15 16 17", "13 14 15 16 17"),
    (
        "microcompact_then_compact_2_1_20",
        "12 13 15 16 17 18",
        "12 13 15 16 17 18",
    ),
    (
        "preserved_suffix_anchor_summary",
        "07 08 05 06 09 10",
        "07 08 05 06 09 10",
    ),
    (
        "preserved_prefix_anchor_boundary",
        "05 01 02 06 07 08",
        "05 01 02 06 07 08",
    ),
    ("stale_segment_then_plain_boundary", "09 10 11 12", "09 10 11 12"),
    ("legacy_progress_bridge", "01 02 05 06 07", "01 02 05 06 07"),
    // 2.1.88 removes the rows a snip names; the public 2.1.332 sends them.
    ("snip_removal", "01 02 03 04 05 06 07", "01 02 05 06 07"),
    ("dangling_parent_write_gap", "08 09 10", "08 09 10"),
    ("concatenated_lines", "01 02 03 04 06 07", "01 02 03 04 06 07"),
    ("legacy_summary_titles", "04 05 06 07", "04 05 06 07"),
    ("inline_sidechains_1_0_98", "02 03 06 07", "02 03 06 07"),
    ("b1_gap_limits", "03 04 05 06 07 08 09", "07 08 09"),
    ("b1_bridge_target", "01 02 03 09 10", "09 10"),
    ("b1_self_parent", "01 02 03 04", "03 04"),
    (
        "b2_parallel_file_order",
        "01 02 03 04 05 06 07 08",
        "01 02 03 04 07 05 06 08",
    ),
    ("b3_trailing_local_command", "01 02 03 04", "01 02"),
    ("b4_last_row_not_newest_leaf", "01 02 03 04", "01 05"),
    ("b4_last_row_system_above_leaf", "01 02 04", "01 02 03"),
    ("b4_last_row_newer_descendant", "01 02 04", "01 03"),
];

/// When the requests of these fixtures were recorded: the model a resume uses depends on the
/// date (docs/claude-code-model.md), so the view is asked for that day.
const RECORDED_AT: &str = "2026-12-01T12:00:00Z";
/// The harness's base URL is a loopback one: the client then drops other models' thinking.
const HARNESS_URL: &str = "http://127.0.0.1:9";

/// `--api-view` of `path` under the conditions its request was recorded in.
fn recorded_view(path: &Path) -> Vec<Value> {
    records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        "--prompt",
        "say ok",
        "--as-of",
        RECORDED_AT,
        "--base-url",
        HARNESS_URL,
        p(path),
    ]))
}

#[test]
fn claude_code_chains_for_both_loaders_and_the_recorded_requests() {
    let mut listed: Vec<String> = CLAUDE_CHAINS.iter().map(|c| c.0.to_string()).collect();
    listed.sort();
    assert_eq!(listed, names("claude/chain"), "every fixture has its chains here");
    for (name, current, old) in CLAUDE_CHAINS {
        let path = claude(name);
        assert_eq!(chain(&path, &[]), split(current), "{name} (2.1.332)");
        assert_eq!(chain(&path, &["--loader", "2.1.88"]), split(old), "{name} (2.1.88)");
        let view = recorded_view(&path);
        assert_eq!(view, sent(&path), "{name}: the request Claude Code 2.1.332 sent");
    }
}

#[test]
fn the_older_loader_fixtures_match_the_recorded_requests_too() {
    // fixtures/claude/*.jsonl: duplicates, parallel recovery, cycles, tips and sidechains, and
    // a Codex rollback across a manual compaction turn (their chains are asserted in
    // rebuild_chain.rs).
    let files: Vec<PathBuf> = fixture_files(&["claude"])
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(files.len(), 6);
    for path in files {
        let view = recorded_view(&path);
        assert_eq!(view, sent(&path), "{}", path.display());
    }
    let rollback = fixture("codex/rollback_across_replacement_history.jsonl");
    let history = records(&stdout_of(&["-q", "rebuild-chain", p(&rollback)]));
    assert_eq!(history, sent(&rollback));
}

const TAIL: &[&str] = &["function_call", "function_call_output"];

#[test]
fn codex_history_of_every_era_and_the_recorded_requests() {
    let after = |prompt: &str, reply: &str| -> Vec<String> {
        let mut v = vec![format!("user:{prompt}")];
        v.extend(TAIL.iter().map(|s| s.to_string()));
        v.extend([
            format!("assistant:{reply}"),
            "user:Commit it.".into(),
            "assistant:Committed.".into(),
        ]);
        v
    };
    let cases: Vec<(&str, Vec<String>)> = vec![
        // The replacement history (user messages, then the summary), then what follows.
        ("local_compaction_2026", {
            let mut v = vec![
                "user:Add retries to the HTTP client.".into(),
                "user:Cap the backoff at 30 seconds.".into(),
                "user:<summary>".into(),
            ];
            v.extend(after(
                "Write the tests for the retry path.",
                "tests/retry.rs covers 3 failures then success.",
            ));
            v
        }),
        // No replacement history: rebuilt from the user messages before it and the summary.
        ("legacy_compaction_2025_12", {
            let mut v = vec![
                "user:Split the parser into lexer and parser modules.".into(),
                "user:Keep the public API unchanged.".into(),
                "user:<summary>".into(),
            ];
            v.extend(after(
                "Now add error recovery.",
                "The parser resumes at the next statement after an error.",
            ));
            v
        }),
        // The messages the server kept, the encrypted compaction item, then what follows.
        ("remote_compaction", {
            let mut v = vec![
                "user:Port the build to CMake presets.".into(),
                "assistant:CMakePresets.json added with debug and release.".into(),
                "user:Also make CI use the presets.".into(),
                "compaction".into(),
            ];
            v.extend(after("What is left?", "Only the packaging step."));
            v
        }),
        // The rolled-back turn goes whole, its compaction with it.
        (
            "rollback_over_compaction",
            vec![
                "user:first: scaffold the crate".into(),
                "assistant:Crate scaffolded.".into(),
                "user:second: add the config loader".into(),
                "assistant:Config loader added.".into(),
            ],
        ),
        // Ghost snapshots are dropped, inside the replacement history too; an agent message
        // the server kept stays.
        ("ghost_snapshots_and_windows", {
            let mut v = vec![
                "user:Bump the MSRV to 1.85.".into(),
                "agent_message".into(),
                "user:And update the CI matrix.".into(),
                "compaction".into(),
            ];
            v.extend(after("Tag the release.", "Tagged v0.9.0."));
            v
        }),
        (
            "paginated_2026_08",
            vec![
                "user:rename the binary to apptool".into(),
                "assistant:Renamed in Cargo.toml and the docs.".into(),
            ],
        ),
        // Current Codex no longer reads the 2025 formats, bare lines or the TypeScript CLI's
        // document (it says the rollout is empty, so there is no recorded request); cctool
        // replays them forward as the Codex of their time did, one item per line.
        (
            "pre_envelope_2025_08",
            vec![
                "user:how many tests are there?".into(),
                "reasoning".into(),
                "function_call".into(),
                "function_call_output".into(),
                "assistant:45 tests: 14 unit tests and 31 CLI tests.".into(),
            ],
        ),
        (
            "typescript_document_2025_05",
            vec![
                "user:what does main.py do?".into(),
                "function_call".into(),
                "function_call_output".into(),
                "assistant:It prints hello.".into(),
            ],
        ),
    ];
    let mut listed: Vec<String> = cases.iter().map(|c| c.0.to_string()).collect();
    listed.sort();
    assert_eq!(listed, names("codex/chain"), "every fixture has its history here");
    for (name, want) in &cases {
        let path = codex(name);
        assert_eq!(&codex_items(&path, &[]), want, "{name}");
        if name.ends_with("_2025_08") || name.ends_with("_2025_05") {
            assert!(!path.with_extension("sent.json").exists());
            continue;
        }
        let history = records(&stdout_of(&["-q", "rebuild-chain", p(&path)]));
        assert_eq!(history, sent(&path), "{name}: the history Codex 0.171 sent");
    }
    // The forward replay of Codex before 2026-02-27 applies the compaction, then cuts at the
    // last user turn; it differs here only, and says so.
    let rollback = codex("rollback_over_compaction");
    assert_eq!(
        codex_items(&rollback, &["--replay", "legacy"]),
        ["user:first: scaffold the crate", "user:second: add the config loader"]
    );
    let out = cctool().args(["rebuild-chain", p(&rollback)]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("[replay-differs]"));
    // A line still being written is reported, not fatal.
    let out = cctool()
        .args(["rebuild-chain", p(&codex("paginated_2026_08"))])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(":9: warning: last line is incomplete"));
    for name in names("codex/chain").iter().filter(|n| *n != "rollback_over_compaction") {
        assert_eq!(
            codex_items(&codex(name), &["--replay", "legacy"]),
            codex_items(&codex(name), &[]),
            "{name}"
        );
    }
}

// ---- rebuild-chain ----------------------------------------------------------------------------

#[test]
fn output_is_the_original_records_byte_for_byte() {
    for name in [
        "auto_compaction_2_0_76",
        "manual_compaction_progress_2_1_14",
        "concatenated_lines",
    ] {
        let path = claude(name);
        let file = std::fs::read_to_string(&path).unwrap();
        let lines: std::collections::HashSet<&str> = file.lines().collect();
        let out = stdout_of(&["-q", "rebuild-chain", p(&path)]);
        for l in out.lines() {
            assert!(lines.contains(l), "{name}: not a line of the file: {l}");
        }
    }
}

#[test]
fn a_resume_starts_at_the_last_boundary_with_its_summary() {
    for (name, boundary_line) in [
        ("auto_compaction_2_0_76", 8),
        ("manual_compaction_progress_2_1_14", 11),
        ("three_compactions_2_1_7", 13),
        ("microcompact_then_compact_2_1_20", 12),
    ] {
        let path = claude(name);
        let file = std::fs::read_to_string(&path).unwrap();
        let boundary: Value = serde_json::from_str(file.lines().nth(boundary_line - 1).unwrap()).unwrap();
        assert_eq!(boundary["subtype"], "compact_boundary", "{name}");
        let recs = records(&stdout_of(&["-q", "rebuild-chain", p(&path)]));
        assert_eq!(recs[0], boundary, "{name}");
        assert_eq!(recs[1]["isCompactSummary"], true, "{name}");
        assert!(
            recs.iter().all(|r| r["type"] != "progress"),
            "{name}: progress rows are bridged"
        );
    }
}

#[test]
fn full_follows_the_compaction_back_and_marks_it() {
    let path = claude("auto_compaction_2_0_76");
    let recs = records(&stdout_of(&["rebuild-chain", "--full", "--json", p(&path)]));
    let summary = recs.last().unwrap();
    assert_eq!(summary["earlier_parts"], json!([0]));
    let msgs: Vec<String> = recs
        .iter()
        .filter(|r| r.get("kind").is_none())
        .map(|r| r["uuid"].as_str().unwrap()[34..].to_string())
        .collect();
    // The earlier part ends at the boundary's logicalParentUuid (07), just before the boundary.
    assert_eq!(msgs, split("01 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19"));
    let text = stdout_of(&["-q", "rebuild-chain", "--full", "--format", "text", p(&path)]);
    assert!(text.contains("earlier history, replaced by a compaction"));
    assert!(text.contains("what a resume loads"));
}

#[test]
fn preserved_segments_relink_and_a_stale_one_prunes() {
    let out = stdout_of(&[
        "rebuild-chain",
        "--json",
        p(&claude("stale_segment_then_plain_boundary")),
    ]);
    let recs = records(&out);
    let stale = recs.iter().find(|r| r["code"] == "stale-preserved-segment").unwrap();
    assert_eq!(stale["line"], 5);
    let summary = recs.last().unwrap();
    assert_eq!(
        (summary["end"].as_str(), summary["pruned"].as_u64()),
        (Some("boundary"), Some(8))
    );
    // Live segments: everything before the boundary that is not preserved is pruned.
    for (name, pruned) in [
        ("preserved_suffix_anchor_summary", 4),
        ("preserved_prefix_anchor_boundary", 2),
    ] {
        let recs = records(&stdout_of(&["rebuild-chain", "--json", p(&claude(name))]));
        let summary = recs.last().unwrap();
        assert_eq!(
            (summary["end"].as_str(), summary["pruned"].as_u64()),
            (Some("boundary"), Some(pruned)),
            "{name}"
        );
        assert!(recs.iter().all(|r| r["code"] != "stale-preserved-segment"), "{name}");
    }
}

#[test]
fn gaps_are_bridged_up_to_5_seconds_and_reported() {
    let recs = records(&stdout_of(&["rebuild-chain", "--json", p(&claude("b1_gap_limits"))]));
    let bridged: Vec<(u64, &str)> = recs
        .iter()
        .filter(|r| r["code"] == "gap-bridged")
        .map(|r| (r["line"].as_u64().unwrap(), r["message"].as_str().unwrap()))
        .collect();
    assert_eq!(bridged.len(), 2);
    assert_eq!(bridged[0].0, 7);
    assert!(bridged[0].1.contains("(5000 ms older)"), "{}", bridged[0].1);
    assert_eq!(bridged[1].0, 5);
    let summary = recs.last().unwrap();
    assert_eq!(summary["bridged"], 2);
    assert_eq!(summary["end"], "dangling:0000dead-0000-4000-8000-000000000003");
    // The file ends with a prompt: without --prompt that prompt is the last message, with no
    // "No response requested." before it.
    let view = records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        p(&claude("b1_gap_limits")),
    ]));
    assert_eq!(
        view.last().unwrap(),
        &json!({"role": "user", "content": "then export it"})
    );
    let with_prompt = sent(&claude("b1_gap_limits"));
    assert_eq!(
        with_prompt[with_prompt.len() - 2]["content"][0]["text"],
        "No response requested."
    );
}

#[test]
fn a_write_gap_longer_than_5_seconds_ends_the_walk() {
    let path = claude("dangling_parent_write_gap");
    for loader in ["2.1.88", "2.1.332"] {
        let recs = records(&stdout_of(&["rebuild-chain", "--json", "--loader", loader, p(&path)]));
        assert_eq!(
            recs.last().unwrap()["end"],
            "dangling:627a1e00-0000-4000-8000-00000000dead"
        );
        let d = recs.iter().find(|r| r["code"] == "dangling-parent").unwrap();
        assert_eq!(
            d["line"], 8,
            "where the walk notices it: the row bridged to the missing uuid"
        );
        assert_eq!(recs[0]["subtype"], "stop_hook_summary");
    }
}

#[test]
fn two_records_on_one_line_are_both_lost_and_the_later_copy_is_used() {
    let path = claude("concatenated_lines");
    let out = cctool().args(["rebuild-chain", p(&path)]).output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(":4: error: two records on one line"), "{stderr}");
    let file = std::fs::read_to_string(&path).unwrap();
    let copy: Value = serde_json::from_str(file.lines().nth(4).unwrap()).unwrap();
    let recs = records(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(recs[3], copy);
    assert!(recs.iter().all(|r| r["type"] != "summary"));
}

#[test]
fn titles_and_inline_sidechains_are_not_resumed() {
    for name in ["legacy_summary_titles", "inline_sidechains_1_0_98"] {
        let recs = records(&stdout_of(&["-q", "rebuild-chain", p(&claude(name))]));
        assert!(recs[0]["parentUuid"].is_null(), "{name}");
        assert!(
            recs.iter().all(|r| r["type"] != "summary" && r["isSidechain"] != true),
            "{name}"
        );
    }
    // The sub-agent call goes out under the tool's current name.
    let sent = sent(&claude("inline_sidechains_1_0_98"));
    assert_eq!(sent[1]["content"][0]["name"], "Agent");
}

#[test]
fn the_api_view_record_counts_the_loader_rules() {
    let out = stdout_of(&[
        "rebuild-chain",
        "--api-view",
        "--prompt",
        "say ok",
        "--json",
        p(&claude("b2_parallel_file_order")),
    ]);
    let last = records(&out).pop().unwrap();
    assert_eq!(last["kind"], "api_view");
    let b2 = last["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "B2")
        .unwrap();
    assert_eq!(b2["count"], 3, "A2b, R1 and R2b recovered in file order");
}

// ---- extract-summary --------------------------------------------------------------------------

#[test]
fn an_auto_compaction_is_reported_field_by_field() {
    let path = claude("auto_compaction_2_0_76");
    let mut s = summaries(&[p(&path)]);
    assert_eq!(s.len(), 1);
    let r = s.pop().unwrap();
    assert_eq!(r["summary"], summary_text_at(&path, 9));
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "kind",
            "file",
            "format",
            "session_id",
            "index",
            "current",
            "line",
            "timestamp",
            "trigger",
            "pre_tokens",
            "origin",
            "encrypted",
            "encrypted_len",
            "summary",
            "retained_messages",
            "boundary_uuid",
            "event",
            "summary_line",
            "summary_source",
            "logical_parent_resolves",
            "metadata",
            "warning"
        ]
    );
    let mut r = r;
    r.as_object_mut().unwrap().remove("summary");
    assert_eq!(
        r,
        json!({"kind": "summary", "file": p(&path), "format": "claude-code",
            "session_id": "5e551000-0000-4000-8000-000000001001", "index": 0, "current": true, "line": 8,
            "timestamp": "2026-02-02T10:05:00.000Z", "trigger": "auto", "pre_tokens": 151234, "origin": "local",
            "encrypted": false, "encrypted_len": null, "retained_messages": null,
            "boundary_uuid": "00000000-0000-4000-8000-000000000008", "event": "compact_boundary", "summary_line": 9,
            "summary_source": "parent", "logical_parent_resolves": true, "metadata": {}, "warning": null})
    );
}

#[test]
fn a_manual_compaction_and_three_in_one_file() {
    let path = claude("manual_compaction_progress_2_1_14");
    let s = summaries(&[p(&path)]);
    assert_eq!(s.len(), 1);
    assert_eq!(
        (
            s[0]["line"].as_u64(),
            s[0]["trigger"].as_str(),
            s[0]["pre_tokens"].as_u64()
        ),
        (Some(11), Some("manual"), Some(98765))
    );
    assert_eq!(s[0]["summary"], summary_text_at(&path, 12));
    assert_eq!(s[0]["current"], true);

    let path = claude("three_compactions_2_1_7");
    let s = summaries(&[p(&path)]);
    let lines: Vec<u64> = s.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [3, 8, 13]);
    let current: Vec<bool> = s.iter().map(|r| r["current"].as_bool().unwrap()).collect();
    assert_eq!(current, [false, false, true]);
    for (r, l) in s.iter().zip([4, 9, 14]) {
        assert_eq!(r["summary"], summary_text_at(&path, l));
    }
    let only = summaries(&["--current", p(&path)]);
    assert_eq!(only.len(), 1);
    assert_eq!(only[0]["line"], 13);
}

#[test]
fn microcompactions_are_events_not_summaries() {
    let path = claude("microcompact_then_compact_2_1_20");
    let s = summaries(&[p(&path)]);
    assert_eq!(
        s.iter().map(|r| r["line"].as_u64().unwrap()).collect::<Vec<_>>(),
        [5, 12]
    );
    assert_eq!(s[1]["current"], true);
    assert_eq!(
        s[0]["logical_parent_resolves"], false,
        "its logical parent was never written"
    );
    assert_eq!(s[1]["logical_parent_resolves"], true);
    let all = records(&stdout_of(&["extract-summary", "--json", "--all-events", p(&path)]));
    let events: Vec<&Value> = all.iter().filter(|r| r["kind"] == "event").collect();
    assert_eq!(events.len(), 2);
    assert_eq!(
        (events[0]["event"].as_str(), events[0]["line"].as_u64()),
        (Some("microcompact_boundary"), Some(4))
    );
    assert_eq!(
        events[0]["metadata"],
        json!({"trigger": "auto", "preTokens": 120400, "tokensSaved": 38112, "compactedToolIds": ["toolu_21"],
            "clearedAttachmentUUIDs": []})
    );
}

#[test]
fn files_without_a_compaction_have_no_summary() {
    for name in [
        "legacy_summary_titles",
        "inline_sidechains_1_0_98",
        "concatenated_lines",
        "dangling_parent_write_gap",
    ] {
        assert!(summaries(&[p(&claude(name))]).is_empty(), "{name}");
    }
}

/// The summary template of each era, stripped: (fixture, index, body).
const STRIPPED: &[(&str, usize, &str)] = &[
    // ≤ 2.1.0: "…summarized below:", Analysis, Summary, "Please continue …".
    (
        "auto_compaction_2_0_76",
        0,
        "1. Primary Request and Intent: add a --dry-run flag to the sync command.\n2. Files and Code Sections: src/sync.rs (sync, SyncArgs).\n3. Next Step: add the flag to SyncArgs and skip upload when set.",
    ),
    // 2.1.x, manual: "…covers the earlier portion…", Analysis, Summary, the transcript trailer.
    (
        "manual_compaction_progress_2_1_14",
        0,
        "1. Primary Request and Intent: rename Config to Settings.\n2. Pending Tasks: none.",
    ),
    // 2.1.x, auto: the transcript trailer, then "Please continue …".
    (
        "three_compactions_2_1_7",
        2,
        "1. Primary Request and Intent: make the importer faster.\n2. Current Work: parsing streamed, buffers pooled, index parallel.",
    ),
    // 2.1.88: no Analysis; "Recent messages are preserved verbatim."
    (
        "preserved_suffix_anchor_summary",
        0,
        "1. Primary Request and Intent: move the tests to nextest.\n2. Current Work: the ci profile.",
    ),
    // 2.1.88, a partial compaction: no trailer at all.
    (
        "preserved_prefix_anchor_boundary",
        0,
        "1. Primary Request and Intent: sign the release artifacts.\n2. Current Work: cosign in the workflow.",
    ),
    // 2.1.88, auto: "Continue the conversation from where it left off …".
    (
        "stale_segment_then_plain_boundary",
        1,
        "1. Primary Request and Intent: tracing exported over OTLP.",
    ),
];

#[test]
fn the_template_of_every_era_is_stripped_to_the_body() {
    for (name, index, body) in STRIPPED {
        let s = summaries(&["--strip-template", p(&claude(name))]);
        assert_eq!(s[*index]["summary"], *body, "{name} #{index}");
        let raw = summaries(&[p(&claude(name))]);
        let raw = raw[*index]["summary"].as_str().unwrap();
        assert!(
            raw.starts_with("This session is being continued") && raw.contains(body),
            "{name}"
        );
    }
}

#[test]
fn codex_compactions_local_legacy_remote_and_rolled_back() {
    let local = summaries(&[p(&codex("local_compaction_2026"))]);
    assert_eq!(local.len(), 1);
    assert_eq!(
        (local[0]["origin"].as_str(), local[0]["line"].as_u64()),
        (Some("local"), Some(23))
    );
    assert_eq!(
        local[0]["summary"],
        "- Retries with backoff in src/http.rs (send)\n- Backoff capped at 30 s\n- Next: tests for the retry path"
    );
    assert_eq!(local[0]["summary_source"], "message");
    assert_eq!(local[0]["retained_messages"], Value::Null);

    let legacy = summaries(&[p(&codex("legacy_compaction_2025_12"))]);
    assert_eq!(
        (legacy[0]["origin"].as_str(), legacy[0]["current"].as_bool()),
        (Some("legacy"), Some(true))
    );
    assert_eq!(legacy[0]["summary"], "Lexer and parser split; API unchanged.");

    let remote = summaries(&[p(&codex("remote_compaction"))]);
    let r = &remote[0];
    assert_eq!(
        (r["origin"].as_str(), r["encrypted"].as_bool()),
        (Some("remote"), Some(true))
    );
    assert_eq!(r["encrypted_len"], 64);
    assert_eq!(r["summary"], Value::Null);
    assert_eq!(r["boundary_uuid"], Value::Null);
    assert_eq!(
        r["retained_messages"],
        json!([{"role": "user", "text": "Port the build to CMake presets."},
            {"role": "assistant", "text": "CMakePresets.json added with debug and release."},
            {"role": "user", "text": "Also make CI use the presets."}])
    );
    assert_eq!(
        r["metadata"],
        json!({"window_number": 1, "window_id": "019c0000-0000-7000-8000-00000000a001",
            "first_window_id": "019c0000-0000-7000-8000-00000000a000",
            "previous_window_id": "019c0000-0000-7000-8000-00000000a000"})
    );

    let path = codex("rollback_over_compaction");
    let s = summaries(&[p(&path)]);
    assert_eq!((s.len(), s[0]["current"].as_bool()), (1, Some(false)));
    let out = cctool()
        .args(["extract-summary", "--current", p(&path)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "no summary reaches the next resume");

    let ghosts = summaries(&[p(&codex("ghost_snapshots_and_windows"))]);
    assert_eq!(ghosts.len(), 1);
    assert_eq!(ghosts[0]["metadata"]["window_number"], 2);
    assert_eq!(ghosts[0]["encrypted_len"], 96);
    assert_eq!(
        ghosts[0]["session_id"], "019c8000-0000-7000-8000-000000000c07",
        "the first header is the thread's"
    );
}

// ---- scan and doctor --------------------------------------------------------------------------

fn scan(path: &Path) -> Value {
    records(&stdout_of(&["scan", "--json", p(path)])).remove(0)
}

#[test]
fn scan_counts_of_the_compacted_transcripts() {
    let path = claude("auto_compaction_2_0_76");
    let mut auto = scan(&path);
    // resume_tokens is the size of the api-view request.
    let view = records(&stdout_of(&["-q", "rebuild-chain", "--api-view", p(&path)]));
    assert_eq!(
        auto["resume_tokens"],
        serde_json::to_vec(&view).unwrap().len().div_ceil(4)
    );
    let o = auto.as_object_mut().unwrap();
    o.retain(|k, _| {
        [
            "format",
            "bytes",
            "lines",
            "bad_lines",
            "chain_messages",
            "chain_end",
            "compactions",
            "last_compaction_trigger",
            "last_compaction_pre_tokens",
            "compaction_origins",
            "dangling_parents",
            "duplicate_uuids",
            "agent_versions",
            "first_timestamp",
            "last_timestamp",
        ]
        .contains(&k.as_str())
    });
    assert_eq!(
        auto,
        json!({"format": "claude-code", "bytes": std::fs::metadata(&path).unwrap().len(), "lines": 19,
            "bad_lines": 0, "chain_messages": 12, "chain_end": "boundary", "compactions": 1,
            "last_compaction_trigger": "auto", "last_compaction_pre_tokens": 151234,
            "compaction_origins": {"local": 1}, "dangling_parents": 1, "duplicate_uuids": 0,
            "agent_versions": ["2.0.76"], "first_timestamp": "2026-02-02T10:00:00.000Z",
            "last_timestamp": "2026-02-02T10:06:11.300Z"})
    );
    let manual = scan(&claude("manual_compaction_progress_2_1_14"));
    assert_eq!(manual["last_compaction_trigger"], "manual");
    assert_eq!(manual["chain_messages"], 7);
    assert_eq!(
        manual["last_timestamp"], "2026-02-03T09:12:30.001Z",
        "a queued prompt written last counts as activity"
    );
    let micro = scan(&claude("microcompact_then_compact_2_1_20"));
    assert_eq!(micro["compactions"], 2, "microcompactions do not count");
    assert_eq!(scan(&claude("three_compactions_2_1_7"))["compactions"], 3);
    let glued = scan(&claude("concatenated_lines"));
    assert_eq!(glued["bad_lines"], 1);
    assert_eq!(glued["agent_versions"], json!(["2.1.7", "2.1.12"]));
    assert_eq!(
        scan(&claude("dangling_parent_write_gap"))["chain_end"],
        "dangling:627a1e00-0000-4000-8000-00000000dead"
    );
}

#[test]
fn scan_of_the_rollouts_and_the_fixture_folders() {
    let remote = scan(&codex("ghost_snapshots_and_windows"));
    assert_eq!(remote["format"], "codex");
    assert_eq!(remote["compaction_origins"], json!({"remote": 1}));
    assert_eq!(remote["chain_messages"], 10);
    assert_eq!(remote["leaves"], Value::Null);
    let recs = records(&stdout_of(&[
        "scan",
        "--json",
        p(&fixture("claude/chain")),
        p(&fixture("codex/chain")),
    ]));
    let total = recs.last().unwrap();
    let sessions = names("claude/chain").len() + names("codex/chain").len();
    let captures = fixture_files(&["claude/chain", "codex/chain"])
        .iter()
        .filter(|f| f.to_string_lossy().ends_with(".sent.json"))
        .count();
    assert_eq!(total["files"], sessions);
    assert_eq!(total["skipped"], captures, "the recorded requests are not sessions");
    assert_eq!(
        total["by_format"],
        json!({"claude-code": names("claude/chain").len(), "codex": names("codex/chain").len()})
    );
}

fn findings(path: &Path) -> (Vec<Value>, Option<i32>) {
    let out = cctool().args(["doctor", "--json", p(path)]).output().unwrap();
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    (
        recs.into_iter().filter(|r| r["kind"] == "finding").collect(),
        out.status.code(),
    )
}

#[test]
fn doctor_names_the_glued_line_and_the_write_gap() {
    let (f, status) = findings(&claude("concatenated_lines"));
    assert_eq!((f.len(), status), (1, Some(1)));
    assert_eq!(
        (f[0]["code"].as_str(), f[0]["line"].as_u64()),
        (Some("two-records-on-one-line"), Some(4))
    );
    // The progress row whose parent was never written: an error, as a resume loses what came
    // before it.
    let (f, status) = findings(&claude("dangling_parent_write_gap"));
    assert_eq!((f.len(), status), (1, Some(1)));
    assert_eq!(
        (f[0]["code"].as_str(), f[0]["line"].as_u64()),
        (Some("dangling-parent"), Some(7))
    );
    assert_eq!(f[0]["severity"], "error");
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .contains("627a1e00-0000-4000-8000-00000000dead")
    );
}

// ---- migrate ----------------------------------------------------------------------------------

#[test]
fn codex_remote_compaction_imports_as_an_encrypted_summary() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("rollout.jsonl");
    crate::util::write_aged(&input, &std::fs::read(codex("remote_compaction")).unwrap());
    cctool().args(["migrate", p(&input)]).assert().success();
    let v5: Value = serde_json::from_slice(&std::fs::read(dir.path().join("rollout.v5.json")).unwrap()).unwrap();
    let s: Vec<Value> = v5["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["items"].as_array().unwrap().clone())
        .filter(|i| i["type"] == "summary")
        .collect();
    assert_eq!(s.len(), 1);
    assert_eq!((s[0]["encrypted"].as_bool(), &s[0]["text"]), (Some(true), &Value::Null));
}
