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

/// A shell process appending `count` records from `from` on, one write each. Every 500
/// records it waits for the reader's go-ahead (`FILE.goN`, N counting from 1), so the file
/// grows during the reads however loaded the machine is.
fn appender(path: &Path, from: usize, count: usize) -> Child {
    let script = format!(
        "i={from}; while [ $i -lt {end} ]; do if [ $((i % 500)) -eq 0 ]; then while [ ! -e \"$F.go$((i / 500))\" ]; do sleep 0.01; done; fi; p=$((i-1)); printf '{{\"parentUuid\":\"00000000-0000-4000-8000-%012d\",\"type\":\"user\",\"uuid\":\"00000000-0000-4000-8000-%012d\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"%s\"}}}}\\n' $p $i \"$PAD\" >> \"$F\"; i=$((i+1)); done",
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
        std::fs::write(format!("{}.go{runs}", path.display()), "").unwrap();
    }
    // Released whatever happened above, so that the writer always ends.
    for n in 1..=8 {
        std::fs::write(format!("{}.go{n}", path.display()), "").unwrap();
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

/// A Claude Code transcript of at least `mib` MiB: a chain of prompts and answers of about
/// 4 KB each, with a compaction (boundary and summary) every 2,000 records, so that every
/// reading command has work all through the file.
pub fn big_transcript(mib: usize) -> Vec<u8> {
    let pad = "p".repeat(4000);
    let mut out = Vec::with_capacity(mib << 20);
    let uuid = |i: usize| format!("00000000-0000-4000-8000-{i:012}");
    let mut i = 0usize;
    while out.len() < mib << 20 {
        let parent = if i == 0 {
            Value::Null
        } else {
            Value::String(uuid(i - 1))
        };
        let ts = format!(
            "2026-01-01T{:02}:{:02}:{:02}.000Z",
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60
        );
        let rec = if i % 2000 == 1999 {
            serde_json::json!({"parentUuid": null, "logicalParentUuid": uuid(i - 1), "type": "system",
                "subtype": "compact_boundary", "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 150000},
                "uuid": uuid(i), "timestamp": ts, "sessionId": "s"})
        } else if i.is_multiple_of(2000) && i > 0 {
            serde_json::json!({"parentUuid": parent, "type": "user", "isCompactSummary": true, "uuid": uuid(i), "timestamp": ts, "sessionId": "s",
                "message": {"role": "user", "content": format!("This session is being continued from a previous conversation. Summary {i}: {pad}")}})
        } else if i.is_multiple_of(2) {
            serde_json::json!({"parentUuid": parent, "type": "user", "uuid": uuid(i), "timestamp": ts, "sessionId": "s",
                "message": {"role": "user", "content": format!("request {i} {pad}")}})
        } else {
            serde_json::json!({"parentUuid": parent, "type": "assistant", "uuid": uuid(i), "timestamp": ts, "sessionId": "s",
                "message": {"id": format!("msg_{i}"), "role": "assistant", "model": "claude-opus-4-5-20251101",
                    "content": [{"type": "text", "text": format!("answer {i} {pad}")}]}})
        };
        out.extend_from_slice(rec.to_string().as_bytes());
        out.push(b'\n');
        i += 1;
    }
    out
}

/// The truncation that used to kill every command with SIGBUS: a file old enough to be
/// mapped (a past mtime, 64 MiB), cut to 1 MB by another process while each reading command
/// reads it. The read must end with a clear error naming the file and the change (exit 2),
/// or, when the cut came before the file was opened or after it was read, normally; never by
/// a signal, never with bytes of the zero pages in the output, and never with an output file
/// left behind by an error.
#[test]
fn a_mapped_file_truncated_while_read_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let master = dir.path().join("master.jsonl");
    std::fs::write(&master, big_transcript(64)).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let out_file = dir.path().join("out.jsonl");
    let o = out_file.to_str().unwrap();
    let commands: &[&[&str]] = &[
        &["rebuild-chain", "--json"],
        &["rebuild-chain", "--full", "--loader", "2.1.88"],
        &["scan", "--json"],
        &["extract-summary", "--json"],
        &["doctor", "--json"],
        &["compact", "--keep-recent", "1000", "-o", o],
        &["migrate", "-o", o],
    ];
    let mut total_errors = 0;
    for args in commands {
        // From just after the start of the read to well into it, as fractions of how long an
        // uncut run takes (which depends on the build and the machine); a cut during the
        // output comes with the later ones.
        let uncut = dir.path().join("uncut.jsonl");
        std::fs::copy(&master, &uncut).unwrap();
        let _ = std::fs::remove_file(&out_file);
        let started = std::time::Instant::now();
        let _ = Command::new(&bin).args(*args).arg(&uncut).output().unwrap();
        let whole = started.elapsed().as_millis() as u64;
        let delays_ms = [whole / 20, whole / 5, whole * 2 / 5, whole * 3 / 5].map(|d| d.max(10));
        let mut errors = 0;
        for (round, ms) in delays_ms.iter().enumerate() {
            let f = dir.path().join(format!("cut{round}.jsonl"));
            std::fs::copy(&master, &f).unwrap();
            crate::util::age(&f);
            let _ = std::fs::remove_file(&out_file);
            let child = Command::new(&bin)
                .args(*args)
                .arg(&f)
                .env("NO_COLOR", "1")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            std::thread::sleep(Duration::from_millis(*ms));
            std::fs::File::options()
                .write(true)
                .open(&f)
                .and_then(|h| h.set_len(1_000_000))
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let code = out.status.code().unwrap_or_else(|| {
                panic!(
                    "{args:?} cut after {ms} ms: ended by a signal ({:?}): {stderr}",
                    out.status
                )
            });
            assert!(
                matches!(code, 0..=2),
                "{args:?} cut after {ms} ms: exit {code}: {stderr}"
            );
            assert!(
                !out.stdout.contains(&0),
                "{args:?} cut after {ms} ms: zero bytes in the output"
            );
            if args.contains(&"--json") {
                for l in stdout.lines() {
                    assert!(serde_json::from_str::<Value>(l).is_ok(), "{args:?}: not JSON: {l:.200}");
                }
            }
            let all = format!("{stdout}{stderr}");
            if all.contains("changed while it was read") {
                assert_eq!(code, 2, "{args:?} cut after {ms} ms: {all:.2000}");
                assert!(
                    stderr.contains(&*f.to_string_lossy()) || stdout.contains(&*f.to_string_lossy()),
                    "{args:?}: the file is not named: {stderr}"
                );
                assert!(all.contains("truncated from"), "{args:?}: {all:.2000}");
                assert!(!out_file.exists(), "{args:?} cut after {ms} ms: an output was written");
                errors += 1;
            }
        }
        eprintln!("{args:?}: {errors} of {} cuts fell during the read", delays_ms.len());
        total_errors += errors;
    }
    // The cuts did fall during reads (else the test would prove nothing).
    assert!(
        total_errors >= commands.len() * 2,
        "only {total_errors} cuts were seen by a reader"
    );
}
