//! `compact --in-place` failing at every step of the rewrite (`CCTOOL_FAIL_AT`), killed at
//! random points of a large rewrite (SIGKILL), and `-o` never touching its input: afterwards
//! the file is the original or exactly what a clean run writes, the backup (when there is one)
//! is the original, and nothing temporary is left. `tests/kill-loop-compact.sh` runs the kill
//! loop for long, by hand.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime};

use crate::util::{age, cctool, fixture, kill_after, next_random, write_aged};

/// Compaction writes timestamps from the clock: fixed, so two runs write the same bytes.
const EPOCH: &str = "1700000000";

const FIXTURES: &[&str] = &["claude-work.jsonl", "codex-work.jsonl", "session-v5.json"];

/// The steps of a rewrite, as `src/io/atomic.rs` names them.
const STEPS: &[&str] = &[
    "before-backup",
    "after-backup",
    "after-temp",
    "before-rename",
    "after-rename",
];

fn compact(args: &[&str], file: &Path, fail_at: Option<&str>, copy_backup: bool) -> Output {
    let mut cmd = cctool();
    cmd.env("SOURCE_DATE_EPOCH", EPOCH)
        .env_remove("CCTOOL_FAIL_AT")
        .env_remove("CCTOOL_BACKUP")
        .arg("compact")
        .args(args)
        .arg(file);
    if let Some(step) = fail_at {
        cmd.env("CCTOOL_FAIL_AT", step);
    }
    if copy_backup {
        cmd.env("CCTOOL_BACKUP", "copy");
    }
    cmd.output().expect("run cctool")
}

const IN_PLACE: &[&str] = &["--in-place", "--keep-recent", "3000"];

/// The names in `dir`, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn backups_of(dir: &Path, name: &str) -> Vec<PathBuf> {
    names_in(dir)
        .into_iter()
        .filter(|n| n.starts_with(&format!("{name}.precompact.")) && n.ends_with(".bak"))
        .map(|n| dir.join(n))
        .collect()
}

fn assert_no_temp(dir: &Path, what: &str) {
    let left: Vec<String> = names_in(dir).into_iter().filter(|n| n.ends_with(".tmp")).collect();
    assert!(left.is_empty(), "{what}: temporary files left: {left:?}");
}

/// Empties `dir` and puts an aged copy of `original` at `dir/name`.
fn fresh_copy(dir: &Path, name: &str, original: &[u8]) -> PathBuf {
    for n in names_in(dir) {
        std::fs::remove_file(dir.join(n)).unwrap();
    }
    let f = dir.join(name);
    write_aged(&f, original);
    f
}

/// What a clean `compact --in-place` writes at `dir/name` (the path is part of the output: the
/// Claude Code summary says where the full transcript is).
fn clean_result(dir: &Path, name: &str, original: &[u8]) -> Vec<u8> {
    let f = fresh_copy(dir, name, original);
    let out = compact(IN_PLACE, &f, None, false);
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let compacted = std::fs::read(&f).unwrap();
    assert_ne!(compacted, original, "{name}: the fixture was not compacted");
    compacted
}

