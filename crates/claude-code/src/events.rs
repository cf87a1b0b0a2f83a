//! Claude Code's records as the session model's events (`cctool_core::model::events`): every
//! record of the transcript in file order, flagged when it is on the chain a resume loads; or
//! the chain itself (with `--full`, the earlier history its compactions replaced, marked).

use rustc_hash::FxHashSet;
use serde_json::Value;

use super::chain::{self as claude, flag};
use crate::io::Source;
use cctool_core::error::Error;
use cctool_core::model::doc::{image_of, output_text};
use cctool_core::model::events::{
    Ask, At, Call, Compaction, Event, Flags, Mark, Measured, Outcome, Part, Record, Sink, Streamed, Usage, View,
};
use cctool_core::model::rows::str_of;
use cctool_core::model::time::parse_ms;

/// Streams the transcript as asked.
pub(crate) fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> Result<Streamed, Error> {
    match ask.view {
        View::Records | View::Calls => records(src, ask, sink),
        View::Loaded | View::History => chain(src, ask, sink),
    }
}

/// Every record in file order; for [`View::Calls`], only those that hold a `tool_use`, a
/// `server_tool_use` or a `tool_result`, the others not even read.
fn records(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> Result<Streamed, Error> {
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&claude::Options::default()).unwrap_or_default();
    let on_chain: FxHashSet<u32> = chain.positions.iter().copied().collect();
    let calls = flag::TOOL_USE | flag::SERVER_TOOL_USE | flag::TOOL_RESULT;
    for (pos, n) in t.nodes.iter().enumerate() {
        if ask.view == View::Calls && n.flags & calls == 0 {
            continue;
        }
        let bytes = src.read_range(n.offset, n.len as usize)?;
        let Some(v) = (ask.parse)(&bytes) else { continue };
        let at = At {
            line: n.line,
            offset: n.offset,
        };
        record(&v, at, n.len, on_chain.contains(&(pos as u32)), sink);
    }
    Ok(Streamed {
        first_ms: t.time_span().map(|s| s.0),
    })
}

