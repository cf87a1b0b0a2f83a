//! `doctor`: the findings table, `--verbose`, `--json`, and a clean file.

use super::{AS_OF, Case};

const BROKEN: &[&str] = &[
    "broken/dangling-parent.jsonl",
    "broken/duplicate-uuid.jsonl",
    "broken/invalid-json.jsonl",
    "broken/tool-call-without-result.jsonl",
    "broken/codex-rollback-counts.jsonl",
    "broken/session-truncated.json",
];

fn on_broken(args: &[&str]) -> Case {
    BROKEN
        .iter()
        .fold(Case::new("doctor"), |c, f| c.fixture(f))
        .args(["--as-of", AS_OF])
        .args(args)
        .args(BROKEN)
}

#[test]
fn findings() {
    snap!(on_broken(&[]));
}

#[test]
fn verbose() {
    snap!(on_broken(&["--verbose"]));
}

#[test]
fn json() {
    snap!(on_broken(&["--json"]));
}

#[test]
fn min_severity_error() {
    snap!(on_broken(&["--min-severity", "error"]));
}

#[test]
fn clean_files() {
    snap!(super::on_sessions("doctor", &["--as-of", AS_OF]));
}
