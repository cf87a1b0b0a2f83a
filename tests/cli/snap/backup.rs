//! `backup` and `restore` of the stores in a scratch `HOME`: first run, a run with nothing new,
//! `--verify`, the listing, and a session restored to a folder.

use super::Case;
use crate::case::Run;

/// A scratch `HOME` holding the store fixture's Claude Code and Codex folders.
fn home(command: &str) -> Case {
    Case::new(command)
        .fixture_at("store/.claude", "home/.claude")
        .fixture_at("store/.codex", "home/.codex")
}

/// What differs from run to run in an archive: a snapshot is named by its time and the
/// process id, and its manifest (which holds them) compresses to a varying size.
fn archive(case: Case) -> Case {
    case.filter(r"\d{8}T\d{9}Z-\d+\.json\.zst", "[TIME]-[PID].json.zst")
        .filter(r"[\d.]+ (?:B|KiB|MiB) written", "[N] written")
        .filter(r#""written_bytes":\d+"#, r#""written_bytes":[N]"#)
}

/// `then` run after a first backup of the scratch `HOME`, in the same folder.
fn after_backup(then: Case) -> Run {
    home("backup").run().code(0).then(archive(then))
}

#[test]
fn first_backup() {
    snap!(archive(home("backup")));
}

#[test]
fn first_backup_json() {
    snap!(archive(home("backup --json")));
}

#[test]
fn nothing_new() {
    insta::assert_snapshot!(after_backup(Case::new("backup")).shown());
}

#[test]
fn verify() {
    insta::assert_snapshot!(after_backup(Case::new("backup --verify")).shown());
}

#[test]
fn restore_list() {
    insta::assert_snapshot!(after_backup(Case::new("restore")).shown());
}

#[test]
fn restore_list_json() {
    insta::assert_snapshot!(after_backup(Case::new("restore --json")).shown());
}

#[test]
fn restore_to_folder() {
    let restore = Case::new("restore a1b2c3d4-1111-4aaa-8aaa-00000000000a --to restored")
        .show("restored/claude/projects/-home-dev-shop/a1b2c3d4-1111-4aaa-8aaa-00000000000a.jsonl");
    insta::assert_snapshot!(after_backup(restore).shown());
}

#[test]
fn restore_without_archive() {
    snap!(home("restore"));
}
