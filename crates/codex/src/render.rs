//! Codex's response items as blocks for people (`rebuild-chain --format text|markdown`), in
//! the core's rendering kit (`cctool_core::output::render`).

use serde_json::Value;

use cctool_core::output::render::{Block, Render, text_of};
use cctool_core::output::sanitize::escape_str;

/// The string at `k` of an object, owned.
fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// A Codex ResponseItem.
pub fn codex_block(v: &Value, line: Option<u64>, r: &Render) -> Block {
    let ty = s(v, "type").unwrap_or_default();
    let (role, body) = match ty.as_str() {
        "message" => (
            s(v, "role").unwrap_or_else(|| "message".into()),
            escape_str(&text_of(v.get("content").unwrap_or(&Value::Null))),
        ),
        "reasoning" => (
            "reasoning".into(),
            r.short(&v.get("summary").map(text_of).unwrap_or_default()),
        ),
        "function_call" | "custom_tool_call" => (
            format!("{ty} {}", s(v, "name").unwrap_or_default()),
            r.code(&s(v, "arguments").or_else(|| s(v, "input")).unwrap_or_default()),
        ),
        "function_call_output" | "custom_tool_call_output" => (
            format!("{ty} {}", s(v, "call_id").unwrap_or_default()),
            r.code(&text_of(v.get("output").unwrap_or(&Value::Null))),
        ),
        "local_shell_call" => (
            "local_shell_call".into(),
            r.code(&v.get("action").map(Value::to_string).unwrap_or_default()),
        ),
        "compaction" | "compaction_summary" | "context_compaction" => (
            ty.clone(),
            r.marker(&format!(
                "[encrypted compaction summary, {} bytes]",
                v.get("encrypted_content").and_then(Value::as_str).map_or(0, str::len)
            )),
        ),
        _ => (ty.clone(), r.code(&v.to_string())),
    };
    Block {
        role,
        line,
        timestamp: None,
        id: s(v, "call_id"),
        body,
    }
}
