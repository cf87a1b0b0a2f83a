//! `cctool rebuild-chain`: every expected chain of the shared samples, and the project's own
//! fixtures for what the samples do not cover. Expectations marked "real client" were
//! checked with `shared/tools/realclient` (Claude Code 2.1.332, Codex 0.171).

use crate::util::{cctool, chain, fixture, records, sample, split, stdout_of};

const REAL_AUTO: &str = "claude-code/real/entire_a6e4c2a0fbd1_auto-compact_v2.0.76.jsonl";
const REAL_MANUAL: &str = "claude-code/real/entire_4b7d5121b42a_manual-compact_progress_v2.1.14.jsonl";

fn full_uuids(path: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["-q", "rebuild-chain"];
    args.extend_from_slice(extra);
    let p = path.to_str().unwrap();
    args.push(p);
    records(&stdout_of(&args))
        .iter()
        .map(|r| r["uuid"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn real_auto_compaction_v2_0_76() {
    // SOURCES.md: leaf ac88b9af-…, chain length 24, root = boundary 2698f93f-… (line 31).
    for loader in ["2.1.88", "2.1.332"] {
        let u = full_uuids(&sample(REAL_AUTO), &["--loader", loader]);
        assert_eq!(u.len(), 24, "loader {loader}");
        assert_eq!(u[0], "2698f93f-93a5-40da-819d-287f5b38e7c1");
        assert_eq!(u[23], "ac88b9af-de83-4401-84a3-d8063b6c64f8");
    }
}

#[test]
fn real_manual_compaction_with_progress_v2_1_14() {
    // SOURCES.md: leaf 8e40910a-…, chain length 107, root = boundary 28e7ab65-…; the
    // SessionStart hook progress rows after the summary are bridged.
    for loader in ["2.1.88", "2.1.332"] {
        let out = stdout_of(&[
            "-q",
            "rebuild-chain",
            "--loader",
            loader,
            sample(REAL_MANUAL).to_str().unwrap(),
        ]);
        let recs = records(&out);
        assert_eq!(recs.len(), 107, "loader {loader}");
        assert_eq!(recs[0]["uuid"], "28e7ab65-6e19-4be6-93e5-80d77d365cd7");
        assert_eq!(recs[0]["subtype"], "compact_boundary");
        assert_eq!(recs[106]["uuid"], "8e40910a-3994-4d27-a962-32b04f0a1d40");
        assert!(recs.iter().all(|r| r["type"] != "progress"));
        assert_eq!(recs[1]["isCompactSummary"], true);
    }
}

#[test]
fn output_is_the_original_records_byte_for_byte() {
    let path = sample(REAL_AUTO);
    let file = std::fs::read_to_string(&path).unwrap();
    let lines: std::collections::HashSet<&str> = file.lines().collect();
    let out = stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]);
    for l in out.lines() {
        assert!(lines.contains(l), "not a line of the file: {}", &l[..80.min(l.len())]);
    }
}

#[test]
fn synthetic_preserved_segments_stale_segment_and_progress_bridge() {
    // SOURCES.md of the synthetic samples (written for 2.1.88; 2.1.332 agrees).
    let cases = [
        ("syn_preserved_suffix_anchor_summary.jsonl", "07 08 05 06 09 10"),
        ("syn_preserved_prefix_anchor_boundary.jsonl", "07 01 02 08 09 10"),
        ("syn_stale_segment_then_plain_boundary.jsonl", "11 12 13 14"),
        ("syn_legacy_progress_bridge.jsonl", "01 02 23 03 04"),
    ];
    for (file, want) in cases {
        for loader in ["2.1.88", "2.1.332"] {
            let got = chain(&sample(&format!("claude-code/synthetic/{file}")), &["--loader", loader]);
            assert_eq!(got, split(want), "{file} with loader {loader}");
        }
    }
}

#[test]
fn stale_segment_and_broken_walk_are_reported() {
    let out = stdout_of(&[
        "rebuild-chain",
        "--json",
        sample("claude-code/synthetic/syn_stale_segment_then_plain_boundary.jsonl")
            .to_str()
            .unwrap(),
    ]);
    let recs = records(&out);
    assert!(recs.iter().any(|r| r["code"] == "stale-preserved-segment"));
    let summary = recs.last().unwrap();
    assert_eq!(summary["kind"], "chain");
    assert_eq!(summary["end"], "boundary");
    assert!(summary["pruned"].as_u64().unwrap() > 0);
}

/// The resume cases of Claude Code 2.1.332: (name, chain with 2.1.332, chain with 2.1.88).
/// The 2.1.332 chains are consistent with what the real client sent (`NAME.sent.json`).
const RESUME_CASES: &[(&str, &str, &str)] = &[
    ("A10_empty_text_block", "01 02", "01 02"),
    ("A11_orphan_tool_result_first", "01 02 03 04", "01 02 03 04"),
    ("A1_whitespace_entry", "01 02 03 04 05 06", "01 02 03 04 05 06"),
    ("A2_local_command_system", "01 02 03 04 05", "01 02 03 04"),
    ("A4_api_error", "01 02 03 04", "01 02 03 04"),
    ("A5_other_model_thinking", "01 02 03 04", "01 02 03 04"),
    ("A6_orphan_thinking_entry", "01 02 03 04 05", "01 02 03 04 05"),
    ("A7_exit_caveat_not_meta", "01 02 03 04 05", "01 02 03 04 05"),
    ("A7_exit_with_caveat", "01 02 03 04 05", "01 02 03 04 05"),
    ("A7_exit_without_caveat", "01 02 04 05", "01 02 04 05"),
    ("A7_plain_prompt_last", "01 02 03", "01 02 03"),
    ("A8_hoist_tool_results", "01 02 03 04 05 06", "01 02 03 04 05 06"),
    ("A9_split_tool_use_then_text", "01 02 03 04 05", "01 02 03 04 05"),
    ("A9_tool_use_before_text", "01 02 03 04", "01 02 03 04"),
    ("B1_cycle", "01 02 03 04", "01 02"),
    ("B1_future_not_target", "01 02 05", "03 04"),
    ("B1_gap_3s", "01 02 03 04", "03 04"),
    ("B1_gap_5000ms", "01 02 03 04", "03 04"),
    ("B1_gap_5001ms", "03 04", "03 04"),
    ("B1_gap_6s", "03 04", "03 04"),
    ("B1_newest_by_timestamp", "01 05 03 04", "03 04"),
    ("B1_newest_by_timestamp_fileorder", "01 05", "03 04"),
    ("B1_progress_not_target", "01 02 03 04", "03 04"),
    ("B1_self_parent", "01 02 03 04", "03 04"),
    ("B1_side_absent_vs_false", "03 04", "03 04"),
    ("B1_sidechain_not_target", "01 02 03 04", "03 04"),
    ("B1_tie_earliest_in_file", "01 02 03 04", "03 04"),
    ("B1_two_hops", "01 02 03 04 06 07", "06 07"),
    // B2: 2.1.332 merges recovered rows in file order; 2.1.88 puts siblings by time after
    // the group's last chain member (tool uses 1, 3, 2b, 2).
    (
        "B2_parallel_file_order",
        "01 02 03 04 05 06 07 08 09 10",
        "01 02 05 06 04 03 07 08 09 10",
    ),
    ("B4_last_row_newer_descendant", "01 02 03", "01 05"),
    ("B4_last_row_not_newest_leaf", "01 02 03 04", "01 05"),
    ("B4_last_row_system_above_leaf", "01 02 04", "01 02 03"),
];

#[test]
fn resume_2_1_332_cases_for_both_loaders() {
    for (name, current, old) in RESUME_CASES {
        let path = sample(&format!("claude-code/resume-2.1.332/{name}.jsonl"));
        assert_eq!(chain(&path, &[]), split(current), "{name} (2.1.332)");
        assert_eq!(chain(&path, &["--loader", "2.1.88"]), split(old), "{name} (2.1.88)");
    }
}

#[test]
fn gap_bridging_is_reported() {
    let out = stdout_of(&[
        "rebuild-chain",
        "--json",
        sample("claude-code/resume-2.1.332/B1_two_hops.jsonl").to_str().unwrap(),
    ]);
    let recs = records(&out);
    let bridged: Vec<_> = recs.iter().filter(|r| r["code"] == "gap-bridged").collect();
    assert_eq!(bridged.len(), 2);
    assert_eq!(recs.last().unwrap()["bridged"], 2);
}

#[test]
fn excerpt_dangling_parent_stops_the_walk_at_line_12() {
    // SOURCES.md: line 10's parent 627198fe-… is never written; the walk from the newest leaf
    // stops at line 12 and loses everything before it. The gap is 6.9 s: 2.1.332 does not
    // bridge it either.
    let path =
        sample("claude-code/real-excerpts/entire_38346dbfe2e0_dangling-parent-chain-break_v2.1.29.excerpt.jsonl");
    for loader in ["2.1.88", "2.1.332"] {
        let out = stdout_of(&["rebuild-chain", "--json", "--loader", loader, path.to_str().unwrap()]);
        let recs = records(&out);
        let summary = recs.last().unwrap();
        assert_eq!(summary["end"], "dangling:627198fe-9ee1-4657-be67-4d8cfe112921");
        let d = recs.iter().find(|r| r["code"] == "dangling-parent").unwrap();
        assert_eq!(d["line"], 12);
        assert_eq!(recs[0]["subtype"], "stop_hook_summary");
    }
}

#[test]
fn excerpt_two_records_on_one_line_are_both_lost_and_reported() {
    let path = sample("claude-code/real-excerpts/entire_37995ebed6e4_concatenated-lines_v2.1.x.excerpt.jsonl");
    let out = cctool()
        .args(["rebuild-chain", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(":4: error: two records on one line"), "{stderr}");
    let file = std::fs::read_to_string(&path).unwrap();
    let line4 = file.lines().nth(3).unwrap();
    let lost: serde_json::Value = serde_json::Deserializer::from_str(line4)
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    let lost_uuid = lost["uuid"].as_str().unwrap();
    // The same uuid is written again at line 7 (the session was resumed in place); only
    // that later copy can be on the chain, never the glued record of line 4.
    let line7: serde_json::Value = serde_json::from_str(file.lines().nth(6).unwrap()).unwrap();
    assert_eq!(line7["uuid"], lost_uuid);
    let recs = records(&String::from_utf8_lossy(&out.stdout));
    for r in recs.iter().filter(|r| r["uuid"] == lost_uuid) {
        assert_eq!(r, &line7);
    }
    assert!(recs.iter().all(|r| r["type"] != "summary"));
}

#[test]
fn excerpt_three_compactions_start_at_the_last_boundary() {
    let path = sample("claude-code/real-excerpts/entire_cd95adddad32_three-compactions_v2.1.7.excerpt.jsonl");
    let file = std::fs::read_to_string(&path).unwrap();
    let line18: serde_json::Value = serde_json::from_str(file.lines().nth(17).unwrap()).unwrap();
    assert_eq!(line18["subtype"], "compact_boundary");
    let recs = records(&stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]));
    assert_eq!(recs[0]["uuid"], line18["uuid"]);
}

