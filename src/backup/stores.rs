//! The files a backup takes from the user's stores.

use std::path::{Path, PathBuf};

/// A file to back up.
#[derive(Debug, Clone)]
pub struct Found {
    pub agent: &'static str,
    pub role: &'static str,
    pub path: PathBuf,
    /// The agent's folder (`~/.claude`, `~/.codex`) and the path below it.
    pub store: PathBuf,
    pub rel: PathBuf,
}

/// Every file of the stores `crate::io::paths::stores_from` finds: Claude Code transcripts
/// with their subagents (and the sidecar `.json` files beside them) and `history.jsonl`;
/// Codex rollouts (plain and compressed) of `sessions/` and `archived_sessions/` and
/// `session_index.jsonl`. Sorted by path; `problems` gets what could not be walked.
pub fn files(stores: &crate::io::paths::Stores, problems: &mut Vec<String>) -> Vec<Found> {
    let mut out = Vec::new();
    let mut extra = std::collections::BTreeSet::new();
    for dir in &stores.found {
        let Some(parent) = dir.parent() else { continue };
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let agent = if name == "projects" { "claude-code" } else { "codex" };
        // Links are followed: a dotfile manager links project folders and session files into
        // the store, and the agent reads them through the link. A loop is a walk error.
        for e in walkdir::WalkDir::new(dir).follow_links(true).sort_by_file_name() {
            let e = match e {
                Ok(e) => e,
                Err(err) => {
                    problems.push(format!("{}: cannot read: {err}", err.path().unwrap_or(dir).display()));
                    continue;
                }
            };
            if !e.file_type().is_file() || !crate::io::paths::is_candidate(e.path()) {
                continue;
            }
            let role = if agent == "claude-code" && e.path().components().any(|c| c.as_os_str() == "subagents") {
                "subagent"
            } else {
                "session"
            };
            out.push(found(agent, role, e.path(), parent));
        }
        let side = if agent == "claude-code" {
            ("history", parent.join("history.jsonl"))
        } else {
            ("index", parent.join("session_index.jsonl"))
        };
        if side.1.is_file() && extra.insert(side.1.clone()) {
            out.push(found(agent, side.0, &side.1, parent));
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    // A file reached by two names (a folder linked twice, a link to a file the walk also
    // finds) is taken once, by the first name in path order.
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert(std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone())));
    out
}

fn found(agent: &'static str, role: &'static str, path: &Path, store: &Path) -> Found {
    Found {
        agent,
        role,
        path: path.to_path_buf(),
        store: store.to_path_buf(),
        rel: path.strip_prefix(store).unwrap_or(path).to_path_buf(),
    }
}
