//! cctool's own session files (`docs/cctool-session.md`): reading them, the schema versions and
//! their migrations, the streaming migration for large files, the v5 writer and compaction.
pub mod agent;
pub mod build;
pub mod compact;
pub mod compaction;
mod export;
pub mod fast;
pub mod file;
mod rows;
pub mod schema;
mod stream;
pub mod summaries;
pub mod view;
pub mod write;
