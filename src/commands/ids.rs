//! A PATH argument that names no file may name a session by its id, or by a unique prefix of
//! it, as `scan` prints it (`docs/stores.md`, "Sessions named by id"). The id is looked for in
//! the user's own stores (`io::paths::default_stores`, the stores `scan` reads with no PATH).
//!
//! The stores' layouts put the id in each session file's name — Claude Code
//! `projects/<project>/<id>.jsonl`, Codex `rollout-<date>-<id>.jsonl[.zst]`, pi
//! `sessions/--<cwd>--/<time>_<id>.jsonl` — so a store of
//! thousands of sessions is matched on names alone; only a file whose name carries no id has
//! its head read. Claude Code's session side folders (`<project>/<id>/`: subagents, tool
//! results) hold no sessions of their own and are not entered.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::io::paths::{Stores, is_candidate};
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::store::SessionHead as HeadFacts;

/// How many candidates the message about an ambiguous prefix lists.
const SHOWN: usize = 5;

/// How deep a store is walked: Codex keeps `sessions/YYYY/MM/DD/<rollout>`.
const STORE_DEPTH: usize = 4;

/// How much of a file's head is read to find its session id when its name does not say.
const HEAD_BYTES: u64 = 64 * 1024;

/// Why an argument that names no file names no single session either. The sentence does not
/// repeat the argument: whoever prints it names the argument first, as for any input.
#[derive(Debug, thiserror::Error)]
pub enum IdError {
    #[error(
        "no such file, and no session id starts with it in the stores searched ({})",
        list(.stores)
    )]
    Unknown { arg: String, stores: Vec<PathBuf> },
    #[error("no such file, and no session store to look for it as a session id (looked in {})", list(.looked))]
    NoStores { arg: String, looked: Vec<PathBuf> },
    #[error(
        "no such file, and {count} sessions have an id starting with it; give more of the id: {}",
        candidates(.shown, *.count)
    )]
    Ambiguous {
        arg: String,
        count: usize,
        /// The first few, in the order of their paths.
        shown: Vec<Candidate>,
    },
}

fn candidates(shown: &[Candidate], count: usize) -> String {
    let mut s = shown.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
    if count > shown.len() {
        s.push_str(&format!("; and {} more", count - shown.len()));
    }
    s
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One of the sessions an ambiguous prefix names, as the message lists it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: String,
    /// The agent's short name (`claude`, `codex`), when the file's head says.
    pub agent: Option<&'static str>,
    /// The last folder of the session's working directory, when its head says.
    pub project: Option<String>,
    pub path: PathBuf,
}

impl std::fmt::Display for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unknown = "?";
        write!(
            f,
            "{} ({}, project {}) {}",
            self.id,
            self.agent.unwrap_or(unknown),
            self.project.as_deref().unwrap_or(unknown),
            self.path.display()
        )
    }
}

/// What an id argument asks for: a prefix, and the end of the id when it was given as `scan`
/// shortens ids that share their first characters (`a1b2c3d4…000a`).
#[derive(Debug, PartialEq, Eq)]
struct Pattern {
    prefix: String,
    suffix: Option<String>,
}

impl Pattern {
    /// The pattern of `arg`, or `None` when it cannot be an id: ids are hex digits and dashes.
    fn of(arg: &str) -> Option<Pattern> {
        let (prefix, suffix) = match arg.split_once('…') {
            Some((p, s)) => (p.to_string(), Some(s.to_string())),
            None => (arg.to_string(), None),
        };
        // Ids are uuids (hex digits and dashes), or an agent's typed ids, a lowercase type
        // and `_` before letters and digits (opencode's `ses_…`).
        let typed = |s: &str| {
            s.split_once('_').is_some_and(|(t, rest)| {
                !t.is_empty()
                    && t.bytes().all(|b| b.is_ascii_lowercase())
                    && rest.bytes().all(|b| b.is_ascii_alphanumeric())
            })
        };
        let id_like = |s: &str| typed(s) || s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
        // The end `scan` shows of a long id that is no uuid (`…qV2vNPG4N14`): its last letters
        // and digits.
        let end_like =
            |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        let digits = prefix
            .bytes()
            .chain(suffix.iter().flat_map(|s| s.bytes()))
            .any(|b| b.is_ascii_hexdigit());
        (digits && id_like(&prefix) && suffix.as_deref().is_none_or(end_like)).then_some(Pattern { prefix, suffix })
    }

