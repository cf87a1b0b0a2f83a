//! `rebuild-chain`: JSON Lines, text, Markdown, `--json` diagnostics, `--api-view`, per agent.

use super::{AS_OF, Case};

const CLAUDE: &str = "claude/chain/three_compactions_2_1_7.jsonl";
const CODEX: &str = "codex/chain/local_compaction_2026.jsonl";

fn chain(file: &str, args: &[&str]) -> Case {
    Case::new("rebuild-chain").fixture(file).args(args).args([file])
}

#[test]
fn claude_jsonl() {
    snap!(chain(CLAUDE, &[]));
}

#[test]
fn claude_text() {
    snap!(chain("claude/render.jsonl", &["--format", "text"]));
}

#[test]
fn claude_markdown_full() {
    snap!(chain("claude/render.jsonl", &["--format", "markdown", "--full"]));
}

#[test]
fn claude_json_diagnostics() {
    snap!(chain("broken/dangling-parent.jsonl", &["--json"]));
}

#[test]
fn claude_api_view() {
    snap!(chain(CLAUDE, &["--api-view", "--as-of", AS_OF]));
}

#[test]
fn claude_api_view_json_body() {
    snap!(chain(
        CLAUDE,
        &["--api-view", "--json", "--body", "--prompt", "go on", "--as-of", AS_OF]
    ));
}

#[test]
fn codex_jsonl() {
    snap!(chain(CODEX, &[]));
}

#[test]
fn codex_text() {
    snap!(chain(CODEX, &["--format", "text"]));
}

#[test]
fn codex_api_view_json() {
    snap!(chain(CODEX, &["--api-view", "--json", "--prompt", "go on"]));
}

#[test]
fn session_markdown() {
    snap!(chain("session/refactor.v5.json", &["--format", "markdown"]));
}
