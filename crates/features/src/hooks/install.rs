//! Reading and writing an agent's settings file for `hooks install` and `uninstall`: what
//! goes in it is the agent's ([`crate::agents::Hooks`]), in its own syntax.

use std::path::{Path, PathBuf};

pub use crate::model::hooks::{Edit, Scope, SettingsError};

/// Why `hooks install` or `uninstall` left the settings file as it was.
#[derive(Debug, thiserror::Error)]
pub enum HooksError {
    /// `--scope user` needs the home folder, and HOME does not say where it is.
    #[error("HOME is unset: cannot find the user's settings; use --scope project")]
    NoHome,
    /// The agent's hooks are installed in the user's settings only.
    #[error("{0}: cctool installs its hooks in the user's settings only (--scope user)")]
    UserScopeOnly(String),
    /// The agent named has no hooks cctool knows how to install.
    #[error("{0}: cctool has no hooks for this agent")]
    NoHooks(String),
    /// The hook command runs this binary, and where it is could not be told.
    #[error("cannot tell where this cctool binary is: {0}")]
    NoExe(std::io::Error),
    /// The `--command` program given is not a file named cctool…: install and uninstall find
    /// their hook by that name.
    #[error(
        "--command {0:?}: the program must be a file named cctool… (that is how install and uninstall find the hook again)"
    )]
    Program(String),
    /// The settings file is a symbolic link to nothing: cctool writes a link's target, never
    /// the link, and there is none.
    #[error(
        "{}: a symbolic link to {}, which does not exist (dotfiles not mounted?); not edited, the link is left as it is",
        .path.display(),
        .target.display()
    )]
    Dangling {
        /// The settings file.
        path: PathBuf,
        /// Where its link points.
        target: PathBuf,
    },
    /// The settings file cannot be written by this user.
    #[error("{}: read-only; not edited (make it writable, e.g. `chmod u+w`, and run again)", .0.display())]
    ReadOnly(PathBuf),
    /// The settings file could not be read.
    #[error("{}: cannot read: {cause}", .path.display())]
    Read {
        /// The settings file.
        path: PathBuf,
        /// What reading it said.
        cause: std::io::Error,
    },
    /// The settings file holds bytes that are not UTF-8: editing it could lose them.
    #[error("{}: not UTF-8 text; not edited", .0.display())]
    NotUtf8(PathBuf),
    /// The settings file's content cannot be edited safely (not JSON, not the shape the
    /// agent reads).
    #[error("{}: {cause}", .path.display())]
    Settings {
        /// The settings file.
        path: PathBuf,
        /// What is wrong with it.
        cause: SettingsError,
    },
    /// The edited settings could not be written.
    #[error("{}: cannot write: {cause}", .path.display())]
    Write {
        /// The settings file.
        path: PathBuf,
        /// What writing it said.
        cause: std::io::Error,
    },
}

/// The settings file's text (empty when there is none), refusing what cannot be edited in
/// place: a dangling link (its target is written, never the link replaced) and a read-only
/// file.
pub fn read_settings(path: &Path) -> Result<String, HooksError> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) && std::fs::metadata(path).is_err() {
        return Err(HooksError::Dangling {
            path: path.to_path_buf(),
            target: std::fs::read_link(path).unwrap_or_default(),
        });
    }
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().readonly() => return Err(HooksError::ReadOnly(path.to_path_buf())),
        _ => {}
    }
    match std::fs::read(path) {
        Ok(b) => String::from_utf8(b).map_err(|_| HooksError::NotUtf8(path.to_path_buf())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(cause) => Err(HooksError::Read {
            path: path.to_path_buf(),
            cause,
        }),
    }
}

/// What writing the settings did.
#[derive(Debug, PartialEq, Eq)]
pub enum Written {
    /// A new file.
    Created,
    /// Replaced; the file as it was is kept at this path.
    Replaced(PathBuf),
    /// Nothing was left in it but what install added to a file it created: removed, so the
    /// absence comes back.
    Removed,
}

/// Writes `content` to `path` (through a symbolic link, its target): an existing file is
/// first copied to a backup beside it, a new one is created with its folder, and one left
/// empty is removed.
pub fn write_settings(path: &Path, content: &str) -> Result<Written, HooksError> {
    write_settings_as(path, content, "cctool-hooks")
}

/// [`write_settings`] for another edit than the hooks': `tag` names its backups
/// (`FILE.TAG.bak`).
pub fn write_settings_as(path: &Path, content: &str, tag: &str) -> Result<Written, HooksError> {
    let failed = |cause| HooksError::Write {
        path: path.to_path_buf(),
        cause,
    };
    if path.exists() {
        let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if content.is_empty() && !link {
            std::fs::remove_file(path).map_err(failed)?;
            return Ok(Written::Removed);
        }
        return crate::io::atomic::replace_with_backup(path, content.as_bytes(), tag)
            .map(Written::Replaced)
            .map_err(failed);
    }
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(failed)?;
    }
    crate::io::atomic::write_new_file(path, content.as_bytes(), false)
        .map(|()| Written::Created)
        .map_err(failed)
}
