//! `mcp --install` for each agent in a scratch `HOME`: the entry printed, and with `--write`
//! the configuration written (the user's own text kept, the file as it was backed up, a server
//! of that name never replaced).

use super::Case;

#[test]
fn install_claude_prints() {
    snap!(Case::new("mcp --install claude-code").args(["--command", "cctool"]));
}

#[test]
fn install_codex_prints() {
    snap!(Case::new("mcp --install codex").args(["--command", "cctool"]));
}

#[test]
fn install_claude_json() {
    snap!(Case::new("mcp --install claude-code --json").args(["--command", "cctool"]));
}

#[test]
fn install_claude_write_new() {
    snap!(
        Case::new("mcp --install claude-code --write")
            .args(["--command", "cctool"])
            .show("home/.claude.json")
    );
}

#[test]
fn install_claude_write_keeps_the_users_text() {
    // As Claude Code writes it (two spaces), with a number no f64 holds.
    let mine = r#"{
  "numStartups": 34,
  "big": 12345678901234567890,
  "projects": {
    "/home/dev/shop": {
      "mcpServers": {}
    }
  },
  "mcpServers": {
    "other": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "other"
      ],
      "env": {}
    }
  }
}"#;
    snap!(
        Case::new("mcp --install claude-code --write")
            .args(["--command", "cctool"])
            .file("home/.claude.json", mine.as_bytes())
            .show("home/.claude.json")
            .list("home")
    );
}

#[test]
fn install_codex_write_keeps_the_users_text() {
    let mine = "# my settings\nmodel = \"gpt-5\"\n\n[mcp_servers.other]\ncommand = \"npx\" # the other one\nargs = [\"-y\", \"other\"]\n";
    snap!(
        Case::new("mcp --install codex --write")
            .args(["--command", "cctool"])
            .file("home/.codex/config.toml", mine.as_bytes())
            .show("home/.codex/config.toml")
    );
}

#[test]
fn install_twice() {
    let install = || Case::new("mcp --install codex --write").args(["--command", "cctool"]);
    insta::assert_snapshot!(install().run().code(0).then(install()).shown());
}

#[test]
fn install_refuses_to_replace_another_cctool_server() {
    let mine = "{\"mcpServers\": {\"cctool\": {\"command\": \"/opt/cctool\", \"args\": [\"mcp\", \"--no-redact\"]}}}\n";
    snap!(
        Case::new("mcp --install claude-code --write")
            .args(["--command", "cctool"])
            .file("home/.claude.json", mine.as_bytes())
            .show("home/.claude.json")
    );
}

#[test]
fn install_refuses_an_agent_without_mcp() {
    snap!(Case::new("mcp --install cctool"));
}

#[test]
fn install_gemini_write_beside_its_hooks() {
    let mine = "{\n  \"hooks\": {\n    \"SessionEnd\": []\n  },\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"other\"]\n    }\n  }\n}\n";
    snap!(
        Case::new("mcp --install gemini-cli --write")
            .args(["--command", "cctool"])
            .file("home/.gemini/settings.json", mine.as_bytes())
            .show("home/.gemini/settings.json")
    );
}
