//! `cctool compact` and `cctool decompress`: what the agent resumes from the output, the recap,
//! the cut, the budget, the writing rules, and the real clients when they are installed.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::api_view::{normalise, view};
use crate::util::{
    CLAUDE_SAMPLE_DIRS, Client, cctool, fixture, realclient, records, resume_with, shared, shared_all, shared_files,
    stdout_of, write_aged,
};

const PREFIX: &str = "Another language model started to solve this problem";

/// An old (not live) copy of `src` in `dir`, named `name`.
fn aged_copy(src: &Path, dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    write_aged(&p, &std::fs::read(src).unwrap());
    p
}

/// Runs `cctool --json compact ARGS FILE`, returns the report (asserting the exit status).
fn compact(file: &Path, args: &[&str], code: i32) -> Value {
    let out = cctool()
        .arg("--json")
        .arg("compact")
        .args(args)
        .arg(file)
        .env("SOURCE_DATE_EPOCH", "1764000000")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "compact {args:?} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The loaded chain as records.
fn chain(path: &Path) -> Vec<Value> {
    records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--format",
        "jsonl",
        path.to_str().unwrap(),
    ]))
}

/// A record without the fields a copy is allowed to change.
fn content_of(r: &Value) -> Value {
    let mut r = r.clone();
    if let Some(o) = r.as_object_mut() {
        for k in [
            "uuid",
            "parentUuid",
            "timestamp",
            "sourceToolAssistantUUID",
            "logicalParentUuid",
        ] {
            o.remove(k);
        }
        if let Some(m) = o.get_mut("message").and_then(Value::as_object_mut) {
            m.remove("id");
        }
    }
    r
}

fn blocks(r: &Value) -> Vec<Value> {
    r.pointer("/message/content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Checks a compacted Claude Code output against its input: the input bytes come first
/// unchanged; the chain is the new boundary, the summary, then copies of exactly the kept tail.
fn check_claude(input: &Path, output: &Path, report: &Value) -> Vec<Value> {
    let before = std::fs::read(input).unwrap();
    let after = std::fs::read(output).unwrap();
    assert!(after.starts_with(&before), "the input bytes are kept as written");
    let orig = chain(input);
    let got = chain(output);
    let kept = report["kept_units"].as_u64().unwrap() as usize;
    let boundary = &got[0];
    assert_eq!(boundary["subtype"], "compact_boundary");
    assert_eq!(boundary["parentUuid"], Value::Null);
    assert_eq!(boundary["logicalParentUuid"], orig.last().unwrap()["uuid"]);
    assert_eq!(boundary["compactMetadata"]["trigger"], "manual");
    assert_eq!(boundary["compactMetadata"]["preTokens"], report["tokens_before"]);
    assert_eq!(boundary["sessionId"], orig.last().unwrap()["sessionId"]);
    let summary = &got[1];
    assert_eq!(summary["isCompactSummary"], true);
    assert_eq!(summary["parentUuid"], boundary["uuid"]);
    let text = summary["message"]["content"].as_str().unwrap();
    assert!(text.starts_with("This session is being continued"), "{text}");
    assert!(text.contains("[Summary]\nGoal: "), "{text}");
    assert_eq!(Some(text), report["recap"].as_str());
    // Exactly the kept tail, as copies (boundaries are never copied).
    let tail: Vec<&Value> = orig[orig.len() - kept..]
        .iter()
        .filter(|r| r["subtype"] != "compact_boundary")
        .collect();
    assert_eq!(got.len() - 2, tail.len(), "{}", output.display());
    let old_uuids: std::collections::HashSet<&str> = orig.iter().filter_map(|r| r["uuid"].as_str()).collect();
    let mut ids = std::collections::HashMap::new();
    for (copy, orig) in got[2..].iter().zip(&tail) {
        assert_eq!(content_of(copy), content_of(orig));
        assert!(
            !old_uuids.contains(copy["uuid"].as_str().unwrap()),
            "copies get new uuids"
        );
        if let (Some(o), Some(c)) = (orig.pointer("/message/id"), copy.pointer("/message/id")) {
            assert_ne!(o, c, "copies get new message ids");
            // Split rows of one message keep sharing one id.
            assert_eq!(ids.entry(o.clone()).or_insert_with(|| c.clone()), c);
        }
    }
    // No tool call is separated from its result.
    let copies = &got[2..];
    let uses: Vec<String> = copies
        .iter()
        .flat_map(blocks)
        .filter(|b| b["type"] == "tool_use")
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect();
    for b in copies.iter().flat_map(blocks).filter(|b| b["type"] == "tool_result") {
        assert!(uses.contains(&b["tool_use_id"].as_str().unwrap().to_string()), "{b}");
    }
    got
}

#[test]
fn claude_code_output_resumes_boundary_summary_then_exactly_the_tail() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/claude-work.jsonl"), dir.path(), "s.jsonl");
    let out = dir.path().join("out.jsonl");
    // The latest legal cut keeping 9,000 tokens is the second prompt's (9,720).
    let r = compact(&input, &["--keep-recent", "9000", "-o", out.to_str().unwrap()], 0);
    assert_eq!(r["changed"], true);
    assert_eq!(r["on_prompt"], true, "the cut falls before a user prompt");
    assert!(r["kept_tokens"].as_u64().unwrap() >= 9000);
    let got = check_claude(&input, &out, &r);
    assert_eq!(
        got[2]["message"]["content"],
        "Good. Don't add new dependencies. Continue with the evaluator."
    );
}

#[test]
fn extract_summary_reads_the_recap_back_without_the_template() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/claude-work.jsonl"), dir.path(), "s.jsonl");
    let out = dir.path().join("out.jsonl");
    compact(&input, &["--keep-recent", "9000", "-o", out.to_str().unwrap()], 0);
    let summaries = records(&stdout_of(&[
        "-q",
        "extract-summary",
        "--json",
        "--strip-template",
        out.to_str().unwrap(),
    ]));
    let current = summaries
        .iter()
        .find(|r| r["current"] == true)
        .expect("the new boundary is current");
    let text = current["summary"].as_str().unwrap();
    assert!(text.starts_with("[Summary]\nGoal: \"Refactor src/lib.rs"), "{text}");
    assert!(
        text.ends_with("Modified: /home/dev/app/src/parse.rs, /home/dev/app/src/lib.rs"),
        "{text}"
    );
}

