//! Claude Code's rows of `scan --rows`: one message row per record, on the chain a resume
//! loads or not, and the tool calls of its `tool_use` blocks with their `tool_result`s.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use super::chain::{self as claude, flag};
use crate::io::Source;
use cctool_core::model::rows::{
    Call, CallResult, FileRows, Options, Table, Val, as_text, body, call_rows, message_texts, parse, provenance, str_of,
};
use cctool_core::model::time::parse_ms;

/// The rows of the messages or tool-calls `table` for one transcript.
pub(crate) fn rows(table: Table, src: &Source, opts: &Options) -> std::io::Result<FileRows> {
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&claude::Options::default()).unwrap_or_default();
    let on_chain: FxHashSet<u32> = chain.positions.iter().copied().collect();
    let mut out = FileRows {
        first_ms: t.time_span().map(|s| s.0),
        ..FileRows::default()
    };
    let mut calls = Vec::new();
    let mut results: FxHashMap<String, CallResult> = FxHashMap::default();
    for (pos, n) in t.nodes.iter().enumerate() {
        if table == Table::ToolCalls && !n.has(flag::TOOL_USE) && !n.has(flag::TOOL_RESULT) {
            continue;
        }
        let bytes = src.read_range(n.offset, n.len as usize)?;
        let Some(v) = parse(&bytes) else { continue };
        let msg = v.get("message");
        let content = msg.and_then(|m| m.get("content")).or_else(|| v.get("content"));
        let blocks: &[Value] = content.and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let of_type = |ty: &'static str| blocks.iter().filter(move |b| str_of(b, "type") == Some(ty));
        let ms = str_of(&v, "timestamp").and_then(parse_ms);
        let prov = provenance(
            crate::ID,
            str_of(&v, "version"),
            src,
            str_of(&v, "sessionId"),
            Some(n.offset),
            Some(n.line),
        );
        let on_chain = on_chain.contains(&(pos as u32));
        if table == Table::ToolCalls {
            for b in of_type("tool_use") {
                calls.push(Call {
                    prov: prov.clone(),
                    id: str_of(b, "id").map(str::to_string),
                    name: str_of(b, "name").map(str::to_string),
                    kind: "tool_use".into(),
                    ms,
                    on_chain,
                    input: as_text(b.get("input")),
                });
            }
            for b in of_type("tool_result") {
                if let Some(id) = str_of(b, "tool_use_id") {
                    results.insert(
                        id.to_string(),
                        CallResult {
                            line: Some(n.line),
                            ms,
                            is_error: Some(b.get("is_error").and_then(Value::as_bool).unwrap_or(false)),
                            output: as_text(b.get("content")),
                        },
                    );
                }
            }
            continue;
        }
        let text = content.map(|c| message_texts(c).join("\n")).unwrap_or_default();
        let usage = msg.and_then(|m| m.get("usage"));
        let tokens = |k: &str| Val::int(usage.and_then(|u| u.get(k)).and_then(Value::as_i64));
        let flag_of = |k: &str| Val::bool(v.get(k).and_then(Value::as_bool));
        let mut row = prov;
        row.extend([
            Val::count(out.rows.len()),
            Val::Str("record".into()),
            Val::str(str_of(&v, "uuid")),
            Val::str(str_of(&v, "parentUuid")),
            Val::Str(str_of(&v, "type").unwrap_or("").to_string()),
            Val::str(msg.and_then(|m| str_of(m, "role"))),
            Val::time(ms),
            Val::str(msg.and_then(|m| str_of(m, "model"))),
            Val::Bool(on_chain),
            flag_of("isSidechain"),
            flag_of("isMeta"),
            flag_of("isCompactSummary"),
        ]);
        row.extend(body(&text, opts.max_text));
        row.extend([
            Val::count(of_type("tool_use").count()),
            Val::count(of_type("tool_result").count()),
            tokens("input_tokens"),
            tokens("output_tokens"),
            tokens("cache_read_input_tokens"),
            tokens("cache_creation_input_tokens"),
            Val::count(n.len),
        ]);
        out.rows.push(row);
    }
    if table == Table::ToolCalls {
        out.rows = call_rows(calls, &mut results, opts);
    }
    Ok(out)
}
