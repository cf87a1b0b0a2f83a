//! The main refusals, whole: an unknown file, a file that is not a session, an ambiguous id, a
//! write refused without `--force`, a bad combination of options.

use super::Case;

#[test]
fn unknown_file() {
    snap!(Case::new("rebuild-chain missing.jsonl"));
}

#[test]
fn unknown_file_scan_json() {
    snap!(Case::new("scan --json missing.jsonl"));
}

#[test]
fn not_a_session() {
    snap!(
        Case::new("rebuild-chain")
            .fixture("claude/render.expected.md")
            .args(["claude/render.expected.md"])
    );
}

#[test]
fn not_a_session_doctor() {
    snap!(
        Case::new("doctor")
            .fixture("broken/binary-garbage.jsonl")
            .args(["broken/binary-garbage.jsonl"])
    );
}

#[test]
fn ambiguous_id_prefix() {
    snap!(
        Case::new("rebuild-chain")
            .fixture_at("store/.claude", "home/.claude")
            .fixture_at("store/.codex", "home/.codex")
            .args(["019d2a2"])
    );
}

#[test]
fn output_exists_without_force() {
    snap!(
        Case::new("convert")
            .fixture("convert/tools.codex.jsonl")
            .file("out.jsonl", "not mine\n")
            .args(["--to", "claude-code", "-o", "out.jsonl", "convert/tools.codex.jsonl"])
            .show("out.jsonl")
    );
}

#[test]
fn live_file_without_force() {
    let bytes = std::fs::read(crate::util::fixture("migrate/v1.json")).expect("fixture");
    snap!(
        Case::new("migrate")
            .fresh_file("migrate/v1.json", bytes)
            .args(["migrate/v1.json"])
    );
}

#[test]
fn in_place_and_output() {
    snap!(Case::new("compact").fixture("compact/claude-work.jsonl").args([
        "--in-place",
        "-o",
        "x.jsonl",
        "compact/claude-work.jsonl"
    ]));
}

#[test]
fn body_without_api_view() {
    snap!(
        Case::new("rebuild-chain --body")
            .fixture("claude/render.jsonl")
            .args(["claude/render.jsonl"])
    );
}

#[test]
fn as_of_for_a_codex_rollout() {
    let file = "codex/chain/local_compaction_2026.jsonl";
    snap!(
        Case::new("rebuild-chain --api-view --as-of 2026-12-01")
            .fixture(file)
            .args([file])
    );
}
