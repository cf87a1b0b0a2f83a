//! Where opencode keeps its sessions: one SQLite database, `opencode.db`, in its data folder,
//! `$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`). A release of another
//! channel names its database `opencode-<channel>.db` beside it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The opencode databases that exist, from the variables in `env` (`XDG_DATA_HOME`, else
/// `HOME`), and a note when `XDG_DATA_HOME` names a data folder with none.
pub fn roots(env: &dyn Fn(&str) -> Option<OsString>) -> (Vec<PathBuf>, Vec<String>) {
    let (data, asked) = match env("XDG_DATA_HOME") {
        Some(v) => (Some(PathBuf::from(v)), true),
        None => (
            env("HOME").map(|h| PathBuf::from(h).join(".local").join("share")),
            false,
        ),
    };
    let Some(dir) = data.map(|d| d.join("opencode")) else {
        return (Vec::new(), Vec::new());
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_database_name(p) && p.is_file())
        .collect();
    found.sort();
    let notes = if found.is_empty() && asked {
        vec![format!(
            "no opencode database in {} (from XDG_DATA_HOME)",
            dir.display()
        )]
    } else {
        Vec::new()
    };
    (found, notes)
}

/// Whether a file is named as opencode names its database (`opencode.db`,
/// `opencode-<channel>.db`); its content decides whether it is one.
pub fn is_database_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("opencode") && n.ends_with(".db"))
}

/// opencode's database as a container of sessions.
pub struct Database;

impl cctool_core::agents::Container for Database {
    fn may_be(&self, path: &Path) -> bool {
        is_database_name(path)
    }

    fn members(&self, path: &Path) -> Option<cctool_core::io::member::Members> {
        crate::db::members(path)
    }

    fn read(&self, path: &Path, id: &str) -> std::io::Result<Vec<u8>> {
        Ok(crate::db::export(path, id)?)
    }
}
