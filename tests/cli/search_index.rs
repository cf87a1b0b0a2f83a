//! `cctool index` and `search` with it: the same hits with and without the index on every
//! fixture and the shared samples, for phrases of what was said and patterns of every kind;
//! a file that grew is read only from where it grew; an interrupted run leaves a usable
//! index; one writer at a time; an index of another schema is rebuilt.

use std::path::{Path, PathBuf};
use std::process::Output;

use super::search::{Kind, messages, phrases, session_fixtures};
use crate::util::{cctool, copy_tree, root};

/// `cctool` with its index in `idx`.
fn with_index(idx: &Path) -> assert_cmd::Command {
    let mut c = cctool();
    c.env("CCTOOL_INDEX_DIR", idx);
    c
}

fn index(idx: &Path, paths: &[&Path]) -> serde_json::Value {
    let o = with_index(idx).args(["index", "--json"]).args(paths).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|r| r["kind"] == "index")
        .unwrap_or_else(|| panic!("no index record: {stdout}\n{}", String::from_utf8_lossy(&o.stderr)))
}

/// The note `search` says when it used the index.
const NOTE: &str = "cctool: search: the index is fresh for";

fn search(idx: &Path, args: &[&str], pattern: &str, dir: &Path, no_index: bool) -> Output {
    let mut c = with_index(idx);
    c.arg("search").args(args);
    if no_index {
        c.arg("--no-index");
    }
    c.arg("--").arg(pattern).arg(dir).output().unwrap()
}

/// Runs each pattern with each set of flags with and without the index and lists what
/// differs: stdout, the exit status, stderr but the index's note; and that the index was used
/// (but, with `grown`, for `--scope effective`: what a resume rebuilds of a grown file is
/// not known until it is read whole, so every file is read).
fn differences(idx: &Path, dir: &Path, patterns: &[String], flags: &[&[&str]], grown: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for p in patterns {
        for f in flags {
            let with = search(idx, f, p, dir, false);
            let without = search(idx, f, p, dir, true);
            let stderr = String::from_utf8_lossy(&with.stderr);
            let expected = !(grown && f.contains(&"effective"));
            if stderr.contains(NOTE) != expected {
                problems.push(format!("{p:?} {f:?}: the index was used: {expected}: {stderr}"));
            }
            let rest: String = stderr
                .lines()
                .filter(|l| !l.starts_with(NOTE))
                .map(|l| format!("{l}\n"))
                .collect();
            if with.stdout != without.stdout
                || with.status.code() != without.status.code()
                || rest != String::from_utf8_lossy(&without.stderr)
            {
                problems.push(format!(
                    "{p:?} {f:?}: differs\n--- with the index\n{}{rest}\n--- without\n{}{}",
                    String::from_utf8_lossy(&with.stdout),
                    String::from_utf8_lossy(&without.stdout),
                    String::from_utf8_lossy(&without.stderr)
                ));
            }
        }
    }
    problems
}

/// Patterns of every kind the index treats apart: runs long enough for a trigram and not,
/// quotes, backslashes, line breaks, tabs, non-ASCII text, emoji, letters Unicode folds with
/// others, and text only a rebuilt history holds.
const PATTERNS: &[&str] = &[
    "e",
    "the",
    "\"",
    "\\",
    "\n",
    "\t",
    "é",
    "日本",
    "😀",
    "it's",
    "README",
    "a b",
    "k",
    "S",
    "ask",
    "tokens truncated",
    "no summary available",
    "Summary",
];

const FLAGS: &[&[&str]] = &[
    &["--json", "--thinking", "--tools"],
    &["--json", "--scope", "effective"],
    &["-i", "-w", "-c"],
    &["-s", "--json", "--role", "user"],
];

/// Phrases of what was said in `files`, a few of each kind.
fn said(files: &[PathBuf]) -> Vec<String> {
    let mut per_kind: std::collections::BTreeMap<Kind, Vec<String>> = Default::default();
    for file in files {
        for m in messages(file) {
            if !matches!(m["role"].as_str(), Some("user" | "assistant")) {
                continue;
            }
            let Some(text) = m["text"].as_str() else { continue };
            for (kind, phrase) in phrases(text) {
                let list = per_kind.entry(kind).or_default();
                if list.len() < 6 && !list.contains(&phrase) {
                    list.push(phrase);
                }
            }
        }
    }
    per_kind.into_values().flatten().collect()
}

