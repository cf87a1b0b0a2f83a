//! What an agent loads when a session is resumed: the Claude Code parent-link chain and the
//! Codex history reconstruction.

pub mod claude;
pub mod claude_api;
pub mod claude_client;
pub mod claude_config;
pub mod claude_model;
pub mod codex;
pub mod codex_api;
pub mod intern;
