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
