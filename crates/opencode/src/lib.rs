#![deny(missing_docs)]
//! opencode sessions: the rows of its SQLite database (`~/.local/share/opencode/opencode.db`,
//! tables `session`, `message`, `part`), each session read in one snapshot as the document
//! `opencode export` prints (`{info, messages: [{info, parts}]}`), such documents given as
//! files, and the older per-file storage (`storage/`) read into the same document. What is read and why is in `docs/opencode.md`.

pub mod agent;
mod answers;
pub mod api;
pub mod convert;
pub mod db;
mod doctor;
pub mod file;
mod import;
pub mod legacy;
pub mod model;
pub mod reclaim;
pub mod relocate;
pub mod space;
pub mod store;
pub mod tools;
mod view;

pub use agent::Opencode;

/// The id of the agent this crate reads: how records, messages and `--input-format` name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("opencode");
