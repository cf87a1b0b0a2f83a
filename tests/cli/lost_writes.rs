//! No line an agent appends is lost to a rewrite: a file an agent holds open for writing is
//! not replaced under it (the agent would go on writing to the old file, the backup).

use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::util::{cctool, fixture, write_aged};

/// A process holding `path` open for appending, as an idle Codex holds its rollout; it has
/// the file open once this returns, and exits when its standard input closes.
fn holder(path: &Path) -> Child {
    let mut child = Command::new("sh")
        .args(["-c", "exec 3>>\"$F\"; echo ready; read _"])
        .env("F", path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.as_mut().unwrap()), &mut ready).unwrap();
    child
}

fn release(mut child: Child) {
    drop(child.stdin.take());
    child.wait().unwrap();
}

/// `compact --in-place` and `slim --in-place` of a rollout an idle process holds open for
/// appending (old enough to pass the modification-time check) are refused, naming the
/// process; nothing is written and no backup is left. With `--force` the rewrite is done.
#[cfg(target_os = "linux")]
#[test]
fn a_rollout_held_open_for_writing_is_not_rewritten_in_place() {
    for (cmd, input) in [("compact", "compact/codex-work.jsonl"), ("slim", "slim/codex.jsonl")] {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("rollout.jsonl");
        let original = std::fs::read(fixture(input)).unwrap();
        write_aged(&f, &original);
        let extra: &[&str] = if cmd == "compact" {
            &["--keep-recent", "10"]
        } else {
            &[]
        };
        let child = holder(&f);
        let out = cctool().args([cmd, "--in-place"]).args(extra).arg(&f).output().unwrap();
        let pid = child.id();
        let e = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{cmd}: {e}");
        assert!(
            e.contains(&format!("pid {pid} (sh -c")) && e.contains("open for writing") && e.contains("--force"),
            "{cmd}: {e}"
        );
        assert!(std::fs::read(&f).unwrap() == original, "{cmd}: the file is untouched");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "{cmd}: no backup left"
        );
        let forced = cctool()
            .args([cmd, "--in-place", "--force"])
            .args(extra)
            .arg(&f)
            .output()
            .unwrap();
        release(child);
        assert_eq!(
            forced.status.code(),
            Some(0),
            "{cmd}: {}",
            String::from_utf8_lossy(&forced.stderr)
        );
        assert!(std::fs::read(&f).unwrap() != original, "{cmd}: rewritten with --force");
    }
}

/// The temporary file a cctool run is writing in `dir`, once it holds something.
fn temp_with_content(dir: &Path) -> Option<std::path::PathBuf> {
    std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).find(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().contains(".cctool-unfinished-"))
            && std::fs::metadata(p).is_ok_and(|m| m.len() > 0)
    })
}

