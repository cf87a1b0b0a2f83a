//! A session as its JSON document: keys in the order the spec shows them, two-space indent.

use super::*;

pub(crate) fn item_value(it: Item) -> Value {
    let with = |mut head: Map<String, Value>, extra: Map<String, Value>| {
        head.extend(extra);
        Value::Object(head)
    };
    match it {
        Item::Reasoning { text, extra } => with(
            Map::from_iter([
                ("type".into(), json!("reasoning")),
                ("text".into(), Value::String(text)),
            ]),
            extra,
        ),
        Item::Text { text, extra } => with(
            Map::from_iter([("type".into(), json!("text")), ("text".into(), Value::String(text))]),
            extra,
        ),
        Item::ToolCall { id, name, args, extra } => with(
            Map::from_iter([
                ("type".into(), json!("tool_call")),
                ("id".into(), Value::String(id)),
                ("name".into(), Value::String(name)),
                ("args".into(), args),
            ]),
            extra,
        ),
        Item::ToolResult {
            content,
            original_size,
            extra,
        } => {
            let mut m = Map::from_iter([("type".into(), json!("tool_result")), ("content".into(), content)]);
            if let Some(n) = original_size {
                m.insert("original_size".into(), json!(n));
            }
            with(m, extra)
        }
        Item::Other(v) => v,
    }
}

pub(super) fn message_v1_value(m: MessageV1) -> Value {
    let mut o = Map::new();
    o.insert("role".into(), Value::String(m.role));
    if let Some(id) = m.tool_call_id {
        o.insert("tool_call_id".into(), Value::String(id));
    }
    o.insert("content".into(), Value::String(m.content));
    if let Some(t) = m.thinking {
        o.insert("thinking".into(), Value::String(t));
    }
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .into_iter()
            .map(|c| {
                let mut cm = Map::from_iter([
                    ("id".into(), Value::String(c.id)),
                    ("name".into(), Value::String(c.name)),
                    ("arguments".into(), Value::String(c.arguments)),
                ]);
                cm.extend(c.extra);
                Value::Object(cm)
            })
            .collect();
        o.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(ts) = m.ts {
        o.insert("ts".into(), json!(ts));
    }
    o.extend(m.extra);
    Value::Object(o)
}

/// A message as the document writes it.
pub fn message_v3_value(m: MessageV3) -> Value {
    let mut o = Map::new();
    o.insert("role".into(), Value::String(m.role));
    if let Some(id) = m.tool_call_id {
        o.insert("tool_call_id".into(), Value::String(id));
    }
    o.insert(
        "items".into(),
        Value::Array(m.items.into_iter().map(item_value).collect()),
    );
    if let Some(ts) = m.ts {
        o.insert("ts".into(), json!(ts));
    }
    if let Some(id) = m.id {
        o.insert("id".into(), json!(id));
    }
    if let Some(t) = m.timestamp {
        o.insert("timestamp".into(), Value::String(t));
    }
    o.extend(m.extra);
    Value::Object(o)
}

/// The document, keys in the order the spec shows them, unknown fields last. Consumes the
/// session: every string moves into the document rather than being copied.
pub fn into_value(s: Session) -> Value {
    let mut o = Map::new();
    match s {
        Session::V1 { id, messages, extra } => {
            o.insert("version".into(), json!(1));
            o.insert("id".into(), id);
            o.insert(
                "messages".into(),
                Value::Array(messages.into_iter().map(message_v1_value).collect()),
            );
            o.extend(extra);
        }
        Session::V2 {
            session_id,
            created_at,
            messages,
            extra,
        } => {
            o.insert("schema_version".into(), json!(2));
            o.insert("session_id".into(), session_id);
            o.insert("created_at".into(), json!(created_at));
            o.insert(
                "messages".into(),
                Value::Array(messages.into_iter().map(message_v1_value).collect()),
            );
            o.extend(extra);
        }
        Session::V3Plus {
            version,
            session_id,
            created_at,
            messages,
            extra,
        } => {
            o.insert("schema_version".into(), json!(version));
            o.insert("session_id".into(), session_id);
            o.insert("created_at".into(), json!(created_at));
            o.insert(
                "messages".into(),
                Value::Array(messages.into_iter().map(message_v3_value).collect()),
            );
            o.extend(extra);
        }
    }
    Value::Object(o)
}

/// The document without consuming the session.
pub fn to_value(s: &Session) -> Value {
    into_value(s.clone())
}

/// Writes the file: two-space pretty JSON, UTF-8 kept, one trailing newline.
pub fn write_to(s: Session, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, &into_value(s))?;
    w.write_all(b"\n")
}

/// The file's bytes: two-space pretty JSON, UTF-8 kept, one trailing newline.
pub fn to_bytes(s: &Session) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(&to_value(s)).unwrap_or_default();
    out.push(b'\n');
    out
}
