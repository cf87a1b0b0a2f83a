//! `extract-summary`: every summary, `--current`, `--json`, `--strip-template`, per agent.

use super::Case;

const FILES: &[&str] = &[
    "claude/summaries/template_eras.jsonl",
    "claude/chain/three_compactions_2_1_7.jsonl",
    "codex/chain/local_compaction_2026.jsonl",
    "codex/chain/remote_compaction.jsonl",
    "session/with_summary.v5.json",
];

fn summaries(args: &[&str]) -> Case {
    FILES
        .iter()
        .fold(Case::new("extract-summary"), |c, f| c.fixture(f))
        .args(args)
        .args(FILES)
}

#[test]
fn text() {
    snap!(summaries(&[]));
}

#[test]
fn current() {
    snap!(summaries(&["--current"]));
}

#[test]
fn json_strip_template() {
    snap!(summaries(&["--json", "--strip-template"]));
}

#[test]
fn none_found() {
    snap!(
        Case::new("extract-summary")
            .fixture("claude/render.jsonl")
            .args(["claude/render.jsonl"])
    );
}
