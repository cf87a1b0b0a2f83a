//! What the server asks of the program that runs it: the sessions of the user's stores, the
//! hits of a search, one session's conversation and its summaries. The CLI answers with the
//! machinery every command shares (the stores, session ids, the files read in parallel), so
//! each tool answers exactly as `scan`, `search`, `rebuild-chain` and `extract-summary` do.

use cctool_core::model::session::SessionRecord;
use cctool_core::summary::SummaryRecord;
use cctool_features::search::{Found, Options, Query};

/// The filters of `list_sessions`, and those `search` shares with it, as the client gave
/// them: the dates are read by the catalog as `cctool search --since` reads them.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only sessions of this agent (`claude-code`, `codex`, …).
    pub agent: Option<String>,
    /// Only sessions that ran in this folder or below it.
    pub project: Option<String>,
    /// A local date (`2027-01-22`) or a span back from now (`7d`, `12h`).
    pub since: Option<String>,
    /// The same, as the end (exclusive).
    pub until: Option<String>,
}

/// One search: its patterns, what it reads, and which sessions.
#[derive(Clone, Debug)]
pub struct Search {
    /// The patterns and how they match.
    pub query: Query,
    /// Scope, roles, thinking and tools; the dates are the filter's.
    pub options: Options,
    /// Which sessions.
    pub filter: Filter,
    /// Only this session: an id, a unique prefix of one, or a file.
    pub session: Option<String>,
}

/// A session with hits.
#[derive(Clone, Debug)]
pub struct Matched {
    /// The session, as `scan` reads it.
    pub session: SessionRecord,
    /// What matched in it.
    pub found: Found,
}

/// One session's effective conversation.
#[derive(Clone, Debug)]
pub struct Conversation {
    /// The session, as `scan` reads it.
    pub session: SessionRecord,
    /// The conversation as `rebuild-chain --format markdown` renders it.
    pub markdown: String,
}

/// Why a tool gave no answer: a sentence for the client (a session id that names no
/// session, a bad pattern, an unreadable file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

/// The answers the server hands on. Every method only reads.
pub trait Catalog: Send + Sync {
    /// The sessions of the user's stores that pass `filter` (subagent transcripts left
    /// out: each is counted with its session), in any order.
    fn sessions(&self, filter: &Filter) -> Result<Vec<SessionRecord>, ToolError>;

    /// The sessions with hits, in the order `cctool search` prints them.
    fn search(&self, search: &Search) -> Result<Vec<Matched>, ToolError>;

    /// The conversation a resume of `session` loads.
    fn conversation(&self, session: &str) -> Result<Conversation, ToolError>;

    /// The compaction summaries of `session`, as `extract-summary` finds them.
    fn summaries(&self, session: &str) -> Result<(SessionRecord, Vec<SummaryRecord>), ToolError>;
}
