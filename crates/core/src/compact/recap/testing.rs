//! Builders of the session model's records for the recap's tests, here and in the crates whose
//! tests need the registry's agents (`cctool` runs the recap over Claude Code's and Codex's
//! tools).

use serde_json::Value;

use crate::model::events::{Call, Outcome, Part, Record};

/// A record of `role` holding `parts`.
pub fn msg(role: &str, parts: Vec<Part>) -> Record {
    Record {
        kind: role.to_string(),
        role: Some(role.to_string()),
        parts,
        ..Record::default()
    }
}

/// A text part.
pub fn text(t: &str) -> Part {
    Part::Text(t.to_string())
}

/// A user record of one text.
pub fn user(t: &str) -> Record {
    msg("user", vec![text(t)])
}

/// A tool call part.
pub fn call(id: &str, name: &str, args: Value) -> Part {
    Part::Call(Call {
        id: Some(id.to_string()),
        name: Some(name.to_string()),
        kind: "tool_call".into(),
        input: Some(args),
    })
}

/// An assistant record of tool calls (and any other parts).
pub fn calls(parts: Vec<Part>) -> Record {
    msg("assistant", parts)
}

/// The tool record answering the call `id` with `content`.
pub fn result(id: &str, content: Value) -> Record {
    msg(
        "tool",
        vec![Part::Outcome(Outcome {
            call_id: Some(id.to_string()),
            is_error: None,
            output: Some(content),
        })],
    )
}

/// Owned strings, for comparing with what the recap holds.
pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}
