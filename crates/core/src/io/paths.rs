//! Turning PATH arguments into the list of session files to read, and finding the user's
//! own stores.
//!
//! Files named explicitly are always taken, whatever their name or kind (format detection
//! looks at content; a pipe is read as a stream). Directories are walked recursively for
//! `*.jsonl`, `*.json` and `*.jsonl.zst`, taking regular files only: a FIFO in a tree would
//! block the run, a device never end. Symbolic links inside a tree are not followed by
//! default, as fd and ripgrep do: a link to `/` would read the whole disk, and a rewrite
//! (`migrate DIR`) would reach files outside the folder named. A link out of the tree is
//! reported (`symlink-not-followed`), one back to a folder above it as `symlink-loop`;
//! `--follow` follows them all, each file once, and reports the loops it meets. A folder
//! named directly is always entered, even through a link (`~/.claude/projects` often is one).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::source::Input;
use crate::model::diag::{Code, Diagnostic, Severity};

/// The expanded inputs, in a stable order, plus what could not be used.
#[derive(Debug, Default)]
pub struct Expanded {
    /// The inputs to read: those named, and the session files found under named folders.
    pub inputs: Vec<Input>,
    /// What could not be used (a missing path, a link not followed, a loop), to report.
    pub problems: Vec<Diagnostic>,
    /// The files a `--files-from` list names (and the command line does not): chosen by the
    /// user like a named file, skipped like a found one when they are not sessions.
    pub listed: std::collections::HashSet<Input>,
}

/// `<stem>.<suffix>` beside `p` (`rollout-x.jsonl`, `v5.json` → `rollout-x.v5.json`; a
/// compressed `rollout-x.jsonl.zst` gives the same): where a command writes what it makes from
/// `p` when no `-o` is given.
pub fn beside(p: &Path, suffix: &str) -> PathBuf {
    let plain = match p.extension() {
        Some(e) if e == "zst" => p.with_extension(""),
        _ => p.to_path_buf(),
    };
    let stem = plain
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    p.with_file_name(format!("{stem}.{suffix}"))
}

/// Whether two paths name the same file (by their canonical forms when both exist).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The suffix of a compressed rollout (Codex compresses old rollouts with zstd).
const ZST: &str = ".zst";

/// Whether a file found while walking a directory is a session-file candidate. The name is
/// looked at as bytes: a name that is not UTF-8 is read like any other.
pub fn is_candidate(path: &Path) -> bool {
    let name = path.file_name().map_or(&[][..], |n| n.as_encoded_bytes());
    let name = name
        .strip_suffix(ZST.as_bytes())
        .filter(|n| n.ends_with(b".jsonl"))
        .unwrap_or(name);
    name.ends_with(b".jsonl") || name.ends_with(b".json")
}

/// Expands PATH arguments; `follow`: follow symbolic links inside folders (`--follow`).
pub fn expand(args: &[PathBuf], follow: bool) -> Expanded {
    expand_skipping(args, follow, &[])
}

/// [`expand`], never entering the folders of `outputs` (where the command writes: its
/// output read back at the next run would grow with every run).
pub fn expand_skipping(args: &[PathBuf], follow: bool, outputs: &[PathBuf]) -> Expanded {
    let skip: HashSet<(u64, u64)> = outputs
        .iter()
        .filter_map(|o| std::fs::metadata(o).ok().filter(std::fs::Metadata::is_dir))
        .filter_map(|m| file_id(&m))
        .collect();
    let mut out = Expanded::default();
    let mut seen_files = HashSet::new();
    let mut seen_ids = HashSet::new();
    for arg in args {
        if arg.as_os_str() == "-" {
            out.inputs.push(Input::Stdin);
            continue;
        }
        match std::fs::metadata(arg) {
            // A folder that is itself an agent's container (opencode's per-file storage) is
            // read as its sessions, never walked file by file.
            Ok(m)
                if m.is_dir()
                    && let Some(members) = super::member::members_of(arg) =>
            {
                out.inputs
                    .extend(members.sessions.into_iter().map(|m| Input::Member(Box::new(m))));
                out.problems.extend(members.problems);
            }
            Ok(m) if m.is_dir() => {
                let files: Vec<PathBuf> = walk(arg, follow, &skip, &mut seen_ids, &mut out.problems)
                    .into_iter()
                    .filter(|f| seen_files.insert(f.clone()))
                    .collect();
                // Whether each file is a database is read from its first bytes: an open and a
                // read per file, which a store of thousands of sessions waits for before any
                // is read unless they run on every core.
                use rayon::prelude::*;
                let members: Vec<Option<super::member::Members>> =
                    files.par_iter().map(|f| super::member::members_of(f)).collect();
                for (f, members) in files.into_iter().zip(members) {
                    push_file(&mut out, f, members, false);
                }
            }
            Ok(_) => {
                if seen_files.insert(arg.clone()) {
                    let members = super::member::members_of(arg);
                    push_file(&mut out, arg.clone(), members, true);
                }
            }
            Err(_) if let Some(m) = super::member::parse(arg) => out.inputs.push(Input::Member(Box::new(m))),
            Err(e) => out.problems.push(Diagnostic::new(
                arg.display().to_string(),
                None,
                Code::UnreadablePath,
                Severity::Error,
                format!("cannot read: {e}"),
            )),
        }
    }
    out
}

