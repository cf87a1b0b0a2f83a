//! The input layer seen from the command line: stdin, odd line endings, bad lines, the
//! mmap and streaming paths, undetectable files, and closed pipes.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use crate::util::{cctool, chain, fixture, records, split, stdout_of};

fn temp_with(name: &str, bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

#[test]
fn stdin_is_read_with_a_dash() {
    let bytes = std::fs::read(fixture("claude/tips_differ.jsonl")).unwrap();
    let out = cctool()
        .args(["-q", "rebuild-chain", "-"])
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(records(&String::from_utf8(out.stdout).unwrap()).len(), 5);
}

#[test]
fn bom_and_crlf_give_the_same_chain() {
    let text = std::fs::read_to_string(fixture("claude/parallel_tool_calls.jsonl")).unwrap();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(text.replace('\n', "\r\n").as_bytes());
    let (_d, path) = temp_with("crlf.jsonl", &bytes);
    assert_eq!(chain(&path, &[]), split("01 02 03 04 05 06 07"));
    // Records come out without the CR.
    let out = stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]);
    assert!(!out.contains('\r'));
}

#[test]
fn bad_lines_are_reported_with_their_line_and_the_run_goes_on() {
    let good = std::fs::read_to_string(fixture("claude/tips_differ.jsonl")).unwrap();
    let mut lines: Vec<Vec<u8>> = good.lines().map(|l| l.as_bytes().to_vec()).collect();
    lines.insert(1, b"{\"type\":\"user\",\"uuid\":".to_vec()); // invalid JSON mid-file
    lines.insert(2, b"{\"type\":\"user\",\"message\":\"\xff\xfe\"}".to_vec()); // invalid UTF-8
    // Valid but 100,000 levels deep: skipped values are walked without recursion.
    lines.insert(
        3,
        format!(
            "{{\"type\":\"progress\",\"data\":{}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        )
        .into_bytes(),
    );
    lines.insert(4, b"42".to_vec()); // JSON, not an object
    let mut bytes = lines.join(&b"\n"[..]);
    bytes.extend_from_slice(b"\n{\"type\":\"user\",\"uuid\":\"torn"); // torn tail
    let (_d, path) = temp_with("bad.jsonl", &bytes);
    let out = cctool()
        .args(["rebuild-chain", "--json", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    let codes: Vec<(u64, &str)> = recs
        .iter()
        .filter(|r| r["kind"] == "diagnostic")
        .map(|r| (r["line"].as_u64().unwrap_or(0), r["code"].as_str().unwrap()))
        .collect();
    for want in [
        (2, "invalid-json"),
        (3, "invalid-utf8"),
        (5, "not-an-object"),
        (11, "truncated-last-line"),
    ] {
        assert!(codes.contains(&want), "{want:?} not in {codes:?}");
    }
    let summary = recs.last().unwrap();
    assert_eq!(summary["bad_lines"], 4);
    assert_eq!(summary["messages"], 5, "the good records still form the chain");
}

#[test]
fn lone_surrogates_are_kept_as_claude_code_keeps_them() {
    let text = std::fs::read_to_string(fixture("claude/tips_differ.jsonl")).unwrap();
    let text = text.replace("go on", r"go on \ud83d");
    let (_d, path) = temp_with("surrogate.jsonl", text.as_bytes());
    let out = cctool()
        .args(["rebuild-chain", "--json", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains(r"go on \ud83d"),
        "the record is passed through as written"
    );
    let recs: Vec<serde_json::Value> = stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert!(recs.iter().any(|r| r["code"] == "lone-surrogate" && r["line"] == 3));
}

#[test]
fn undetectable_empty_and_missing_files_exit_2_with_the_file_named() {
    let (_d, path) = temp_with("notes.jsonl", b"hello world\n");
    let out = cctool()
        .args(["rebuild-chain", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Text is none of cctool's formats whatever --input-format says: no advice to give one.
    assert!(
        stderr.contains("notes.jsonl") && stderr.contains("not JSON") && !stderr.contains("--input-format"),
        "{stderr}"
    );

    let (_d2, empty) = temp_with("empty.jsonl", b"");
    let out = cctool()
        .args(["rebuild-chain", empty.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty file"));

    let out = cctool()
        .args(["rebuild-chain", "/no/such/file.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/file.jsonl: cannot read"));
}

#[test]
fn input_format_overrides_detection() {
    // Only blank lines and an unknown record: nothing to detect, but the user says Claude Code.
    let (_d, path) = temp_with("odd.jsonl", b"\n\n{\"type\":\"mystery\"}\n");
    let out = cctool()
        .args([
            "rebuild-chain",
            "--json",
            "--input-format",
            "claude-code",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    assert!(recs.iter().any(|r| r["code"] == "unknown-record-type"));
    assert_eq!(recs.last().unwrap()["end"], "empty");
}

/// A transcript large enough for the memory-mapped path (≥ 4 MiB).
fn big_transcript() -> Vec<u8> {
    let mut out = Vec::new();
    let pad = "x".repeat(2000);
    let mut parent = serde_json::Value::Null;
    for i in 0..3000u32 {
        let uuid = format!("00000000-0000-4000-8000-{i:012}");
        let (ty, msg) = if i % 2 == 0 {
            (
                "user",
                serde_json::json!({"role": "user", "content": format!("q{i} {pad}")}),
            )
        } else {
            (
                "assistant",
                serde_json::json!({"id": format!("msg_{i}"), "role": "assistant", "model": "m", "content": [{"type": "text", "text": format!("a{i} {pad}")}]}),
            )
        };
        let rec = serde_json::json!({"parentUuid": parent, "isSidechain": false, "type": ty, "message": msg, "uuid": uuid, "timestamp": format!("2026-01-01T00:{:02}:{:02}.000Z", i / 60 % 60, i % 60), "sessionId": "s"});
        out.extend_from_slice(rec.to_string().as_bytes());
        out.push(b'\n');
        parent = serde_json::Value::String(uuid);
    }
    out
}

#[test]
fn input_format_contradicted_by_the_content_is_refused() {
    // A Codex rollout read as Claude Code was 0 messages and status 0.
    let rollout = fixture("codex/rollback_across_replacement_history.jsonl");
    let out = cctool()
        .args(["--input-format", "claude-code", "rebuild-chain"])
        .arg(&rollout)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--input-format claude-code, but the content reads as codex: drop --input-format, or give --input-format codex"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    // Found in a folder, such a file is skipped with a notice.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&rollout, dir.path().join("r.jsonl")).unwrap();
    let out = cctool()
        .args(["--input-format", "claude-code", "scan"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("skipped as not sessions"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn loader_says_once_that_codex_files_ignore_it() {
    let note = "--loader chooses among Claude Code's loading rules: it is ignored for Codex rollouts";
    let rollout = fixture("codex/rollback_across_replacement_history.jsonl");
    let out = cctool()
        .args(["rebuild-chain", "--loader", "2.1.88"])
        .arg(&rollout)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(note));
    // Once for a run of several files; not at all without --loader, or for Claude Code alone.
    let out = cctool()
        .args(["extract-summary", "--loader", "2.1.88"])
        .arg(fixture("codex"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr).matches(note).count(), 1);
    let out = cctool()
        .args(["extract-summary"])
        .arg(fixture("codex"))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains(note));
    let out = cctool()
        .args(["rebuild-chain", "--loader", "2.1.88"])
        .arg(fixture("claude/tips_differ.jsonl"))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains(note));
}

#[test]
fn an_output_folder_inside_the_input_tree_is_not_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("in");
    std::fs::create_dir(&tree).unwrap();
    for f in ["claude/tips_differ.jsonl", "claude/render.jsonl"] {
        std::fs::copy(fixture(f), tree.join(Path::new(f).file_name().unwrap())).unwrap();
    }
    let out_dir = tree.join("out");
    for run in 0..2 {
        let out = cctool()
            .args(["export", "--format", "native", "--force"])
            .arg(&tree)
            .arg("-o")
            .arg(&out_dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("exported 2 of 2 sessions"), "run {run}: {err}");
    }
    let rows = tree.join("rows");
    for run in 0..2 {
        let out = cctool()
            .args(["scan", "--rows", "messages", "--json"])
            .arg(&tree)
            .arg("--out-dir")
            .arg(&rows)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !err.contains("skipped"), "run {run}: {err}");
    }
}

#[test]
fn mapped_and_streamed_reads_agree() {
    let (_d, path) = temp_with("big.jsonl", &big_transcript());
    assert!(std::fs::metadata(&path).unwrap().len() > 4 * 1024 * 1024);
    // Make the file look cold so that "auto" maps it.
    let status = std::process::Command::new("touch")
        .args(["-d", "10 minutes ago"])
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let mapped = stdout_of(&["-q", "rebuild-chain", path.to_str().unwrap()]);
    let streamed = stdout_of(&["-q", "--mmap", "never", "rebuild-chain", path.to_str().unwrap()]);
    assert_eq!(mapped.lines().count(), 3000);
    assert_eq!(mapped, streamed);
}

#[test]
fn a_closed_pipe_ends_quietly_with_status_0() {
    let (_d, path) = temp_with("big.jsonl", &big_transcript());
    for args in [
        &["-q", "rebuild-chain"][..],
        &["export", "--format", "markdown"],
        &["export", "--format", "jsonl"],
        &["export", "--format", "native"],
        &["convert", "--to", "codex"],
        &["convert", "--to", "cctool"],
    ] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("cctool"))
            .args(args)
            .arg(&path)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn control_characters_are_escaped_in_text_output() {
    let text = std::fs::read_to_string(fixture("claude/tips_differ.jsonl")).unwrap();
    let text = text.replace("go on", r"go on \u001b]0;pwned\u0007 \u001b[31mred");
    let (_d, path) = temp_with("esc.jsonl", text.as_bytes());
    let out = stdout_of(&["-q", "rebuild-chain", "--format", "text", path.to_str().unwrap()]);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'));
    assert!(out.contains(r"go on \x1b]0;pwned\x07 \x1b[31mred"));
    let mut f = std::io::sink();
    let _ = f.write_all(b"");
}

#[test]
fn a_line_longer_than_the_read_buffer_is_read_whole() {
    // 9 MiB in one record: longer than the 8 MiB buffer of the streaming reader.
    let text = std::fs::read_to_string(fixture("claude/tips_differ.jsonl")).unwrap();
    let huge = "y".repeat(9 * 1024 * 1024);
    let text = text.replace("go on", &huge);
    let (_d, path) = temp_with("huge.jsonl", text.as_bytes());
    for mmap in ["auto", "never"] {
        let out = stdout_of(&["-q", "--mmap", mmap, "rebuild-chain", path.to_str().unwrap()]);
        let recs = records(&out);
        assert_eq!(recs.len(), 5, "--mmap {mmap}");
        assert_eq!(recs[2]["message"]["content"].as_str().unwrap().len(), huge.len());
    }
}

#[test]
fn an_input_error_names_the_file_once() {
    let f = fixture("broken/empty.jsonl");
    let path = f.to_str().unwrap();
    for cmd in [
        "migrate",
        "compact",
        "rebuild-chain",
        "scan",
        "extract-summary",
        "doctor",
    ] {
        let out = cctool().args([cmd, path]).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        let first = err.lines().next().unwrap_or_default();
        assert_eq!(first.matches(path).count(), 1, "{cmd}: {err}");
        assert!(first.contains("an empty file"), "{cmd}: {err}");
    }
    // In JSON the file is a field of its own, not part of the message.
    let out = cctool().args(["scan", "--json", path]).output().unwrap();
    let diag = records(&String::from_utf8(out.stdout).unwrap())
        .into_iter()
        .find(|r| r["kind"] == "diagnostic")
        .unwrap();
    assert_eq!(diag["file"], path);
    assert!(!diag["message"].as_str().unwrap().contains(path));
}