#[test]
fn excerpt_microcompact_is_not_a_chain_break() {
    let path = sample("claude-code/real-excerpts/entire_25730c662552_microcompact-and-compact_v2.1.20.excerpt.jsonl");
    let recs = records(&stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]));
    assert_eq!(recs[0]["subtype"], "compact_boundary");
    assert_eq!(recs[1]["isCompactSummary"], true);
}

#[test]
fn excerpt_inline_sidechains_and_summary_titles_are_not_resumed() {
    let path =
        sample("claude-code/real-excerpts/dkimuson_fe5e1c67_v1.0.98_top-summary_inline-sidechains.excerpt.jsonl");
    let recs = records(&stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]));
    assert!(!recs.is_empty());
    assert!(recs.iter().all(|r| r["isSidechain"] != true && r["type"] != "summary"));
    let path = sample("claude-code/real-excerpts/entire_013118c3a750_top-summaries-foreign-leafs.excerpt.jsonl");
    let recs = records(&stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]));
    assert!(recs.iter().all(|r| r["type"] != "summary"));
    assert!(recs[0]["parentUuid"].is_null());
}

/// One compact description per Codex history item: `role:text` for messages, else the type.
fn codex_items(path: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["-q", "rebuild-chain"];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    records(&stdout_of(&args))
        .iter()
        .map(|r| match r["type"].as_str().unwrap() {
            "message" => {
                let text: String = r["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|c| c["text"].as_str())
                    .collect();
                let text = if text.starts_with("Another language model") {
                    "<summary>".into()
                } else {
                    text
                };
                format!("{}:{}", r["role"].as_str().unwrap(), text)
            }
            other => other.to_string(),
        })
        .collect()
}

#[test]
fn codex_synthetic_samples() {
    let cases: &[(&str, &[&str])] = &[
        (
            "synthetic_local_compaction_2026.jsonl",
            &[
                "user:Add a --verbose flag to the CLI",
                "user:Now write tests for it",
                "user:<summary>",
                "user:Update the README too",
                "assistant:README updated.",
            ],
        ),
        (
            "synthetic_legacy_compaction_no_replacement_history.jsonl",
            &[
                "user:Refactor the parser",
                "user:<summary>",
                "user:Continue with error recovery",
                "assistant:Added error recovery.",
            ],
        ),
        (
            "synthetic_remote_compaction.jsonl",
            &[
                "user:Port the build to bazel",
                "user:Keep going, also fix CI",
                "compaction",
                "user:What is left?",
                "assistant:Only docs remain.",
            ],
        ),
        (
            "synthetic_pre_envelope_2025-08.jsonl",
            &[
                "user:list the files",
                "reasoning",
                "function_call",
                "function_call_output",
                "assistant:There is one file: a.txt",
            ],
        ),
        ("synthetic_paginated_2026-08.jsonl", &["user:hello", "assistant:hi!"]),
    ];
    for (file, want) in cases {
        let got = codex_items(&sample(&format!("codex/synthetic/{file}")), &[]);
        assert_eq!(got, *want, "{file}");
    }
}

#[test]
fn codex_rollback_over_midturn_compaction_matches_the_real_client() {
    // Real Codex 0.171 discards the rolled-back turn with the compaction inside it and
    // replays the surviving items; the legacy forward replay cuts the rebuilt history.
    let path = sample("codex/synthetic/synthetic_rollback_over_midturn_compaction.jsonl");
    assert_eq!(
        codex_items(&path, &[]),
        [
            "user:first task",
            "assistant:reply one",
            "user:second task",
            "assistant:reply two"
        ]
    );
    assert_eq!(
        codex_items(&path, &["--replay", "legacy"]),
        ["user:first task", "user:second task"]
    );
    let out = cctool()
        .args(["rebuild-chain", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("[replay-differs]"), "{stderr}");
}

#[test]
fn codex_torn_last_line_is_reported_not_fatal() {
    let path = sample("codex/synthetic/synthetic_paginated_2026-08.jsonl");
    let out = cctool()
        .args(["rebuild-chain", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("possibly still being written"), "{stderr}");
}

#[test]
fn codex_real_union_fixture_drops_ghost_snapshots() {
    let path = sample("codex/real/agent-sessions__stage0_codex_small.jsonl");
    let items = codex_items(&path, &[]);
    assert_eq!(items.len(), 16);
    assert!(items.iter().all(|i| i != "ghost_snapshot"));
    assert_eq!(items[12], "compaction");
}

// ---- the project's own fixtures -------------------------------------------------------

#[test]
fn fixture_parallel_tool_calls_recover_the_off_chain_sibling() {
    // Real client: assistant [text, toolu_a, toolu_b], user [toolu_a, toolu_b].
    let path = fixture("claude/parallel_tool_calls.jsonl");
    assert_eq!(chain(&path, &[]), split("01 02 03 04 05 06 07"));
    assert_eq!(chain(&path, &["--loader", "2.1.88"]), split("01 02 03 04 06 05 07"));
}

#[test]
fn fixture_duplicate_uuids_keep_first_position_and_last_content() {
    let path = fixture("claude/duplicate_uuids.jsonl");
    let out = cctool()
        .args(["rebuild-chain", "--json", path.to_str().unwrap()])
        .output()
        .unwrap();
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    let msgs: Vec<_> = recs.iter().filter(|r| r.get("kind").is_none()).collect();
    let tails: Vec<_> = msgs.iter().map(|r| &r["uuid"].as_str().unwrap()[34..]).collect();
    assert_eq!(tails, ["01", "02", "03", "04", "05", "06"]);
    assert_eq!(msgs[2]["message"]["content"], "second question (re-appended copy)");
    let dup = recs.iter().find(|r| r["code"] == "duplicate-uuid").unwrap();
    assert_eq!(dup["line"], 7);
    assert_eq!(recs.last().unwrap()["duplicate_uuids"], 1);
}

#[test]
fn fixture_cycle_stops_both_loaders() {
    let path = fixture("claude/cycle.jsonl");
    // 2.1.332 starts from the last row written (05) and stops at the cycle (no entry within
    // 5 s to bridge to); 2.1.88's leaves exclude the cycle entirely (every member has a child).
    assert_eq!(chain(&path, &[]), split("03 04 05"));
    assert_eq!(chain(&path, &["--loader", "2.1.88"]), split("01 02"));
    let out = stdout_of(&["rebuild-chain", "--json", path.to_str().unwrap()]);
    assert_eq!(records(&out).last().unwrap()["end"], "cycle");
}

#[test]
fn fixture_tips_differ_between_loaders() {
    let path = fixture("claude/tips_differ.jsonl");
    assert_eq!(chain(&path, &[]), split("01 02 03 04 05"));
    assert_eq!(chain(&path, &["--loader", "2.1.88"]), split("01 02 09"));
}

#[test]
fn fixture_newer_sidechain_leaf_is_not_the_tip() {
    let path = fixture("claude/sidechain_newer.jsonl");
    for loader in ["2.1.88", "2.1.332"] {
        assert_eq!(chain(&path, &["--loader", loader]), split("01 02 03 04"), "{loader}");
    }
}

#[test]
fn fixture_codex_rollback_counted_across_a_replacement_history() {
    // A manual /compact turn (no user message) between t2 and t4, then a rollback of 2:
    // current Codex discards t4, the compaction turn (which does not use up the count) and
    // t2 (real client: [one, reply one]); the forward replay counts the summary in the
    // replacement_history as a user turn and keeps [one, two].
    let path = fixture("codex/rollback_across_replacement_history.jsonl");
    assert_eq!(codex_items(&path, &[]), ["user:one", "assistant:reply one"]);
    assert_eq!(codex_items(&path, &["--replay", "legacy"]), ["user:one", "user:two"]);
}

#[test]
fn fixture_session_v5_messages_in_order() {
    let path = fixture("session/refactor.v5.json");
    let recs = records(&stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]));
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0]["role"], "user");
    assert_eq!(recs[2]["tool_call_id"], "call_1");
    // Minified, with key order and text as written.
    let out = stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .starts_with(r#"{"role":"user","items":[{"type":"text","text":"Refactor module A for me"}],"id":1}"#)
    );
}