#[test]
fn claude_code_files_with_compactions_compact_with_the_same_shape() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<PathBuf> = [
        "claude/chain/auto_compaction_2_0_76.jsonl",
        "claude/chain/manual_compaction_progress_2_1_14.jsonl",
        "claude/chain/three_compactions_2_1_7.jsonl",
        "claude/chain/microcompact_then_compact_2_1_20.jsonl",
    ]
    .iter()
    .map(|f| fixture(f))
    .collect();
    let fixtures = inputs.len();
    inputs.extend(
        shared_all(&[
            "claude-code/real/entire_a6e4c2a0fbd1_auto-compact_v2.0.76.jsonl",
            "claude-code/real/entire_4b7d5121b42a_manual-compact_progress_v2.1.14.jsonl",
            "claude-code/real-excerpts/entire_cd95adddad32_three-compactions_v2.1.7.excerpt.jsonl",
            "claude-code/real-excerpts/entire_25730c662552_microcompact-and-compact_v2.1.20.excerpt.jsonl",
        ])
        .into_iter()
        .flatten(),
    );
    for (n, path) in inputs.iter().enumerate() {
        let input = aged_copy(path, dir.path(), &format!("in{n}.jsonl"));
        let out = dir.path().join(format!("out{n}.jsonl"));
        // Some real files end without a newline: --force accepts them.
        let r = compact(
            &input,
            &["--force", "--keep-recent", "10", "-o", out.to_str().unwrap()],
            0,
        );
        // The fixtures are made to have something to compact; a sample may not.
        assert!(n >= fixtures || r["changed"] == true, "{}: {r}", path.display());
        if r["changed"] == true {
            check_claude(&input, &out, &r);
            // The agent's own summary of the earlier compaction is kept, not re-summarised.
            let text = r["recap"].as_str().unwrap();
            assert!(text.contains("[Earlier Summary]\n"), "{}", path.display());
        }
    }
}

