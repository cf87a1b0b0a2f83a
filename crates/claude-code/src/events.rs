//! Claude Code's records as the session model's events (`cctool_core::model::events`): every
//! record of the transcript in file order, flagged when it is on the chain a resume loads,
//! with the texts, `tool_use` calls and `tool_result`s of its content.

use rustc_hash::FxHashSet;
use serde_json::Value;

use super::chain::{self as claude, flag};
use crate::io::Source;
use cctool_core::model::events::{At, Call, Event, Flags, Outcome, Part, Sink, Streamed, Usage, Want};
use cctool_core::model::rows::{parse, str_of};
use cctool_core::model::time::parse_ms;

/// Streams the transcript's records; with [`Want::Calls`], only those that hold a
/// `tool_use` or a `tool_result`, the others not even read.
pub(crate) fn events(src: &Source, want: Want, sink: Sink<'_>) -> std::io::Result<Streamed> {
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&claude::Options::default()).unwrap_or_default();
    let on_chain: FxHashSet<u32> = chain.positions.iter().copied().collect();
    for (pos, n) in t.nodes.iter().enumerate() {
        if want == Want::Calls && !n.has(flag::TOOL_USE) && !n.has(flag::TOOL_RESULT) {
            continue;
        }
        let bytes = src.read_range(n.offset, n.len as usize)?;
        let Some(v) = parse(&bytes) else { continue };
        let msg = v.get("message");
        let content = msg.and_then(|m| m.get("content")).or_else(|| v.get("content"));
        let usage = msg.and_then(|m| m.get("usage"));
        let tokens = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_i64);
        let flag_of = |k: &str| v.get(k).and_then(Value::as_bool);
        let owned = |k: &str| str_of(&v, k).map(str::to_string);
        sink(Event {
            at: Some(At {
                line: n.line,
                offset: n.offset,
            }),
            loaded: on_chain.contains(&(pos as u32)),
            ms: str_of(&v, "timestamp").and_then(parse_ms),
            session_id: owned("sessionId"),
            client_version: owned("version"),
            model: msg.and_then(|m| str_of(m, "model")).map(str::to_string),
            id: owned("uuid"),
            parent: owned("parentUuid"),
            kind: str_of(&v, "type").unwrap_or("").to_string(),
            role: msg.and_then(|m| str_of(m, "role")).map(str::to_string),
            flags: Flags {
                sidechain: flag_of("isSidechain"),
                meta: flag_of("isMeta"),
                compact_summary: flag_of("isCompactSummary"),
            },
            parts: content.map(parts).unwrap_or_default(),
            usage: Usage {
                input: tokens("input_tokens"),
                output: tokens("output_tokens"),
                cache_read: tokens("cache_read_input_tokens"),
                cache_creation: tokens("cache_creation_input_tokens"),
            },
            bytes: Some(n.len),
            ..Event::default()
        });
    }
    Ok(Streamed {
        first_ms: t.time_span().map(|s| s.0),
    })
}

/// The parts of a message's content: a string is its text; of a list of blocks, each
/// `tool_use` is a call, each `tool_result` a result, each `thinking` reasoning, and any
/// block's `text` a text.
fn parts(content: &Value) -> Vec<Part> {
    let blocks = match content {
        Value::String(s) => return vec![Part::Text(s.clone())],
        Value::Array(blocks) => blocks,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for b in blocks {
        match str_of(b, "type") {
            Some("tool_use") => out.push(Part::Call(Call {
                id: str_of(b, "id").map(str::to_string),
                name: str_of(b, "name").map(str::to_string),
                kind: "tool_use".into(),
                input: b.get("input").cloned(),
            })),
            Some("tool_result") => out.push(Part::Outcome(Outcome {
                call_id: str_of(b, "tool_use_id").map(str::to_string),
                is_error: Some(b.get("is_error").and_then(Value::as_bool).unwrap_or(false)),
                output: b.get("content").cloned(),
            })),
            Some("thinking") => out.push(Part::Reasoning {
                text: str_of(b, "thinking").unwrap_or("").to_string(),
                summary: false,
            }),
            _ => {}
        }
        if let Some(t) = str_of(b, "text") {
            out.push(Part::Text(t.to_string()));
        }
    }
    out
}
