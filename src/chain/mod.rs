//! What an agent loads when a session is resumed: the Claude Code parent-link chain and the
//! Codex history reconstruction.

pub mod claude;
pub mod codex;
pub mod intern;