#[test]
fn loading_from_the_last_boundary_gives_what_the_whole_file_gives() {
    /// Fixtures whose load can start at the last boundary (the tail path): counted, so the
    /// check cannot pass by taking the full path everywhere.
    const FIXTURES_FROM_TAIL: usize = 8;
    use cctool::agents::claude_code::compact::load_with;
    let mut files = shared_files(CLAUDE_SAMPLE_DIRS).unwrap_or_default();
    let samples = !files.is_empty();
    files.extend(crate::util::fixture_files(&[
        "compact",
        "claude",
        "claude/chain",
        "claude/summaries",
    ]));
    files.retain(|p| p.extension().is_some_and(|x| x == "jsonl") && !p.to_string_lossy().contains("codex"));
    let mut from_tail = 0;
    for f in &files {
        let src = cctool::io::Source::open_path(f, cctool::io::MmapChoice::Never).unwrap();
        let (fast, full) = (load_with(&src, true).unwrap(), load_with(&src, false).unwrap());
        let uuids = |l: &cctool::agents::claude_code::compact::Loaded| -> Vec<String> {
            l.positions.iter().map(|&p| l.t.uuid_text(p)).collect()
        };
        assert_eq!(uuids(&fast), uuids(&full), "{}", f.display());
        let tokens = |l: &cctool::agents::claude_code::compact::Loaded| -> Vec<usize> {
            l.units.iter().map(|u| u.tokens).collect()
        };
        assert_eq!(tokens(&fast), tokens(&full), "{}", f.display());
        from_tail += usize::from(fast.t.nodes.len() < full.t.nodes.len());
    }
    let least = if samples {
        3 + FIXTURES_FROM_TAIL
    } else {
        FIXTURES_FROM_TAIL
    };
    assert!(from_tail >= least, "the tail path was taken for {from_tail} files");
}

/// The history items Codex resumes, as rebuild-chain prints them.
fn codex_history(path: &Path) -> Vec<Value> {
    chain(path)
}

fn item_text(item: &Value) -> String {
    item["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect()
}

fn check_codex(input: &Path, output: &Path, report: &Value) {
    let before = std::fs::read(input).unwrap();
    let after = std::fs::read(output).unwrap();
    assert!(after.starts_with(&before));
    let appended: Vec<Value> = records(std::str::from_utf8(&after[before.len()..]).unwrap());
    // A turn of its own, as a manual /compact writes it.
    assert_eq!(appended.len(), 4);
    assert_eq!(appended[0]["payload"]["type"], "task_started");
    assert_eq!(appended[1]["type"], "compacted");
    assert_eq!(appended[2]["payload"]["type"], "context_compacted");
    assert_eq!(appended[3]["payload"]["type"], "task_complete");
    assert_eq!(appended[0]["payload"]["turn_id"], appended[3]["payload"]["turn_id"]);
    let message = appended[1]["payload"]["message"].as_str().unwrap();
    assert!(message.starts_with(PREFIX));
    let orig = codex_history(input);
    let got = codex_history(output);
    let kept = report["kept_units"].as_u64().unwrap() as usize;
    assert_eq!(
        &got[got.len() - kept..],
        &orig[orig.len() - kept..],
        "the tail, verbatim"
    );
    let head = &got[..got.len() - kept];
    let summary = head.last().unwrap();
    assert_eq!(summary["role"], "user");
    assert_eq!(item_text(summary), message);
    // Before the summary: the real user prompts of the span, in order, and the encrypted
    // summary of an earlier remote compaction, which stays (real Codex 0.171 resumes it so).
    for item in &head[..head.len() - 1] {
        if item["type"] == "compaction" {
            assert!(orig.contains(item), "{item}: an earlier compaction item");
            continue;
        }
        assert_eq!(item["role"], "user");
        let t = item_text(item);
        assert!(
            orig[..orig.len() - kept].iter().any(|o| item_text(o) == t),
            "{t} is a user message of the span"
        );
    }
    // The replacement history is what rebuild-chain resumes.
    assert_eq!(appended[1]["payload"]["replacement_history"].as_array().unwrap(), &got);
}

#[test]
fn codex_output_resumes_user_messages_summary_then_exactly_the_tail() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/codex-work.jsonl"), dir.path(), "rollout.jsonl");
    let out = dir.path().join("out.jsonl");
    let r = compact(&input, &["--keep-recent", "3000", "-o", out.to_str().unwrap()], 0);
    assert_eq!(r["changed"], true);
    check_codex(&input, &out, &r);
    let got = codex_history(&out);
    assert_eq!(
        item_text(&got[0]),
        "Refactor src/lib.rs so that parsing and evaluation are separate modules. You must keep the public API unchanged."
    );
    // Both shapes of a tool's outcome stay paired in the tail.
    let calls: Vec<&str> = got.iter().filter_map(|i| i["call_id"].as_str()).collect();
    for id in &calls {
        assert_eq!(
            calls.iter().filter(|c| *c == id).count(),
            2,
            "{id}: call and output together"
        );
    }
}

