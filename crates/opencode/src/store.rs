//! Where opencode keeps its sessions: one SQLite database, `opencode.db`, in its data folder,
//! `$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`). A release of another
//! channel names its database `opencode-<channel>.db` beside it. Releases before the database
//! kept them as files under `storage/` there ([`crate::legacy`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The opencode databases that exist, from the variables in `env` (`XDG_DATA_HOME`, else
/// `HOME`). A data folder without one is no news: `XDG_DATA_HOME` is every program's, not set
/// for opencode, so its users of other agents are not told about opencode.
pub fn roots(env: &dyn Fn(&str) -> Option<OsString>) -> (Vec<PathBuf>, Vec<String>) {
    let data = env("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".local").join("share")));
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
    // The older per-file storage, after the databases: its sessions the database holds are
    // read from the database (`legacy::members`).
    let storage = dir.join(crate::legacy::FOLDER);
    if crate::legacy::may_be(&storage) {
        found.push(storage);
    }
    (found, Vec::new())
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

/// Whether `path` is of the older per-file storage (the folder, or a session's file in it),
/// rather than a database.
fn is_legacy(path: &Path) -> bool {
    !cctool_core::io::member::is_sqlite(path) && crate::legacy::may_be(path)
}

impl cctool_core::agents::Container for Database {
    fn may_be(&self, path: &Path) -> bool {
        is_database_name(path) || crate::legacy::may_be(path)
    }

    fn members(&self, path: &Path) -> Option<cctool_core::io::member::Members> {
        if is_legacy(path) {
            return crate::legacy::members(path);
        }
        crate::db::members(path)
    }

    fn read(&self, path: &Path, id: &str) -> std::io::Result<Vec<u8>> {
        if is_legacy(path) {
            return crate::legacy::read(path, id);
        }
        Ok(crate::db::export(path, id)?)
    }

    fn snapshot(&self, path: &Path, to: &Path) -> std::io::Result<()> {
        if is_legacy(path) {
            return crate::legacy::snapshot(path, to);
        }
        Ok(crate::db::snapshot(path, to)?)
    }

    fn state(&self, path: &Path) -> std::io::Result<(u64, Option<std::time::SystemTime>)> {
        if is_legacy(path) {
            return crate::legacy::state(path);
        }
        crate::db::state(path)
    }

    fn archive_folder(&self) -> &'static str {
        "opencode"
    }

    fn import_hint(&self) -> &'static str {
        "`opencode import FILE` puts it back into opencode's database"
    }
}

impl cctool_core::slim::database::DatabaseSlimmer for Database {
    fn claims(&self, path: &Path) -> bool {
        crate::db::open(path).is_ok_and(|db| crate::db::is_opencode(&db).is_ok())
    }

    fn space(&self, path: &Path) -> cctool_core::error::Result<cctool_core::slim::database::Space> {
        crate::space::space(path).map_err(cctool_core::error::Error::agent)
    }

    fn reclaim(
        &self,
        path: &Path,
        opts: &cctool_core::slim::database::Reclaim,
    ) -> cctool_core::error::Result<cctool_core::slim::database::Reclaimed> {
        crate::reclaim::reclaim(path, opts).map_err(cctool_core::error::Error::agent)
    }
}
