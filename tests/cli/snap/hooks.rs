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