/// A remote compaction item Codex cannot read (it skips that line, so its history never holds
/// it) is not carried into the replacement history: one unreadable item there makes Codex
/// skip the whole `compacted` line, and the compaction would have no effect.
#[test]
fn an_unreadable_remote_compaction_is_not_carried_into_the_replacement() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("compact/codex-work.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let unreadable =
        r#"{"timestamp":"2026-05-20T11:00:05.000Z","type":"response_item","payload":{"type":"compaction"}}"#;
    lines.insert(4, unreadable);
    let src = dir.path().join("src.jsonl");
    std::fs::write(&src, lines.join("\n") + "\n").unwrap();
    let input = aged_copy(&src, dir.path(), "rollout.jsonl");
    let out = dir.path().join("out.jsonl");
    let r = compact(&input, &["--keep-recent", "3000", "-o", out.to_str().unwrap()], 0);
    assert_eq!(r["changed"], true);
    check_codex(&input, &out, &r);
    assert!(
        codex_history(&out).iter().all(|i| i["type"] != "compaction"),
        "the unreadable compaction item was carried"
    );
}

#[test]
fn codex_rollouts_of_every_shape_compact_or_say_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<PathBuf> = [
        "codex/chain/local_compaction_2026.jsonl",
        "codex/chain/remote_compaction.jsonl",
        "codex/chain/legacy_compaction_2025_12.jsonl",
        "codex/chain/ghost_snapshots_and_windows.jsonl",
        "codex/chain/paginated_2026_08.jsonl",
    ]
    .iter()
    .map(|f| fixture(f))
    .collect();
    inputs.extend(
        shared_all(&[
            "codex/synthetic/synthetic_local_compaction_2026.jsonl",
            "codex/synthetic/synthetic_remote_compaction.jsonl",
            "codex/synthetic/synthetic_paginated_2026-08.jsonl",
        ])
        .into_iter()
        .flatten(),
    );
    let mut changed = 0;
    for (n, path) in inputs.iter().enumerate() {
        let input = aged_copy(path, dir.path(), &format!("r{n}.jsonl"));
        let out = dir.path().join(format!("o{n}.jsonl"));
        let r = compact(
            &input,
            &["--force", "--keep-recent", "1", "-o", out.to_str().unwrap()],
            0,
        );
        if r["changed"] == true {
            check_codex(&input, &out, &r);
            changed += 1;
        } else {
            assert!(
                r["note"].as_str().unwrap().contains("not be smaller"),
                "{}: {r}",
                path.display()
            );
            assert!(!out.exists());
        }
    }
    // The fixtures but the paginated one (a single short turn) are made to have something to
    // compact.
    assert!(changed >= 4, "{changed} of the rollouts were compacted");
}

/// What a resume sends, as `scan` counts it for native files (`resume_tokens`), and as the
/// spec counts a v5 session's content.
fn tokens_of_resume(path: &Path) -> usize {
    let src = cctool::io::Source::open_path(path, cctool::io::MmapChoice::Never).unwrap();
    if !cctool::agents::is_own_session(cctool::agents::detect::detect(&src).unwrap()) {
        let scan = stdout_of(&["-q", "--json", "scan", path.to_str().unwrap()]);
        records(&scan)
            .iter()
            .find(|r| r["kind"] == "session")
            .and_then(|r| r["resume_tokens"].as_u64())
            .expect("a session") as usize
    } else {
        use cctool::agents::cctool::compact as session;
        let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        session::tokens(&cctool::v5::schema::parse(doc).unwrap())
    }
}

#[test]
fn the_resumed_conversation_fits_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    for (name, budget) in [
        ("claude-work.jsonl", 6000),
        ("codex-work.jsonl", 6000),
        ("session-v5.json", 9000),
    ] {
        let input = aged_copy(&fixture(&format!("compact/{name}")), dir.path(), name);
        let out = dir.path().join(format!("budget-{name}"));
        let before = tokens_of_resume(&input);
        assert!(before > budget, "{name}: {before}");
        let r = compact(
            &input,
            &[
                "--keep-recent",
                "1000",
                "--budget",
                &budget.to_string(),
                "-o",
                out.to_str().unwrap(),
            ],
            0,
        );
        assert_eq!(r["budget_met"], true, "{name}: {r}");
        let after = tokens_of_resume(&out);
        assert!(after <= budget, "{name}: {after} > {budget}");
        assert_eq!(after, r["tokens_after"].as_u64().unwrap() as usize, "{name}");
        // The smallest span: the tail is longer than --keep-recent asked for.
        assert!(r["kept_tokens"].as_u64().unwrap() > 1000, "{name}: {r}");
    }
}

