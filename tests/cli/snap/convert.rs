//! `convert`: each direction, the text report and `--json`, with the file written.

use super::Case;

#[test]
fn claude_to_codex() {
    snap!(
        Case::new("convert")
            .fixture("convert/file-tools.claude.jsonl")
            .args(["--to", "codex", "-o", "out.jsonl", "convert/file-tools.claude.jsonl"])
            .show("out.jsonl")
    );
}

#[test]
fn claude_to_codex_json_full() {
    snap!(Case::new("convert").fixture("convert/compacted.claude.jsonl").args([
        "--to",
        "codex",
        "--full",
        "--json",
        "-o",
        "out.jsonl",
        "convert/compacted.claude.jsonl"
    ]));
}

#[test]
fn codex_to_claude() {
    snap!(
        Case::new("convert")
            .fixture("convert/tools.codex.jsonl")
            .args(["--to", "claude-code", "-o", "out.jsonl", "convert/tools.codex.jsonl"])
            .show("out.jsonl")
    );
}

#[test]
fn codex_to_claude_json() {
    snap!(Case::new("convert").fixture("convert/tools.codex.jsonl").args([
        "--to",
        "claude-code",
        "--json",
        "-o",
        "out.jsonl",
        "convert/tools.codex.jsonl"
    ]));
}

#[test]
fn codex_to_cctool() {
    snap!(
        Case::new("convert")
            .fixture("convert/tools.codex.jsonl")
            .args(["--to", "cctool", "-o", "out.json", "convert/tools.codex.jsonl"])
            .show("out.json")
    );
}

#[test]
fn a_session_is_refused_json() {
    snap!(Case::new("convert").fixture("session/refactor.v5.json").args([
        "--to",
        "codex",
        "--json",
        "-o",
        "out.jsonl",
        "session/refactor.v5.json"
    ]));
}

#[test]
fn up_to_date_second_run() {
    let file = "convert/file-tools.claude.jsonl";
    let convert = || Case::new("convert").args(["--to", "codex", "-o", "out.jsonl", file]);
    let run = convert().fixture(file).run().code(0).then(convert());
    insta::assert_snapshot!(run.shown());
}
