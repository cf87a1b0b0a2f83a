//! `slim`: dry runs, a slimmed copy with extracted payloads, and `--restore` putting them back.

use super::Case;

#[test]
fn dry_run_both_agents() {
    snap!(
        Case::new("slim")
            .fixture("slim")
            .args(["--dry-run", "slim/claude.jsonl", "slim/codex.jsonl"])
    );
}

#[test]
fn json_dry_run() {
    snap!(
        Case::new("slim")
            .fixture("slim")
            .args(["--dry-run", "--json", "slim/codex.jsonl"])
    );
}

#[test]
fn extract_then_restore() {
    let slim = Case::new("slim").fixture("slim/claude.jsonl").args([
        "--images",
        "all",
        "--extract",
        "payloads",
        "-o",
        "slim.jsonl",
        "slim/claude.jsonl",
    ]);
    let run = slim.run();
    insta::assert_snapshot!("extract", run.shown());
    let back = run.then(Case::new("slim").args(["--restore", "payloads", "-o", "back.jsonl", "slim.jsonl"]));
    insta::assert_snapshot!("restore", back.shown());
    let original = std::fs::read(crate::util::fixture("slim/claude.jsonl")).expect("fixture");
    assert!(
        std::fs::read(back.path("back.jsonl")).expect("restored") == original,
        "restored byte for byte"
    );
}