#[test]
fn a_budget_that_cannot_be_met_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/claude-work.jsonl"), dir.path(), "s.jsonl");
    let out = dir.path().join("o.jsonl");
    let r = compact(&input, &["--budget", "10", "-o", out.to_str().unwrap()], 1);
    assert_eq!(r["budget_met"], false);
    assert_eq!(r["tail_reduced"], true);
}

fn recap_line<'a>(recap: &'a str, field: &str) -> &'a str {
    recap
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("no {field} in {recap}"))
}

#[test]
fn files_read_then_edited_then_read_are_listed_as_modified() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/claude-work.jsonl"), dir.path(), "s.jsonl");
    let r = compact(&input, &["--dry-run", "--keep-recent", "100"], 1);
    let recap = r["recap"].as_str().unwrap();
    assert_eq!(
        recap_line(recap, "Modified: "),
        "Modified: /home/dev/app/src/parse.rs, /home/dev/app/src/lib.rs, /home/dev/app/src/eval.rs"
    );
    let read = recap_line(recap, "Read: ");
    assert!(!read.contains("lib.rs"), "{read}");
    assert!(read.contains("/home/dev/app/src"), "{read}");
    assert!(recap.contains("- Ran `cargo test --quiet` (exit 101)"), "{recap}");
    assert!(recap.contains("- Ran `cargo test --quiet` (exit 0)"), "{recap}");
    assert!(recap.contains("\"You must keep the public API unchanged, and never touch tests/golden/.\""));
    assert!(recap.contains("- Completed: Split parser into src/parse.rs"), "{recap}");
    // Codex: shell reads and apply_patch headers.
    let input = aged_copy(&fixture("compact/codex-work.jsonl"), dir.path(), "r.jsonl");
    let r = compact(&input, &["--dry-run", "--keep-recent", "100"], 1);
    let recap = r["recap"].as_str().unwrap();
    assert_eq!(recap_line(recap, "Read: "), "Read: src/main.rs, README.md");
    assert_eq!(recap_line(recap, "Modified: "), "Modified: src/lib.rs, src/eval.rs");
}

#[test]
fn compacting_twice_merges_the_recaps() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/claude-work.jsonl"), dir.path(), "s.jsonl");
    let once = dir.path().join("once.jsonl");
    compact(&input, &["--keep-recent", "8000", "-o", once.to_str().unwrap()], 0);
    crate::util::age(&once);
    let twice = dir.path().join("twice.jsonl");
    let r = compact(&once, &["--keep-recent", "1500", "-o", twice.to_str().unwrap()], 0);
    check_claude(&once, &twice, &r);
    let recap = r["recap"].as_str().unwrap();
    assert_eq!(recap.matches("[Summary]").count(), 1, "{recap}");
    assert!(
        !recap.contains("[Earlier Summary]"),
        "our own recap is merged, not nested: {recap}"
    );
    // Constraints of both spans, the first one's first.
    let constraints = &recap[recap.find("Constraints:").unwrap()..recap.find("Progress:").unwrap()];
    let first = constraints
        .find("never touch tests/golden/")
        .expect("old constraint kept");
    let second = constraints.find("Don't add new dependencies.").expect("new constraint");
    assert!(first < second);
    assert!(recap.contains("/home/dev/app/src/parse.rs"), "old files kept: {recap}");
    // The resumed chain starts at the newest boundary.
    assert_eq!(chain(&twice)[0]["uuid"], chain(&twice)[0]["uuid"]);
    assert_ne!(chain(&twice)[0]["uuid"], chain(&once)[0]["uuid"]);
}

#[test]
fn v5_tier2_replaces_the_oldest_span_and_logs_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/session-v5.json"), dir.path(), "s.json");
    let out = dir.path().join("o.json");
    let r = compact(
        &input,
        &["--tier", "2", "--keep-recent", "3000", "-o", out.to_str().unwrap()],
        0,
    );
    let orig: Value = serde_json::from_slice(&std::fs::read(&input).unwrap()).unwrap();
    let got: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let (om, gm) = (
        orig["messages"].as_array().unwrap(),
        got["messages"].as_array().unwrap(),
    );
    let kept = r["kept_units"].as_u64().unwrap() as usize;
    assert_eq!(gm.len(), kept + 1);
    assert_eq!(&gm[1..], &om[om.len() - kept..]);
    let s = &gm[0];
    assert_eq!((s["role"].as_str(), s["id"].as_u64()), (Some("user"), Some(1)));
    let item = &s["items"][0];
    let keys: Vec<&str> = item.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "type",
            "goal",
            "constraints",
            "progress",
            "key_decisions",
            "next_steps",
            "files",
            "text"
        ]
    );
    assert_eq!(
        item["goal"],
        "\"Step 0: refactor module 0; never change the public API.\""
    );
    let log = &got["compactions"][0];
    assert_eq!(log["tier"], 2);
    assert_eq!(log["span"][0], 1);
    assert_eq!(log["span"][1], om[om.len() - kept - 1]["id"]);
    assert_eq!(log["tokens_after"], r["tokens_after"]);
    // Re-parses and validates as v5.
    stdout_of(&["migrate", "--dry-run", out.to_str().unwrap()]);
}

