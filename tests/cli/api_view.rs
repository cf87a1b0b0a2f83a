#![allow(non_snake_case)] // test names are the sample names
//! `cctool rebuild-chain --api-view`: the request Claude Code 2.1.332 sends on resume.
//! Every expected request here is what the real client sent (`NAME.sent.json`).

use std::path::Path;

use serde_json::Value;

use crate::util::{
    API_VIEW_FIELDS, Client, cctool, faketime, fixture, realclient, records, shared, shared_files, stdout_of,
};

/// The harness's conditions: a loopback base URL (another model's thinking is dropped) and a
/// date before the 2026-11-30 retirement at which the requests were recorded.
pub(crate) const HARNESS: &[&str] = &["--as-of", "2026-11-29T12:00:00Z", "--base-url", "http://127.0.0.1:9"];

pub(crate) fn view(path: &Path) -> Vec<Value> {
    let mut args = vec!["-q", "rebuild-chain", "--api-view", "--prompt", "say ok"];
    args.extend_from_slice(HARNESS);
    args.push(path.to_str().unwrap());
    records(&stdout_of(&args))
}

fn expected(path: &Path) -> Vec<Value> {
    let sent = path.with_extension("sent.json");
    let v: Value = serde_json::from_slice(&std::fs::read(&sent).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

fn assert_same(path: &Path) {
    let got = view(path);
    let want = expected(path);
    assert_eq!(got.len(), want.len(), "{}: message count", path.display());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{}: message {i}", path.display());
    }
}

macro_rules! resume_cases {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            let Some(path) = shared(&format!("claude-code/resume-2.1.332/{}.jsonl", stringify!($name))) else {
                return;
            };
            assert_same(&path);
        }
    )*};
}

resume_cases!(
    A10_empty_text_block,
    A11_orphan_tool_result_first,
    A1_whitespace_entry,
    A2_local_command_system,
    A4_api_error,
    A5_other_model_thinking,
    A6_orphan_thinking_entry,
    A7_exit_caveat_not_meta,
    A7_exit_with_caveat,
    A7_exit_without_caveat,
    A7_plain_prompt_last,
    A8_hoist_tool_results,
    A9_split_tool_use_then_text,
    A9_tool_use_before_text,
    B1_cycle,
    B1_future_not_target,
    B1_gap_3s,
    B1_gap_5000ms,
    B1_gap_5001ms,
    B1_gap_6s,
    B1_newest_by_timestamp,
    B1_newest_by_timestamp_fileorder,
    B1_progress_not_target,
    B1_self_parent,
    B1_side_absent_vs_false,
    B1_sidechain_not_target,
    B1_tie_earliest_in_file,
    B1_two_hops,
    B2_parallel_file_order,
    B4_last_row_newer_descendant,
    B4_last_row_not_newest_leaf,
    B4_last_row_system_above_leaf,
);

#[test]
fn every_resume_sample_has_a_test() {
    let Some(dir) = shared("claude-code/resume-2.1.332") else {
        return;
    };
    let n = std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().to_string_lossy().ends_with(".sent.json"))
        .count();
    assert_eq!(n, 32, "a new resume sample needs its own test above");
}

#[test]
fn json_record_reports_model_tokens_and_loader_rules() {
    let Some(path) = shared("claude-code/resume-2.1.332/B2_parallel_file_order.jsonl") else {
        return;
    };
    let out = stdout_of(&[
        "rebuild-chain",
        "--api-view",
        "--prompt",
        "say ok",
        "--json",
        "--as-of",
        "2026-11-29T12:00:00Z",
        "--base-url",
        "http://127.0.0.1:9",
        path.to_str().unwrap(),
    ]);
    let recs = records(&out);
    let last = recs.last().unwrap();
    let keys: Vec<&str> = last.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, API_VIEW_FIELDS);
    assert_eq!(last["model"], "claude-opus-4-5-20251101");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(r#"{"role""#)).collect();
    assert_eq!(last["messages"], lines.len());
    // The request is the JSON array of those messages, exactly as printed.
    let sent = format!("[{}]", lines.join(","));
    assert_eq!(last["tokens"], sent.len().div_ceil(4));
    let compact: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        serde_json::to_string(&compact).unwrap().len(),
        sent.len(),
        "printed compactly"
    );
    assert!(
        last["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "B2" && r["count"] == 4)
    );
}

#[test]
fn without_a_prompt_there_is_no_sentinel_and_no_prompt() {
    let Some(path) = shared("claude-code/resume-2.1.332/A7_plain_prompt_last.jsonl") else {
        return;
    };
    let recs = records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        path.to_str().unwrap(),
    ]));
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[2], serde_json::json!({"role": "user", "content": "unanswered"}));
}

#[test]
fn api_view_renders_for_reading_and_refuses_other_formats() {
    let path = fixture("claude/api/f4_middle_and_last.jsonl");
    let text = stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        "--prompt",
        "say ok",
        "--format",
        "text",
        path.to_str().unwrap(),
    ]);
    assert!(
        text.contains("── assistant · message 4\nNo response requested."),
        "{text}"
    );
    // Codex rollouts have a view of their own (tests/cli/codex_api.rs); session files none.
    let session = fixture("session/refactor.v5.json");
    let out = cctool()
        .args(["rebuild-chain", "--api-view", session.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = cctool()
        .args(["rebuild-chain", "--prompt", "x", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--prompt needs --api-view");
}

// ---- the real client, when installed --------------------------------------------------------

/// Removes what the client adds by itself (`scripts/realclient/README.md`): system-role messages,
/// `<system-reminder>` blocks of the last user message, `cache_control`, `is_error: false`.
pub(crate) fn normalise(sent: &Value) -> Vec<Value> {
    fn clean(v: &mut Value) {
        match v {
            Value::Object(o) => {
                o.remove("cache_control");
                if o.get("is_error") == Some(&Value::Bool(false)) {
                    o.remove("is_error");
                }
                o.values_mut().for_each(clean);
            }
            Value::Array(a) => a.iter_mut().for_each(clean),
            _ => {}
        }
    }
    let mut msgs: Vec<Value> = sent
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] != "system")
        .cloned()
        .collect();
    if let Some(Value::Array(blocks)) = msgs.last_mut().and_then(|m| m.get_mut("content")) {
        blocks.retain(|b| !b["text"].as_str().is_some_and(|t| t.starts_with("<system-reminder>")));
    }
    msgs.iter_mut().for_each(clean);
    msgs
}

#[test]
fn real_samples_match_the_installed_real_client() {
    let Some(script) = realclient(Client::ClaudeCode) else {
        return;
    };
    let Some(files) = shared_files(&["claude-code/real", "claude-code/real-excerpts"]) else {
        return;
    };
    if !faketime() {
        return;
    }
    let mut compared = 0;
    for f in &files {
        let out = std::process::Command::new("bash")
            .arg(&script)
            .arg(f)
            .arg("say ok")
            .env("VIEW_DATE", "2026-11-29")
            .output()
            .unwrap();
        if !out.status.success() {
            eprintln!(
                "SKIPPED {}: the client sent no request ({})",
                f.display(),
                String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
            );
            continue;
        }
        let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(view(f), normalise(&sent), "{}", f.display());
        compared += 1;
    }
    eprintln!(
        "compared {compared} of {} real transcripts with the real client",
        files.len()
    );
    assert!(compared > 0);
}
