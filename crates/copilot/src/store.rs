//! Where Copilot CLI keeps its sessions: `session-state/<id>/events.jsonl` under
//! `COPILOT_HOME` (else `~/.copilot`), each session a folder named by its id, with
//! `workspace.yaml`, `checkpoints/` and `session.db` beside the events. 1.0.102 writes its
//! sessions under `COPILOT_HOME` when it is set, and under `~/.copilot` only when it is not
//! (`docs/copilot.md`, "Where sessions are").

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use cctool_core::agents::{SideFile, Store};
use cctool_core::model::store::SessionHead;
use serde_json::Value;

/// Copilot CLI's store.
pub struct CopilotStore;

/// The name of a session's file in its folder: the one file of a session folder that is a
/// session.
pub const EVENTS: &str = "events.jsonl";

/// The session folder of Copilot CLI's store that exists, from the variables in `env`
/// (`COPILOT_HOME`, else `HOME`), and a note when `COPILOT_HOME` names no store.
pub fn roots(env: &dyn Fn(&str) -> Option<OsString>) -> (Vec<PathBuf>, Vec<String>) {
    let (home, asked) = match env("COPILOT_HOME") {
        Some(v) => (Some(PathBuf::from(v)), true),
        None => (env("HOME").map(|h| PathBuf::from(h).join(".copilot")), false),
    };
    let Some(states) = home.map(|h| h.join(SESSION_FOLDER)) else {
        return (Vec::new(), Vec::new());
    };
    if states.is_dir() {
        return (vec![states], Vec::new());
    }
    let notes = if asked {
        vec![format!(
            "no Copilot CLI store at {} (from COPILOT_HOME)",
            states.display()
        )]
    } else {
        Vec::new()
    };
    (Vec::new(), notes)
}

/// Whether `path` is a file the client keeps in a session's folder
/// (`session-state/<id>/…`) other than the session's `events.jsonl`: the rewind snapshots'
/// tracking file, checkpoints, `files/`, `research/`, the workspace file. Only `events.jsonl`
/// is a session there.
pub fn beside_a_session(path: &Path) -> bool {
    let mut dirs = path.ancestors().skip(1);
    let mut below = path;
    for dir in dirs.by_ref() {
        if dir.file_name().is_some_and(|n| n == SESSION_FOLDER) {
            // `below` is the session's folder, or the file itself when it lies directly in
            // session-state/ (no session folder: not the client's layout, left to be read).
            return below != path && path != below.join(EVENTS);
        }
        below = dir;
    }
    false
}

/// The folder under the store's root that holds the sessions.
pub const SESSION_FOLDER: &str = "session-state";

impl Store for CopilotStore {
    fn session_folders(&self) -> &'static [&'static str] {
        &[SESSION_FOLDER]
    }

    fn archive_folder(&self) -> &'static str {
        "copilot"
    }

    fn side_file(&self) -> Option<SideFile> {
        None
    }

    // A session's file is always `events.jsonl`: its id is its folder's name, which the
    // session's own `session.start` repeats (read by `read_head`).
    fn id_in_stem<'a>(&self, _: &'a str) -> Option<&'a str> {
        None
    }

    // What the client keeps beside a session's events (1.0.102): no session is in them.
    fn is_side_folder(&self, name: &str) -> bool {
        matches!(name, "checkpoints" | "rewind-file-snapshots" | "files" | "research")
    }

    fn holds_no_session(&self, path: &Path) -> bool {
        beside_a_session(path)
    }

    // Everything in a session's folder but its events is the session's: the client lists a
    // session by its `workspace.yaml`, and rewinds it with its checkpoints.
    fn companion_of<'a>(&self, rel: &'a Path) -> Option<&'a str> {
        let mut c = rel.components().map(|c| c.as_os_str());
        if c.next()? != SESSION_FOLDER {
            return None;
        }
        let id = c.next()?.to_str()?;
        let rest: Vec<_> = c.collect();
        (!rest.is_empty() && rest != [std::ffi::OsStr::new(EVENTS)]).then_some(id)
    }

    fn role(&self, _: &Path) -> &'static str {
        "session"
    }

    fn read_head(&self, rec: &Value, head: &mut SessionHead) -> bool {
        let ty = rec.get("type").and_then(Value::as_str);
        if !matches!(ty, Some("session.start" | "session.resume")) {
            return false;
        }
        let Some(data) = rec.get("data") else { return false };
        head.format = Some(crate::ID);
        if let Some(id) = data.get("sessionId").and_then(Value::as_str) {
            head.id.get_or_insert_with(|| id.to_string());
        }
        if let Some(cwd) = data.get("context").and_then(|c| c.get("cwd")).and_then(Value::as_str) {
            head.cwd.get_or_insert_with(|| cwd.to_string());
        }
        true
    }
}

/// The client's folder, `COPILOT_HOME`, else `~/.copilot`, whether or not it exists yet.
pub fn home(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<std::path::PathBuf> {
    env("COPILOT_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| env("HOME").map(|h| std::path::PathBuf::from(h).join(".copilot")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_events_of_a_session_folder_are_a_session() {
        let id = "ec46a508-e7ce-46f7-b4f2-08c298c3b102";
        let in_store = |rest: &str| PathBuf::from(format!("/h/.copilot/session-state/{id}/{rest}"));
        assert!(!beside_a_session(&in_store("events.jsonl")));
        for side in [
            "rewind-file-snapshots/tracking.json",
            "checkpoints/001.json",
            "files/a.jsonl",
            "x.json",
        ] {
            assert!(beside_a_session(&in_store(side)), "{side}");
        }
        // Outside a store's session folders nothing is ruled out.
        assert!(!beside_a_session(Path::new("/h/.copilot/session-state/loose.jsonl")));
        assert!(!beside_a_session(Path::new("/work/files/tracking.json")));
        assert!(!beside_a_session(Path::new("/work/session-state")));
    }

    #[test]
    fn copilot_home_wins_over_home_and_is_said_when_missing() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let custom = dir.path().join("custom");
        std::fs::create_dir_all(home.join(".copilot/session-state")).unwrap();
        std::fs::create_dir_all(custom.join("session-state")).unwrap();
        let env = |copilot: Option<&Path>| {
            let home = home.clone();
            let copilot = copilot.map(Path::to_path_buf);
            move |k: &str| match k {
                "HOME" => Some(home.clone().into_os_string()),
                "COPILOT_HOME" => copilot.clone().map(PathBuf::into_os_string),
                _ => None,
            }
        };
        assert_eq!(roots(&env(None)), (vec![home.join(".copilot/session-state")], vec![]));
        assert_eq!(roots(&env(Some(&custom))), (vec![custom.join("session-state")], vec![]));
        let (found, notes) = roots(&env(Some(&dir.path().join("none"))));
        assert!(found.is_empty());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("COPILOT_HOME"), "{notes:?}");
    }
}