#[test]
fn v5_tier1_then_decompress_gives_the_original_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/session-v5.json"), dir.path(), "s.json");
    let out = dir.path().join("t1.json");
    let r = compact(
        &input,
        &[
            "--tier",
            "1",
            "--keep-recent",
            "2000",
            "--keep-results",
            "2",
            "-o",
            out.to_str().unwrap(),
        ],
        0,
    );
    assert!(r["placeholders"].as_u64().unwrap() > 0);
    assert!(r["reasoning_removed"].as_u64().unwrap() > 0);
    let t1: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let placeholder = t1["messages"][2]["items"][0]["content"].as_str().unwrap();
    assert!(placeholder.starts_with("[TRUNCATED: "), "{placeholder}");
    assert_eq!(t1["compactions"][0]["tier"], 1);
    crate::util::age(&out);
    let back = dir.path().join("back.json");
    let out2 = cctool()
        .args(["--json", "decompress"])
        .arg(&out)
        .arg("--from")
        .arg(&input)
        .arg("-o")
        .arg(&back)
        .output()
        .unwrap();
    assert_eq!(out2.status.code(), Some(0), "{}", String::from_utf8_lossy(&out2.stderr));
    let orig: Value = serde_json::from_slice(&std::fs::read(&input).unwrap()).unwrap();
    let got: Value = serde_json::from_slice(&std::fs::read(&back).unwrap()).unwrap();
    assert_eq!(got["messages"], orig["messages"]);
    assert!(got.get("compactions").is_none());
}

#[test]
fn decompress_lists_what_it_cannot_restore() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/session-v5.json"), dir.path(), "s.json");
    let out = dir.path().join("t1.json");
    compact(
        &input,
        &["--tier", "1", "--keep-recent", "2000", "-o", out.to_str().unwrap()],
        0,
    );
    // A full record that knows none of these calls.
    let other = dir.path().join("other.json");
    write_aged(
        &other,
        br#"{"schema_version":5,"session_id":"x","messages":[{"role":"user","items":[{"type":"text","text":"hi"}],"id":1}]}"#,
    );
    let o = cctool()
        .args(["--json", "decompress", "--dry-run"])
        .arg(&out)
        .arg("--from")
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let un = r["unrestored"].as_array().unwrap();
    assert!(!un.is_empty());
    assert_eq!(un[0]["tool_call_id"], "call_0_0");
    assert!(!dir.path().join("t1.decompressed.json").exists());
}

#[test]
fn dry_run_writes_nothing_and_shows_the_recap() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/claude-work.jsonl"), dir.path(), "s.jsonl");
    let o = cctool()
        .args(["compact", "--dry-run", "--keep-recent", "3000"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains(": would compact (claude-code, tier 2): 17415 -> "),
        "{text}"
    );
    assert!(text.contains("[File Tracking]"), "{text}");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["s.jsonl"]);
}

#[test]
fn default_output_is_beside_the_input_and_in_place_keeps_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/codex-work.jsonl"), dir.path(), "r.jsonl");
    let original = std::fs::read(&input).unwrap();
    let r = compact(&input, &["--keep-recent", "3000"], 0);
    let beside = dir.path().join("r.compacted.jsonl");
    assert_eq!(r["output"], beside.to_str().unwrap());
    assert_eq!(std::fs::read(&input).unwrap(), original, "the input is never changed");
    // An existing output is not replaced without --force.
    compact(&input, &["--keep-recent", "3000"], 2);
    compact(&input, &["--keep-recent", "3000", "--force"], 0);
    let r = compact(&input, &["--keep-recent", "3000", "--in-place"], 0);
    let backup = dir.path().join("r.jsonl.precompact.bak");
    assert_eq!(r["backup"], backup.to_str().unwrap());
    assert_eq!(std::fs::read(&backup).unwrap(), original);
    assert_eq!(std::fs::read(&input).unwrap(), std::fs::read(&beside).unwrap());
}

