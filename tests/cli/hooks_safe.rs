//! `hooks install|uninstall` edit only the hook entries and only where they should: `--json`
//! records, a Codex file install created is removed again, the user's numbers keep their
//! digits, a dangling `settings.json` link and a read-only file are refused with a true
//! message, the binary the hook runs and Codex's trust question are said.

use serde_json::Value;

use crate::backup::{Stores, generate};

fn run(st: &Stores, args: &[&str]) -> (i32, String, String) {
    let out = st.cmd().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn install_and_uninstall_print_a_record_with_json() {
    let st = generate(1);
    let (code, out, err) = run(&st, &["--json", "hooks", "install", "codex", "--command", "cctool"]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(r["kind"], "hooks");
    assert_eq!(r["action"], "added");
    assert_eq!(r["agent"], "codex");
    assert_eq!(r["events"], serde_json::json!(["PreCompact", "PostCompact"]));
    assert_eq!(r["command"], "cctool hooks run codex");
    assert_eq!(r["trust_required"], true);
    assert_eq!(r["backup"], Value::Null);
    let (_, out, _) = run(&st, &["--json", "hooks", "uninstall", "codex"]);
    let r: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(r["action"], "removed_file");
    assert_eq!(r["command"], Value::Null);
}

#[test]
fn uninstalling_what_install_created_leaves_no_file_and_no_backup() {
    let st = generate(1);
    let config = st.codex().join("config.toml");
    let (code, _, err) = run(&st, &["hooks", "install", "codex"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("Codex runs a hook only once you have reviewed and trusted it"),
        "{err}"
    );
    assert!(
        err.contains("(this binary's absolute path: install again if it moves, or pass --command cctool"),
        "{err}"
    );
    assert!(config.is_file());
    let (code, _, err) = run(&st, &["hooks", "uninstall", "codex"]);
    assert_eq!(code, 0, "{err}");
    assert!(!config.exists(), "{err}");
    let left: Vec<_> = std::fs::read_dir(st.codex())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !left.iter().any(|n| n.to_string_lossy().starts_with("config.toml")),
        "{left:?}"
    );
    let (code, _, err) = run(&st, &["hooks", "uninstall", "codex"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("config.toml: no such file; nothing to remove"), "{err}");
}

#[test]
fn a_program_not_named_cctool_is_refused() {
    let st = generate(1);
    let (code, _, err) = run(&st, &["hooks", "install", "codex", "--command", "/usr/bin/env"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the program must be a file named cctool"), "{err}");
    assert!(!st.codex().join("config.toml").exists());
}

#[test]
fn the_user_s_numbers_and_strings_keep_their_text() {
    let st = generate(1);
    let settings = st.claude().join("settings.json");
    let mine = "{\n  \"big\": 123456789012345678901,\n  \"ratio\": 1.50,\n  \"name\": \"caf\\u00e9\",\n  \"cleanupPeriodDays\": 90\n}\n";
    std::fs::write(&settings, mine).unwrap();
    let (code, _, err) = run(&st, &["hooks", "install", "claude-code"]);
    assert_eq!(code, 0, "{err}");
    let installed = std::fs::read_to_string(&settings).unwrap();
    assert!(
        installed
            .starts_with("{\n  \"big\": 123456789012345678901,\n  \"ratio\": 1.50,\n  \"name\": \"caf\\u00e9\",\n"),
        "{installed}"
    );
    run(&st, &["hooks", "uninstall", "claude-code"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), mine);
}

#[cfg(unix)]
#[test]
fn a_linked_settings_file_is_edited_through_its_link_and_a_dangling_one_is_refused() {
    let st = generate(1);
    let settings = st.claude().join("settings.json");
    let dotfiles = st.dir.path().join("dotfiles");
    std::os::unix::fs::symlink(dotfiles.join("settings.json"), &settings).unwrap();
    let (code, _, err) = run(&st, &["hooks", "install", "claude-code"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("which does not exist (dotfiles not mounted?); not edited"),
        "{err}"
    );
    assert!(std::fs::symlink_metadata(&settings).unwrap().file_type().is_symlink());

    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("settings.json"), "{\"model\":\"opus\"}\n").unwrap();
    let (code, _, err) = run(&st, &["hooks", "install", "claude-code"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&settings).unwrap().file_type().is_symlink());
    assert!(
        std::fs::read_to_string(dotfiles.join("settings.json"))
            .unwrap()
            .contains("hooks run claude-code")
    );
}

#[cfg(unix)]
#[test]
fn a_read_only_settings_file_gets_a_true_message() {
    use std::os::unix::fs::PermissionsExt;
    let st = generate(1);
    let settings = st.claude().join("settings.json");
    std::fs::write(&settings, "{}\n").unwrap();
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, _, err) = run(&st, &["hooks", "install", "claude-code"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("read-only; not edited (make it writable"), "{err}");
    assert!(!err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{}\n");
}
