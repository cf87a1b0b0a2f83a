//! Where pi keeps its sessions (`config.js`, `main.js`): `<agent dir>/sessions/--<cwd>--/`, the
//! agent dir being `PI_CODING_AGENT_DIR` or `~/.pi/agent`; `PI_CODING_AGENT_SESSION_DIR`, else
//! the `sessionDir` of the agent dir's `settings.json`, moves the sessions elsewhere.

use std::ffi::OsString;
use std::path::PathBuf;

/// The folders pi keeps sessions in that exist, from the variables in `env`, and a note for
/// each folder a variable names that does not.
pub fn roots(env: &dyn Fn(&str) -> Option<OsString>) -> (Vec<PathBuf>, Vec<String>) {
    let mut notes = Vec::new();
    let (agent_dir, asked) = agent_dir(env);
    let (sessions, from) = match env("PI_CODING_AGENT_SESSION_DIR") {
        Some(d) => (Some(expand(PathBuf::from(d), env)), Some("PI_CODING_AGENT_SESSION_DIR")),
        None => match agent_dir.as_ref().and_then(|a| setting(a, env)) {
            Some(d) => (Some(d), Some("sessionDir in settings.json")),
            None => (
                agent_dir.map(|a| a.join("sessions")),
                asked.then_some("PI_CODING_AGENT_DIR"),
            ),
        },
    };
    let Some(dir) = sessions else {
        return (Vec::new(), notes);
    };
    if dir.is_dir() {
        return (vec![dir], notes);
    }
    if let Some(from) = from {
        notes.push(format!("no pi store at {} (from {from})", dir.display()));
    }
    (Vec::new(), notes)
}

/// A leading `~` as the client expands it (`normalizePath`).
fn expand(p: PathBuf, env: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    let home = || env("HOME").map(PathBuf::from);
    match p.strip_prefix("~") {
        Ok(rest) => home().map_or_else(|| p.clone(), |h| h.join(rest)),
        Err(_) => p,
    }
}

/// The `sessionDir` of `<agent dir>/settings.json`, when it sets one.
fn setting(agent_dir: &std::path::Path, env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let text = std::fs::read(agent_dir.join("settings.json")).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    let dir = v.get("sessionDir")?.as_str().filter(|d| !d.is_empty())?;
    Some(expand(PathBuf::from(dir), env))
}

/// The agent dir (`getAgentDir`), and whether a variable named it.
fn agent_dir(env: &dyn Fn(&str) -> Option<OsString>) -> (Option<PathBuf>, bool) {
    match env("PI_CODING_AGENT_DIR") {
        Some(d) => (Some(expand(PathBuf::from(d), env)), true),
        None => (env("HOME").map(|h| PathBuf::from(h).join(".pi").join("agent")), false),
    }
}

/// The folder the client keeps the sessions of `cwd` in, made or not: the folder
/// `PI_CODING_AGENT_SESSION_DIR` or the `sessionDir` setting names (sessions directly in it),
/// else `<agent dir>/sessions/--<cwd>--/` (`getDefaultSessionDirPath`).
pub fn session_dir(env: &dyn Fn(&str) -> Option<OsString>, cwd: &str) -> Option<PathBuf> {
    if let Some(d) = env("PI_CODING_AGENT_SESSION_DIR") {
        return Some(expand(PathBuf::from(d), env));
    }
    let agent = agent_dir(env).0?;
    if let Some(d) = setting(&agent, env) {
        return Some(d);
    }
    Some(agent.join("sessions").join(project_folder(cwd)))
}

/// The folder of a project's sessions: its path without the leading separator, each `/`, `\`
/// and `:` a `-`, between `--` and `--`.
pub fn project_folder(cwd: &str) -> String {
    let path = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", path.replace(['/', '\\', ':'], "-"))
}

