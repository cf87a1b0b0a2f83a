//! Where Copilot CLI keeps its sessions: `session-state/<id>/events.jsonl` under
//! `COPILOT_HOME` (else `~/.copilot`), each session a folder named by its id, with
//! `workspace.yaml`, `checkpoints/` and `session.db` beside the events.

use std::path::Path;

use cctool_core::agents::{SideFile, Store};
use cctool_core::model::store::SessionHead;
use serde_json::Value;

/// Copilot CLI's store.
pub struct CopilotStore;

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
