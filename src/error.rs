//! The errors that end one job of a command: one file of a batch (reported, and the run goes
//! on) or the command itself (`cctool: FILE: MESSAGE`, exit status 2).
//!
//! The caller that knows which file a job was on names it; a line, where one is known, is
//! in the error itself. Each variant says what went wrong and, where the user can act, what
//! to do; `Display` is the sentence printed, kept stable because users and tests match it.
//!
//! The errors of the modules below (`ArchiveError`, `SchemaError`, `ExportError`, …) follow
//! one rule: `Display` is the whole sentence, its cause included, and the cause is kept as a
//! field named `cause`, not exposed as `source()`. A printer that walks the chain (anyhow's
//! `{:#}`) would otherwise say the cause twice.

use std::path::PathBuf;

use crate::backup::named::NameError;
use crate::backup::restore::RestoreError;
use crate::io::archive::ArchiveError;
use crate::v5::schema::SchemaError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A failure of the system, said as the system says it (the caller names the file).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The input could not be read, or changed while it was read.
    #[error("cannot read: {0}")]
    Read(std::io::Error),
    /// A file cctool writes could not be written.
    #[error("{}: cannot write: {cause}", .path.display())]
    Write { path: PathBuf, cause: std::io::Error },
    /// A new output file could not be written (nothing was replaced).
    #[error("{}: not written: {cause}", .path.display())]
    NotWritten { path: PathBuf, cause: std::io::Error },
    /// Standard output failed (other than a reader closing the pipe).
    #[error("standard output: {0}")]
    Stdout(std::io::Error),
    /// A rewrite in place was refused before it began (the file changed, looks live, …).
    #[error("not rewritten: {0}")]
    NotRewritten(String),
    /// A rewrite in place refused because another process (the agent) holds the file open
    /// for writing.
    #[error("not rewritten: {0}")]
    HeldOpen(crate::io::atomic::HeldOpen),
    /// A rewrite in place failed part way. At every step the file is whole — the original,
    /// or the new content once renamed into place — and the backup, once made, holds the
    /// original.
    #[error(
        "the rewrite did not finish ({0}); the file is whole, the original or the new one, and a backup beside it holds the original if one was made"
    )]
    RewriteUnfinished(std::io::Error),
    /// What was asked cannot be done as asked (an output that would replace the input,
    /// standard input where a file is needed, a live session without `--force`); the
    /// sentence says what to do instead.
    #[error("{0}")]
    Refused(String),
    /// The input is not what this command reads, or not valid as that format; the sentence
    /// names the line or field where one is known.
    #[error("{0}")]
    Invalid(String),
    /// A cctool session document that is not valid (the JSON path names where).
    #[error(transparent)]
    Session(#[from] SchemaError),
    /// A cctool session file whose messages cannot be streamed (not JSON, no `messages`).
    #[error(transparent)]
    SessionFile(#[from] crate::agents::cctool::file::SessionError),
    /// An error about a file other than the one the command is on (`--from PATH`), said
    /// after what names it.
    #[error("{what}: {cause}")]
    About { what: String, cause: Box<Error> },
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    #[error(transparent)]
    Named(#[from] NameError),
    #[error(transparent)]
    Restore(#[from] RestoreError),
    /// A PATH that names no file, nor a single session by its id.
    #[error(transparent)]
    Id(#[from] crate::commands::ids::IdError),
}

impl Error {
    /// [`Error::Refused`] from a sentence.
    pub fn refused(why: impl Into<String>) -> Error {
        Error::Refused(why.into())
    }

    /// The refusal to replace an existing output without `--force`.
    pub fn exists(path: &std::path::Path) -> Error {
        Error::Refused(format!(
            "{} exists; choose another -o, or pass --force to replace it",
            path.display()
        ))
    }

    /// Why a new output file at `path` was not written: it exists (and `--force` was not
    /// given), or writing it failed.
    pub fn new_file(path: &std::path::Path, cause: std::io::Error) -> Error {
        match cause.kind() {
            std::io::ErrorKind::AlreadyExists => Error::exists(path),
            _ => Error::NotWritten {
                path: path.to_path_buf(),
                cause,
            },
        }
    }

    /// This error said after `what` (a file other than the one the command is on).
    pub fn about(self, what: impl Into<String>) -> Error {
        Error::About {
            what: what.into(),
            cause: Box::new(self),
        }
    }

    /// [`Error::Invalid`] from a sentence.
    pub fn invalid(why: impl Into<String>) -> Error {
        Error::Invalid(why.into())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn io(kind: std::io::ErrorKind) -> std::io::Error {
        std::io::Error::new(kind, "disk says no")
    }

    #[test]
    fn a_new_file_that_exists_is_a_refusal_naming_force() {
        let p = std::path::Path::new("out.jsonl");
        let e = Error::new_file(p, io(std::io::ErrorKind::AlreadyExists));
        assert!(matches!(e, Error::Refused(_)));
        assert_eq!(
            e.to_string(),
            "out.jsonl exists; choose another -o, or pass --force to replace it"
        );
        let e = Error::new_file(p, io(std::io::ErrorKind::PermissionDenied));
        assert!(matches!(e, Error::NotWritten { .. }));
        assert_eq!(e.to_string(), "out.jsonl: not written: disk says no");
    }

    #[test]
    fn an_error_about_another_file_is_said_after_its_name() {
        let e = Error::Read(io(std::io::ErrorKind::NotFound)).about("--from full.json");
        assert_eq!(e.to_string(), "--from full.json: cannot read: disk says no");
    }

    /// Every message says its cause once, however it is printed: the top-level printer walks
    /// the chain (`{:#}`), JSON records and diagnostics take `Display`.
    #[test]
    fn a_chain_printer_says_each_cause_once() {
        let errors = [
            Error::Read(io(std::io::ErrorKind::NotFound)),
            Error::Write {
                path: "a".into(),
                cause: io(std::io::ErrorKind::Other),
            },
            Error::RewriteUnfinished(io(std::io::ErrorKind::Other)),
            Error::Stdout(io(std::io::ErrorKind::Other)),
            Error::Io(io(std::io::ErrorKind::Other)),
            Error::Archive(ArchiveError::Unreadable {
                path: "chunks/ab".into(),
                cause: io(std::io::ErrorKind::Other),
            }),
            Error::Read(io(std::io::ErrorKind::Other)).about("--from x"),
        ];
        for e in errors {
            let plain = e.to_string();
            assert_eq!(plain.matches("disk says no").count(), 1, "{plain}");
            assert_eq!(format!("{:#}", anyhow::Error::new(e)), plain);
        }
    }
}

/// Why a rewrite in place failed. At every step the file is whole — the original, or the new
/// content once it was renamed into place — and the backup, once made, holds the original.
pub fn rewrite_failed(e: std::io::Error) -> Error {
    use Error;
    if let Some(r) = crate::io::atomic::refusal(&e) {
        return Error::NotRewritten(r.to_string());
    }
    match e.downcast::<crate::io::atomic::HeldOpen>() {
        Ok(h) => Error::HeldOpen(h),
        Err(e) => Error::RewriteUnfinished(e),
    }
}