#[test]
fn live_looking_files_are_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.jsonl");
    std::fs::copy(fixture("compact/claude-work.jsonl"), &fresh).unwrap();
    let o = cctool()
        .args(["compact", "--keep-recent", "3000"])
        .arg(&fresh)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("s ago, so its agent may still be writing it"));
    // A last record cut short is one being written: refused.
    let mut bytes = std::fs::read(fixture("compact/claude-work.jsonl")).unwrap();
    bytes.truncate(bytes.len() - 20);
    let torn = dir.path().join("torn.jsonl");
    write_aged(&torn, &bytes);
    let o = cctool()
        .args(["compact", "--keep-recent", "3000"])
        .arg(&torn)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("its last line is not a complete record and has no newline"));
    compact(&torn, &["--keep-recent", "3000", "--force"], 0);
    // A whole last record without its newline is how some copies end: compacted as it is.
    let mut bytes = std::fs::read(fixture("compact/claude-work.jsonl")).unwrap();
    bytes.pop();
    let unterminated = dir.path().join("unterminated.jsonl");
    write_aged(&unterminated, &bytes);
    compact(&unterminated, &["--keep-recent", "3000"], 0);
    // The appended records start on a line of their own: after the input, every line is JSON
    // (the torn line itself is copied as it was, for the agent to skip as it would).
    for (name, input_len) in [("unterminated", bytes.len()), ("torn", bytes.len() - 19)] {
        let out = std::fs::read(dir.path().join(format!("{name}.compacted.jsonl"))).unwrap();
        let appended = String::from_utf8_lossy(&out[input_len + 1..]).into_owned();
        assert!(appended.lines().count() >= 2, "{name}: {appended}");
        assert!(
            appended.lines().all(|l| serde_json::from_str::<Value>(l).is_ok()),
            "{name}: {appended}"
        );
    }
}

#[test]
fn native_files_refuse_tier_1() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/claude-work.jsonl"), dir.path(), "s.jsonl");
    let o = cctool().args(["compact", "--tier", "1"]).arg(&input).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--tier 1 applies to cctool v5 sessions"));
}

#[test]
fn a_summarizer_writes_the_recap_and_a_failing_one_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = aged_copy(&fixture("compact/claude-work.jsonl"), dir.path(), "s.jsonl");
    let prompt_file = dir.path().join("prompt.txt");
    let cmd = format!(
        "cat > '{}'; printf 'Goal: split the crate\\nProgress:\\n- parse.rs written\\nNext Steps: README\\n'",
        prompt_file.display()
    );
    let r = compact(
        &input,
        &["--keep-recent", "3000", "--summarizer", &cmd, "-o", "/dev/null"],
        0,
    );
    assert_eq!(r["recap_method"], "summarizer");
    let recap = r["recap"].as_str().unwrap();
    assert!(recap.contains("Goal: split the crate"), "{recap}");
    // Files still come from the tool calls.
    assert!(recap.contains("Modified: /home/dev/app/src/parse.rs"), "{recap}");
    let prompt = std::fs::read_to_string(&prompt_file).unwrap();
    assert!(prompt.contains("Goal") && prompt.contains("Next Steps"), "{prompt}");
    assert!(prompt.contains("elided"), "large tool results are elided: {prompt}");
    let out = cctool()
        .args([
            "compact",
            "--keep-recent",
            "3000",
            "--summarizer",
            "exit 3",
            "-o",
            "/dev/null",
        ])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the summarizer was not used"), "{err}");
    assert!(err.contains("the recap is extractive"), "{err}");
    let r = compact(
        &input,
        &[
            "--keep-recent",
            "3000",
            "--summarizer",
            "sleep 5",
            "--summarizer-timeout",
            "1",
            "-o",
            "/dev/null",
        ],
        0,
    );
    assert_eq!(r["recap_method"], "extractive");
    assert!(r["summarizer_fallback"].as_str().unwrap().contains("timed out"), "{r}");
}

// ---- the real clients, when installed ----------------------------------------------------------

