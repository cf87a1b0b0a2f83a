//! Subagent transcripts: Claude Code writes each subagent's conversation to a file of its
//! own beside the session, `<project>/<session>/subagents/agent-*.jsonl` (earlier versions:
//! `<project>/agent-*.jsonl`), holding the session's id. A session's subagents belong to it:
//! `scan` and `doctor` read them with the session, and link them to it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::io::Input;

pub use cctool_core::model::session::is_uuid;

/// Whether a file's stem is a uuid, as Claude Code names session files.
pub fn is_uuid_stem(p: &Path) -> bool {
    p.file_stem().and_then(|s| s.to_str()).is_some_and(is_uuid)
}

/// Whether a path names a subagent transcript.
pub fn is_subagent_path(path: &str) -> bool {
    let p = Path::new(path);
    p.components().any(|c| c.as_os_str() == "subagents")
        || p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("agent-"))
}

/// Adds the subagent transcripts of every Claude Code session among `inputs` that are not
/// inputs yet: `<dir>/<session>/subagents/**.jsonl`, and legacy `<dir>/agent-*.jsonl` that
/// hold the session's id. Only regular files are opened: a FIFO or a device named like a
/// subagent file is never read.
pub fn add_subagent_files(inputs: &mut Vec<Input>, follow: bool) {
    let mut extra: Vec<PathBuf> = Vec::new();
    for input in inputs.iter() {
        if let Input::Path(p) = input {
            extra.extend(subagents_of(p, follow));
        }
    }
    let mut taken: HashSet<Input> = inputs.iter().cloned().collect();
    for p in extra {
        let i = Input::Path(p);
        if taken.insert(i.clone()) {
            inputs.push(i);
        }
    }
}

/// The subagent transcripts of the session file `session` that are not `session` itself,
/// each once, sorted ([`add_subagent_files`] on that one input).
pub fn sub_sessions(session: &Path, follow: bool) -> Vec<PathBuf> {
    let mut inputs = vec![Input::Path(session.to_path_buf())];
    add_subagent_files(&mut inputs, follow);
    let mut files: Vec<PathBuf> = inputs
        .into_iter()
        .skip(1)
        .filter_map(|i| match i {
            Input::Path(p) => Some(p),
            Input::Stdin | Input::Archived(_) | Input::Member(_) => None,
        })
        .collect();
    files.sort();
    files
}

/// The subagent transcripts of the Claude Code session file `session`, subfolder first. Its
/// folder is listed once per run, however many of its sessions are asked about: a project
/// folder of 100,000 sessions listed again for each of them never finished.
pub fn subagents_of(session: &Path, follow: bool) -> Vec<PathBuf> {
    FOLDERS.subagents_of(session, follow)
}

static FOLDERS: std::sync::LazyLock<Folders> =
    std::sync::LazyLock::new(|| Folders::new(Box::new(list_folder), Box::new(head_session_ids)));

/// One entry of a folder's listing: its name, and whether it is a regular file (not followed
/// through a link).
type Item = (String, bool);

type Lister = Box<dyn Fn(&Path) -> Vec<Item> + Send + Sync>;
type HeadReader = Box<dyn Fn(&Path) -> Vec<String> + Send + Sync>;

/// The project folders met so far, each listed once.
struct Folders {
    seen: Mutex<HashMap<PathBuf, Arc<Folder>>>,
    list: Lister,
    head: HeadReader,
}

/// What a project folder holds of its sessions' subagents: the names in it (a session's side
/// folder is named by its id) and its legacy `agent-*.jsonl` files by the session ids their
/// heads hold.
#[derive(Debug, Default)]
struct Folder {
    names: HashSet<String>,
    legacy: HashMap<String, Vec<PathBuf>>,
}

impl Folders {
    fn new(list: Lister, head: HeadReader) -> Folders {
        Folders {
            seen: Mutex::new(HashMap::new()),
            list,
            head,
        }
    }

    fn subagents_of(&self, session: &Path, follow: bool) -> Vec<PathBuf> {
        if !is_uuid_stem(session) || session.extension().is_none_or(|e| e != "jsonl") {
            return Vec::new();
        }
        let (Some(dir), Some(stem)) = (session.parent(), session.file_stem().and_then(|s| s.to_str())) else {
            return Vec::new();
        };
        let folder = self.folder(dir);
        let mut found = Vec::new();
        let sub = dir.join(stem).join("subagents");
        if folder.names.contains(stem) && sub.is_dir() {
            found.extend(
                crate::io::paths::expand(&[sub], follow)
                    .inputs
                    .into_iter()
                    .filter_map(|i| match i {
                        Input::Path(p) => Some(p),
                        Input::Stdin | Input::Archived(_) | Input::Member(_) => None,
                    }),
            );
        }
        found.extend(folder.legacy.get(stem).into_iter().flatten().cloned());
        found
    }

