//! `cctool scan`: one record per session, counts checked by hand (with jq) on the samples.

use serde_json::{Value, json};

use crate::util::{cctool, fixture, records, shared, stdout_of};

fn sessions(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["scan", "--json"];
    all.extend_from_slice(args);
    records(&stdout_of(&all))
}

#[test]
fn samples_match_hand_checked_counts() {
    let Some([claude, codex]) =
        crate::util::shared_all(&["claude-code/real", "codex/real"]).map(|d| <[_; 2]>::try_from(d).unwrap())
    else {
        return;
    };
    let recs = sessions(&[claude.to_str().unwrap(), codex.to_str().unwrap()]);
    let by_name = |part: &str| {
        recs.iter()
            .find(|r| r["path"].as_str().is_some_and(|p| p.contains(part)))
            .unwrap()
            .clone()
    };

    // jq: 294,251 bytes, 54 lines, one auto boundary (155250), one line whose parent is missing,
    // timestamps 11:47:31.774 to 12:38:42.261, version 2.0.76; SOURCES.md: chain of 24.
    let auto = by_name("a6e4c2a0fbd1");
    assert_eq!(auto["format"], "claude-code");
    assert_eq!(auto["bytes"], 294_251);
    assert_eq!(auto["lines"], 54);
    assert_eq!(auto["bad_lines"], 0);
    assert_eq!(auto["chain_messages"], 24);
    assert_eq!(auto["chain_end"], "boundary");
    assert_eq!(auto["compactions"], 1);
    assert_eq!(auto["last_compaction_trigger"], "auto");
    assert_eq!(auto["last_compaction_pre_tokens"], 155_250);
    assert_eq!(auto["compaction_origins"], json!({"local": 1}));
    assert_eq!(auto["dangling_parents"], 1);
    assert_eq!(auto["duplicate_uuids"], 0);
    assert_eq!(auto["agent_versions"], json!(["2.0.76"]));
    assert_eq!(auto["first_timestamp"], "2026-01-07T11:47:31.774Z");
    assert_eq!(auto["last_timestamp"], "2026-01-07T12:38:42.261Z");
    // resume_tokens is the size of the api-view request.
    let view = stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        claude
            .join("entire_a6e4c2a0fbd1_auto-compact_v2.0.76.jsonl")
            .to_str()
            .unwrap(),
    ]);
    let msgs: Vec<Value> = records(&view);
    assert_eq!(
        auto["resume_tokens"],
        serde_json::to_vec(&msgs).unwrap().len().div_ceil(4)
    );

    let manual = by_name("4b7d5121b42a");
    assert_eq!(
        (manual["bytes"].as_u64(), manual["lines"].as_u64()),
        (Some(512_972), Some(219))
    );
    assert_eq!(manual["chain_messages"], 107);
    assert_eq!(manual["last_compaction_trigger"], "manual");
    assert_eq!(manual["last_compaction_pre_tokens"], 153_739);
    assert_eq!(
        manual["last_timestamp"], "2026-01-22T02:10:30.001Z",
        "metadata rows count as activity"
    );

    // jq: six compacted lines; 118 lines.
    let codex = by_name("stage0_codex_small");
    assert_eq!(codex["format"], "codex");
    assert_eq!(codex["lines"], 118);
    assert_eq!(codex["compactions"], 6);
    assert_eq!(codex["compaction_origins"], json!({"local": 1, "remote": 5}));
    assert_eq!(codex["chain_messages"], 16);
    assert_eq!(codex["leaves"], Value::Null);

    let total = recs.last().unwrap();
    assert_eq!(total["kind"], "total");
    assert_eq!(total["files"], 3);
    assert_eq!(total["bytes"], 294_251 + 512_972 + 145_596);
    assert_eq!(total["compactions"], 8);
}

#[test]
fn excerpts_counts() {
    let Some(dir) = shared("claude-code/real-excerpts") else {
        return;
    };
    let recs = sessions(&[dir.to_str().unwrap()]);
    let get = |part: &str| {
        recs.iter()
            .find(|r| r["path"].as_str().is_some_and(|p| p.contains(part)))
            .unwrap()
            .clone()
    };
    assert_eq!(get("concatenated-lines")["bad_lines"], 1);
    assert_eq!(get("three-compactions")["compactions"], 3);
    assert_eq!(
        get("microcompact-and-compact")["compactions"],
        2,
        "microcompactions do not count"
    );
    assert_eq!(
        get("dangling-parent")["chain_end"],
        "dangling:627198fe-9ee1-4657-be67-4d8cfe112921"
    );
}

/// A pi session of the samples (beside each, its capture's `metadata.json`, which is none).
fn is_pi_session(path: &str) -> bool {
    path.contains("/pi/real/") && path.ends_with("_full.jsonl")
}

