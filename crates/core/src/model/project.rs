//! The project a session belongs to, as every command names it: the folder the session ran in
//! (its `cwd`, else the folder of its file), or for a git worktree the main repository's folder,
//! so that a repository's worktrees are one project; shown by the shortest suffix of that
//! folder's path that no other project shown shares (`work/cli`, `other/cli`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::Instant;

/// The project folder of a session that ran in `cwd` (or, without one, whose file is `path`).
/// A stream (stdin, a pipe, a FIFO under /dev/fd) has no folder to name the project after.
pub fn folder(cwd: Option<&str>, path: &str) -> Option<String> {
    let cwd = cwd.map(|c| c.trim_end_matches(['/', '\\'])).filter(|c| !c.is_empty());
    if let Some(c) = cwd {
        return Some(main_worktree(Path::new(c)).map_or_else(|| c.to_string(), |p| p.to_string_lossy().into_owned()));
    }
    let stream = path == "-" || path.starts_with("/dev/") || path.starts_with("/proc/");
    Path::new(path)
        .parent()
        .filter(|p| !stream && p.file_name().is_some())
        .map(|p| p.to_string_lossy().into_owned())
}

/// The project's name on its own: the last component of its folder (the `project` field of
/// scan's records and of the rows tables, which are written a session at a time).
pub fn name(cwd: Option<&str>, path: &str) -> Option<String> {
    folder(cwd, path).and_then(|f| {
        f.rsplit(['/', '\\'])
            .next()
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    })
}

/// The names of the projects of sessions shown together: the shortest path suffix that
/// tells each folder from the others.
pub fn names<'a>(folders: impl IntoIterator<Item = Option<&'a str>>) -> Vec<Option<String>> {
    let folders: Vec<Option<&str>> = folders.into_iter().collect();
    let known: Vec<&str> = folders.iter().flatten().copied().collect();
    let mut short = crate::output::names::unique_suffixes(&known).into_iter();
    folders.iter().map(|f| f.and_then(|_| short.next())).collect()
}

/// How long a folder's [`main_worktree`] is remembered: a run asks once per session, most
/// sessions share a few folders, and each answer is a look for `.git` in every folder up to
/// the root; a server (`cctool mcp`) that keeps asking sees a repository removed since.
const REMEMBERED: std::time::Duration = std::time::Duration::from_secs(10);

/// [`find_main_worktree`] of `dir`, remembered for [`REMEMBERED`].
fn main_worktree(dir: &Path) -> Option<PathBuf> {
    type Seen = HashMap<PathBuf, (Instant, Option<PathBuf>)>;
    static SEEN: LazyLock<Mutex<Seen>> = LazyLock::new(Mutex::default);
    let now = Instant::now();
    if let Ok(seen) = SEEN.lock()
        && let Some((at, found)) = seen.get(dir)
        && now.duration_since(*at) < REMEMBERED
    {
        return found.clone();
    }
    let found = find_main_worktree(dir);
    if let Ok(mut seen) = SEEN.lock() {
        seen.insert(dir.to_path_buf(), (now, found.clone()));
    }
    found
}

/// For a folder inside a linked git worktree whose main repository still exists: that
/// repository's folder. The worktree's `.git` is a file, `gitdir: <main>/.git/worktrees/<name>`,
/// and that folder's `commondir` names the main `.git`.
fn find_main_worktree(dir: &Path) -> Option<PathBuf> {
    let top = dir.ancestors().find(|d| d.join(".git").exists())?;
    let dot_git = top.join(".git");
    if dot_git.is_dir() {
        return None;
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let gitdir = top.join(text.lines().next()?.strip_prefix("gitdir:")?.trim());
    let common = match std::fs::read_to_string(gitdir.join("commondir")) {
        Ok(c) => gitdir.join(c.trim()),
        Err(_) => gitdir.parent()?.parent()?.to_path_buf(),
    };
    let common = common.canonicalize().ok()?;
    // A bare repository is its own folder; otherwise the folder that holds `.git`.
    let repo = if common.file_name().is_some_and(|n| n == ".git") {
        common.parent()?.to_path_buf()
    } else {
        common
    };
    repo.is_dir().then_some(repo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_or_the_files_folder() {
        assert_eq!(name(Some("/nowhere/src/app/"), "/x/y.jsonl"), Some("app".into()));
        assert_eq!(name(None, "/p/-home-me-app/s.jsonl"), Some("-home-me-app".into()));
        assert_eq!(name(None, "-"), None);
        assert_eq!(name(None, "/dev/fd/63"), None);
    }

    #[test]
    fn a_worktree_is_its_main_repository_while_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("cli");
        std::fs::create_dir_all(main.join(".git/worktrees/1")).unwrap();
        std::fs::write(main.join(".git/worktrees/1/commondir"), "../..\n").unwrap();
        let wt = dir.path().join("wt/1");
        std::fs::create_dir_all(wt.join("src")).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/1").display()),
        )
        .unwrap();
        let main_path = main.canonicalize().unwrap().to_string_lossy().into_owned();
        assert_eq!(folder(wt.to_str(), "x"), Some(main_path.clone()));
        // From a folder inside it too, and with a relative gitdir.
        std::fs::write(wt.join(".git"), "gitdir: ../../cli/.git/worktrees/1\n").unwrap();
        assert_eq!(folder(wt.join("src").to_str(), "x"), Some(main_path));
        // The main repository itself, and a worktree whose repository is gone: the path rule.
        assert_eq!(folder(main.to_str(), "x"), main.to_str().map(str::to_string));
        // (Asked of a folder not asked before: a folder's answer is remembered for a while.)
        std::fs::remove_dir_all(&main).unwrap();
        std::fs::create_dir_all(wt.join("docs")).unwrap();
        assert_eq!(name(wt.join("docs").to_str(), "x"), Some("docs".into()));
        assert_eq!(find_main_worktree(&wt), None);
    }

    #[test]
    fn names_tell_the_folders_apart() {
        let got = names([Some("/a/work/cli"), None, Some("/a/other/cli"), Some("/a/app")]);
        assert_eq!(
            got,
            [
                Some("work/cli".into()),
                None,
                Some("other/cli".into()),
                Some("app".into())
            ]
        );
    }
}
