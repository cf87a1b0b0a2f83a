//! A cctool session's messages as blocks for people (`rebuild-chain --format text|markdown`),
//! in the core's rendering kit (`cctool_core::output::render`).

use serde_json::Value;

use cctool_core::output::render::{Block, Render, text_of};
use cctool_core::output::sanitize::escape_str;

/// The string at `k` of an object, owned.
fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// A cctool session message (any schema version).
pub fn session_block(v: &Value, index: usize, r: &Render) -> Block {
    let role = s(v, "role").unwrap_or_else(|| "?".into());
    let body = if let Some(items) = v.get("items").and_then(Value::as_array) {
        items
            .iter()
            .map(|i| match s(i, "type").as_deref() {
                Some("text" | "reasoning" | "summary") => escape_str(&s(i, "text").unwrap_or_default()),
                Some("tool_call") => format!(
                    "{}\n{}",
                    r.marker(&format!("[tool_call {}]", s(i, "name").unwrap_or_default())),
                    r.code(&i.get("args").map(Value::to_string).unwrap_or_default())
                ),
                Some("tool_result") => format!(
                    "{}\n{}",
                    r.marker("[tool_result]"),
                    r.code(&text_of(i.get("content").unwrap_or(&Value::Null)))
                ),
                Some(other) => r.marker(&format!("[{other}]")),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        escape_str(&text_of(v.get("content").unwrap_or(&Value::Null)))
    };
    Block {
        role,
        line: None,
        timestamp: s(v, "timestamp"),
        id: Some(format!("#{}", index + 1)),
        body,
    }
}
