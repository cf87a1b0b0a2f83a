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