    fn folder(&self, dir: &Path) -> Arc<Folder> {
        // Held while a folder is listed, so that threads asking about one folder list it once.
        let mut seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(f) = seen.get(dir) {
            return Arc::clone(f);
        }
        let mut folder = Folder::default();
        for (name, is_file) in (self.list)(dir) {
            if is_file && name.starts_with("agent-") && name.ends_with(".jsonl") {
                let path = dir.join(&name);
                for id in (self.head)(&path) {
                    folder.legacy.entry(id).or_default().push(path.clone());
                }
            }
            folder.names.insert(name);
        }
        let folder = Arc::new(folder);
        seen.insert(dir.to_path_buf(), Arc::clone(&folder));
        folder
    }
}

/// The entries of `dir` with UTF-8 names, sorted (a session's name is its id, always UTF-8).
fn list_folder(dir: &Path) -> Vec<Item> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut items: Vec<Item> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            Some((name, e.file_type().is_ok_and(|t| t.is_file())))
        })
        .collect();
    items.sort();
    items
}

/// Every `"sessionId":"…"` value in the first 64 KiB of a file.
fn head_session_ids(path: &Path) -> Vec<String> {
    // Opened as a regular file only: a FIFO named like a subagent file would block.
    let Some(buf) = crate::io::paths::regular_file_head(path, 64 * 1024) else {
        return Vec::new();
    };
    session_ids_in(&buf)
}

fn session_ids_in(buf: &[u8]) -> Vec<String> {
    const KEY: &[u8] = b"\"sessionId\":\"";
    let mut ids: Vec<String> = Vec::new();
    for at in memchr::memmem::find_iter(buf, KEY) {
        let rest = &buf[at + KEY.len()..];
        if let Some(end) = memchr::memchr(b'"', rest)
            && let Ok(id) = std::str::from_utf8(&rest[..end])
            && !ids.iter().any(|i| i == id)
        {
            ids.push(id.to_string());
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subagent_paths() {
        assert!(is_subagent_path("/p/x/5e55/subagents/agent-a1.jsonl"));
        assert!(is_subagent_path("/p/x/agent-a1.jsonl"));
        assert!(!is_subagent_path("/p/x/5e551000-0000-4000-8000-000000000000.jsonl"));
        assert!(is_uuid_stem(Path::new("/p/5e551000-0000-4000-8000-000000000000.jsonl")));
    }

    #[test]
    fn a_folder_is_listed_once_and_each_legacy_file_read_once_however_many_sessions() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static LISTINGS: AtomicUsize = AtomicUsize::new(0);
        static HEADS: AtomicUsize = AtomicUsize::new(0);
        let n = 20_000u32;
        let id = |i: u32| format!("5e551000-0000-4000-8000-{i:012}");
        let folders = Folders::new(
            Box::new(move |_| {
                LISTINGS.fetch_add(1, Ordering::Relaxed);
                let mut items: Vec<Item> = (0..n).map(|i| (format!("{}.jsonl", id(i)), true)).collect();
                items.extend((0..3).map(|k| (format!("agent-{k}.jsonl"), true)));
                items.push(("agent-dir.jsonl".into(), false));
                items
            }),
            Box::new(move |p| {
                HEADS.fetch_add(1, Ordering::Relaxed);
                let name = p.file_stem().unwrap().to_str().unwrap();
                let k: u32 = name.trim_start_matches("agent-").parse().unwrap();
                vec![id(k * 7)]
            }),
        );
        let dir = Path::new("/p/project");
        let mut legacy = 0;
        for i in 0..n {
            let found = folders.subagents_of(&dir.join(format!("{}.jsonl", id(i))), false);
            legacy += found.len();
            if i == 14 {
                assert_eq!(found, [dir.join("agent-2.jsonl")]);
            }
        }
        assert_eq!(legacy, 3);
        assert_eq!(LISTINGS.load(Ordering::Relaxed), 1);
        assert_eq!(HEADS.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn every_session_id_of_a_head_is_found() {
        let head = b"{\"sessionId\":\"a\",\"x\":1}\n{\"sessionId\":\"b\"}\n{\"sessionId\":\"a\"}\n{\"sessionId\":\"cut";
        assert_eq!(session_ids_in(head), ["a", "b"]);
    }
}
