//! What stops a payload from being extracted or put back.

use std::io;
use std::path::PathBuf;

/// Why a payload could not be extracted or put back, with what it is about; carried in the
/// `io::Error` of the write it stopped, whose kind is the system's where the system said it.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// An extracted payload's file could not be written.
    #[error("{}: {cause}", .path.display())]
    NotExtracted {
        /// The payload's file.
        path: PathBuf,
        /// What the system said.
        cause: io::Error,
    },
    /// The placeholder on this line could not be restored.
    #[error("line {line}: {cause}")]
    AtLine {
        /// The line of the placeholder.
        line: u64,
        /// Why.
        cause: io::Error,
    },
    /// The payload is not in the file, and the file it was extracted to cannot be read.
    #[error(
        "the payload sha256:{hash} is not in the file, and {} cannot be read ({cause}); give --restore the folder it was extracted to",
        .path.display()
    )]
    Unreadable {
        /// The payload's sha256, in hex.
        hash: String,
        /// Where it was looked for.
        path: PathBuf,
        /// What the system said.
        cause: io::Error,
    },
    /// The file named for the payload holds other bytes.
    #[error("{} does not hold the payload sha256:{hash} (its sha256 is {got}); nothing written", .path.display())]
    Mismatch {
        /// The file read.
        path: PathBuf,
        /// The payload's sha256, in hex.
        hash: String,
        /// The sha256 of what the file holds, in hex.
        got: String,
    },
}

impl From<PayloadError> for io::Error {
    fn from(e: PayloadError) -> io::Error {
        let kind = match &e {
            PayloadError::NotExtracted { cause, .. }
            | PayloadError::AtLine { cause, .. }
            | PayloadError::Unreadable { cause, .. } => cause.kind(),
            PayloadError::Mismatch { .. } => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, e)
    }
}
