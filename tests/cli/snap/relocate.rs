//! `relocate` in a scratch `HOME` holding the store fixture's Claude Code and Codex folders:
//! what a dry run says, and a run with where the files went.

use super::Case;

fn home(command: &str) -> Case {
    Case::new(command)
        .fixture_at("store/.claude", "home/.claude")
        .fixture_at("store/.codex", "home/.codex")
}

#[test]
fn dry_run() {
    snap!(home("relocate --dry-run /home/dev/shop /work/shop"));
}

#[test]
fn moved() {
    snap!(home("relocate /home/dev/shop /work/shop").list("home/.claude/projects"));
}

#[test]
fn rewrite_content_json() {
    snap!(home(
        "relocate --dry-run --rewrite-content --json /home/dev/api /srv/api"
    ));
}

#[test]
fn new_inside_old() {
    snap!(home("relocate /home/dev/shop /home/dev/shop/v2"));
}

/// `merge` of two homes holding the same store: every file identical, one kept.
#[test]
fn merge_two_homes() {
    snap!(
        Case::new("merge a b --to arc")
            .fixture_at("store/.claude", "a/.claude")
            .fixture_at("store/.claude", "b/.claude")
            .filter(r"\d{8}T\d{9}Z-\d+\.json\.zst", "[TIME]-[PID].json.zst")
    );
}
