//! Where Gemini CLI keeps its chats (`Storage`): `~/.gemini/tmp/<project>/chats/`, one folder
//! per project (the folder named in `~/.gemini/projects.json`, or an older hash of the path),
//! each chat `session-<YYYY-MM-DDTHH-MM>-<first 8 of the session id>.jsonl` (older ones
//! `.json`). The project folders hold more than chats (logs of prompts, checkpoints, tool
//! output), which are no sessions.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The folders Gemini CLI keeps chats under that exist (`~/.gemini/tmp`, the home being
/// `GEMINI_CLI_HOME` when set, as the client reads it), and a note when a variable names a
/// folder that does not exist.
pub fn roots(env: &dyn Fn(&str) -> Option<OsString>) -> (Vec<PathBuf>, Vec<String>) {
    let (home, asked) = match env("GEMINI_CLI_HOME") {
        Some(h) => (Some(PathBuf::from(h)), true),
        None => (env("HOME").map(PathBuf::from), false),
    };
    let Some(home) = home else {
        return (Vec::new(), Vec::new());
    };
    let dir = home.join(".gemini").join(TMP_FOLDER);
    if dir.is_dir() {
        return (vec![dir], Vec::new());
    }
    let notes = if asked {
        vec![format!(
            "no Gemini CLI store at {} (from GEMINI_CLI_HOME)",
            dir.display()
        )]
    } else {
        Vec::new()
    };
    (Vec::new(), notes)
}

/// The folder a chat's project is, as its project folder's `.project_root` says (the client
/// writes it beside `chats/`): no record of a chat names the folder it ran in.
pub fn project_root(chat: &Path) -> Option<String> {
    use std::io::Read;
    let chats = chat.parent().filter(|p| p.file_name().is_some_and(|n| n == "chats"))?;
    let mut text = String::new();
    // A folder's path is short: a file that is not the client's is not read whole.
    std::fs::File::open(chats.parent()?.join(".project_root"))
        .ok()?
        .take(64 * 1024)
        .read_to_string(&mut text)
        .ok()?;
    let root = text.trim_end_matches(['\n', '\r']);
    (!root.is_empty() && !root.contains('\n')).then(|| root.to_string())
}

/// The folder of `~/.gemini` that holds the projects' folders.
pub const TMP_FOLDER: &str = "tmp";

/// Whether `name` is a chat file's name as the client writes it.
pub fn is_chat_name(name: &str) -> bool {
    crate::doctor::short_id(name).is_some()
}

/// Gemini CLI's store as backup, restore and session ids see it.
pub struct GeminiStore;

impl cctool_core::agents::Store for GeminiStore {
    fn session_folders(&self) -> &'static [&'static str] {
        &[TMP_FOLDER]
    }

    fn archive_folder(&self) -> &'static str {
        "gemini-cli"
    }

    fn side_file(&self) -> Option<cctool_core::agents::SideFile> {
        None
    }

    // The name carries 8 characters of the id, not the id: a resume finds a chat by its
    // content.
    fn id_in_stem<'a>(&self, _: &'a str) -> Option<&'a str> {
        None
    }

    // Only inside the client's own folders: a chat copied anywhere else is still read.
    fn holds_no_session(&self, path: &Path) -> bool {
        let names: Vec<&std::ffi::OsStr> = path.iter().collect();
        let in_store = names.windows(2).any(|w| w[0] == ".gemini" && w[1] == TMP_FOLDER);
        let in_chats = path.parent().and_then(Path::file_name).is_some_and(|n| n == "chats");
        let named = path.file_name().and_then(|n| n.to_str()).is_some_and(is_chat_name);
        in_store && !(in_chats && named)
    }

    fn retention(&self) -> Option<&'static dyn cctool_core::agents::Retention> {
        Some(&crate::retention::GeminiRetention)
    }

    fn read_head(&self, rec: &serde_json::Value, head: &mut cctool_core::model::store::SessionHead) -> bool {
        let Some(m) = rec.as_object() else { return false };
        if crate::file::kind_of(m) != crate::file::Kind::Header {
            return false;
        }
        if head.format.is_none() {
            head.format = Some(crate::ID);
            head.id = m
                .get("sessionId")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::agents::Store;

    #[test]
    fn only_chat_files_in_a_chats_folder_are_sessions() {
        let s = GeminiStore;
        assert!(!s.holds_no_session(Path::new(
            "/h/.gemini/tmp/p/chats/session-2026-12-01T10-30-f0d1048d.jsonl"
        )));
        assert!(!s.holds_no_session(Path::new(
            "/h/.gemini/tmp/p/chats/session-2026-12-01T10-30-f0d1048d.json"
        )));
        assert!(s.holds_no_session(Path::new("/h/.gemini/tmp/p/logs.json")));
        assert!(s.holds_no_session(Path::new("/h/.gemini/tmp/p/chats/notes.jsonl")));
        assert!(!s.holds_no_session(Path::new("/w/fixtures/gemini/turns.jsonl")));
    }

    #[test]
    fn the_home_may_be_moved() {
        let env = |k: &str| (k == "GEMINI_CLI_HOME").then(|| OsString::from("/nonexistent-gemini-home"));
        let (found, notes) = roots(&env);
        assert!(found.is_empty());
        assert_eq!(notes.len(), 1);
    }
}