    /// Whether `id` starts with the prefix and ends with the end, in any case.
    fn matches(&self, id: &str) -> bool {
        crate::model::store::id_has_ends(id, &self.prefix, self.suffix.as_deref().unwrap_or(""))
    }
}

/// The session files of the stores, each with its id.
#[derive(Debug, Default)]
pub struct Index {
    sessions: Vec<(String, PathBuf)>,
    stores: Vec<PathBuf>,
    looked: Vec<PathBuf>,
}

impl Index {
    /// The sessions of `stores`: ids from file names, a file's head read only when its name
    /// carries none.
    pub fn of(stores: &Stores) -> Index {
        let mut sessions = Vec::new();
        for store in &stores.found {
            // A store that is itself a container (opencode's per-file storage, a folder) is
            // listed by its agent: its files are not sessions one by one.
            if store.is_dir()
                && let Some(m) = crate::io::member::members_of(store)
            {
                sessions.extend(
                    m.sessions
                        .iter()
                        .map(|m| (m.id.to_ascii_lowercase(), PathBuf::from(m.name()))),
                );
                continue;
            }
            for path in session_files(store) {
                let id = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(id_in_name)
                    .map(str::to_string)
                    .or_else(|| head_facts(&path).and_then(|h| h.id));
                if let Some(id) = id {
                    sessions.push((id.to_ascii_lowercase(), path));
                }
            }
            // A database of many sessions names each as `FILE#ID`.
            for m in containers(store)
                .iter()
                .filter_map(|f| crate::io::member::members_of(f))
            {
                sessions.extend(
                    m.sessions
                        .iter()
                        .map(|m| (m.id.to_ascii_lowercase(), PathBuf::from(m.name()))),
                );
            }
        }
        Index {
            sessions,
            stores: stores.found.clone(),
            looked: stores.looked.clone(),
        }
    }

    /// The session `arg` names: `Ok(None)` when it cannot be an id (the caller reports the
    /// missing file as such).
    pub fn resolve(&self, arg: &str) -> Result<Option<PathBuf>, IdError> {
        let Some(pattern) = Pattern::of(arg) else {
            return Ok(None);
        };
        if self.stores.is_empty() {
            return Err(IdError::NoStores {
                arg: arg.to_string(),
                looked: self.looked.clone(),
            });
        }
        let found: Vec<&(String, PathBuf)> = self.sessions.iter().filter(|(id, _)| pattern.matches(id)).collect();
        match found[..] {
            [] => Err(IdError::Unknown {
                arg: arg.to_string(),
                stores: self.stores.clone(),
            }),
            [(_, path)] => Ok(Some(path.clone())),
            _ => {
                let count = found.len();
                let mut shown = found;
                shown.sort_by(|a, b| a.1.cmp(&b.1));
                Err(IdError::Ambiguous {
                    arg: arg.to_string(),
                    count,
                    shown: shown.into_iter().take(SHOWN).map(|(id, p)| candidate(id, p)).collect(),
                })
            }
        }
    }
}

/// Whether `arg` names the session `id` as an id argument does: a prefix of it, or the two
/// ends `scan` shows of a shortened id, in any case.
pub fn names(arg: &str, id: &str) -> bool {
    match Pattern::of(arg) {
        Some(p) => p.matches(id),
        None => crate::model::store::id_has_ends(id, arg, ""),
    }
}

/// Whether `arg` is a path that names nothing on disk, and so may be a session id. A path
/// that exists always wins over an id; `-` is standard input.
pub fn may_be_id(arg: &Path) -> bool {
    arg.as_os_str() != "-"
        && std::fs::symlink_metadata(arg).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        && arg.to_str().and_then(Pattern::of).is_some()
}

/// The session file `arg` names: `arg` itself when it is a path (or cannot be an id),
/// else the session of the user's stores with that id or unique id prefix.
pub fn session_path(arg: &Path) -> Result<PathBuf, IdError> {
    if !may_be_id(arg) {
        return Ok(arg.to_path_buf());
    }
    let index = Index::of(&crate::io::paths::default_stores());
    Ok(index
        .resolve(&arg.to_string_lossy())?
        .unwrap_or_else(|| arg.to_path_buf()))
}

