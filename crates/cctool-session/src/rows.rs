//! A cctool session's rows of `scan --rows`: one message row per message, every one on the
//! chain, and the tool calls of its `tool_call` items with their results.

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::io::Source;
use crate::model::rows::{
    Call, CallResult, FileRows, Options, Table, Val, as_text, body, call_rows, earliest, message_texts, parse,
    provenance, str_of,
};

/// The rows of the messages or tool-calls `table` for one session file.
pub(crate) fn rows(table: Table, src: &Source, opts: &Options) -> crate::error::Result<FileRows> {
    let s = super::file::read_messages(src)?;
    let sid = s.session_id.as_deref();
    let mut out = FileRows::default();
    let mut calls = Vec::new();
    let mut results: FxHashMap<String, CallResult> = FxHashMap::default();
    for m in s.messages.iter() {
        let Some(v) = parse(m) else { continue };
        let ms = crate::model::session::session_time(&v);
        earliest(&mut out.first_ms, ms);
        let items: &[Value] = v.get("items").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let of_type = |ty: &'static str| items.iter().filter(move |i| str_of(i, "type") == Some(ty));
        let prov = provenance(crate::ID, None, src, sid, None, None);
        let role = str_of(&v, "role");
        if table == Table::ToolCalls {
            for i in of_type("tool_call") {
                calls.push(Call {
                    prov: prov.clone(),
                    id: str_of(i, "id").map(str::to_string),
                    name: str_of(i, "name").map(str::to_string),
                    kind: "tool_call".into(),
                    ms,
                    on_chain: true,
                    input: as_text(i.get("args")),
                });
            }
            if let Some(id) = str_of(&v, "tool_call_id") {
                for i in of_type("tool_result") {
                    results.insert(
                        id.to_string(),
                        CallResult {
                            line: None,
                            ms,
                            is_error: i.get("is_error").and_then(Value::as_bool),
                            output: as_text(i.get("content")),
                        },
                    );
                }
            }
            continue;
        }
        // Versions before 3 hold the text in `content`.
        let text = if items.is_empty() {
            v.get("content")
                .map(|c| message_texts(c).join("\n"))
                .unwrap_or_default()
        } else {
            items
                .iter()
                .filter(|i| matches!(str_of(i, "type"), Some("text" | "summary")))
                .filter_map(|i| str_of(i, "text"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let tool_calls =
            of_type("tool_call").count() + v.get("tool_calls").and_then(Value::as_array).map_or(0, Vec::len);
        let mut row = prov;
        row.extend([
            Val::count(out.rows.len()),
            Val::Str("record".into()),
            Val::Null,
            Val::Null,
            Val::Str(role.unwrap_or("").to_string()),
            Val::str(role),
            Val::time(ms),
            Val::Null,
            Val::Bool(true),
            Val::Null,
            Val::Null,
            Val::Bool(of_type("summary").next().is_some()),
        ]);
        row.extend(body(&text, opts.max_text));
        row.extend([
            Val::count(tool_calls),
            Val::count(of_type("tool_result").count() + usize::from(role == Some("tool") && items.is_empty())),
            Val::Null,
            Val::Null,
            Val::Null,
            Val::Null,
            Val::Null,
        ]);
        out.rows.push(row);
    }
    if table == Table::ToolCalls {
        out.rows = call_rows(calls, &mut results, opts);
    }
    Ok(out)
}
