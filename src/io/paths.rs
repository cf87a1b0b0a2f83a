//! Turning PATH arguments into the list of session files to read.
//!
//! Files named explicitly are always taken, whatever their name (format detection looks at
//! content). Directories are walked recursively for `*.jsonl` and `*.json`; symlinks are
//! followed, with loop protection, because `~/.claude/projects` is often a symlink itself.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::source::Input;
use crate::model::diag::{Code, Diagnostic, Severity};

/// The expanded inputs, in a stable order, plus what could not be used.
#[derive(Debug, Default)]
pub struct Expanded {
    pub inputs: Vec<Input>,
    pub problems: Vec<Diagnostic>,
}

/// `<stem>.<suffix>` beside `p` (`rollout-x.jsonl`, `v5.json` → `rollout-x.v5.json`): where a
/// command writes what it makes from `p` when no `-o` is given.
pub fn beside(p: &Path, suffix: &str) -> PathBuf {
    let stem = p
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

/// Whether a file found while walking a directory is a session-file candidate.
pub fn is_candidate(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".jsonl") || name.ends_with(".json")
}

pub fn expand(args: &[PathBuf]) -> Expanded {
    let mut out = Expanded::default();
    let mut seen_files = HashSet::new();
    for arg in args {
        if arg.as_os_str() == "-" {
            out.inputs.push(Input::Stdin);
            continue;
        }
        match std::fs::metadata(arg) {
            Ok(m) if m.is_dir() => {
                let mut found = Vec::new();
                let mut visited = HashSet::new();
                walk(arg, &mut found, &mut visited, &mut out.problems);
                found.sort();
                for f in found {
                    if seen_files.insert(f.clone()) {
                        out.inputs.push(Input::Path(f));
                    }
                }
            }
            Ok(_) => {
                if seen_files.insert(arg.clone()) {
                    out.inputs.push(Input::Path(arg.clone()));
                }
            }
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

/// The user's own session stores: `$CLAUDE_CONFIG_DIR/projects` (default
/// `~/.claude/projects`), `$CODEX_HOME/sessions` and `$CODEX_HOME/archived_sessions` (default
/// `~/.codex`). Returns those that exist, and a note for each that does not.
pub fn default_stores() -> (Vec<PathBuf>, Vec<String>) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let env_dir = |var: &str, fallback: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(fallback)))
    };
    let mut candidates = Vec::new();
    if let Some(c) = env_dir("CLAUDE_CONFIG_DIR", ".claude") {
        candidates.push(("Claude Code", c.join("projects")));
    }
    if let Some(c) = env_dir("CODEX_HOME", ".codex") {
        candidates.push(("Codex", c.join("sessions")));
        candidates.push(("Codex", c.join("archived_sessions")));
    }
    let mut found = Vec::new();
    let mut notes = Vec::new();
    for (agent, dir) in candidates {
        if dir.is_dir() {
            found.push(dir);
        } else {
            notes.push(format!("no {agent} store at {}", dir.display()));
        }
    }
    (found, notes)
}

#[cfg(unix)]
fn dir_key(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
fn dir_key(_m: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>, visited: &mut HashSet<(u64, u64)>, problems: &mut Vec<Diagnostic>) {
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) => {
            problems.push(Diagnostic::new(
                dir.display().to_string(),
                None,
                Code::UnreadablePath,
                Severity::Warning,
                format!("cannot read directory: {e}"),
            ));
            return;
        }
    };
    if cfg!(unix) && !visited.insert(dir_key(&meta)) {
        problems.push(Diagnostic::new(
            dir.display().to_string(),
            None,
            Code::SymlinkLoop,
            Severity::Info,
            "directory already visited (symlink loop); skipped".to_string(),
        ));
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            problems.push(Diagnostic::new(
                dir.display().to_string(),
                None,
                Code::UnreadablePath,
                Severity::Warning,
                format!("cannot list directory: {e}"),
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // Follow symlinks: metadata() resolves them; a dangling link is skipped quietly.
        let Ok(m) = std::fs::metadata(&path) else {
            continue;
        };
        if m.is_dir() {
            walk(&path, found, visited, problems);
        } else if m.is_file() && is_candidate(&path) {
            found.push(path);
        }
    }
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
        let e = expand(&[root.join("p"), PathBuf::from("-"), root.join("missing")]);
        let names: Vec<String> = e
            .inputs
            .iter()
            .map(|i| match i {
                Input::Path(p) => p.strip_prefix(root).unwrap().display().to_string(),
                Input::Stdin => "-".into(),
            })
            .collect();
        assert_eq!(names, ["p/b.jsonl", "p/s.json", "p/sub/a.jsonl", "-"]);
        assert!(
            e.problems
                .iter()
                .any(|d| d.code == "unreadable-path" && d.file.ends_with("missing"))
        );
        #[cfg(unix)]
        assert!(e.problems.iter().any(|d| d.code == "symlink-loop"));
    }

    #[test]
    fn explicit_files_are_taken_whatever_their_name() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("session.log");
        std::fs::write(&f, "{}").unwrap();
        let e = expand(std::slice::from_ref(&f));
        assert_eq!(e.inputs, vec![Input::Path(f)]);
    }
}
