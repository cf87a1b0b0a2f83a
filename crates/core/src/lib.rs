#![deny(missing_docs)]
//! The core of cctool: what every agent and every feature shares, and nothing that belongs
//! to one of them. Bytes and lines (`io`), the vocabulary formats map into (`model`: formats,
//! diagnostics, time, tokens, resume options), printing (`output`), compaction summary
//! records (`summary`), and cctool's own session format (`v5`).
//!
//! The crate graph is the architecture (`ARCHITECTURE.md`): this crate depends on no other
//! cctool crate; agents and features depend on it.

#[allow(missing_docs)]
pub mod agents;
#[allow(missing_docs)]
pub mod compact;
#[allow(missing_docs)]
pub mod convert;
#[allow(missing_docs)]
pub mod error;
pub mod io;
pub mod model;
pub mod output;
pub mod slim;
pub mod summary;
pub mod v5;

pub use output::status::ExitStatus;
