//! Files that change while cctool reads or rewrites them. The writers here are real separate
//! processes, as agents are.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::cctool;

fn record(i: usize, pad: &str) -> String {
    let parent = if i == 0 {
        Value::Null
    } else {
        Value::String(format!("00000000-0000-4000-8000-{:012}", i - 1))
    };
    serde_json::json!({"parentUuid": parent, "type": if i.is_multiple_of(2) { "user" } else { "assistant" },
        "uuid": format!("00000000-0000-4000-8000-{i:012}"), "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": "s",
        "message": {"id": format!("msg_{i}"), "role": "user", "content": pad}})
    .to_string()
}

/// A shell process appending `count` records from `from` on, one write each.
fn appender(path: &Path, from: usize, count: usize) -> Child {
    let script = format!(
        "i={from}; while [ $i -lt {end} ]; do p=$((i-1)); printf '{{\"parentUuid\":\"00000000-0000-4000-8000-%012d\",\"type\":\"user\",\"uuid\":\"00000000-0000-4000-8000-%012d\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"%s\"}}}}\\n' $p $i \"$PAD\" >> \"$F\"; i=$((i+1)); done",
        end = from + count
    );
    Command::new("sh")
        .args(["-c", &script])
        .env("F", path)
        .env("PAD", "y".repeat(1500))
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn a_file_being_appended_to_reads_as_a_consistent_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let pad = "y".repeat(1500);
    std::fs::write(&path, format!("{}\n{}\n", record(0, &pad), record(1, &pad))).unwrap();
    // ~6 MB by the end: the read starts in memory and moves to the chunked reader.
    let mut writer = appender(&path, 2, 4000);
    let mut last = 0u64;
    let mut runs = 0;
    let start = Instant::now();
    while writer.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(60) {
        let out = cctool()
            .args(["rebuild-chain", "--json"])
            .arg(&path)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let recs: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).expect("every output line is whole JSON"))
            .collect();
        let summary = recs.last().unwrap();
        assert_eq!(summary["kind"], "chain");
        // At most the line being written is torn; never anything before it.
        assert!(summary["bad_lines"].as_u64().unwrap() <= 1, "{summary}");
        let errors: Vec<&Value> = recs
            .iter()
            .filter(|r| r["kind"] == "diagnostic" && r["severity"] == "error")
            .collect();
        assert!(errors.is_empty(), "errors while a file grows: {errors:?}");
        let messages = summary["messages"].as_u64().unwrap();
        assert!(messages >= last, "the prefix shrank: {messages} < {last}");
        last = messages;
        runs += 1;
    }
    writer.wait().unwrap();
    assert!(runs >= 2, "read {runs} times while the file grew");
    let out = cctool().args(["rebuild-chain", "--json"]).arg(&path).output().unwrap();
    let final_summary: Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(final_summary["messages"], 4002);
}

#[test]
fn a_file_truncated_while_read_does_not_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinking.jsonl");
    let source = dir.path().join("source.jsonl");
    let pad = "z".repeat(3000);
    let body: String = (0..4000).map(|i| record(i, &pad) + "\n").collect();
    std::fs::write(&source, &body).unwrap();
    std::fs::copy(&source, &path).unwrap();
    // Another process empties and refills the file as fast as it can.
    let mut writer = Command::new("sh")
        .args(["-c", "while :; do : > \"$F\"; cat \"$S\" >> \"$F\"; done"])
        .env("F", &path)
        .env("S", &source)
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut runs = 0;
    while start.elapsed() < Duration::from_secs(6) {
        for args in [
            &["rebuild-chain", "--json"][..],
            &["scan", "--json"],
            &["doctor", "--json"],
            &["extract-summary"],
            &["compact", "--dry-run", "--keep-recent", "100"],
        ] {
            let out = cctool()
                .args(args)
                .arg(&path)
                .timeout(Duration::from_secs(30))
                .output()
                .unwrap();
            let code = out.status.code();
            assert!(
                matches!(code, Some(0..=2)),
                "{args:?}: ended by a signal or odd status {:?}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
            runs += 1;
        }
    }
    writer.kill().unwrap();
    writer.wait().unwrap();
    assert!(runs >= 4);
}
