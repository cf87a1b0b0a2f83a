//! Documentation that is generated from the clap definitions must match them.

use crate::util::{cctool, root, stdout_of};

#[test]
fn committed_man_pages_are_current() {
    let dir = tempfile::tempdir().unwrap();
    cctool().args(["generate-man"]).arg(dir.path()).assert().success();
    let mut generated: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    generated.sort();
    assert!(generated.contains(&"cctool.1".to_string()));
    assert!(generated.contains(&"cctool-rebuild-chain.1".to_string()));
    for name in generated {
        let fresh = std::fs::read(dir.path().join(&name)).unwrap();
        let committed = std::fs::read(root().join("man").join(&name)).unwrap_or_default();
        assert!(
            fresh == committed,
            "man/{name} is stale: run `cargo run -- generate-man man` and commit the result"
        );
    }
}

#[test]
fn completions_are_generated_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = stdout_of(&["completions", shell]);
        assert!(out.contains("rebuild-chain"), "{shell}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let out = cctool().args(["rebuild-chain"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = cctool().args(["no-such-command"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    cctool().arg("--help").assert().success();
    cctool().arg("--version").assert().success();
}
