//! How Gemini CLI's chats follow a project folder that moved (`docs/stores.md`, "Sessions
//! follow the project"): no record of a chat says its folder. `~/.gemini/projects.json` maps
//! each folder to the name of its project folder under `~/.gemini/tmp/`, which holds its chats
//! and a `.project_root` saying the folder again; the client lists and resumes the chats of the
//! project `projects.json` names for the folder it runs in (the headers' `projectHash` is not
//! checked). So the chats stay where they are, and those two files are changed.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;

use cctool_core::error::{Error, Result};
use cctool_core::relocate::{DatabaseMoves, DatabaseRun, PathMap, Relocator, RowMove};

/// Gemini CLI's answers to `relocate`.
pub struct GeminiRelocator;

/// Why the projects could not be relocated; nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum RelocateError {
    /// `projects.json` is not the object the client writes.
    #[error("{}: not the projects.json Gemini CLI writes ({why}): no project was relocated", .path.display())]
    Projects {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A file could not be written.
    #[error("{}: {cause}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
}

impl Relocator for GeminiRelocator {
    fn cwd_spans(&self, _line: &[u8], _out: &mut Vec<Range<usize>>) {}

    fn placed(&self, _session: &Path, _old_cwd: &str, _new_cwd: &str) -> Option<PathBuf> {
        None
    }

    fn relocate_store(&self, root: &Path, map: &PathMap, run: DatabaseRun) -> Result<DatabaseMoves> {
        relocate(root, map, run).map_err(Error::agent)
    }
}

fn relocate(tmp: &Path, map: &PathMap, run: DatabaseRun) -> std::result::Result<DatabaseMoves, RelocateError> {
    let mut out = DatabaseMoves::default();
    let Some(gemini) = tmp.parent() else { return Ok(out) };
    let path = gemini.join("projects.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(out);
    };
    let bad = |why: String| RelocateError::Projects {
        path: path.clone(),
        why,
    };
    let mut doc: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let Some(projects) = doc.get_mut("projects").and_then(Value::as_object_mut) else {
        return Err(bad("no \"projects\" object".into()));
    };
    let moves: Vec<(String, String, String)> = projects
        .iter()
        .filter_map(|(folder, name)| Some((folder.clone(), map.map(folder)?, name.as_str()?.to_string())))
        .collect();
    // NEW may be a project already (the client was run there): the chats go into its folder.
    let into: Vec<Option<String>> = moves
        .iter()
        .map(|(_, new, name)| {
            projects
                .get(new)
                .and_then(Value::as_str)
                .filter(|n| n != name)
                .map(str::to_string)
        })
        .collect();
    for ((old, new, name), into) in moves.iter().zip(&into) {
        let chats = chats_of(&tmp.join(name).join("chats"));
        out.sessions.push(RowMove {
            name: match into {
                Some(n) => format!("{} -> {}", tmp.join(name).display(), tmp.join(n).display()),
                None => tmp.join(name).display().to_string(),
            },
            old_cwd: old.clone(),
            new_cwd: new.clone(),
            fields: 1 + chats.len() as u64,
        });
    }
    if run.dry_run || moves.is_empty() {
        return Ok(out);
    }
    // Each project's own record of its folder first: once projects.json names NEW, a second
    // run no longer finds the project to finish it.
    for ((_, _, name), into) in moves.iter().zip(&into) {
        if let Some(into) = into {
            move_chats(&tmp.join(name).join("chats"), &tmp.join(into).join("chats"))?;
            continue;
        }
        let root = tmp.join(name).join(".project_root");
        if let Ok(was) = std::fs::read_to_string(&root)
            && let Some(now) = map.map(was.trim_end_matches('\n'))
        {
            write(&root, now.as_bytes())?;
        }
    }
    for ((old, new, _), into) in moves.iter().zip(&into) {
        if let Some(name) = projects.remove(old)
            && into.is_none()
        {
            projects.insert(new.clone(), name);
        }
    }
    let mut bytes = serde_json::to_vec_pretty(&doc).map_err(|e| bad(e.to_string()))?;
    if text.ends_with('\n') {
        bytes.push(b'\n');
    }
    out.backup = Some(write(&path, &bytes)?);
    Ok(out)
}

