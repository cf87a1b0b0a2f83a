//! The migration chain v1 → v2 → v3 → v4 → v5: one pure function per step.

use super::*;

/// `YYYY-MM-DDTHH:MM:SSZ` of Unix seconds.
pub fn rfc3339_seconds(ts: i64) -> String {
    let s = crate::model::time::format_ms(ts.saturating_mul(1000));
    format!("{}Z", &s[..19])
}

/// v1 → v2: `version` → `schema_version`, `id` → `session_id`, `created_at` from the
/// smallest message `ts`.
pub fn v1_to_v2(s: Session) -> Session {
    let Session::V1 {
        id,
        messages,
        mut extra,
    } = s
    else {
        return s;
    };
    // A field a step introduces replaces an unknown field of the same name (in every step).
    extra.shift_remove("session_id");
    extra.shift_remove("created_at");
    let created_at = messages.iter().filter_map(|m| m.ts).min().map(rfc3339_seconds);
    Session::V2 {
        session_id: id,
        created_at,
        messages,
        extra,
    }
}

/// Parses tool-call arguments; text that is not JSON is kept as `{"_raw": …}`.
pub fn parse_arguments(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| json!({ "_raw": text }))
}

/// v2 → v3: messages get typed `items` (reasoning, text or tool_result, tool calls).
pub fn v2_to_v3(s: Session) -> Session {
    let Session::V2 {
        session_id,
        created_at,
        messages,
        extra,
    } = s
    else {
        return s;
    };
    let messages = messages
        .into_iter()
        .map(|mut m| {
            m.extra.shift_remove("items");
            // Sized exactly: an item is large, and a list grown from empty takes four.
            let thinking = m.thinking.as_ref().is_some_and(|t| !t.is_empty());
            let text = m.role == "tool" || !m.content.is_empty();
            let mut items = Vec::with_capacity(usize::from(thinking) + usize::from(text) + m.tool_calls.len());
            if let Some(t) = m.thinking.filter(|t| !t.is_empty()) {
                items.push(Item::Reasoning {
                    text: t,
                    extra: Map::new(),
                });
            }
            if m.role == "tool" {
                items.push(Item::ToolResult {
                    content: Value::String(m.content),
                    original_size: None,
                    extra: Map::new(),
                });
            } else if !m.content.is_empty() {
                items.push(Item::Text {
                    text: m.content,
                    extra: Map::new(),
                });
            }
            for mut c in m.tool_calls {
                c.extra.shift_remove("type");
                c.extra.shift_remove("args");
                items.push(Item::ToolCall {
                    id: c.id,
                    name: c.name,
                    args: parse_arguments(&c.arguments),
                    extra: c.extra,
                });
            }
            MessageV3 {
                role: m.role,
                tool_call_id: m.tool_call_id,
                items,
                id: None,
                ts: m.ts,
                timestamp: None,
                extra: m.extra,
            }
        })
        .collect();
    Session::V3Plus {
        version: 3,
        session_id,
        created_at,
        messages,
        extra,
    }
}

/// v3 → v4: every message gets its 1-based position as `id`; `ts` becomes `timestamp`.
pub fn v3_to_v4(s: Session) -> Session {
    let Session::V3Plus {
        version: 3,
        session_id,
        created_at,
        messages,
        extra,
    } = s
    else {
        return s;
    };
    let messages = messages
        .into_iter()
        .enumerate()
        .map(|(i, mut m)| {
            m.extra.shift_remove("id");
            m.extra.shift_remove("timestamp");
            MessageV3 {
                id: Some(i as u64 + 1),
                timestamp: m.ts.map(rfc3339_seconds),
                ts: None,
                ..m
            }
        })
        .collect();
    Session::V3Plus {
        version: 4,
        session_id,
        created_at,
        messages,
        extra,
    }
}

/// UTF-8 size of a tool result's content: the text, or the JSON of structured content.
pub fn content_size(content: &Value) -> u64 {
    match content {
        Value::String(s) => s.len() as u64,
        other => other.to_string().len() as u64,
    }
}

/// v4 → v5: each tool result records its `original_size`.
pub fn v4_to_v5(s: Session) -> Session {
    let Session::V3Plus {
        version: 4,
        session_id,
        created_at,
        mut messages,
        extra,
    } = s
    else {
        return s;
    };
    for m in &mut messages {
        for it in &mut m.items {
            if let Item::ToolResult {
                content, original_size, ..
            } = it
            {
                *original_size = Some(content_size(content));
            }
        }
    }
    Session::V3Plus {
        version: 5,
        session_id,
        created_at,
        messages,
        extra,
    }
}

/// Applies the steps from the session's version up to `to`.
pub fn migrate(mut s: Session, to: u32) -> Session {
    while s.version() < to {
        s = match s.version() {
            1 => v1_to_v2(s),
            2 => v2_to_v3(s),
            3 => v3_to_v4(s),
            _ => v4_to_v5(s),
        };
    }
    s
}
