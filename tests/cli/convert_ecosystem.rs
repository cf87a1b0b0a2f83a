//! Converted sessions read by the ecosystem's own tools as they read the agents' sessions:
//! usage reports (`ccusage`) bill no token a conversion did not spend, and transcript readers
//! (`claude-code-log`) take every row. Each test runs only where its tool is on `PATH`, and
//! says it was skipped otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::util::*;

/// `name` on `PATH`, or `None` after a one-line notice saying how to install it.
fn tool(name: &str, install: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        skip_notice(&format!("{name} is not on PATH ({install})"));
    }
    found
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Converts `src` into the store that `var` points at `home`.
fn into_store(src: &Path, to: &str, var: &str, home: &Path) {
    let out = cctool()
        .env(var, home)
        .args(["convert", "-q", "--to", to, "--into-store", s(src)])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The totals of `ccusage AGENT daily` over the store that `var` points at `home`.
fn ccusage_totals(ccusage: &Path, agent: &str, var: &str, home: &Path) -> Value {
    let out = Command::new(ccusage)
        .args([agent, "daily", "--json", "--offline"])
        .env(var, home)
        .output()
        .expect("run ccusage");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("ccusage prints JSON");
    v["totals"].clone()
}

/// A Codex rollout that spent tokens: 1,200 input (1,000 of them cached) and 80 output.
fn spent_rollout(home: &Path) {
    let dir = home.join("sessions/2026/11/20");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let id = "019d0000-0000-7000-8000-0000000000aa";
    let usage = json!({"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 80,
                       "reasoning_output_tokens": 0, "total_tokens": 1280});
    let lines = [
        json!({"timestamp": "2026-11-20T10:00:00.000Z", "type": "session_meta", "payload": {"id": id,
               "timestamp": "2026-11-20T10:00:00.000Z", "cwd": "/w", "originator": "codex_cli_rs", "cli_version": "0.171.0"}}),
        json!({"timestamp": "2026-11-20T10:00:00.000Z", "type": "turn_context", "payload": {"cwd": "/w", "model": "gpt-5"}}),
        json!({"timestamp": "2026-11-20T10:00:01.000Z", "type": "event_msg", "payload": {"type": "token_count",
               "info": {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": 272000},
               "rate_limits": null}}),
    ];
    let text: String = lines
        .iter()
        .map(|l| format!("{}\n", serde_json::to_string(l).expect("json")))
        .collect();
    std::fs::write(dir.join(format!("rollout-2026-11-20T10-00-00-{id}.jsonl")), text).expect("write");
}

#[test]
fn ccusage_bills_no_token_to_a_conversion_into_codex() {
    let Some(ccusage) = tool("ccusage", "npm i -g ccusage") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    spent_rollout(home.path());
    let spent = ccusage_totals(&ccusage, "codex", "CODEX_HOME", home.path());
    assert_eq!(spent["inputTokens"], 200, "{spent}");
    assert_eq!(spent["cacheReadTokens"], 1000, "{spent}");
    for src in ["convert/compacted.claude.jsonl", "convert/file-tools.claude.jsonl"] {
        into_store(&fixture(src), "codex", "CODEX_HOME", home.path());
    }
    assert_eq!(ccusage_totals(&ccusage, "codex", "CODEX_HOME", home.path()), spent);
}

#[test]
fn ccusage_bills_no_token_to_a_conversion_into_claude_code() {
    let Some(ccusage) = tool("ccusage", "npm i -g ccusage") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    // A Claude Code session that spent tokens, where the client keeps it.
    let native = fixture("convert/compacted.claude.jsonl");
    let project = home.path().join("projects/-home-dev-app");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::copy(&native, project.join("5b1e0c2a-7d44-4c1e-9a53-0f3f7c1b2a01.jsonl")).expect("copy");
    let spent = ccusage_totals(&ccusage, "claude", "CLAUDE_CONFIG_DIR", home.path());
    assert!(spent["totalTokens"].as_u64().is_some_and(|t| t > 0), "{spent}");
    into_store(
        &fixture("convert/tools.codex.jsonl"),
        "claude-code",
        "CLAUDE_CONFIG_DIR",
        home.path(),
    );
    assert_eq!(
        ccusage_totals(&ccusage, "claude", "CLAUDE_CONFIG_DIR", home.path()),
        spent
    );
}

#[test]
fn claude_code_log_reads_every_row_of_a_conversion() {
    let Some(reader) = tool("claude-code-log", "pip install claude-code-log") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, md) = (dir.path().join("t.jsonl"), dir.path().join("t.md"));
    let conv = cctool()
        .args(["convert", "-q", "--to", "claude-code", "-o", s(&out)])
        .arg(fixture("convert/tools.codex.jsonl"))
        .output()
        .expect("run");
    assert!(conv.status.success(), "{}", String::from_utf8_lossy(&conv.stderr));
    let run = Command::new(reader)
        .arg(&out)
        .args(["-o", s(&md)])
        .output()
        .expect("run claude-code-log");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "{said}");
    assert!(!said.contains("validation error"), "{said}");
    let text = std::fs::read_to_string(&md).expect("markdown");
    assert!(text.contains("Done: it prints hi"), "{text}");
}
