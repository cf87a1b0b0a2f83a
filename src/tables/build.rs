//! The rows of one input file, for each table and each format.
//!
//! Built from what the rest of the crate already answers: `scan` for sessions, each agent's
//! `summaries` (`agents::Agent`) for compactions, and each format's reader for messages and
//! tool calls.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use super::{Options, Row, SCHEMA_VERSION, Table, Val, body};
use crate::agents::claude_code::chain::{self as claude, flag};
use crate::agents::claude_code::config::Overrides;
use crate::agents::codex::rollout::{ItemSrc, Record, message_texts};
use crate::io::Source;
use crate::model::Format;
use crate::model::time::parse_ms;

/// The rows of one file, and the earliest time they carry (the file's partition date).
#[derive(Debug, Default)]
pub struct FileRows {
    pub agent: &'static str,
    pub rows: Vec<Row>,
    pub first_ms: Option<i64>,
}

/// The rows of `table` for one file.
pub fn rows(
    table: Table,
    src: &Source,
    format: Format,
    opts: &Options,
    overrides: &Overrides,
) -> crate::error::Result<FileRows> {
    let mut out = match (table, format) {
        (Table::Sessions, _) => sessions(src, format, overrides)?,
        (Table::Compactions, _) => compactions(src, format, opts)?,
        (Table::Messages | Table::ToolCalls, Format::ClaudeCode) => claude(table, src, opts)?,
        (Table::Messages | Table::ToolCalls, Format::Codex) => codex(table, src, opts)?,
        (Table::Messages | Table::ToolCalls, Format::CctoolSession) => session(table, src, opts)?,
    };
    out.agent = format.name();
    Ok(out)
}

/// The provenance columns every row starts with.
fn provenance(
    format: Format,
    client_version: Option<&str>,
    src: &Source,
    session_id: Option<&str>,
    offset: Option<u64>,
    line: Option<u64>,
) -> Row {
    vec![
        Val::Int(SCHEMA_VERSION),
        Val::Str(format.name().to_string()),
        Val::str(client_version),
        Val::Str(src.name().to_string()),
        Val::str(session_id),
        Val::int(offset),
        Val::int(line),
    ]
}

fn parse(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
}

fn str_of<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// A body as text: a string as written, anything else (arrays of blocks, objects) as its
/// JSON text.
fn as_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn earliest(first: &mut Option<i64>, ms: Option<i64>) {
    if let Some(ms) = ms {
        *first = Some(first.map_or(ms, |f| f.min(ms)));
    }
}

fn sessions(src: &Source, format: Format, overrides: &Overrides) -> std::io::Result<FileRows> {
    let r = crate::agents::agent(format).scan(src, overrides)?;
    let origin = |k: &str| Val::count(r.compaction_origins.get(k).copied().unwrap_or(0));
    let first_ms = r.first_timestamp.as_deref().and_then(parse_ms);
    let mut row = provenance(
        format,
        r.agent_versions.last().map(String::as_str),
        src,
        r.session_id.as_deref(),
        None,
        None,
    );
    row.extend([
        Val::Str(r.path.clone()),
        Val::Str(r.role.to_string()),
        // A subagent keeps its session's id: which session it belongs to needs no other file.
        Val::str(if r.role == "subagent" {
            r.session_id.clone()
        } else {
            None
        }),
        Val::str(r.cwd.clone()),
        Val::str(r.project.clone()),
        Val::str(r.title.clone()),
        Val::str(r.title_source),
        Val::Str(r.agent_versions.join(",")),
        Val::count(r.bytes),
        Val::count(r.lines),
        Val::count(r.bad_lines),
        Val::count(r.chain_messages),
        Val::str(r.chain_end.clone()),
        Val::int(r.leaves),
        Val::count(r.compactions),
        origin("local"),
        origin("remote"),
        origin("legacy"),
        Val::str(r.last_compaction_trigger.clone()),
        Val::int(r.last_compaction_pre_tokens),
        Val::count(r.resume_tokens),
        Val::str(r.resume_model.clone()),
        Val::str(r.resume_model_choice.clone()),
        Val::int(r.dangling_parents),
        Val::int(r.chain_breaks),
        Val::int(r.duplicate_uuids),
        Val::time(first_ms),
        Val::time(r.last_timestamp.as_deref().and_then(parse_ms)),
        Val::Bool(true),
        Val::Int(0),
        Val::int(r.payload_bytes),
        Val::int(r.request_bytes),
    ]);
    Ok(FileRows {
        rows: vec![row],
        first_ms,
        ..FileRows::default()
    })
}

fn compactions(src: &Source, format: Format, opts: &Options) -> crate::error::Result<FileRows> {
    let (records, _) = crate::agents::agent(format).summaries(
        src,
        crate::agents::claude_code::chain::Loader::default(),
        crate::summary::Options::default(),
    )?;
    let mut out = FileRows::default();
    for (i, r) in records.iter().filter(|r| r.kind == "summary").enumerate() {
        let ms = r.timestamp.as_deref().and_then(parse_ms);
        earliest(&mut out.first_ms, ms);
        let mut row = provenance(format, None, src, r.session_id.as_deref(), None, r.line);
        row.extend([
            Val::count(i),
            Val::time(ms),
            Val::str(r.trigger.clone()),
            Val::int(r.pre_tokens),
        ]);
        row.push(Val::Str(r.origin.unwrap_or("local").to_string()));
        row.push(Val::Bool(r.current));
        row.push(Val::Bool(r.encrypted));
        row.push(Val::int(r.encrypted_len));
        row.extend(body(r.summary.as_deref().unwrap_or(""), opts.max_text));
        row.push(Val::int(r.summary_line.filter(|&l| Some(l) != r.line)));
        row.push(Val::int(r.retained_messages.as_ref().map(Vec::len)));
        row.push(Val::str(r.boundary_uuid.clone()));
        out.rows.push(row);
    }
    Ok(out)
}

