//! The errors that end one job of a command: one file of a batch (reported, and the run goes
//! on) or the command itself (`cctool: FILE: MESSAGE`, exit status 2).
//!
//! The caller that knows which file a job was on names it; a line, where one is known, is
//! in the error itself. Each variant says what went wrong and, where the user can act, what
//! to do; `Display` is the sentence printed, kept stable because users and tests match it.
//!
//! The errors of the modules below (`ArchiveError`, `SchemaError`, `ExportError`, …) follow
//! one rule: `Display` is the whole sentence, its cause included, and the cause is kept as a
//! field named `cause`, not exposed as `source()`. A printer that walks the chain
//! ([`with_causes`]) would otherwise say the cause twice.

use std::path::PathBuf;

use crate::io::archive::ArchiveError;
use crate::v5::schema::SchemaError;

/// Why a job of a command failed; `Display` is the sentence printed after the file's name.
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
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// A new output file could not be written (nothing was replaced).
    #[error("{}: not written: {cause}", .path.display())]
    NotWritten {
        /// The output that was not written.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// Standard output failed (other than a reader closing the pipe).
    #[error("standard output: {0}")]
    Stdout(std::io::Error),
    /// A rewrite in place was refused before it began (the file changed, is locked, …).
    #[error("not rewritten: {0}")]
    NotRewritten(crate::io::atomic::Refused),
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
    /// What was asked cannot be done as asked; the sentence says what to do instead.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A cctool session document that is not valid (the JSON path names where).
    #[error(transparent)]
    Session(#[from] SchemaError),
    /// An error about a file other than the one the command is on (`--from PATH`), said
    /// after what names it.
    #[error("{what}: {cause}")]
    About {
        /// The other file, as the message names it.
        what: String,
        /// The error about it.
        cause: Box<Error>,
    },
    /// An error of an agent's own about its file (a chain that cannot be rebuilt, an option
    /// its resume cannot use), said as a whole sentence. Boxed: the agents' crates sit above
    /// the core, which cannot name their types.
    #[error("{0}")]
    Agent(Box<dyn std::error::Error + Send + Sync>),
    /// A backup archive that cannot be read.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
}

/// What the core refuses to do as asked; `Display` says what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// An existing output would be replaced without `--force`.
    #[error("{} exists; choose another -o, or pass --force to replace it", .path.display())]
    Exists {
        /// The existing output.
        path: PathBuf,
    },
    /// `--tier 1` asked of a file that is not a cctool v5 session.
    #[error(
        "--tier 1 applies to cctool v5 sessions; a {} file is compacted by a summary (tier 2): \
         import it with `cctool migrate --to v5` to use tier 1",
        .format.name()
    )]
    TierNotNative {
        /// The file's format.
        format: crate::model::AgentId,
    },
}

impl Error {
    /// The refusal to replace an existing output without `--force`.
    pub fn exists(path: &std::path::Path) -> Error {
        Error::Refused(Refusal::Exists {
            path: path.to_path_buf(),
        })
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

    /// [`Error::Agent`] from an agent's own error.
    pub fn agent(e: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::Agent(Box::new(e))
    }

    /// This error said after `what` (a file other than the one the command is on).
    pub fn about(self, what: impl Into<String>) -> Error {
        Error::About {
            what: what.into(),
            cause: Box::new(self),
        }
    }
}

/// The sentence of `e` followed by each of its causes (`source()`, then its source, …), `: `
/// between them: how an error that ends the run is printed.
pub fn with_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut said = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        said.push_str(": ");
        said.push_str(&c.to_string());
        cause = c.source();
    }
    said
}

/// A result whose error is, unless said otherwise, an [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a rewrite in place failed. At every step the file is whole — the original, or the new
/// content once it was renamed into place — and the backup, once made, holds the original.
pub fn rewrite_failed(e: std::io::Error) -> Error {
    let e = match e.downcast::<crate::io::atomic::Refused>() {
        Ok(r) => return Error::NotRewritten(r),
        Err(e) => e,
    };
    match e.downcast::<crate::io::atomic::HeldOpen>() {
        Ok(h) => Error::HeldOpen(h),
        Err(e) => Error::RewriteUnfinished(e),
    }
}

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
            assert_eq!(with_causes(&e), plain);
        }
    }
}
