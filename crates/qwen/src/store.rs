//! Where Qwen Code keeps its sessions (`Storage`): `<runtime dir>/projects/<project>/chats/
//! <session id>.jsonl`, the runtime dir being `QWEN_RUNTIME_DIR`, else `QWEN_HOME`, else
//! `~/.qwen`, and `<project>` the working folder with every character that is not an ASCII
//! letter or digit made `-` (`sanitizeCwd`). Beside `chats/` each project folder holds
//! `meta.json` and the client's memory and cursors, which are no sessions.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The folder of the runtime dir that holds the projects' sessions.
pub const SESSION_FOLDER: &str = "projects";

/// The folders Qwen Code keeps sessions in that exist, from the variables in `env`, and a note
/// for a folder a variable names that does not.
pub fn roots(env: &dyn Fn(&str) -> Option<OsString>) -> (Vec<PathBuf>, Vec<String>) {
    let (dir, from) = runtime_dir(env);
    let Some(dir) = dir.map(|d| d.join(SESSION_FOLDER)) else {
        return (Vec::new(), Vec::new());
    };
    if dir.is_dir() {
        return (vec![dir], Vec::new());
    }
    let notes = from
        .map(|v| vec![format!("no Qwen Code store at {} (from {v})", dir.display())])
        .unwrap_or_default();
    (Vec::new(), notes)
}

/// The runtime dir (`Storage.getRuntimeBaseDir`), and the variable that named it.
fn runtime_dir(env: &dyn Fn(&str) -> Option<OsString>) -> (Option<PathBuf>, Option<&'static str>) {
    for var in ["QWEN_RUNTIME_DIR", "QWEN_HOME"] {
        if let Some(d) = env(var).filter(|d| !d.is_empty()) {
            return (Some(expand(PathBuf::from(d), env)), Some(var));
        }
    }
    (env("HOME").map(|h| PathBuf::from(h).join(".qwen")), None)
}

/// The client's home folder (`Storage.getGlobalQwenDir`), where its user settings are:
/// `QWEN_HOME` (a leading `~` the home, a relative path from `cwd`), else `~/.qwen`.
pub fn home(env: &dyn Fn(&str) -> Option<OsString>, cwd: &Path) -> Option<PathBuf> {
    match env("QWEN_HOME").filter(|d| !d.is_empty()) {
        Some(d) => Some(cwd.join(expand(PathBuf::from(d), env))),
        None => Some(PathBuf::from(env("HOME")?).join(".qwen")),
    }
}

/// A leading `~` as the client resolves it.
fn expand(p: PathBuf, env: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    match (p.strip_prefix("~"), env("HOME")) {
        (Ok(rest), Some(h)) => PathBuf::from(h).join(rest),
        _ => p,
    }
}

/// The folder of a project's sessions below `projects/` (`sanitizeCwd`).
pub fn project_folder(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The files the client keeps in a project folder beside `chats/`.
const PROJECT_FILES: &[&str] = &["meta.json", "extract-cursor.json"];

/// The file the client resumes the session `id` of `cwd` from, made or not.
pub fn session_path(env: &dyn Fn(&str) -> Option<OsString>, cwd: &str, id: &str) -> Option<PathBuf> {
    let dir = runtime_dir(env).0?;
    Some(
        dir.join(SESSION_FOLDER)
            .join(project_folder(cwd))
            .join("chats")
            .join(format!("{id}.jsonl")),
    )
}

/// Qwen Code's store as backup, restore and session ids see it: `projects/` of the runtime
/// dir, each session named by its id in its project's `chats/`. Beside `projects/` the dir
/// holds the user's settings and credentials, which a backup of sessions never takes.
pub struct QwenStore;

impl cctool_core::agents::Store for QwenStore {
    fn session_folders(&self) -> &'static [&'static str] {
        &[SESSION_FOLDER]
    }

    fn archive_folder(&self) -> &'static str {
        "qwen-code"
    }

    fn side_file(&self) -> Option<cctool_core::agents::SideFile> {
        None
    }

    fn id_in_stem<'a>(&self, stem: &'a str) -> Option<&'a str> {
        cctool_core::model::store::is_uuid(stem).then_some(stem)
    }

    fn resumes_by_name(&self) -> bool {
        true
    }

    fn holds_no_session(&self, path: &Path) -> bool {
        // A project folder's own files sit beside its `chats/`; Claude Code's transcripts sit
        // in a folder of the same name, so only the client's own names are passed over.
        let in_project =
            path.parent().and_then(Path::parent).and_then(Path::file_name) == Some(SESSION_FOLDER.as_ref());
        in_project && path.file_name().is_some_and(|n| PROJECT_FILES.iter().any(|f| n == *f))
    }

    fn read_head(&self, rec: &serde_json::Value, head: &mut cctool_core::model::store::SessionHead) -> bool {
        use serde_json::Value;
        let s = |k: &str| rec.get(k).and_then(Value::as_str);
        let typed = s("type").is_some_and(|t| crate::file::RECORD_TYPES.contains(&t));
        let (Some(id), Some(_), true) = (s("sessionId"), s("uuid"), typed) else {
            return false;
        };
        if head.format.is_none() {
            head.format = Some(crate::ID);
            head.id = Some(id.to_string());
            head.cwd = s("cwd").map(str::to_string);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::agents::Store;

    #[test]
    fn a_project_folder_is_named_as_the_client_names_it() {
        assert_eq!(project_folder("/home/u/my proj.v2"), "-home-u-my-proj-v2");
    }

    #[test]
    fn sessions_go_where_the_variables_say() {
        let home = |k: &str| (k == "HOME").then(|| OsString::from("/h"));
        assert_eq!(
            session_path(&home, "/w/p", "S"),
            Some(PathBuf::from("/h/.qwen/projects/-w-p/chats/S.jsonl"))
        );
        let moved = |k: &str| match k {
            "HOME" => Some(OsString::from("/h")),
            "QWEN_HOME" => Some(OsString::from("~/q")),
            _ => None,
        };
        assert_eq!(
            session_path(&moved, "/w", "S"),
            Some(PathBuf::from("/h/q/projects/-w/chats/S.jsonl"))
        );
        let runtime = |k: &str| match k {
            "QWEN_HOME" => Some(OsString::from("/q")),
            "QWEN_RUNTIME_DIR" => Some(OsString::from("/r")),
            _ => None,
        };
        assert_eq!(
            session_path(&runtime, "/w", "S"),
            Some(PathBuf::from("/r/projects/-w/chats/S.jsonl"))
        );
    }

    #[test]
    fn a_project_folder_s_own_files_hold_no_session() {
        assert!(QwenStore.holds_no_session(Path::new("/h/.qwen/projects/-w/meta.json")));
        assert!(!QwenStore.holds_no_session(Path::new("/h/.qwen/projects/-w/chats/a.jsonl")));
        // Any other folder's files are read as found.
        assert!(!QwenStore.holds_no_session(Path::new("/tmp/x/notes.json")));
        assert!(!QwenStore.holds_no_session(Path::new("/h/.claude/projects/-w/a.jsonl")));
    }
}
