//! No byte from a file can drive the terminal: every text view of every command, on files
//! whose every string field (titles, cwd, versions, triggers, tool names and ids, roles,
//! record types, models, file names) holds clipboard writes, title changes, screen clears and
//! C1 controls, prints no raw ESC, BEL or C1 character on stdout or stderr.

use std::path::Path;

use crate::util::{cctool, fixture};

const FILES: &[&str] = &[
    "broken/terminal-escapes.jsonl",
    "broken/terminal-escapes-everywhere.jsonl",
    "broken/terminal-escapes-codex.jsonl",
    "broken/terminal-escapes-session.v5.json",
];

/// Every text view (and the JSON ones, whose stderr is text).
const VIEWS: &[&[&str]] = &[
    &["rebuild-chain", "--format", "text"],
    &["rebuild-chain", "--format", "markdown"],
    &["rebuild-chain", "--format", "text", "--full", "--full-output"],
    &["rebuild-chain", "--format", "markdown", "--loader", "2.1.88"],
    &["rebuild-chain", "--api-view", "--format", "text", "--prompt", "go on"],
    &["rebuild-chain", "--replay", "legacy", "--format", "text"],
    &["rebuild-chain"],
    &["rebuild-chain", "--json"],
    &["extract-summary"],
    &["extract-summary", "--all-events", "--strip-template"],
    &["extract-summary", "--current"],
    &["scan"],
    &["scan", "--wide"],
    &["scan", "--json"],
    &["doctor"],
    &["doctor", "--json"],
    &["compact", "--dry-run", "--keep-recent", "0"],
    &["compact", "--dry-run", "--json", "--keep-recent", "0"],
    &["migrate", "--dry-run"],
    &["decompress", "--dry-run", "--from", "fixtures/compact/session-v5.json"],
];

/// The first raw ESC, BEL or (with `c1`) C1 control character.
fn raw_control(bytes: &[u8], c1: bool) -> Option<usize> {
    bytes.iter().enumerate().position(|(i, &b)| {
        b == 0x1b || b == 0x07 || (c1 && b == 0xC2 && bytes.get(i + 1).is_some_and(|n| (0x80..=0x9F).contains(n)))
    })
}

/// JSON Lines views: JSON writes C0 controls as escapes, and C1 ones only on a terminal
/// (JSON allows them raw, and rebuild-chain's records are the file's bytes in a pipe).
fn is_json(args: &[&str]) -> bool {
    args.contains(&"--json") || args == ["rebuild-chain"]
}

fn check(args: &[&str], path: &Path, columns: &str) {
    let out = cctool()
        .current_dir(crate::util::root())
        .env("COLUMNS", columns)
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    for (stream, bytes, c1) in [("stdout", &out.stdout, !is_json(args)), ("stderr", &out.stderr, true)] {
        if let Some(at) = raw_control(bytes, c1) {
            let from = at.saturating_sub(80);
            panic!(
                "{args:?} {}: raw control byte on {stream} at {at}: {:?}",
                path.display(),
                String::from_utf8_lossy(&bytes[from..(at + 40).min(bytes.len())])
            );
        }
    }
}

#[test]
fn no_view_of_any_command_lets_a_control_character_through() {
    for f in FILES {
        for args in VIEWS {
            for columns in ["80", "250"] {
                check(args, &fixture(f), columns);
            }
        }
    }
}

#[test]
fn nor_does_a_file_name() {
    let dir = tempfile::tempdir().unwrap();
    for f in FILES {
        let src = fixture(f);
        let name = format!(
            "evil\u{1b}]0;t\u{7}\u{9b}2J-{}",
            src.file_name().unwrap().to_str().unwrap()
        );
        std::fs::copy(&src, dir.path().join(name)).unwrap();
    }
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        for args in VIEWS {
            check(args, &path, "100");
        }
    }
    for args in [&["scan", "--wide"][..], &["doctor"], &["extract-summary"], &["scan"]] {
        check(args, dir.path(), "100");
    }
}

#[test]
fn escaped_text_stays_readable() {
    let out = cctool()
        .env("COLUMNS", "250")
        .args(["scan", "--wide"])
        .arg(fixture("broken/terminal-escapes-everywhere.jsonl"))
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    // The title and the trigger, shown with their escapes written out.
    assert!(table.contains(r"title \x1b]52;c;cHduZWQ=\x07"), "{table}");
    assert!(table.contains(r"1 auto\x1b]52;c;"), "{table}");
}
