//! Where `compact` writes without `-o`: beside the input, unless the input is in an agent's
//! store, where the copy would be listed as a second copy of the session and never resumed.

use crate::util::{cctool, fixture, write_aged};

#[test]
fn a_session_in_claude_code_s_store_is_compacted_into_the_current_folder() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("config/projects/-work");
    let work = root.path().join("work");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let input = project.join("5e551000-0000-4000-8000-000000000001.jsonl");
    write_aged(&input, &std::fs::read(fixture("compact/claude-work.jsonl")).unwrap());
    let out = cctool()
        .args(["compact", "--keep-recent", "10"])
        .arg(&input)
        .env("CLAUDE_CONFIG_DIR", root.path().join("config"))
        .current_dir(&work)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{e}");
    let name = "5e551000-0000-4000-8000-000000000001.compacted.jsonl";
    assert!(work.join(name).is_file(), "written to the current folder");
    assert_eq!(
        std::fs::read_dir(&project).unwrap().count(),
        1,
        "nothing added to the store"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("written to {name}")));
    assert!(
        e.contains("written to the current folder instead") && e.contains("--in-place"),
        "{e}"
    );
    // Outside a store: beside the input, as before.
    let elsewhere = work.join("s.jsonl");
    write_aged(
        &elsewhere,
        &std::fs::read(fixture("compact/claude-work.jsonl")).unwrap(),
    );
    let out = cctool()
        .args(["compact", "--keep-recent", "10"])
        .arg(&elsewhere)
        .env("CLAUDE_CONFIG_DIR", root.path().join("config"))
        .current_dir(root.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(work.join("s.compacted.jsonl").is_file());
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
}
