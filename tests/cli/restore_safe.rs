//! `restore` treats an archive as untrusted input: a manifest entry that names a place outside
//! its store (or outside `--to DIR`) is refused with the entry named, and a file that exists
//! with data the archive does not hold is never lost.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::backup::{Stores, generate};

/// The newest manifest of the archive, as JSON.
fn newest_manifest(st: &Stores) -> (PathBuf, Value) {
    let mut snaps: Vec<PathBuf> = std::fs::read_dir(st.archive().join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    snaps.sort();
    let path = snaps.pop().unwrap();
    let bytes = zstd::stream::decode_all(&std::fs::read(&path).unwrap()[..]).unwrap();
    (path, serde_json::from_slice(&bytes).unwrap())
}

/// Writes `m` as the archive's newest snapshot.
fn put_manifest(st: &Stores, m: &Value) {
    let packed = zstd::stream::encode_all(&serde_json::to_vec(m).unwrap()[..], 3).unwrap();
    std::fs::write(st.archive().join("snapshots/99991231T000000Z-1.json.zst"), packed).unwrap();
}

/// A store of a few sessions, backed up; the entry of the first session file.
fn backed_up() -> (Stores, Value) {
    let st = generate(3);
    let out = st.cmd().args(["backup"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let (_, m) = newest_manifest(&st);
    let first = st.sessions[0].to_string_lossy().into_owned();
    let entry = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == first.as_str())
        .unwrap()
        .clone();
    (st, entry)
}

fn hostile(st: &Stores, entry: Value) {
    let (_, mut m) = newest_manifest(st);
    m["files"] = Value::Array(vec![entry]);
    put_manifest(st, &m);
}

fn no_file_anywhere_named(root: &Path, name: &str) -> bool {
    !walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .any(|e| e.file_name() == name)
}

#[test]
fn a_manifest_path_that_climbs_out_of_to_dir_is_refused() {
    let (st, mut entry) = backed_up();
    entry["rel"] = "../../escaped.jsonl".into();
    hostile(&st, entry);
    let id = st.sessions[0].file_stem().unwrap().to_string_lossy().into_owned();
    let to = st.dir.path().join("out/inner");
    let out = st
        .cmd()
        .args(["restore", id.as_str(), "--to", to.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "{}: not restored: its path below the store",
            st.sessions[0].display()
        )) && err.contains("climbs out with `..`"),
        "{err}"
    );
    assert!(no_file_anywhere_named(st.dir.path(), "escaped.jsonl"));
}

#[test]
fn a_manifest_path_outside_every_store_is_refused_by_restore_deleted() {
    let (st, mut entry) = backed_up();
    let victim = st.dir.path().join("victim");
    // Consistent with itself: the store it names is simply not one of the user's.
    entry["store"] = victim.to_string_lossy().into_owned().into();
    entry["rel"] = "projects/-p/planted.jsonl".into();
    entry["path"] = victim
        .join("projects/-p/planted.jsonl")
        .to_string_lossy()
        .into_owned()
        .into();
    hostile(&st, entry.clone());
    let out = st.cmd().args(["restore", "--deleted", "--force"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("planted.jsonl: not restored: its store") && err.contains("is not one of the Claude Code stores"),
        "{err}"
    );
    assert!(!victim.exists());

    // An absolute path that is not the store joined with its path below it.
    entry["store"] = st.claude().to_string_lossy().into_owned().into();
    entry["path"] = victim.join("planted.jsonl").to_string_lossy().into_owned().into();
    hostile(&st, entry);
    let out = st.cmd().args(["restore", "--deleted", "--force"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is not its store"), "{err}");
    assert!(!victim.exists());
}

#[test]
fn a_manifest_entry_that_names_a_settings_file_is_not_a_session_and_is_refused() {
    let (st, mut entry) = backed_up();
    let settings = st.claude().join("settings.json");
    entry["rel"] = "settings.json".into();
    entry["path"] = settings.to_string_lossy().into_owned().into();
    hostile(&st, entry);
    let out = st.cmd().args(["restore", "--deleted", "--force"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "settings.json: not restored: its path below the store (\"settings.json\") is not a transcript in projects/"
        ),
        "{err}"
    );
    assert!(!settings.exists());
}

#[cfg(unix)]
#[test]
fn a_link_below_to_dir_that_leads_out_of_it_is_not_written_through() {
    let (st, _) = backed_up();
    let to = st.dir.path().join("out");
    let elsewhere = st.dir.path().join("elsewhere");
    std::fs::create_dir_all(to.join("claude")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, to.join("claude/projects")).unwrap();
    let id = st.sessions[0].file_stem().unwrap().to_string_lossy().into_owned();
    let out = st
        .cmd()
        .args(["restore", id.as_str(), "--to", to.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is a symbolic link that leads out of"), "{err}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn restore_deleted_keeps_a_subagent_transcript_that_grew_since_the_backup() {
    let (st, _) = backed_up();
    let main = &st.sessions[0];
    let sub = main.with_extension("").join("subagents/agent-a1.jsonl");
    let archived = std::fs::read(&sub).unwrap();
    let grown = [archived.clone(), b"{\"type\":\"user\",\"newer\":true}\n".to_vec()].concat();
    std::fs::write(&sub, &grown).unwrap();
    let main_bytes = std::fs::read(main).unwrap();
    std::fs::remove_file(main).unwrap();
    let out = st.cmd().args(["restore", "--deleted", "--force"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(std::fs::read(main).unwrap(), main_bytes);
    assert_eq!(std::fs::read(&sub).unwrap(), grown, "{err}");
    assert!(
        err.contains(&format!(
            "{}: holds the archived copy and 29 bytes written since; left as it is",
            sub.display()
        )),
        "{err}"
    );
}

#[test]
fn a_different_file_in_the_way_is_replaced_only_with_force_and_kept() {
    let (st, _) = backed_up();
    let main = &st.sessions[0];
    let sub = main.with_extension("").join("subagents/agent-a1.jsonl");
    let archived = std::fs::read(&sub).unwrap();
    std::fs::write(&sub, "{\"type\":\"user\",\"other\":true}\n").unwrap();
    std::fs::remove_file(main).unwrap();
    let out = st.cmd().args(["restore", "--deleted"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("exists and differs from the archived copy; not overwritten"),
        "{err}"
    );
    assert_eq!(std::fs::read(&sub).unwrap(), b"{\"type\":\"user\",\"other\":true}\n");

    // The first run put the session back; its id still names the subagent transcript.
    let id = main.file_stem().unwrap().to_string_lossy().into_owned();
    let out = st
        .cmd()
        .args(["restore", id.as_str(), "--force", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&sub).unwrap(), archived);
    let kept = sub.with_file_name("agent-a1.jsonl.cctool-restore.bak");
    assert_eq!(std::fs::read(&kept).unwrap(), b"{\"type\":\"user\",\"other\":true}\n");
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.contains(&format!("\"replaced_kept_at\":\"{}\"", kept.display())),
        "{said}"
    );
}

#[cfg(unix)]
#[test]
fn backup_follows_linked_project_folders_and_session_files_and_takes_each_file_once() {
    use std::os::unix::fs::symlink;
    let st = generate(3);
    let dotfiles = st.dir.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let projects = st.claude().join("projects");
    // A project folder kept elsewhere and linked in, twice; a session file linked in.
    std::fs::rename(projects.join("-home-me-proj1"), dotfiles.join("proj1")).unwrap();
    symlink(dotfiles.join("proj1"), projects.join("-home-me-proj1")).unwrap();
    symlink(dotfiles.join("proj1"), projects.join("-home-me-proj1-again")).unwrap();
    let file = &st.sessions[2];
    std::fs::rename(file, dotfiles.join("s2.jsonl")).unwrap();
    symlink(dotfiles.join("s2.jsonl"), file).unwrap();

    let out = st.cmd().args(["backup", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    // 3 sessions, 1 subagent transcript, history, 5 rollouts: each once.
    assert_eq!(r["new_files"], 10, "{r}");
    let listed = st.cmd().args(["restore", "--json"]).output().unwrap();
    let ids: Vec<String> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["session_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for s in &st.sessions {
        let id = s.file_stem().unwrap().to_string_lossy().into_owned();
        assert_eq!(ids.iter().filter(|i| **i == id).count(), 1, "{id} in {ids:?}");
    }
}