#[test]
fn in_place_failing_at_every_step_leaves_the_original_or_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = 0;
    for name in FIXTURES {
        let original = std::fs::read(fixture(&format!("compact/{name}"))).unwrap();
        let expected = clean_result(dir.path(), name, &original);
        // Twice: with the backup as a hard link, and as a copy (filesystems without links).
        for copy_backup in [false, true] {
            for step in STEPS {
                let what = format!("{name} failing {step} (backup copied: {copy_backup})");
                let f = fresh_copy(dir.path(), name, &original);
                let out = compact(IN_PLACE, &f, Some(step), copy_backup);
                runs += 1;
                assert_eq!(out.status.code(), Some(2), "{what}: exit status");
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    stderr.contains(&format!("injected failure at {step}")),
                    "{what}: {stderr}"
                );

                let now = std::fs::read(&f).unwrap();
                let replaced = *step == "after-rename";
                if replaced {
                    assert!(now == expected, "{what}: the file is not what a clean run writes");
                } else {
                    assert!(now == original, "{what}: the file is not the original");
                }
                let backups = backups_of(dir.path(), name);
                assert_eq!(
                    backups.len(),
                    usize::from(*step != "before-backup"),
                    "{what}: backups {backups:?}"
                );
                for b in &backups {
                    assert!(
                        std::fs::read(b).unwrap() == original,
                        "{what}: the backup is not the original"
                    );
                }
                assert_no_temp(dir.path(), &what);

                // A clean run afterwards works, and from the original writes the clean result
                // (a leftover backup is kept: the new one takes the next free name).
                age(&f);
                let out = compact(&["--in-place", "--keep-recent", "1000"], &f, None, copy_backup);
                runs += 1;
                assert!(
                    out.status.success(),
                    "{what}, then clean: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_no_temp(dir.path(), &what);
                if !replaced {
                    let f2 = fresh_copy(dir.path(), name, &original);
                    let _ = std::fs::write(dir.path().join(format!("{name}.precompact.bak")), &original);
                    let out = compact(IN_PLACE, &f2, None, copy_backup);
                    runs += 1;
                    assert!(out.status.success(), "{what}, then clean");
                    assert!(
                        std::fs::read(&f2).unwrap() == expected,
                        "{what}, then clean: not the clean result"
                    );
                    let second = dir.path().join(format!("{name}.precompact.1.bak"));
                    assert!(
                        std::fs::read(&second).unwrap() == original,
                        "{what}, then clean: backup"
                    );
                }
            }
        }
    }
    eprintln!("{runs} compact runs with injected failures and clean reruns");
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn output_flag_never_modifies_the_input() {
    let dir = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        let original = std::fs::read(fixture(&format!("compact/{name}"))).unwrap();
        let in_place = clean_result(dir.path(), name, &original);
        let f = fresh_copy(dir.path(), name, &original);
        let before = mtime(&f);
        let out_path = dir.path().join(format!("out-{name}"));
        // Failing at each step of writing the new file, then succeeding.
        for step in STEPS.iter().map(Some).chain([None]) {
            let out = compact(
                &["--keep-recent", "3000", "-o", out_path.to_str().unwrap()],
                &f,
                step.copied(),
                false,
            );
            let what = format!("{name} -o (failing at {step:?})");
            assert_eq!(std::fs::read(&f).unwrap(), original, "{what}: input bytes changed");
            assert_eq!(mtime(&f), before, "{what}: input mtime changed");
            assert!(backups_of(dir.path(), name).is_empty(), "{what}: -o made a backup");
            assert_no_temp(dir.path(), &what);
            match step {
                // A new file has no backup: those steps are not on its path.
                Some(&"before-backup" | &"after-backup") | None => {
                    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
                    // The same content as compacting in place (same input path, same clock).
                    assert!(
                        std::fs::read(&out_path).unwrap() == in_place,
                        "{what}: differs from --in-place"
                    );
                    if step.is_some() {
                        std::fs::remove_file(&out_path).unwrap();
                    }
                }
                Some(&"after-rename") => {
                    assert_eq!(out.status.code(), Some(2), "{what}");
                    std::fs::remove_file(&out_path).unwrap();
                }
                Some(_) => {
                    assert_eq!(out.status.code(), Some(2), "{what}");
                    assert!(!out_path.exists(), "{what}: a partial output exists");
                }
            }
        }
        // An existing output is not replaced without --force, and the input stays as it was.
        let out = compact(
            &["--keep-recent", "3000", "-o", out_path.to_str().unwrap()],
            &f,
            None,
            false,
        );
        assert_eq!(out.status.code(), Some(2), "{name}: -o over an existing file");
        assert_eq!(std::fs::read(&f).unwrap(), original);
        assert_eq!(mtime(&f), before);
    }
}

#[test]
fn in_place_backup_is_the_original_and_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        let original = std::fs::read(fixture(&format!("compact/{name}"))).unwrap();
        let f = fresh_copy(dir.path(), name, &original);
        let out = compact(IN_PLACE, &f, None, false);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let first = std::fs::read(&f).unwrap();
        let b0 = dir.path().join(format!("{name}.precompact.bak"));
        assert_eq!(std::fs::read(&b0).unwrap(), original, "{name}: first backup");
        // The result is cctool's own and untouched, so not refused as live however new
        // (lost_writes::a_file_cctool_just_wrote_is_not_taken_for_a_live_session).
        let out = compact(&["--in-place", "--keep-recent", "1000"], &f, None, false);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_ne!(
            std::fs::read(&f).unwrap(),
            first,
            "{name}: the second run changed nothing"
        );
        assert_eq!(
            std::fs::read(&b0).unwrap(),
            original,
            "{name}: the first backup was overwritten"
        );
        let b1 = dir.path().join(format!("{name}.precompact.1.bak"));
        assert_eq!(std::fs::read(&b1).unwrap(), first, "{name}: the second backup");
        assert_no_temp(dir.path(), name);
    }
}

