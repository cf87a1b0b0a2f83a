//! Gemini CLI's messages as the session model's records.

use serde_json::Value;

use crate::replay::Msg;
use cctool_core::model::doc::Image;
use cctool_core::model::events::{At, Call, Outcome, Part, Record, Usage};
use cctool_core::model::time::parse_ms;

/// The message `m`, read as `v` (the ask's reading of it) from its JSON of `bytes` bytes, as a
/// record.
pub fn record(m: &Msg, v: &Value, bytes: u64, loaded: bool, session_id: Option<&str>) -> Record {
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
    let mut r = Record {
        at: Some(At {
            line: m.line,
            offset: m.offset,
        }),
        loaded,
        time: v.get("timestamp").and_then(Value::as_str).map(str::to_string),
        session_id: session_id.map(str::to_string),
        id: Some(m.id.clone()),
        kind: ty.to_string(),
        model: v.get("model").and_then(Value::as_str).map(str::to_string),
        bytes: Some(bytes),
        ..Record::default()
    };
    r.ms = r.time.as_deref().and_then(parse_ms);
    match ty {
        "user" => {
            let text = crate::sent::text_of(v.get("content"));
            let context = text.trim_start().starts_with(crate::sent::SESSION_CONTEXT);
            r.role = Some("user".into());
            r.speaker = Some(if context { "user (session context)" } else { "user" }.into());
            r.flags.meta = Some(context);
            r.parts = parts(v.get("content"));
        }
        "gemini" => {
            r.role = Some("assistant".into());
            r.speaker = Some("assistant".into());
            for t in v.get("thoughts").and_then(Value::as_array).into_iter().flatten() {
                let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("");
                let text = if s("subject").is_empty() {
                    s("description").to_string()
                } else {
                    format!("**{}** {}", s("subject"), s("description"))
                };
                r.parts.push(Part::Reasoning { text, summary: false });
            }
            r.parts.extend(parts(v.get("content")));
            calls(v, &mut r.parts);
            if let Some(t) = v.get("tokens") {
                let n = |k: &str| t.get(k).and_then(Value::as_i64);
                r.usage = Usage {
                    input: n("input"),
                    output: n("output"),
                    cache_read: n("cached"),
                    cache_creation: None,
                };
            }
        }
        // The client's notices (`info`, `warning`, `error`): shown, never sent.
        other => {
            r.role = Some("system".into());
            r.speaker = Some(format!("system/{other}"));
            r.parts = parts(v.get("content"));
        }
    }
    r
}

/// A gemini message's `toolCalls`, each a call and, when it has one, its result.
fn calls(v: &Value, out: &mut Vec<Part>) {
    for c in v.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
        let id = c.get("id").and_then(Value::as_str).map(str::to_string);
        out.push(Part::Call(Call {
            id: id.clone(),
            name: c.get("name").and_then(Value::as_str).map(str::to_string),
            kind: "functionCall".into(),
            input: c.get("args").cloned(),
        }));
        if let Some(result) = c.get("result").filter(|r| !r.is_null()) {
            out.push(Part::Outcome(Outcome {
                call_id: id,
                is_error: c.get("status").and_then(Value::as_str).map(|s| s != "success"),
                output: Some(response_output(result)),
            }));
        }
    }
}

/// What a result says: a function response's `response`, else the result as stored.
fn response_output(result: &Value) -> Value {
    let first = match result {
        Value::Array(a) => a.first(),
        other => Some(other),
    };
    first
        .and_then(|p| p.get("functionResponse"))
        .and_then(|f| f.get("response"))
        .cloned()
        .unwrap_or_else(|| result.clone())
}

/// A content (a string, or Gemini parts) as parts.
pub fn parts(content: Option<&Value>) -> Vec<Part> {
    match content {
        Some(Value::String(t)) if t.is_empty() => Vec::new(),
        Some(Value::String(t)) => vec![Part::Text(t.clone())],
        Some(Value::Array(list)) => list.iter().map(part).collect(),
        Some(p @ Value::Object(_)) => vec![part(p)],
        _ => Vec::new(),
    }
}

fn part(p: &Value) -> Part {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    if let Value::String(t) = p {
        return Part::Text(t.clone());
    }
    if let Some(f) = p.get("functionCall") {
        return Part::Call(Call {
            id: s(f.get("id")),
            name: s(f.get("name")),
            kind: "functionCall".into(),
            input: f.get("args").cloned(),
        });
    }
    if let Some(f) = p.get("functionResponse") {
        return Part::Outcome(Outcome {
            call_id: s(f.get("id")),
            is_error: None,
            output: f.get("response").cloned(),
        });
    }
    if let Some(d) = p.get("inlineData") {
        return Part::Image(Image {
            media_type: s(d.get("mimeType")).unwrap_or_default(),
            data: s(d.get("data")).unwrap_or_default(),
        });
    }
    match p.get("text").and_then(Value::as_str) {
        Some(t) if p.get("thought").and_then(Value::as_bool) == Some(true) => Part::Reasoning {
            text: t.to_string(),
            summary: false,
        },
        Some(t) => Part::Text(t.to_string()),
        None => Part::Other {
            kind: "part".into(),
            value: Some(p.clone()),
        },
    }
}