/// The PATH arguments of a batch command with each id replaced by its session's file; an id
/// that names no single session is left out, and its problem returned as an error.
pub fn resolve_all(args: &[PathBuf]) -> (Vec<PathBuf>, Vec<Diagnostic>) {
    let mut index = None;
    let mut paths = Vec::with_capacity(args.len());
    let mut problems = Vec::new();
    for arg in args {
        if !may_be_id(arg) {
            paths.push(arg.clone());
            continue;
        }
        let index = index.get_or_insert_with(|| Index::of(&crate::io::paths::default_stores()));
        match index.resolve(&arg.to_string_lossy()) {
            Ok(found) => paths.push(found.unwrap_or_else(|| arg.clone())),
            Err(e) => problems.push(Diagnostic::new(
                arg.display().to_string(),
                None,
                Code::UnreadablePath,
                Severity::Error,
                e.to_string(),
            )),
        }
    }
    (paths, problems)
}

fn candidate(id: &str, path: &Path) -> Candidate {
    let head = head_facts(path);
    Candidate {
        id: id.to_string(),
        agent: head
            .as_ref()
            .and_then(|h| h.format)
            .map(|f| crate::agents::agent(f).about().short_name),
        project: head
            .and_then(|h| h.cwd)
            .and_then(|c| crate::scan::project::name(Some(&c), &path.display().to_string())),
        path: path.to_path_buf(),
    }
}

/// The session-file candidates of one store: regular files, not subagent transcripts, not
/// inside a session's side folder; a plain rollout wins over its compressed copy.
fn session_files(store: &Path) -> Vec<PathBuf> {
    // The side folders of the agent whose store this is, by its folder's name: another
    // agent's (Claude Code's `<id>/`) may be where this one keeps its sessions (Copilot CLI's
    // `session-state/<id>/`).
    let name = store.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let owners: Vec<_> = crate::agents::registry()
        .stores()
        .filter(|s| s.session_folders().contains(&name))
        .collect();
    let side = |n: &str| {
        if owners.is_empty() {
            crate::agents::registry().stores().any(|s| s.is_side_folder(n))
        } else {
            owners.iter().any(|s| s.is_side_folder(n))
        }
    };
    let walker = walkdir::WalkDir::new(store)
        .max_depth(STORE_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_type().is_dir() || !e.file_name().to_str().is_some_and(side));
    let mut files: Vec<PathBuf> = walker
        .flatten()
        .filter(|e| e.file_type().is_file() && is_candidate(e.path()))
        .filter(|e| {
            !e.path()
                .to_str()
                .is_some_and(|p| crate::agents::registry().stores().any(|s| s.is_sub_session(p)))
        })
        .map(walkdir::DirEntry::into_path)
        .collect();
    crate::io::paths::drop_compressed_twins(&mut files);
    files
}

/// The files of one store that may hold many sessions (an agent's database).
fn containers(store: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(store)
        .max_depth(STORE_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && crate::io::member::may_be_container(e.path()))
        .map(walkdir::DirEntry::into_path)
        .collect()
}

/// The session id a store's layout puts in a file's name (Claude Code `<id>.jsonl`, Codex
/// `rollout-<date>-<id>.jsonl[.zst]`, pi `<time>_<id>.jsonl`: [`crate::agents::Store::id_in_stem`]).
fn id_in_name(name: &str) -> Option<&str> {
    let name = name.strip_suffix(".zst").unwrap_or(name);
    let stem = name.strip_suffix(".jsonl").or_else(|| name.strip_suffix(".json"))?;
    crate::agents::registry().stores().find_map(|s| s.id_in_stem(stem))
}

/// How many lines of a head are looked at: a Claude Code transcript may open with a few
/// rows that carry no session id (summaries, file snapshots).
const HEAD_LINES: usize = 32;

fn head_facts(path: &Path) -> Option<HeadFacts> {
    let head = crate::io::paths::regular_file_head(path, HEAD_BYTES)?;
    Some(facts_of_head(&head))
}

