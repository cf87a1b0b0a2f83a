#![deny(missing_docs)]
//! The core of cctool: what every agent and every feature shares, and nothing that belongs
//! to one of them. Bytes and lines (`io`), the vocabulary formats map into (`model`: formats,
//! diagnostics, time, tokens, resume options), printing (`output`), compaction summary
//! records (`summary`), cctool's own session format (`v5`), the `Agent` trait and what it
//! reports (`agents`), the kits agents build on for compaction (`compact`), conversion
//! (`convert`), slimming (`slim`) and relocating (`relocate`), and the errors that end a job (`error`).
//!
//! The crate graph is the architecture (`ARCHITECTURE.md`): this crate depends on no other
//! cctool crate; agents and features depend on it.

pub mod agents;
pub mod compact;
pub mod convert;
pub mod error;
pub mod io;
pub mod model;
pub mod output;
pub mod relocate;
pub mod slim;
pub mod summary;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod v5;

pub use output::status::ExitStatus;
