//! Files that are not sessions: skipped with a notice naming what they look like when found in
//! a folder or listed by `--files-from`, an error (exit 2) only when named on the command line.

use std::path::{Path, PathBuf};

use crate::util::{age, cctool, fixture};

/// Files that are no agent's session, in the shapes they are found in stores (Gemini CLI's chats
/// and Qwen Code's sessions are read since those agents are registered: `tests/cli/gemini.rs`,
/// `tests/cli/qwen.rs`).
const OTHERS: &[(&str, &str, &str)] = &[
    (
        "settings.json",
        "{\"theme\":\"dark\",\"model\":\"x\"}\n",
        "JSON that is not a session",
    ),
    ("notes.jsonl", "just some notes\n", "not JSON"),
];

/// A folder with one v1 session and every file of [`OTHERS`].
fn store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.json");
    std::fs::copy(fixture("migrate/v1.json"), &session).unwrap();
    age(&session);
    for (name, body, _) in OTHERS {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    (dir, session)
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = cctool().args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn assert_each_named(stderr: &str) {
    for (name, _, looks) in OTHERS {
        let line = stderr
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name}: {stderr}"));
        assert!(line.contains(looks), "{name} should read as {looks}: {line}");
        let plausible = *looks == "JSON that is not a session";
        assert_eq!(line.contains("--input-format"), plausible, "{line}");
    }
    assert!(
        stderr.contains(&format!("{} files skipped as not sessions", OTHERS.len())),
        "{stderr}"
    );
}

#[test]
fn migrate_of_a_folder_skips_what_is_not_a_session_and_migrates_the_rest() {
    let (dir, session) = store();
    let (code, _, stderr) = run(&["migrate", s(dir.path())]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_each_named(&stderr);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&session).unwrap()).unwrap();
    assert_eq!(v["schema_version"], 5);
    for (name, body, _) in OTHERS {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            *body,
            "{name} untouched"
        );
    }
}

#[test]
fn migrate_check_of_a_folder_skips_non_sessions_and_checks_v5_files() {
    let (dir, session) = store();
    std::fs::remove_file(&session).unwrap();
    let current = dir.path().join("s.v5.json");
    std::fs::copy(fixture("migrate/v1.expected.v5.json"), &current).unwrap();
    let (code, stdout, stderr) = run(&["migrate", "--check", "--json", s(dir.path())]);
    assert_eq!(code, Some(0), "a current v5 file needs nothing: {stderr}");
    let records: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let checked = records
        .iter()
        .find(|r| r["file"] == s(&current))
        .expect("the v5 file is checked");
    assert_eq!(checked["from"], "v5");
    assert_eq!(checked["changed"], false);
    let skipped = records.iter().filter(|r| r["code"] == "not-a-session").count();
    assert_eq!(skipped, OTHERS.len(), "{stdout}");
    // A damaged v5 file is reported, not passed over.
    std::fs::write(&current, "{\"schema_version\": 5, \"messages\": [").unwrap();
    let (code, _, stderr) = run(&["migrate", "--check", s(dir.path())]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("s.v5.json"), "{stderr}");
}

#[test]
fn files_from_skips_listed_non_sessions() {
    let (dir, session) = store();
    let list = dir.path().join("list");
    let mut names = vec![s(&session).to_string()];
    names.extend(OTHERS.iter().map(|(n, _, _)| s(&dir.path().join(n)).to_string()));
    std::fs::write(&list, names.join("\n") + "\n").unwrap();
    let (code, _, stderr) = run(&["migrate", "--check", "--files-from", s(&list)]);
    assert_eq!(
        code,
        Some(1),
        "the v1 session would change, the rest is skipped: {stderr}"
    );
    assert_each_named(&stderr);
    let (code, _, stderr) = run(&["scan", "--files-from", s(&list)]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("{} files skipped as not sessions", OTHERS.len())),
        "{stderr}"
    );
}

#[test]
fn a_named_non_session_is_still_an_error() {
    let (dir, _) = store();
    for (name, _, looks) in OTHERS {
        let p = dir.path().join(name);
        for cmd in [&["migrate", "--check"][..], &["scan"][..]] {
            let (code, _, stderr) = run(&[cmd, &[s(&p)]].concat());
            assert_eq!(code, Some(2), "{cmd:?} {name}: {stderr}");
            assert!(stderr.contains(looks), "{cmd:?} {name}: {stderr}");
        }
    }
}

#[test]
fn one_skipped_file_is_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.json");
    std::fs::copy(fixture("migrate/v1.json"), &session).unwrap();
    std::fs::write(dir.path().join("notes.jsonl"), "notes\n").unwrap();
    let (code, _, stderr) = run(&["scan", s(dir.path())]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("1 file skipped as not sessions"), "{stderr}");
}
