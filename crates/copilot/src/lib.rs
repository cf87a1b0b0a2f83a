#![deny(missing_docs)]
//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`): one event a
//! line, `{type, data, id, timestamp, parentId}`, each naming the one before it. What is read
//! and why is in `docs/copilot.md`.

pub mod agent;
mod answers;
mod api;
pub mod convert;
mod doctor;
pub mod file;
pub mod hooks;
mod import;
pub mod lite;
pub mod model;
pub mod relocate;
pub mod store;
pub mod tools;
mod view;

pub use agent::Copilot;

/// The id of the agent this crate reads: how records, messages and `--input-format` name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("copilot");

/// The result a resume sends for a call of the history's last message that never got one (GH6;
/// its text as the client 1.0.102 writes it).
pub const INTERRUPTED: &str = "Tool execution was interrupted before a result was recorded. Its effects may be absent, partial, or already complete, and other tools may have completed successfully. Check the current state before retrying; do not assume success or replay this operation blindly.";

/// The result a resume sends for a call left unanswered before a later message (GH7).
pub const INTERRUPTED_BEFORE: &str = "The execution of this tool, or a previous tool was interrupted.";
