//! `hooks install` and `uninstall` for each agent in a scratch `HOME`, with the settings written.

use super::Case;

#[test]
fn install_claude() {
    snap!(
        Case::new("hooks install claude-code")
            .args(["--command", "cctool"])
            .show("home/.claude/settings.json")
    );
}

#[test]
fn install_codex_json() {
    snap!(
        Case::new("hooks install codex")
            .args(["--json", "--command", "cctool"])
            .show("home/.codex/config.toml")
    );
}

#[test]
fn install_twice() {
    let install = || Case::new("hooks install claude-code").args(["--command", "cctool"]);
    insta::assert_snapshot!(install().run().code(0).then(install()).shown());
}

#[test]
fn uninstall_claude() {
    let install = Case::new("hooks install claude-code").args(["--command", "cctool"]);
    let uninstall = Case::new("hooks uninstall claude-code").show("home/.claude/settings.json");
    insta::assert_snapshot!(install.run().code(0).then(uninstall).shown());
}

#[test]
fn uninstall_when_absent_json() {
    snap!(Case::new("hooks uninstall codex --json"));
}

#[test]
fn install_default_command() {
    snap!(Case::new("hooks install claude-code").show("home/.claude/settings.json"));
}

#[test]
fn install_gemini_keeps_the_users_settings() {
    // As Gemini CLI writes its settings (two spaces), with hooks of the user's own.
    let mine = "{\n  \"security\": {\n    \"auth\": {\n      \"selectedType\": \"gemini-api-key\"\n    }\n  },\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\n        \"matcher\": \"run_shell_command\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"./check.sh\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    snap!(
        Case::new("hooks install gemini-cli")
            .args(["--command", "cctool"])
            .file("home/.gemini/settings.json", mine.as_bytes())
            .show("home/.gemini/settings.json")
    );
}

#[test]
fn install_gemini_project_says_the_folder_must_be_trusted() {
    snap!(
        Case::new("hooks install gemini-cli --scope project")
            .args(["--json", "--command", "cctool"])
            .show(".gemini/settings.json")
    );
}

#[test]
fn install_copilot_keeps_the_users_settings() {
    // As Copilot CLI writes its settings (two spaces), with a hook of the user's own.
    let mine = "{\n  \"model\": \"gpt-5\",\n  \"hooks\": {\n    \"preToolUse\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./check.sh\",\n        \"timeoutSec\": 15\n      }\n    ]\n  }\n}\n";
    snap!(
        Case::new("hooks install copilot")
            .args(["--command", "cctool"])
            .file("home/.copilot/settings.json", mine.as_bytes())
            .show("home/.copilot/settings.json")
    );
}

#[test]
fn install_copilot_project_is_refused() {
    snap!(Case::new("hooks install copilot --scope project").args(["--command", "cctool"]));
}
