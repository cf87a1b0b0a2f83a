#![deny(missing_docs)]
//! Claude Code transcripts (`docs/claude-code.md`): the records, the index and the parent-link
//! chain a resume loads, the request the client sends after it, the import to v5 and the
//! compaction writer.

use cctool_core::ExitStatus;
use cctool_core::agents;
use cctool_core::error;
use cctool_core::io;
use cctool_core::output;
use cctool_core::summary;
use cctool_core::v5;

pub mod agent;
pub mod api;
pub mod chain;
pub mod client;
pub mod compact;
pub mod compaction;
pub mod config;
pub mod convert;
pub mod doctor;
mod events;
mod export;
pub mod hooks;
pub mod import;
pub mod intern;
pub mod model;
mod placement;
pub mod records;
pub mod relocate;
mod retention;
mod scan;
pub mod slim;
pub mod store;
pub mod subagents;
pub mod summaries;
pub mod tools;
pub mod view;

/// The id of the agent this crate reads (Claude Code): how records, messages and `--input-format`
/// name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("claude-code");