#[test]
fn real_claude_code_resumes_the_compacted_files() {
    let Some(script) = realclient(Client::ClaudeCode) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = vec![fixture("compact/claude-work.jsonl")];
    // The fixture alone where the samples are absent.
    inputs.extend(
        shared_all(&[
            "claude-code/real/entire_a6e4c2a0fbd1_auto-compact_v2.0.76.jsonl",
            "claude-code/real/entire_4b7d5121b42a_manual-compact_progress_v2.1.14.jsonl",
        ])
        .into_iter()
        .flatten(),
    );
    for (n, f) in inputs.iter().enumerate() {
        let input = aged_copy(f, dir.path(), &format!("in{n}.jsonl"));
        // The first is written under a new session id, as the README says to keep the original:
        // the client resumes it by that file name (`claude --resume <new id>`).
        let name = match n {
            0 => "0a7c3e52-1b2d-4e8f-9a01-23456789abcd.jsonl".to_string(),
            _ => format!("out{n}.jsonl"),
        };
        let out = dir.path().join(name);
        let r = compact(
            &input,
            &["--force", "--keep-recent", "1500", "-o", out.to_str().unwrap()],
            0,
        );
        assert_eq!(r["changed"], true, "{}", f.display());
        let sent = normalise(&resume_with(&script, &out));
        assert_eq!(sent, view(&out), "{}", f.display());
        // The first message the client sends opens with the summary.
        let first = &sent[0]["content"];
        let text = first
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| first[0]["text"].as_str().unwrap().to_string());
        assert!(text.starts_with("This session is being continued"), "{}", f.display());
        assert!(text.contains("[Summary]"), "{}", f.display());
        eprintln!(
            "real Claude Code resumed {} as summary + {} kept records",
            f.display(),
            r["kept_units"]
        );
    }
}

/// Drops what Codex adds on its own (`scripts/realclient/README.md`): the base instructions, the context
/// messages and the prompt after the history, item ids and metadata.
fn normalise_codex(sent: &Value, history_len: usize) -> Vec<Value> {
    let mut items: Vec<Value> = sent.as_array().unwrap()[1..].to_vec();
    items.truncate(history_len);
    for i in &mut items {
        if let Some(o) = i.as_object_mut() {
            o.remove("id");
            o.remove("internal_chat_message_metadata_passthrough");
        }
    }
    items
}

#[test]
fn real_codex_resumes_the_compacted_files() {
    let Some(script) = realclient(Client::Codex) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = vec![
        fixture("compact/codex-work.jsonl"),
        fixture("codex/chain/remote_compaction.jsonl"),
        fixture("codex/chain/local_compaction_2026.jsonl"),
    ];
    inputs.extend(shared("codex/synthetic/synthetic_remote_compaction.jsonl"));
    for (n, f) in inputs.iter().enumerate() {
        let input = aged_copy(f, dir.path(), &format!("in{n}.jsonl"));
        let out = dir.path().join(format!("out{n}.jsonl"));
        let r = compact(
            &input,
            &["--force", "--keep-recent", "1", "-o", out.to_str().unwrap()],
            0,
        );
        if r["changed"] != true {
            eprintln!("{}: nothing to compact ({})", f.display(), r["note"]);
            continue;
        }
        let history = codex_history(&out);
        let sent = normalise_codex(&resume_with(&script, &out), history.len());
        assert_eq!(sent, history, "{}", f.display());
        let summary = history.iter().rposition(|i| item_text(i).starts_with(PREFIX)).unwrap();
        assert_eq!(history.len() - summary - 1, r["kept_units"].as_u64().unwrap() as usize);
        eprintln!(
            "real Codex resumed {} as {} user messages, the summary and {} kept items",
            f.display(),
            summary,
            r["kept_units"]
        );
    }
}

/// An item kept after the summary that the compacted record would nest deeper than Codex
/// reads is refused with its line, and nothing is written: Codex would skip the record.
#[test]
fn codex_item_too_deep_for_the_compacted_record_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(fixture("compact/codex-work.jsonl")).unwrap();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    let deep = format!("{}{}", "[".repeat(122), "]".repeat(122));
    bytes.extend_from_slice(
        format!(
            "{{\"timestamp\":\"2026-11-02T09:00:47.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"deep\",\"annotations\":{deep}}}]}}}}\n"
        )
        .as_bytes(),
    );
    let input = dir.path().join("r.jsonl");
    write_aged(&input, &bytes);
    let out = dir.path().join("out.jsonl");
    let o = cctool()
        .args(["compact", "--keep-recent", "100", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "line {}: this item would be nested 128 levels deep in the compacted record, and Codex reads at most 127",
            lines + 1
        )),
        "{err}"
    );
    assert!(!out.exists());
}
