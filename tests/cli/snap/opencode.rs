//! What people read of opencode sessions: the scan table of a database, `rebuild-chain` as text
//! from the compaction a resume starts at, `doctor` on a compaction loop, and `extract-summary`.

use super::Case;

const DB: &str = "opencode/opencode.db";

#[test]
fn opencode_scan_table() {
    snap!(Case::new("scan").fixture(DB).args([DB]));
}

#[test]
fn opencode_chain_text() {
    snap!(Case::new("rebuild-chain").fixture(DB).args([
        "--format",
        "text",
        "opencode/opencode.db#ses_dc2d3a7f7ffePjSuyqFAs2GNEo"
    ]));
}

#[test]
fn opencode_api_view_text() {
    snap!(Case::new("rebuild-chain").fixture(DB).args([
        "--api-view",
        "--format",
        "text",
        "--prompt",
        "say-ok",
        "opencode/opencode.db#ses_dc2d3a7f7ffePjSuyqFAs2GNEo"
    ]));
}

#[test]
fn opencode_doctor() {
    snap!(Case::new("doctor").fixture(DB).args([DB]));
}

#[test]
fn opencode_summaries() {
    snap!(Case::new("extract-summary").fixture(DB).args([DB]));
}

#[test]
fn opencode_slim_report() {
    snap!(Case::new("slim").fixture(DB).args(["--dry-run", DB]));
}

#[test]
fn opencode_slim_report_json() {
    snap!(Case::new("slim").fixture(DB).args(["--dry-run", "--json", DB]));
}

#[test]
fn opencode_slim_refuses_file_options() {
    snap!(Case::new("slim").fixture(DB).args(["--dry-run", "--images", "all", DB]));
}