fn same_hits_on(dir: &Path, files: &[PathBuf]) {
    let idx = tempfile::tempdir().unwrap();
    let stats = index(idx.path(), &[dir]);
    assert!(stats["whole"].as_u64().unwrap() > 0, "{stats}");
    let mut problems = differences(
        idx.path(),
        dir,
        &PATTERNS.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        FLAGS,
        false,
    );
    let phrases = said(files);
    assert!(phrases.len() > 20, "{phrases:?}");
    problems.extend(differences(
        idx.path(),
        dir,
        &phrases,
        &[
            &["--json", "-s", "--thinking"],
            &["--json", "--scope", "effective", "-i"],
        ],
        false,
    ));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_index_changes_no_hit_on_the_fixtures() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join("fixtures"), dir.path());
    let files: Vec<PathBuf> = session_fixtures()
        .into_iter()
        .map(|f| dir.path().join(f.strip_prefix(root().join("fixtures")).unwrap()))
        .collect();
    same_hits_on(dir.path(), &files);
}

#[test]
fn the_index_changes_no_hit_on_the_samples() {
    let Some(samples) = crate::util::shared_dir() else {
        return;
    };
    let mut files = Vec::new();
    for e in walkdir(&samples) {
        if e.extension().is_some_and(|x| x == "jsonl") {
            files.push(e);
        }
    }
    same_hits_on(&samples, &files);
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Each fixture cut at a line, indexed, then given the rest: the second run reads only the
/// rest (and the last line it had indexed, to know the file only grew), and the hits are
/// those of the whole file.
#[test]
fn a_file_that_grew_is_read_from_where_it_grew() {
    let files = [
        "claude/render.jsonl",
        "claude/chain/auto_compaction_2_0_76.jsonl",
        "codex/rollback_across_replacement_history.jsonl",
        "codex/summaries/compaction_summary_item.jsonl",
        "codex/chain/local_compaction_2026.jsonl",
        "codex/chain/legacy_compaction_2025_12.jsonl",
    ];
    let dir = tempfile::tempdir().unwrap();
    let idx = tempfile::tempdir().unwrap();
    let mut grown_bytes = 0;
    let mut paths = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let Ok(bytes) = std::fs::read(root().join("fixtures").join(f)) else {
            panic!("fixtures/{f} is missing")
        };
        let ends: Vec<usize> = bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1)
            .collect();
        let cut = ends[ends.len() / 2];
        let last_start = ends.iter().rev().find(|&&e| e < cut).copied().unwrap_or(0);
        let path = dir.path().join(format!("{i}.jsonl"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        grown_bytes += (bytes.len() - cut) + (cut - last_start);
        paths.push((path, bytes, cut));
    }
    let first = index(idx.path(), &[dir.path()]);
    assert_eq!(first["whole"], files.len(), "{first}");
    for (path, bytes, cut) in &paths {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(&bytes[*cut..]).unwrap();
    }
    let second = index(idx.path(), &[dir.path()]);
    assert_eq!(second["grown"], files.len(), "{second}");
    assert_eq!(second["bytes_read"], grown_bytes, "{second}");
    let third = index(idx.path(), &[dir.path()]);
    assert_eq!(
        (third["unchanged"].clone(), third["bytes_read"].clone()),
        (files.len().into(), 0.into())
    );
    let all: Vec<PathBuf> = paths.iter().map(|(p, ..)| p.clone()).collect();
    let mut patterns: Vec<String> = said(&all);
    patterns.extend(PATTERNS.iter().map(|s| s.to_string()));
    let problems = differences(idx.path(), dir.path(), &patterns, FLAGS, true);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A file rewritten (shorter, or the same size with other bytes) is read whole again, and a
/// deleted one leaves the index.
#[test]
fn a_rewritten_file_is_read_whole_and_a_deleted_one_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let idx = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    std::fs::copy(root().join("fixtures/claude/render.jsonl"), &a).unwrap();
    std::fs::copy(root().join("fixtures/claude/chain/auto_compaction_2_0_76.jsonl"), &b).unwrap();
    index(idx.path(), &[dir.path()]);
    std::fs::copy(
        root().join("fixtures/codex/summaries/compaction_summary_item.jsonl"),
        &a,
    )
    .unwrap();
    std::fs::remove_file(&b).unwrap();
    let r = index(idx.path(), &[dir.path()]);
    assert_eq!((r["whole"].clone(), r["removed"].clone()), (1.into(), 1.into()), "{r}");
    let problems = differences(idx.path(), dir.path(), &["the".into(), "summary".into()], FLAGS, false);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Killed at any moment, `index` leaves an index that searches read (and give the same
/// hits as reading the files), and that the next run completes.
#[test]
fn an_interrupted_index_leaves_a_usable_index() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..6 {
        copy_tree(&root().join("fixtures/claude"), &dir.path().join(format!("c{i}")));
        copy_tree(&root().join("fixtures/codex"), &dir.path().join(format!("x{i}")));
    }
    let mut seed = 48;
    for round in 0..4 {
        let idx = tempfile::tempdir().unwrap();
        let delay = 20 + crate::util::next_random(&mut seed) % 400;
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("cctool"));
        cmd.env("CCTOOL_INDEX_DIR", idx.path())
            .env("HOME", "/nonexistent-home")
            .arg("index")
            .arg(dir.path());
        crate::util::kill_after(&mut cmd, std::time::Duration::from_millis(delay));
        for p in ["the", "crate"] {
            let with = search(idx.path(), &["--json"], p, dir.path(), false);
            let without = search(idx.path(), &["--json"], p, dir.path(), true);
            assert_eq!(
                with.stdout, without.stdout,
                "round {round}, killed after {delay} ms: {p}"
            );
        }
        let r = index(idx.path(), &[dir.path()]);
        assert!(r["files"].as_u64().unwrap() > 0, "round {round}: {r}");
        let again = index(idx.path(), &[dir.path()]);
        assert_eq!(again["unchanged"], again["files"], "round {round}: {again}");
    }
}

/// A second writer waits for the first and says so; searches read meanwhile.
#[test]
fn one_writer_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let idx = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("fixtures/claude/render.jsonl"), dir.path().join("a.jsonl")).unwrap();
    index(idx.path(), &[dir.path()]);
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(idx.path().join("index.lock"))
        .unwrap();
    lock.lock().unwrap();
    let mut second = std::process::Command::new(assert_cmd::cargo::cargo_bin("cctool"))
        .env("CCTOOL_INDEX_DIR", idx.path())
        .env("HOME", "/nonexistent-home")
        .arg("index")
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(second.try_wait().unwrap().is_none(), "the second writer did not wait");
    let read = search(idx.path(), &[], "crates", dir.path(), false);
    assert!(String::from_utf8_lossy(&read.stderr).contains(NOTE));
    lock.unlock().unwrap();
    let out = second.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("waiting for it"));
}