/// Adds the file `f` to the inputs: the sessions it holds when an agent keeps several in it
/// (a database: [`super::member`]), else the file itself when it was `named` or is a
/// session-file candidate by its name. A file a walk took for its name alone and that no
/// agent claims is no session, and no noise.
fn push_file(out: &mut Expanded, f: PathBuf, members: Option<super::member::Members>, named: bool) {
    match members {
        Some(members) => {
            out.inputs
                .extend(members.sessions.into_iter().map(|m| Input::Member(Box::new(m))));
            out.problems.extend(members.problems);
        }
        None if named || is_candidate(&f) => out.inputs.push(Input::Path(f)),
        None => {}
    }
}

/// The session-file candidates under `root`, sorted by path. `skip`: folders (device and
/// inode) not entered. `seen`: the files already taken, so that with `--follow` a file
/// reached by two paths is read once.
fn walk(
    root: &Path,
    follow: bool,
    skip: &HashSet<(u64, u64)>,
    seen: &mut HashSet<(u64, u64)>,
    problems: &mut Vec<Diagnostic>,
) -> Vec<PathBuf> {
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut found = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(follow)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            // A folder named as input is read, even where the output goes.
            skip.is_empty()
                || e.depth() == 0
                || !e.file_type().is_dir()
                || !e
                    .metadata()
                    .ok()
                    .and_then(|m| file_id(&m))
                    .is_some_and(|id| skip.contains(&id))
        });
    let mut walker = walker;
    while let Some(entry) = walker.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e.path().unwrap_or(root).display().to_string();
                problems.push(match e.loop_ancestor() {
                    Some(up) => loop_note(path, up),
                    None => Diagnostic::new(
                        path,
                        None,
                        Code::UnreadablePath,
                        Severity::Error,
                        format!(
                            "cannot read: {}",
                            e.io_error().map_or_else(|| e.to_string(), ToString::to_string)
                        ),
                    ),
                });
                continue;
            }
        };
        let path = entry.path();
        if entry.path_is_symlink() && !follow {
            if let Some(d) = link_note(path, &real_root) {
                problems.push(d);
            }
            continue;
        }
        // A folder that is an agent's container is taken whole, as a database file is, and
        // its files are not met one by one.
        if entry.file_type().is_dir() && entry.depth() > 0 && super::member::may_be_container(path) {
            walker.skip_current_dir();
            found.push(path.to_path_buf());
            continue;
        }
        if !entry.file_type().is_file() || !(is_candidate(path) || super::member::may_be_container(path)) {
            continue;
        }
        // A file an agent's store keeps beside its sessions is no session, and no noise.
        if crate::agents::registry::installed()
            .stores()
            .any(|s| s.holds_no_session(path))
        {
            continue;
        }
        if follow
            && let Ok(m) = entry.metadata()
            && let Some(id) = file_id(&m)
            && !seen.insert(id)
        {
            continue;
        }
        found.push(path.to_path_buf());
    }
    drop_compressed_twins(&mut found);
    found.sort();
    found
}

/// Drops each compressed file whose plain file is among `found`. A rollout being compressed
/// exists twice for a moment, `X.jsonl` and `X.jsonl.zst`: the plain file is whole, the
/// compressed one may not be yet.
pub fn drop_compressed_twins(found: &mut Vec<PathBuf>) {
    let plain: HashSet<PathBuf> = found.iter().filter(|p| !is_compressed_name(p)).cloned().collect();
    found.retain(|p| !is_compressed_name(p) || !plain.contains(&p.with_extension("")));
}

