//! Builders of v5 messages for the recap's tests, here and in the crates whose tests need
//! the registry's agents (`cctool` runs the recap over Claude Code's and Codex's tools).

use serde_json::Value;

use crate::v5::schema::{Item, MessageV3};

/// A message of `role` holding `items`.
pub fn msg(role: &str, items: Vec<Item>) -> MessageV3 {
    MessageV3::new(role, items)
}

/// A text item.
pub fn text(t: &str) -> Item {
    Item::text(t)
}

/// A user message of one text.
pub fn user(t: &str) -> MessageV3 {
    msg("user", vec![text(t)])
}

/// A tool call item.
pub fn call(id: &str, name: &str, args: Value) -> Item {
    Item::tool_call(id, name, args)
}

/// An assistant message of tool calls (and any other items).
pub fn calls(items: Vec<Item>) -> MessageV3 {
    msg("assistant", items)
}

/// The tool message answering the call `id` with `content`.
pub fn result(id: &str, content: Value) -> MessageV3 {
    MessageV3::tool(id, vec![Item::tool_result(content)])
}

/// Owned strings, for comparing with what the recap holds.
pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}
