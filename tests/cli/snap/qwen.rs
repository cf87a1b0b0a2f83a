//! What people read of Qwen Code sessions: the scan table, `rebuild-chain` as text and its
//! `--api-view`, `doctor` on a damaged file and a broken chain, and `extract-summary`.

use super::Case;

#[test]
fn qwen_scan_table() {
    snap!(
        Case::new("scan")
            .fixture("qwen/ran-tools.jsonl")
            .fixture("qwen/ran-compress.jsonl")
            .fixture("qwen/damaged.jsonl")
            .args(["qwen/ran-tools.jsonl", "qwen/ran-compress.jsonl", "qwen/damaged.jsonl"])
    );
}

#[test]
fn qwen_chain_text() {
    snap!(Case::new("rebuild-chain").fixture("qwen/ran-compress.jsonl").args([
        "--format",
        "text",
        "qwen/ran-compress.jsonl"
    ]));
}

#[test]
fn qwen_api_view_markdown() {
    snap!(Case::new("rebuild-chain").fixture("qwen/dangling-call.jsonl").args([
        "--api-view",
        "--prompt",
        "say ok",
        "--format",
        "markdown",
        "qwen/dangling-call.jsonl"
    ]));
}

#[test]
fn qwen_doctor() {
    snap!(
        Case::new("doctor")
            .fixture("qwen/damaged.jsonl")
            .fixture("qwen/broken-parent.jsonl")
            .args(["qwen/damaged.jsonl", "qwen/broken-parent.jsonl"])
    );
}

#[test]
fn qwen_summary() {
    snap!(
        Case::new("extract-summary")
            .fixture("qwen/ran-compress.jsonl")
            .args(["qwen/ran-compress.jsonl"])
    );
}