fn is_compressed_name(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "zst")
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

fn loop_note(path: String, up: &Path) -> Diagnostic {
    Diagnostic::new(
        path,
        None,
        Code::SymlinkLoop,
        Severity::Info,
        format!(
            "a symbolic link back to {}, a folder above it (a loop); not followed",
            up.display()
        ),
    )
}

/// What is said of a link met in a walk that does not follow links: nothing for one whose
/// target is read through the tree anyway or cannot matter, a loop for one back to a folder
/// above it, and a note for one out of the tree to a folder or a session-file candidate.
fn link_note(link: &Path, real_root: &Path) -> Option<Diagnostic> {
    // A dangling link, or one to something unreadable: nothing to read either way.
    let target = std::fs::canonicalize(link).ok()?;
    let meta = std::fs::metadata(&target).ok()?;
    let name = link.display().to_string();
    if meta.is_dir()
        && let Some(parent) = link.parent().and_then(|p| std::fs::canonicalize(p).ok())
        && parent.starts_with(&target)
    {
        return Some(loop_note(name, &target));
    }
    if target.starts_with(real_root) || !(meta.is_dir() || meta.is_file() && is_candidate(link)) {
        return None;
    }
    Some(Diagnostic::new(
        name,
        None,
        Code::SymlinkNotFollowed,
        Severity::Info,
        format!(
            "a symbolic link out of the folder, to {}: not followed (--follow reads it)",
            target.display()
        ),
    ))
}

/// Where the user's own session stores are, which of them exist, and what to say of the
/// others.
#[derive(Debug, Default)]
pub struct Stores {
    /// The stores that exist, each once.
    pub found: Vec<PathBuf>,
    /// One line for each store the user asked for by name (an environment variable) that
    /// does not exist. The default places of an agent the user does not have go unmentioned.
    pub notes: Vec<String>,
    /// Every place looked at, for the message when none exists.
    pub looked: Vec<PathBuf>,
    /// The agent of each store an agent found itself ([`crate::agents::Agent::session_roots`]):
    /// such a folder's name need not say whose it is (pi's `sessions/` is named as Codex's is).
    pub owners: Vec<(PathBuf, crate::model::AgentId)>,
}

