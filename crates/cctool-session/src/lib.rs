#![deny(missing_docs)]
//! cctool's own session files (`docs/cctool-session.md`): reading them, the schema versions and
//! their migrations, the streaming migration for large files, the v5 writer and compaction.

use cctool_core::ExitStatus;
use cctool_core::agents;
use cctool_core::error;
use cctool_core::io;
use cctool_core::model;
use cctool_core::output;
use cctool_core::summary;
use cctool_core::v5;

pub mod agent;
pub mod compact;
pub mod compaction;
pub mod doctor;
mod events;
mod export;
pub mod fast;
pub mod file;
mod scan;
mod stream;
pub mod summaries;
pub mod view;

/// The id of the agent this crate reads (cctool's own session): how records, messages and `--input-format`
/// name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("cctool-session");
