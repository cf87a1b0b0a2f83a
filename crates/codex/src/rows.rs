//! Codex's rows of `scan --rows`: one message row per response item of the rollout, plus
//! the items a resume loads from elsewhere (a compaction's replacement history, a legacy
//! rebuild), and the tool calls paired with their outputs.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use super::history::History;
use super::rollout::{Item, ItemSrc, Record, Rollout, message_texts};
use crate::io::Source;
use crate::model::rows::{
    Call, CallResult, FileRows, Options, Table, Val, as_text, body, call_rows, parse, provenance, str_of,
};
use crate::model::time::parse_ms;

/// Codex item types that call a tool, and those that carry a call's output.
const CODEX_CALLS: [&str; 4] = [
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "tool_search_call",
];
const CODEX_OUTPUTS: [&str; 3] = ["function_call_output", "custom_tool_call_output", "tool_search_output"];

/// The timestamp of every line of a rollout (items carry none of their own).
fn line_times(src: &Source) -> std::io::Result<FxHashMap<u64, i64>> {
    #[derive(serde::Deserialize)]
    struct Ts<'a> {
        #[serde(borrow, default)]
        timestamp: Option<std::borrow::Cow<'a, str>>,
    }
    let mut times = FxHashMap::default();
    crate::io::for_each_line(src, |line| {
        if let Ok(Ts { timestamp: Some(ts) }) = serde_json::from_slice::<Ts<'_>>(line.bytes)
            && let Some(ms) = parse_ms(&ts)
        {
            times.insert(line.no, ms);
        }
    })?;
    Ok(times)
}

/// The session id, client version and model in force where an item was written.
type Meta = (Option<String>, Option<String>, Option<String>);

/// The items of the rollout's own lines, then those a resume loads from elsewhere (the
/// replacement history of a compaction, or a legacy rebuild): each with where it comes from,
/// whether a resume loads it, and the [`Meta`] in force.
fn listed<'r>(rollout: &'r Rollout, history: &'r History) -> Vec<(&'r Item, &'static str, bool, Meta)> {
    let on_chain: FxHashSet<u64> = history
        .items
        .iter()
        .filter_map(|i| match i.src {
            ItemSrc::Raw { offset, .. } => Some(offset),
            ItemSrc::Synth(_) => None,
        })
        .collect();
    let (mut session_id, mut version, mut model) = (None::<String>, None::<String>, None::<String>);
    let mut recorded: FxHashSet<u64> = FxHashSet::default();
    let mut items = Vec::new();
    for (_, r) in &rollout.records {
        match r {
            Record::SessionMeta { id, cli_version } => {
                if session_id.is_none() {
                    session_id.clone_from(id);
                }
                if cli_version.is_some() {
                    version.clone_from(cli_version);
                }
            }
            Record::TurnContext { model: Some(m), .. } => model = Some(m.clone()),
            Record::Response(item) | Record::InterAgent(item) => {
                if let ItemSrc::Raw { offset, .. } = item.src {
                    recorded.insert(offset);
                    let chain = on_chain.contains(&offset);
                    items.push((
                        item,
                        "record",
                        chain,
                        (session_id.clone(), version.clone(), model.clone()),
                    ));
                }
            }
            _ => {}
        }
    }
    for item in &history.items {
        let origin = match item.src {
            ItemSrc::Raw { offset, .. } if recorded.contains(&offset) => continue,
            ItemSrc::Raw { .. } => "replacement-history",
            ItemSrc::Synth(_) => "rebuilt",
        };
        items.push((item, origin, true, (session_id.clone(), version.clone(), model.clone())));
    }
    items
}

/// An item's text: a reasoning item's summary, else the texts of its content.
fn item_text(ty: &str, p: &Value) -> String {
    match ty {
        "reasoning" => p
            .get("summary")
            .and_then(Value::as_array)
            .map(|s| {
                s.iter()
                    .filter_map(|b| str_of(b, "text"))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default(),
        _ => p
            .get("content")
            .map(|c| message_texts(c).join("\n"))
            .unwrap_or_default(),
    }
}

/// The rows of the messages or tool-calls `table` for one rollout.
pub(crate) fn rows(table: Table, src: &Source, opts: &Options) -> std::io::Result<FileRows> {
    let rollout = super::rollout::read_records(src)?;
    let history = super::history::reconstruct(&rollout);
    let times = line_times(src)?;
    let mut out = FileRows {
        first_ms: rollout.time_span.map(|s| s.0),
        ..FileRows::default()
    };
    let mut calls = Vec::new();
    let mut results: FxHashMap<String, CallResult> = FxHashMap::default();
    for (item, origin, chain, (sid, ver, model)) in listed(&rollout, &history) {
        let (offset, line, p) = match &item.src {
            ItemSrc::Raw { offset, len, line } => (
                Some(*offset),
                Some(*line),
                parse(&src.read_range(*offset, *len as usize)?),
            ),
            ItemSrc::Synth(json) => (None, None, parse(json.as_bytes())),
        };
        let Some(p) = p else { continue };
        let ty = str_of(&p, "type").unwrap_or(&item.ty).to_string();
        let ms = line.and_then(|l| times.get(&l).copied());
        let prov = provenance(crate::ID, ver.as_deref(), src, sid.as_deref(), offset, line);
        if table == Table::ToolCalls {
            if CODEX_CALLS.contains(&ty.as_str()) {
                let input = p
                    .get("arguments")
                    .or_else(|| p.get("input"))
                    .or_else(|| p.get("action"))
                    .or_else(|| p.get("query"));
                calls.push(Call {
                    prov,
                    id: str_of(&p, "call_id").or_else(|| str_of(&p, "id")).map(str::to_string),
                    name: str_of(&p, "name").map(str::to_string),
                    kind: ty,
                    ms,
                    on_chain: chain,
                    input: as_text(input),
                });
            } else if CODEX_OUTPUTS.contains(&ty.as_str())
                && let Some(id) = str_of(&p, "call_id")
            {
                let output = p.get("output");
                // Function outputs were once written as {"content", "success"}.
                let success = output.and_then(|o| o.get("success")).and_then(Value::as_bool);
                let text = match output.and_then(|o| o.get("content")) {
                    Some(c) if output.is_some_and(Value::is_object) => as_text(Some(c)),
                    _ => as_text(output),
                };
                results.insert(
                    id.to_string(),
                    CallResult {
                        line,
                        ms,
                        is_error: success.map(|s| !s),
                        output: text,
                    },
                );
            }
            continue;
        }
        let text = item_text(&ty, &p);
        let mut row = prov;
        row.extend([
            Val::count(out.rows.len()),
            Val::Str(origin.into()),
            Val::Null,
            Val::Null,
            Val::Str(ty.clone()),
            Val::str(str_of(&p, "role")),
            Val::time(ms),
            Val::str(model),
            Val::Bool(chain),
            Val::Null,
            Val::Null,
            Val::Bool(item.summary || item.remote_compaction),
        ]);
        row.extend(body(&text, opts.max_text));
        row.extend([
            Val::count(usize::from(CODEX_CALLS.contains(&ty.as_str()))),
            Val::count(usize::from(CODEX_OUTPUTS.contains(&ty.as_str()))),
            Val::Null,
            Val::Null,
            Val::Null,
            Val::Null,
        ]);
        row.push(match &item.src {
            ItemSrc::Raw { len, .. } => Val::count(*len),
            ItemSrc::Synth(json) => Val::count(json.len()),
        });
        out.rows.push(row);
    }
    if table == Table::ToolCalls {
        out.rows = call_rows(calls, &mut results, opts);
    }
    Ok(out)
}
