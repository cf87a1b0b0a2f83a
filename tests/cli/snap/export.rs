//! `export`: Markdown to a folder with its index, one HTML page per session (file names only),
//! `--share` with its redaction report, JSON Lines to stdout.

use super::Case;

const FILES: &[&str] = &["export/clean_claude.jsonl", "export/codex_secrets.jsonl"];

fn export(args: &[&str]) -> Case {
    FILES
        .iter()
        .fold(Case::new("export"), |c, f| c.fixture(f))
        .env("USER", "alice")
        .args(args)
        .args(FILES)
}

#[test]
fn markdown_folder() {
    snap!(export(&["-o", "out"]).show("out/index.md").show("out/clean_claude.md"));
}

#[test]
fn html_names() {
    snap!(export(&["--format", "html", "-o", "out"]).list("out"));
}

#[test]
fn share_report() {
    snap!(export(&["--share", "-o", "out"]).show("out/codex_secrets.md"));
}

#[test]
fn share_json() {
    snap!(export(&["--share", "--json", "-o", "out"]));
}

#[test]
fn jsonl_to_stdout() {
    snap!(Case::new("export").fixture("export/clean_claude.jsonl").args([
        "--format",
        "jsonl",
        "-o",
        "-",
        "export/clean_claude.jsonl"
    ]));
}