impl Stores {
    /// The places looked at, joined by `, `: for the message when no store exists.
    pub fn looked_in(&self) -> String {
        self.looked
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The agent, and its store, whose session folder `dir` (one of [`Stores::found`] or
    /// [`Stores::looked`]) is: the agent that found it, else the one whose session folders
    /// are named so ([`crate::agents::registry::Registry::store_of_folder`]).
    pub fn agent_of(
        &self,
        dir: &Path,
    ) -> Option<(&'static dyn crate::agents::Agent, &'static dyn crate::agents::Store)> {
        let registry = crate::agents::registry::installed();
        match self.owners.iter().find(|(d, _)| d == dir) {
            Some((_, id)) => {
                let agent = registry.find(*id)?;
                Some((agent, agent.store()?))
            }
            None => registry.store_of_folder(dir),
        }
    }
}

/// The stores cctool reads, from the environment: see [`stores_from`]. Every command that
/// reads or writes the user's own stores asks this one list: the reading commands with no
/// PATH, session ids, `backup` and `restore`, `compact`'s check of a file in a store.
pub fn default_stores() -> Stores {
    stores_from(&|var| std::env::var_os(var).filter(|v| !v.is_empty()))
}

/// The stores, with `env` giving the variables that are set and not empty:
///
/// - Claude Code: `projects/` of each folder in `CLAUDE_CONFIG_DIR` — one folder as Claude Code
///   reads it, or several separated by commas (as ccusage reads it; a value that names an
///   existing folder is taken whole, commas and all) — else of `~/.claude` and of
///   `$XDG_CONFIG_HOME/claude` (default `~/.config/claude`, where some releases kept it).
/// - Codex: `sessions/` and `archived_sessions/` of `CODEX_HOME`, else of `~/.codex`.
///
/// The other agents find their own stores (`Agent::session_roots`).
///
/// - every registered agent's own ([`crate::agents::Agent::session_roots`]: pi's), with the
///   agent that found it ([`Stores::owners`]).
///
/// A store named by a variable that is missing gets a note; a default place that is missing
/// is quietly skipped, so a user of one agent is not told about the other.
pub fn stores_from(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Stores {
    let home = env("HOME").map(PathBuf::from);
    let mut st = Stores::default();
    let mut ids = HashSet::new();
    let mut take = |st: &mut Stores, dir: PathBuf| -> bool {
        st.looked.push(dir.clone());
        // A store is a folder, or a database that holds an agent's sessions (opencode's).
        if !(dir.is_dir() || dir.is_file() && super::member::is_sqlite(&dir)) {
            return false;
        }
        let id = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if ids.insert(id) {
            st.found.push(dir);
        }
        true
    };
    match env("CLAUDE_CONFIG_DIR") {
        Some(value) => {
            let whole = PathBuf::from(&value);
            let dirs: Vec<PathBuf> = match value.to_str() {
                Some(list) if !whole.is_dir() => list
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(PathBuf::from)
                    .collect(),
                _ => vec![whole],
            };
            for d in dirs {
                let projects = d.join("projects");
                if !take(&mut st, projects.clone()) {
                    st.notes.push(format!(
                        "no Claude Code store at {} (from CLAUDE_CONFIG_DIR)",
                        projects.display()
                    ));
                }
            }
        }
        None => {
            let xdg = env("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".config")));
            for d in [home.as_ref().map(|h| h.join(".claude")), xdg.map(|x| x.join("claude"))]
                .into_iter()
                .flatten()
            {
                take(&mut st, d.join("projects"));
            }
        }
    }
    let (codex, asked) = match env("CODEX_HOME") {
        Some(v) => (Some(PathBuf::from(v)), true),
        None => (home.as_ref().map(|h| h.join(".codex")), false),
    };
    if let Some(c) = codex {
        let any = [
            take(&mut st, c.join("sessions")),
            take(&mut st, c.join("archived_sessions")),
        ];
        if asked && !any.contains(&true) {
            st.notes.push(format!(
                "no Codex store at {} (no sessions/ or archived_sessions/; from CODEX_HOME)",
                c.display()
            ));
        }
    }
    for agent in crate::agents::registry::installed().all() {
        let (found, notes) = agent.session_roots(env);
        for dir in found {
            let before = st.found.len();
            take(&mut st, dir.clone());
            // A folder another store already is stays that store's.
            if st.found.len() > before {
                st.owners.push((dir, agent.about().format));
            }
        }
        st.notes.extend(notes);
    }
    st
}

/// The first `n` bytes of `path` when it is a regular file (after links), opened without
/// blocking: a FIFO is never waited on.
pub fn regular_file_head(path: &Path, n: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = super::source::open_regular(path)?;
    let mut buf = Vec::new();
    file.take(n).read_to_end(&mut buf).ok()?;
    Some(buf)
}

/// The paths listed in `list` (`-`: standard input) for `--files-from`: one per line (a
/// `\r` before the `\n` is dropped, as lists written on Windows have one), or one per NUL
/// with `nul`. Empty entries are skipped. An entry `-` names a file called `-`, never
/// standard input (which may be the list itself).
pub fn read_list(list: &Path, nul: bool) -> std::io::Result<Vec<PathBuf>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    if list.as_os_str() == "-" {
        std::io::stdin().lock().read_to_end(&mut bytes)?;
    } else {
        std::fs::File::open(list)?.read_to_end(&mut bytes)?;
    }
    let sep = if nul { b'\0' } else { b'\n' };
    Ok(bytes
        .split(|&b| b == sep)
        .map(|e| if nul { e } else { e.strip_suffix(b"\r").unwrap_or(e) })
        .filter(|e| !e.is_empty())
        .map(|e| match e {
            b"-" => PathBuf::from("./-"),
            e => path_of_bytes(e),
        })
        .collect())
}

#[cfg(unix)]
fn path_of_bytes(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

#[cfg(not(unix))]
fn path_of_bytes(b: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(b).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_directories_sorted_and_survives_symlink_loops() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("p/sub")).unwrap();
        std::fs::write(root.join("p/b.jsonl"), "{}").unwrap();
        std::fs::write(root.join("p/sub/a.jsonl"), "{}").unwrap();
        std::fs::write(root.join("p/s.json"), "{}").unwrap();
        std::fs::write(root.join("p/notes.txt"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("p"), root.join("p/sub/loop")).unwrap();
        let e = expand(&[root.join("p"), PathBuf::from("-"), root.join("missing")], false);
        let names: Vec<String> = e
            .inputs
            .iter()
            .map(|i| match i {
                Input::Path(p) => p.strip_prefix(root).unwrap().display().to_string(),
                other => other.display_name(),
            })
            .collect();
        assert_eq!(names, ["p/b.jsonl", "p/s.json", "p/sub/a.jsonl", "<stdin>"]);
        assert!(
            e.problems
                .iter()
                .any(|d| d.code == Code::UnreadablePath && d.file.ends_with("missing"))
        );
        #[cfg(unix)]
        assert!(e.problems.iter().any(|d| d.code == Code::SymlinkLoop));
    }

    #[test]
    fn stores_follow_the_environment_and_mention_only_what_was_asked_for() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        for d in [
            ".claude/projects",
            ".config/claude/projects",
            "alt/projects",
            "x,y/projects",
            ".codex/archived_sessions",
        ] {
            std::fs::create_dir_all(h.join(d)).unwrap();
        }
        let env = |pairs: Vec<(&'static str, std::path::PathBuf)>| {
            move |var: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == var)
                    .map(|(_, v)| v.clone().into_os_string())
            }
        };
        // Defaults: both Claude Code places and the Codex archive; nothing said of the
        // missing sessions/ folder.
        let st = stores_from(&env(vec![("HOME", h.to_path_buf())]));
        assert_eq!(
            st.found,
            [
                h.join(".claude/projects"),
                h.join(".config/claude/projects"),
                h.join(".codex/archived_sessions")
            ]
        );
        assert!(st.notes.is_empty(), "{:?}", st.notes);
        // A list, one entry missing and named; a folder whose name holds a comma taken whole.
        let list = format!("{}, {}", h.join("alt").display(), h.join("gone").display());
        let st = stores_from(&env(vec![
            ("HOME", h.to_path_buf()),
            ("CLAUDE_CONFIG_DIR", list.into()),
        ]));
        assert_eq!(st.found, [h.join("alt/projects"), h.join(".codex/archived_sessions")]);
        assert_eq!(st.notes.len(), 1);
        assert!(st.notes[0].contains("gone"), "{:?}", st.notes);
        let st = stores_from(&env(vec![
            ("HOME", h.to_path_buf()),
            ("CLAUDE_CONFIG_DIR", h.join("x,y")),
        ]));
        assert_eq!(st.found[0], h.join("x,y/projects"));
        // A Codex home asked for and absent is named; the same store twice is read once.
        let st = stores_from(&env(vec![
            ("HOME", h.to_path_buf()),
            ("CODEX_HOME", h.join("nope")),
            ("XDG_CONFIG_HOME", h.join(".config")),
        ]));
        assert!(st.notes.iter().any(|n| n.contains("no Codex store")), "{:?}", st.notes);
        assert_eq!(
            st.found,
            [h.join(".claude/projects"), h.join(".config/claude/projects")]
        );
        #[cfg(unix)]
        {
            std::fs::remove_dir_all(h.join(".config/claude")).unwrap();
            std::os::unix::fs::symlink(h.join(".claude"), h.join(".config/claude")).unwrap();
            let st = stores_from(&env(vec![("HOME", h.to_path_buf())]));
            assert_eq!(
                st.found,
                [h.join(".claude/projects"), h.join(".codex/archived_sessions")]
            );
        }
    }

