//! Claude Code's records and API-view messages as blocks for people (`rebuild-chain --format
//! text|markdown`), in the core's rendering kit (`cctool_core::output::render`).

use serde_json::Value;

use cctool_core::output::render::{Block, Render, text_of};
use cctool_core::output::sanitize::escape_str;

/// The readable content of Anthropic-style content (a string or a list of blocks), escaped.
fn anthropic_content(content: &Value, r: &Render) -> String {
    match content {
        Value::String(s) => escape_str(s),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => escape_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
                "thinking" => format!(
                    "{} {}",
                    r.marker("[thinking]"),
                    r.short(b.get("thinking").and_then(Value::as_str).unwrap_or(""))
                ),
                "redacted_thinking" => r.marker("[redacted thinking]"),
                "tool_use" => format!(
                    "{}\n{}",
                    r.marker(&format!(
                        "[tool_use {} {}]",
                        b.get("name").and_then(Value::as_str).unwrap_or("?"),
                        b.get("id").and_then(Value::as_str).unwrap_or("")
                    )),
                    r.code(&b.get("input").map(Value::to_string).unwrap_or_default())
                ),
                "tool_result" => format!(
                    "{}\n{}",
                    r.marker(&format!(
                        "[tool_result {}{}]",
                        b.get("tool_use_id").and_then(Value::as_str).unwrap_or(""),
                        if b.get("is_error").and_then(Value::as_bool) == Some(true) {
                            ", error"
                        } else {
                            ""
                        }
                    )),
                    r.code(&text_of(b.get("content").unwrap_or(&Value::Null)))
                ),
                "image" => r.marker("[image]"),
                other => r.marker(&format!("[{other}]")),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The string at `k` of an object, owned.
fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// A Claude Code record.
pub fn claude_block(v: &Value, line: u64, r: &Render) -> Block {
    let ty = s(v, "type").unwrap_or_default();
    let (role, body) = match ty.as_str() {
        "system" => {
            let sub = s(v, "subtype").unwrap_or_default();
            let mut body = escape_str(&text_of(v.get("content").unwrap_or(&Value::Null)));
            if sub == "compact_boundary" {
                let m = v.get("compactMetadata");
                let trigger = m.and_then(|m| s(m, "trigger")).unwrap_or_else(|| "?".into());
                let tokens = m
                    .and_then(|m| m.get("preTokens"))
                    .map(Value::to_string)
                    .unwrap_or_else(|| "?".into());
                body = format!(
                    "{body} {}",
                    r.marker(&format!("(trigger {trigger}, {tokens} tokens before)"))
                );
            }
            (format!("system/{sub}"), body)
        }
        "attachment" => (
            "attachment".to_string(),
            r.code(&v.get("attachment").map(Value::to_string).unwrap_or_default()),
        ),
        _ => {
            let msg = v.get("message").unwrap_or(&Value::Null);
            let mut role = ty.clone();
            if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
                role.push_str(" (compaction summary)");
            } else if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
                role.push_str(" (meta)");
            }
            if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
                role.push_str(" (sidechain)");
            }
            if let Some(model) = s(msg, "model") {
                role.push_str(&format!(" · {model}"));
            }
            (role, anthropic_content(msg.get("content").unwrap_or(&Value::Null), r))
        }
    };
    Block {
        role,
        line: Some(line),
        timestamp: s(v, "timestamp"),
        id: s(v, "uuid"),
        body,
    }
}

/// A message of the API view (`{"role","content"}`).
pub fn api_block(v: &Value, index: usize, r: &Render) -> Block {
    Block {
        role: s(v, "role").unwrap_or_default(),
        line: None,
        timestamp: None,
        id: Some(format!("message {}", index + 1)),
        body: anthropic_content(v.get("content").unwrap_or(&Value::Null), r),
    }
}
