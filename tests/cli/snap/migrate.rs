//! `migrate`: `--check` of a folder, a migration to stdout, imports of each agent's files.

use super::Case;

#[test]
fn check_folder() {
    snap!(Case::new("migrate").fixture("migrate").args(["--check", "migrate"]));
}

#[test]
fn check_json() {
    snap!(
        Case::new("migrate")
            .fixture("migrate")
            .args(["--check", "--json", "migrate"])
    );
}

#[test]
fn v3_to_stdout() {
    snap!(
        Case::new("migrate")
            .fixture("migrate/v3.json")
            .args(["--to", "v5", "migrate/v3.json", "-o", "-"])
    );
}

#[test]
fn v1_in_place_dry_run() {
    snap!(
        Case::new("migrate")
            .fixture("migrate/v1.json")
            .args(["--dry-run", "migrate/v1.json"])
    );
}

#[test]
fn v1_in_place() {
    snap!(
        Case::new("migrate")
            .fixture("migrate/v1.json")
            .args(["migrate/v1.json"])
            .show("migrate/v1.json")
    );
}

#[test]
fn import_claude_to_stdout() {
    snap!(
        Case::new("migrate")
            .fixture("claude/render.jsonl")
            .args(["claude/render.jsonl", "-o", "-"])
    );
}

#[test]
fn import_codex_to_file() {
    snap!(
        Case::new("migrate")
            .fixture("codex/chain/remote_compaction.jsonl")
            .args(["codex/chain/remote_compaction.jsonl", "-o", "out.json"])
            .show("out.json")
    );
}