/// The chain a resume loads (with [`View::History`], the earlier parts too), in the order it
/// is sent, each earlier part and the start of what a resume loads marked.
fn chain(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> Result<Streamed, Error> {
    let t = claude::read(src).map_err(Error::Read)?;
    let chain = t
        .rebuild(&claude::Options {
            loader: claude::Loader::default(),
            tip: None,
            full: ask.view == View::History,
        })
        .map_err(Error::agent)?;
    let earlier = &chain.earlier_parts;
    for (i, &pos) in chain.positions.iter().enumerate() {
        if earlier.contains(&i) {
            sink(Event::Mark(Mark::Earlier));
        } else if !earlier.is_empty() && chain.loaded_from == Some(i) {
            sink(Event::Mark(Mark::Loaded));
        }
        let node = t.node(pos);
        let bytes = src.read_range(node.offset, node.len as usize).map_err(Error::Read)?;
        let Some(v) = (ask.parse)(&bytes) else { continue };
        let at = At {
            line: node.line,
            offset: node.offset,
        };
        let loaded = chain.loaded_from.is_none_or(|from| i >= from);
        record(&v, at, node.len, loaded, sink);
    }
    Ok(Streamed {
        first_ms: t.time_span().map(|s| s.0),
    })
}

/// The event of one record, followed by the mark of the compaction it records, if any.
fn record(v: &Value, at: At, len: u64, loaded: bool, sink: Sink<'_>) {
    let msg = v.get("message");
    let ty = str_of(v, "type").unwrap_or("");
    let usage = msg.and_then(|m| m.get("usage"));
    let tokens = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_i64);
    let flag_of = |k: &str| v.get(k).and_then(Value::as_bool);
    let owned = |k: &str| str_of(v, k).map(str::to_string);
    let flags = Flags {
        sidechain: flag_of("isSidechain"),
        meta: flag_of("isMeta"),
        compact_summary: flag_of("isCompactSummary"),
    };
    let subtype = str_of(v, "subtype").unwrap_or("");
    let content = msg.and_then(|m| m.get("content")).or_else(|| v.get("content"));
    let (speaker, parts) = match ty {
        "system" => {
            let notice = output_text(content.unwrap_or(&Value::Null), &mut Vec::new());
            let speaker = (subtype != "compact_boundary").then(|| format!("system/{subtype}"));
            (speaker, vec![Part::Notice(notice)])
        }
        "attachment" => (
            Some("attachment".to_string()),
            vec![Part::Attachment(v.get("attachment").cloned().unwrap_or(Value::Null))],
        ),
        "user" | "assistant" => {
            let speaker = if flags.compact_summary == Some(true) {
                "compaction summary".to_string()
            } else if flags.meta == Some(true) {
                format!("{ty} (meta)")
            } else {
                ty.to_string()
            };
            (Some(speaker), content.map(parts).unwrap_or_default())
        }
        _ => (None, content.map(parts).unwrap_or_default()),
    };
    let time = owned("timestamp");
    let boundary = (ty == "system" && subtype == "compact_boundary").then(|| {
        let m = v.get("compactMetadata");
        Compaction {
            time: time.clone(),
            measured: Some(Measured {
                trigger: m.and_then(|m| str_of(m, "trigger")).map(str::to_string),
                pre_tokens: m.and_then(|m| m.get("preTokens")).cloned(),
            }),
            ..Compaction::default()
        }
    });
    sink(Event::Record(Record {
        at: Some(at),
        loaded,
        ms: time.as_deref().and_then(parse_ms),
        time,
        session_id: owned("sessionId"),
        client_version: owned("version"),
        model: msg.and_then(|m| str_of(m, "model")).map(str::to_string),
        id: owned("uuid"),
        parent: owned("parentUuid"),
        kind: ty.to_string(),
        role: msg.and_then(|m| str_of(m, "role")).map(str::to_string),
        speaker,
        flags,
        parts,
        usage: Usage {
            input: tokens("input_tokens"),
            output: tokens("output_tokens"),
            cache_read: tokens("cache_read_input_tokens"),
            cache_creation: tokens("cache_creation_input_tokens"),
        },
        bytes: Some(len),
        ..Record::default()
    }));
    if let Some(c) = boundary {
        sink(Event::Mark(Mark::Compaction(c)));
    }
}

/// The parts of a message's content (Anthropic's: a string, or a list of blocks).
fn parts(content: &Value) -> Vec<Part> {
    let blocks = match content {
        Value::String(s) => return vec![Part::Text(s.clone())],
        Value::Array(blocks) => blocks,
        _ => return Vec::new(),
    };
    blocks.iter().map(block).collect()
}

/// One content block as a part.
fn block(b: &Value) -> Part {
    let text = |k: &str| str_of(b, k).unwrap_or("").to_string();
    match str_of(b, "type").unwrap_or("") {
        "text" => Part::Text(text("text")),
        "thinking" => Part::Reasoning {
            text: text("thinking"),
            summary: false,
        },
        "redacted_thinking" => Part::Redacted,
        kind @ ("tool_use" | "server_tool_use") => Part::Call(Call {
            id: str_of(b, "id").map(str::to_string),
            name: str_of(b, "name").map(str::to_string),
            kind: kind.to_string(),
            input: b.get("input").cloned(),
        }),
        "tool_result" => Part::Outcome(Outcome {
            call_id: str_of(b, "tool_use_id").map(str::to_string),
            is_error: Some(b.get("is_error").and_then(Value::as_bool).unwrap_or(false)),
            output: b.get("content").cloned(),
        }),
        "image" => image_of(b).map_or_else(|| Part::Other("image".into()), Part::Image),
        other => Part::Other(other.to_string()),
    }
}