// ---- options ----------------------------------------------------------------------------

#[test]
fn tip_override_walks_from_the_given_uuid() {
    let path = fixture("claude/tips_differ.jsonl");
    let got = chain(&path, &["--tip", "00000000-0000-4000-8000-000000000004"]);
    assert_eq!(got, split("01 02 03 04"));
    let out = cctool()
        .args(["rebuild-chain", "--tip", "no-such-uuid", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-uuid: no message with this uuid"));
}

#[test]
fn full_follows_compactions_back_and_marks_them() {
    let path = sample(REAL_AUTO);
    let out = stdout_of(&["rebuild-chain", "--full", "--json", path.to_str().unwrap()]);
    let recs = records(&out);
    let summary = recs.last().unwrap();
    let msgs: Vec<_> = recs.iter().filter(|r| r.get("kind").is_none()).collect();
    assert!(msgs.len() > 24, "earlier history was added");
    let parts = summary["earlier_parts"].as_array().unwrap();
    assert_eq!(parts, &[serde_json::json!(0)]);
    // The loaded chain (24 messages, from the boundary) is the tail of the output.
    assert_eq!(msgs[msgs.len() - 24]["uuid"], "2698f93f-93a5-40da-819d-287f5b38e7c1");
    // The earlier part ends at the boundary's logicalParentUuid, just before the boundary.
    let boundary = msgs[msgs.len() - 24];
    assert_eq!(msgs[msgs.len() - 25]["uuid"], boundary["logicalParentUuid"]);
    let text = stdout_of(&[
        "-q",
        "rebuild-chain",
        "--full",
        "--format",
        "text",
        path.to_str().unwrap(),
    ]);
    assert!(text.contains("earlier history, replaced by a compaction"));
    assert!(text.contains("what a resume loads"));
}

#[test]
fn json_summary_record_has_stable_fields() {
    let out = stdout_of(&[
        "rebuild-chain",
        "--json",
        fixture("claude/parallel_tool_calls.jsonl").to_str().unwrap(),
    ]);
    let summary = records(&out).pop().unwrap();
    let keys: Vec<_> = summary.as_object().unwrap().keys().cloned().collect();
    // Field order is part of the contract (cli.md: "Field order is stable").
    let want = [
        "kind",
        "file",
        "format",
        "loader",
        "replay",
        "messages",
        "end",
        "tip",
        "root",
        "unreachable",
        "duplicate_uuids",
        "bad_lines",
        "recovered",
        "appended",
        "pruned",
        "bridged",
        "earlier_parts",
    ];
    assert_eq!(keys, want);
    assert_eq!(summary["messages"], 7);
    assert_eq!(summary["recovered"], 2);
    assert_eq!(summary["end"], "root");
    assert!(out.starts_with(r#"{"parentUuid":null"#));
}

#[test]
fn text_and_markdown_formats() {
    let path = fixture("claude/parallel_tool_calls.jsonl");
    let text = stdout_of(&["-q", "rebuild-chain", "--format", "text", path.to_str().unwrap()]);
    assert!(text.starts_with(
        "── user · line 1 · 2026-03-01T10:00:00.000Z · 00000000-0000-4000-8000-000000000001\nread both config files\n\n"
    ));
    assert!(text.contains("[tool_use Read toolu_b]\n{\"file_path\":\"/home/dev/app/b.toml\"}"));
    assert!(text.contains("[tool_result toolu_a]\na = 1"));
    let md = stdout_of(&["-q", "rebuild-chain", "--format", "markdown", path.to_str().unwrap()]);
    assert!(md.starts_with("### user\n_line 1 · 2026-03-01T10:00:00.000Z · 00000000-0000-4000-8000-000000000001_\n\nread both config files\n\n"));
    assert!(md.contains("```\na = 1\n```"));
}
