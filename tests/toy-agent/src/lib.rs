#![deny(missing_docs)]
//! A toy agent: the worked example of adding an agent to cctool (CONTRIBUTING.md, "Adding an
//! agent"), and what `tests/toy.rs` proves adding one takes: this crate, which depends on the
//! core alone, and one line in a registry.
//!
//! Its sessions are JSON Lines: a header `{"toy_session":ID,"cwd":DIR,"started":TIME}`, then
//! `{"toy":"user"|"assistant","text":…,"at":TIME}` messages, and tool calls
//! `{"toy":"call","id":…,"tool":…,"input":{…}}` answered by `{"toy":"result","id":…,"output":…}`.
//! A resume loads every message: the toy agent neither compacts nor links its records.

pub mod agent;
mod answers;
pub mod convert;
pub mod file;
mod import;
pub mod tools;

pub use agent::Toy;

/// The id of the agent this crate reads: how records, messages and `--input-format` name it.
pub const ID: cctool_core::model::AgentId = cctool_core::model::AgentId::new("toy");
