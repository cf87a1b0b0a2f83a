#![deny(missing_docs)]
//! pi's sessions (`@earendil-works/pi-coding-agent`, session format v3; v1 and v2 read as the
//! client migrates them): a header `{"type":"session","version":3,id,timestamp,cwd}`, then
//! entries linked by `id` and `parentId` into a tree. A resume follows the branch that ends at
//! the file's last entry, and from its latest `compaction` loads the summary, then the entries
//! from `firstKeptEntryId` on. `docs/pi.md` names each rule and its evidence.

pub mod agent;
mod answers;
pub mod api;
pub mod convert;
mod doctor;
pub mod file;
mod import;
pub mod lite;
pub mod model;
pub mod relocate;
pub mod store;
pub mod tools;
pub mod tree;

pub use agent::Pi;

/// The id of the agent this crate reads: how records, messages and `--input-format` name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("pi");
