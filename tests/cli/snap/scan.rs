//! `scan`: the table, its JSON records, and each `--rows` table as JSON Lines.

use super::{AS_OF, on_sessions};

#[test]
fn table() {
    snap!(on_sessions("scan", &["--as-of", AS_OF]));
}

#[test]
fn table_wide_by_tokens() {
    snap!(on_sessions("scan", &["--as-of", AS_OF, "--wide", "--sort", "tokens"]));
}

#[test]
fn json() {
    snap!(on_sessions("scan", &["--as-of", AS_OF, "--json"]));
}

#[test]
fn folder_with_a_non_session() {
    snap!(
        super::Case::new("scan")
            .fixture("claude/chain/three_compactions_2_1_7.jsonl")
            .fixture("claude/render.expected.md")
            .args(["--as-of", AS_OF, "claude"])
    );
}

#[test]
fn rows_sessions() {
    snap!(on_sessions("scan", &["--as-of", AS_OF, "--rows", "sessions"]));
}

#[test]
fn rows_messages() {
    snap!(on_sessions("scan", &["--as-of", AS_OF, "--rows", "messages"]));
}

#[test]
fn rows_compactions() {
    snap!(on_sessions("scan", &["--as-of", AS_OF, "--rows", "compactions"]));
}

#[test]
fn rows_tool_calls() {
    snap!(on_sessions("scan", &["--as-of", AS_OF, "--rows", "tool-calls"]));
}

#[test]
fn rows_out_dir() {
    snap!(
        on_sessions(
            "scan",
            &["--as-of", AS_OF, "--rows", "compactions", "--out-dir", "tables"]
        )
        .list("tables")
    );
}

#[test]
fn files_from_stdin() {
    snap!(
        super::Case::new("scan")
            .fixture("claude/render.jsonl")
            .fixture("codex/chain/remote_compaction.jsonl")
            .args(["--as-of", AS_OF, "--files-from", "-", "-0"])
            .stdin("claude/render.jsonl\0codex/chain/remote_compaction.jsonl\0")
    );
}
