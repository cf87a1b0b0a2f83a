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
mod import;
pub mod model;
pub mod store;
pub mod tools;
mod view;

pub use agent::Copilot;

/// The id of the agent this crate reads: how records, messages and `--input-format` name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("copilot");

/// The result a resume sends for a call that never got one (its text as the client writes it).
pub const INTERRUPTED: &str = "Tool execution was interrupted before a result was recorded.";
