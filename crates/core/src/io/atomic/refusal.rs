//! Why a rewrite in place was refused before anything changed, as the errors the writers
//! carry inside the `io::Error` of their signatures.

use std::io;

/// Why a rewrite was refused before anything changed: the message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The file is read-only, and `--force` was not given.
    #[error(
        "the file is read-only, which may mean someone protected it; nothing changed, pass --force to rewrite it anyway"
    )]
    ReadOnly,
    /// Another cctool run holds the file's lock.
    #[error("another cctool run is rewriting this file; nothing changed, retry when it has finished")]
    Locked,
    /// The file is not as it was read (`why` says how).
    #[error(
        "the file changed while cctool worked on it ({why}): something is writing it; nothing changed, retry when it is idle"
    )]
    Changed {
        /// How the file differs from what was read.
        why: Changed,
    },
    /// Another file was renamed to the path meanwhile.
    #[error("the file was replaced by another program while cctool worked on it; nothing changed")]
    Replaced,
}

/// How a file differs from what was read.
#[derive(Debug, thiserror::Error)]
pub enum Changed {
    /// Its size is not the size read.
    #[error("its size went from {was} to {now} bytes")]
    Size {
        /// The size read, in bytes.
        was: u64,
        /// The size now, in bytes.
        now: u64,
    },
    /// Its modification time is not the one read.
    #[error("it was modified")]
    Modified,
}

/// The refusal, as the io error that the writers' signatures carry.
pub(super) fn refused(r: Refused) -> io::Error {
    io::Error::other(r)
}

/// The refusal to rewrite a file that another process holds open for writing: after the
/// rename it would go on writing to the old file, which is then only the backup.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} {} the file open for writing, so what it writes after the rewrite would reach only the backup; \
     nothing changed: let it finish (quit the session), or pass --force",
    .writers.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
    if .writers.len() == 1 { "holds" } else { "hold" }
)]
pub struct HeldOpen {
    /// The processes with the file open for writing, as [`crate::io::writers`] found them.
    pub writers: Vec<crate::io::writers::Writer>,
}

/// The refusal inside `e`, when the rewrite was refused rather than failed.
pub fn refusal(e: &io::Error) -> Option<&Refused> {
    e.get_ref().and_then(|r| r.downcast_ref::<Refused>())
}