/// The session id and working directory of a session file, from the complete lines of
/// `head`, as its agent's records say them ([`crate::agents::Store::read_head`]: a Claude
/// Code transcript's rows' `sessionId` and `cwd`, a Codex rollout's `session_meta`).
fn facts_of_head(head: &[u8]) -> HeadFacts {
    let mut facts = HeadFacts::default();
    for line in head.split(|&b| b == b'\n').take(HEAD_LINES) {
        let Ok(rec) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        // The first agent whose record it is reads it.
        let _ = crate::agents::registry()
            .stores()
            .any(|s| s.read_head(&rec, &mut facts));
        if facts.id.is_some() && facts.cwd.is_some() {
            break;
        }
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_the_names_each_store_gives() {
        let id = "019d2a29-fe67-7632-b14f-5419a515b120";
        assert_eq!(id_in_name(&format!("{id}.jsonl")), Some(id));
        assert_eq!(id_in_name(&format!("rollout-2026-04-03T14-00-00-{id}.jsonl")), Some(id));
        assert_eq!(
            id_in_name(&format!("rollout-2026-04-03T14-00-00-{id}.jsonl.zst")),
            Some(id)
        );
        assert_eq!(id_in_name("agent-a1.jsonl"), None);
        assert_eq!(id_in_name("rollout-.jsonl"), None);
        assert_eq!(id_in_name(&format!("{id}.txt")), None);
    }

    #[test]
    fn patterns_are_prefixes_or_the_ends_scan_shows() {
        assert_eq!(Pattern::of("notes.jsonl"), None);
        assert_eq!(Pattern::of("-"), None);
        assert_eq!(Pattern::of("----"), None);
        let p = Pattern::of("A1B2…000A").unwrap();
        assert!(p.matches("a1b2c3d4-1111-4aaa-8aaa-00000000000a"));
        assert!(!p.matches("a1b2c3d4-1111-4aaa-8aaa-00000000000b"));
        assert!(
            Pattern::of("a1b2c3d4")
                .unwrap()
                .matches("a1b2c3d4-1111-4aaa-8aaa-00000000000a")
        );
        // The end scan shows of an id that is no uuid (opencode's), in its own case.
        let end = Pattern::of("…qV2vNPG4N14").unwrap();
        assert!(end.matches("ses_dc2d20407ffefXjqV2vNPG4N14"));
        assert!(!end.matches("ses_dc2d25b60ffektCxuYSkdGjDi7"));
        assert!(
            Pattern::of("ses_dc2d2040")
                .unwrap()
                .matches("ses_dc2d20407ffefXjqV2vNPG4N14")
        );
        assert_eq!(Pattern::of("…"), None);
        assert_eq!(Pattern::of("…notes.jsonl"), None);
    }

    #[test]
    fn a_head_says_the_id_and_folder_of_either_agent() {
        let claude =
            b"{\"type\":\"summary\",\"summary\":\"x\"}\n{\"type\":\"user\",\"sessionId\":\"S1\",\"cwd\":\"/w/p\"}\n";
        let facts = facts_of_head(claude);
        let agent = |f: &HeadFacts| f.format.map(|f| crate::agents::agent(f).about().short_name);
        assert_eq!(agent(&facts), Some("claude"));
        assert_eq!((facts.id.as_deref(), facts.cwd.as_deref()), (Some("S1"), Some("/w/p")));
        let codex = b"{\"type\":\"session_meta\",\"payload\":{\"id\":\"T1\",\"cwd\":\"/w/q\"}}\n";
        assert_eq!(facts_of_head(codex).id.as_deref(), Some("T1"));
        assert!(agent(&facts_of_head(codex)).is_some_and(|a| a != "claude"));
        assert_eq!(facts_of_head(b"not json\n"), HeadFacts::default());
    }

    #[test]
    fn side_folders_subagents_and_compressed_copies_are_not_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let id = "a1b2c3d4-1111-4aaa-8aaa-00000000000a";
        for f in [
            format!("p/{id}.jsonl"),
            format!("p/{id}/subagents/agent-x.jsonl"),
            format!("p/{id}/tool-results/{id}.json"),
            "p/agent-old.jsonl".to_string(),
            "s/rollout-a.jsonl".to_string(),
            "s/rollout-a.jsonl.zst".to_string(),
        ] {
            std::fs::create_dir_all(d.join(&f).parent().unwrap()).unwrap();
            std::fs::write(d.join(&f), "{}").unwrap();
        }
        let names: Vec<PathBuf> = session_files(d)
            .iter()
            .map(|p| p.strip_prefix(d).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            names,
            [
                PathBuf::from(format!("p/{id}.jsonl")),
                PathBuf::from("s/rollout-a.jsonl")
            ]
        );
    }
}