/// The chats of the folder `chats`.
fn chats_of(chats: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(chats)
        .map(|d| {
            d.flatten()
                .filter(|e| crate::store::is_chat_name(&e.file_name().to_string_lossy()))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Every chat of `from` renamed into `to`; one whose name is taken there is refused (its short
/// id is another chat's: the client would delete one of them).
fn move_chats(from: &Path, to: &Path) -> std::result::Result<(), RelocateError> {
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |cause| RelocateError::Write { path, cause }
    };
    std::fs::create_dir_all(to).map_err(failed(to))?;
    for chat in chats_of(from) {
        let dest = to.join(chat.file_name().unwrap_or_default());
        cctool_core::io::atomic::rename_synced(&chat, &dest).map_err(failed(&dest))?;
    }
    Ok(())
}

/// `path` replaced by `bytes`, its old content kept as `FILE.relocate.bak`.
fn write(path: &Path, bytes: &[u8]) -> std::result::Result<PathBuf, RelocateError> {
    cctool_core::io::atomic::replace_with_backup(path, bytes, "relocate").map_err(|cause| RelocateError::Write {
        path: path.to_path_buf(),
        cause,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_projects_of_old_name_new_and_a_second_run_changes_nothing() {
        let home = tempfile::tempdir().unwrap();
        let gemini = home.path().join(".gemini");
        let tmp = gemini.join("tmp");
        std::fs::create_dir_all(tmp.join("app/chats")).unwrap();
        std::fs::write(tmp.join("app/chats/session-2026-01-01T10-00-16bbb8a9.jsonl"), "{}\n").unwrap();
        std::fs::write(tmp.join("app/.project_root"), "/home/me/app").unwrap();
        std::fs::write(
            gemini.join("projects.json"),
            "{\n  \"projects\": {\n    \"/home/me/app\": \"app\",\n    \"/home/me/other\": \"other\"\n  }\n}",
        )
        .unwrap();
        let map = PathMap::new("/home/me/app", "/work/app");
        let run = DatabaseRun::default();
        let moved = relocate(&tmp, &map, run).unwrap();
        assert_eq!(moved.sessions.len(), 1);
        assert_eq!(moved.sessions[0].fields, 2);
        let projects = std::fs::read_to_string(gemini.join("projects.json")).unwrap();
        assert_eq!(
            projects,
            "{\n  \"projects\": {\n    \"/home/me/other\": \"other\",\n    \"/work/app\": \"app\"\n  }\n}"
        );
        assert_eq!(
            std::fs::read_to_string(tmp.join("app/.project_root")).unwrap(),
            "/work/app"
        );
        assert!(relocate(&tmp, &map, run).unwrap().sessions.is_empty());
        // NEW already a project: the chats go into its folder, OLD's entry goes.
        std::fs::create_dir_all(tmp.join("other/chats")).unwrap();
        std::fs::write(tmp.join("other/chats/session-2026-01-02T10-00-aaaaaaaa.jsonl"), "{}\n").unwrap();
        let into = PathMap::new("/home/me/other", "/work/app");
        assert_eq!(relocate(&tmp, &into, run).unwrap().sessions.len(), 1);
        assert!(tmp.join("app/chats/session-2026-01-02T10-00-aaaaaaaa.jsonl").is_file());
        let projects = std::fs::read_to_string(gemini.join("projects.json")).unwrap();
        assert_eq!(projects, "{\n  \"projects\": {\n    \"/work/app\": \"app\"\n  }\n}");
        assert!(relocate(&tmp, &into, run).unwrap().sessions.is_empty());
    }
}
