//! What a converter says of its agent's store: where `convert --into-store` places a converted
//! session (and `compact --into-store` a compacted one), and why it cannot.

use std::path::PathBuf;

/// Where the target agent finds a converted session, and what resumes it.
#[derive(Debug)]
pub struct Placement {
    /// The file the session goes to.
    pub path: PathBuf,
    /// The command that resumes the session placed at `path`.
    pub resume: String,
    /// The session the agent's own importer already made of the source (then nothing is
    /// written).
    pub imported: Option<Imported>,
}

/// A session the target agent's own importer already made of the source.
#[derive(Debug)]
pub struct Imported {
    /// The agent's id of that session.
    pub id: String,
    /// The command that resumes it.
    pub resume: String,
}

/// Why a converted session cannot be placed in the target agent's store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No store is found: the sentence says what to set, or to write with `-o`.
    #[error("{0}")]
    NoStore(&'static str),
    /// The agent's record of what its own importer imported cannot be read: the agent's own
    /// error, said as a whole sentence. Boxed: the core cannot name the agents' types.
    #[error("{0}")]
    Ledger(Box<dyn std::error::Error + Send + Sync>),
}

/// One line of an agent's own session whose id is `old`, as a line of the same session under
/// the id `new`: the line rewritten where the agent records the session's own id, `None` when
/// it stays as written. What lets `compact --into-store` place a compaction of a session in
/// the store as a session of its own, beside the one it was made from.
pub type Rename = fn(line: &[u8], old: &str, new: &str) -> Option<Vec<u8>>;