/// pi's store as backup, restore and session ids see it: `sessions/` of the agent dir (or the
/// folder a variable or setting names), each session in its cwd's folder, named
/// `<ISO time>_<session id>.jsonl` (`SessionManager.newSession`), the header repeating the id.
/// Beside `sessions/` the agent dir holds `auth.json` (the user's API keys) and settings,
/// which a backup of sessions never takes.
pub struct PiStore;

/// The folder of the agent dir that holds the sessions.
pub const SESSION_FOLDER: &str = "sessions";

impl cctool_core::agents::Store for PiStore {
    fn session_folders(&self) -> &'static [&'static str] {
        &[SESSION_FOLDER]
    }

    fn archive_folder(&self) -> &'static str {
        "pi"
    }

    fn side_file(&self) -> Option<cctool_core::agents::SideFile> {
        None
    }

    fn id_in_stem<'a>(&self, stem: &'a str) -> Option<&'a str> {
        let (time, id) = stem.rsplit_once('_')?;
        // The time as the client writes it (`toISOString` with `:` and `.` made `-`), so a
        // name of another store that happens to end in `_<uuid>` is not taken for pi's.
        let time_like = time.len() == "2026-05-01T10-00-00-000Z".len()
            && time.as_bytes()[10] == b'T'
            && time.ends_with('Z')
            && time
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'T' | b'Z'));
        (time_like && cctool_core::model::store::is_uuid(id)).then_some(id)
    }

    fn read_head(&self, rec: &serde_json::Value, head: &mut cctool_core::model::store::SessionHead) -> bool {
        use serde_json::Value;
        if rec.get("type").and_then(Value::as_str) != Some("session") {
            return false;
        }
        let Some(id) = rec.get("id").and_then(Value::as_str) else {
            return false;
        };
        // Only the first header counts: the client passes over any later one.
        if head.format.is_none() {
            head.format = Some(crate::ID);
            head.id = Some(id.to_string());
            head.cwd = rec.get("cwd").and_then(Value::as_str).map(str::to_string);
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
        assert_eq!(project_folder("/home/u/my:proj"), "--home-u-my-proj--");
        assert_eq!(project_folder("/"), "----");
    }

    #[test]
    fn sessions_go_where_the_variables_say() {
        let home = |k: &str| (k == "HOME").then(|| OsString::from("/h"));
        assert_eq!(
            session_dir(&home, "/w/p"),
            Some(PathBuf::from("/h/.pi/agent/sessions/--w-p--"))
        );
        let moved = |k: &str| match k {
            "HOME" => Some(OsString::from("/h")),
            "PI_CODING_AGENT_SESSION_DIR" => Some(OsString::from("~/s")),
            _ => None,
        };
        assert_eq!(session_dir(&moved, "/w/p"), Some(PathBuf::from("/h/s")));
    }

    #[test]
    fn a_file_name_gives_its_id_only_in_the_client_s_pattern() {
        let id = "019e0000-0000-7000-8000-000000000001";
        let stem = format!("2026-05-01T10-00-00-000Z_{id}");
        assert_eq!(PiStore.id_in_stem(&stem), Some(id));
        assert_eq!(PiStore.id_in_stem(id), None);
        assert_eq!(PiStore.id_in_stem(&format!("notes_{id}")), None);
        assert_eq!(PiStore.id_in_stem("2026-05-01T10-00-00-000Z_x"), None);
        assert_eq!(PiStore.id_in_stem(&format!("rollout-2026-05-01T10-00-00-{id}")), None);
    }

    #[test]
    fn the_header_gives_id_and_cwd_and_nothing_else_does() {
        let mut head = cctool_core::model::store::SessionHead::default();
        let other = serde_json::json!({"type": "message", "id": "a0000001"});
        assert!(!PiStore.read_head(&other, &mut head));
        let header = serde_json::json!({"type": "session", "version": 3, "id": "S", "cwd": "/w", "timestamp": "t"});
        assert!(PiStore.read_head(&header, &mut head));
        assert_eq!((head.id.as_deref(), head.cwd.as_deref()), (Some("S"), Some("/w")));
        assert_eq!(head.format, Some(crate::ID));
    }
}
