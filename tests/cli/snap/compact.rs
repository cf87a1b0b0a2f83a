//! `compact`: dry runs (which print the recap), writing to `-o`, per agent, and `decompress`.

use super::Case;

fn compact(file: &str, args: &[&str]) -> Case {
    Case::new("compact")
        .fixture(file)
        .args(["--keep-recent", "2000"])
        .args(args)
        .args([file])
}

#[test]
fn claude_dry_run() {
    snap!(compact("compact/claude-work.jsonl", &["--dry-run"]));
}

#[test]
fn codex_dry_run_json() {
    snap!(compact("compact/codex-work.jsonl", &["--dry-run", "--json"]));
}

#[test]
fn claude_to_output() {
    snap!(compact("compact/claude-work.jsonl", &["-o", "out.jsonl"]).show("out.jsonl"));
}

/// The turn of a Codex compaction gets a new random id.
#[test]
fn codex_to_output() {
    snap!(
        compact("compact/codex-work.jsonl", &["-o", "out.jsonl"])
            .show("out.jsonl")
            .filter(
                r#"("timestamp":"\[NOW\]"[^\n]*?"turn_id":")[0-9a-f-]{36}"#,
                "${1}[RANDOM]"
            )
    );
}

#[test]
fn session_tier1_to_output() {
    snap!(compact("compact/session-v5.json", &["--tier", "1", "-o", "out.json"]).show("out.json"));
}

#[test]
fn nothing_to_compact() {
    snap!(
        Case::new("compact")
            .fixture("compact/claude-work.jsonl")
            .args(["--dry-run", "compact/claude-work.jsonl"])
    );
}

#[test]
fn decompress_tier1() {
    let file = "compact/session-v5.json";
    let tier1 =
        Case::new("compact")
            .fixture(file)
            .args(["--tier", "1", "--keep-recent", "2000", "-o", "t1.json", file]);
    let decompress = Case::new("decompress").args(["--from", file, "-o", "full.json", "t1.json"]);
    insta::assert_snapshot!(tier1.run().code(0).then(decompress).shown());
}

/// `--into-store`: a new session in the project's folder of Claude Code's store, and the
/// command that resumes it.
#[test]
fn claude_into_store() {
    snap!(compact("compact/claude-work.jsonl", &["--into-store"]).list("home/.claude/projects/-home-dev-app"));
}

/// A Codex rollout, placed under `sessions/` by its start (no thread index to register it in).
#[test]
fn codex_into_store_json() {
    snap!(compact("compact/codex-work.jsonl", &["--into-store", "--json"]).list("home/.codex/sessions/2026/11/02"));
}

#[test]
fn session_into_store_refused() {
    snap!(compact("compact/session-v5.json", &["--into-store"]));
}