/// An index written with another schema is not read, and the next run rebuilds it.
#[test]
fn an_index_of_another_schema_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let idx = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("fixtures/claude/render.jsonl"), dir.path().join("a.jsonl")).unwrap();
    index(idx.path(), &[dir.path()]);
    let db = rusqlite::Connection::open(idx.path().join("index.sqlite3")).unwrap();
    db.pragma_update(None, "user_version", 999).unwrap();
    drop(db);
    let read = search(idx.path(), &[], "crates", dir.path(), false);
    assert!(!String::from_utf8_lossy(&read.stderr).contains(NOTE));
    let r = index(idx.path(), &[dir.path()]);
    assert_eq!(r["whole"], 1, "{r}");
    let read = search(idx.path(), &[], "crates", dir.path(), false);
    assert!(String::from_utf8_lossy(&read.stderr).contains(NOTE));
}

/// `--rank` orders by relevance with the index, and says it cannot without one.
#[test]
fn rank_needs_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let idx = tempfile::tempdir().unwrap();
    copy_tree(&root().join("fixtures/claude"), dir.path());
    let without = search(idx.path(), &["--rank", "-c"], "the", dir.path(), false);
    assert!(String::from_utf8_lossy(&without.stderr).contains("--rank needs a fresh index"));
    index(idx.path(), &[dir.path()]);
    let with = search(idx.path(), &["--rank", "-c", "--json"], "the", dir.path(), false);
    let plain = search(idx.path(), &["-c", "--json"], "the", dir.path(), false);
    let sorted = |o: &Output| {
        let mut l: Vec<String> = String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect();
        l.sort();
        l
    };
    assert_eq!(sorted(&with), sorted(&plain));
    assert!(with.status.success());
}

/// `hooks install --index` installs hooks that run `hooks run --index`, which bring the index
/// up to date with the transcript they are called about.
#[test]
fn the_hook_refreshes_the_index() {
    let home = tempfile::tempdir().unwrap();
    let idx = tempfile::tempdir().unwrap();
    let o = with_index(idx.path())
        .env("HOME", home.path())
        .args(["hooks", "install", "claude-code", "--index", "--command", "cctool"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let settings = std::fs::read_to_string(home.path().join(".claude/settings.json")).unwrap();
    assert!(settings.contains("cctool hooks run claude-code --index"), "{settings}");
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    std::fs::copy(root().join("fixtures/claude/render.jsonl"), &t).unwrap();
    let input = serde_json::json!({"hook_event_name": "PreCompact", "transcript_path": t, "trigger": "manual"});
    let o = with_index(idx.path())
        .env("HOME", home.path())
        .args(["hooks", "run", "claude-code", "--index", "--to"])
        .arg(home.path().join("archive"))
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert!(o.status.success());
    let log = std::fs::read_to_string(home.path().join("archive/hooks.log")).unwrap_or_default();
    assert!(log.contains("index: "), "{log}");
    let read = search(idx.path(), &[], "crates", dir.path(), false);
    assert!(String::from_utf8_lossy(&read.stderr).contains(NOTE), "{log}");
}
