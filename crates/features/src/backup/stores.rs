//! The files a backup takes from the user's stores.

use std::path::{Path, PathBuf};

/// A file to back up.
#[derive(Debug, Clone)]
pub struct Found {
    /// The agent's name ([`crate::model::AgentId::name`]), as the manifest records it.
    pub(crate) agent: &'static str,
    /// `session`, `subagent`, or the side file's role.
    pub(crate) role: &'static str,
    pub(crate) path: PathBuf,
    /// The agent's folder (`~/.claude`, `~/.codex`) and the path below it.
    pub(crate) store: PathBuf,
    pub(crate) rel: PathBuf,
}

/// Every file of the stores `crate::io::paths::stores_from` finds, each of the agent whose
/// session folder it is in ([`crate::agents::Store`]): its session files (plain and
/// compressed, with their sub-sessions and the sidecar `.json` files beside them) and the
/// side file beside the folder (`history.jsonl`, `session_index.jsonl`); and each database
/// an agent keeps its sessions in (opencode's), whole ([`DATABASE`]). Sorted by path;
/// `problems` gets what could not be walked.
pub fn files(stores: &crate::io::paths::Stores, problems: &mut Vec<String>) -> Vec<Found> {
    let mut out = Vec::new();
    let mut extra = std::collections::BTreeSet::new();
    for dir in &stores.found {
        let Some(parent) = dir.parent() else { continue };
        if let Some(agent) = database_of(stores, dir) {
            out.push(found(agent.about().format.name(), DATABASE, dir, parent));
            continue;
        }
        let Some((agent, store)) = stores.agent_of(dir) else {
            continue;
        };
        let agent = agent.about().format.name();
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
            if !e.file_type().is_file() {
                continue;
            }
            let rel = e.path().strip_prefix(parent).unwrap_or(e.path());
            if store.companion_of(rel).is_some() {
                out.push(found(agent, COMPANION, e.path(), parent));
            } else if crate::io::paths::is_candidate(e.path()) && !store.holds_no_session(e.path()) {
                // A file the agent keeps beside its sessions (a project's metadata) is no session.
                out.push(found(agent, store.role(e.path()), e.path(), parent));
            }
        }
        if let Some(side) = store.side_file() {
            let path = parent.join(side.name);
            if path.is_file() && extra.insert(path.clone()) {
                out.push(found(agent, side.role, &path, parent));
            }
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

/// The role in a manifest of a file an agent keeps beside a session's own, which belongs to
/// that session ([`crate::agents::Store::companion_of`]).
pub const COMPANION: &str = "companion";

/// The role in a manifest of a file in which an agent keeps many sessions (a database),
/// copied whole by the agent's [`crate::agents::Container::snapshot`].
pub const DATABASE: &str = "database";

/// The agent whose database the store `dir` is: a file an agent found as its store and
/// keeps sessions in ([`crate::agents::Agent::container`]).
fn database_of(stores: &crate::io::paths::Stores, dir: &Path) -> Option<&'static dyn crate::agents::Agent> {
    let (_, id) = stores.owners.iter().find(|(d, _)| d == dir)?;
    let agent = crate::agents::registry().find(*id)?;
    // A folder an agent keeps sessions in as a container (opencode's older per-file storage) is
    // copied through its container too: its copy is what restore lists and reads sessions from.
    let container = agent.container()?;
    (dir.is_file() || dir.is_dir() && container.may_be(dir)).then_some(agent)
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
