#![deny(missing_docs)]
//! Gemini CLI's chats (`@google/gemini-cli`, checked against 0.61.0): an event log
//! `~/.gemini/tmp/<project>/chats/session-<time>-<short id>.jsonl` whose lines are headers
//! (`{sessionId, projectHash, startTime, …}`), message records (`{id, type, content, …}`, a
//! record written again under the same id replacing the earlier one where it stood), `$set`
//! updates (a `messages` list replaces the whole history: on every resume, and on a
//! compression) and `$rewindTo` (drops a message and everything after it). The older chats are
//! one JSON document with the same fields. A resume replays the log, then sends what
//! [`sent`] makes of the messages. `docs/gemini.md` names each rule and its evidence.

pub mod agent;
mod answers;
pub mod convert;
mod doctor;
pub mod file;
pub mod hooks;
mod import;
pub mod lite;
pub mod record;
pub mod relocate;
pub mod replay;
pub mod retention;
pub mod sent;
pub mod store;
pub mod tools;

pub use agent::Gemini;

/// The id of the agent this crate reads: how records, messages and `--input-format` name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("gemini-cli");