    #[test]
    fn compressed_rollouts_are_candidates_unless_their_plain_file_is_beside_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in ["a.jsonl", "a.jsonl.zst", "b.jsonl.zst", "c.json.zst", "d.zst"] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        let e = expand(&[d.to_path_buf()], false);
        let names: Vec<String> = e
            .inputs
            .iter()
            .map(|i| match i {
                Input::Path(p) => p.file_name().unwrap().to_string_lossy().into_owned(),
                other => other.display_name(),
            })
            .collect();
        assert_eq!(names, ["a.jsonl", "b.jsonl.zst"]);
        assert_eq!(beside(&d.join("b.jsonl.zst"), "v5.json"), d.join("b.v5.json"));
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_walked() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.jsonl");
        if std::fs::write(dir.path().join(name), "{}").is_err() {
            return; // a file system that takes only UTF-8 names
        }
        let e = expand(&[dir.path().to_path_buf()], false);
        assert_eq!(e.inputs, vec![Input::Path(dir.path().join(name))]);
    }

    #[test]
    fn explicit_files_are_taken_whatever_their_name() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("session.log");
        std::fs::write(&f, "{}").unwrap();
        let e = expand(std::slice::from_ref(&f), false);
        assert_eq!(e.inputs, vec![Input::Path(f)]);
    }
}