/// A tool result waiting for its call: where it is and what it says.
struct Result_ {
    line: Option<u64>,
    ms: Option<i64>,
    is_error: Option<bool>,
    output: String,
}

/// A tool call found in a message, before its result is known.
struct Call {
    prov: Row,
    id: Option<String>,
    name: Option<String>,
    kind: String,
    ms: Option<i64>,
    on_chain: bool,
    input: String,
}

/// The tool-call rows: each call with the result of the same id.
fn call_rows(calls: Vec<Call>, results: &mut FxHashMap<String, Result_>, opts: &Options) -> Vec<Row> {
    calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let result = c.id.as_ref().and_then(|id| results.remove(id));
            let mut row = c.prov;
            row.extend([
                Val::count(i),
                Val::str(c.id),
                Val::str(c.name),
                Val::Str(c.kind),
                Val::time(c.ms),
                Val::Bool(c.on_chain),
            ]);
            row.extend(body(&c.input, opts.max_text));
            row.push(Val::Bool(result.is_some()));
            match result {
                Some(r) => {
                    row.extend([Val::int(r.line), Val::bool(r.is_error)]);
                    row.extend(body(&r.output, opts.max_text));
                    row.push(Val::time(r.ms));
                }
                None => row.extend([Val::Null, Val::Null, Val::Null, Val::Null, Val::Null, Val::Null]),
            }
            row
        })
        .collect()
}

fn claude(table: Table, src: &Source, opts: &Options) -> std::io::Result<FileRows> {
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&claude::Options::default()).unwrap_or_default();
    let on_chain: FxHashSet<u32> = chain.positions.iter().copied().collect();
    let mut out = FileRows {
        first_ms: t.time_span().map(|s| s.0),
        ..FileRows::default()
    };
    let mut calls = Vec::new();
    let mut results: FxHashMap<String, Result_> = FxHashMap::default();
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
            Format::ClaudeCode,
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
                        Result_ {
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

fn codex(table: Table, src: &Source, opts: &Options) -> std::io::Result<FileRows> {
    let rollout = crate::agents::codex::rollout::read_records(src)?;
    let history = crate::agents::codex::history::reconstruct(&rollout);
    let times = line_times(src)?;
    let on_chain: FxHashSet<u64> = history
        .items
        .iter()
        .filter_map(|i| match i.src {
            ItemSrc::Raw { offset, .. } => Some(offset),
            ItemSrc::Synth(_) => None,
        })
        .collect();
    let mut out = FileRows {
        first_ms: rollout.time_span.map(|s| s.0),
        ..FileRows::default()
    };
    let (mut session_id, mut version, mut model) = (None::<String>, None::<String>, None::<String>);
    let mut recorded: FxHashSet<u64> = FxHashSet::default();
    let mut calls = Vec::new();
    let mut results: FxHashMap<String, Result_> = FxHashMap::default();
    // The items of the rollout's own lines, then those a resume loads from elsewhere (the
    // replacement history of a compaction, or a legacy rebuild).
    let mut items: Vec<(&crate::agents::codex::rollout::Item, &'static str, bool)> = Vec::new();
    let mut meta: Vec<(Option<String>, Option<String>, Option<String>)> = Vec::new();
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
                    items.push((item, "record", chain));
                    meta.push((session_id.clone(), version.clone(), model.clone()));
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
        items.push((item, origin, true));
        meta.push((session_id.clone(), version.clone(), model.clone()));
    }
    for ((item, origin, chain), (sid, ver, model)) in items.into_iter().zip(meta) {
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
        let prov = provenance(Format::Codex, ver.as_deref(), src, sid.as_deref(), offset, line);
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
                    Result_ {
                        line,
                        ms,
                        is_error: success.map(|s| !s),
                        output: text,
                    },
                );
            }
            continue;
        }
        let text = match ty.as_str() {
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
        };
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

fn session(table: Table, src: &Source, opts: &Options) -> crate::error::Result<FileRows> {
    let s = crate::agents::cctool::file::read_messages(src)?;
    let sid = s.session_id.as_deref();
    let mut out = FileRows::default();
    let mut calls = Vec::new();
    let mut results: FxHashMap<String, Result_> = FxHashMap::default();
    for m in s.messages.iter() {
        let Some(v) = parse(m) else { continue };
        let ms = crate::model::session::session_time(&v);
        earliest(&mut out.first_ms, ms);
        let items: &[Value] = v.get("items").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let of_type = |ty: &'static str| items.iter().filter(move |i| str_of(i, "type") == Some(ty));
        let prov = provenance(Format::CctoolSession, None, src, sid, None, None);
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
                        Result_ {
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
