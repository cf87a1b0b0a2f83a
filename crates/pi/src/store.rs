//! Where pi keeps its sessions (`config.js`, `main.js`): `<agent dir>/sessions/--<cwd>--/`, the
//! agent dir being `PI_CODING_AGENT_DIR` or `~/.pi/agent`; `PI_CODING_AGENT_SESSION_DIR`, else
//! the `sessionDir` of the agent dir's `settings.json`, moves the sessions elsewhere.

use std::ffi::OsString;
use std::path::PathBuf;

/// The folders pi keeps sessions in that exist, from the variables in `env`, and a note for
/// each folder a variable names that does not.
pub fn roots(env: &dyn Fn(&str) -> Option<OsString>) -> (Vec<PathBuf>, Vec<String>) {
    let mut notes = Vec::new();
    let (agent_dir, asked) = match env("PI_CODING_AGENT_DIR") {
        Some(d) => (Some(expand(PathBuf::from(d), env)), true),
        None => (env("HOME").map(|h| PathBuf::from(h).join(".pi").join("agent")), false),
    };
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
