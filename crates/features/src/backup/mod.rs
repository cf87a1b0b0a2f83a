//! The backup archive: content-addressed, zstd-compressed chunks plus one manifest per run.
//!
//! Layout of an archive folder (docs/backup.md):
//!
//! - `chunks/ab/<sha256>.zst`: a piece of a file, named by the SHA-256 of its uncompressed
//!   bytes, so a piece that is already there is never written again.
//! - `snapshots/<UTC time>-<pid>.json.zst`: one manifest per run, written last, atomically:
//!   until it is renamed into place the run does not exist, so an interrupted run leaves the
//!   previous snapshot whole and usable (its chunks are never removed).
//! - `summaries/<agent>/<session>.jsonl`: what the PostCompact hook archived.
//! - `lock`: held while a run writes, so cron and a hook never write a manifest at once.
//!
//! Chunking follows how agents write: a session file only grows by appends. When a file is
//! longer than last time and its first bytes still hash to what was stored, the stored
//! chunks are kept and only the new bytes become new chunks, so a run costs about the bytes
//! appended (a content-defined chunker would rewrite the chunk around the old end of every
//! grown file each time). A file rewritten in place is cut again at fixed 1 MiB offsets;
//! identical pieces are still shared.

pub mod merge;
pub mod named;
pub mod restore;
pub mod retention;
pub mod run;
pub mod stores;

pub use crate::io::archive::{self, Archive, Chunk, FileEntry, Manifest, SessionMeta};

/// The archive used when none is named: `$XDG_DATA_HOME/cctool/backup`, else
/// `~/.local/share/cctool/backup`.
pub(crate) fn default_archive(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<std::path::PathBuf> {
    let base = env("XDG_DATA_HOME")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| env("HOME").map(|h| std::path::PathBuf::from(h).join(".local/share")))?;
    Some(base.join("cctool").join("backup"))
}

/// [`default_archive`] from the process environment (variables set and not empty).
pub fn default_archive_env() -> Option<std::path::PathBuf> {
    default_archive(&|v| std::env::var_os(v).filter(|x| !x.is_empty()))
}
