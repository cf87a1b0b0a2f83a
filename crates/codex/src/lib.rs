#![deny(missing_docs)]
//! Codex rollouts (`docs/codex.md`): the records, the history a resume reconstructs, the
//! request the client sends after it and the compaction writer.

use cctool_core::ExitStatus;
use cctool_core::agents;
use cctool_core::error;
use cctool_core::io;
use cctool_core::model;
use cctool_core::output;
use cctool_core::summary;
use cctool_core::v5;

pub mod agent;
pub mod api;
pub mod compact;
pub mod compaction;
pub mod convert;
pub mod doctor;
mod events;
mod export;
pub mod history;
pub mod hooks;
pub mod import;
pub(crate) mod items;
pub mod relocate;
pub mod rollout;
mod scan;
pub mod slim;
pub mod store;
pub mod summaries;
pub mod tools;
pub mod view;

/// The id of the agent this crate reads (Codex): how records, messages and `--input-format`
/// name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("codex");
