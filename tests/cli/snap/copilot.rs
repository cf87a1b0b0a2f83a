//! What people read of Copilot CLI sessions: the scan table, `rebuild-chain` as text,
//! `doctor` on the failures its users report, and `extract-summary`.

use super::Case;

#[test]
fn copilot_scan_table() {
    snap!(
        Case::new("scan")
            .fixture("copilot/turns.jsonl")
            .fixture("copilot/compacted.jsonl")
            .fixture("copilot/damaged.jsonl")
            .args([
                "copilot/turns.jsonl",
                "copilot/compacted.jsonl",
                "copilot/damaged.jsonl"
            ])
    );
}

#[test]
fn copilot_chain_text() {
    snap!(Case::new("rebuild-chain").fixture("copilot/compacted.jsonl").args([
        "--format",
        "text",
        "copilot/compacted.jsonl"
    ]));
}

#[test]
fn copilot_chain_full_markdown() {
    snap!(Case::new("rebuild-chain").fixture("copilot/turns.jsonl").args([
        "--format",
        "markdown",
        "--full",
        "copilot/turns.jsonl"
    ]));
}

#[test]
fn copilot_doctor_damaged() {
    snap!(
        Case::new("doctor")
            .fixture("copilot/damaged.jsonl")
            .args(["--json", "copilot/damaged.jsonl"])
    );
}

#[test]
fn copilot_summary() {
    snap!(
        Case::new("extract-summary")
            .fixture("copilot/compacted.jsonl")
            .args(["copilot/compacted.jsonl"])
    );
}
