//! Codex rollouts (`docs/codex.md`): the records, the history a resume reconstructs, the
//! request the client sends after it and the compaction writer.
pub mod agent;
pub mod api;
pub mod compact;
pub mod compaction;
pub mod convert;
pub mod doctor;
mod export;
pub mod history;
pub mod hooks;
pub mod import;
pub mod items;
pub mod rollout;
mod rows;
mod scan;
pub mod slim;
pub mod store;
pub mod summaries;
pub mod tools;
pub mod view;