/// A Claude Code transcript of `rows` user, assistant (tool call) and tool result rows, with
/// bodies: about 1.2 kB a row on average.
pub fn big_claude_transcript(rows: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows * 2200);
    let mut parent = serde_json::Value::Null;
    let body = "fn main() { println!(\"módulo ✓\"); }\n".repeat(80);
    for i in 0..rows {
        let uuid = format!("00000000-0000-4000-8000-{i:012}");
        let ts = format!(
            "2026-01-01T{:02}:{:02}:{:02}.000Z",
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60
        );
        let env = serde_json::json!({
            "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/work/app",
            "sessionId": "big-session", "version": "2.1.0", "uuid": uuid, "timestamp": ts,
        });
        let mut rec = env.as_object().unwrap().clone();
        let call = format!("toolu_{:08}", i - i % 3 + 1);
        let (kind, message) = match i % 3 {
            0 => (
                "user",
                serde_json::json!({"role": "user", "content": format!("request {i}: look at src/m{i}.rs")}),
            ),
            1 => (
                "assistant",
                serde_json::json!({"id": format!("msg_{i}"), "role": "assistant", "model": "claude", "content": [
                    {"type": "text", "text": format!("Reading src/m{i}.rs.")},
                    {"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": format!("src/m{i}.rs")}}]}),
            ),
            _ => (
                "user",
                serde_json::json!({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": call, "content": body}]}),
            ),
        };
        rec.insert("type".into(), kind.into());
        rec.insert("message".into(), message);
        out.extend_from_slice(serde_json::to_string(&rec).unwrap().as_bytes());
        out.push(b'\n');
        parent = uuid.into();
    }
    out
}

#[test]
fn sigkill_during_compact_never_loses_the_file() {
    let original = big_claude_transcript(20_000);
    assert!(original.len() > 20_000_000, "{} bytes", original.len());
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.jsonl");
    let keep = ["--in-place", "--keep-recent", "200000"];
    // The expected result (same path, same clock), and how long a clean run takes.
    let t0 = Instant::now();
    let expected = {
        write_aged(&f, &original);
        let out = compact(&keep, &f, None, false);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read(&f).unwrap()
    };
    let took = t0.elapsed().as_micros().max(1000) as u64;
    assert_ne!(expected, original);
    let mut seed = u64::from(std::process::id()) ^ (t0.elapsed().as_nanos() as u64);
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let backup = dir.path().join("s.jsonl.precompact.bak");
    let (mut old, mut new) = (0, 0);
    let rounds = 5;
    for round in 0..rounds {
        fresh_copy(dir.path(), "s.jsonl", &original);
        // Stratified: each round is killed somewhere in its own slice of [0, 1.2 × a clean run),
        // so few rounds still reach every phase (reading, writing the temporary file, rename).
        let slice = took * 6 / 5 / rounds;
        let delay = Duration::from_micros(round * slice + next_random(&mut seed) % slice);
        kill_after(
            Command::new(&bin)
                .args(["compact"])
                .args(keep)
                .arg(&f)
                .env("SOURCE_DATE_EPOCH", EPOCH)
                .env("HOME", "/nonexistent-home")
                .env_remove("CCTOOL_FAIL_AT"),
            delay,
        );
        let now = std::fs::read(&f).unwrap();
        if now == original {
            old += 1;
        } else if now == expected {
            new += 1;
            assert!(
                std::fs::read(&backup).is_ok_and(|b| b == original),
                "round {round}: the compacted file without its backup"
            );
        } else {
            panic!("round {round} (killed after {delay:?}): the file is neither the original nor the compaction");
        }
        if let Ok(b) = std::fs::read(&backup) {
            assert!(b == original, "round {round}: a backup that is not the original");
        }
    }
    eprintln!("{rounds} kills of compact: {old} left the original, {new} the compacted file");
}
