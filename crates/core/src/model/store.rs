//! What an agent's store says of a session file before it is read: the vocabulary the
//! features that find sessions by id share with the agents.

use crate::model::AgentId;

/// What the first records of a session file say of it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SessionHead {
    /// The format whose records said it.
    pub format: Option<AgentId>,
    /// The session's id.
    pub id: Option<String>,
    /// The session's working directory.
    pub cwd: Option<String>,
}

pub use crate::model::session::is_uuid;

/// Whether `id` starts with `start` and ends with `end`, the two not overlapping, in any
/// case: an id as `scan` shortens it (`a1b2c3d4…000a`, `…qV2vNPG4N14`), a uuid written in
/// either case, and ids told apart by their case alone reported as ambiguous by the caller.
pub fn id_has_ends(id: &str, start: &str, end: &str) -> bool {
    let starts = id.get(..start.len()).is_some_and(|p| p.eq_ignore_ascii_case(start));
    let ends = id.len() >= start.len() + end.len()
        && id
            .get(id.len() - end.len()..)
            .is_some_and(|e| e.eq_ignore_ascii_case(end));
    starts && ends
}
