//! Rendering records for people (`--format text|markdown`).
//!
//! One block per message: a header naming the role, the file line and the time, then the
//! readable content — text in full, tool calls as name plus compact input, tool results and
//! thinking shortened. Everything taken from the transcript is passed through
//! [`super::sanitize::escape_str`].

use serde_json::Value;

use super::sanitize::escape_str;

/// Output styles for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Text,
    Markdown,
}

/// The longest tool input, tool result or thinking text shown before it is cut.
const SHORT: usize = 600;

/// What a rendered block is about.
pub struct Block {
    pub role: String,
    pub line: Option<u64>,
    pub timestamp: Option<String>,
    pub id: Option<String>,
    pub body: String,
}

pub fn render(style: Style, b: &Block) -> String {
    let mut meta = Vec::new();
    if let Some(l) = b.line {
        meta.push(format!("line {l}"));
    }
    if let Some(t) = &b.timestamp {
        meta.push(t.clone());
    }
    if let Some(i) = &b.id {
        meta.push(i.clone());
    }
    let meta = escape_str(&meta.join(" · "));
    let role = escape_str(&b.role);
    let body = escape_str(b.body.trim_end());
    match style {
        Style::Text => format!("── {role} · {meta}\n{body}\n\n"),
        Style::Markdown => format!("### {role}\n_{meta}_\n\n{body}\n\n"),
    }
}

/// A separator for `--full` output between earlier history and what a resume loads.
pub fn separator(style: Style, text: &str) -> String {
    match style {
        Style::Text => format!("════ {} ════\n\n", escape_str(text)),
        Style::Markdown => format!("---\n\n**{}**\n\n", escape_str(text)),
    }
}

pub fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} more bytes]", &s[..end], s.len() - end)
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i.get("text").and_then(Value::as_str) {
                Some(t) => t.to_string(),
                None => format!("[{}]", i.get("type").and_then(Value::as_str).unwrap_or("?")),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The readable content of Anthropic-style content (a string or a list of blocks).
fn anthropic_content(content: &Value, style: Style) -> String {
    let code = |s: String| match style {
        Style::Markdown => format!("```\n{s}\n```"),
        Style::Text => s,
    };
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => b.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
                "thinking" => format!(
                    "[thinking] {}",
                    shorten(b.get("thinking").and_then(Value::as_str).unwrap_or(""), SHORT)
                ),
                "redacted_thinking" => "[redacted thinking]".to_string(),
                "tool_use" => format!(
                    "[tool_use {} {}]\n{}",
                    b.get("name").and_then(Value::as_str).unwrap_or("?"),
                    b.get("id").and_then(Value::as_str).unwrap_or(""),
                    code(shorten(
                        &b.get("input").map(Value::to_string).unwrap_or_default(),
                        SHORT
                    ))
                ),
                "tool_result" => format!(
                    "[tool_result {}{}]\n{}",
                    b.get("tool_use_id").and_then(Value::as_str).unwrap_or(""),
                    if b.get("is_error").and_then(Value::as_bool) == Some(true) {
                        ", error"
                    } else {
                        ""
                    },
                    code(shorten(&text_of(b.get("content").unwrap_or(&Value::Null)), SHORT))
                ),
                "image" => "[image]".to_string(),
                other => format!("[{other}]"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// A Claude Code record.
pub fn claude_block(v: &Value, line: u64, style: Style) -> Block {
    let ty = s(v, "type").unwrap_or_default();
    let (role, body) = match ty.as_str() {
        "system" => {
            let sub = s(v, "subtype").unwrap_or_default();
            let mut body = text_of(v.get("content").unwrap_or(&Value::Null));
            if sub == "compact_boundary" {
                let m = v.get("compactMetadata");
                let trigger = m.and_then(|m| s(m, "trigger")).unwrap_or_else(|| "?".into());
                let tokens = m
                    .and_then(|m| m.get("preTokens"))
                    .map(Value::to_string)
                    .unwrap_or_else(|| "?".into());
                body = format!("{body} (trigger {trigger}, {tokens} tokens before)");
            }
            (format!("system/{sub}"), body)
        }
        "attachment" => (
            "attachment".to_string(),
            shorten(&v.get("attachment").map(Value::to_string).unwrap_or_default(), SHORT),
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
            (
                role,
                anthropic_content(msg.get("content").unwrap_or(&Value::Null), style),
            )
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
pub fn api_block(v: &Value, index: usize, style: Style) -> Block {
    Block {
        role: s(v, "role").unwrap_or_default(),
        line: None,
        timestamp: None,
        id: Some(format!("message {}", index + 1)),
        body: anthropic_content(v.get("content").unwrap_or(&Value::Null), style),
    }
}

/// A Codex ResponseItem.
pub fn codex_block(v: &Value, line: Option<u64>, style: Style) -> Block {
    let ty = s(v, "type").unwrap_or_default();
    let code = |x: String| match style {
        Style::Markdown => format!("```\n{x}\n```"),
        Style::Text => x,
    };
    let (role, body) = match ty.as_str() {
        "message" => (
            s(v, "role").unwrap_or_else(|| "message".into()),
            text_of(v.get("content").unwrap_or(&Value::Null)),
        ),
        "reasoning" => (
            "reasoning".into(),
            shorten(&v.get("summary").map(text_of).unwrap_or_default(), SHORT),
        ),
        "function_call" | "custom_tool_call" => (
            format!("{ty} {}", s(v, "name").unwrap_or_default()),
            code(shorten(
                &s(v, "arguments").or_else(|| s(v, "input")).unwrap_or_default(),
                SHORT,
            )),
        ),
        "function_call_output" | "custom_tool_call_output" => (
            format!("{ty} {}", s(v, "call_id").unwrap_or_default()),
            code(shorten(&text_of(v.get("output").unwrap_or(&Value::Null)), SHORT)),
        ),
        "local_shell_call" => (
            "local_shell_call".into(),
            code(shorten(
                &v.get("action").map(Value::to_string).unwrap_or_default(),
                SHORT,
            )),
        ),
        "compaction" | "compaction_summary" | "context_compaction" => (
            ty.clone(),
            format!(
                "[encrypted compaction summary, {} bytes]",
                v.get("encrypted_content").and_then(Value::as_str).map_or(0, str::len)
            ),
        ),
        _ => (ty.clone(), shorten(&v.to_string(), SHORT)),
    };
    Block {
        role,
        line,
        timestamp: None,
        id: s(v, "call_id"),
        body,
    }
}

/// A cctool session message (any schema version).
pub fn session_block(v: &Value, index: usize) -> Block {
    let role = s(v, "role").unwrap_or_else(|| "?".into());
    let body = if let Some(items) = v.get("items").and_then(Value::as_array) {
        items
            .iter()
            .map(|i| match s(i, "type").as_deref() {
                Some("text" | "reasoning" | "summary") => s(i, "text").unwrap_or_default(),
                Some("tool_call") => format!(
                    "[tool_call {}] {}",
                    s(i, "name").unwrap_or_default(),
                    shorten(&i.get("args").map(Value::to_string).unwrap_or_default(), SHORT)
                ),
                Some("tool_result") => format!(
                    "[tool_result] {}",
                    shorten(&text_of(i.get("content").unwrap_or(&Value::Null)), SHORT)
                ),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        text_of(v.get("content").unwrap_or(&Value::Null))
    };
    Block {
        role,
        line: None,
        timestamp: s(v, "timestamp"),
        id: Some(format!("#{}", index + 1)),
        body,
    }
}
