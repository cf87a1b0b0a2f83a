//! cctool's own session files (`docs/cctool-session.md`): reading them, the schema versions and
//! their migrations, the streaming migration for large files, the v5 writer and compaction.
pub mod agent;
pub mod compact;
pub mod compaction;
pub mod doctor;
mod export;
pub mod fast;
pub mod file;
mod rows;
mod scan;
mod stream;
pub mod summaries;
pub mod view;
