#![deny(missing_docs)]
//! Qwen Code's sessions (`@qwen-code/qwen-code`, read as 0.24.4 writes and loads them): one
//! JSON record a line in `~/.qwen/projects/<project>/chats/<session id>.jsonl`, each with a
//! `uuid` and the `parentUuid` of the record before it, around a message in Gemini's Content
//! shape (`role` `user` or `model`, `parts`). A resume walks from the file's last record back
//! to the root, and loads the messages from the last `chat_compression` on, its compressed
//! history first. `docs/qwen.md` names each rule and its evidence.

pub mod agent;
mod answers;
pub mod api;
pub mod chain;
pub mod convert;
mod doctor;
pub mod file;
pub mod hooks;
mod import;
pub mod lite;
pub mod model;
pub mod relocate;
pub mod store;
pub mod tools;

pub use agent::Qwen;

/// The id of the agent this crate reads: how records, messages and `--input-format` name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("qwen-code");