/// Extending an earlier conversion while the target's agent appends to it: the line appended
/// after cctool read the target (once the copy of the target is in the temporary file) is
/// never lost to the rename. The run refuses and leaves the target with the line.
#[test]
fn a_line_appended_to_the_target_while_it_is_extended_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("source.jsonl");
    let out = dir.path().join("out.jsonl");
    let whole = crate::compact_crash::big_claude_transcript(6_000);
    let first: usize = whole.split_inclusive(|&b| b == b'\n').take(30).map(<[u8]>::len).sum();
    write_aged(&src, &whole[..first]);
    let convert = || {
        Command::new(env!("CARGO_BIN_EXE_cctool"))
            .env("HOME", "/nonexistent-home")
            .env_remove("CODEX_HOME")
            .args(["convert", "--to", "codex", "-o"])
            .arg(&out)
            .arg(&src)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    assert!(convert().wait_with_output().unwrap().status.success());
    write_aged(&src, &whole);
    let line = "{\"timestamp\":\"2026-01-02T00:00:00.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"appended by the agent\"}}\n";
    let mut run = convert();
    let mut hit = false;
    while run.try_wait().unwrap().is_none() {
        if temp_with_content(dir.path()).is_some() {
            let mut f = std::fs::OpenOptions::new().append(true).open(&out).unwrap();
            std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
            // The rename had not happened yet: the line went to the file being extended.
            hit = temp_with_content(dir.path()).is_some();
            break;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let done = run.wait_with_output().unwrap();
    assert!(hit, "the conversion ended before the line could be appended during it");
    let now = std::fs::read_to_string(&out).unwrap();
    let e = String::from_utf8_lossy(&done.stderr);
    assert!(now.contains("appended by the agent"), "the appended line was lost: {e}");
    assert_eq!(done.status.code(), Some(2), "{e}");
    assert!(
        e.contains("out.jsonl: not rewritten: the file changed while cctool worked on it"),
        "{e}"
    );
}

/// A file cctool wrote a moment ago (`migrate -o`, then `migrate` in place) is not a live
/// session: the next `migrate` and `compact` take it without `--force`. Once anything else
/// writes to it, it is judged by its modification time again and refused.
#[test]
fn a_file_cctool_just_wrote_is_not_taken_for_a_live_session() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.json");
    let run = |args: &[&str]| {
        let out = cctool().args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let p = s.to_str().unwrap();
    let v1 = fixture("migrate/v1.json");
    assert_eq!(
        run(&["migrate", "--to", "v3", "-o", p, v1.to_str().unwrap()]).0,
        Some(0)
    );
    let (code, e) = run(&["migrate", p]);
    assert_eq!(code, Some(0), "{e}");
    let (code, e) = run(&[
        "compact",
        "--keep-recent",
        "10",
        "-o",
        dir.path().join("c1.json").to_str().unwrap(),
        p,
    ]);
    assert!(!e.contains("modified"), "{e}");
    assert_ne!(code, Some(2), "{e}");
    let mut f = std::fs::OpenOptions::new().append(true).open(&s).unwrap();
    std::io::Write::write_all(&mut f, b"\n").unwrap();
    let (code, e) = run(&[
        "compact",
        "--keep-recent",
        "10",
        "-o",
        dir.path().join("c2.json").to_str().unwrap(),
        p,
    ]);
    assert_eq!(code, Some(2));
    assert!(e.contains("modified 0 s ago"), "{e}");
}

/// A session in which the user changed directory after its earlier conversion is still the
/// same session: the conversion is extended, not refused as "line 1 differs". Both ways.
#[test]
fn a_conversion_is_extended_after_the_user_changed_directory() {
    let dir = tempfile::tempdir().unwrap();
    let claude = |i: usize, cwd: &str| {
        let parent = if i == 0 {
            serde_json::Value::Null
        } else {
            format!("aaaaaaaa-0000-4000-8000-{:012}", i - 1).into()
        };
        let (kind, message) = if i.is_multiple_of(2) {
            (
                "user",
                serde_json::json!({"role": "user", "content": format!("question {i}")}),
            )
        } else {
            (
                "assistant",
                serde_json::json!({"id": format!("msg_{i}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": format!("answer {i}")}], "stop_reason": "end_turn"}),
            )
        };
        serde_json::json!({"type": kind, "uuid": format!("aaaaaaaa-0000-4000-8000-{i:012}"), "parentUuid": parent,
            "sessionId": "11111111-2222-4333-8444-555555555555", "cwd": cwd, "isSidechain": false, "userType": "external",
            "timestamp": format!("2026-11-30T10:00:{i:02}.000Z"), "message": message}).to_string() + "\n"
    };
    let codex = |i: usize, cwd: &str| {
        let ts = format!("2026-11-30T10:00:{i:02}.000Z");
        if i == 0 {
            return serde_json::json!({"timestamp": ts, "type": "session_meta", "payload": {"id": "11111111-2222-4333-8444-666666666666",
                "timestamp": ts, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.171.0", "source": "cli"}}).to_string() + "\n";
        }
        let role = if i % 2 == 1 { "user" } else { "assistant" };
        let kind = if role == "user" { "input_text" } else { "output_text" };
        serde_json::json!({"timestamp": ts, "type": "turn_context", "payload": {"cwd": cwd, "model": "gpt-5"}})
            .to_string()
            + "\n"
            + &serde_json::json!({"timestamp": ts, "type": "response_item", "payload": {"type": "message", "role": role,
                "content": [{"type": kind, "text": format!("text {i}")}]}})
            .to_string()
            + "\n"
    };
    for (to, line) in [
        ("codex", &claude as &dyn Fn(usize, &str) -> String),
        ("claude-code", &codex),
    ] {
        let src = dir.path().join(format!("to-{to}.jsonl"));
        let out = dir.path().join(format!("out-{to}.jsonl"));
        let text = |n: usize| {
            (0..n)
                .map(|i| line(i, if i < 4 { "/work/one" } else { "/work/two" }))
                .collect::<String>()
        };
        let convert = || {
            let o = cctool()
                .args(["convert", "--json", "--to", to, "-o"])
                .arg(&out)
                .arg(&src)
                .output()
                .unwrap();
            let e = String::from_utf8_lossy(&o.stderr).into_owned();
            assert_eq!(o.status.code(), Some(0), "{to}: {e}");
            serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
        };
        write_aged(&src, text(4).as_bytes());
        assert_eq!(convert()["written"], "new");
        write_aged(&src, text(8).as_bytes());
        assert_eq!(convert()["written"], "appended", "{to}");
    }
}