/// An `opencode export` document of the samples (`<repo>__<checkpoint>_full.jsonl`, beside its
/// `_metadata.json`).
fn is_opencode_export(path: &str) -> bool {
    path.contains("/opencode/") && path.ends_with("_full.jsonl")
}

#[test]
fn whole_samples_tree_skips_what_is_not_a_session() {
    let Some(dir) = crate::util::shared("") else { return };
    let recs = sessions(&[dir.to_str().unwrap()]);
    let total = recs.last().unwrap();
    assert_eq!(total["files"], 106);
    // claude-code: 2 real + 6 excerpts + 4 synthetic + 32 resume cases + 18 of 2026;
    // codex: 1 real + 6 synthetic + 16 of 2026; copilot: 7 real; pi: 10 real; opencode: 4
    // real exports.
    assert_eq!(
        total["by_format"],
        json!({"claude-code": 62, "codex": 23, "copilot": 7, "pi": 10, "opencode": 4})
    );
    // The other agents' folders hold no file cctool reads yet: each is skipped with a notice,
    // never taken for one of the formats above.
    for r in recs.iter().filter(|r| r["kind"] == "session") {
        let path = r["path"].as_str().unwrap();
        assert!(
            path.contains("/claude-code/")
                || path.contains("/codex/")
                || path.contains("/copilot/")
                || is_opencode_export(path)
                || is_pi_session(path),
            "{path} read as a {} session",
            r["format"]
        );
    }
    let others = walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            let p = e.path().to_string_lossy();
            let read = p.contains("/claude-code/")
                || p.contains("/codex/")
                || (p.contains("/copilot/") && p.ends_with(".jsonl"))
                || is_opencode_export(&p)
                || is_pi_session(&p);
            !read && (p.ends_with(".jsonl") || p.ends_with(".json"))
        })
        .count();
    assert_eq!(
        total["skipped"],
        32 + others,
        "the 32 sent.json request captures and the other agents' files"
    );
}

#[test]
fn subagents_are_found_beside_their_session_and_linked() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("-home-dev-app");
    let sid = "5e551000-0000-4000-8000-000000000000";
    std::fs::create_dir_all(proj.join(sid).join("subagents")).unwrap();
    std::fs::copy(fixture("claude/tips_differ.jsonl"), proj.join(format!("{sid}.jsonl"))).unwrap();
    let side = std::fs::read_to_string(fixture("claude/sidechain_newer.jsonl")).unwrap();
    std::fs::write(proj.join(sid).join("subagents/agent-a1.jsonl"), &side).unwrap();
    std::fs::write(proj.join("agent-legacy.jsonl"), &side).unwrap();
    std::fs::write(
        proj.join("agent-other.jsonl"),
        side.replace(sid, "5e551000-0000-4000-8000-00000000ffff"),
    )
    .unwrap();
    // Naming only the session file finds both of its subagents, not the other session's.
    let recs = sessions(&[proj.join(format!("{sid}.jsonl")).to_str().unwrap()]);
    let files: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "session").collect();
    assert_eq!(files.len(), 3);
    let main = files.iter().find(|r| r["role"] == "session").unwrap();
    assert_eq!(main["subagents"].as_array().unwrap().len(), 2);
    for s in files.iter().filter(|r| r["role"] == "subagent") {
        assert_eq!(s["parent_session"], sid);
    }
    assert_eq!(recs.last().unwrap()["subagent_files"], 2);
}

#[test]
fn piped_output_is_a_plain_table_and_json_only_when_asked() {
    let path = fixture("store");
    let out = cctool()
        .env_remove("COLUMNS")
        .env("TZ", "UTC0")
        .args(["scan", "--sort", "size", path.to_str().unwrap()])
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    // In a pipe without COLUMNS, every column at its natural width, a line per session.
    assert!(lines[0].starts_with("last activity     id"), "{out}");
    assert!(lines[0].ends_with("agent           model     subs  bad"), "{out}");
    assert!(
        lines[1].contains("Checkout flow refactor") && lines[1].contains("3.9 KiB") && lines[1].contains("1 auto"),
        "{out}"
    );
    assert!(lines.last().unwrap().starts_with("total"), "{out}");
    assert_eq!(lines.len(), 9);
    assert!(!out.contains('{') && !out.contains('\u{1b}'));
    assert!(out.lines().all(|l| !l.ends_with(' ')));
}

#[test]
fn a_terminal_gets_the_table_fitted_to_its_width() {
    // Under a real pseudo-terminal (util-linux `script`), when available.
    if !crate::views::pty_available() {
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let cmd = format!(
        "stty rows 24 cols 70; {} scan {}",
        bin.display(),
        fixture("store").display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("last activity") && text.contains("Checkout flow refactor"),
        "{text}"
    );
    for line in text.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line.trim_end_matches('\r')) <= 70,
            "{line}"
        );
    }
    assert!(!text.contains('\u{1b}'), "NO_COLOR: {text:?}");
}
