//! Qwen Code's records as the session model's records: a message's parts (Gemini's Content:
//! `text`, `thought`, `functionCall`, `functionResponse`, `inlineData`) as typed parts, a
//! `chat_compression` as the summary its compressed history opens with, the usage an assistant
//! record reports.

use serde_json::Value;

use crate::chain::truthy;
use crate::file::Rec;
use cctool_core::model::doc::Image;
use cctool_core::model::events::{At, Call, Outcome, Part, Record, Usage};
use cctool_core::model::time::parse_ms;

/// The summary a `chat_compression` record keeps: the text of its compressed history's first
/// user Content, as stored.
pub fn summary(r: &Rec) -> Option<&str> {
    let history = crate::chain::compressed_history(r)?.as_array()?;
    history
        .iter()
        .find(|c| c.get("role").and_then(Value::as_str) == Some("user"))?
        .get("parts")?
        .as_array()?
        .iter()
        .find_map(|p| p.get("text").and_then(Value::as_str))
}

/// The record `e`, read as `v` (the ask's reading of its line), as the session model's record.
pub fn record(e: &Rec, v: &Value, loaded: bool) -> Record {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mut r = Record {
        at: Some(At {
            line: e.line,
            offset: e.offset,
        }),
        loaded,
        time: s("timestamp"),
        session_id: s("sessionId"),
        client_version: s("version"),
        model: s("model"),
        id: Some(e.uuid.clone()),
        parent: e.parent.clone(),
        kind: match e.subtype() {
            Some(sub) => format!("{}/{sub}", e.ty()),
            None => e.ty().to_string(),
        },
        bytes: Some(e.raw.len() as u64),
        ..Record::default()
    };
    r.ms = r.time.as_deref().and_then(parse_ms);
    let message = v.get("message");
    let role = message.and_then(|m| m.get("role")).and_then(Value::as_str);
    r.role = role.map(|x| if x == "model" { "assistant" } else { x }.to_string());
    r.parts = message
        .and_then(|m| m.get("parts"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(part)
        .collect();
    r.speaker = match e.ty() {
        "user" if e.subtype().is_none() => Some("user".into()),
        "user" => Some(format!("user ({})", e.subtype().unwrap_or(""))),
        "assistant" => Some("assistant".into()),
        "tool_result" => Some("tool".into()),
        _ if e.is_system("chat_compression") => {
            r.flags.compact_summary = Some(true);
            r.role = Some("user".into());
            r.parts = summary(e).map(|t| vec![Part::Text(t.to_string())]).unwrap_or_default();
            Some("compaction summary".into())
        }
        _ if message.is_some() => Some(format!("system/{}", e.subtype().unwrap_or(""))),
        _ => None,
    };
    if let Some(u) = v.get("usageMetadata") {
        let n = |k: &str| u.get(k).and_then(Value::as_i64);
        r.usage = Usage {
            input: n("promptTokenCount"),
            output: n("candidatesTokenCount"),
            cache_read: n("cachedContentTokenCount"),
            cache_creation: None,
        };
    }
    r
}

/// One part of a Content as a typed part.
pub fn part(p: &Value) -> Part {
    let s = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).and_then(Value::as_str).map(str::to_string);
    if let Some(t) = p.as_str() {
        return Part::Text(t.to_string());
    }
    if let Some(f) = p.get("functionCall").filter(|f| truthy(f)) {
        return Part::Call(Call {
            id: s(Some(f), "id"),
            name: s(Some(f), "name"),
            kind: "functionCall".into(),
            input: f.get("args").cloned(),
        });
    }
    if let Some(f) = p.get("functionResponse").filter(|f| truthy(f)) {
        let response = f.get("response");
        let error = response.and_then(|r| r.get("error")).is_some_and(truthy);
        let output = match response.and_then(|r| r.get("output")) {
            Some(o) => Some(o.clone()),
            None => response.cloned(),
        };
        return Part::Outcome(Outcome {
            call_id: s(Some(f), "id"),
            is_error: Some(error),
            output,
        });
    }
    if let Some(d) = p.get("inlineData") {
        return Part::Image(Image {
            media_type: s(Some(d), "mimeType").unwrap_or_default(),
            data: s(Some(d), "data").unwrap_or_default(),
        });
    }
    match p.get("text").and_then(Value::as_str) {
        Some(t) if p.get("thought").is_some_and(truthy) => Part::Reasoning {
            text: t.to_string(),
            summary: false,
        },
        Some(t) => Part::Text(t.to_string()),
        None => Part::Other {
            kind: p.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_default(),
            value: Some(p.clone()),
        },
    }
}
