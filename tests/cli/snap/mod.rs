//! Snapshots of what each command prints in its normal run and in its main errors: stdout,
//! stderr and exit status in one `insta` snapshot per case (`snapshots/` beside these files),
//! each case a [`Case`] run on the shipped fixtures in a scratch folder. After a deliberate
//! change, `INSTA_UPDATE=always cargo test --test cli snap::` rewrites them (or `cargo insta
//! review`); review the diff like code.

use crate::case::Case;

/// Runs the case and compares what it shows with the snapshot named after the test.
macro_rules! snap {
    ($case:expr) => {
        insta::assert_snapshot!($case.run().shown())
    };
}

mod backup;
mod chain;
mod compact;
mod convert;
mod copilot;
mod doctor;
mod errors;
mod export;
mod hooks;
mod mcp;
mod migrate;
mod misc;
mod opencode;
mod qwen;
mod relocate;
mod scan;
mod search;
mod slim;
mod summary;

/// A few sessions of each kind: Claude Code (plain, three compactions), Codex (local and remote
/// compaction) and a cctool v5 session.
const SESSIONS: &[&str] = &[
    "claude/render.jsonl",
    "claude/chain/three_compactions_2_1_7.jsonl",
    "codex/chain/local_compaction_2026.jsonl",
    "codex/chain/remote_compaction.jsonl",
    "session/refactor.v5.json",
];

/// The day the cases that depend on the date are run at (`--as-of`), so a model retiring
/// does not change them.
const AS_OF: &str = "2026-12-01";

/// `command` with [`SESSIONS`] in its scratch folder and, last, as its arguments after `args`.
fn on_sessions(command: &str, args: &[&str]) -> Case {
    SESSIONS
        .iter()
        .fold(Case::new(command), |c, s| c.fixture(s))
        .args(args)
        .args(SESSIONS)
}
